// Clean edits of guide prose (prune_text.h).
#include "mergelens/guide/prune_text.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/prose.h"

namespace mergelens::prune_text {
namespace {

struct Count {
  size_t cjk = 0, words = 0;
};

Count count(std::string_view t) {
  Count c;
  const std::string plain = prose::without_code(t);
  c.cjk = prose::count_letters(plain).cjk;
  bool in = false;
  for (unsigned char ch : plain) {
    const bool letter = std::isalpha(ch) != 0;
    if (letter && !in) ++c.words;
    in = letter;
  }
  return c;
}

// Whether a sentence left after a clause went still says something.
bool sentence_reads(std::string_view t) {
  const Count c = count(t);
  return c.cjk >= 4 || c.words >= 3;
}

// Clause separators outside code spans: ", " "，" " — " "——" " – " ": " "："
// as [begin, end) byte ranges.
std::vector<std::pair<size_t, size_t>> separators(std::string_view s) {
  std::vector<std::pair<size_t, size_t>> out;
  const std::string plain = prose::without_code(s);
  int depth = 0;  // a separator inside a parenthesis splits the aside, not the sentence
  for (size_t i = 0; i < plain.size();) {
    if (plain[i] == '(' || plain.compare(i, 3, "\uFF08") == 0) ++depth;
    if ((plain[i] == ')' || plain.compare(i, 3, "\uFF09") == 0) && depth > 0) --depth;
    if (depth > 0) {
      ++i;
      continue;
    }
    size_t len = 0;
    for (std::string_view sep :
         {", ", "\uFF0C", " \u2014 ", "\u2014\u2014", " \u2013 ", ": ", "\uFF1A"})
      if (std::string_view(plain).substr(i, sep.size()) == sep) {
        len = sep.size();
        break;
      }
    if (len) {
      out.emplace_back(i, i + len);
      i += len;
    } else {
      ++i;
    }
  }
  return out;
}

// A clause that limits or turns what came before: removing it would change
// what the sentence claims ("X is safe, unless …" → "X is safe").
bool limiting(std::string_view clause) {
  static const RE2 kLimit(
      R"(^\s*(?:(?i:unless|except|but|only|if|when|whenever|whereas|although|though|because|since|provided|as long as|until|not|without|yet|however|while not)\b|但|但是|不过|然而|除非|只有|只要|仅|只在|如果|若|否则|因为|由于|前提|而非|而不是|不是|并非|没有|不|却|可是))");
  return RE2::PartialMatch(re2::StringPiece(clause.data(), clause.size()), kLimit);
}

// Where `citation` sits in `s`, trying the ways a range is written.
size_t find_citation(std::string_view s, std::string_view citation) {
  if (citation.empty()) return std::string_view::npos;
  if (auto p = s.find(citation); p != std::string_view::npos) return p;
  static const RE2 kRange(R"((\d+)-(\d+))");
  std::string a, b;
  if (RE2::FullMatch(re2::StringPiece(citation.data(), citation.size()), kRange, &a, &b)) {
    const RE2 written(fmt::format(R"({}\s*(?:-|–|—|~|～|到|至)\s*{})", a, b));
    re2::StringPiece in(s.data(), s.size()), m;
    if (RE2::PartialMatch(in, "(" + written.pattern() + ")", &m))
      return static_cast<size_t>(m.data() - s.data());
  }
  return std::string_view::npos;
}

// The trailing stop of a sentence ("。", ".", "？" with closing quotes and
// spaces), as the offset where it starts.
size_t stop_start(std::string_view s) {
  size_t end = s.size();
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\n')) --end;
  size_t p = end;
  for (bool again = true; again && p > 0;) {
    again = false;
    for (std::string_view stop : {"\u3002", "\uFF01", "\uFF1F", "\uFF1B", ".", "!", "?", ";", ")",
                                  "\"", "'", "\u201D", "\uFF09", "\u300D"})
      if (s.substr(0, p).ends_with(stop)) {
        p -= stop.size();
        again = true;
        break;
      }
  }
  return p;
}

std::string collapse_spaces(std::string s) {
  for (size_t p; (p = s.find("  ")) != std::string::npos;) s.erase(p, 1);
  for (std::string_view pair : {" .", " ,", " ?", " !", " ;", " :", " \uFF0C", " \u3002", " \uFF1F",
                                " \uFF1B", " \uFF1A", " )", " \uFF09"})
    for (size_t p; (p = s.find(pair)) != std::string::npos;) s.erase(p, 1);
  for (std::string_view empty : {"()", "\uFF08\uFF09"})
    for (size_t p; (p = s.find(empty)) != std::string::npos;) s.erase(p, empty.size());
  return s;
}

void capitalize(std::string& s) {
  if (!s.empty() && std::islower(static_cast<unsigned char>(s[0])))
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
}

// Drops separators a removal left at the end ("；", ", ", "：", " —").
std::string strip_dangling_end(std::string s) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view p : {" ", "\n", "\u3000", "\uFF1B", ";", "\uFF0C", ",", "\u3001",
                               "\uFF1A", ":", "\u2014", "\u2013", " -"})
      if (s.ends_with(p)) {
        s.resize(s.size() - p.size());
        again = true;
      }
  }
  return s;
}

