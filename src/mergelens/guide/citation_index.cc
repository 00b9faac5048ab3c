// CitationIndex: what one change allows a guide to cite, gathered once (see
// citations.h). Text goes into one corpus for substring checks; identifier
// tokens of any length, numeric literals, figures derived from the change
// (file, directory, hunk and focus counts, line numbers, scores) and the
// names it treats as variables go into sets.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include <re2/re2.h>

#include "mergelens/guide/citation_text.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/claims.h"
#include "mergelens/guide/vocabulary.h"

namespace mergelens {

using citation_text::normalise;
using citation_text::scan_numbers;
using citation_text::scan_tokens;
using citation_text::span_text;

namespace {

void add_numbers(std::string_view text, std::set<std::string>& out) {
  for (const auto& t : scan_numbers(text)) out.insert(t.version ? t.text : normalise(t.text));
}

bool upper_variable(std::string_view t) {
  if (t.size() < 4 || t.find('_') == std::string_view::npos) return false;
  return std::all_of(t.begin(), t.end(), [](unsigned char c) {
    return std::isupper(c) || std::isdigit(c) || c == '_';
  });
}

}  // namespace

std::string unquoted(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (c != '`' && c != '\'') out.push_back(c);
  return out;
}

CitationIndex::CitationIndex(const Change& change, const Facts& facts, RepoLookup repo)
    : repo_(std::move(repo)) {
  for (char c : change.repo)
    this_repo_.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  auto add_text = [&](std::string_view t) {
    corpus_.append(t);
    corpus_.push_back('\n');
  };
  add_text(change.title);
  add_text(change.url);
  add_text(change.body);
  for (const auto& c : change.commits) {
    add_text(c.message);
    shas_.push_back(c.sha);
  }
  for (const auto& l : change.labels) add_text(l);
  for (const auto& r : change.reviews) add_text(r.body);
  for (const auto& r : change.review_comments) add_text(r.body);
  for (const auto& r : change.comments) add_text(r.body);
  shas_.push_back(change.sha);
  if (!change.parent_sha.empty()) shas_.push_back(change.parent_sha);
  if (change.number) prs_.insert(*change.number);
  std::int64_t adds = 0, dels = 0, hunk_count = 0;
  std::map<std::string, std::array<std::int64_t, 4>> by_folder;  // adds, dels, files, hunks
  for (const auto& f : change.files) {
    paths_.insert(f.path);
    if (!f.old_path.empty()) paths_.insert(f.old_path);
    add_text(f.path);
    for (std::int64_t n :
         {std::int64_t{f.additions}, std::int64_t{f.deletions},
          std::int64_t{f.additions} + f.deletions, static_cast<std::int64_t>(f.hunks.size())})
      derived_.insert(std::to_string(n));
    counts_.insert(counts_.end(), {f.additions, f.deletions, f.additions + f.deletions});
    adds += f.additions;
    dels += f.deletions;
    hunk_count += static_cast<std::int64_t>(f.hunks.size());
    for (size_t slash = f.path.find('/'); slash != std::string::npos;
         slash = f.path.find('/', slash + 1)) {
      std::string dir = f.path.substr(0, slash);
      folders_.insert(dir);
      auto& agg = by_folder[dir];
      agg[0] += f.additions;
      agg[1] += f.deletions;
      agg[2] += 1;
      agg[3] += static_cast<std::int64_t>(f.hunks.size());
    }
    for (const auto& h : f.hunks) {
      const bool deleted = f.status == FileStatus::kDeleted;
      std::int32_t start = deleted ? h.old_start : h.new_start;
      std::int32_t count = deleted ? h.old_lines : h.new_lines;
      spans_.push_back({f.path, start, start + std::max(count, 1) - 1});
      max_line_ = std::max(max_line_, start + count);
      add_text(h.section);
      for (const auto& l : h.lines) add_text(l.text);
    }
  }
  // Sums over a folder ("1001 lines under test/manual/lora/").
  for (const auto& [dir, agg] : by_folder) {
    (void)dir;
    for (auto n : {agg[0], agg[1], agg[0] + agg[1], agg[2], agg[3]})
      derived_.insert(std::to_string(n));
    counts_.insert(counts_.end(), {agg[0], agg[1], agg[0] + agg[1]});
  }
  counts_.insert(counts_.end(), {adds, dels, adds + dels});
  for (auto n : {adds, dels, adds + dels, static_cast<std::int64_t>(change.files.size()),
                 static_cast<std::int64_t>(change.commits.size()), hunk_count})
    derived_.insert(std::to_string(n));
  for (int i = 0; i <= 16; ++i) derived_.insert(std::to_string(i));
  // Facts are derived from the change: every figure they state may be cited.
  std::string facts_text;
  for (const auto& r : facts.focus) {
    for (auto n : {r.start_line, r.end_line, r.changed_lines}) derived_.insert(std::to_string(n));
    for (const auto& s : r.reasons) facts_text += s + "\n";
  }
  derived_.insert(std::to_string(facts.lines_worth_reading));
  counts_.push_back(facts.lines_worth_reading);
  // Focus regions' sizes, alone, in pairs and the first k together ("about
  // 40 lines" for two regions of 7 and 37).
  {
    std::vector<std::int64_t> lengths, changed;
    for (size_t i = 0; i < facts.focus.size() && i < 8; ++i) {
      const auto& r = facts.focus[i];
      lengths.push_back(std::max<std::int64_t>(0, std::int64_t{r.end_line} - r.start_line + 1));
      changed.push_back(r.changed_lines);
    }
    for (const auto* v : {&lengths, &changed}) {
      std::int64_t prefix = 0;
      for (size_t i = 0; i < v->size(); ++i) {
        prefix += (*v)[i];
        counts_.push_back((*v)[i]);
        counts_.push_back(prefix);
        for (size_t j = i + 1; j < v->size(); ++j) counts_.push_back((*v)[i] + (*v)[j]);
      }
    }
  }
  // Counts the writers state: clean-up files, focus regions and their files,
  // changed lines of code outside the clean-up, lines per role.
  std::set<std::string> skimmed, focus_paths;
  for (const auto& s : facts.skim) skimmed.insert(s.path);
  for (const auto& r : facts.focus) focus_paths.insert(r.path);
  std::int64_t code = 0;
  std::map<FileRole, std::int64_t> by_role;
  for (const auto& f : change.files) {
    auto it = facts.roles.find(f.path);
    bool is_code = it == facts.roles.end() || it->second == FileRole::kCore ||
                   it->second == FileRole::kKernel || it->second == FileRole::kModel;
    if (it != facts.roles.end()) by_role[it->second] += f.additions + f.deletions;
    if (is_code && !skimmed.count(f.path)) code += f.additions + f.deletions;
  }
  for (const auto& [role, n] : by_role) {
    (void)role;
    derived_.insert(std::to_string(n));
    counts_.push_back(n);
  }
  counts_.push_back(code);
  for (auto n :
       {static_cast<std::int64_t>(skimmed.size()), static_cast<std::int64_t>(focus_paths.size()),
        static_cast<std::int64_t>(facts.focus.size()), code,
        static_cast<std::int64_t>(facts.verdict_scope.size()),
        static_cast<std::int64_t>(facts.tests.size()),
        static_cast<std::int64_t>(facts.definitions.size())})
    derived_.insert(std::to_string(n));
  derived_.insert(std::to_string(facts.importance.value));
  derived_.insert(std::to_string(facts.insight.value));
  for (const auto& s : facts.importance.reasons) facts_text += s + "\n";
  for (const auto& s : facts.insight.reasons) facts_text += s + "\n";
  for (const auto& n : facts.number_cautions) facts_text += n.detail + "\n";
  for (const auto& g : facts.gaps) facts_text += g.detail + "\n";
  for (const auto& m : facts.body_mismatches) facts_text += m.detail + "\n";
  for (const auto& h : facts.hunks) {
    derived_.insert(std::to_string(h.added + h.removed));
    counts_.push_back(h.added + h.removed);
    derived_.insert(std::to_string(h.new_start));
    derived_.insert(std::to_string(h.new_end));
  }
  for (const auto& d : facts.definitions) derived_.insert(std::to_string(d.at.line));
  for (const auto& s : facts.signals) derived_.insert(std::to_string(s.at.line));
  add_numbers(facts_text, derived_);
  // Symbols and signal details were read from the change's files (enclosing
  // classes may sit outside the hunks), so they count as written.
  auto add_fact = [&](const std::string& t) {
    if (t.empty()) return;
    facts_code_.append(t);
    facts_code_.push_back('\n');
  };
  for (const auto& h : facts.hunks) add_fact(h.symbol);
  for (const auto& r : facts.focus) add_fact(r.symbol);
  for (const auto& d : facts.definitions) {
    add_fact(d.name);
    add_fact(d.at.symbol);
  }
  for (const auto& s : facts.signals) {
    add_fact(s.detail);
    add_fact(s.at.symbol);
    if (s.kind == "env_var" || s.kind == "cli_flag") {
      std::string v = s.detail;
      while (v.starts_with('-')) v.erase(0, 1);
      auto cut = v.find_first_of("= ");
      if (cut != std::string::npos) v.resize(cut);
      if (!v.empty()) variables_.insert(v);
    }
  }
  for (const auto& r : facts.review_points) add_fact(r.excerpt);
  scan_tokens(facts_code_, tokens_);
  unquoted_ = unquoted(corpus_) + "\n" + unquoted(facts_code_);
  for (const auto& r : facts.references) {
    if (r.number > 0) prs_.insert(r.number);
    if (!r.sha.empty()) shas_.push_back(r.sha);
    add_text(r.text);
  }
  for (const auto& b : facts.referenced_by) {
    if (b.ref.starts_with("#")) {
      try {
        const std::int64_t n = std::stoll(b.ref.substr(1));
        prs_.insert(n);
        if (b.merged_at > 0 && change.merged_at > 0 && b.merged_at < change.merged_at)
          claimable_.earlier[n] = b.merged_at;
      } catch (...) {
      }
    } else {
      shas_.push_back(b.ref);
    }
    add_text(b.title);
  }
  // The switches' declarations and the context's names were read from the
  // repository at the parent or the merge: they may be cited.
  claimable_.switches = facts.switches;
  claimable_.switches_known = facts.switches_known;
  claimable_.context_known = facts.context_known;
  for (const auto& sw : facts.switches) {
    add_fact(sw.name);
    // "First declared by #N": a change before this one, named by the prompt.
    if (sw.introduced_by.starts_with("#")) {
      try {
        prs_.insert(std::stoll(sw.introduced_by.substr(1)));
      } catch (...) {
      }
    } else if (!sw.introduced_by.empty()) {
      shas_.push_back(sw.introduced_by);
    }
    for (const SwitchSide* side : {&sw.before, &sw.after})
      if (side->exists) {
        add_fact(side->text);
        add_fact(side->default_value);
      }
  }
  auto bare = [](const std::string& q) {
    auto dot = q.rfind('.');
    return dot == std::string::npos ? q : q.substr(dot + 1);
  };
  for (const auto& c : facts.context) {
    add_fact(c.name);
    ctx_paths_.insert(c.path);
    if (c.revision == "parent") {
      claimable_.existed.insert(c.name);
      claimable_.existed.insert(bare(c.name));
    }
  }
  for (const auto& d : facts.definitions)
    if (d.change == "added") {
      claimable_.added.insert(d.name);
      claimable_.added.insert(bare(d.name));
    }
  for (const auto& d : facts.definitions)
    if (d.change == "modified" || d.change == "signature_changed" || d.change == "removed") {
      claimable_.existed.insert(d.name);
      claimable_.existed.insert(bare(d.name));
    }
  for (const auto& f : change.files) {
    claimable_.files[f.path] = f.status;
    if (!f.old_path.empty()) claimable_.files[f.old_path] = FileStatus::kModified;
    auto role = facts.roles.find(f.path);
    if (role == facts.roles.end() || role->second != FileRole::kTest) continue;
    std::string& added = claimable_.added_test_lines[f.path];
    for (const auto& h : f.hunks) {
      std::string run;  // a statement may span several added lines
      for (size_t i = 0; i <= h.lines.size(); ++i) {
        if (i < h.lines.size() && h.lines[i].origin == '+') {
          run += h.lines[i].text + "\n";
        } else if (!run.empty()) {
          added += code_key(run) + "\n";
          run.clear();
        }
      }
    }
  }
  scan_tokens(facts_code_, tokens_);
  unquoted_ = unquoted(corpus_) + "\n" + unquoted(facts_code_);
  scan_tokens(corpus_, tokens_);
  for (const auto& t : tokens_)
    if (upper_variable(t)) variables_.insert(t);
  add_numbers(corpus_, numbers_);
  scan_links(corpus_);
  note_libraries(change);
  // "#123", ".../pull/123", ".../issues/123" written anywhere in the text.
  for (size_t i = 0; i < corpus_.size(); ++i) {
    size_t digits = std::string::npos;
    if (corpus_[i] == '#')
      digits = i + 1;
    else if (corpus_.compare(i, 6, "/pull/") == 0)
      digits = i + 6;
    else if (corpus_.compare(i, 8, "/issues/") == 0)
      digits = i + 8;
    if (digits == std::string::npos) continue;
    // A link to another project's PR is not this one's #N (scan_links keeps
    // it as owner/repo#N); a fork or mirror of the same name counts as this.
    if (corpus_[i] == '/' && !this_repo_.empty()) {
      const size_t host = corpus_.rfind("github.com/", i);
      if (host != std::string::npos && i - host < 160 && corpus_.find_first_of(" \n\t", host) > i) {
        std::string repo = corpus_.substr(host + 11, i - host - 11);
        for (auto& ch : repo) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        auto name = [](std::string_view r) { return r.substr(r.rfind('/') + 1); };
        if (repo.find('/') != std::string::npos && name(repo) != name(this_repo_)) continue;
      }
    }
    size_t j = digits;
    while (j < corpus_.size() && j - digits < 12 &&
           std::isdigit(static_cast<unsigned char>(corpus_[j])))
      ++j;
    if (j > digits) prs_.insert(std::stoll(corpus_.substr(digits, j - digits)));
  }
}

void CitationIndex::add_context_code(std::string_view text) {
  facts_code_.append(text);
  facts_code_.push_back('\n');
  scan_tokens(text, tokens_);
  unquoted_ += "\n" + unquoted(text);
  add_numbers(text, numbers_);
  scan_links(text);
}

std::string CitationIndex::resolve_path(std::string_view cited) const {
  std::string c(cited);
  while (c.starts_with("./")) c.erase(0, 2);
  if (c.starts_with("a/") || c.starts_with("b/")) {
    if (paths_.count(c.substr(2))) return c.substr(2);
  }
  if (paths_.count(c)) return c;
  if (c.empty()) return {};
  std::string found;
  for (const auto& p : paths_) {
    if (p.size() > c.size() && p.ends_with(c) && p[p.size() - c.size() - 1] == '/') {
      if (!found.empty()) return {};  // ambiguous
      found = p;
    }
  }
  return found;
}

bool CitationIndex::path_exists(std::string_view cited) const {
  if (!resolve_path(cited).empty()) return true;
  std::string_view p = cited;
  while (p.ends_with('/')) p.remove_suffix(1);
  while (p.starts_with("./")) p.remove_prefix(2);
  if (folders_.count(std::string(p)) || ctx_paths_.count(std::string(p))) return true;
  return repo_.has_path && repo_.has_path(p);
}

bool CitationIndex::folder_exists(std::string_view dir) const {
  while (dir.ends_with('/')) dir.remove_suffix(1);
  if (dir.empty()) return false;
  if (folders_.count(std::string(dir))) return true;
  return repo_.has_path && repo_.has_path(dir);
}

bool CitationIndex::range_in_diff(const std::string& path, std::int32_t start,
                                  std::int32_t end) const {
  if (start <= 0 && end <= 0) return true;  // the point names no range
  if (start <= 0 || end < start) return false;
  constexpr std::int32_t kSlack = 3;
  for (const auto& s : spans_)
    if (s.path == path && start <= s.end + kSlack && end >= s.start - kSlack) return true;
  return false;
}

bool CitationIndex::range_in_any_file(std::int32_t start, std::int32_t end) const {
  if (start <= 0 || end < start) return false;
  constexpr std::int32_t kSlack = 3;
  for (const auto& s : spans_)
    if (start <= s.end + kSlack && end >= s.start - kSlack) return true;
  return false;
}

bool CitationIndex::has_code_span(std::string_view raw) const {
  std::string span = span_text(std::string(raw));
  if (span.empty()) return true;
  if (!resolve_path(span).empty()) return true;
  if (corpus_.find(span) != std::string::npos) return true;
  if (facts_code_.find(span) != std::string::npos) return true;
  if (span.find('\'') != std::string::npos) {
    // Writers turn inner backticks into quotes: compare with both removed.
    std::string plain = unquoted(span);
    if (plain.size() >= 8 && unquoted_.find(plain) != std::string::npos) return true;
  }
  return false;
}

bool CitationIndex::has_token(std::string_view token) const {
  return tokens_.count(std::string(token)) > 0;
}

bool CitationIndex::known_token(std::string_view token) const {
  if (has_token(token) || vocabulary::known(token)) return true;
  return repo_.has_identifier && repo_.has_identifier(token);
}

bool CitationIndex::is_variable(std::string_view name) const {
  std::string n(name);
  while (n.starts_with('-')) n.erase(0, 1);
  if (variables_.count(n)) return true;
  // A flag written with dashes in the change: --tp-size.
  return n.size() >= 2 && corpus_.find("--" + n) != std::string::npos;
}

bool CitationIndex::has_number(std::string_view number, bool strict) const {
  std::string n = normalise(number);
  if (numbers_.count(n) || numbers_.count(std::string(number))) return true;
  if (derived_.count(n)) return true;
  if (strict) return false;
  std::int64_t v = 0;
  try {
    v = std::stoll(n);
  } catch (...) {
    return false;
  }
  if (v <= 0 || v > max_line_) return false;
  for (const auto& s : spans_)
    if (v >= s.start - 3 && v <= s.end + 3) return true;
  return false;
}

bool CitationIndex::has_literal(std::string_view number) const {
  return numbers_.count(normalise(number)) > 0 || numbers_.count(std::string(number)) > 0;
}

bool CitationIndex::near_count(std::string_view number) const {
  std::int64_t v = 0;
  try {
    v = std::stoll(normalise(number));
  } catch (...) {
    return false;
  }
  if (v <= 0) return false;
  for (auto c : counts_) {
    if (c <= 0) continue;
    const std::int64_t tolerance = std::max<std::int64_t>(1, c * 15 / 100);
    if (v >= c - tolerance && v <= c + tolerance) return true;
  }
  return false;
}

bool CitationIndex::names_file(std::string_view cited) const {
  std::string c(cited);
  while (c.starts_with("./")) c.erase(0, 2);
  if (c.empty()) return false;
  if (paths_.count(c)) return true;
  for (const auto& p : paths_)
    if (p.size() > c.size() && p.ends_with(c) && p[p.size() - c.size() - 1] == '/') return true;
  return false;
}

bool CitationIndex::path_mentioned(std::string_view cited) const {
  std::string c(cited);
  while (c.starts_with("./")) c.erase(0, 2);
  while (c.ends_with('/')) c.pop_back();
  if (c.empty()) return false;
  if (names_file(c) || folders_.count(c) || ctx_paths_.count(c)) return true;
  if (repo_.has_path && repo_.has_path(c)) return true;
  if (corpus_.find(c) != std::string::npos) return true;
  // Its module form: "a/b/environ.py" -> "a.b.environ", the stem "environ"
  // as an identifier the change writes after a dot or an import.
  std::string stem = c;
  const size_t slash = stem.rfind('/');
  if (auto dot = stem.rfind('.');
      dot != std::string::npos && (slash == std::string::npos || dot > slash))
    stem.resize(dot);
  std::string dotted = stem;
  std::replace(dotted.begin(), dotted.end(), '/', '.');
  if (dotted != c && corpus_.find(dotted) != std::string::npos) return true;
  std::string base = stem.substr(stem.rfind('/') == std::string::npos ? 0 : stem.rfind('/') + 1);
  if (base.size() < 3 || !tokens_.count(base)) return false;
  for (std::string_view cue : {"." + base, "import " + base, "/" + base + "."})
    if (corpus_.find(cue) != std::string::npos) return true;
  return false;
}

bool CitationIndex::is_pattern(std::string_view span) {
  if (span.size() < 3 || span.size() > 80) return false;
  if (is_star_parameter(span)) return false;  // `**kwargs`: code, not a glob
  bool wild = false;
  for (size_t i = 0; i < span.size(); ++i) {
    const char ch = span[i];
    if (ch == '*' || ch == '{') {
      wild = true;
    } else if ((ch == 'N' || ch == 'K') && i > 0 && span[i - 1] == '_' &&
               (i + 1 == span.size() || !citation_text::word_char(span[i + 1]))) {
      wild = true;
    } else if (!citation_text::word_char(static_cast<unsigned char>(ch)) && ch != '.' &&
               ch != '}' && !((ch == '<' || ch == '[') && i == 0) &&
               !((ch == '>' || ch == ']') && i + 1 == span.size())) {
      return false;  // code, not a name pattern
    }
  }
  return wild;
}

bool CitationIndex::is_star_parameter(std::string_view span) {
  size_t stars = 0;
  while (stars < span.size() && stars < 2 && span[stars] == '*') ++stars;
  if (stars == 0 || stars == span.size() || std::isdigit(static_cast<unsigned char>(span[stars])))
    return false;
  return std::ranges::all_of(span.substr(stars),
                             [](char c) { return citation_text::word_char(c); });
}

bool CitationIndex::matches_pattern(std::string_view span) const {
  if (!is_pattern(span)) return false;
  std::string re, literal;
  size_t letters = 0;
  for (size_t i = 0; i < span.size(); ++i) {
    const char ch = span[i];
    const bool placeholder = (ch == 'N' || ch == 'K') && i > 0 && span[i - 1] == '_' &&
                             (i + 1 == span.size() || !citation_text::word_char(span[i + 1]));
    if (ch == '*') {
      // Word characters or a format placeholder (`static_*` for
      // `f"static_{observer}"`).
      re += R"((?:\w|\{[^}]{1,40}\})+)";
    } else if (placeholder) {
      // A number, a format placeholder, the letter itself, or a regex's
      // digit class (`<image_\d+>` in a pattern of the code).
      re += R"((?:\d+|\{[^}]{0,20}\}|[NK]|\\d\+?))";
    } else if (ch == '{') {
      auto close = span.find('}', i);
      if (close == std::string_view::npos) return false;
      re += R"((?:\d+|\{[^}]{0,20}\}))";
      i = close;
    } else {
      re += RE2::QuoteMeta(std::string(1, ch));
      letters += std::isalnum(static_cast<unsigned char>(ch)) ? 1 : 0;
    }
  }
  if (letters < 3) return false;  // `a_*` says nothing
  RE2 pattern(re);
  if (!pattern.ok()) return false;
  return RE2::PartialMatch(corpus_, pattern) || RE2::PartialMatch(facts_code_, pattern);
}

bool CitationIndex::has_pr(std::int64_t number) const {
  return prs_.count(number) > 0;
}

bool CitationIndex::has_sha(std::string_view hex) const {
  if (hex.size() < 7) return false;
  for (const auto& s : shas_)
    if (s.size() >= hex.size() ? s.compare(0, hex.size(), hex) == 0
                               : hex.compare(0, s.size(), s) == 0 && s.size() >= 7)
      return true;
  return corpus_.find(hex) != std::string::npos;
}

bool CitationIndex::has_url(std::string_view url) const {
  return corpus_.find(url) != std::string::npos;
}

}  // namespace mergelens
