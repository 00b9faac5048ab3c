#include "mergelens/guide/prose.h"

#include <array>
#include <cctype>

#include <re2/re2.h>

namespace mergelens::prose {
namespace {

// Decodes the UTF-8 code point at `i` and its length (1 for a stray byte).
char32_t decode(std::string_view s, size_t i, size_t* len) {
  unsigned char c = s[i];
  auto cont = [&](size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  if (c < 0x80) {
    *len = 1;
    return c;
  }
  if ((c & 0xE0) == 0xC0 && cont(1)) {
    *len = 2;
    return (char32_t(c & 0x1F) << 6) | (s[i + 1] & 0x3F);
  }
  if ((c & 0xF0) == 0xE0 && cont(1) && cont(2)) {
    *len = 3;
    return (char32_t(c & 0x0F) << 12) | (char32_t(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
  }
  if ((c & 0xF8) == 0xF0 && cont(1) && cont(2) && cont(3)) {
    *len = 4;
    return (char32_t(c & 0x07) << 18) | (char32_t(s[i + 1] & 0x3F) << 12) |
           (char32_t(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
  }
  *len = 1;
  return 0xFFFD;
}

bool ideograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF);
}

bool full_width(char32_t c) {
  return ideograph(c) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF);
}

// Ends of sentences written in full width: 。！？；
constexpr std::array<std::string_view, 4> kFullStops = {"\u3002", "\uFF01", "\uFF1F", "\uFF1B"};

bool abbreviation_before(std::string_view text, size_t dot) {
  for (std::string_view a : {"e.g", "i.e", "etc", "vs", "cf", "approx", "resp", "Fig", "No"}) {
    if (dot >= a.size() && text.substr(dot - a.size(), a.size()) == a &&
        (dot == a.size() || !std::isalpha(static_cast<unsigned char>(text[dot - a.size() - 1]))))
      return true;
  }
  return false;
}

}  // namespace

std::vector<Span> code_spans(std::string_view t) {
  std::vector<Span> out;
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] != '`') {
      ++i;
      continue;
    }
    size_t close = t.find('`', i + 1);
    if (close == std::string_view::npos) break;
    out.push_back({i, close + 1, t.substr(i + 1, close - i - 1)});
    i = close + 1;
  }
  return out;
}

std::vector<Range> sentences(std::string_view t) {
  std::vector<Range> out;
  const auto spans = code_spans(t);
  size_t next_span = 0, start = 0, i = 0;
  auto cut = [&](size_t end) {
    while (end < t.size() && (t[end] == ' ' || t[end] == '\n')) ++end;
    if (end > start) out.push_back({start, end});
    start = end;
    return end;
  };
  // A stop inside a parenthesis closed on the same line ends no sentence:
  // "(about 1.5% lower; duration 101.71 s)" is one aside.
  size_t depth = 0;
  auto closes_on_line = [&](size_t from) {
    int d = 0;
    for (size_t j = from; j < t.size() && t[j] != '\n'; ++j) {
      if (t[j] == '(' || t.substr(j, 3) == "\uFF08") ++d;
      if (t[j] == ')' || t.substr(j, 3) == "\uFF09") {
        if (--d == 0) return true;
      }
    }
    return false;
  };
  while (i < t.size()) {
    if (next_span < spans.size() && i == spans[next_span].begin) {
      i = spans[next_span++].end;
      continue;
    }
    if (t[i] == '(' || t.substr(i, 3) == "\uFF08") {
      if (depth > 0 || closes_on_line(i)) ++depth;
    } else if ((t[i] == ')' || t.substr(i, 3) == "\uFF09") && depth > 0) {
      --depth;
    }
    bool stop = false;
    size_t after = i + 1;
    if (t[i] == '\n') {
      stop = true;
      depth = 0;
    } else if (depth > 0) {
      stop = false;
    } else if (t[i] == '.' || t[i] == '!' || t[i] == '?' || t[i] == ';') {
      bool spaced = i + 1 >= t.size() || t[i + 1] == ' ' || t[i + 1] == '\n';
      stop = spaced && !(t[i] == '.' && abbreviation_before(t, i));
    } else {
      for (auto fs : kFullStops)
        if (t.substr(i, fs.size()) == fs) {
          stop = true;
          after = i + fs.size();
          break;
        }
    }
    if (stop) {
      // Closing quotes and brackets stay with the sentence they close.
      while (after < t.size() && (t[after] == ')' || t[after] == '"' || t[after] == '\'')) ++after;
      for (std::string_view q : {"\u201D", "\uFF09", "\u300D"})
        if (t.substr(after, q.size()) == q) after += q.size();
      i = cut(after);
      continue;
    }
    ++i;
  }
  if (start < t.size()) out.push_back({start, t.size()});
  return out;
}

