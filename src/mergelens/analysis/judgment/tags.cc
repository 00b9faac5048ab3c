#include "mergelens/analysis/judgment/tags.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/code/roles.h"
#include "mergelens/analysis/judgment/tag_words.h"

namespace mergelens {

using namespace tag_words;  // word forms and title prefixes (tag_words.h)

// A rule's words in matching form, parallel to its prefixes, keywords,
// path_words and unless lists.
struct TagRuleWords {
  // "KV cache*" → "kv_cache", prefix.
  struct Word {
    std::string text;
    bool prefix = false;  // written with a trailing '*'
    bool phrase = false;  // more than one word
    bool bare = false;    // prefixes only: written without [..] or ':'
  };
  std::vector<Word> prefixes, keywords, path_words, unless, code_words;
};

namespace {

using RuleWord = TagRuleWords::Word;

RuleWord rule_word(std::string_view w) {
  RuleWord r;
  while (!w.empty() && (w.back() == ' ' || w.back() == '*')) {
    r.prefix = r.prefix || w.back() == '*';
    w.remove_suffix(1);
  }
  append_words(w, r.text);
  r.phrase = r.text.find('_') != std::string::npos;
  return r;
}

RuleWord prefix_word(std::string_view p) {
  while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
  while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
  bool bare = true;
  if (p.size() >= 2 && p.front() == '[' && p.back() == ']') {
    p = p.substr(1, p.size() - 2);
    bare = false;
  } else if (!p.empty() && p.back() == ':') {
    p.remove_suffix(1);
    bare = false;
  }
  RuleWord r = rule_word(p);
  r.bare = bare;
  return r;
}

std::shared_ptr<const TagRuleWords> compile_words(const TagRule& rule) {
  auto c = std::make_shared<TagRuleWords>();
  for (const auto& p : rule.prefixes) c->prefixes.push_back(prefix_word(p));
  for (const auto& k : rule.keywords) c->keywords.push_back(rule_word(k));
  for (const auto& w : rule.path_words) c->path_words.push_back(rule_word(w));
  for (const auto& u : rule.unless) c->unless.push_back(rule_word(u));
  for (const auto& w : rule.code_words) c->code_words.push_back(rule_word(w));
  return c;
}

// Position of `w` as whole words in `hay` at or after `from`, or npos. A
// plural 's' after the word is accepted.
std::size_t find_word(std::string_view hay, const RuleWord& w, std::size_t from = 0) {
  const std::string_view t = w.text;
  if (t.empty()) return std::string_view::npos;
  for (std::size_t p = hay.find(t, from); p != std::string_view::npos; p = hay.find(t, p + 1)) {
    if (p > 0 && !is_sep(hay[p - 1])) continue;
    const std::size_t e = p + t.size();
    if (w.prefix || e == hay.size() || is_sep(hay[e])) return p;
    if (hay[e] == 's' && (e + 1 == hay.size() || is_sep(hay[e + 1]))) return p;
  }
  return std::string_view::npos;
}

// The '\n'-separated document of `hay` that holds position p.
std::string_view document_at(std::string_view hay, std::size_t p) {
  const std::size_t b = hay.rfind('\n', p);
  const std::size_t start = b == std::string_view::npos ? 0 : b + 1;
  const std::size_t end = std::min(hay.find('\n', p), hay.size());
  return hay.substr(start, end - start);
}

// Texts in word form, one document each, with their distinct words.
struct WordIndex {
  std::string text;                     // documents in word form, '\n'-separated
  std::vector<std::string_view> words;  // distinct, sorted

  void add(std::string_view document) {
    if (!text.empty()) text += '\n';
    append_words(document, text);
  }

  void index() {
    words.clear();
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || is_sep(text[i])) {
        if (i > start) words.push_back(std::string_view(text).substr(start, i - start));
        start = i + 1;
      }
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
  }

