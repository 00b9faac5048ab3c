// Numbers claimed in text (declared in text_facts.h); the cautions on them are in
// text_cautions.cc.
#include "mergelens/analysis/text/text_facts.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "mergelens/analysis/text/text_doc.h"
#include "mergelens/analysis/text/text_numbers.h"

namespace mergelens {
namespace text_detail {
namespace {

struct Qty {
  size_t b = 0, e = 0;  // text span, sign and unit included
  double v = 0;         // as written, sign applied
  std::string kind;     // empty for a bare number
  double scale = 1;     // normalisation factor of the unit
  bool sign = false, integer = true, spaced_x = false;
};

std::string next_token(sv s, size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  size_t b = i;
  while (i < s.size() && (is_word(s[i]) || s[i] == '-')) ++i;
  return lower(s.substr(b, i - b));
}
std::string prev_token(sv s, size_t i) {
  while (i > 0 && is_space(s[i - 1])) --i;
  size_t e = i;
  while (i > 0 && (is_word(s[i - 1]) || s[i - 1] == '-')) --i;
  return lower(s.substr(i, e - i));
}
bool hardware_token(const std::string& t) {
  static const RE2 re(
      "(?:[a-z]{1,3}\\d{2,4}[a-z]{0,3}|gpus?|nodes?|cards?|devices?|ranks?|workers?|rtx|"
      "geforce|quadro|tesla|nvidia|amd|instinct|radeon|intel|gaudi|tpus?|npus?|ascend|"
      "blackwell|hopper|ampere|ada|rubin|machines?|hosts?|sockets?|cpus?|cores?)");
  return RE2::FullMatch(t, re);
}

// The unit written at s[j] after at most three blanks ("ms", "tok/s", "2.1k tok/s", "%", "倍").
// On success sets kind, the factor normalising the value (ms, GB, k/M multipliers) and the
// end of the unit.
bool match_unit(sv s, size_t j, std::string& kind, double& scale, size_t& end) {
  size_t k = j;
  while (k < s.size() && k < j + 3 && is_space(s[k])) ++k;
  const sv r = s.substr(k);
  static const std::pair<sv, std::pair<const char*, double>> kSymbols[] = {
      {"%", {"percent", 1}},     {"％", {"percent", 1}},     {"×", {"speedup", 1}},
      {"倍", {"speedup", 1}},    {"毫秒", {"latency", 1}},   {"微秒", {"latency", 1e-3}},
      {"秒", {"latency", 1000}}, {"分钟", {"latency", 6e4}}, {"µs", {"latency", 1e-3}},
      {"μs", {"latency", 1e-3}}};
  for (const auto& [sym, ks] : kSymbols)
    if (r.starts_with(sym)) {
      kind = ks.first, scale = ks.second, end = k + sym.size();
      return !(sym.back() == 's' && end < s.size() && is_word(s[end]));
    }
  auto alpha_run = [&](size_t p) {
    size_t e = p;
    while (e < s.size() && e - p < 14 && is_alpha(s[e])) ++e;
    return std::pair<size_t, std::string>{e, lower(s.substr(p, e - p))};
  };
  // "/s", "/sec", " per second", then an optional "/gpu"; npos when absent.
  auto per_second = [&](size_t p) {
    while (p < s.size() && is_space(s[p])) ++p;
    if (p < s.size() && s[p] == '/') {
      ++p;
    } else if (s.substr(p, 4) == "per " || s.substr(p, 4) == "Per ") {
      p += 4;
    } else {
      return sv::npos;
    }
    while (p < s.size() && is_space(s[p])) ++p;
    auto [e, w] = alpha_run(p);
    if (w != "s" && w != "sec" && w != "second") return sv::npos;
    if (e < s.size() && s[e] == '/') {
      auto [e2, w2] = alpha_run(e + 1);
      if (w2 == "gpu" || w2 == "user" || w2 == "device" || w2 == "card" || w2 == "req") e = e2;
    }
    return e;
  };
  static const std::set<std::string> kPerSecond = {
      "tok",       "toks",  "token",   "tokens", "req",   "reqs",   "request",
      "requests",  "it",    "its",     "iter",   "iters", "sample", "samples",
      "img",       "imgs",  "image",   "images", "seq",   "seqs",   "sequence",
      "sequences", "query", "queries", "item",   "items", "frame",  "frames",
      "step",      "steps", "kb",      "mb",     "gb",    "tb",     "kib",
      "mib",       "gib",   "tib",     "tflop",  "gflop", "pflop"};
  static const std::set<std::string> kRates = {"qps",    "rps",    "tps", "tflops",
                                               "gflops", "pflops", "tops"};
  static const std::map<std::string, double> kMemory = {{"kb", 1e-6},  {"kib", 1e-6}, {"mb", 1e-3},
                                                        {"mib", 1e-3}, {"gb", 1},     {"gib", 1},
                                                        {"tb", 1e3},   {"tib", 1e3}};
  static const std::map<std::string, double> kTime = {
      {"ns", 1e-6},        {"nanosecond", 1e-6},  {"nanoseconds", 1e-6},
      {"us", 1e-3},        {"microsecond", 1e-3}, {"microseconds", 1e-3},
      {"ms", 1},           {"msec", 1},           {"millisecond", 1},
      {"milliseconds", 1}, {"s", 1000},           {"sec", 1000},
      {"secs", 1000},      {"second", 1000},      {"seconds", 1000},
      {"min", 6e4},        {"mins", 6e4},         {"minute", 6e4},
      {"minutes", 6e4}};
  auto [w_end, word] = alpha_run(k);
  if (word.empty()) return false;
  double mult = 1;
  if ((word == "k" || s[k] == 'M') && word.size() == 1) {  // 2.1k tok/s, 1.2M tokens/s
    size_t p = w_end + (w_end < s.size() && is_space(s[w_end]));
    auto [e2, w2] = alpha_run(p);
    size_t ps = kPerSecond.count(w2) ? per_second(e2) : sv::npos;
    if (ps == sv::npos && !kRates.count(w2)) return false;
    mult = word == "k" ? 1e3 : 1e6, w_end = e2, word = w2;
  }
  size_t ps = kPerSecond.count(word) ? per_second(w_end) : sv::npos;
  if (ps != sv::npos) {
    kind = "throughput", scale = mult, end = ps;
  } else if (kRates.count(word)) {
    kind = "throughput", scale = mult, end = w_end;
  } else if (mult != 1) {
    return false;
  } else if (auto m = kMemory.find(word); m != kMemory.end()) {
    kind = "memory", scale = m->second, end = w_end;
  } else if (auto t = kTime.find(word); t != kTime.end()) {
    kind = "latency", scale = t->second, end = w_end;
  } else if (word == "percent") {
    kind = "percent", scale = 1, end = w_end;
  } else if (word == "x" || word == "times") {
    kind = "speedup", scale = 1, end = w_end;
  } else {
    return false;
  }
  return !(end < s.size() && is_word(s[end]));
}

// A connector between two numbers at s[k] ("→", "to", "-", "vs", "降到"), blanks around it
// included; returns its end (or npos) and sets `c` to it, lowercased.
size_t match_connector(sv s, size_t k, std::string& c) {
  size_t p = k;
  while (p < s.size() && p < k + 3 && is_space(s[p])) ++p;
  static const sv kConnectors[] = {
      "->",     "=>",     "→",      "⟶",      "➡",      "➔",      "–",      "-",      "~",
      "下降到", "下降至", "减少到", "减少至", "降低到", "降低至", "提升到", "提升至", "提高到",
      "提高至", "增加到", "增加至", "增长到", "增长至", "上升到", "上升至", "降到",   "降至",
      "至",     "到",     "versus", "vs.",    "vs",     "to"};
  for (sv con : kConnectors) {
    if (s.size() - p < con.size()) continue;
    bool word = is_alpha(con[0]);
    bool same = word ? lower(s.substr(p, con.size())) == con : s.substr(p, con.size()) == con;
    if (!same || (word && p + con.size() < s.size() && is_alpha(s[p + con.size()]))) continue;
    c = std::string(con);
    p += con.size();
    while (p < s.size() && p < k + 12 && is_space(s[p])) ++p;
    return p;
  }
  return sv::npos;
}

// Reads the number whose first digit is s[i] and the unit after it. Returns
// false for versions and numbers glued to a word; q.e is then where to resume.
bool read_qty(sv s, size_t i, bool allow_sign, Qty& q) {
  q = Qty{};
  q.b = i;
  double sgn = 1;
  if (allow_sign && i > 0 && (s[i - 1] == '-' || s[i - 1] == '+') &&
      (i < 2 || !is_word(s[i - 2]))) {
    q.b = i - 1, q.sign = true, sgn = s[i - 1] == '-' ? -1 : 1;
  } else if (allow_sign && i >= 3 && s.substr(i - 3, 3) == "\xE2\x88\x92") {
    q.b = i - 3, q.sign = true, sgn = -1;
  }
  std::string digits;
  size_t j = i;
  while (j < s.size() && is_digit(s[j])) digits += s[j++];
  while (j + 3 < s.size() && s[j] == ',' && is_digit(s[j + 1]) && is_digit(s[j + 2]) &&
         is_digit(s[j + 3]) && (j + 4 >= s.size() || !is_digit(s[j + 4])))
    digits.append(s.substr(j + 1, 3)), j += 4;
  if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
    digits += s[j++], q.integer = false;
    while (j < s.size() && is_digit(s[j])) digits += s[j++];
    if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {  // 1.2.3: a version
      while (j < s.size() && (is_word(s[j]) || s[j] == '.')) ++j;
      q.e = j;
      return false;
    }
  }
  q.v = sgn * std::strtod(digits.c_str(), nullptr);
  q.e = j;
  size_t end = 0;
  if (match_unit(s, j, q.kind, q.scale, end)) {
    q.spaced_x = q.kind == "speedup" && is_space(s[j]);
    q.e = end;
    return true;
  }
  q.kind.clear();
  if (j < s.size() && is_word(s[j])) {  // 4m3, 70B, 1234abc
    while (j < s.size() && is_word(s[j])) ++j;
    q.e = j;
    return false;
  }
  return true;
}

// Drops quantities that are conditions or dimensions rather than claims.
// `cell`: a table cell, whose column names what it measures.
bool plausible(sv s, const Qty& q, bool cell = false) {
  if (q.kind == "speedup") {
    std::string unit = lower(trim(s.substr(q.b, q.e - q.b)));
    std::string next = next_token(s, q.e);
    size_t k = q.e;
    while (k < s.size() && is_space(s[k])) ++k;
    if (k < s.size() && is_digit(s[k])) return false;  // 128x128, 4 × 8
    if (hardware_token(next)) return false;            // 8x H100, 4 x GPUs
    static const std::set<std::string> kAfter = {
        "faster", "slower", "speedup", "speed-up", "improvement", "higher",    "lower",
        "better", "more",   "less",    "the",      "as",          "throughput"};
    if (unit.ends_with("times")) return kAfter.count(next) > 0;
    if (q.spaced_x && !next.empty()) return kAfter.count(next) > 0;
    // "1.8x" is a factor of anything ("covers 1.8x down to 0.8x of the
    // range"): a speedup only when its sentence is about speed or cost. The
    // signs × and 倍 are written for speed-ups.
    // A table cell measures when the figure is all it holds: "1x + 1.5x, no
    // fp8 rounding" names a configuration in its row.
    const bool sign = !unit.empty() && unit.back() != 'x';
    bool alone = cell;
    for (size_t i = 0; alone && i < s.size(); ++i)
      alone = (i >= q.b && i < q.e) || !std::isalpha(static_cast<unsigned char>(s[i]));
    return q.v > 0 && (alone || sign || kAfter.count(next) > 0 || perf_context(s));
  }
  if (q.kind == "memory") {
    static const RE2 hw("[a-z]{1,3}\\d{2,4}[a-z]{0,3}");
    if (RE2::FullMatch(prev_token(s, q.b), hw) || RE2::FullMatch(next_token(s, q.e), hw))
      return false;
  }
  return true;
}

// +1 / -1 from a direction word right after or shortly before a percentage.
int direction(sv s, size_t b, size_t e) {
  static const std::set<std::string> kUp = {"faster",      "higher",   "more",  "better",
                                            "improvement", "increase", "gain",  "speedup",
                                            "boost",       "up",       "uplift"};
  static const std::set<std::string> kDown = {
      "lower", "less",    "fewer",  "smaller", "reduction", "decrease", "drop",
      "down",  "savings", "saving", "slower",  "shorter",   "cheaper"};
  std::string next = next_token(s, e);
  if (kUp.count(next)) return 1;
  if (kDown.count(next)) return -1;
  static const RE2 before(
      "(?i)(?:^|[^a-z])(reduc|decreas|lower|drop|sav|cut|shrink|less|fewer|down|slower|improv|"
      "increas|boost|faster|"
      "higher|gain|speed|up\\b)|(降|减|节省|缩短|省)|(提升|提高|增加|加速|提速|增长|上升)");
  size_t lo = b > 30 ? b - 30 : 0;
  sv w = s.substr(lo, b - lo);
  int dir = 0;
  re2::StringPiece m[4];
  for (size_t p = 0; p < w.size() && before.Match(w, p, w.size(), RE2::UNANCHORED, m, 4);) {
    if (!m[1].empty()) {
      std::string k = lower(m[1]);
      bool up = k.starts_with("improv") || k.starts_with("increas") || k.starts_with("boost") ||
                k == "faster" || k == "higher" || k == "gain" || k == "speed" || k == "up";
      dir = up ? 1 : -1;
    } else {
      dir = m[2].empty() ? 1 : -1;
    }
    p = size_t(m[0].data() + m[0].size() - w.data());
    if (m[0].empty()) ++p;
  }
  return dir;
}

std::pair<std::string, double> header_kind(sv h);

struct Found {
  size_t b, e;
  std::string kind;
  double v;
};

// Quantities of one sentence (or table cell), outside the masked spans.
void scan_numbers(sv s, const std::vector<Span>& mask, std::vector<Found>& out, bool cell = false) {
  for (size_t i = 0; i < s.size();) {
    size_t mend;
    if (!is_digit(s[i])) {
      ++i;
      continue;
    }
    if (in_spans(mask, i, &mend)) {
      i = mend;
      continue;
    }
    char p = i ? s[i - 1] : ' ';
    bool glued = is_word(p) || p == '.' || p == '#' || p == '=' || p == ':' || p == '@' ||
                 p == '^' || ((p == '-' || p == '/' || p == '+') && i >= 2 && is_word(s[i - 2]));
    if (glued) {
      while (i < s.size() && (is_word(s[i]) || s[i] == '.')) ++i;
      continue;
    }
    Qty a;
    if (!read_qty(s, i, true, a)) {
      i = std::max(a.e, i + 1);
      continue;
    }
    auto emit = [&](const Qty& q, size_t b, size_t e, const std::string& kind, double v) {
      if (kind == "percent" && !q.sign && v > 0 && direction(s, b, e) < 0) v = -v;
      out.push_back({b, e, kind, v});
    };
    i = a.e;
    std::string c;
    if (size_t k = match_connector(s, a.e, c); k != sv::npos) {
      bool signed2 = k + 1 < s.size() && (s[k] == '-' || s[k] == '+') && is_digit(s[k + 1]);
      Qty b;
      if (k < s.size() && is_digit(s[k + signed2]) && !in_spans(mask, k) &&
          read_qty(s, k + signed2, signed2 || c != "-", b)) {
        bool arrow = c == "->" || c == "=>" || c == "→" || c == "⟶" || c == "➡" || c == "➔" ||
                     (c.size() >= 6 && c != "versus");  // 降到, 提升至
        sv before = s.substr(a.b > 16 ? a.b - 16 : 0, std::min<size_t>(a.b, 16));
        bool from = lower(before).find("from") != std::string::npos ||
                    before.find("从") != sv::npos || before.find("由") != sv::npos;
        bool pair = arrow || (from && (c == "to" || c == "到" || c == "至"));
        if (!a.kind.empty() && !b.kind.empty() && a.kind == b.kind && !pair) {  // 1.9x vs 1.05x
          if (plausible(s, a, cell)) emit(a, a.b, a.e, a.kind, a.v * a.scale);
          if (plausible(s, b, cell)) emit(b, b.b, b.e, b.kind, b.v * b.scale);
          i = b.e;
          continue;
        }
        if ((a.kind.empty() || a.kind == b.kind) && !b.kind.empty() && plausible(s, b, cell)) {
          if (pair) {
            emit(b, a.b, b.e, b.kind, b.v * b.scale);
          } else {
            emit(a, a.b, b.e, b.kind, a.v * b.scale);
            emit(b, a.b, b.e, b.kind, b.v * b.scale);
          }
          i = b.e;
          continue;
        }
        static const std::set<std::string> kVersionWords = {
            "version", "v",    "cuda", "python", "torch", "pytorch",
            "triton",  "rocm", "gcc",  "nccl",   "cudnn", "sm"};
        bool version_next = b.e + 1 < s.size() && s[b.e] == '.' && is_digit(s[b.e + 1]);
        if (a.kind.empty() && b.kind.empty() && arrow && a.integer && b.integer && !version_next &&
            !kVersionWords.count(prev_token(s, a.b))) {
          emit(b, a.b, b.e, "count", b.v);
          i = b.e;
          continue;
        }
      }
    }
    if (a.kind.empty()) {  // "TTFT (ms): 12.3": the unit stands before the number
      size_t k = a.b;
      while (k > 0 && (is_space(s[k - 1]) || s[k - 1] == ':' || s[k - 1] == '*')) --k;
      size_t open = k > 0 && s[k - 1] == ')' ? s.rfind('(', k - 1) : sv::npos;
      sv unit = open == sv::npos ? sv() : s.substr(open, k - open);
      if (!unit.empty() && unit.size() <= 14 && std::none_of(unit.begin(), unit.end(), is_digit)) {
        auto [kind, scale] = header_kind(unit);
        if (!kind.empty()) emit(a, a.b, a.e, kind, a.v * scale);
      }
      continue;
    }
    if (plausible(s, a, cell)) emit(a, a.b, a.e, a.kind, a.v * a.scale);
  }
}

// Kind and unit scale a table header (or row label) gives to its bare numbers.
std::pair<std::string, double> header_kind(sv h) {
  std::string l = lower(h);
  auto has = [&](std::initializer_list<const char*> ws) {
    return std::any_of(ws.begin(), ws.end(),
                       [&](const char* w) { return l.find(w) != std::string::npos; });
  };
  if (has({"throughput", "tok/s", "token/s", "tokens/s", "req/s", "qps", "tflops", "gb/s",
           "bandwidth", "吞吐", "it/s", "samples/s"}))
    return {"throughput", 1};
  if (has({"%", "％"})) return {"percent", 1};
  if (has({"speedup", "speed-up", "speed up", "加速比", "倍", "(x)"})) return {"speedup", 1};
  if (has({"latency", "ttft", "tpot", "itl", "e2e", "time", "duration", "延迟", "耗时", "(ms",
           "(s)", "(us"})) {
    double sc = has({"(us", "µs", "μs"})     ? 1e-3
                : has({"(ns"})               ? 1e-6
                : has({"ms"})                ? 1
                : has({"(s)", " s)", "sec"}) ? 1000
                                             : 1;
    return {"latency", sc};
  }
  if (has({"memory", "mem ", "(gb)", "(mb)", "显存", "内存", "vram"}))
    return {"memory", has({"(mb)"}) ? 1e-3 : 1};
  if (has({"improvement", "gain", "提升"})) return {"percent", 1};
  return {"", 1};
}

bool plain_number(sv c, double& v) {
  static const RE2 re("\\**([+\\-−]?\\d[\\d,]*(?:\\.\\d+)?)\\**");
  std::string num;
  if (!RE2::FullMatch(c, re, &num)) return false;
  std::erase(num, ',');
  if (num.starts_with("−")) num = "-" + num.substr(3);
  v = std::strtod(num.c_str(), nullptr);
  return true;
}

void table_numbers(const Table& t, sv source, std::vector<NumberFact>& out) {
  const size_t ncol = t.head.size();
  std::vector<std::pair<std::string, double>> ck(ncol);
  std::vector<bool> unit_col(ncol, false);
  std::vector<std::vector<std::vector<Found>>> found(t.rows.size());
  for (size_t c = 0; c < ncol; ++c) ck[c] = header_kind(t.head[c]);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    found[r].resize(t.rows[r].size());
    for (size_t c = 0; c < t.rows[r].size() && c < ncol; ++c) {
      scan_numbers(t.rows[r][c], code_spans(t.rows[r][c]), found[r][c], true);
      if (!found[r][c].empty()) unit_col[c] = true;
    }
  }
  for (size_t r = 0; r < t.rows.size() && out.size() <= 2000; ++r) {
    const auto& row = t.rows[r];
    double dummy;
    auto rk = row.empty() || plain_number(row[0], dummy) ? std::pair<std::string, double>{"", 1}
                                                         : header_kind(row[0]);
    std::string label;
    for (size_t c = 0; c < row.size() && c < ncol; ++c) {
      if (!ck[c].first.empty() || unit_col[c] || (c > 0 && !rk.first.empty()) || row[c].empty())
        continue;
      if (!label.empty()) label += ", ";
      label +=
          plain_number(row[c], dummy) && !t.head[c].empty() ? t.head[c] + "=" + row[c] : row[c];
    }
    for (size_t c = 0; c < row.size() && c < ncol; ++c) {
      std::string sentence =
          fmt::format("{}{}{}: {}", label, label.empty() ? "" : "; ", t.head[c], row[c]);
      if (c == 0 && ck[c].first.empty() && !unit_col[c]) continue;
      for (const Found& f : found[r][c])
        out.push_back({std::string(trim(sv(row[c]).substr(f.b, f.e - f.b))), f.kind, f.v, sentence,
                       std::string(source)});
      double v;
      auto kind = !ck[c].first.empty() ? ck[c] : rk;
      if (found[r][c].empty() && !kind.first.empty() && plain_number(row[c], v))
        out.push_back({row[c], kind.first, v * kind.second, sentence, std::string(source)});
    }
  }
}

std::vector<NumberFact> extract_numbers_impl(std::string_view text, std::string_view source) {
  std::vector<NumberFact> out;
  try {
    const auto docp = cached_doc(text);
    const Doc& doc = *docp;
    for (const Sent& st : doc.sents) {
      if (st.table) continue;
      sv s = st.text;
      const std::vector<Span>& mask = st.mask;
      std::vector<Found> found;
      scan_numbers(s, mask, found);
      for (const Found& f : found)
        out.push_back({std::string(trim(s.substr(f.b, f.e - f.b))), f.kind, f.v, clip(s, f.b, f.e),
                       std::string(source)});
      if (out.size() > 2000) break;
    }
    for (const Table& t : doc.tables) {
      if (out.size() > 2000) break;
      table_numbers(t, source, out);
    }
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

}  // namespace

bool perf_context(sv sentence) {
  static const RE2 re(
      "(?i)speed|fast|slow|throughput|latency|ttft|tpot|itl|e2e|memory|mem\\b|qps|tok/s|tokens/"
      "s|perf|time|overhead|"
      "bandwidth|utiliz|occupancy|launch|measur|bench|提升|提速|加速|吞吐|延迟|显存|内存|性能|耗时|"
      "降低|减少");
  return RE2::PartialMatch(sentence, re);
}

}  // namespace text_detail

std::vector<NumberFact> extract_numbers(std::string_view text, std::string_view source) {
  return text_detail::extract_numbers_impl(text, source);
}

}  // namespace mergelens
