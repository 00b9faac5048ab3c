// The cautions on the numbers a PR's text claims (declared in text_facts.h):
// a wide spread, figures with no benchmark file changed, a single point with
// no conditions stated. The numbers themselves are read in text_numbers.cc.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/text/text_doc.h"
#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/analysis/text/text_numbers.h"

namespace mergelens {
namespace text_detail {
namespace {

bool has_condition(sv sentence) {
  static const RE2 re(
      "(?i)\\b(?:bs|batch|batch[ _-]?size|seq(?:uence)?[ _-]?len(?:gth)?|isl|osl|input[ "
      "_-]?len|output[ _-]?len|"
      "ctx|context|concurrency|tp\\d*|dp\\d*|ep\\d*|pp\\d*|[a-z]{1,2}\\d{3}[a-z]?|gb\\d{3}|mi\\d{3}"
      "x?|rtx|sm\\d{2,3}|"
      "blackwell|hopper|ampere|gpus?|\\d+(?:\\.\\d+)?[bm]|\\d+k|tokens|llama|qwen|deepseek|glm|"
      "mixtral|mistral|gemma|"
      "kimi|gpt)\\b|批|序列长度|并发|显卡");
  return RE2::PartialMatch(sentence, re);
}
bool is_baseline(const NumberFact& f) {
  static const RE2 re(
      "(?i)baseline|\\bbase\\b|\\bmain\\b|before|original|reference|\\bref\\b|基线|原");
  return f.value > 0.999999 && f.value < 1.000001 && RE2::PartialMatch(f.sentence, re);
}

// Whether a sentence says something improved.
bool claims_gain(sv sentence) {
  static const RE2 re(
      "(?i)faster|speed|improv|reduc|lower|less\\b|fewer|sav(?:e|es|ed|ing)\\b|boost|gain|higher|"
      "increas|decreas|\\bcut\\b|shrink|提升|提高|加速|提速|降低|减少|节省|缩短");
  return RE2::PartialMatch(sentence, re);
}

// Hardware a measurement names (a GPU, NPU or CPU model; "CPU", "GPU").
bool names_hardware(sv sentence) {
  static const RE2 re(
      "(?i)\\b(?:[ahlb]\\d{2,3}[a-z]?|gb\\d{3}|mi\\d{3}x?|rtx\\s*\\d{4}\\w*|xeon|epyc|"
      "core\\s+i[3579]\\S*|ryzen|ascend|atlas|910\\w*|950\\w*|cpu|gpu|npu|tpu)\\b");
  return RE2::PartialMatch(sentence, re);
}

std::vector<NumberCaution> number_cautions_impl(const std::vector<NumberFact>& numbers,
                                                bool benchmark_changed, bool conditions_stated) {
  std::vector<NumberCaution> out;
  try {
    std::vector<const NumberFact*> speed, up, down, perf;
    for (const NumberFact& f : numbers) {
      bool pct = f.kind == "percent" && perf_context(f.sentence);
      if (f.kind == "speedup" && f.value > 0 && !is_baseline(f)) speed.push_back(&f);
      if (pct) (f.value >= 0 ? up : down).push_back(&f);
      // A time, rate or size is a claim when its sentence says what got
      // better; "+204 MB/iter → OOM" and "on 44 GB GPUs" describe the setting.
      if (pct || (f.kind == "speedup" && !is_baseline(f)) ||
          ((f.kind == "latency" || f.kind == "throughput" || f.kind == "memory") &&
           claims_gain(f.sentence)))
        perf.push_back(&f);
    }
    auto by_abs = [](const NumberFact* a, const NumberFact* b) {
      return std::abs(a->value) < std::abs(b->value);
    };
    auto spread = [&](const std::vector<const NumberFact*>& v, bool ratio_only) {
      if (v.size() < 2) return;
      auto [mn, mx] = std::minmax_element(v.begin(), v.end(), by_abs);
      double lo = std::abs((*mn)->value), hi = std::abs((*mx)->value);
      bool wide = ratio_only ? lo > 0 && hi / lo >= 1.3 : hi >= 2.5 * lo && hi - lo >= 10;
      if (!wide) return;
      out.push_back({"spread", (*mx)->text == (*mn)->text
                                   ? (*mx)->text
                                   : fmt::format("{} vs {}", (*mx)->text, (*mn)->text)});
    };
    spread(speed, true);
    spread(up, false);
    spread(down, false);
    if (!perf.empty() && !benchmark_changed) {
      std::vector<std::string> shown;
      for (const NumberFact* f : perf)
        if (shown.size() < 3 && std::find(shown.begin(), shown.end(), f->text) == shown.end())
          shown.push_back(f->text);
      out.push_back({"no_benchmark",
                     fmt::format("figures from the PR text ({}) with no benchmark file changed",
                                 fmt::join(shown, ", "))});
    }
    auto single = [&](const std::vector<const NumberFact*>& v) {
      if (v.empty()) return false;
      for (const NumberFact* f : v)
        if (std::abs(f->value - v[0]->value) > 1e-9) return false;
      if (conditions_stated || std::any_of(v.begin(), v.end(), [](const NumberFact* f) {
            return has_condition(f->sentence);
          }))
        return true;
      out.push_back(
          {"single_point",
           fmt::format("{} with no batch size, sequence length or hardware stated", v[0]->text)});
      return true;
    };
    if (speed.empty()) {
      std::vector<const NumberFact*> pcts = up;
      pcts.insert(pcts.end(), down.begin(), down.end());
      single(pcts);
    } else {
      single(speed);
    }
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

}  // namespace
}  // namespace text_detail

std::vector<NumberCaution> number_cautions(const std::vector<NumberFact>& numbers,
                                           bool benchmark_changed, std::string_view text) {
  bool stated = false;
  if (!text.empty()) {
    try {
      const auto docp = text_detail::cached_doc(text);
      for (const auto& st : docp->sents)
        if (text_detail::has_condition(st.text) || text_detail::names_hardware(st.text)) {
          stated = true;
          break;
        }
    } catch (const std::exception&) {
    }
  }
  return text_detail::number_cautions_impl(numbers, benchmark_changed, stated);
}

}  // namespace mergelens
