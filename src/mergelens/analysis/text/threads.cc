// Thread links between changes (threads.h).
#include "mergelens/analysis/text/threads.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "mergelens/util/strings.h"

namespace mergelens {

namespace {

constexpr UnixSeconds kDay = 86400;
constexpr UnixSeconds kSeriesWindow = 120 * kDay;
constexpr UnixSeconds kBuildsOnWindow = 30 * kDay;
constexpr size_t kMaxBuildsOn = 3;
// A change that added more files than this is an import, a vendored tree or a
// move, not a feature whose follow-ups a reader wants linked: later edits of
// its files build on nothing.
constexpr size_t kMaxAddedForBuildsOn = 40;
constexpr size_t kMaxReferenced = 5;

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::int64_t to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : 0;
}

int roman(std::string_view s) {
  static const char* kNumerals[] = {"I",   "II",   "III", "IV", "V",  "VI",
                                    "VII", "VIII", "IX",  "X",  "XI", "XII"};
  for (int i = 0; i < 12; ++i)
    if (s == kNumerals[i]) return i + 1;
  return 0;
}

// Removes a trailing "(#N)" (and spaces) from `s`; returns N or 0.
std::int64_t strip_trailing_number(std::string& s) {
  static const RE2 re("^(.*?)\\s*\\((?:[\\w.-]+/[\\w.-]+)?#(\\d{1,9})\\)\\s*$");
  std::string head, n;
  if (!RE2::FullMatch(s, re, &head, &n)) return 0;
  s = head;
  return to_int(n);
}

// Words of a title that say what it is about: lower case, without the
// kinds every repository puts in brackets and the commonest verbs.
std::set<std::string> topic_words(std::string_view text) {
  static const std::set<std::string, std::less<>> kCommon = {
      "a",        "an",     "and",      "the",         "of",           "for",         "to",
      "in",       "on",     "with",     "by",          "from",         "or",          "is",
      "feature",  "feat",   "features", "bugfix",      "fix",          "fixes",       "bug",
      "refactor", "ci",     "perf",     "misc",        "doc",          "docs",        "test",
      "tests",    "hotfix", "chore",    "build",       "core",         "enhancement", "improvement",
      "optimize", "opt",    "wip",      "draft",       "support",      "add",         "remove",
      "update",   "use",    "n",        "part",        "model",        "models",      "kernel",
      "kernels",  "new",    "bugfixes", "refactoring", "optimization", "performance"};
  std::set<std::string> out;
  std::string word;
  auto flush = [&] {
    while (word.size() > 3 && word.back() == 's') word.pop_back();
    if (word.size() >= 2 && !kCommon.contains(word) &&
        word.find_first_not_of("0123456789") != std::string::npos)
      out.insert(word);
    word.clear();
  };
  for (char c : lower_ascii(text)) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
        (static_cast<unsigned char>(c) & 0x80))
      word += c;
    else
      flush();
  }
  flush();
  return out;
}

// The bracketed topics of a title ("[Refactor][DSA][2/N] ..." → {"dsa"}):
// a series' parts usually share them even when the rest differs.
std::set<std::string> bracket_topics(std::string_view title) {
  static const RE2 re("\\[([^\\]]{1,40})\\]");
  std::set<std::string> out;
  re2::StringPiece in(title.data(), title.size());
  std::string tag;
  while (RE2::FindAndConsume(&in, re, &tag)) {
    auto words = topic_words(tag);
    out.insert(words.begin(), words.end());
  }
  return out;
}

double overlap(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() || b.empty()) return 0;
  size_t common = 0;
  for (const auto& w : a) common += b.contains(w);
  return static_cast<double>(common) / static_cast<double>(std::min(a.size(), b.size()));
}

