// zstd compression of stored blobs (patches); gzip for HTTP responses.
#pragma once

#include <string>
#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens {

// Compresses `data` into a single zstd frame (level 3). Never fails for valid
// input; returns kInternal if zstd reports an error.
Result<std::string> zstd_compress(std::string_view data, int level = 3);

// Decompresses one zstd frame. Returns kCorrupt when `frame` is not a complete
// zstd frame or would expand beyond `max_size` bytes.
Result<std::string> zstd_decompress(std::string_view frame, size_t max_size = 1u << 30);

// Compresses `data` into one gzip member (RFC 1952, zlib level `level`), as
// served with Content-Encoding: gzip. kInternal if zlib reports an error.
Result<std::string> gzip_compress(std::string_view data, int level = 6);

}  // namespace mergelens
