// Delivery: each webhook target against a local stand-in of its service
// (deliver_fake_services.h) that checks the documented payload and signature
// and answers with the service's success and error bodies, 429 and a
// timeout included; every test ends with the day delivered exactly once.
// Also: configuration errors name what is wrong and never quote a secret;
// a 45-PR day is one request, or the documented split; hostile titles and
// guides stay inert in every message; a restart sends only what is unsent.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "deliver_fake_services.h"
#include "mergelens/deliver/content.h"
#include "mergelens/deliver/deliver.h"
#include "mergelens/deliver/render.h"
#include "mergelens/deliver/send.h"
#include "mergelens/deliver/sign.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using deliver::Kind;
using testing::FakeService;
using testing::RecordingTransport;
using testing::Reply;

constexpr const char* kSecret = "SEC-shh-9f8e7d";

deliver::Target target_for(Kind kind, const FakeService& fake, std::string secret = kSecret) {
  deliver::Target t;
  t.name = std::string(deliver::to_string(kind)) + "-team";
  t.kind = kind;
  t.url = fake.url();
  if (kind != Kind::kWeCom && kind != Kind::kSlack) t.secret = std::move(secret);
  t.timeout_ms = 400;
  t.site_url = "https://lens.example.org";
  return t;
}

// Guides with paragraphs of realistic length on the fixture's days.
struct DeliverStore : testing::WebStore {
  void guide(std::int64_t number, const std::string& verdict, const std::string& headline,
             size_t paragraph_chars = 0) {
    auto c = store->get_change_by_number(repo.id, number);
    ASSERT_TRUE(c && *c);
    Guide g;
    g.lang = "zh";
    g.verdict = verdict;
    g.headline = headline;
    g.verdict_text = "值得精读，但只需读 `evict` 的 3 行";
    std::string why = "它展示了 `full` 守卫与静默回退如何让不支持的场景行为零变化";
    while (why.size() < paragraph_chars * 3) why += "，并说明驱逐顺序与锁的关系";
    g.why = why + "。";
    g.focus.push_back(GuideFocus{"python/kv_cache.py", 10, 12, "evict", "", ""});
    g.tags = {"kv-cache"};
    g.writer.kind = "offline";
    std::vector<std::pair<std::int64_t, Guide>> gs{{(*c)->id, g}};
    ASSERT_TRUE(store->put_guides(gs));
  }
};

// 45 merged PRs on 2026-09-20: 6 close reads, 9 selective, 20 skims, 10 skips.
void add_busy_day(DeliverStore& w) {
  for (int i = 0; i < 45; ++i) {
    const Verdict v = i < 6    ? Verdict::kCloseRead
                      : i < 15 ? Verdict::kSelectiveRead
                      : i < 35 ? Verdict::kSkim
                               : Verdict::kSkip;
    const std::int64_t n = 3000 + i;
    w.add(n, fmt::format("2026-09-20T{:02d}:{:02d}:00Z", 1 + i / 2, (i % 2) * 30),
          fmt::format("Busy day change {}", i), v, 5, 4, {"moe", "quantization"});
    const char* verdict = v == Verdict::kCloseRead       ? "close_read"
                          : v == Verdict::kSelectiveRead ? "selective_read"
                          : v == Verdict::kSkim          ? "skim"
                                                         : "skip";
    w.guide(n, verdict, fmt::format("第 {} 项：MoE 调度与 `fp8` 量化路径修复", i),
            v == Verdict::kSkip ? 0 : 220);
  }
}