bool is_suggestion(std::string_view s) {
  static const RE2 kCue(
      R"((建议|可以|可考虑|考虑|应该|应当|应在|应把|应将|最好|不妨|需要|补上|补充|补一个|补齐测试|增加|添加|加上|加一个|例如|比如|譬如|尝试|试试|实测|测量|对比|验证|断言|缺少|缺乏|缺一个|没有覆盖|未覆盖|是否|能否|会不会|吗|？|如果|若|假如|一旦|万一|值得确认|确认)|(?i:\b(should|could|would|might|consider|suggest|recommend|prefer|add|adding|try|e\.g\.|for example|such as|instead|replace|rename|measure|benchmark|compare|assert|whether|if|missing|lacks?|no test|worth checking|confirm)\b)|\?)");
  return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), kCue);
}

bool introduces_code(std::string_view s, size_t at) {
  size_t from = at > 40 ? at - 40 : 0;
  while (from > 0 && from < at && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) --from;
  std::string_view before = s.substr(from, at - from);
  static const RE2 kIntro(
      R"((新增|增加|添加|加上|补上?|补充|补一个|加一个|写一个|引入|改为|改成|换成|改用|用|使用|例如|比如|如|名为|命名为|叫做?|类似|设为|设成|设置|e\.g\.|(?i:for example|such as|like|add|adding|use|using|try|named|called|rename(?: it)? to|replace (?:it |them )?with|switch to|set|setting|pin(?:ning)?))\s*[：:,，]?\s*(?:(?i:a |an |the )|个|一个)?(?:(?i:new |test |helper |function |flag |option |assertion |case )|测试|用例|函数|开关|断言)?\s*(?:（|\()?$)");
  return RE2::PartialMatch(re2::StringPiece(before.data(), before.size()), kIntro);
}

std::string without_code(std::string_view t) {
  std::string out(t);
  for (const auto& s : code_spans(t))
    for (size_t i = s.begin; i < s.end; ++i) out[i] = ' ';
  return out;
}

bool has_cjk(std::string_view t) {
  for (size_t i = 0; i < t.size();) {
    size_t len = 1;
    if (ideograph(decode(t, i, &len))) return true;
    i += len;
  }
  return false;
}

Letters count_letters(std::string_view t) {
  Letters l;
  for (size_t i = 0; i < t.size();) {
    size_t len = 1;
    char32_t c = decode(t, i, &len);
    if (ideograph(c))
      ++l.cjk;
    else if (c < 0x80 ? std::isalpha(static_cast<unsigned char>(c)) != 0 : !full_width(c))
      ++l.latin;
    i += len;
  }
  return l;
}

double width(std::string_view t) {
  double w = 0;
  for (size_t i = 0; i < t.size();) {
    size_t len = 1;
    char32_t c = decode(t, i, &len);
    if (c != '`') w += full_width(c) ? 1.0 : 0.375;
    i += len;
  }
  return w;
}

std::string tidy(std::string_view t) {
  auto strip_front = [&](std::string_view p) {
    if (t.starts_with(p)) {
      t.remove_prefix(p.size());
      return true;
    }
    return false;
  };
  auto strip_back = [&](std::string_view p) {
    if (t.ends_with(p)) {
      t.remove_suffix(p.size());
      return true;
    }
    return false;
  };
  bool again = true;
  while (again) {
    again = false;
    for (std::string_view p : {" ", "\n", "\u3000", ",", ";", "\uFF0C", "\uFF1B", "\u3001"})
      again = strip_front(p) || again;
    for (std::string_view p : {" ", "\n", "\u3000", ",", "\uFF0C", "\u3001", ":", "\uFF1A"})
      again = strip_back(p) || again;
  }
  return std::string(t);
}

}  // namespace mergelens::prose
