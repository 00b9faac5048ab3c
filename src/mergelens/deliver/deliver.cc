// Delivering days (deliver.h): plan once, send what is unsent, record each part.
#include "mergelens/deliver/deliver.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "mergelens/deliver/content.h"
#include "mergelens/deliver/render.h"
#include "mergelens/deliver/send.h"
#include "mergelens/util/hash.h"
#include "mergelens/web/tz.h"

namespace mergelens::deliver {

namespace {

std::string message_id(const RepoRecord& repo, const Target& t, const DeliveryPart& p) {
  std::string domain = "mergelens.invalid";
  const std::string from = bare_address(t.from);
  if (const size_t at = from.rfind('@'); at != std::string::npos && at + 1 < from.size())
    domain = from.substr(at + 1);
  return fmt::format("<mergelens.{}.{}.{}of{}.{}@{}>", p.day, t.name, p.part + 1, p.parts,
                     Hasher().add(repo.name).hex(), domain);
}

bool all_sent(const std::vector<DeliveryPart>& parts) {
  return !parts.empty() && std::all_of(parts.begin(), parts.end(),
                                       [](const DeliveryPart& p) { return p.sent_at != 0; });
}

// The local day after `day`.
std::string next_day(const web::TimeZone& tz, const std::string& day) {
  auto b = tz.day_bounds(day);
  return b ? tz.day(b->second) : std::string();
}

}  // namespace

Result<DayReport> deliver_day(Store& store, const RepoRecord& repo, const Target& t,
                              std::string_view day, Transport& transport, const DeliverOptions& o) {
  DayReport rep;
  rep.target = t.name;
  rep.day = std::string(day);
  std::vector<DeliveryPart> planned;
  if (!o.dry_run) {
    if (o.force) {
      if (auto r = store.forget_delivery(repo.id, t.name, day); !r)
        return std::unexpected(r.error());
    }
    auto existing = store.deliveries(repo.id, t.name, day);
    if (!existing) return std::unexpected(existing.error());
    planned = std::move(*existing);
  }
  if (planned.empty()) {
    auto content = build_content(store, repo, t, day);
    if (!content) return std::unexpected(content.error());
    if (content->entries.empty() && content->skipped.empty() && !t.send_empty) {
      rep.empty = true;
      return rep;
    }
    std::vector<std::string> payloads = render_parts(t, *content);
    if (o.dry_run) {
      rep.parts = static_cast<int>(payloads.size());
      rep.payloads = std::move(payloads);
      return rep;
    }
    std::vector<DeliveryPart> parts;
    const std::int64_t now = transport.now_ms() / 1000;
    for (size_t i = 0; i < payloads.size(); ++i) {
      DeliveryPart p;
      p.target = t.name;
      p.day = std::string(day);
      p.part = static_cast<int>(i);
      p.parts = static_cast<int>(payloads.size());
      p.payload = std::move(payloads[i]);
      p.planned_at = now;
      parts.push_back(std::move(p));
    }
    auto stored = store.plan_delivery(repo.id, parts);
    if (!stored) return std::unexpected(stored.error());
    planned = std::move(*stored);
  }
  rep.parts = static_cast<int>(planned.size());
  const long interval =
      t.min_interval_ms >= 0 ? t.min_interval_ms : limits_of(t.kind).min_interval_ms;
  Result<void> recorded;
  for (const auto& p : planned) {
    if (p.sent_at != 0) {
      ++rep.already;
      continue;
    }
    if (rep.requests > 0) transport.sleep_ms(interval);
    auto hook = [&](const std::string& error) {
      if (!recorded) return;
      recorded = store.record_delivery_attempt(repo.id, t.name, p.day, p.part,
                                               transport.now_ms() / 1000, error);
    };
    const SendResult s = send_part(t, p.payload, message_id(repo, t, p), transport, hook);
    rep.requests += s.requests;
    if (!recorded) return std::unexpected(recorded.error());
    if (!s.sent) {
      rep.error = s.error;
      break;
    }
    ++rep.sent_now;
  }
  return rep;
}

Result<std::vector<std::string>> due_days(Store& store, const RepoRecord& repo, const Target& t,
                                          std::int64_t now) {
  if (t.schedule == "weekly") return due_weeks(store, repo, t, now);
  auto tz = web::TimeZone::named(t.tz);
  if (!tz) return std::unexpected(tz.error());
  // Days before `cutoff` are due.
  const std::string cutoff = tz->day(now - static_cast<std::int64_t>(t.delay_minutes) * 60);
  auto cut = tz->day_bounds(cutoff);
  if (!cut) return std::unexpected(cut.error());
  std::vector<std::string> days;
  auto last = store.deliveries(repo.id, t.name, "");
  if (!last) return std::unexpected(last.error());
  std::string after;
  if (!last->empty()) {
    after = last->front().day;
    if (!all_sent(*last) && after < cutoff) days.push_back(after);
  }
  std::set<std::string> due;
  if (after.empty()) {
    auto newest = store.adjacent_merge(repo.id, cut->first, /*before=*/true);
    if (!newest) return std::unexpected(newest.error());
    if (t.send_empty)
      due.insert(tz->day(cut->first - 1));
    else if (*newest)
      due.insert(tz->day(**newest));
  } else if (t.send_empty) {
    for (std::string d = next_day(*tz, after); !d.empty() && d < cutoff; d = next_day(*tz, d))
      due.insert(d);
  } else {
    auto from = tz->day_bounds(after);
    if (!from) return std::unexpected(from.error());
    ListQuery q;
    q.since = from->second;
    q.until = cut->first;
    auto rows = store.list_changes(repo.id, q);
    if (!rows) return std::unexpected(rows.error());
    for (const auto& r : *rows)
      if (!r.open) due.insert(tz->day(r.merged_at));
  }
  std::vector<std::string> later(due.begin(), due.end());
  if (later.size() > static_cast<size_t>(t.catch_up_days))
    later.erase(later.begin(), later.end() - t.catch_up_days);
  days.insert(days.end(), later.begin(), later.end());
  return days;
}

Result<std::vector<DayReport>> deliver_due(Store& store, const RepoRecord& repo,
                                           const std::vector<Target>& targets,
                                           Transport& transport) {
  std::vector<DayReport> out;
  for (const auto& t : targets) {
    if (!t.repo.empty() && t.repo != repo.name) continue;
    auto days = due_days(store, repo, t, transport.now_ms() / 1000);
    if (!days) return std::unexpected(days.error());
    for (const auto& d : *days) {
      auto r = deliver_day(store, repo, t, d, transport);
      if (!r) {
        DayReport failed;
        failed.target = t.name;
        failed.day = d;
        failed.error = r.error().message;
        out.push_back(std::move(failed));
        break;
      }
      const bool stop = !r->error.empty();
      out.push_back(std::move(*r));
      if (stop) break;  // the next days wait until this one is through
    }
  }
  return out;
}

std::string describe(const DayReport& r) {
  std::string s = fmt::format("{} {}: ", r.target, r.day);
  if (r.empty) return s + "no merged change (or none passing the target's filter), nothing sent";
  if (!r.payloads.empty())
    return s + fmt::format("{} part{} (dry run, nothing sent)", r.parts, r.parts == 1 ? "" : "s");
  if (r.sent_now == 0 && r.already == r.parts && r.error.empty())
    return s + fmt::format("already delivered ({} part{}); --force sends it again", r.parts,
                           r.parts == 1 ? "" : "s");
  s += fmt::format("{} of {} part{} sent ({} request{})", r.sent_now + r.already, r.parts,
                   r.parts == 1 ? "" : "s", r.requests, r.requests == 1 ? "" : "s");
  if (!r.error.empty()) s += "; not sent: " + r.error + " (the next run tries again)";
  return s;
}

}  // namespace mergelens::deliver
