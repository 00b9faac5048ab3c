#include "mergelens/deliver/sign.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>
#include <vector>

namespace mergelens::deliver {

std::string base64(std::string_view data) {
  std::vector<unsigned char> out(4 * ((data.size() + 2) / 3) + 1);
  const int n = EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  return std::string(reinterpret_cast<const char*>(out.data()), static_cast<size_t>(n));
}

std::string hmac_sha256_base64(std::string_view key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &len);
  return base64(std::string_view(reinterpret_cast<const char*>(digest), len));
}

std::string feishu_sign(std::string_view secret, std::int64_t timestamp_s) {
  return hmac_sha256_base64(std::to_string(timestamp_s) + "\n" + std::string(secret), "");
}

std::string dingtalk_sign(std::string_view secret, std::int64_t timestamp_ms) {
  return hmac_sha256_base64(secret, std::to_string(timestamp_ms) + "\n" + std::string(secret));
}

}  // namespace mergelens::deliver
