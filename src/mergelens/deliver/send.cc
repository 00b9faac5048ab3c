// Sending one part (send.h): signing, the services' answers, retries.
#include "mergelens/deliver/send.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mergelens/deliver/render.h"
#include "mergelens/deliver/sign.h"

namespace mergelens::deliver {

namespace {

using json = nlohmann::json;

constexpr long kFirstBackoffMs = 1000;

// What an answer means.
struct Answer {
  enum Kind { kOk, kRetry, kFail } kind = kFail;
  std::string error;
  long wait_ms = -1;  // from Retry-After; -1: backoff
};

std::string short_text(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += c < 0x20 ? ' ' : static_cast<char>(c);
  return cut_utf8(out, 200);
}

std::string percent(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// Feishu, DingTalk and WeCom: HTTP 200 with a code in the JSON body.
Answer coded(Kind kind, const http::Response& r) {
  const json j = json::parse(r.body, nullptr, false);
  if (!j.is_object())
    return {Answer::kFail, "HTTP 200 with an answer that is not JSON: " + short_text(r.body)};
  const bool feishu = kind == Kind::kFeishu || kind == Kind::kLark;
  const char* code_key = feishu ? "code" : "errcode";
  const char* msg_key = feishu ? "msg" : "errmsg";
  long long code = -999999;
  if (j.contains(code_key) && j[code_key].is_number_integer())
    code = j[code_key].get<long long>();
  else if (feishu && j.contains("StatusCode") && j["StatusCode"].is_number_integer())
    code = j["StatusCode"].get<long long>();
  const std::string msg =
      j.contains(msg_key) && j[msg_key].is_string() ? j[msg_key].get<std::string>() : "";
  if (code == 0) return {Answer::kOk, ""};
  const std::string error = fmt::format("{} {} {}{}", to_string(kind), code_key, code,
                                        msg.empty() ? "" : ": " + short_text(msg));
  const bool rate = feishu                    ? code == 11232
                    : kind == Kind::kDingTalk ? (code == 410100 || code == 130101)
                                              : (code == 45009 || code == -1);
  return {rate ? Answer::kRetry : Answer::kFail, error};
}

Answer classify(const Target& t, const http::Response& r, std::int64_t now_s) {
  if (r.status == 429 || r.status >= 500) {
    Answer a{Answer::kRetry, fmt::format("HTTP {}", r.status)};
    if (const std::string* ra = r.header("retry-after")) {
      const long s = http::retry_after_seconds(*ra, now_s);
      if (s >= 0) a.wait_ms = s * 1000;
    }
    if (t.kind == Kind::kSlack && !r.body.empty()) a.error += ": " + short_text(r.body);
    return a;
  }
  if (t.kind == Kind::kSlack) {
    if (r.status == 200 && r.body == "ok") return {Answer::kOk, ""};
    return {Answer::kFail, fmt::format("slack HTTP {}: {}", r.status, short_text(r.body))};
  }
  if (r.status != 200)
    return {Answer::kFail, fmt::format("{} HTTP {}", to_string(t.kind), r.status)};
  return coded(t.kind, r);
}

http::Request request_for(const Target& t, const std::string& payload, std::int64_t now_ms) {
  http::Request req;
  req.method = "POST";
  req.url = t.url;
  req.timeout_ms = t.timeout_ms;
  req.connect_timeout_ms = std::min(t.timeout_ms, 10000L);
  req.max_body_bytes = 1 << 20;
  req.headers = {{"Content-Type", "application/json; charset=utf-8"}};
  req.body = payload;
  if (!t.secret.empty() && (t.kind == Kind::kFeishu || t.kind == Kind::kLark)) {
    json j = json::parse(payload);
    const std::int64_t ts = now_ms / 1000;
    j["timestamp"] = std::to_string(ts);
    j["sign"] = feishu_sign(t.secret, ts);
    req.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (!t.secret.empty() && t.kind == Kind::kDingTalk) {
    req.url +=
        fmt::format("{}timestamp={}&sign={}", t.url.find('?') == std::string::npos ? '?' : '&',
                    now_ms, percent(dingtalk_sign(t.secret, now_ms)));
  }
  return req;
}

std::string transport_error(http::Failure f, long timeout_ms) {
  switch (f) {
    case http::Failure::kTimeout:
      return fmt::format("no answer within {} ms", timeout_ms);
    case http::Failure::kConnect:
      return "could not connect";
    case http::Failure::kTooLarge:
      return "the answer was too large";
    default:
      return "the request failed in transport";
  }
}

}  // namespace

SendResult send_part(const Target& t, const std::string& payload, const std::string& message_id,
                     Transport& transport, const AttemptHook& on_attempt) {
  SendResult out;
  long backoff = kFirstBackoffMs;
  for (int attempt = 0;; ++attempt) {
    Answer a;
    if (t.is_email()) {
      const json j = json::parse(payload, nullptr, false);
      Mail m;
      if (j.is_object()) {
        m.subject = j.value("subject", "");
        m.text = j.value("text", "");
        m.html = j.value("html", "");
      }
      m.message_id = message_id;
      m.date = transport.now_ms() / 1000;
      bool retry = false;
      auto r = transport.send_mail(t, m, &retry);
      a = r ? Answer{Answer::kOk, ""}
            : Answer{retry ? Answer::kRetry : Answer::kFail, r.error().message};
    } else {
      http::Failure failure = http::Failure::kNone;
      const std::int64_t now = transport.now_ms();
      auto r = transport.post(request_for(t, payload, now), &failure);
      if (r)
        a = classify(t, *r, now / 1000);
      else if (failure == http::Failure::kTimeout)
        // Sent, and no answer: the service may have posted it. Not sent again
        // in this run (a webhook has no way to ask); the part stays unsent, so
        // a later run sends it if nobody marked it.
        a = {Answer::kFail, transport_error(failure, t.timeout_ms) +
                                "; it may have been delivered, so it is not sent again in this "
                                "run"};
      else
        a = {failure == http::Failure::kTooLarge ? Answer::kFail : Answer::kRetry,
             transport_error(failure, t.timeout_ms)};
    }
    ++out.requests;
    if (a.kind == Answer::kOk) {
      out.sent = true;
      out.error.clear();
      on_attempt("");
      return out;
    }
    // Recorded as deliveries.last_error and printed: no URL credentials, ever.
    out.error = http::redact_userinfo(fmt::format("target \"{}\": {}", t.name, a.error));
    on_attempt(out.error);
    if (a.kind == Answer::kFail || attempt >= t.max_retries) return out;
    const long wait = a.wait_ms >= 0 ? a.wait_ms : backoff;
    transport.sleep_ms(std::min(wait, t.max_wait_ms));
    backoff = std::min(backoff * 2, t.max_wait_ms);
  }
}

}  // namespace mergelens::deliver
