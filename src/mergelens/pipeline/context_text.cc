#include "mergelens/pipeline/context_text.h"

#include <map>

#include "mergelens/source/git_source.h"

namespace mergelens {

std::vector<ContextText> read_context(const std::string& clone_path, const Change& change,
                                      const Facts& facts) {
  std::vector<ContextText> out;
  if (clone_path.empty() || facts.context.empty()) return out;
  auto src = GitSource::open(clone_path);
  if (!src) return out;
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> files;
  for (const auto& it : facts.context) {
    const std::string& sha = it.revision == "merge" ? change.sha : change.parent_sha;
    if (sha.empty() || it.start_line <= 0) continue;
    auto key = std::make_pair(sha, it.path);
    auto f = files.find(key);
    if (f == files.end()) {
      auto r = (*src)->read_file(sha, it.path, 4u << 20);
      f = files.emplace(key, r ? *r : std::nullopt).first;
    }
    if (!f->second) continue;
    const std::string& content = *f->second;
    ContextText t;
    t.item = it;
    std::int32_t line = 1;
    const std::int32_t last = std::min(it.end_line, it.start_line + 399);
    for (size_t pos = 0; pos < content.size() && line <= last; ++line) {
      size_t nl = content.find('\n', pos);
      if (nl == std::string::npos) nl = content.size();
      if (line >= it.start_line) t.text.append(content, pos, nl - pos).push_back('\n');
      pos = nl + 1;
    }
    if (!t.text.empty()) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace mergelens
