// The outside world of a delivery: HTTP requests to webhooks, SMTP, the
// clock and sleeping. A seam for the tests, which use the real HTTP and SMTP
// (against local servers) but record sleeps instead of sleeping.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mergelens/deliver/config.h"
#include "mergelens/util/error.h"
#include "mergelens/util/http.h"

namespace mergelens::deliver {

// One e-mail (the payload of render_email, with its identity).
struct Mail {
  std::string subject, text, html;
  std::string message_id;  // "<...@...>", the same for every attempt at one part
  std::int64_t date = 0;   // Unix seconds, for the Date header
};

class Transport {
 public:
  virtual ~Transport() = default;
  // http::perform (see util/http.h).
  virtual Result<http::Response> post(const http::Request& request, http::Failure* failure) = 0;
  // Sends `mail` to `target` over SMTP. On failure `retry` says whether the
  // failure may pass (connection, timeout, a 4xx answer) or not (refused
  // login, no STARTTLS, a certificate that does not verify, a 5xx answer).
  // Errors never hold the password.
  virtual Result<void> send_mail(const Target& target, const Mail& mail, bool* retry) = 0;
  virtual void sleep_ms(long ms) = 0;
  virtual std::int64_t now_ms() = 0;  // Unix time in milliseconds
};

// libcurl for HTTP and SMTP, the system clock, real sleeps.
std::unique_ptr<Transport> real_transport();

// The SMTP message headers and parts as libcurl sends them (smtp.cc), for
// tests: RFC 2047 encoded-words ("=?UTF-8?B?...?=") for any header text that
// is not plain ASCII, folded to lines of at most 76 characters.
std::string encode_header_text(std::string_view text);
// One header line "Name: value" folded (RFC 5322 2.2.3) at spaces so that
// no line is longer than 78 characters, each continuation starting with a
// space; a word longer than a line stays whole on its own line.
std::string fold_header(std::string_view name, std::string_view value);
// The whole message as sent (RFC 5322, CRLF line ends): the headers, each
// folded, List-Unsubscribe (and List-Unsubscribe-Post for an https://
// address, RFC 8058) only when the target names where to unsubscribe, and a
// multipart/alternative body of text/plain and text/html (UTF-8, base64 in
// lines of 76), with no multipart/mixed wrapper around it.
std::string mail_message(const Target& target, const Mail& mail);
// "Name <a@b>" → "a@b"; "a@b" stays; "smtp://user:pw@host:25" → "host:25"
// (the server named in messages, never its credentials).
std::string bare_address(std::string_view address);
// "Name <a@b>" with the name encoded when it is not ASCII.
std::string encode_address(std::string_view address);

}  // namespace mergelens::deliver
