#include "mergelens/util/compress.h"

#include <zstd.h>

namespace mergelens {

Result<std::string> zstd_compress(std::string_view data, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  if (ZSTD_isError(n)) return fail(ErrorKind::kInternal, "zstd: {}", ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

Result<std::string> zstd_decompress(std::string_view frame, size_t max_size) {
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > max_size)
    return fail(ErrorKind::kCorrupt, "stored blob is not a valid zstd frame");
  std::string out(static_cast<size_t>(size), '\0');
  const size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != size)
    return fail(ErrorKind::kCorrupt, "stored blob is damaged: {}",
                ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame");
  return out;
}

}  // namespace mergelens
