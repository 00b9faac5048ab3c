// Tool results that fit a model's context: the pages of a list-returning
// tool (`limit`, `cursor`), the fields a caller asked for (`fields`), and a
// token budget every result stays under.
//
// A tool's full result is built as before (a web/api_v1.h or report/ value);
// `page_result` then keeps the slice [offset, offset + limit) of its lists,
// in the order `Lists` names them ("changes", or "sections[].entries": the
// entries of every section, one after another), drops items past the token
// budget, keeps only the asked fields of each item, and adds a `page` object
// saying what was returned, what was left out and the cursor of the next
// page. Containers of a nested list (a section) are kept only when one of
// their items is on the page.
//
// A cursor is opaque to the caller: base64url of {"t": tool, "o": offset,
// "p": the arguments that chose the data}, so the next page reads the same
// day, week or query even when the caller sends the cursor alone (the
// newest day is pinned to the date it resolved to). No state is kept on the
// server; a store that changed between two pages may shift items.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/util/error.h"

namespace mergelens::mcp {

// The token budget of one tool result (structured content and its text),
// by llm::estimate_tokens, which runs high for English, code and CJK alike
// against the cl100k and o200k tokenizers: a result within it stays under
// about 8,000 real tokens. Coding assistants cap one result near 25,000.
inline constexpr size_t kResultTokenBudget = 7'500;

// What a caller asked of a page: from `limit`, `cursor` and `fields`.
struct PageRequest {
  size_t offset = 0;
  size_t limit = 0;                 // items at most (the tool's default when not given)
  std::vector<std::string> fields;  // item fields to keep; empty: all
};

// Reads `cursor` from `args` (when present) and merges the arguments it
// pinned into `args`: a pinned argument the caller also gave with another
// value, a cursor of another tool, or one that is not ours is kInvalidInput
// (a tool error the model can correct). `limit` defaults to `default_limit`;
// `fields` is a comma-separated list. `args` keeps every other argument.
Result<PageRequest> read_page_request(std::string_view tool, nlohmann::json& args,
                                      size_t default_limit);

// The cursor that resumes `tool` at `offset` with the arguments `pinned`.
std::string make_cursor(std::string_view tool, size_t offset, const nlohmann::json& pinned);

// Keeps one page of `full`'s lists (`lists`, each "name" or
// "name[].inner"; missing ones are skipped) as described above, adds
// `page` {offset, returned, total, left_out, limit, next_cursor, lists,
// fields}, and applies `fields` to each listed item (or, for a result
// without lists, to its top-level fields, `page` and identifying fields
// kept). kInvalidInput naming the fields an item has when `fields` names
// none of them. `pinned` goes into the next cursor.
Result<nlohmann::json> page_result(std::string_view tool, const nlohmann::json& full,
                                   const std::vector<std::string>& lists, const PageRequest& page,
                                   const nlohmann::json& pinned,
                                   size_t budget = kResultTokenBudget);

// The `page` object's JSON Schema (for tools' output schemas).
nlohmann::json page_schema();

// The sentence a text block says about the page of `result` (from its
// `page` object): "Items 1-25 of 121 (changes) are in structuredContent;
// 96 more: call day with {"cursor": "..."}." Empty without a `page`.
std::string page_sentence(std::string_view tool, const nlohmann::json& result);

}  // namespace mergelens::mcp
