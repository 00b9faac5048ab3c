// Rendering a digest (content.h) into each service's documented message
// format, split at the service's size limits:
//
//   feishu, lark  interactive card: a plain_text header and markdown elements;
//                 the request body stays under 20 KB (Feishu answers 9499 above it)
//   dingtalk      msgtype markdown (title + text); text under 18,000 bytes
//   wecom         msgtype markdown; content at most 4,096 bytes (the documented cap)
//   slack         Block Kit: header (<= 150 characters), mrkdwn sections (<= 3,000
//                 characters each), at most 50 blocks, and a plain `text` fallback
//   email         one message: {"subject", "text", "html"} (the sender builds the MIME)
//
// A digest that does not fit is split between entries into parts titled
// "(1/3)", "(2/3)", ...; an entry too long for a message of its own has its
// paragraph cut with "…". Text from the store is escaped for each dialect so
// it stays text: no link, mention (@all, <!channel>), HTML or emphasis can
// come from a title or a guide (see docs/delivery.md).
#pragma once

#include <string>
#include <vector>

#include "mergelens/deliver/config.h"
#include "mergelens/deliver/content.h"

namespace mergelens::deliver {

struct Limits {
  size_t max_bytes = 0;        // of the measured field (see above); 0: no limit
  size_t max_blocks = 0;       // Slack blocks per message; 0: no limit
  size_t max_block_bytes = 0;  // Slack section text (bytes bound the characters)
  long min_interval_ms = 0;    // between two requests to one target (rate limits)
};

// The documented limits of a kind of target.
Limits limits_of(Kind kind);

// The payloads of `content` for `target`, in order (at least one). Webhook
// payloads are the JSON request bodies without the signature fields
// (added when sending); an e-mail payload is a JSON object with "subject",
// "text" and "html". Never fails.
std::vector<std::string> render_parts(const Target& target, const Content& content);

// The e-mail payload (render_email.cc): one part.
std::string render_email(const Content& content);

// `s` cut to at most `max_bytes` bytes at a UTF-8 boundary, with "…" when cut.
std::string cut_utf8(std::string_view s, size_t max_bytes);

}  // namespace mergelens::deliver
