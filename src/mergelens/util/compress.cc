#include "mergelens/util/compress.h"

#include <zlib.h>
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

Result<std::string> gzip_compress(std::string_view data, int level) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return fail(ErrorKind::kInternal, "gzip: cannot initialise zlib");
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return fail(ErrorKind::kInternal, "gzip: zlib error {}", rc);
  return out;
}

}  // namespace mergelens
