// Chart view models (charts.h). Every coordinate is formatted here; the
// templates only place them.
#include "mergelens/web/charts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mergelens/util/strings.h"

#include "mergelens/util/time.h"

namespace mergelens::web {

namespace {

constexpr double kWeek = 7 * 86400;

// The aggregation chart's frame.
constexpr double kW = 640, kH = 240, kLeft = 44, kRight = 44, kTop = 14, kBottom = 40;
constexpr double kPlotW = kW - kLeft - kRight, kPlotH = kH - kTop - kBottom;

// The sparkline's frame: bars on the left, the scale label on the right.
constexpr double kSparkW = 140, kSparkH = 28, kSparkBars = 110;

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

// Integer ticks from 0 to `top` (a nice_ceiling value).
std::vector<std::int64_t> count_ticks(std::int64_t top) {
  std::int64_t step = 1;
  if (top > 2) {
    std::int64_t p = 1;
    while (p * 10 <= top) p *= 10;
    const std::int64_t lead = top / p;  // 1, 2 or 5
    step = lead == 5 ? p : lead == 2 ? p / 2 : p / 5;
    if (step < 1) step = 1;
  }
  std::vector<std::int64_t> out;
  for (std::int64_t v = 0; v <= top; v += step) out.push_back(v);
  return out;
}

std::string week_hover(Lang lang, UnixSeconds week, std::int64_t count) {
  return lang == Lang::kEn ? fmt::format("Week of {}: {}", format_day(week), plural(count, "PR"))
                           : fmt::format("{} 这一周：{} 个 PR", format_day(week), count);
}

}  // namespace

std::int64_t nice_ceiling(std::int64_t n) {
  std::int64_t p = 1;
  for (;;) {
    for (std::int64_t m : {1, 2, 5})
      if (m * p >= n) return m * p;
    p *= 10;
  }
}

nlohmann::json weekly_chart(Lang lang, const std::vector<WeekStat>& weeks_in) {
  nlohmann::json out = {{"has", !weeks_in.empty()}};
  if (weeks_in.empty()) return out;
  // Every week from the first to the last, empty ones included.
  std::vector<WeekStat> weeks;
  for (const auto& w : weeks_in) {
    while (!weeks.empty() && weeks.back().week + static_cast<UnixSeconds>(kWeek) < w.week)
      weeks.push_back(WeekStat{weeks.back().week + static_cast<UnixSeconds>(kWeek), 0, 0, 0});
    weeks.push_back(w);
  }
  std::int64_t max_count = 1;
  for (const auto& w : weeks) max_count = std::max(max_count, w.count);
  const std::int64_t top = nice_ceiling(max_count);
  const double bw = kPlotW / static_cast<double>(weeks.size());
  const double base = kTop + kPlotH;
  auto y_count = [&](double v) { return base - kPlotH * v / static_cast<double>(top); };
  auto y_score = [&](double v) { return base - kPlotH * v / 10.0; };

  nlohmann::json bars = nlohmann::json::array(), imp = nlohmann::json::array(),
                 ins = nlohmann::json::array();
  std::string imp_points, ins_points;
  for (size_t i = 0; i < weeks.size(); ++i) {
    const auto& w = weeks[i];
    const double x = kLeft + static_cast<double>(i) * bw;
    const double cx = x + bw / 2;
    std::string hover = week_hover(lang, w.week, w.count);
    if (w.count > 0)
      hover += lang == Lang::kEn ? fmt::format("; mean importance {:.1f}, mean insight {:.1f}",
                                               w.importance, w.insight)
                                 : fmt::format("；平均重要度 {:.1f}，平均洞察价值 {:.1f}",
                                               w.importance, w.insight);
    const double h = base - y_count(static_cast<double>(w.count));
    bars.push_back({{"x", num(x + (bw > 3 ? 0.5 : 0))},
                    {"y", num(base - h)},
                    {"w", num(std::max(1.0, bw > 3 ? bw - 1 : bw))},
                    {"h", num(h)},
                    {"hover", hover}});
    if (w.count == 0) continue;
    const double yi = y_score(w.importance), ys = y_score(w.insight);
    imp_points += (imp_points.empty() ? "" : " ") + num(cx) + "," + num(yi);
    ins_points += (ins_points.empty() ? "" : " ") + num(cx) + "," + num(ys);
    imp.push_back({{"x", num(cx)},
                   {"y", num(yi)},
                   {"hover", fmt::format("{} {}: {:.1f}", format_day(w.week),
                                         lang == Lang::kEn ? "mean importance" : "平均重要度",
                                         w.importance)}});
    ins.push_back(
        {{"x", num(cx)},
         {"y", num(ys)},
         {"hover", fmt::format("{} {}: {:.1f}", format_day(w.week),
                               lang == Lang::kEn ? "mean insight" : "平均洞察价值", w.insight)}});
  }
  nlohmann::json left = nlohmann::json::array(), right = nlohmann::json::array();
  for (const std::int64_t t : count_ticks(top)) {
    const double y = y_count(static_cast<double>(t));
    left.push_back({{"y", num(y)}, {"ty", num(y + 4)}, {"label", std::to_string(t)}});
  }
  for (int s = 0; s <= 10; s += 2) {
    const double y = y_score(s);
    right.push_back({{"y", num(y)}, {"ty", num(y + 4)}, {"label", std::to_string(s)}});
  }
  // Up to six labelled weeks along the bottom; months when the span is long.
  const bool long_span = weeks.size() > 26;
  nlohmann::json xticks = nlohmann::json::array();
  const size_t n = weeks.size(), labels = std::min<size_t>(6, n);
  size_t last = SIZE_MAX;
  for (size_t k = 0; k < labels; ++k) {
    const size_t i = labels == 1 ? 0 : (k * (n - 1) + (labels - 1) / 2) / (labels - 1);
    if (i == last) continue;
    last = i;
    const std::string day = format_day(weeks[i].week);
    const double x = kLeft + (static_cast<double>(i) + 0.5) * bw;
    xticks.push_back({{"x", num(x)},
                      {"label", long_span ? day.substr(0, 7) : day.substr(5)},
                      {"anchor", k == 0            ? "start"
                                 : k + 1 == labels ? "end"
                                                   : "middle"}});
  }
  const bool en = lang == Lang::kEn;
  out = {
      {"has", true},
      {"width", num(kW)},
      {"height", num(kH)},
      {"viewbox", fmt::format("0 0 {} {}", kW, kH)},
      {"left", num(kLeft)},
      {"right", num(kLeft + kPlotW)},
      {"top", num(kTop)},
      {"base", num(base)},
      {"bars", bars},
      {"importance", imp_points},
      {"insight", ins_points},
      {"importance_points", imp},
      {"insight_points", ins},
      {"left_ticks", left},
      {"right_ticks", right},
      {"x_ticks", xticks},
      {"tick_x_left", num(kLeft - 4)},
      {"tick_x_right", num(kLeft + kPlotW + 4)},
      {"x_label_y", num(base + 14)},
      {"axis_title_y", num(kH - 6)},
      {"mid_x", num(kLeft + kPlotW / 2)},
      {"count_axis", en ? "PRs per week" : "每周 PR 数"},
      {"score_axis", en ? "mean score (0–10)" : "平均分（0–10）"},
      {"week_axis", en ? fmt::format("week (UTC, from Monday), {} – {}",
                                     format_day(weeks.front().week), format_day(weeks.back().week))
                       : fmt::format("周（UTC，周一起），{} 至 {}", format_day(weeks.front().week),
                                     format_day(weeks.back().week))},
      {"first", format_day(weeks.front().week)},
      {"last", format_day(weeks.back().week)}};
  return out;
}

nlohmann::json sparkline(Lang lang, const std::vector<std::int64_t>& weekly,
                         UnixSeconds last_week) {
  std::int64_t max = 0;
  for (const auto v : weekly) max = std::max(max, v);
  const double n = static_cast<double>(std::max<size_t>(1, weekly.size()));
  const double bw = kSparkBars / n, base = kSparkH - 3, top = 3;
  nlohmann::json bars = nlohmann::json::array();
  for (size_t i = 0; i < weekly.size(); ++i) {
    const UnixSeconds week =
        last_week - static_cast<UnixSeconds>((weekly.size() - 1 - i) * static_cast<size_t>(kWeek));
    const double h =
        max > 0 ? (base - top) * static_cast<double>(weekly[i]) / static_cast<double>(max) : 0;
    bars.push_back({{"x", num(static_cast<double>(i) * bw)},
                    {"y", num(base - std::max(h, weekly[i] > 0 ? 1.0 : 0.0))},
                    {"w", num(std::max(1.0, bw - 0.8))},
                    {"h", num(std::max(h, weekly[i] > 0 ? 1.0 : 0.0))},
                    {"hover", week_hover(lang, week, weekly[i])}});
  }
  return {{"bars", bars},
          {"width", num(kSparkW)},
          {"height", num(kSparkH)},
          {"viewbox", fmt::format("0 0 {} {}", kSparkW, kSparkH)},
          {"base", num(base)},
          {"bars_end", num(kSparkBars)},
          {"label_x", num(kSparkBars + 4)},
          {"label_y", num(top + 8)},
          {"max", max},
          {"max_hover", lang == Lang::kEn
                            ? fmt::format("scale: at most {} in a week", plural(max, "PR"))
                            : fmt::format("刻度：单周最多 {} 个 PR", max)}};
}

}  // namespace mergelens::web
