#include "mergelens/web/tz.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "mergelens/util/time_range.h"

namespace mergelens::web {

namespace {

// glibc's zone is process-wide: every TZ switch happens under this mutex.
std::mutex g_tz_mutex;

int system_offset(const std::string& tz, UnixSeconds t) {
  std::lock_guard lock(g_tz_mutex);
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", tz.c_str(), 1);
  tzset();
  std::tm tm{};
  const std::time_t tt = static_cast<std::time_t>(t);
  localtime_r(&tt, &tm);
  const int off = static_cast<int>(tm.tm_gmtoff);
  if (old)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
  return off;
}

}  // namespace

bool parse_date(std::string_view s, int& y, unsigned& m, unsigned& d) {
  auto c = mergelens::parse_date(s);  // util/time.h: the one date parser
  if (!c) return false;
  y = c->year;
  m = c->month;
  d = c->day;
  return true;
}

Result<TimeZone> TimeZone::named(std::string_view name) {
  TimeZone tz;
  tz.state_ = std::make_shared<State>();
  tz.state_->name = std::string(name);
  if (name.empty() || name == "UTC" || name == "Etc/UTC" || name == "Z") {
    tz.state_->name = "UTC";
    tz.state_->utc = true;
    return tz;
  }
  const bool ok_chars = name.find("..") == std::string_view::npos && name.front() != '/' &&
                        name.find_first_not_of(
                            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                            "0123456789/_+-") == std::string_view::npos;
  std::error_code ec;
  if (!ok_chars ||
      !std::filesystem::is_regular_file("/usr/share/zoneinfo/" + std::string(name), ec))
    return fail(ErrorKind::kInvalidInput,
                "unknown time zone \"{}\" (use a tz database name such as Asia/Shanghai, or UTC)",
                std::string(name));
  return tz;
}

int TimeZone::offset(UnixSeconds t) const {
  if (state_->utc) return 0;
  const std::int64_t hour = t >= 0 ? t / 3600 : -((-t + 3599) / 3600);
  std::lock_guard lock(state_->mu);
  auto it = state_->hour_offsets.find(hour);
  if (it != state_->hour_offsets.end()) return it->second;
  // Zone transitions fall on whole quarter hours; the offset at the hour's
  // first second stands for the hour (a transition inside it is rare enough).
  const int off = system_offset(state_->name, hour * 3600);
  if (state_->hour_offsets.size() > 200000) state_->hour_offsets.clear();
  state_->hour_offsets.emplace(hour, off);
  return off;
}

std::string TimeZone::day(UnixSeconds t) const {
  t = clamp_instant(t);  // a date stored before ingest clamped it still has a page
  return format_day(t + offset(t));
}

std::string TimeZone::minute(UnixSeconds t) const {
  t = clamp_instant(t);
  const std::string s = format_utc(t + offset(t));  // "YYYY-MM-DDTHH:MM:SSZ"
  return s.substr(0, 10) + " " + s.substr(11, 5);
}

Result<std::pair<UnixSeconds, UnixSeconds>> TimeZone::day_bounds(std::string_view date) const {
  int y = 0;
  unsigned m = 0, d = 0;
  if (!parse_date(date, y, m, d))
    return fail(ErrorKind::kInvalidInput, "\"{}\" is not a date (YYYY-MM-DD)", std::string(date));
  const UnixSeconds midnight_utc = days_from_civil(y, m, d) * 86400;
  // Local midnight = UTC midnight minus the offset in force then; one
  // correction step handles an offset that differs across the boundary.
  auto start_of = [&](UnixSeconds utc_midnight) {
    UnixSeconds t = utc_midnight - offset(utc_midnight);
    t = utc_midnight - offset(t);
    return t;
  };
  return std::pair{start_of(midnight_utc), start_of(midnight_utc + 86400)};
}

}  // namespace mergelens::web
