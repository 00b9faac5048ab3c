// References in text: PRs, issues, commits, URLs and versions (declared in text_facts.h).
#include "mergelens/analysis/text/text_facts.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "mergelens/analysis/text/text_doc.h"

namespace mergelens {
namespace text_detail {
namespace {

int relation_rank(const std::string& r) {
  return r == "reverts" ? 3 : r == "fixes" ? 2 : r == "follow_up" ? 1 : 0;
}
const char* kRelations[] = {"mentions", "follow_up", "fixes", "reverts"};

int relation_before(sv s, size_t b) {
  static const RE2 revert_re(
      "(?:\\brevert(?:s|ed|ing)?|回滚|回退|撤销|撤回)(?:[ \\t]+(?:of|commit|commits|pr|pull "
      "request|the|change|changes|"
      "to|from|in|merge|merged))*[ \\t:\"'(“]*$");
  static const RE2 fixes_re(
      "(?:\\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)|修复了?|解决了?|关闭)(?:[ "
      "\\t]+(?:issue|issues|bug|gh))*"
      "[ \\t:(]*$");
  static const RE2 follow_re(
      "(?:\\b(?:follow[ -]?ups?(?:[ \\t]+(?:to|of|for|on|from))?|after|since|continu(?:es|ation "
      "of|ing)|builds?[ \\t]+"
      "(?:on|upon)|based[ \\t]+on|introduced[ \\t]+(?:in|by)|caused[ \\t]+by|broken[ "
      "\\t]+by|broke[ \\t]+in|"
      "regression[ \\t]+(?:from|in|of|since)|split[ \\t]+(?:from|out of)|extracted[ "
      "\\t]+from|re-?lands?(?:[ \\t]+of)?|"
      "supersedes|replaces|resubmi(?:t|ts|tted|ssion)(?:[ \\t]+of)?|redo[ \\t]+of)|跟进|后续|继)"
      "(?:[ \\t]+(?:the|pr|prs|commit|change|changes))*[ \\t:\"'(“]*$");
  size_t lo = b > 48 ? b - 48 : 0;
  std::string w = lower(s.substr(lo, b - lo));
  if (RE2::PartialMatch(w, revert_re)) return 3;
  if (RE2::PartialMatch(w, fixes_re)) return 2;
  if (RE2::PartialMatch(w, follow_re)) return 1;
  return 0;
}

struct RefHit {
  size_t b, e;
  Reference r;
  bool explicit_kind = true;
};

bool is_hex_sha(sv w) {
  if (w.size() < 7 || w.size() > 40) return false;
  bool letter = false, digit = false;
  for (char c : w) {
    if (is_digit(c))
      digit = true;
    else if (c >= 'a' && c <= 'f')
      letter = true;
    else
      return false;
  }
  return letter && digit;
}

void github_url(sv url, RefHit h, std::vector<RefHit>& hits) {
  static const RE2 re(
      "https?://(?:www\\.)?github\\.com/([\\w.-]+/[\\w.-]+)/(pull|issues|commit|commits)/(\\w+)"
      "(?:/commits?/([0-9a-f]{7,40}))?.*");
  std::string repo, what, id, sha;
  if (!RE2::FullMatch(url, re, &repo, &what, &id, &sha)) {
    static const RE2 image(
        "(?i)user-attachments|githubusercontent|shields\\.io|\\.(?:png|jpe?g|gif|svg|webp)$");
    if (RE2::PartialMatch(url, image)) return;
    h.r.kind = "url";
    hits.push_back(h);
    return;
  }
  h.r.repo = repo;
  if (what == "pull" || what == "issues") {
    if (id.size() > 12 || !std::all_of(id.begin(), id.end(), is_digit)) return;
    h.r.kind = what == "pull" ? "pr" : "issue";
    h.r.number = std::stoll(id);
    hits.push_back(h);
    if (!sha.empty()) id = sha, what = "commit";
  }
  if ((what == "commit" || what == "commits") && is_hex_sha(id)) {
    h.r.kind = "commit", h.r.number = 0, h.r.sha = id;
    hits.push_back(h);
  }
}

// Start of "pkg " / "pkg==" before a version at b, or b when no package name precedes it.
size_t package_start(sv s, size_t b, bool op) {
  static const std::set<std::string> kStop = {
      "to",     "from", "version", "and",    "or",   "of",      "the",      "in",    "at",
      "on",     "with", "is",      "was",    "bump", "upgrade", "update",   "since", "after",
      "before", "than", "release", "latest", "use",  "pin",     "requires", "v"};
  size_t e = b;
  if (e > 0 && is_space(s[e - 1])) --e;
  size_t a = e;
  while (a > 0 && (is_word(s[a - 1]) || s[a - 1] == '-' || s[a - 1] == '.')) --a;
  sv pkg = s.substr(a, e - a);
  if (a == e || !is_alpha(s[a]) || kStop.count(lower(pkg))) return b;
  // Only names that look like packages: sgl-kernel, flash_attn, CUDA, PyTorch, torch==.
  bool shaped = op || std::any_of(pkg.begin(), pkg.end(), [](char c) {
                  return c == '-' || c == '_' || c == '.' || is_digit(c) || (c >= 'A' && c <= 'Z');
                });
  return shaped ? a : b;
}

void sentence_refs(sv s, const std::vector<Span>& urls, sv source, std::vector<RefHit>& hits) {
  RefHit proto;
  proto.r.source = std::string(source);
  for (const Span& u : urls) {
    RefHit h = proto;
    h.b = u.b, h.e = u.e, h.r.text = std::string(s.substr(u.b, u.e - u.b));
    github_url(h.r.text, h, hits);
  }
  auto add_num = [&](size_t b, size_t e, std::string repo, sv digits, const char* kind, bool expl) {
    if (digits.empty() || digits.size() > 9 || in_spans(urls, b)) return;
    RefHit h = proto;
    h.b = b, h.e = e, h.r.kind = kind, h.r.repo = std::move(repo), h.explicit_kind = expl;
    std::from_chars(digits.data(), digits.data() + digits.size(), h.r.number);
    h.r.text = std::string(s.substr(b, e - b));
    hits.push_back(std::move(h));
  };
  for (size_t i = s.find('#'); i != sv::npos; i = s.find('#', i + 1)) {
    size_t j = i + 1;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j == i + 1 || (j < s.size() && is_word(s[j]))) continue;
    size_t b = i;
    while (b > 0 && (is_word(s[b - 1]) || s[b - 1] == '-' || s[b - 1] == '.' || s[b - 1] == '/'))
      --b;
    sv owner_repo = s.substr(b, i - b);
    size_t slash = owner_repo.find('/');
    if (b == i) {
      if (i > 0 && (s[i - 1] == '&' || s[i - 1] == '/')) continue;
      add_num(i, j, "", s.substr(i + 1, j - i - 1), "pr", false);
    } else if (static const RE2 kPrWord("(?i)pr|pull|issues?|gh");
               slash == sv::npos && RE2::FullMatch(owner_repo, kPrWord)) {
      add_num(i, j, "", s.substr(i + 1, j - i - 1), "pr", false);  // PR#123
    } else if (slash != sv::npos && slash > 0 && slash + 1 < owner_repo.size() &&
               owner_repo.find('/', slash + 1) == sv::npos && is_word(owner_repo[0])) {
      add_num(b, j, std::string(owner_repo), s.substr(i + 1, j - i - 1), "pr", false);
    }
  }
  static const RE2 pr_re("(?i)\\b((?:pr|pull request)[ \\t]+(\\d{1,9}))\\b");
  if (has_pr(s)) {
    re2::StringPiece in(s.data(), s.size()), all, num;
    while (RE2::FindAndConsume(&in, pr_re, &all, &num))
      if (in.size() < 2 || in[0] != '.' || !is_digit(in[1]))
        add_num(size_t(all.data() - s.data()), size_t(all.end() - s.data()), "", num, "pr", false);
  }
  // Bare shas: whole words of lowercase hex with a letter and a digit.
  for (size_t i = 0; i < s.size();) {
    if (!is_word(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && is_word(s[j])) ++j;
    sv w = s.substr(i, j - i);
    char p = i ? s[i - 1] : ' ', n = j < s.size() ? s[j] : ' ';
    if (is_hex_sha(w) && !has_byte("-/.@#&=+", p) && !has_byte("-/@", n) && !in_spans(urls, i)) {
      RefHit h = proto;
      h.b = i, h.e = j, h.r.kind = "commit", h.r.sha = std::string(w), h.r.text = h.r.sha;
      hits.push_back(std::move(h));
    }
    i = j;
  }
  // Versions.
  static const RE2 ver_re(
      "(?i)(?:\\b(v\\d+(?:\\.\\d+){1,3}(?:[-.]?(?:rc|post|dev|a|b)\\d*)?)|(==|>=|<=|~=|!=)[ "
      "\\t]*(\\d+(?:\\.\\d+)+"
      "(?:[-.]?(?:rc|post|dev|a|b)\\d*)?)|\\b(\\d+\\.\\d+\\.\\d+(?:[-.]?(?:rc|post|dev)\\d*)?))");
  bool dotted = false;  // a digit, a dot, a digit: the least any version needs
  for (size_t i = s.find('.'); i != sv::npos && !dotted; i = s.find('.', i + 1))
    dotted = i > 0 && i + 1 < s.size() && is_digit(s[i - 1]) && is_digit(s[i + 1]);
  if (dotted) {
    re2::StringPiece in(s.data(), s.size()), v1, op, v2, v3;
    while (RE2::FindAndConsume(&in, ver_re, &v1, &op, &v2, &v3)) {
      sv v = !v1.empty() ? v1 : !v2.empty() ? v2 : v3;
      size_t b = size_t((op.empty() ? v.data() : op.data()) - s.data()),
             e = size_t(v.data() + v.size() - s.data());
      char p = b ? s[b - 1] : ' ', n = e < s.size() ? s[e] : ' ';
      if (in_spans(urls, b) || (op.empty() && (is_word(p) || has_byte(".-/#", p))) || is_word(n) ||
          (n == '.' && e + 1 < s.size() && is_digit(s[e + 1])))
        continue;
      int first = std::atoi(std::string(v3).c_str());
      if (!v3.empty() && first >= 1900 && first <= 2100) continue;  // 2024.05.01
      RefHit h = proto;
      h.b = package_start(s, b, !op.empty()), h.e = e, h.r.kind = "version";
      h.r.text = std::string(trim(s.substr(h.b, e - h.b)));
      hits.push_back(std::move(h));
    }
  }
}

std::vector<Reference> extract_references_impl(std::string_view text, std::string_view source,
                                               std::string_view this_repo) {
  std::vector<Reference> out;
  try {
    const auto docp = cached_doc(text);
    const Doc& doc = *docp;
    std::vector<bool> explicit_kind;
    std::map<std::string, size_t> index;
    const std::string self = lower(this_repo);
    for (const Sent& st : doc.sents) {
      sv s = st.text;
      if (!has_byte(s, '#') && !has_byte(s, '/') && !has_byte(s, '.') && !has_pr(s) &&
          std::none_of(s.begin(), s.end(), is_digit))
        continue;
      std::vector<RefHit> hits;
      sentence_refs(s, st.urls, source, hits);
      if (st.task)  // template checklists link the contribution guide
        std::erase_if(hits, [](const RefHit& h) { return h.r.kind == "url"; });
      std::sort(hits.begin(), hits.end(),
                [](const RefHit& a, const RefHit& b) { return a.b < b.b; });
      size_t region_end = 0;
      int region_rel = 0;
      if (s.starts_with("Revert ") || s.starts_with("Reapply ")) {
        size_t q = s.find(' ') + 1, close = sv::npos;
        if (s.substr(q).starts_with("\"")) close = s.rfind('"');
        if (s.substr(q).starts_with("'")) close = s.rfind('\'');
        if (s.substr(q).starts_with("“")) close = s.rfind("”");
        if (close != sv::npos && close > q) region_end = close, region_rel = s[2] == 'v' ? 3 : 1;
      }
      size_t last_end = sv::npos;
      int last_rel = 0;
      for (RefHit& h : hits) {
        int rel = relation_before(s, h.b);
        if (h.b < region_end) rel = std::max(rel, region_rel);
        static const RE2 list_gap("[ \\t,&/]*(?:and|or|&)?[ \\t,]*");
        if (rel == 0 && last_end != sv::npos && h.b >= last_end &&
            RE2::FullMatch(s.substr(last_end, h.b - last_end), list_gap))
          rel = last_rel;
        if (h.b >= last_end || last_end == sv::npos) last_end = h.e, last_rel = rel;
        Reference& r = h.r;
        r.relation = kRelations[rel];
        if (lower(r.repo) == self) r.repo.clear();
        if (!h.explicit_kind && r.kind == "pr" &&
            (rel == 2 ||
             lower(s.substr(h.b > 8 ? h.b - 8 : 0, std::min<size_t>(h.b, 8))).find("issue") !=
                 std::string::npos))
          r.kind = "issue";
        std::string key =
            r.kind == "pr" || r.kind == "issue" ? fmt::format("n|{}|{}", lower(r.repo), r.number)
            : r.kind == "commit" ? fmt::format("c|{}|{}", lower(r.repo), r.sha.substr(0, 7))
                                 : fmt::format("{}|{}", r.kind, lower(r.text));
        auto it = index.find(key);
        if (it == index.end()) {
          index[key] = out.size();
          out.push_back(std::move(r));
          explicit_kind.push_back(h.explicit_kind);
          continue;
        }
        Reference& o = out[it->second];
        if (relation_rank(r.relation) > relation_rank(o.relation)) o.relation = r.relation;
        if (h.explicit_kind && !explicit_kind[it->second])
          o.kind = r.kind, explicit_kind[it->second] = true;
        if (r.sha.size() > o.sha.size()) o.sha = r.sha;
      }
    }
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

}  // namespace
}  // namespace text_detail

std::vector<Reference> extract_references(std::string_view text, std::string_view source,
                                          std::string_view this_repo) {
  return text_detail::extract_references_impl(text, source, this_repo);
}

}  // namespace mergelens
