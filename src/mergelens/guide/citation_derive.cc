// What a change supports without writing it word for word: links to other
// repositories' PRs and commits, identifiers the code builds from fragments,
// and figures worked out from figures the change gives (citations.h,
// citation_text.h).
#include <algorithm>
#include <cctype>
#include <cmath>

#include <re2/re2.h>

#include "mergelens/guide/citation_text.h"
#include "mergelens/guide/citations.h"

namespace mergelens {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_hex(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c); });
}

}  // namespace

void CitationIndex::scan_links(std::string_view text) {
  static const RE2 kLink(
      R"(github\.com/([A-Za-z0-9][\w.-]*/[\w.-]+)/(pull|issues|commit)/([0-9a-fA-F]+))");
  re2::StringPiece in(text.data(), text.size());
  std::string repo, kind, id;
  while (RE2::FindAndConsume(&in, kLink, &repo, &kind, &id)) {
    repo = lower(repo);
    if (kind == "commit") {
      if (id.size() >= 7) repo_refs_.insert(repo + "@" + lower(id));
      continue;
    }
    if (id.empty() || id.size() > 12 ||
        !std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    repo_refs_.insert(repo + "#" + id);
    // This project's PR (a fork or mirror of the same name included).
    auto name = [](std::string_view r) { return r.substr(r.rfind('/') + 1); };
    if (!this_repo_.empty() && name(repo) == name(this_repo_)) prs_.insert(std::stoll(id));
  }
}

bool CitationIndex::has_repo_ref(std::string_view ref) const {
  const auto at = ref.find_first_of("#@");
  if (at == std::string_view::npos || at == 0) return false;
  const std::string repo = lower(ref.substr(0, at));
  if (std::count(repo.begin(), repo.end(), '/') != 1 || repo.front() == '/' || repo.back() == '/')
    return false;
  if (corpus_.find(ref) != std::string::npos) return true;  // written so
  const std::string id = lower(ref.substr(at + 1));
  if (ref[at] == '#') return repo_refs_.count(repo + "#" + id) > 0;
  if (id.size() < 7 || id.size() > 40 || !all_hex(id)) return false;
  // A short sha cites the full one the change links, and the other way round.
  for (auto it = repo_refs_.lower_bound(repo + "@"); it != repo_refs_.end(); ++it) {
    if (!it->starts_with(repo + "@")) break;
    std::string_view full = std::string_view(*it).substr(repo.size() + 1);
    if (full.starts_with(id) || std::string_view(id).starts_with(full)) return true;
  }
  return false;
}

bool CitationIndex::built_token(std::string_view token) const {
  if (token.size() < 5 || token.size() > 80) return false;
  // The text the fragments are looked for in: the change and its context code.
  auto written = [&](const std::string& s) {
    return corpus_.find(s) != std::string::npos || facts_code_.find(s) != std::string::npos;
  };
  // A fragment the code writes as a string (`"_sft"`, `'_sft'`), at the start
  // of a format string (`f"static_{`), or at its end (`}_sft"`).
  auto fragment = [&](const std::string& f, bool head) {
    if (head)
      return written("\"" + f + "{") || written("'" + f + "{") || written("\"" + f + "\"") ||
             written("'" + f + "'");
    return written("}" + f + "\"") || written("}" + f + "'") || written("\"" + f + "\"") ||
           written("'" + f + "'");
  };
  // The other part: a name of the change, or a value it writes as a string.
  auto part = [&](const std::string& p) {
    return p.size() >= 2 && (has_token(p) || written("\"" + p + "\"") || written("'" + p + "'"));
  };
  for (size_t i = 1; i + 1 < token.size(); ++i) {
    if (token[i] != '_') continue;
    const std::string head(token.substr(0, i)), tail(token.substr(i));  // tail keeps the '_'
    const std::string head_ = std::string(token.substr(0, i + 1)), rest(token.substr(i + 1));
    if (tail.size() >= 3 && fragment(tail, false) && part(head)) return true;
    if (head_.size() >= 3 && fragment(head_, true) && part(rest)) return true;
  }
  return false;
}

namespace citation_text {

bool derived_figure(const NumberToken& n, const std::vector<double>& operands) {
  if (operands.size() < 2 || operands.size() > 40 || n.version) return false;
  double v = 0;
  try {
    v = std::stod(n.text);
  } catch (...) {
    return false;
  }
  // Within the rounding of the digits written ("1.36" for 1.3587, "0.4" for
  // 0.434): half a unit of the last digit.
  const auto dot = n.text.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(n.text.size() - dot - 1);
  const double tolerance = 0.5 * std::pow(10.0, -decimals) + 1e-9;
  std::string_view unit =
      std::string_view(n.written).substr(std::min(n.written.size(), n.text.size()));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  const bool percent = unit == "%";
  const bool ratio = unit == "x" || unit == "X" || unit == "\u00d7" || unit == "\u500d";
  if (!unit.empty() && !percent && !ratio) return false;  // 41.5 ms: written or nothing
  auto near = [&](double x) { return std::isfinite(x) && std::fabs(x - v) <= tolerance; };
  for (size_t i = 0; i < operands.size(); ++i)
    for (size_t j = 0; j < operands.size(); ++j) {
      if (i == j) continue;
      const double a = operands[i], b = operands[j];
      if (a == b || b == 0) continue;
      if (percent) {
        if (near(std::fabs(a - b) / b * 100) || near(a / b * 100)) return true;
      } else if (ratio) {
        if (a > b && near(a / b)) return true;
      } else if (near(std::fabs(a - b)) || (a > b && near(a / b))) {
        return true;
      }
    }
  return false;
}

}  // namespace citation_text

}  // namespace mergelens
