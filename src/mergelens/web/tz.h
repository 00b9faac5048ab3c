// Time zones for day boundaries: the system tz database read through
// localtime_r/mktime with TZ set, behind a mutex (glibc keeps one zone per
// process), with offsets cached per hour so pages do not pay for tzset.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "mergelens/util/error.h"
#include "mergelens/util/time.h"

namespace mergelens::web {

class TimeZone {
 public:
  // "UTC" (the default) or a name of the system tz database ("Asia/Shanghai").
  // kInvalidInput when the name is malformed or unknown.
  static Result<TimeZone> named(std::string_view name);

  const std::string& name() const { return state_->name; }
  // Seconds to add to UTC to get local time at instant t.
  int offset(UnixSeconds t) const;
  // "YYYY-MM-DD" of the local day holding t (t moved into the stored range
  // first: util/time_range.h).
  std::string day(UnixSeconds t) const;
  // "YYYY-MM-DD HH:MM" in local time.
  std::string minute(UnixSeconds t) const;
  // The first instant of local day `date` ("YYYY-MM-DD"), and of the next
  // day. kInvalidInput when `date` is not a valid date.
  Result<std::pair<UnixSeconds, UnixSeconds>> day_bounds(std::string_view date) const;

 private:
  struct State {
    std::string name;
    bool utc = false;
    std::mutex mu;
    std::map<std::int64_t, int> hour_offsets;  // hour since the epoch -> offset
  };
  std::shared_ptr<State> state_;
};

// Validates "YYYY-MM-DD" (years 0001 to 9999, before 1970 included) and
// splits it; false when malformed or not a date.
bool parse_date(std::string_view date, int& y, unsigned& m, unsigned& d);

}  // namespace mergelens::web
