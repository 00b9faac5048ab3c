// The elements of an offline guide, one function each (private to guide/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/model/change.h"

namespace mergelens::guide_detail {

struct Ctx {
  const Change& change;
  const Facts& facts;
  const phrases::Phrases& p;
  bool zh() const { return p.lang == "zh"; }
  const char* tr(const char* zh_text, const char* en_text) const {
    return zh() ? zh_text : en_text;
  }
};

// `text` in backticks, clipped to `max` characters (UTF-8 safe), with inner
// backticks replaced.
std::string code(std::string_view text, size_t max = 60);
// The last path component, in backticks.
std::string file(std::string_view path);
// "第 3–9 行" / "lines 3–9" ("第 3 行" / "line 3" for one line).
std::string lines_label(const Ctx& c, std::int32_t start, std::int32_t end);
// The title without "[Tag]" or "feat(x):" prefixes and the "(#N)" suffix.
std::string clean_title(std::string_view title);

std::string headline(const Ctx& c);
std::string summary(const Ctx& c);
std::string verdict_text(const Ctx& c);
std::string lesson(const Ctx& c);
// Changed lines in code files that are not clean-up.
int code_lines(const Ctx& c);
std::vector<GuideFocus> focus_points(const Ctx& c, size_t max);
std::vector<std::string> design_decisions(const Ctx& c);
std::vector<std::string> questions(const Ctx& c, const std::vector<GuideFocus>& focus);
std::vector<std::string> number_cautions(const Ctx& c);
std::vector<std::string> body_vs_code(const Ctx& c);
std::vector<std::string> gaps(const Ctx& c);
std::vector<GuideAdvice> advice(const Ctx& c, const Guide& g);
std::string audience(const Ctx& c);
std::vector<GuideReference> references(const Ctx& c);

}  // namespace mergelens::guide_detail
