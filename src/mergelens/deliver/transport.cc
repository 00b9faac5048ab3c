// The real transport (transport.h): util/http for webhooks and libcurl's
// SMTP client for e-mail. The message is written here (mail_message: folded
// headers, one multipart/alternative of text/plain and text/html) and
// uploaded as it is: libcurl's MIME API would wrap it in a one-part
// multipart/mixed. libcurl requires STARTTLS (CURLUSESSL_ALL) for smtp://
// and speaks TLS from the start for smtps://.
#include "mergelens/deliver/transport.h"

#include <curl/curl.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "mergelens/deliver/sign.h"

namespace mergelens::deliver {

namespace {

bool ascii_printable(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}

// Ends a UTF-8 chunk at a code point boundary at most `max` bytes in.
size_t chunk_end(std::string_view s, size_t start, size_t max) {
  size_t end = std::min(s.size(), start + max);
  while (end > start && end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80)
    --end;
  return end == start ? std::min(s.size(), start + max) : end;
}

struct CurlHandle {
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  curl_slist* rcpt = nullptr;
  ~CurlHandle() {
    curl_slist_free_all(headers);
    curl_slist_free_all(rcpt);
    if (h) curl_easy_cleanup(h);
  }
};

std::string rfc5322_date(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return fmt::format("{}, {:02d} {} {} {:02d}:{:02d}:{:02d} +0000", kDays[tm.tm_wday], tm.tm_mday,
                     kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// The sender's domain ("example.org" of "Digest <d@example.org>").
std::string from_domain(const Target& t) {
  const std::string from = bare_address(t.from);
  const size_t at = from.rfind('@');
  return at != std::string::npos && at + 1 < from.size() ? from.substr(at + 1)
                                                         : "mergelens.invalid";
}

// RFC 2919: the target's name (only [A-Za-z0-9._-]) under the sender's domain.
std::string list_id(const Target& t) {
  return "<" + t.name + ".mergelens." + from_domain(t) + ">";
}

// Base64 in lines of 76 characters, CRLF after each (RFC 2045 6.8).
std::string base64_lines(std::string_view data) {
  const std::string b = base64(data);
  std::string out;
  for (size_t i = 0; i < b.size(); i += 76) out += b.substr(i, 76) + "\r\n";
  return out;
}

// Feeds the message to libcurl's upload.
struct Upload {
  std::string_view data;
  size_t pos = 0;
};

size_t read_upload(char* buffer, size_t size, size_t n, void* user) {
  auto* u = static_cast<Upload*>(user);
  const size_t len = std::min(size * n, u->data.size() - u->pos);
  std::memcpy(buffer, u->data.data() + u->pos, len);
  u->pos += len;
  return len;
}

class RealTransport final : public Transport {
 public:
  Result<http::Response> post(const http::Request& request, http::Failure* failure) override {
    return http::perform(request, failure);
  }

  Result<void> send_mail(const Target& t, const Mail& m, bool* retry) override {
    *retry = false;
    CurlHandle c;
    if (!c.h) return fail(ErrorKind::kInternal, "cannot start libcurl");
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c.h, CURLOPT_URL, t.smtp_url.c_str());
    curl_easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c.h, CURLOPT_TIMEOUT_MS, t.timeout_ms);
    curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT_MS, std::min(t.timeout_ms, 10000L));
    curl_easy_setopt(c.h, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
    if (!t.ca_file.empty()) curl_easy_setopt(c.h, CURLOPT_CAINFO, t.ca_file.c_str());
    if (!t.username.empty()) {
      curl_easy_setopt(c.h, CURLOPT_USERNAME, t.username.c_str());
      curl_easy_setopt(c.h, CURLOPT_PASSWORD, t.password.c_str());
    }
    const std::string from = "<" + bare_address(t.from) + ">";
    curl_easy_setopt(c.h, CURLOPT_MAIL_FROM, from.c_str());
    for (const auto& a : t.to)
      c.rcpt = curl_slist_append(c.rcpt, ("<" + bare_address(a) + ">").c_str());
    curl_easy_setopt(c.h, CURLOPT_MAIL_RCPT, c.rcpt);
    const std::string message = mail_message(t, m);
    Upload upload{message};
    curl_easy_setopt(c.h, CURLOPT_READFUNCTION, read_upload);
    curl_easy_setopt(c.h, CURLOPT_READDATA, &upload);
    curl_easy_setopt(c.h, CURLOPT_UPLOAD, 1L);
    const CURLcode rc = curl_easy_perform(c.h);
    if (rc == CURLE_OK) return {};
    long smtp_code = 0;
    curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &smtp_code);
    *retry = rc == CURLE_COULDNT_CONNECT || rc == CURLE_OPERATION_TIMEDOUT ||
             rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING ||
             (smtp_code >= 400 && smtp_code < 500);
    return fail(ErrorKind::kIo, "SMTP {}: {}{}", bare_address(t.smtp_url), curl_easy_strerror(rc),
                *errbuf ? fmt::format(" ({})", http::redact_userinfo(errbuf)) : std::string());
  }

