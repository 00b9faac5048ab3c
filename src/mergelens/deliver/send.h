// Sending one planned part to its service, with retries.
//
// Webhooks: POST the payload as JSON, signed for Feishu/Lark (timestamp and
// sign in the body) and DingTalk (timestamp and sign in the query) when the
// target has a secret. Success is each service's success answer: Feishu
// HTTP 200 with {"code":0}, DingTalk and WeCom HTTP 200 with {"errcode":0},
// Slack HTTP 200 with the body "ok" (Feishu, DingTalk and WeCom answer
// errors with HTTP 200 and a code in the body).
//
// Retried, with exponential backoff from 1 s (or the Retry-After the
// service gave, up to Target::max_wait_ms), at most Target::max_retries
// times: HTTP 429 and 5xx, a connection refused or timing out before the
// request was sent, and the services' rate-limit codes (Feishu 11232, DingTalk
// 410100 and 130101, WeCom 45009 and -1). Anything else fails at once with
// the service's code and message: a bad signature (Feishu 19021, DingTalk
// 310000), a keyword or IP rule, a malformed or oversized message. A
// request sent without an answer within the timeout is not sent again
// either: the service may have posted it, and a webhook cannot be asked
// (the part stays unsent in the store; a later run sends it).
//
// E-mail: libcurl's SMTP (transport.h), retried the same way when the
// failure may pass.
//
// Errors name the target, never its URL, token, secret or password.
#pragma once

#include <functional>
#include <string>

#include "mergelens/deliver/config.h"
#include "mergelens/deliver/transport.h"

namespace mergelens::deliver {

struct SendResult {
  bool sent = false;
  int requests = 0;   // requests made (retries included)
  std::string error;  // why it was not sent (the last attempt), empty when sent
};

// Called after every request: `error` is empty for the accepted one.
using AttemptHook = std::function<void(const std::string& error)>;

// Sends `payload` (a render_parts() value) to `target`. `message_id`
// identifies the part for e-mail (the same on every attempt).
SendResult send_part(const Target& target, const std::string& payload,
                     const std::string& message_id, Transport& transport,
                     const AttemptHook& on_attempt);

}  // namespace mergelens::deliver
