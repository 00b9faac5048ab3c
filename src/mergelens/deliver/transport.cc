// The real transport (transport.h): util/http for webhooks and libcurl's
// SMTP client for e-mail. The message is built with libcurl's MIME API: a
// multipart/alternative part holding text/plain and text/html (both UTF-8,
// base64), inside the multipart root libcurl writes for SMTP (as curl's own
// smtp-mime example does). libcurl requires STARTTLS (CURLUSESSL_ALL) for
// smtp:// and speaks TLS from the start for smtps://.
#include "mergelens/deliver/transport.h"

#include <curl/curl.h>

#include <chrono>
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
  curl_mime* mime = nullptr;
  ~CurlHandle() {
    if (mime) curl_mime_free(mime);
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

// RFC 2369: a reply to the sender asks to be taken off the list.
std::string list_unsubscribe(const Target& t) {
  return "<mailto:" + bare_address(t.from) + "?subject=unsubscribe%20" + t.name + ">";
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
    std::string to_header;
    for (const auto& a : t.to) {
      c.rcpt = curl_slist_append(c.rcpt, ("<" + bare_address(a) + ">").c_str());
      to_header += (to_header.empty() ? "" : ", ") + encode_address(a);
    }
    curl_easy_setopt(c.h, CURLOPT_MAIL_RCPT, c.rcpt);
    for (const std::string& h :
         {"Date: " + rfc5322_date(m.date), "From: " + encode_address(t.from), "To: " + to_header,
          "Subject: " + encode_header_text(m.subject), "Message-ID: " + m.message_id,
          std::string("Auto-Submitted: auto-generated"), "List-Id: " + list_id(t),
          "List-Unsubscribe: " + list_unsubscribe(t)})
      c.headers = curl_slist_append(c.headers, h.c_str());
    curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
    c.mime = curl_mime_init(c.h);
    curl_mime* alt = curl_mime_init(c.h);
    curl_mimepart* text = curl_mime_addpart(alt);
    curl_mime_data(text, m.text.data(), m.text.size());
    curl_mime_type(text, "text/plain; charset=utf-8");
    curl_mime_encoder(text, "base64");
    curl_mimepart* html = curl_mime_addpart(alt);
    curl_mime_data(html, m.html.data(), m.html.size());
    curl_mime_type(html, "text/html; charset=utf-8");
    curl_mime_encoder(html, "base64");
    curl_mimepart* body = curl_mime_addpart(c.mime);
    curl_mime_subparts(body, alt);  // owned by c.mime from here on
    curl_mime_type(body, "multipart/alternative");
    curl_mime_headers(body, curl_slist_append(nullptr, "Content-Disposition: inline"), 1);
    curl_easy_setopt(c.h, CURLOPT_MIMEPOST, c.mime);
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
  // Encoded-words of at most 75 characters: 45 bytes of UTF-8 give 60 of base64.
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = chunk_end(text, pos, 45);
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + base64(text.substr(pos, end - pos)) + "?=";
    pos = end;
  }
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
