// zstd compression of stored blobs (patches).
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

}  // namespace mergelens