bool ends_with_stop(std::string_view s) {
  for (std::string_view stop : {"\u3002", "\uFF01", "\uFF1F", ".", "!", "?", "\u2026"})
    if (s.ends_with(stop)) return true;
  for (std::string_view close : {")", "\"", "'", "\u201D", "\uFF09", "\u300D", "`"})
    if (s.ends_with(close)) {
      std::string_view inner = s.substr(0, s.size() - close.size());
      for (std::string_view stop : {"\u3002", "\uFF01", "\uFF1F", ".", "!", "?"})
        if (inner.ends_with(stop)) return true;
    }
  return false;
}

// An opening clause that cannot stand without the one after it.
bool subordinate(std::string_view head) {
  static const RE2 kSub(
      R"(^\s*(?:(?i:to|in order to|so that|if|when|whenever|unless|because|since|although|though|while|after|before|once|for|with|by)\b|为了|如果|若|当|一旦|由于|因为|虽然|尽管|对于|为)[^.;。；]*$)");
  return RE2::FullMatch(re2::StringPiece(head.data(), head.size()), kSub);
}

// Whether text after a comma goes on with the sentence's verb.
bool continues_with_verb(std::string_view t) {
  static const RE2 kVerb(
      R"(^(?:is|are|was|were|has|have|had|does|do|did|can|could|will|would|should|may|might|must|shows?|means?|says?|gives?|makes?|remains?|stays?)\b)");
  return RE2::PartialMatch(re2::StringPiece(t.data(), t.size()), kVerb);
}

// Parentheses and brackets left balanced (a cut never leaves "… 0.4457)").
bool balanced(std::string_view t) {
  int round = 0, full = 0, square = 0;
  const std::string plain = prose::without_code(t);
  for (size_t i = 0; i < plain.size(); ++i) {
    const char c = plain[i];
    round += c == '(' ? 1 : c == ')' ? -1 : 0;
    square += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (plain.compare(i, 3, "\uFF08") == 0) ++full;
    if (plain.compare(i, 3, "\uFF09") == 0) --full;
    if (round < 0 || full < 0 || square < 0) return false;
  }
  return round == 0 && full == 0 && square == 0;
}

}  // namespace

bool stands(std::string_view t) {
  const Count c = count(t);
  return c.cjk >= 6 || c.words >= 4;
}

