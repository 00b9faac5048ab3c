// What the model writer checks and settles in an answer before it stores it,
// beyond the citations (guide/citations.h): that the guide is usable and in
// its language, that its verdict's lead agrees with the verdict, that it does
// not obey text planted in the PR, and which judgment (the model's argued
// one or the analysis's) it shows.
//
// The rules read what the text says, not which words it uses: a verdict that
// skips part of a change ("read three files; the 5,000 lines of model code
// can be skipped") is not a skip verdict; only a lead that disagrees with the
// verdict by two levels or more is. Pure functions; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"
#include "mergelens/model/change.h"

namespace mergelens {

// How much reading a verdict asks for: 3 close_read, 2 selective_read,
// 1 skim, 0 skip, -1 for anything else.
int verdict_level(std::string_view verdict);

// The verdict a verdict sentence leads with: "close_read", "selective_read",
// "skim", "skip", or "" when its first clause names none ("值得精读，但只…" →
// close_read; "Skim: …" → skim; "Read three files …" → "").
std::string verdict_lead(std::string_view verdict_text);

// Paragraphs of the PR's own text (title, body, commits, reviews) that try to
// instruct the model ("ignore previous instructions", "忽略之前的指令").
std::vector<std::string> injected_paragraphs(const Change& change);

// Why a model guide is unusable (empty when it is fine): an empty headline,
// summary or verdict; prose outside code not in `lang` (a quoted string or
// identifier never decides it); a verdict whose lead disagrees with
// `guide.verdict` by two levels or more; text copied from an instruction
// planted in the PR (24 bytes of it, or a URL only it contains; pieces the
// change also has elsewhere, such as a path, do not count).
std::string validate_guide(const Guide& guide, const Change& change, std::string_view lang,
                           const std::vector<std::string>& injected);

// Cuts lists to at most `max` items (the first ones, best first) instead of
// refusing the answer. Returns how many items were cut.
size_t trim_lists(Guide& guide, size_t max);

// The examples' lengths (../shared/reference): headlines of at most about
// 40 Chinese or 90 Latin characters — headline_width counts a CJK character
// or full-width mark 1 and any other character 4/9 (backticks not
// counted), so both limits are kHeadlineWidth —, digest paragraphs of
// 90-350 in prose::width.
inline constexpr double kHeadlineWidth = 40;
inline constexpr double kDigestWidth = 360;
double headline_width(std::string_view headline);

// A headline over kHeadlineWidth shortened to its longest lead that ends at a
// phrase boundary outside code and brackets and fits: a comma, semicolon,
// colon or dash ("LoRA 不再与投机解码互斥：…" → "LoRA 不再与投机解码互斥"),
// else, for a lead of at least half the width, before a linking word
// ("… for …", "… with …", "…，并…", "…以…"); returned as written when no
// such lead has 8 or more of width (never cut mid-word: the writer names
// the length back to the model in its retry instead).
std::string fit_headline(std::string_view headline);
// fit_headline (the name the writer used before lengths were measured).
std::string shorten_headline(std::string_view headline);
// A digest paragraph over kDigestWidth cut to its first whole sentences
// that fit (at least the first).
std::string fit_digest(std::string_view digest);

// Settles which judgment the guide shows. On entry guide.verdict, importance
// and insight hold the model's answer (empty or 0 when it gave none) and
// analysis.argument its argument; `facts` and `offline` (the offline guide
// of the same change and language) give the starting judgment's values and
// reasons: the analysis's, or the day's triage over them (triage_guide.h
// start_facts; the writer records whose is whose afterwards with
// record_judgments). Every value or text it changes is logged in
// guide.writer.edits with its field.
// A score may move by at most 2 and the verdict by one level, each only with
// a reason that cites the material (a code span, a path, a figure or a PR
// reference that the checker kept); a larger move is cut to the bound, an
// unargued one reverts; a verdict that reverts takes its verdict_text with it
// (the offline guide's replaces it) and clears the digest paragraph, which
// the caller composes again. Fills guide.analysis with the analysis's judgment.
//
// A verdict more than one level away is clamped to the nearest allowed level
// when argued (never a reason to lose the guide); an answer without a
// judgment (the first schema) argues the verdict its sentence leads with. The
// verdict sentence and digest follow the verdict shown: a move that goes
// back takes them with it, and a sentence (or paragraph) leading two levels
// or more away from the shown verdict is replaced (the paragraph cleared).
// A score whose reason is empty (the check removed it) or cites nothing goes
// back to the analysis's value and reason.
void settle_judgment(Guide& guide, const Facts& facts, const Guide& offline);

// A score's reason that opens by saying how the score moved ("Kept:", "Raised
// from 6:", "Lowered by 2:", "由 6 上调：", "保持：") is made to agree with the
// numbers shown beside it: when the opening is true neither of a move from
// guide.analysis's value nor from the triage's, it is written again from the
// analysis's value (the stored analysis is what the guide shows as "the
// analysis judged"), and the edit is recorded in guide.writer.edits. Call
// after guide.analysis and guide.triage are filled (record_judgments).
void align_score_texts(Guide& guide);

// The two guides of one bilingual answer show one judgment: a verdict or
// score that moved in one language but went back in the other goes back in
// both to where the guides started (triage_guide.h starting_judgment:
// verdict text from the offline guide, digest composed again, score with
// its starting reason), logged in writer.edits. Each guide must have been
// settled and its judgments recorded.
void agree_judgments(Guide& a, const Guide& offline_a, Guide& b, const Guide& offline_b);

}  // namespace mergelens
