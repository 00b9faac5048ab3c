// Local stand-ins for the chat services a digest is delivered to (cpp-httplib,
// in this process), each checking the documented request shape and signature
// and answering with the service's own success and error bodies:
//   Feishu custom bot   POST /open-apis/bot/v2/hook/TOKEN, JSON {msg_type, card | content,
//                       timestamp, sign}; sign = base64(HMAC-SHA256(key "ts\nsecret", ""))
//   DingTalk robot      POST /robot/send?access_token=T&timestamp=MS&sign=S, JSON
//                       {msgtype: markdown, markdown: {title, text}};
//                       sign = base64(HMAC-SHA256(key secret, "ms\nsecret"))
//   WeCom group robot   POST /cgi-bin/webhook/send?key=K, {msgtype: markdown,
//                       markdown: {content <= 4096 bytes}}
//   Slack webhook       POST /services/T/B/X, {text, blocks <= 50 (header, section mrkdwn
//                       <= 3000 characters, ...)}; answers "ok"
// The signature is recomputed here with OpenSSL directly, not with the code
// under test. A script of answers decides each request's fate: accept, one
// of the service's error bodies, HTTP 429 (with Retry-After), 500, or no
// answer within the client's timeout. `accepted()` counts what a group
// member would have seen.
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "mergelens/deliver/config.h"
#include "mergelens/deliver/transport.h"

namespace mergelens::testing {

using nlohmann::json;

enum class Reply { kOk, kRateCode, kSignCode, k429, k500, kTimeout, kBadShape };

inline std::string b64_hmac(const std::string& key, const std::string& msg) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), d, &n);
  unsigned char out[128];
  const int len = EVP_EncodeBlock(out, d, static_cast<int>(n));
  return std::string(reinterpret_cast<char*>(out), static_cast<size_t>(len));
}

