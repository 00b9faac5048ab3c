// Charts as view models for inline SVG (templates tag.mustache, tags.mustache):
// axes with ticks and labels, a legend, and each value on hover (an SVG
// <title> per bar and point). Built from numbers and dates only, so no text
// from the store reaches an SVG attribute; colours come from CSS classes
// (style.css), so the charts follow the page's light or dark scheme. No
// script, no inline style.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/store/store.h"
#include "mergelens/web/i18n.h"

namespace mergelens::web {

// The aggregation chart: a bar per UTC week (weeks without changes between
// the first and the last are drawn as empty weeks) for the count, on the left
// axis, and two lines for the mean importance and insight (0-10) on the right
// axis. {"has": false} when `weeks` is empty.
nlohmann::json weekly_chart(Lang lang, const std::vector<WeekStat>& weeks);

// A tag row's sparkline: one bar per week of `weekly` (oldest first, the last
// being the week starting `last_week`), a baseline and the scale (the
// highest weekly count) as a label.
nlohmann::json sparkline(Lang lang, const std::vector<std::int64_t>& weekly, UnixSeconds last_week);

// The smallest of 1, 2, 5, 10, 20, 50, ... that is >= n (n >= 1): the top of
// a count axis.
std::int64_t nice_ceiling(std::int64_t n);

}  // namespace mergelens::web