  // Exact for one-word rule words; for phrases, whether the first word occurs.
  bool may_contain(const RuleWord& w) const {
    std::string_view t = w.text;
    if (t.empty()) return false;
    if (w.phrase) t = t.substr(0, t.find('_'));
    for (auto it = std::lower_bound(words.begin(), words.end(), t);
         it != words.end() && it->starts_with(t); ++it) {
      if (*it == t || (!w.phrase && w.prefix)) return true;
      if (!w.phrase && it->size() == t.size() + 1 && it->back() == 's') return true;
    }
    return false;
  }
};

// Index of the first of `words` found in `hay` in a document free of `unless` words.
std::optional<std::size_t> find_any_word(const WordIndex& hay, const std::vector<RuleWord>& words,
                                         const std::vector<RuleWord>& unless) {
  if (hay.text.empty()) return std::nullopt;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const RuleWord& w = words[i];
    if (!hay.may_contain(w)) continue;
    if (unless.empty() && !w.phrase) return i;
    for (std::size_t p = find_word(hay.text, w); p != std::string_view::npos;
         p = find_word(hay.text, w, p + 1)) {
      const std::string_view doc = document_at(hay.text, p);
      if (std::none_of(unless.begin(), unless.end(), [&](const RuleWord& u) {
            return find_word(doc, u) != std::string_view::npos;
          }))
        return i;
    }
  }
  return std::nullopt;
}

bool prefix_matches(const RuleWord& w, const TitlePrefixes& t) {
  if (w.text.empty()) return false;
  if (w.bare && t.first_word == w.text) return true;
  return find_word(t.docs, w) != std::string_view::npos;
}

// One changed file as the rules see it.
struct FileView {
  std::string_view path, old_path;
  FileRole role;
  bool added;
  std::int64_t lines;  // added + removed
};

// Everything about a change the rules look at, computed once per change.
struct ChangeView {
  std::vector<FileView> files;
  std::vector<std::string_view> any_paths;  // new and old paths
  WordIndex path_words;                     // every path, one document each
  WordIndex title_words;
  WordIndex body_words;  // filled on first use
  bool body_done = false;
  WordIndex code_words;  // the added lines, one document each; filled on first use
  bool code_done = false;
  std::int64_t total_lines = 0;
  TitlePrefixes prefixes;
};

// Added lines read for code words: enough for any change a reader reads whole.
constexpr size_t kCodeWordLines = 5000;