class FakeService {
 public:
  FakeService(deliver::Kind kind, std::string secret) : kind_(kind), secret_(std::move(secret)) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      handle(req, res);
    };
    server_.Post(R"(/open-apis/bot/v2/hook/.*)", handler);
    server_.Post("/robot/send", handler);
    server_.Post("/cgi-bin/webhook/send", handler);
    server_.Post(R"(/services/.*)", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeService() {
    server_.stop();
    thread_.join();
  }

  // The webhook URL as the service hands it out (the token is a secret).
  std::string url() const {
    const std::string base = "http://127.0.0.1:" + std::to_string(port_);
    switch (kind_) {
      case deliver::Kind::kFeishu:
      case deliver::Kind::kLark:
        return base + "/open-apis/bot/v2/hook/" + token();
      case deliver::Kind::kDingTalk:
        return base + "/robot/send?access_token=" + token();
      case deliver::Kind::kWeCom:
        return base + "/cgi-bin/webhook/send?key=" + token();
      default:
        return base + "/services/T000/B000/" + token();
    }
  }
  static std::string token() { return "tok3nSECRETpath"; }

  void script(std::vector<Reply> replies) {
    std::lock_guard lock(mu_);
    script_.assign(replies.begin(), replies.end());
  }
  int requests() const { return requests_.load(); }
  // Payloads the service accepted (what the group saw), in order.
  std::vector<json> accepted() const {
    std::lock_guard lock(mu_);
    return accepted_;
  }
  // Why a request's shape or signature was refused, if one was.
  std::vector<std::string> problems() const {
    std::lock_guard lock(mu_);
    return problems_;
  }

 private:
  bool feishu() const { return kind_ == deliver::Kind::kFeishu || kind_ == deliver::Kind::kLark; }

  // The documented shape; empty when it is right, else what is wrong.
  std::string check(const httplib::Request& req, const json& body) const {
    if (!body.is_object()) return "body is not a JSON object";
    if (req.get_header_value("Content-Type").find("application/json") != 0)
      return "Content-Type is not application/json";
    switch (kind_) {
      case deliver::Kind::kFeishu:
      case deliver::Kind::kLark: {
        if (req.body.size() > 20 * 1024) return "request body over 20 KB";
        if (body.value("msg_type", "") != "interactive") return "msg_type is not interactive";
        const auto& card = body["card"];
        if (!card.is_object() || !card["header"]["title"]["content"].is_string() ||
            card["header"]["title"]["tag"] != "plain_text" || !card["elements"].is_array())
          return "card without a plain_text header title and elements";
        for (const auto& e : card["elements"]) {
          const std::string tag = e.value("tag", "");
          if (tag == "hr") continue;
          if (tag != "markdown" || !e["content"].is_string()) return "element is not markdown/hr";
        }
        if (!secret_.empty()) {
          if (!body["timestamp"].is_string() || !body["sign"].is_string())
            return "no timestamp/sign";
          const std::string ts = body["timestamp"];
          if (body["sign"] != b64_hmac(ts + "\n" + secret_, "")) return "sign";
        }
        return "";
      }
      case deliver::Kind::kDingTalk: {
        if (req.get_param_value("access_token") != token()) return "access_token";
        if (body.value("msgtype", "") != "markdown" || !body["markdown"]["title"].is_string() ||
            !body["markdown"]["text"].is_string())
          return "not a markdown message with title and text";
        if (body["markdown"]["text"].get<std::string>().size() > 20000) return "text too long";
        if (!secret_.empty()) {
          const std::string ts = req.get_param_value("timestamp");
          if (ts.empty()) return "no timestamp";
          // httplib decodes the query; the sign arrives as base64.
          if (req.get_param_value("sign") != b64_hmac(secret_, ts + "\n" + secret_)) return "sign";
        }
        return "";
      }
      case deliver::Kind::kWeCom: {
        if (req.get_param_value("key") != token()) return "key";
        if (body.value("msgtype", "") != "markdown" || !body["markdown"]["content"].is_string())
          return "not a markdown message";
        if (body["markdown"]["content"].get<std::string>().size() > 4096) return "content>4096";
        return "";
      }
      default: {
        if (!body["text"].is_string() || !body["blocks"].is_array()) return "no text/blocks";
        if (body["blocks"].size() > 50) return "more than 50 blocks";
        for (const auto& b : body["blocks"]) {
          const std::string type = b.value("type", "");
          if (type == "header") {
            if (b["text"]["type"] != "plain_text" ||
                b["text"]["text"].get<std::string>().size() > 150 * 3)
              return "bad header";
          } else if (type == "section") {
            if (b["text"]["type"] != "mrkdwn" || b["text"]["text"].get<std::string>().size() > 3000)
              return "bad section";
          } else if (type != "divider" && type != "context") {
            return "unknown block type " + type;
          }
        }
        return "";
      }
    }
  }

  void error_body(httplib::Response& res, bool sign) const {
    std::string body;
    switch (kind_) {
      case deliver::Kind::kFeishu:
      case deliver::Kind::kLark:
        body =
            sign
                ? R"({"code":19021,"msg":"sign match fail or timestamp is not within one hour from current time","data":{}})"
                : R"({"code":11232,"msg":"frequency limited psm[lark.oapi.app_platform_runtime]","data":{}})";
        break;
      case deliver::Kind::kDingTalk:
        body =
            sign
                ? R"({"errcode":310000,"errmsg":"sign not match, more: [https://ding-doc.dingtalk.com/doc#/serverapi2/qf2nxq]"})"
                : R"({"errcode":410100,"errmsg":"send too fast, exceed 20 times per minute"})";
        break;
      case deliver::Kind::kWeCom:
        body = sign ? R"({"errcode":93000,"errmsg":"invalid webhook url"})"
                    : R"({"errcode":45009,"errmsg":"api freq out of limit"})";
        break;
      default:
        res.status = sign ? 403 : 429;
        res.set_content(sign ? "invalid_token" : "rate_limited", "text/plain");
        return;
    }
    res.status = 200;  // these services answer errors with HTTP 200
    res.set_content(body, "application/json");
  }

  void ok_body(httplib::Response& res) const {
    res.status = 200;
    if (kind_ == deliver::Kind::kSlack)
      res.set_content("ok", "text/plain");
    else if (feishu())
      res.set_content(
          R"({"code":0,"msg":"success","data":{},"StatusCode":0,"StatusMessage":"success"})",
          "application/json");
    else
      res.set_content(R"({"errcode":0,"errmsg":"ok"})", "application/json");
  }

  void handle(const httplib::Request& req, httplib::Response& res) {
    ++requests_;
    Reply r = Reply::kOk;
    {
      std::lock_guard lock(mu_);
      if (!script_.empty()) {
        r = script_.front();
        script_.pop_front();
      }
    }
    const json body = json::parse(req.body, nullptr, false);
    const std::string problem = check(req, body);
    if (r == Reply::kTimeout) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1200));
      ok_body(res);  // too late: the client has given up, nothing counts as seen
      return;
    }
    if (r == Reply::k429) {
      res.status = 429;
      res.set_header("Retry-After", "7");
      res.set_content("rate_limited", "text/plain");
      return;
    }
    if (r == Reply::k500) {
      res.status = 500;
      res.set_content("internal error", "text/plain");
      return;
    }
    if (r == Reply::kRateCode) return error_body(res, false);
    if (!problem.empty() || r == Reply::kSignCode) {
      {
        std::lock_guard lock(mu_);
        if (!problem.empty()) problems_.push_back(problem);
      }
      if (problem == "sign" || r == Reply::kSignCode) return error_body(res, true);
      res.status = kind_ == deliver::Kind::kSlack ? 400 : 200;
      if (kind_ == deliver::Kind::kSlack)
        res.set_content("invalid_payload", "text/plain");
      else if (feishu())
        res.set_content(R"({"code":9499,"msg":"Bad Request","data":{}})", "application/json");
      else
        res.set_content(R"({"errcode":40008,"errmsg":"invalid message type"})", "application/json");
      return;
    }
    {
      std::lock_guard lock(mu_);
      accepted_.push_back(body);
    }
    ok_body(res);
  }

  deliver::Kind kind_;
  std::string secret_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::deque<Reply> script_;
  std::vector<json> accepted_;
  std::vector<std::string> problems_;
  std::atomic<int> requests_{0};
};

// The real transport with waits recorded instead of slept, and a clock that
// moves only by those waits.
class RecordingTransport final : public deliver::Transport {
 public:
  RecordingTransport() : real_(deliver::real_transport()) {}
  Result<http::Response> post(const http::Request& r, http::Failure* f) override {
    return real_->post(r, f);
  }
  Result<void> send_mail(const deliver::Target& t, const deliver::Mail& m, bool* retry) override {
    return real_->send_mail(t, m, retry);
  }
  void sleep_ms(long ms) override {
    waits.push_back(ms);
    now_ += ms;
  }
  std::int64_t now_ms() override { return now_; }
  std::vector<long> waits;
  std::int64_t now_ = 1789000000000;  // 2026-09-09

 private:
  std::unique_ptr<deliver::Transport> real_;
};

}  // namespace mergelens::testing
