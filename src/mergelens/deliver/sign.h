// Webhook signatures, with OpenSSL's HMAC and base64:
//   Feishu/Lark custom bot: sign = base64(HMAC-SHA256(key = "<timestamp>\n<secret>",
//     message = "")), timestamp in seconds, both sent in the JSON body.
//   DingTalk custom robot: sign = base64(HMAC-SHA256(key = secret,
//     message = "<timestamp>\n<secret>")), timestamp in milliseconds, both sent
//     as query parameters (sign percent-encoded).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mergelens::deliver {

// Standard base64 (RFC 4648, with padding).
std::string base64(std::string_view data);
// base64 of the HMAC-SHA256 of `message` under `key`.
std::string hmac_sha256_base64(std::string_view key, std::string_view message);

std::string feishu_sign(std::string_view secret, std::int64_t timestamp_s);
// Not percent-encoded.
std::string dingtalk_sign(std::string_view secret, std::int64_t timestamp_ms);

}  // namespace mergelens::deliver