// Whether two series titles (markers removed) name the same series.
bool same_series(const ThreadCandidate& a, const SeriesMarker& ma, const ThreadCandidate& b,
                 const SeriesMarker& mb) {
  if (ma.total && mb.total && ma.total != mb.total) return false;
  if (ma.part == mb.part) return false;
  const bool same_author = !a.author.empty() && a.author == b.author;
  const auto ta = bracket_topics(a.title), tb = bracket_topics(b.title);
  if (!ta.empty() && ta == tb) return true;
  const double words = overlap(topic_words(ma.stem), topic_words(mb.stem));
  return words >= (same_author ? 0.5 : 0.75);
}

std::string part_text(const SeriesMarker& m, std::string_view title) {
  static const RE2 roman_re("[\\[(]\\s*([IVX]{1,4})\\s*[\\])]");
  std::string r;
  if (m.total == 0 && RE2::PartialMatch(title, roman_re, &r) && roman(r) == m.part) return r;
  return std::to_string(m.part) + "/" + (m.total ? std::to_string(m.total) : std::string("N"));
}

}  // namespace

std::optional<SeriesMarker> series_marker(std::string_view title_in) {
  std::string title(title_in);
  strip_trailing_number(title);
  // [3/5] (3/5) [3/N]; "3/5:" at the start; "part 3", "part 3 of 5", "part III"; (III).
  static const RE2 bracket(
      "(?i)^(.*?)[\\[(（]\\s*(\\d{1,2})\\s*/\\s*(\\d{1,2}|n)\\s*[\\])）](.*)$");
  static const RE2 leading("(?i)^()\\s*(\\d{1,2})\\s*/\\s*(\\d{1,2}|n)\\s*[:：\\-](.*)$");
  static const RE2 part(
      "(?i)^(.*?)[\\[(]?\\bpart\\s*[-#]?\\s*(\\d{1,2}|[ivx]{1,4})\\b(?:\\s*(?:/|of)\\s*(\\d{1,2}|"
      "n)\\b)?[\\])]?(.*)$");
  static const RE2 numeral("^(.*?)[\\[(]\\s*([IVX]{1,4})\\s*[\\])](.*)$");
  std::string head, a, b, tail;
  SeriesMarker m;
  auto finish = [&](int p, int total) -> std::optional<SeriesMarker> {
    if (p < 1 || p > 50 || (total && total < p)) return std::nullopt;
    m.part = p;
    m.total = total;
    std::string stem;
    for (char c : head + " " + tail)
      if (c != ' ' || (!stem.empty() && stem.back() != ' ')) stem += c;
    m.stem = std::string(trim(stem));
    return m;
  };
  if (RE2::FullMatch(title, bracket, &head, &a, &b, &tail) ||
      RE2::FullMatch(title, leading, &head, &a, &b, &tail))
    return finish(static_cast<int>(to_int(a)),
                  b == "n" || b == "N" ? 0 : static_cast<int>(to_int(b)));
  if (RE2::FullMatch(title, part, &head, &a, &b, &tail)) {
    int p = static_cast<int>(to_int(a));
    if (p == 0) {
      std::string up(a);
      for (char& c : up) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
      p = roman(up);
    }
    return finish(p, b.empty() || b == "n" || b == "N" ? 0 : static_cast<int>(to_int(b)));
  }
  if (RE2::FullMatch(title, numeral, &head, &a, &tail)) return finish(roman(a), 0);
  return std::nullopt;
}

std::string normalized_title(std::string_view title) {
  std::string s(trim(title));
  strip_trailing_number(s);
  std::string out;
  bool space = false;
  for (char c : lower_ascii(s)) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  while (!out.empty() && (out.front() == '"' || out.front() == '\'')) out.erase(0, 1);
  while (!out.empty() && (out.back() == '"' || out.back() == '\'')) out.pop_back();
  return std::string(trim(out));
}