std::string without_clause(std::string_view s, std::string_view citation) {
  const size_t at = find_citation(s, citation);
  if (at == std::string_view::npos) return {};
  // A parenthesis holding it goes on its own.
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"(", ")"},
                             std::pair<std::string_view, std::string_view>{"\uFF08", "\uFF09"}}) {
    const size_t o = s.substr(0, at).rfind(open);
    if (o == std::string_view::npos) continue;
    const size_t c = s.find(close, at);
    if (c == std::string_view::npos || s.substr(o, c - o).find(close) != std::string_view::npos)
      continue;
    std::string rest = std::string(s.substr(0, o)) + std::string(s.substr(c + close.size()));
    rest = collapse_spaces(std::move(rest));
    if (sentence_reads(rest)) return rest;
  }
  const auto seps = separators(s);
  size_t k = 0;  // the clause holding the citation
  while (k < seps.size() && seps[k].first <= at) ++k;
  if (k == 0) return {};  // the sentence's first clause: the sentence goes
  const size_t begin = seps[k - 1].first;
  const size_t clause_begin = seps[k - 1].second;
  const bool last = k == seps.size();
  const size_t end = last ? stop_start(s) : seps[k].first;
  if (end <= clause_begin || limiting(s.substr(clause_begin, end - clause_begin))) return {};
  // The clause before a colon introduces the one after it: both go.
  const std::string_view sep = s.substr(begin, seps[k - 1].second - begin);
  if (!last && (sep == ": " || sep == "\uFF1A")) return {};
  // What is left must not be an opening clause without its main one ("to
  // exclude only the router gate" once ", try `x`" went). Left with two
  // clauses or more ("If you hit X, upgrade"), it has its main clause.
  if (last && k == 1 && subordinate(s.substr(0, begin))) return {};
  // An aside between two commas goes with both when the sentence goes on
  // with its verb ("X (MRV2), with …, is evidence" → "X (MRV2) is evidence").
  size_t resume = end;
  if (!last && s.substr(end, 2) == ", " && continues_with_verb(s.substr(end + 2)) &&
      s.substr(begin, 2) == ", ")
    resume = end + 1;
  std::string rest = std::string(s.substr(0, begin)) + std::string(s.substr(resume));
  rest = collapse_spaces(std::move(rest));
  if (!balanced(rest)) return {};
  return sentence_reads(rest) ? rest : std::string();
}

bool refers_back(std::string_view sentence) {
  static const RE2 kBack(
      R"(^\s*(?:(?i:if so|if not|if yes|if that is so|in that case)\b|如果是|若是|如是|若如此|如果这样|如果不是|若否)|^(?:\S+\s+){0,8}?(?i:these|those|such|this|that|the same|the above)\s+(?:\w+\s+)?(?i:numbers?|figures?|results?|values?|measurements?|runs?|data|gaps?|differences?|percentages?|ratios?|comparisons?|claims?)\b|^\s*(?:[^，。；]{0,12})(?:这些|上述|该|此|这个|这组|以上)(?:数字|数据|数值|结果|差距|差异|比较|对比|百分比|比例|结论|测量))");
  return RE2::PartialMatch(re2::StringPiece(sentence.data(), sentence.size()), kBack);
}

std::string join_kept(const std::vector<std::string>& kept, const std::vector<bool>& after_removal,
                      std::string_view original) {
  static const RE2 kConnector(
      R"(^\s*(?:(?:But|However|Also|And|So|Therefore|Thus|Hence|Instead|In addition|Moreover|Still|Besides|That said|As a result),?\s+|(?:但是|但|不过|然而|另外|此外|而且|同时|因此|所以|于是|并且|因而)[，,]?\s*))");
  std::string out;
  for (size_t i = 0; i < kept.size(); ++i) {
    std::string s = kept[i];
    if (i < after_removal.size() && after_removal[i]) {
      re2::StringPiece in(s);
      if (RE2::Consume(&in, kConnector)) {
        s = std::string(in.data(), in.size());
        capitalize(s);
      }
    }
    out += s;
  }
  out = prose::tidy(strip_dangling_end(prose::tidy(out)));
  if (out.empty()) return out;
  std::string_view orig = original;
  while (!orig.empty() && (orig.back() == ' ' || orig.back() == '\n')) orig.remove_suffix(1);
  if (ends_with_stop(orig) && !ends_with_stop(out)) out += prose::has_cjk(out) ? "\u3002" : ".";
  if (!prose::has_cjk(out)) capitalize(out);
  return out;
}