// Code words come from code only (a changelog, docs or a config table that
// names a vendor is not evidence the code supports it) and from lines the
// change writes, not lines it moves: an added line also removed elsewhere
// in the change was there before.
bool code_word_role(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel ||
         r == FileRole::kTest || r == FileRole::kBenchmark;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

void index_code(const Change& change, ChangeView& v) {
  if (v.code_done) return;
  v.code_done = true;
  std::set<std::string_view> removed;
  for (size_t i = 0; i < change.files.size() && i < v.files.size(); ++i) {
    if (!code_word_role(v.files[i].role)) continue;
    for (const auto& h : change.files[i].hunks)
      for (const auto& l : h.lines)
        if (l.origin == '-') removed.insert(trimmed(l.text));
  }
  size_t n = 0;
  for (size_t i = 0; i < change.files.size() && i < v.files.size(); ++i) {
    if (!code_word_role(v.files[i].role)) continue;
    for (const auto& h : change.files[i].hunks)
      for (const auto& l : h.lines) {
        if (l.origin != '+' || n >= kCodeWordLines) continue;
        const std::string_view t = trimmed(l.text);
        if (t.empty() || removed.contains(t)) continue;
        v.code_words.add(l.text);
        ++n;
      }
  }
  v.code_words.index();
}

std::optional<std::string> check_holds(const FilesCheck& c, const ChangeView& v) {
  if (v.files.empty() || c.globs.empty()) return std::nullopt;
  auto joined = [&] {
    std::string s;
    for (const auto& g : c.globs) s += (s.empty() ? "" : " & ") + g.pattern();
    return s;
  };
  switch (c.op) {
    case FilesOp::kAnyGlobToAnyFile:
      for (const auto& g : c.globs)
        for (auto p : v.any_paths)
          if (g.matches(p)) return g.pattern();
      return std::nullopt;
    case FilesOp::kAnyGlobToAllFiles:
      for (const auto& g : c.globs)
        if (std::all_of(v.files.begin(), v.files.end(),
                        [&](const FileView& f) { return g.matches(f.path); }))
          return g.pattern();
      return std::nullopt;
    case FilesOp::kAllGlobsToAnyFile:
      for (auto p : v.any_paths)
        if (std::all_of(c.globs.begin(), c.globs.end(),
                        [&](const Glob& g) { return g.matches(p); }))
          return joined();
      return std::nullopt;
    case FilesOp::kAllGlobsToAllFiles:
      for (const auto& f : v.files)
        for (const auto& g : c.globs)
          if (!g.matches(f.path)) return std::nullopt;
      return joined();
  }
  return std::nullopt;
}

// The glob(s) that made the alternative hold, or nothing.
std::optional<std::string> alternative_holds(const PathAlternative& alt, const ChangeView& v) {
  if (alt.groups.empty()) return std::nullopt;
  std::optional<std::string> first;
  for (const auto& group : alt.groups) {
    std::optional<std::string> hit;
    for (const auto& check : group.checks) {
      auto r = check_holds(check, v);
      if (group.all && !r) return std::nullopt;
      if (r && !hit) hit = std::move(r);
      if (r && !group.all) break;
    }
    if (!hit) return std::nullopt;
    if (!first) first = std::move(hit);
  }
  return first;
}

bool has_role(const std::vector<FileRole>& roles, FileRole r) {
  return std::find(roles.begin(), roles.end(), r) != roles.end();
}

// How a rule matched: `kind` is the criterion ("prefix", "path", "role",
// "share", "keyword", "code", "body"), `source` what Tag::source reports.
struct Match {
  std::string source, rule, kind;
};

double role_share(const std::vector<FileRole>& roles, const ChangeView& v) {
  std::int64_t in = 0;
  for (const auto& f : v.files)
    if (has_role(roles, f.role)) in += std::max<std::int64_t>(f.lines, 1);
  std::int64_t all = 0;
  for (const auto& f : v.files) all += std::max<std::int64_t>(f.lines, 1);
  return all > 0 ? static_cast<double>(in) / static_cast<double>(all) : 0;
}

std::optional<Match> match_rule(const TagRule& rule, const TagRuleWords& words, ChangeView& v,
                                const Change& change) {
  auto tagged = [&](const char* kind, std::string what) {
    return Match{
        rule.source == "default"
            ? (std::string_view(kind) == "role" || std::string_view(kind) == "share" ? "generic"
                                                                                     : kind)
            : rule.source,
        std::move(what), kind};
  };
  for (std::size_t i = 0; i < words.prefixes.size(); ++i)
    if (prefix_matches(words.prefixes[i], v.prefixes)) return tagged("prefix", rule.prefixes[i]);
  for (const auto& alt : rule.paths)
    if (auto hit = alternative_holds(alt, v)) return tagged("path", std::move(*hit));
  if (auto i = find_any_word(v.path_words, words.path_words, words.unless))
    return tagged("path", rule.path_words[*i]);
  if (!rule.all_roles.empty() && !v.files.empty() &&
      std::all_of(v.files.begin(), v.files.end(),
                  [&](const FileView& f) { return has_role(rule.all_roles, f.role); })) {
    std::string names;
    for (auto r : rule.all_roles) names += (names.empty() ? "" : "/") + std::string(to_string(r));
    return tagged("role", "all files " + names);
  }
  for (const auto& f : v.files)
    if ((!rule.any_role_added || f.added) && has_role(rule.any_roles, f.role))
      return tagged("role", fmt::format("{}{} file {}", rule.any_role_added ? "added " : "",
                                        to_string(f.role), f.path));
  if (!rule.share_roles.empty() && rule.min_share > 0 &&
      role_share(rule.share_roles, v) >= rule.min_share) {
    std::string names;
    for (auto r : rule.share_roles) names += (names.empty() ? "" : "/") + std::string(to_string(r));
    return tagged("share", names + " files");
  }
  if (auto i = find_any_word(v.title_words, words.keywords, words.unless))
    return tagged("keyword", rule.keywords[*i]);
  if (!words.code_words.empty()) {
    index_code(change, v);
    if (auto i = find_any_word(v.code_words, words.code_words, words.unless)) {
      Match m = tagged("code", rule.code_words[*i]);
      if (rule.source == "default") m.source = "code";
      return m;
    }
  }
  if (rule.keywords_in_body && !words.keywords.empty()) {
    if (!v.body_done) {
      v.body_words.add(change.body);
      v.body_words.index();
      v.body_done = true;
    }
    if (auto i = find_any_word(v.body_words, words.keywords, words.unless)) {
      Match m = tagged("keyword", rule.keywords[*i]);
      m.kind = "body";
      return m;
    }
  }
  return std::nullopt;
}

const RepoConfig& no_overrides() {
  static const RepoConfig kEmpty;
  return kEmpty;
}

}  // namespace

void prepare_tag_rules(std::vector<TagRule>& rules) {
  for (auto& r : rules) r.compiled = compile_words(r);
}

