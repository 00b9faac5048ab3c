// The range of instants mergelens stores for a commit, and the clamp into it.
#pragma once

#include "mergelens/util/time.h"

namespace mergelens {

// The instants mergelens stores for a commit: 0001-01-02T00:00:00Z to
// 9999-12-30T23:59:59Z, so that the local day of each, in any time zone, is
// a date of four-digit year ("YYYY-MM-DD": pages, digests, exports).
inline constexpr UnixSeconds kEarliestInstant = -62135510400;
inline constexpr UnixSeconds kLatestInstant = 253402214399;

// `t` moved into [kEarliestInstant, kLatestInstant]: the date of a commit
// that git holds with a year beyond 9999 or before 1 (a hostile or broken
// commit) is stored as the nearest bound. Dates inside the range, those
// before 1970 included, are kept as they are. Never fails.
constexpr UnixSeconds clamp_instant(UnixSeconds t) {
  return t < kEarliestInstant ? kEarliestInstant : t > kLatestInstant ? kLatestInstant : t;
}

}  // namespace mergelens
