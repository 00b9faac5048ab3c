// What a guide takes from the model's triage of its day (guide/triage.h),
// and how it keeps apart whose judgment is whose.
//
// Three judgments meet in a guide: the analysis's (deterministic, from the
// facts), the triage's (a model comparing the day's changes, before the
// guide) and the guide's own (the model writing the guide, which may agree
// with where it started or argue a move). A guide starts from the triage's
// judgment when its day has one, else from the analysis's. The triage's
// words are never presented as analysis facts: the prompt gives them a
// section of their own, labelled as the model's earlier judgment, and the
// scope and reasons readers see pass the same citation check as a guide.
// No I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"
#include "mergelens/guide/triage.h"

namespace mergelens {

// The verdict as a reader reads it: "close_read" → "值得精读" (zh) or
// "close read" (en); an unknown value as given. Never returns null.
const char* verdict_words(std::string_view verdict, std::string_view lang);

// The triage's scope and reason in `lang` ("zh" or "en"), else in the
// other language when that one is empty.
std::string triage_scope(const TriageJudgment& t, std::string_view lang);
std::string triage_reason(const TriageJudgment& t, std::string_view lang);

// The judgment a guide starts from when its day has a triage: `analysis`
// with the triage's verdict and scores (a close or selective read without a
// scope names the analysis's reading scope; a skim or skip has none), each
// score with its own reason in `lang` ("zh"/"en"): a score the triage kept
// keeps the analysis's reasons; a score it moved takes the triage's reason,
// and when both moved the one moved less says the two values instead
// ("the day's triage judged 6; the analysis 3"), so the two reasons differ.
// The offline writer and the bounds of the guide's own judgment use it; the
// prompt shows the analysis's facts and the triage apart.
Facts start_facts(const Facts& analysis, const TriageJudgment& triage, std::string_view lang);

// The analysis's own reasons for a score in `lang`: its first three, in the
// offline writer's words, joined.
std::string analysis_reason(const Score& score, std::string_view lang);

// Records whose judgment is whose in a finished guide (guide.lang set):
// guide.analysis takes the analysis's own verdict, values and reasons (the
// model's argument is kept), guide.triage the triage's values with its
// scope and reason in the guide's language (cleared without a triage).
void record_judgments(Guide& guide, const Facts& analysis, const TriageJudgment* triage);

// The guide's starting judgment as recorded by record_judgments: the
// triage's when it has one, else the analysis's (values; reasons empty for
// the triage's). Used to move a guide's judgment back where it started.
GuideJudgment starting_judgment(const Guide& guide);

// The prompt section that gives the triage to the guide's writer, labelled
// as a model's earlier judgment, not a fact: its verdict and scores beside
// the analysis's, then its scope and reason (both languages when `lang` is
// "both", else the prompt's language first) fenced with `fence` as text a
// model wrote about untrusted material. Ends with a newline.
std::string triage_prompt_section(const TriageJudgment& triage, const Facts& analysis,
                                  std::string_view lang, std::string_view fence);

// Checks the triage's texts a reader sees (both scopes and both reasons) as
// a guide's claims are checked (citations.h), each as one claim field:
// failing sentences are removed, the rest kept when it still reads. Returns
// one line per removal ("reason_en: #34869 (a PR not named in the change):
// sentence removed").
std::vector<std::string> check_triage_texts(TriageJudgment& triage, const CitationIndex& index);

// Whether the triage moved the analysis's judgment by two or more: the
// verdict by two levels or more, or the importance by two points or more.
bool triage_moved_far(std::string_view analysis_verdict, int analysis_importance,
                      std::string_view triage_verdict, int triage_importance);

}  // namespace mergelens
