// Clean edits of guide prose (private to guide/): what the pruner uses to
// take a false part out of a text so that what is left still reads — a
// clause instead of a sentence when the rest stands alone, no dangling
// "；" or ", and", no connector left pointing at a removed sentence, a line
// number the check rejected taken out wherever the item repeats it. Pure
// functions on UTF-8 text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mergelens::prune_text {

// Whether text reads on its own: at least 6 CJK characters or 4 words
// outside code spans.
bool stands(std::string_view text);

// `sentence` without the clause that holds `citation` (as the checker
// names it: "`x`", "#123", "3.7x", "9001-9010"), when that clause is a
// parenthesis, or a clause after the first that adds to the sentence
// ("…, and #34869 follows up", "…，#34869 做了后续") rather than limits it
// ("unless …", "但 …", "只有 …"), and what is left still reads: not an
// opening clause alone ("to exclude only the gate"), no parenthesis left
// open or closed alone. Separators inside a parenthesis split nothing. Empty
// when no clause can go alone (the sentence goes whole).
std::string without_clause(std::string_view sentence, std::string_view citation);

// Whether a sentence argues from the one before it by pointing back at it
// ("Do not rank the two backends on these numbers", "这些数据不能…"): when
// that one is removed, this one goes too.
bool refers_back(std::string_view sentence);

// A paragraph put back together after removals: sentences joined, a
// leading connector that pointed at a removed sentence dropped ("But",
// "因此"), no separator left dangling at the end ("；", ", ", "：") and the
// final stop restored when `original` had one ("。" for Chinese text, "."
// otherwise). `kept` are the sentences left, in order; `after_removal[i]`
// says whether sentence i directly follows a removed one.
std::string join_kept(const std::vector<std::string>& kept, const std::vector<bool>& after_removal,
                      std::string_view original);

// `text` without the mentions of the lines `first`..`last` (a range the
// check rejected): "第 9001-9010 行的", "第 9001 行", "(lines 9001–9010)",
// " at lines 9001-9010", "L9001", ":9001-9010". Sets *changed when it
// removed one. A mention it cannot take out as a phrase leaves its whole
// sentence out; the result is empty when nothing readable is left.
std::string without_lines(std::string_view text, std::int32_t first, std::int32_t last,
                          bool* changed);

// A verdict sentence for `verdict` ("close_read", ...) in the language of
// `sample` (Chinese when it has CJK): "值得精读：" or "Close read: " put
// before `rest`.
std::string with_verdict_lead(std::string_view verdict, std::string_view rest,
                              std::string_view sample);

// The first sentence of `text`, tidied ("" when none).
std::string first_sentence(std::string_view text);

}  // namespace mergelens::prune_text
