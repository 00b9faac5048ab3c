// The domain glossary: English terms of ML-systems engineering and tag names
// with their Chinese forms ("quantization" 量化, "kv-cache" KV 缓存,
// "speculative-decoding" 投机解码, ...). Kept in step with the taxonomy
// (judgment/tags.h): every tag the taxonomy can emit has an entry (a unit
// test checks it), so a zh page can name every tag in Chinese, and a search
// in one language can find what the other language's words find
// (web/search.cc expands a query term that has an entry into an OR of all
// the entry's forms).
//
// Static data, no I/O; every function is safe to call from any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mergelens {

struct GlossaryEntry {
  const char* key;  // the tag name ("kv-cache") or the English term ("prefill")
  const char* en;   // English display name ("KV cache")
  const char* zh;   // Chinese display name ("KV 缓存")
  // Other spellings and translations that mean the same thing, in either
  // language. A form ending in '*' is a prefix ("quantiz*"). Every form of
  // every entry is distinct from every other entry's (a test checks it), so
  // a word leads to one entry only.
  std::vector<const char*> forms;
};

// Every entry, tag names first.
std::span<const GlossaryEntry> glossary();

// The entry whose key, display names or forms equal `term` after folding
// (ASCII lowercase; '-', '_' and runs of spaces as one space, none beside a
// CJK character; a prefix form
// "quantiz*" also matches any term that starts with "quantiz"); nullptr when
// none does.
const GlossaryEntry* glossary_find(std::string_view term);

// A tag's name as shown in `lang` ("zh": the Chinese name, "en": the tag as
// stored). A tag without an entry is shown as stored.
std::string tag_display_name(std::string_view tag, std::string_view lang);

// Every form to search for `term`: the entry's key, display names and forms,
// each once, spaces for '-' and '_' (so "kv-cache" is searched as the phrase
// "kv cache"); a prefix form keeps its trailing '*'. Empty when `term` has no
// entry.
std::vector<std::string> search_forms(std::string_view term);

}  // namespace mergelens
