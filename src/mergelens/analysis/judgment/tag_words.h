// Word forms for the tag rules (tags.cc): text lowered to ASCII letters and
// digits with '_' between words, and the documents a title's prefixes make.
// Pure functions on the caller's strings; nothing is kept.
#pragma once

#include <string>
#include <string_view>

namespace mergelens::tag_words {

bool is_alnum(char c);  // ASCII letter or digit
char lower(char c);     // ASCII lowercase; other bytes unchanged
bool is_sep(char c);    // '_' or '\n': between words, or between documents

// Appends `text` in word form: lowercase ASCII letters and digits, every run
// of anything else (including non-ASCII bytes) as one '_', no '_' at the ends.
// Appends nothing when `text` has no letter or digit.
void append_words(std::string_view text, std::string& out);

// What a title's prefixes say: "[AMD][Bugfix] fix(router)!: ..." gives the
// documents "amd", "bugfix", "fix", "router"; the first word is "fix". A title
// without prefixes gives no documents and its first word.
struct TitlePrefixes {
  std::string docs;        // word forms, '\n'-separated
  std::string first_word;  // word form of the first word after bracket tags
};
TitlePrefixes parse_prefixes(std::string_view title);

}  // namespace mergelens::tag_words