namespace {

// The files a rule's paths or roles cover: their share of the changed lines,
// how many, and the largest.
struct Coverage {
  double share = 0;
  size_t files = 0;
  std::string_view largest;
};

Coverage coverage(const TagRule& rule, const TagRuleWords& words, const ChangeView& v,
                  std::vector<std::optional<WordIndex>>& file_words) {
  Coverage c;
  std::int64_t in = 0, all = 0, best = -1;
  for (size_t i = 0; i < v.files.size(); ++i) {
    const FileView& f = v.files[i];
    const std::int64_t n = std::max<std::int64_t>(f.lines, 1);
    all += n;
    bool hit = (has_role(rule.any_roles, f.role) && (!rule.any_role_added || f.added)) ||
               has_role(rule.share_roles, f.role) || has_role(rule.all_roles, f.role);
    for (const auto& alt : rule.paths)
      for (const auto& group : alt.groups)
        for (const auto& check : group.checks)
          for (const auto& g : check.globs)
            hit = hit || g.matches(f.path) || (!f.old_path.empty() && g.matches(f.old_path));
    if (!hit && !words.path_words.empty()) {
      if (!file_words[i]) {
        file_words[i].emplace();
        file_words[i]->add(f.path);
        if (!f.old_path.empty()) file_words[i]->add(f.old_path);
        file_words[i]->index();
      }
      hit = find_any_word(*file_words[i], words.path_words, words.unless).has_value();
    }
    if (!hit) continue;
    in += n;
    ++c.files;
    if (n > best) {
      best = n;
      c.largest = f.path;
    }
  }
  c.share = all > 0 ? static_cast<double>(in) / static_cast<double>(all) : 0;
  return c;
}

// How strong each kind of evidence is: the authors' own prefix, then the
// title's words, then the files (plus the share of lines they hold), then
// the code and the description. A repository's own rules come first.
double evidence_weight(const Match& m) {
  if (m.source == "config") return 4;
  const double base = m.kind == "prefix"    ? 3
                      : m.kind == "keyword" ? 2
                      : m.kind == "code"    ? 0.5
                      : m.kind == "body"    ? 0.5
                                            : 1;  // path, role, share
  return m.source == "labeler" ? base + 0.5 : base;
}

std::string evidence_text(const Match& m, const Coverage& c) {
  if (m.kind == "prefix") return fmt::format("title prefix {}", m.rule);
  if (m.kind == "keyword") return fmt::format("title word \"{}\"", m.rule);
  if (m.kind == "body") return fmt::format("description word \"{}\"", m.rule);
  if (m.kind == "code") return fmt::format("added code says \"{}\"", m.rule);
  const int pct = static_cast<int>(std::lround(c.share * 100));
  if (c.files == 1) return fmt::format("{}, {}% of changed lines", c.largest, pct);
  if (c.files > 1)
    return fmt::format("{} files, {}% of changed lines (largest {})", c.files, pct, c.largest);
  return m.rule;
}

}  // namespace

std::vector<Tag> assign_tags(const Change& change, const std::map<std::string, FileRole>& roles,
                             const std::vector<TagRule>& rules, const TagHints& hints) {
  ChangeView v;
  v.files.reserve(change.files.size());
  for (const auto& f : change.files) {
    auto it = roles.find(f.path);
    const FileRole role = it != roles.end() ? it->second : classify_role(f.path, no_overrides());
    const bool renamed = !f.old_path.empty() && f.old_path != f.path;
    v.files.push_back({f.path, renamed ? std::string_view(f.old_path) : std::string_view(), role,
                       f.status == FileStatus::kAdded, std::int64_t{f.additions} + f.deletions});
    v.any_paths.push_back(f.path);
    if (renamed) v.any_paths.push_back(f.old_path);
  }
  for (auto p : v.any_paths) v.path_words.add(p);
  v.path_words.index();
  v.title_words.add(change.title);
  v.title_words.index();
  v.prefixes = parse_prefixes(change.title);

  std::map<std::string, Tag> found;
  std::vector<std::optional<WordIndex>> file_words(v.files.size());
  bool perf_rule = false, fix_rule = false;
  for (const auto& rule : rules) {
    perf_rule = perf_rule || rule.tag == "perf";
    fix_rule = fix_rule || rule.tag == "bugfix";
    if (rule.tag.empty() || found.contains(rule.tag)) continue;
    const auto words = rule.compiled ? rule.compiled : compile_words(rule);
    auto m = match_rule(rule, *words, v, change);
    if (!m) continue;
    const Coverage c = coverage(rule, *words, v, file_words);
    // A tag about a kind of file (CI, tests, docs) needs such a file: the
    // word "runner" in "model runner" is no CI change.
    if ((m->kind == "keyword" || m->kind == "body") && !rule.share_roles.empty() && c.files == 0)
      continue;
    Tag t{
        rule.tag, m->source, m->rule, c.share, evidence_weight(*m) + c.share, evidence_text(*m, c)};
    found.emplace(rule.tag, std::move(t));
  }
  // A change that claims a speed-up is about performance, whatever its title says.
  if (perf_rule && !hints.perf_claim.empty() && !found.contains("perf"))
    found.emplace("perf", Tag{"perf", "numbers", hints.perf_claim, 0, 1.5,
                              fmt::format("claims {}", hints.perf_claim)});
  if (fix_rule && !hints.fixes.empty() && !found.contains("bugfix"))
    found.emplace("bugfix", Tag{"bugfix", "references", hints.fixes, 0, 1.5,
                                fmt::format("fixes {}", hints.fixes)});
  std::vector<Tag> out;
  out.reserve(found.size());
  for (auto& [name, tag] : found) out.push_back(std::move(tag));
  std::stable_sort(out.begin(), out.end(),
                   [](const Tag& a, const Tag& b) { return a.weight > b.weight; });
  if (out.size() > kMaxTags) out.resize(kMaxTags);
  for (auto& t : out) {
    t.share = std::round(t.share * 1000) / 1000;
    t.weight = std::round(t.weight * 1000) / 1000;
  }
  return out;
}