std::optional<TitleAct> title_act(std::string_view title_in) {
  std::string title(trim(title_in));
  // "[Revert]" / "[Reland]" tags in front, then the verb.
  // Any bracketed tags may come first ("[BugFix][Ops] Revert ..."); a
  // "[Revert]" / "[Reland]" tag is the verb itself.
  static const RE2 revert(
      "(?i)^(?:\\[[^\\]]{0,40}\\]\\s*)*(?:revert(?:s|ed)?\\b|回滚|回退|撤销)\\s*[:：]?\\s*(.*)$");
  static const RE2 revert_tag(
      "(?i)^(?:\\[[^\\]]{0,40}\\]\\s*)*\\[\\s*revert\\s*\\](?:\\s*\\[[^\\]]{0,40}\\])*\\s*[:：]?"
      "\\s*(.*)$");
  static const RE2 reland(
      "(?i)^(?:\\[[^\\]]{0,40}\\]\\s*)*(?:\\[\\s*re-?land\\s*\\]\\s*[:：]?\\s*|(?:re-?land(?:ed|"
      "ing)?|"
      "reapply|re-apply|re-?submit(?:ted)?|redo|reintroduce|re-introduce)\\b\\s*[:：]?\\s*)(.*)$");
  static const RE2 weak(
      "(?i)^(?:\\[[^\\]]{0,40}\\]\\s*)*(?:restore|bring back)\\b\\s*[:：]?\\s*(.*)$");
  TitleAct act;
  std::string rest;
  if (RE2::FullMatch(title, revert, &rest) || RE2::FullMatch(title, revert_tag, &rest)) {
    act.revert = true;
  } else if (RE2::FullMatch(title, reland, &rest)) {
    act.revert = false;
  } else if (RE2::FullMatch(title, weak, &rest)) {
    act.revert = false;
    act.strong = false;
  } else {
    return std::nullopt;
  }
  rest = std::string(trim(rest));
  // A "(#N)" after the quoted title names the change; one inside it too.
  static const RE2 of_number("(?i)^(?:of\\s+|pr\\s+)?#(\\d{1,9})\\s*$");
  std::string n;
  if (RE2::FullMatch(rest, of_number, &n)) {
    act.number = to_int(n);
    return act;
  }
  static const RE2 quoted("^[\"“](.*)[\"”]\\s*(?:\\((?:[\\w.-]+/[\\w.-]+)?#(\\d{1,9})\\))?\\s*$");
  std::string inner;
  if (RE2::FullMatch(rest, quoted, &inner, &n)) {
    rest = inner;
    act.number = to_int(n);
  } else {
    act.number = strip_trailing_number(rest);
  }
  if (act.number == 0) {
    std::string copy = rest;
    act.number = strip_trailing_number(copy);
  }
  static const RE2 reverts_of("(?i)\\(reverts?\\s+#(\\d{1,9})\\)");
  if (act.number == 0 && RE2::PartialMatch(rest, reverts_of, &n)) act.number = to_int(n);
  act.title = normalized_title(rest);
  if (act.title.empty() && act.number == 0) return std::nullopt;
  return act;
}

std::string link_phrase(std::string_view lang, std::string_view r, bool later, std::string_view ref,
                        std::string_view detail, int days) {
  const bool en = lang == "en";
  std::string t;
  if (days == 0)
    t = en ? " on the same day" : "同日";
  else if (days == 1)
    t = en ? (later ? " the next day" : " the day before") : (later ? "次日" : "前一日");
  else if (days > 1)
    t = en ? fmt::format(" {} days {}", days, later ? "later" : "earlier")
           : fmt::format("{} 天{}", days, later ? "后" : "前");
  if (r == "reverts")
    return later ? (en ? fmt::format("reverted by {}{}", ref, t)
                       : fmt::format("{}被 {} 撤销", t, ref))
                 : (en ? fmt::format("reverts {}", ref) : fmt::format("撤销 {}", ref));
  if (r == "relands")
    return later ? (en ? fmt::format("re-landed by {}{}", ref, t)
                       : fmt::format("{}由 {} 重新合入", t, ref))
                 : (en ? fmt::format("re-lands {}", ref) : fmt::format("重新合入 {}", ref));
  if (r == "fixes")
    return later ? (en ? fmt::format("fixed by {}", ref) : fmt::format("由 {} 修复", ref))
                 : (en ? fmt::format("fixes {}", ref) : fmt::format("修复 {}", ref));
  if (r == "follow_up")
    return later ? (en ? fmt::format("followed up by {}", ref) : fmt::format("由 {} 跟进", ref))
                 : (en ? fmt::format("follow-up of {}", ref) : fmt::format("跟进 {}", ref));
  if (r == "series")
    return en ? fmt::format("same series as {}", ref) : fmt::format("与 {} 同一系列", ref);
  if (r == "builds_on")
    return later ? (en ? fmt::format("{} edits files it added", ref)
                       : fmt::format("{} 修改了它新增的文件", ref))
                 : (en ? fmt::format("builds on {} (edits {}, which it added)", ref, detail)
                       : fmt::format("基于 {}（修改其新增的 {}）", ref, detail));
  return std::string(ref);
}

