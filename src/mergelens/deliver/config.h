// Delivery targets: the [[deliver]] tables of mergelens.toml.
//
//   [[deliver]]
//   name = "sglang-feishu"          # what `deliver --to` names; [A-Za-z0-9._-], unique
//   kind = "feishu"                 # feishu | lark | dingtalk | wecom | slack | email
//   url_env = "FEISHU_WEBHOOK_URL"  # the variable holding the webhook URL (it carries a token)
//   secret_env = "FEISHU_SECRET"    # feishu/lark/dingtalk: the variable holding the signing secret
//   lang = "zh"                     # zh (default) or en
//   tz = "Asia/Shanghai"            # the days' time zone (default UTC)
//   site_url = "https://mergelens.example.org"  # published pages; links go to them when set
//   delay_minutes = 30              # deliver a day this long after it closes (default 30)
//   filter = { tags = ["scheduler"], min = "selective_read" }  # only these (docs/subscriptions.md)
//   send_empty = false              # a day with nothing passing sends nothing (default)
//   schedule = "daily"              # or "weekly": one message per ISO week
//
//   [[deliver]]
//   name = "team-mail"
//   kind = "email"
//   smtp_url = "smtp://smtp.example.org:587"    # STARTTLS; smtps://host:465 for TLS from the start
//   username = "digest@example.org"
//   password_env = "SMTP_PASSWORD"
//   from = "mergelens <digest@example.org>"
//   to = ["dev@example.org"]
//
// Secrets (webhook URLs, signing secrets, SMTP passwords) are read from the
// environment only, named by the *_env keys: a file holding `url`,
// `secret` or `password` is refused. They are kept in `Target` for sending
// and never written to logs, errors, pages or the store.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mergelens/report/filter.h"
#include "mergelens/util/error.h"

namespace mergelens::deliver {

enum class Kind { kFeishu, kLark, kDingTalk, kWeCom, kSlack, kEmail };
const char* to_string(Kind k);

struct Target {
  std::string name;
  Kind kind = Kind::kFeishu;
  std::string lang = "zh";
  std::string tz = "UTC";
  std::string repo;      // repository of the store; empty: the only one
  std::string site_url;  // base of the published pages, no trailing '/'; empty: link to the PRs
  int delay_minutes = 30;
  int catch_up_days = 7;  // run --watch sends at most this many missed days, newest ones
  long timeout_ms = 15000;
  int max_retries = 4;
  long min_interval_ms = -1;  // between two requests; -1: the service's own (see docs)
  long max_wait_ms = 120000;  // longest wait honoured from a Retry-After or rate-limit answer
  bool send_empty = false;    // deliver days without merged changes (or none passing `filter`) too
  // The reader's filter (`filter = { tags = [...], paths = [...], min = "selective_read" }`,
  // report/filter.h): only the entries passing it are sent, and the message
  // says how many were left out.
  report::Filter filter;
  // "daily" (each local day) or "weekly" (each ISO week, UTC, as the week
  // page: `deliver --date 2026-W48`).
  std::string schedule = "daily";

  // Webhooks.
  std::string url_env, secret_env;
  std::string url;     // secret: from url_env
  std::string secret;  // secret: from secret_env; empty when not configured

  // E-mail.
  std::string smtp_url;  // smtp://host[:port] (STARTTLS required) or smtps://host[:port]
  std::string username, password_env;
  std::string password;  // secret: from password_env
  std::string from;      // "Name <addr@host>" or "addr@host"
  std::vector<std::string> to;
  std::string ca_file;  // PEM bundle to verify the server with; empty: the system's
  // Where a reader unsubscribes, for List-Unsubscribe: an https:// address
  // that honours RFC 8058 one-click POSTs (then List-Unsubscribe-Post is
  // sent too) or a mailto: someone reads. Empty: no List-Unsubscribe at all
  // (mergelens itself keeps no subscriber list to take an address off).
  std::string unsubscribe;

  bool is_email() const { return kind == Kind::kEmail; }
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Reads every [[deliver]] table of the TOML file at `path`, resolving
// secrets through `env`. A missing file is no targets. kInvalidInput
// naming the file, line and target for: a malformed file, an unknown key
// or kind, a missing or malformed value, a secret given in the file, a
// *_env variable that is unset or empty, a webhook URL that is not
// http(s)://host/..., a duplicate name. Messages never quote a secret.
Result<std::vector<Target>> read_targets(const std::string& path, const EnvLookup& env);
// The same, with the process environment.
Result<std::vector<Target>> read_targets(const std::string& path);

// The target named `name`; kInvalidInput listing the configured names
// when there is none (exit code 2).
Result<const Target*> find_target(const std::vector<Target>& targets, std::string_view name,
                                  std::string_view path);

}  // namespace mergelens::deliver