std::string payload_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(DeliverConfig, ReadsTargetsAndNamesWhatIsWrong) {
  testing::TempDir dir;
  const std::string path = dir / "mergelens.toml";
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  std::map<std::string, std::string> env{
      {"FEISHU_URL", "https://open.feishu.cn/open-apis/bot/v2/hook/abc"},
      {"FEISHU_SECRET", kSecret},
      {"MAIL_PW", "pw-123"}};
  auto lookup = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional(it->second);
  };
  write(R"([[deliver]]
name = "sglang-feishu"
kind = "feishu"
url_env = "FEISHU_URL"
secret_env = "FEISHU_SECRET"
tz = "Asia/Shanghai"

[[deliver]]
name = "mail"
kind = "email"
smtp_url = "smtp://127.0.0.1:2525"
username = "bot"
password_env = "MAIL_PW"
from = "mergelens 摘要 <bot@example.org>"
to = ["a@example.org"]
)");
  auto t = deliver::read_targets(path, lookup);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].secret, kSecret);
  EXPECT_EQ((*t)[0].tz, "Asia/Shanghai");
  EXPECT_EQ((*t)[1].password, "pw-123");
  EXPECT_EQ(deliver::encode_address((*t)[1].from).find("=?UTF-8?B?"), 0u);
  auto missing = deliver::find_target(*t, "slack", path);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("sglang-feishu, mail"), std::string::npos);

  struct Bad {
    std::string toml, want;
  };
  for (const auto& [toml, want] : std::vector<Bad>{
           {"[[deliver]]\nname = \"x\"\nkind = \"telegram\"\nurl_env = \"FEISHU_URL\"\n",
            "unknown kind \"telegram\""},
           {"[[deliver]]\nname = \"x\"\nkind = \"feishu\"\nurl_env = \"NOPE\"\n",
            "environment variable NOPE named by url_env is not set"},
           {"[[deliver]]\nname = \"x\"\nkind = \"feishu\"\nurl = \"https://h/hook/tok\"\n",
            "url is not read from files"},
           {"[[deliver]]\nname = \"x\"\nkind = \"slack\"\nurl_env = \"MAIL_PW\"\n",
            "the URL in $MAIL_PW is not an http(s):// address"},
           {"[[deliver]]\nname = \"x\"\nkind = \"feishu\"\nurl_env = \"FEISHU_URL\"\ncolour = 1\n",
            "unknown key \"colour\""},
           {"[[deliver]]\nname = \"x\"\nkind = \"email\"\nsmtp_url = \"smtp://h\"\nfrom = "
            "\"a@b\"\n",
            "needs at least one address in to"},
           {"[[deliver]]\nname = \"x\"\nkind = \"wecom\"\nurl_env = \"FEISHU_URL\"\nsecret_env = "
            "\"FEISHU_SECRET\"\n",
            "not signed"},
           {"[[deliver]]\nname = \"a b\"\nkind = \"wecom\"\nurl_env = \"FEISHU_URL\"\n",
            "may only hold"},
           {"[[deliver]]\nname = \"x\"\nkind = \"wecom\"\nurl_env = \"FEISHU_URL\"\n[[deliver]]\n"
            "name = \"x\"\nkind = \"wecom\"\nurl_env = \"FEISHU_URL\"\n",
            "two [[deliver]] tables are named \"x\""},
           {"deliver = 3\n", "array of tables"},
       }) {
    write(toml);
    auto r = deliver::read_targets(path, lookup);
    ASSERT_FALSE(r) << toml;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
    for (const auto& [k, v] : env) EXPECT_EQ(r.error().message.find(v), std::string::npos);
  }
}