std::string canonical_tag_name(std::string_view name) {
  std::string s;
  for (char c : name) {
    if (is_alnum(c)) {
      s += lower(c);
    } else if (!s.empty() && s.back() != '-') {
      s += '-';
    }
  }
  if (!s.empty() && s.back() == '-') s.pop_back();
  static const std::map<std::string, std::string, std::less<>> kAliases = {
      {"documentation", "docs"},
      {"doc", "docs"},
      {"dependencies", "deps"},
      {"dependency", "deps"},
      {"quant", "quantization"},
      {"quantisation", "quantization"},
      {"multi-modal", "multimodal"},
      {"multi-modality", "multimodal"},
      {"vlm", "multimodal"},
      {"spec-decode", "speculative-decoding"},
      {"speculative", "speculative-decoding"},
      {"speculative-decode", "speculative-decoding"},
      {"bug", "bugfix"},
      {"bug-fix", "bugfix"},
      {"fix", "bugfix"},
      {"feat", "feature"},
      {"enhancement", "feature"},
      {"new-feature", "feature"},
      {"performance", "perf"},
      {"optimization", "perf"},
      {"test", "tests"},
      {"testing", "tests"},
      {"rocm", "amd"},
      {"ascend", "npu"},
      {"xpu", "intel"},
      {"cuda", "nvidia"},
      {"cudagraph", "cuda-graph"},
      {"cuda-graphs", "cuda-graph"},
      {"disagg", "disaggregation"},
      {"pd-disaggregation", "disaggregation"},
      {"structured-outputs", "structured-output"},
      {"tool-call", "tool-calling"},
      {"function-calling", "tool-calling"},
      {"kvcache", "kv-cache"},
      {"kernel", "kernels"},
      {"parallelism", "distributed"},
      {"new-model", "model-support"},
  };
  if (auto it = kAliases.find(s); it != kAliases.end()) return it->second;
  return s;
}

std::vector<TagRule> effective_rules(const std::vector<TagRule>* labeler,
                                     const RepoConfig* config) {
  std::set<std::string> disabled, replaced;
  std::vector<TagRule> out;
  if (config) {
    for (const auto& d : config->disabled_tags) disabled.insert(canonical_tag_name(d));
    for (const auto& r : config->tags) replaced.insert(canonical_tag_name(r.tag));
  }
  auto add = [&](const TagRule& r, bool from_config) {
    TagRule copy = r;
    copy.tag = canonical_tag_name(r.tag);
    if (copy.tag.empty() || disabled.contains(copy.tag)) return;
    if (!from_config && replaced.contains(copy.tag)) return;
    if (!copy.compiled) copy.compiled = compile_words(copy);
    out.push_back(std::move(copy));
  };
  if (config)
    for (const auto& r : config->tags) add(r, true);
  if (labeler)
    for (const auto& r : *labeler) add(r, false);
  for (const auto& r : default_taxonomy()) add(r, false);
  return out;
}

}  // namespace mergelens
