// UTC instants as seconds since the Unix epoch, and their text forms.
#pragma once

#include <cstdint>
#include <optional>
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

// A calendar date (proleptic Gregorian).
struct CivilDate {
  int year = 1970;
  unsigned month = 1, day = 1;
};

// The one date parser of every command and surface: "YYYY-MM-DD" of a year
// 0001 to 9999 and a day that exists ("2026-02-30" and "0000-01-01" do
// not). kInvalidInput naming `text` otherwise.
Result<CivilDate> parse_date(std::string_view text);

// Parses "YYYY-MM-DD" (start of that UTC day), "YYYY-MM-DDTHH:MM[:SS](Z|±HH:MM)"
// or "YYYY-MM-DD HH:MM[:SS]" (UTC); the date as parse_date reads it, hours
// 00-23, minutes 00-59, seconds 00-60, offsets up to ±14:00. On failure
// returns kInvalidInput naming `text`.
Result<UnixSeconds> parse_instant(std::string_view text);

// A range [since, until) as options give it: kInvalidInput when both ends
// are given and `until` is not after `since` (a reversed or empty range is a
// mistake, not an empty answer), naming both labels ("--since 2026-09-10").
Result<void> check_range(std::optional<UnixSeconds> since, std::optional<UnixSeconds> until,
                         std::string_view since_label, std::string_view until_label);

// "2026-W48" (or "2026-w48") → Monday 00:00 UTC of that ISO week, for ISO
// years 0001 to 9999; week 53 only in years that have one. kInvalidInput
// naming `week` otherwise.
Result<UnixSeconds> parse_iso_week(std::string_view week);
// The ISO week holding `t` (UTC): "2026-W48".
std::string format_iso_week(UnixSeconds t);

}  // namespace mergelens