// Issue 22: credentials in smtp_url are refused at load, naming the target and
// the setting to use instead, without quoting the password.
TEST(DeliverConfig, RefusesCredentialsInTheSmtpUrl) {
  testing::TempDir dir;
  const std::string path = dir / "mergelens.toml";
  for (const std::string url : {"smtp://u:hunter2-pw@mail.example.org:587",
                                "smtps://hunter2-pw@mail.example.org", "smtp://u:hunter2-pw@h"}) {
    std::ofstream(path) << "[[deliver]]\nname = \"mail\"\nkind = \"email\"\nsmtp_url = \"" << url
                        << "\"\nfrom = \"a@b.org\"\nto = [\"c@d.org\"]\n";
    auto r = deliver::read_targets(path, [](const std::string&) { return std::nullopt; });
    ASSERT_FALSE(r) << url;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(r.error().message.find("target \"mail\""), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("password_env"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("hunter2"), std::string::npos) << r.error().message;
  }
}

// Issue 22: a failure to reach an SMTP server whose URL holds credentials (a
// target built in code, not from a file) names the server without them.
TEST(DeliverSend, AnSmtpFailureNeverQuotesUrlCredentials) {
  deliver::Target t;
  t.name = "mail";
  t.kind = Kind::kEmail;
  t.smtp_url = "smtp://u:hunter2-pw@127.0.0.1:1";
  t.from = "a@b.org";
  t.to = {"c@d.org"};
  t.timeout_ms = 2000;
  t.max_retries = 0;
  auto transport = deliver::real_transport();
  std::vector<std::string> attempts;
  const auto s =
      deliver::send_part(t, R"({"subject":"s","text":"t","html":"h"})", "<m@x>", *transport,
                         [&](const std::string& e) { attempts.push_back(e); });
  EXPECT_FALSE(s.sent);
  ASSERT_FALSE(s.error.empty());
  EXPECT_NE(s.error.find("127.0.0.1:1"), std::string::npos) << s.error;
  EXPECT_EQ(s.error.find("hunter2"), std::string::npos) << s.error;
  for (const auto& e : attempts) EXPECT_EQ(e.find("hunter2"), std::string::npos) << e;
  EXPECT_EQ(http::redact_userinfo("SMTP smtp://u:p@h:25/x failed; see https://k@a.b and u@c.org"),
            "SMTP smtp://h:25/x failed; see https://a.b and u@c.org");
}

TEST(DeliverSign, MatchesTheDocumentedAlgorithms) {
  // Independent computation in the fake (OpenSSL directly) against ours.
  EXPECT_EQ(deliver::feishu_sign("s3cret", 1599360473),
            testing::b64_hmac("1599360473\ns3cret", ""));
  EXPECT_EQ(deliver::dingtalk_sign("s3cret", 1577262236757),
            testing::b64_hmac("s3cret", "1577262236757\ns3cret"));
  EXPECT_EQ(deliver::base64("mergelens"), "bWVyZ2VsZW5z");
  EXPECT_EQ(deliver::encode_header_text("plain subject"), "plain subject");
  EXPECT_EQ(deliver::encode_header_text("量化"), "=?UTF-8?B?6YeP5YyW?=");
}

TEST(DeliverMail, HeadersFoldedAndOneAlternativeWithoutMixed) {
  EXPECT_EQ(deliver::fold_header("Subject", "short"), "Subject: short");
  const std::string folded = deliver::fold_header(
      "To",
      "a@example.org, b@example.org, Someone With A Long Name <someone@example.org>, "
      "another.person.with.a.long.address@example.org");
  for (size_t start = 0; start < folded.size();) {
    size_t end = folded.find("\r\n", start);
    if (end == std::string::npos) end = folded.size();
    EXPECT_LE(end - start, 78u) << folded;
    start = end + 2;
    if (start < folded.size()) {
      EXPECT_EQ(folded[start], ' ');
    }
  }
  // A word longer than a line stands alone on its own line after the name.
  const std::string id(90, 'x');
  EXPECT_EQ(deliver::fold_header("Message-ID", id), "Message-ID:\r\n " + id);

  deliver::Target t;
  t.name = "team";
  t.from = "mergelens 摘要 <digest@example.org>";
  t.to = {"dev@example.org"};
  deliver::Mail m{"合并 12 个 PR，其中 3 个值得精读 · a long subject to fold across lines", "text",
                  "<p>html</p>", "<mergelens.2026-09-12.team.1of1.abcdef@example.org>", 0};
  std::string msg = deliver::mail_message(t, m);
  EXPECT_EQ(msg.find("List-Unsubscribe"), std::string::npos) << "nothing honours it";
  EXPECT_EQ(msg.find("multipart/mixed"), std::string::npos);
  EXPECT_NE(msg.find("Content-Type: multipart/alternative;"), std::string::npos);
  const std::string head = msg.substr(0, msg.find("\r\n\r\n"));
  for (size_t start = 0; start < head.size();) {
    size_t end = head.find("\r\n", start);
    if (end == std::string::npos) end = head.size();
    EXPECT_LE(end - start, 78u) << head.substr(start, end - start);
    start = end + 2;
  }
  t.unsubscribe = "https://lists.example.org/u?l=team";
  msg = deliver::mail_message(t, m);
  EXPECT_NE(msg.find("List-Unsubscribe: <https://lists.example.org/u?l=team>\r\n"),
            std::string::npos);
  EXPECT_NE(msg.find("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"), std::string::npos);
  t.unsubscribe = "mailto:lists@example.org";
  msg = deliver::mail_message(t, m);
  EXPECT_NE(msg.find("List-Unsubscribe: <mailto:lists@example.org>"), std::string::npos);
  EXPECT_EQ(msg.find("List-Unsubscribe-Post"), std::string::npos);
}

class DeliverWebhook : public ::testing::TestWithParam<Kind> {};

TEST_P(DeliverWebhook, RetriesThroughFailuresAndDeliversTheDayExactlyOnce) {
  DeliverStore w;
  w.guide(1005, "close_read", "MoE 修复 `late_night`");
  FakeService fake(GetParam(), kSecret);
  auto t = target_for(GetParam(), fake);
  fake.script({Reply::k429, Reply::k500, Reply::kTimeout, Reply::kRateCode, Reply::kOk});
  RecordingTransport tr;
  auto r = deliver::deliver_day(*w.store, w.repo, t, "2026-09-16", tr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->done()) << deliver::describe(*r);
  EXPECT_EQ(r->requests, 5);
  EXPECT_EQ(fake.requests(), 5);
  ASSERT_EQ(fake.accepted().size(), 1u) << payload_text(nlohmann::json(fake.problems()));
  EXPECT_TRUE(fake.problems().empty()) << fake.problems().front();
  // Retry-After (7 s) honoured; exponential backoff otherwise.
  ASSERT_EQ(tr.waits.size(), 4u);
  EXPECT_EQ(tr.waits[0], 7000);
  EXPECT_EQ(tr.waits[1], 2000);
  EXPECT_EQ(tr.waits[2], 4000);
  EXPECT_EQ(tr.waits[3], 8000);
  auto rec = w.store->deliveries(w.repo.id, t.name, "2026-09-16");
  ASSERT_TRUE(rec);
  ASSERT_EQ(rec->size(), 1u);
  EXPECT_NE((*rec)[0].sent_at, 0);
  EXPECT_EQ((*rec)[0].attempts, 5);
  EXPECT_EQ((*rec)[0].last_error, "");
  // Again (another run): nothing is sent.
  RecordingTransport again;
  auto r2 = deliver::deliver_day(*w.store, w.repo, t, "2026-09-16", again);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->requests, 0);
  EXPECT_EQ(r2->already, 1);
  EXPECT_EQ(fake.requests(), 5);
  EXPECT_EQ(fake.accepted().size(), 1u);
  // The message carries the entry in the examples' form.
  const std::string seen = payload_text(fake.accepted()[0]);
  for (const char* want :
       {"MoE 修复", "late_night", "值得精读，但只需读", "原始 PR #1005", "作者 alice",
        "合并时间 2026-09-16 23:30", "https://github.com/o/r/pull/1005",
        "https://lens.example.org/pr/1005", "混合专家"})
    EXPECT_NE(seen.find(want), std::string::npos) << want << " in " << seen;
}