std::string series_phrase(std::string_view lang, std::string_view title) {
  auto m = series_marker(title);
  if (!m) return "";
  const bool en = lang == "en";
  if (m->total)
    return en ? fmt::format("part {} of {}", m->part, m->total)
              : fmt::format("系列第 {} 部分（共 {} 部分）", m->part, m->total);
  return en ? fmt::format("part {} of a series", m->part) : fmt::format("系列第 {} 部分", m->part);
}

void ThreadIndex::add(ThreadCandidate c) {
  all_.push_back(std::move(c));
}

void ThreadIndex::add_added_path(std::string_view sha, std::string path) {
  pending_paths_.emplace_back(std::string(sha), std::move(path));
}

void ThreadIndex::finish() {
  std::ranges::sort(all_, [](const ThreadCandidate& a, const ThreadCandidate& b) {
    return a.merged_at != b.merged_at ? a.merged_at < b.merged_at : a.sha < b.sha;
  });
  std::vector<std::pair<std::string, size_t>> shas;
  for (size_t i = 0; i < all_.size(); ++i) {
    const auto& c = all_[i];
    shas.emplace_back(lower_ascii(c.sha), i);
    if (c.number > 0) by_number_[c.number].push_back(i);
    by_title_[normalized_title(c.title)].push_back(i);
    if (series_marker(c.title)) series_.push_back(i);
  }
  std::ranges::sort(shas);
  for (auto& [s, i] : shas) {
    shas_.push_back(std::move(s));
    sha_index_.push_back(i);
  }
  std::map<size_t, std::vector<std::string>> added_by;
  for (auto& [sha, path] : pending_paths_)
    if (auto i = by_sha_prefix(sha)) added_by[*i].push_back(std::move(path));
  pending_paths_.clear();
  for (auto& [i, paths] : added_by)
    if (paths.size() <= kMaxAddedForBuildsOn)
      for (auto& path : paths) added_[path].push_back(i);
  for (auto& [path, v] : added_) std::ranges::sort(v);
  // Which changes a later one took back by its title.
  for (size_t i = 0; i < all_.size(); ++i) {
    auto act = title_act(all_[i].title);
    if (!act || !act->revert) continue;
    std::vector<size_t> targets;
    if (act->number > 0)
      if (auto* v = by_number(act->number)) targets = *v;
    if (targets.empty() && !act->title.empty()) targets = titled(act->title);
    for (size_t t : targets)
      if (t < i) reverted_at_[t].push_back(all_[i].merged_at);
  }
}

std::optional<size_t> ThreadIndex::by_sha_prefix(std::string_view prefix_in) const {
  if (prefix_in.size() < 7) return std::nullopt;
  const std::string prefix = lower_ascii(prefix_in);
  auto it = std::ranges::lower_bound(shas_, prefix);
  if (it == shas_.end() || !it->starts_with(prefix)) return std::nullopt;
  if (std::next(it) != shas_.end() && std::next(it)->starts_with(prefix)) return std::nullopt;
  return sha_index_[static_cast<size_t>(it - shas_.begin())];
}

const std::vector<size_t>* ThreadIndex::by_number(std::int64_t number) const {
  auto it = by_number_.find(number);
  return it == by_number_.end() ? nullptr : &it->second;
}