  void sleep_ms(long ms) override {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  std::int64_t now_ms() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::unique_ptr<Transport> real_transport() {
  return std::make_unique<RealTransport>();
}

std::string encode_header_text(std::string_view text) {
  if (ascii_printable(text)) return std::string(text);
  // Encoded-words of 64 characters (39 bytes of UTF-8 give 52 of base64), so
  // that "Subject: " and one of them fit a 78-character line.
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = chunk_end(text, pos, 39);
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + base64(text.substr(pos, end - pos)) + "?=";
    pos = end;
  }
  return out;
}

std::string fold_header(std::string_view name, std::string_view value) {
  constexpr size_t kMax = 78;
  std::string out(name);
  out += ":";
  size_t line = out.size();
  // Words are separated by single spaces; an encoded value's own folds
  // ("\r\n ") separate words too.
  std::string flat(value);
  for (size_t p; (p = flat.find("\r\n ")) != std::string::npos;) flat.replace(p, 3, " ");
  std::string_view rest = flat;
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    const std::string_view word = rest.substr(0, space);
    rest = space == std::string_view::npos ? "" : rest.substr(space + 1);
    if (word.empty()) continue;
    // Fold before a word that does not fit (right after the colon too when
    // the first word alone is too long: "Message-ID:" CRLF " <...>").
    if (line + 1 + word.size() > kMax &&
        (line > name.size() + 1 || name.size() + 2 + word.size() > kMax)) {
      out += "\r\n";
      line = 0;
    }
    out += " ";
    out += word;
    line += 1 + word.size();
  }
  return out;
}

std::string mail_message(const Target& t, const Mail& m) {
  std::string to;
  for (const auto& a : t.to) to += (to.empty() ? "" : ", ") + encode_address(a);
  std::vector<std::string> headers = {fold_header("Date", rfc5322_date(m.date)),
                                      fold_header("From", encode_address(t.from)),
                                      fold_header("To", to),
                                      fold_header("Subject", encode_header_text(m.subject)),
                                      fold_header("Message-ID", m.message_id),
                                      fold_header("Auto-Submitted", "auto-generated"),
                                      fold_header("List-Id", list_id(t))};
  // RFC 2369 only where someone honours it; RFC 8058 one-click for https.
  if (!t.unsubscribe.empty()) {
    headers.push_back(fold_header("List-Unsubscribe", "<" + t.unsubscribe + ">"));
    if (t.unsubscribe.starts_with("https://"))
      headers.push_back(fold_header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"));
  }
  // The boundary never occurs in base64 or in the headers above.
  const std::string boundary = "=_mergelens_" + base64(m.message_id).substr(0, 24) + "_=";
  headers.push_back("MIME-Version: 1.0");
  headers.push_back("Content-Type: multipart/alternative;\r\n boundary=\"" + boundary + "\"");
  std::string out;
  for (const auto& h : headers) out += h + "\r\n";
  out += "\r\n";
  for (const auto& [type, body] : {std::pair{"text/plain", &m.text}, {"text/html", &m.html}})
    out += "--" + boundary + "\r\nContent-Type: " + type +
           "; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" + base64_lines(*body);
  out += "--" + boundary + "--\r\n";
  return out;
}

std::string bare_address(std::string_view address) {
  const size_t open = address.rfind('<');
  const size_t close = address.rfind('>');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open)
    return std::string(address.substr(open + 1, close - open - 1));
  // smtp://host:port (used to name the server in messages): the host part,
  // without any user:password@.
  if (const size_t s = address.find("://"); s != std::string_view::npos) {
    const std::string host = http::redact_userinfo(address);
    return host.substr(s + 3);
  }
  return std::string(address);
}

std::string encode_address(std::string_view address) {
  const size_t open = address.rfind('<');
  if (open == std::string_view::npos) return std::string(address);
  std::string_view name = address.substr(0, open);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (name.empty()) return "<" + bare_address(address) + ">";
  return encode_header_text(name) + " <" + bare_address(address) + ">";
}

}  // namespace mergelens::deliver