TEST_P(DeliverWebhook, APermanentErrorStopsAtOnceAndNamesNoSecret) {
  DeliverStore w;
  FakeService fake(GetParam(), kSecret);
  // A wrong secret for signed services; a refused token/URL for the others.
  auto t = target_for(GetParam(), fake, "wrong-secret");
  if (GetParam() == Kind::kWeCom || GetParam() == Kind::kSlack) fake.script({Reply::kSignCode});
  RecordingTransport tr;
  auto r = deliver::deliver_day(*w.store, w.repo, t, "2026-09-16", tr);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->done());
  EXPECT_EQ(r->requests, 1);
  EXPECT_TRUE(tr.waits.empty());
  for (const std::string& secret : {std::string(FakeService::token()), std::string("wrong-secret")})
    EXPECT_EQ(r->error.find(secret), std::string::npos) << r->error;
  EXPECT_NE(r->error.find(t.name), std::string::npos) << r->error;
  const std::map<Kind, std::string> code{{Kind::kFeishu, "19021"},
                                         {Kind::kDingTalk, "310000"},
                                         {Kind::kWeCom, "93000"},
                                         {Kind::kSlack, "invalid_token"}};
  EXPECT_NE(r->error.find(code.at(GetParam())), std::string::npos) << r->error;
  // Fixed configuration: the next run sends the day, once.
  t.secret = (GetParam() == Kind::kWeCom || GetParam() == Kind::kSlack) ? "" : kSecret;
  auto r2 = deliver::deliver_day(*w.store, w.repo, t, "2026-09-16", tr);
  ASSERT_TRUE(r2);
  EXPECT_TRUE(r2->done()) << deliver::describe(*r2);
  EXPECT_EQ(fake.accepted().size(), 1u);
  auto rec = w.store->deliveries(w.repo.id, t.name, "2026-09-16");
  ASSERT_TRUE(rec && rec->size() == 1u);
  EXPECT_EQ((*rec)[0].attempts, 2);
}