std::string without_lines(std::string_view text, std::int32_t first, std::int32_t last,
                          bool* changed) {
  if (first <= 0) return std::string(text);
  const std::string a = std::to_string(first), b = std::to_string(last);
  const std::string range =
      last > first ? fmt::format(R"({}\s*(?:-|–|—|~|～|到|至)\s*(?:L)?{})", a, b) : a;
  const std::string span = fmt::format(R"((?:{}|{})\b)", range, a);
  // Phrases that only say where: they go and the sentence stays.
  const std::vector<std::string> phrases = {
      fmt::format(R"([（(]\s*第?\s*{}\s*行\s*[)）])", span),
      fmt::format(R"(第\s*{}\s*行(?:的|中|里|内|处|附近|上)?)", span),
      fmt::format(R"(\s*\(\s*(?i:lines?|L)\s*{}\s*\))", span),
      fmt::format(R"(\s+(?i:at|in|on|around|near|of)\s+(?i:lines?|L)\s*{})", span),
      fmt::format(R"((?i:lines?)\s*{}\s*(?:of|in)?\s*)", span),
      fmt::format(R"(\bL{}(?:-L?{})?)", a, b),
      fmt::format(R"(:{})", span)};
  std::string out(text);
  bool any = false;
  for (const auto& p : phrases) {
    const RE2 re(p);
    if (RE2::GlobalReplace(&out, re, "") > 0) any = true;
  }
  if (any) {
    out = collapse_spaces(std::move(out));
    // A sentence that began with the phrase: no leading colon, a capital.
    std::string_view o = out;
    while (!o.empty() && (o.front() == ' ' || o.front() == ':' || o.front() == ','))
      o.remove_prefix(1);
    for (std::string_view lead : {"\uFF1A", "\uFF0C"})
      if (o.starts_with(lead)) o.remove_prefix(lead.size());
    out = std::string(o);
    capitalize(out);
  }
  // A range still written bare ("9001-9010") leaves its sentence out.
  if (last > first) {
    const RE2 bare(fmt::format(R"((?:^|[^\d.]){}(?:[^\d]|$))", range));
    if (RE2::PartialMatch(out, bare)) {
      std::vector<std::string> kept;
      std::vector<bool> after;
      bool removed = false;
      for (const auto& r : prose::sentences(out)) {
        std::string s = out.substr(r.begin, r.end - r.begin);
        if (RE2::PartialMatch(s, bare)) {
          removed = true;
          continue;
        }
        kept.push_back(std::move(s));
        after.push_back(removed);
        removed = false;
      }
      out = join_kept(kept, after, text);
      any = true;
    }
  }
  if (changed) *changed = any;
  return any ? prose::tidy(out) : std::string(text);
}

std::string with_verdict_lead(std::string_view verdict, std::string_view rest,
                              std::string_view sample) {
  const bool zh = prose::has_cjk(sample);
  const char* words = verdict == "close_read"       ? (zh ? "值得精读" : "Close read")
                      : verdict == "selective_read" ? (zh ? "选读" : "Selective read")
                      : verdict == "skim"           ? (zh ? "浏览即可" : "Skim")
                      : verdict == "skip"           ? (zh ? "可跳过" : "Skip")
                                                    : "";
  if (!*words) return std::string(rest);
  if (rest.empty()) return std::string(words) + (zh ? "\u3002" : ".");
  return fmt::format("{}{}{}", words, zh ? "\uFF1A" : ": ", rest);
}

std::string first_sentence(std::string_view text) {
  const auto rs = prose::sentences(text);
  if (rs.empty()) return {};
  return prose::tidy(text.substr(rs[0].begin, rs[0].end - rs[0].begin));
}

}  // namespace mergelens::prune_text
