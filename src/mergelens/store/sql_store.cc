#include "mergelens/store/sql_store.h"

#include "mergelens/util/compress.h"

namespace mergelens {

Result<nlohmann::json> SqlStore::read_json_doc(std::string_view blob, std::string_view what) const {
  auto text = zstd_decompress(blob);
  if (!text) return fail(ErrorKind::kCorrupt, "{}: {}: {}", db_name(), what, text.error().message);
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail(ErrorKind::kCorrupt, "{}: {} is not JSON", db_name(), what);
  return j;
}

}  // namespace mergelens