const std::vector<size_t>* ThreadIndex::by_title(const std::string& normalized) const {
  auto it = by_title_.find(normalized);
  return it == by_title_.end() ? nullptr : &it->second;
}

std::vector<size_t> ThreadIndex::by_title_prefix(std::string_view prefix) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < all_.size(); ++i)
    if (normalized_title(all_[i].title).starts_with(prefix)) out.push_back(i);
  return out;
}

std::vector<size_t> ThreadIndex::titled(const std::string& t) const {
  std::string_view cut = t;
  for (std::string_view e : {std::string_view("…"), std::string_view("...")})
    if (cut.ends_with(e)) {
      cut.remove_suffix(e.size());
      cut = trim(cut);
      if (cut.size() < 16) return {};
      return by_title_prefix(cut);
    }
  const auto* v = by_title(t);
  return v ? *v : std::vector<size_t>{};
}

const std::vector<size_t>* ThreadIndex::added(const std::string& path) const {
  auto it = added_.find(path);
  return it == added_.end() ? nullptr : &it->second;
}

bool ThreadIndex::reverted_before(size_t i, UnixSeconds before) const {
  auto it = reverted_at_.find(i);
  if (it == reverted_at_.end()) return false;
  return std::ranges::any_of(it->second, [&](UnixSeconds t) { return t < before; });
}

