// Fuzz target: the search-query parser, the glossary's expansion of its terms
// into both languages, and the store's FTS5 query built from them. Whatever a reader types must end in terms or a kInvalidInput
// message; a query the parser accepts must never make SQLite fail (that would
// be a 500), and snippets must work on any terms.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "mergelens/store/store.h"
#include "mergelens/web/search.h"

namespace {

mergelens::Store& store() {
  static std::unique_ptr<mergelens::Store> s = [] {
    const std::string path = "/tmp/mergelens-fuzz-search-" + std::to_string(getpid()) + ".db";
    std::remove(path.c_str());
    auto opened = mergelens::open_sqlite_store(path);
    if (!opened) {
      std::fprintf(stderr, "cannot open %s: %s\n", path.c_str(), opened.error().message.c_str());
      std::abort();
    }
    return std::move(*opened);
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view q(reinterpret_cast<const char*>(data), size);
  auto terms = mergelens::web::parse_query(q);
  if (!terms) {
    if (terms.error().kind != mergelens::ErrorKind::kInvalidInput) std::abort();
    return 0;
  }
  (void)mergelens::web::snippet({std::string(q), "cuda graph 缓存命中 quantization"}, *terms);
  // The server searches the terms expanded across the two languages.
  const auto expanded = mergelens::web::expand_terms(*terms);
  auto hits = store().search(1, size % 3 ? expanded : *terms, size % 2 ? "zh" : "en", 20);
  if (!hits && hits.error().kind != mergelens::ErrorKind::kInvalidInput) {
    std::fprintf(stderr, "search failed: %s\n", hits.error().message.c_str());
    std::abort();
  }
  return 0;
}
