#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/guide/guide_json.h"

namespace mergelens::cli {

Runner setup_schema(CLI::App&, const Globals&) {
  return []() -> Result<void> {
    fmt::print("{}\n", guide_document_schema().dump(2));
    return {};
  };
}

}  // namespace mergelens::cli