std::vector<ThreadLink> find_thread_links(const Change& change,
                                          const std::vector<Reference>& references,
                                          const std::map<std::string, FileRole>& roles,
                                          const ThreadIndex& index) {
  std::vector<ThreadLink> links;
  if (index.size() == 0 || change.open || change.merged_at <= 0) return links;
  const auto& all = index.all();
  const std::string self = lower_ascii(change.sha);
  // Earlier: merged before this change (ties by sha, as the index sorts).
  auto earlier = [&](size_t i) {
    const auto& c = all[i];
    if (lower_ascii(c.sha) == self) return false;
    return c.merged_at < change.merged_at ||
           (c.merged_at == change.merged_at && c.sha < change.sha);
  };
  std::set<size_t> linked;
  auto link = [&](size_t i, std::string relation, std::string detail) {
    if (!linked.insert(i).second) return;
    links.push_back({std::move(relation), all[i].sha, all[i].number, std::move(detail)});
  };
  // The most recent earlier change among `v` (optionally not a revert itself).
  auto latest = [&](const std::vector<size_t>* v, bool skip_reverts) -> std::optional<size_t> {
    if (!v) return std::nullopt;
    for (auto it = v->rbegin(); it != v->rend(); ++it) {
      if (!earlier(*it)) continue;
      if (skip_reverts) {
        auto a = title_act(all[*it].title);
        if (a && a->revert) continue;
      }
      return *it;
    }
    return std::nullopt;
  };
  auto by_number = [&](std::int64_t n) { return latest(index.by_number(n), false); };

  // Reverts and re-lands named by the title.
  if (auto act = title_act(change.title)) {
    std::optional<size_t> target;
    std::string how;
    if (act->number > 0 && (target = by_number(act->number))) how = "number";
    if (!target && !act->title.empty()) {
      const auto titled = index.titled(act->title);
      if ((target = latest(&titled, !act->revert))) how = "title";
    }
    if (target && (act->strong || how == "title")) {
      if (act->revert) {
        link(*target, "reverts", how);
        // A revert of a revert brings the original back.
        if (auto inner = title_act(all[*target].title); inner && inner->revert) {
          std::optional<size_t> original;
          if (inner->number > 0) original = by_number(inner->number);
          if (!original && !inner->title.empty()) {
            const auto titled = index.titled(inner->title);
            original = latest(&titled, true);
          }
          if (original) link(*original, "relands", "revert of a revert");
        }
      } else if (act->strong || index.reverted_before(*target, change.merged_at)) {
        link(*target, "relands", how);
      }
    }
  }
  // References: reverts, fixes and follow-ups naming an earlier change here.
  size_t referenced = 0;
  for (const auto& r : references) {
    if (!r.repo.empty() || referenced >= kMaxReferenced) continue;
    if (r.relation != "reverts" && r.relation != "fixes" && r.relation != "follow_up") continue;
    // The change it names (a sentinel rather than an optional: GCC 12 warns
    // of a maybe-uninitialized optional here).
    constexpr size_t kNone = static_cast<size_t>(-1);
    size_t target = kNone;
    std::string how;
    if ((r.kind == "pr" || r.kind == "issue") && r.number > 0) {
      target = by_number(r.number).value_or(kNone);
      how = "number";
    } else if (r.kind == "commit") {
      target = index.by_sha_prefix(r.sha).value_or(kNone);
      if (target != kNone && !earlier(target)) target = kNone;
      how = "sha";
    }
    if (target == kNone || linked.contains(target)) continue;
    ++referenced;
    if (r.relation == "reverts") {
      link(target, "reverts", how);
      // Reverting a revert brings the original back.
      if (auto inner = title_act(all[target].title); inner && inner->revert) {
        std::optional<size_t> original;
        if (inner->number > 0) original = by_number(inner->number);
        if (!original && !inner->title.empty()) {
          const auto titled = index.titled(inner->title);
          original = latest(&titled, true);
        }
        if (original) link(*original, "relands", "revert of a revert");
      }
    } else {
      link(target, r.relation, "");
    }
  }
  // A title the same as an earlier change's that a revert took back: a re-land.
  if (!title_act(change.title)) {
    if (auto t = latest(index.by_title(normalized_title(change.title)), true);
        t && index.reverted_before(*t, change.merged_at))
      link(*t, "relands", "title");
  }
  // Series: earlier parts with a similar title.
  if (auto mine = series_marker(change.title)) {
    ThreadCandidate me{change.sha, change.number.value_or(0), change.title,
                       change.author.login.empty() ? change.author.name : change.author.login,
                       change.merged_at};
    const std::string detail = part_text(*mine, change.title);
    const auto& series = index.series();
    for (auto it = series.rbegin(); it != series.rend(); ++it) {
      const auto& c = all[*it];
      if (!earlier(*it)) continue;
      if (change.merged_at - c.merged_at > kSeriesWindow) break;
      auto theirs = series_marker(c.title);
      if (theirs && same_series(me, *mine, c, *theirs)) link(*it, "series", detail);
    }
  }
  // Files an earlier change added within the window that this one edits or
  // deletes (code and tests: where the follow-up work shows).
  std::map<size_t, std::string> builds;
  for (const auto& f : change.files) {
    if (f.status == FileStatus::kAdded) continue;
    auto role = roles.find(f.path);
    if (role == roles.end()) continue;
    const FileRole r = role->second;
    if (r != FileRole::kCore && r != FileRole::kKernel && r != FileRole::kModel &&
        r != FileRole::kTest)
      continue;
    const std::string& path =
        f.status == FileStatus::kRenamed && !f.old_path.empty() ? f.old_path : f.path;
    auto* adders = index.added(path);
    if (!adders) continue;
    for (auto it = adders->rbegin(); it != adders->rend(); ++it) {
      if (!earlier(*it)) continue;
      if (change.merged_at - all[*it].merged_at > kBuildsOnWindow) break;
      builds.try_emplace(*it, path);
      break;
    }
  }
  std::vector<std::pair<size_t, std::string>> recent(builds.rbegin(), builds.rend());
  for (size_t i = 0; i < recent.size() && i < kMaxBuildsOn; ++i)
    link(recent[i].first, "builds_on", recent[i].second);
  // Strongest first, each relation by its earlier change's merge order (newest first).
  auto rank = [](const std::string& r) {
    return r == "reverts"     ? 0
           : r == "relands"   ? 1
           : r == "fixes"     ? 2
           : r == "follow_up" ? 3
           : r == "series"    ? 4
                              : 5;
  };
  std::ranges::stable_sort(links, [&](const ThreadLink& a, const ThreadLink& b) {
    return rank(a.relation) < rank(b.relation);
  });
  return links;
}

}  // namespace mergelens