TEST_P(DeliverWebhook, ABusyDayIsOneRequestOrTheDocumentedSplit) {
  DeliverStore w;
  add_busy_day(w);
  FakeService fake(GetParam(), kSecret);
  auto t = target_for(GetParam(), fake);
  RecordingTransport tr;
  auto r = deliver::deliver_day(*w.store, w.repo, t, "2026-09-20", tr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->done()) << deliver::describe(*r);
  EXPECT_TRUE(fake.problems().empty()) << fake.problems().front();
  const auto seen = fake.accepted();
  EXPECT_EQ(static_cast<int>(seen.size()), r->parts);
  EXPECT_EQ(r->requests, r->parts);
  // The documented split (render.h): Slack takes the day in one message;
  // Feishu (20 KB), DingTalk (18,000 bytes) and WeCom (4,096 bytes) split
  // between entries, each part as full as the limit allows.
  const std::map<Kind, std::pair<int, int>> expected{{Kind::kSlack, {1, 1}},
                                                     {Kind::kFeishu, {2, 3}},
                                                     {Kind::kDingTalk, {2, 3}},
                                                     {Kind::kWeCom, {10, 16}}};
  const auto [lo, hi] = expected.at(GetParam());
  std::printf("%s: 45 PRs in %d part(s)\n", deliver::to_string(GetParam()), r->parts);
  EXPECT_GE(r->parts, lo);
  EXPECT_LE(r->parts, hi);
  // Every PR exactly once across the parts, the parts titled (i/n), paced by
  // the service's rate limit.
  std::string all;
  for (const auto& p : seen) all += payload_text(p);
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t pos = all.find(needle); pos != std::string::npos; pos = all.find(needle, pos + 1))
      ++n;
    return n;
  };
  const std::string end = GetParam() == Kind::kSlack ? "|" : ")";
  for (int i = 0; i < 45; ++i) {
    // An entry's original-PR line, or a skipped PR's one line.
    const std::string needle = i < 35 ? fmt::format("github.com/o/r/pull/{}{}", 3000 + i, end)
                                      : fmt::format("lens.example.org/pr/{}{}", 3000 + i, end);
    EXPECT_EQ(count(needle), 1u) << needle;
  }
  if (r->parts > 1) {
    EXPECT_NE(all.find(fmt::format("(1/{})", r->parts)), std::string::npos);
    EXPECT_EQ(tr.waits.size(), static_cast<size_t>(r->parts - 1));
    EXPECT_EQ(tr.waits[0], deliver::limits_of(GetParam()).min_interval_ms);
  }
}

TEST_P(DeliverWebhook, ARestartSendsOnlyThePartsStillUnsent) {
  DeliverStore w;
  add_busy_day(w);
  FakeService fake(GetParam(), kSecret);
  auto t = target_for(GetParam(), fake);
  t.max_retries = 0;
  // The first part goes through, then the service refuses (as a crash would
  // leave it: planned, partly sent). Slack takes the day in one part: that
  // part fails.
  const bool one_part = GetParam() == Kind::kSlack;
  const int first = one_part ? 0 : 1;
  if (one_part)
    fake.script({Reply::k500});
  else
    fake.script({Reply::kOk, Reply::k500});
  {
    RecordingTransport tr;
    auto r = deliver::deliver_day(*w.store, w.repo, t, "2026-09-20", tr);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->parts == 1, one_part);
    EXPECT_EQ(r->sent_now, first);
    EXPECT_FALSE(r->error.empty());
  }
  // A new process: another connection, another transport; a guide rewritten
  // meanwhile does not change what was planned.
  w.guide(3000, "close_read", "改写后的标题");
  auto store2 = open_store_at(w.db, StoreOptions{.create = false});
  ASSERT_TRUE(store2);
  RecordingTransport tr2;
  auto r = deliver::deliver_day(**store2, w.repo, t, "2026-09-20", tr2);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->done()) << deliver::describe(*r);
  EXPECT_EQ(r->already, first);
  EXPECT_EQ(static_cast<int>(fake.accepted().size()), r->parts);
  std::set<std::string> distinct;
  for (const auto& p : fake.accepted()) distinct.insert(payload_text(p));
  EXPECT_EQ(distinct.size(), fake.accepted().size()) << "a part was sent twice";
  EXPECT_EQ(payload_text(fake.accepted()).find("改写后的标题"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Services, DeliverWebhook,
                         ::testing::Values(Kind::kFeishu, Kind::kDingTalk, Kind::kWeCom,
                                           Kind::kSlack),
                         [](const auto& info) {
                           return std::string(deliver::to_string(info.param));
                         });

TEST(DeliverRender, HostileTitlesAndGuidesStayInertInEveryMessage) {
  DeliverStore w;
  w.guide(1003, "close_read",
          std::string("标题 ") + testing::kHostile +
              " <at user_id=\"all\"></at> <!channel> <@U123> [x](javascript:alert(1))");
  for (Kind k : {Kind::kFeishu, Kind::kDingTalk, Kind::kWeCom, Kind::kSlack, Kind::kEmail}) {
    deliver::Target t;
    t.name = "t";
    t.kind = k;
    auto c = deliver::build_content(*w.store, w.repo, t, "2026-09-16");
    ASSERT_TRUE(c) << c.error().message;
    for (const auto& p : deliver::render_parts(t, *c)) {
      // What the service renders: the JSON strings, decoded (for e-mail the
      // HTML part and the subject; the plain-text part is text by nature).
      const auto j = nlohmann::json::parse(p);
      std::string text;
      std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
        if (v.is_string()) text += v.get<std::string>() + "\n";
        if (v.is_structured())
          for (const auto& x : v) walk(x);
      };
      walk(k == Kind::kEmail ? nlohmann::json{j["html"], j["subject"]} : j);
      std::vector<const char*> bad = {
          "<script", "<img", "<at ", "<!channel>", "<@U123>", "<b>", "onerror=alert(1)>"};
      // Markdown link syntax matters to the Markdown dialects only (Slack links
      // only <url|text>, the e-mail is HTML).
      if (k != Kind::kSlack && k != Kind::kEmail) bad.push_back("](javascript:");
      for (const char* b : bad)
        EXPECT_EQ(text.find(b), std::string::npos) << deliver::to_string(k) << ": " << b;
      EXPECT_NE(text.find("标题"), std::string::npos) << deliver::to_string(k);
      EXPECT_EQ(text.find("href=\"javascript:"), std::string::npos) << deliver::to_string(k);
      EXPECT_EQ(text.find("<javascript:"), std::string::npos) << deliver::to_string(k);
    }
  }
}

