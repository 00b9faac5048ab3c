#include "mergelens/util/time.h"

#include <cctype>
#include <charconv>

namespace mergelens {

// Howard Hinnant's civil-date algorithm (public domain description).
std::int64_t days_from_civil(int year, unsigned month, unsigned day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

namespace {

struct Civil {
  int year;
  unsigned month, day;
};

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int>(yoe + era * 400 + (m <= 2)), m, d};
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

bool read_int(std::string_view s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size()) return false;
  for (size_t i = pos; i < pos + len; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return true;
}

}  // namespace

std::string format_utc(UnixSeconds t) {
  const std::int64_t days = floor_div(t, 86400);
  const std::int64_t secs = t - days * 86400;
  const Civil c = civil_from_days(days);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", c.year, c.month, c.day, secs / 3600,
                     secs / 60 % 60, secs % 60);
}

std::string format_day(UnixSeconds t, int offset_minutes) {
  const Civil c = civil_from_days(floor_div(t + offset_minutes * 60LL, 86400));
  return fmt::format("{:04}-{:02}-{:02}", c.year, c.month, c.day);
}

Result<CivilDate> parse_date(std::string_view text) {
  auto bad = [&] {
    return fail(ErrorKind::kInvalidInput,
                "'{}' is not a date (expected YYYY-MM-DD, a year 0001-9999 and a day of that "
                "month)",
                text);
  };
  CivilDate c;
  int y, m, d;
  if (text.size() != 10 || !read_int(text, 0, 4, y) || text[4] != '-' || !read_int(text, 5, 2, m) ||
      text[7] != '-' || !read_int(text, 8, 2, d))
    return bad();
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1] + (m == 2 && leap ? 1 : 0))
    return bad();
  c.year = y;
  c.month = static_cast<unsigned>(m);
  c.day = static_cast<unsigned>(d);
  return c;
}

Result<UnixSeconds> parse_instant(std::string_view text) {
  auto bad = [&] {
    return fail(ErrorKind::kInvalidInput,
                "'{}' is not a date (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, a year "
                "0001-9999 and a day of that month)",
                text);
  };
  if (text.size() < 10) return bad();
  auto date = parse_date(text.substr(0, 10));
  if (!date) return bad();
  int h = 0, mi = 0, s = 0;
  size_t pos = 10;
  int offset = 0;
  if (pos < text.size()) {
    if (text[pos] != 'T' && text[pos] != ' ') return bad();
    if (!read_int(text, pos + 1, 2, h) || text.size() < pos + 6 || text[pos + 3] != ':' ||
        !read_int(text, pos + 4, 2, mi))
      return bad();
    pos += 6;
    if (pos < text.size() && text[pos] == ':') {
      if (!read_int(text, pos + 1, 2, s)) return bad();
      pos += 3;
    }
    if (pos < text.size()) {
      if (text[pos] == 'Z' && pos + 1 == text.size()) {
        pos += 1;
      } else if ((text[pos] == '+' || text[pos] == '-') && text.size() == pos + 6 &&
                 text[pos + 3] == ':') {
        int oh, om;
        if (!read_int(text, pos + 1, 2, oh) || !read_int(text, pos + 4, 2, om)) return bad();
        if (om > 59 || oh * 60 + om > 14 * 60) return bad();
        offset = (oh * 60 + om) * (text[pos] == '-' ? -1 : 1);
        pos = text.size();
      } else {
        return bad();
      }
    }
    if (h > 23 || mi > 59 || s > 60) return bad();
  }
  return days_from_civil(date->year, date->month, date->day) * 86400 + h * 3600 + mi * 60 + s -
         offset * 60;
}

Result<void> check_range(std::optional<UnixSeconds> since, std::optional<UnixSeconds> until,
                         std::string_view since_label, std::string_view until_label) {
  if (since && until && *until <= *since)
    return fail(ErrorKind::kInvalidInput,
                "{} is not after {}: the range is {} (swap them, or leave one out)", until_label,
                since_label, *until < *since ? "reversed" : "empty");
  return {};
}

namespace {

constexpr std::int64_t kWeek = 7 * 86400;

// Monday 00:00 UTC of ISO week 1 of `year` (the week holding 4 January).
UnixSeconds week_one(int year) {
  const std::int64_t jan4 = days_from_civil(year, 1, 4);
  const std::int64_t weekday = floor_div(jan4 + 3, 7) * -7 + jan4 + 3;  // 0 = Monday
  return (jan4 - weekday) * 86400;
}

}  // namespace

Result<UnixSeconds> parse_iso_week(std::string_view w) {
  auto bad = [&] {
    return fail(ErrorKind::kInvalidInput,
                "\"{}\" is not an ISO week (YYYY-Www of a year 0001-9999, e.g. 2026-W48)", w);
  };
  int year, week;
  if (w.size() != 8 || !read_int(w, 0, 4, year) || w[4] != '-' || (w[5] != 'W' && w[5] != 'w') ||
      !read_int(w, 6, 2, week))
    return bad();
  if (year < 1 || week < 1) return bad();
  const UnixSeconds start = week_one(year) + (week - 1) * kWeek;
  if (start >= week_one(year + 1)) return bad();
  return start;
}

std::string format_iso_week(UnixSeconds t) {
  int y = civil_from_days(floor_div(t, 86400)).year;
  if (t >= week_one(y + 1))
    ++y;
  else if (t < week_one(y))
    --y;
  return fmt::format("{:04}-W{:02}", y, (t - week_one(y)) / kWeek + 1);
}

}  // namespace mergelens
