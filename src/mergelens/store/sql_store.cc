#include "mergelens/store/sql_store.h"

#include <fmt/format.h>

#include "mergelens/util/compress.h"

namespace mergelens {

Result<nlohmann::json> SqlStore::read_json_doc(std::string_view blob, std::string_view what) const {
  auto text = zstd_decompress(blob);
  if (!text) return fail(ErrorKind::kCorrupt, "{}: {}: {}", db_name(), what, text.error().message);
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail(ErrorKind::kCorrupt, "{}: {} is not JSON", db_name(), what);
  return j;
}

Result<std::vector<ChangeSummary>> SqlStore::changes_with_number(std::int64_t repo_id,
                                                                 std::int64_t number) {
  auto st =
      q(fmt::format("SELECT {} FROM changes c LEFT JOIN facts f ON f.change_id = c.id "
                    "WHERE c.repo_id = $1 AND c.number = $2 ORDER BY c.merged_at DESC, c.id DESC",
                    kSummaryColumns));
  st.bind(1, repo_id).bind(2, number);
  return st.collect(read_summary<db::Query>);
}

}  // namespace mergelens
