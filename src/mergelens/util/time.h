// UTC instants as seconds since the Unix epoch, and their text forms.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens {

using UnixSeconds = std::int64_t;

// Days since 1970-01-01 for a proleptic Gregorian date. No validation.
std::int64_t days_from_civil(int year, unsigned month, unsigned day);

// "2026-09-01T10:15:00Z" for an instant.
std::string format_utc(UnixSeconds t);
// "2026-09-01" (UTC day of an instant shifted by offset_minutes).
std::string format_day(UnixSeconds t, int offset_minutes = 0);

// Parses "YYYY-MM-DD" (start of that UTC day), "YYYY-MM-DDTHH:MM[:SS](Z|±HH:MM)"
// or "YYYY-MM-DD HH:MM[:SS]" (UTC). On failure returns kInvalidInput naming `text`.
Result<UnixSeconds> parse_instant(std::string_view text);

}  // namespace mergelens