TEST(DeliverDue, DeliversEachClosedDayOnceAndSkipsWhatWasSent) {
  DeliverStore w;
  FakeService fake(Kind::kWeCom, "");
  auto t = target_for(Kind::kWeCom, fake);
  t.delay_minutes = 30;
  RecordingTransport tr;
  // 2026-09-17 00:10 UTC: 2026-09-16 closed 10 minutes ago, not due yet.
  tr.now_ = *parse_instant("2026-09-17T00:10:00Z") * 1000;
  auto r = deliver::deliver_due(*w.store, w.repo, {t}, tr);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].day, "2026-09-14");  // the newest due day with changes, for a new target
  tr.now_ = *parse_instant("2026-09-17T00:45:00Z") * 1000;
  r = deliver::deliver_due(*w.store, w.repo, {t}, tr);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].day, "2026-09-16");
  EXPECT_TRUE((*r)[0].done());
  // Later passes find nothing new.
  for (int i = 0; i < 3; ++i) {
    r = deliver::deliver_due(*w.store, w.repo, {t}, tr);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->empty());
  }
  EXPECT_EQ(fake.accepted().size(), 2u);
  EXPECT_EQ(fake.requests(), 2);
  // The store holds no secret: no webhook token, no signing secret.
  std::ifstream in(w.db, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  EXPECT_EQ(bytes.str().find(FakeService::token()), std::string::npos);
  EXPECT_EQ(bytes.str().find(kSecret), std::string::npos);
}

TEST(DeliverRender, CodeSpansFollowEachServicesMarkdown) {
  // DingTalk's Markdown has no inline code: its readers would see the
  // backticks, so the span is its text; the other dialects keep `code`.
  DeliverStore w;
  w.guide(1003, "close_read", "MoE 修复 `late_night` 路径");
  for (Kind k : {Kind::kFeishu, Kind::kDingTalk, Kind::kWeCom, Kind::kSlack}) {
    deliver::Target t;
    t.name = "t";
    t.kind = k;
    auto c = deliver::build_content(*w.store, w.repo, t, "2026-09-16");
    ASSERT_TRUE(c) << c.error().message;
    std::string text;
    for (const auto& p : deliver::render_parts(t, *c)) text += p;
    EXPECT_NE(text.find("late_night"), std::string::npos) << deliver::to_string(k);
    if (k == Kind::kDingTalk)
      EXPECT_EQ(text.find('`'), std::string::npos) << text;
    else
      EXPECT_NE(text.find("`late_night`"), std::string::npos) << deliver::to_string(k);
  }
}

}  // namespace
}  // namespace mergelens
