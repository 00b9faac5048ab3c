// Guide: the reading guide for one change, in one language.
//
// Every writer (offline, LLM) produces this value and every publisher reads
// it. Its JSON form (guide_json.h) is described by docs/guide.schema.json.
// Each element mirrors one element of the reference guides: a field is empty
// when the change does not support it, and publishers skip empty fields.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mergelens {

// 2: `digest`, `analysis` and `suggested_code` were added (a version-1
// document reads with them empty). 3: `triage` and `writer.edits` were
// added, and `analysis` holds the analysis's own judgment even when the
// guide started from a triage (a version-2 guide written from a triage holds
// the triage's values there, and no `triage`).
inline constexpr int kGuideSchemaVersion = 3;

// A place to read and the question to hold while reading it.
struct GuideFocus {
  std::string path;
  std::int32_t start_line = 0, end_line = 0;  // new-file lines; 0 when not a range
  std::string symbol;                         // enclosing function or class, may be empty
  std::string question;                       // the decision made there and what to ask of it
  std::string why;                            // why this place matters (from the facts)
};

struct GuideSkim {
  std::string path;
  std::string reason;  // "clean-up", "rename only", ...
};

struct GuideAdvice {
  std::string role;  // "user", "maintainer", "reviewer", "operator"
  std::string text;
};

struct GuideReference {
  std::string ref;       // "#1234", "owner/repo#12", a short sha
  std::string relation;  // "fixes", "follow_up", "reverts", "mentions", "fixed_by", ...
  std::string note;      // one line of context
};

struct GuideScore {
  int value = 0;  // 1..10, 0 = not scored
  std::string reason;
};

// Where the guide came from: the original PR and the writer.
// The analysis's own judgment. A model may argue a different one (scores by
// up to 2, the verdict by one level) with a reason citing the material; the
// guide then shows the model's values in `verdict`, `importance` and
// `insight`, and keeps the analysis's here. For an offline guide, and for a
// model guide that kept the analysis's values, these equal the shown ones and
// `argument` is empty.
struct GuideJudgment {
  std::string verdict;             // "close_read", ... as the analysis said
  GuideScore importance, insight;  // the analysis's values and reasons
  // Why the model moved the judgment from where it started (the triage's,
  // else the analysis's); empty when unchanged.
  std::string argument;
};

// The model's triage of the day (pipeline/triage.h) a guide started from: a
// guide's starting judgment is the triage's when its day has one, and the
// guide's model may agree or argue against it like against the analysis's.
// Its scope and reason are in the guide's language and passed the citation
// check. `verdict` is empty when the guide had no triage to start from.
struct GuideTriage {
  std::string verdict;  // "close_read", ...
  int importance = 0, insight = 0;
  std::string scope;   // how much to read and where; may be empty
  std::string reason;  // why, one line; may be empty
};

struct GuideSource {
  std::string repo;
  std::int64_t number = 0;  // 0 when the change has no PR number
  std::string sha;
  std::string url;
  std::string title;
  std::string author;     // login when known, else the author's name
  std::string merged_at;  // ISO 8601 UTC, empty for an open PR
  bool open = false;
};

struct GuideWriter {
  std::string kind;             // "offline" or "llm"
  std::string model;            // the model for "llm", empty for "offline"
  std::string prompt_version;   // for "llm"
  std::string fallback_reason;  // set when an LLM was asked for but the offline writer wrote it
  std::vector<std::string> removed;  // citations the checker removed, with the reason
  // Every other change the writer made to the model's answer, one line
  // each, naming the exact field ("headline: shortened at a phrase boundary
  // (…)", "importance.reason: blank, the starting reason stands (…)",
  // "questions[2]: removed as in the zh guide of the same answer").
  std::vector<std::string> edits;
  int attempts = 0;     // HTTP requests made for this guide (0 when cached/offline)
  bool cached = false;  // answer taken from the cache
  // What writing it took (a bilingual answer counts once for both guides):
  // model calls, tokens the server reported, and the plan ("single", "both",
  // "split 3+1", "split 2+1 both", "both +en" when a language was asked again).
  int calls = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  std::string plan;
};

struct Guide {
  int schema = kGuideSchemaVersion;
  std::string lang;  // "zh" or "en"
  std::string headline;
  // The digest paragraph: the verdict with its scope plus the lesson, naming
  // the places to read, in two or three sentences (as one entry of a day's
  // digest reads). Empty in guides written before it existed: publishers
  // then build it from verdict_text and why.
  std::string digest;
  std::string summary;
  std::string verdict;       // "close_read", "selective_read", "skim", "skip"
  std::string verdict_text;  // the verdict with its scope, as a sentence
  std::string why;           // the lesson, one or two sentences
  std::vector<GuideFocus> focus;
  std::vector<GuideSkim> skim;
  std::vector<std::string> design_decisions;
  std::vector<std::string> questions;
  std::vector<std::string> number_cautions;
  std::vector<std::string> body_vs_code;
  std::vector<std::string> gaps;
  std::vector<GuideAdvice> advice;
  std::string audience;
  std::vector<GuideReference> references;
  // Code the guide proposes that is not in the change (a test to add, a
  // setting to try, an alternative expression), as written between its
  // backticks; publishers show these spans as suggestions. A model may
  // declare them in its answer; the citation check keeps those it accepts.
  std::vector<std::string> suggested_code;
  // What the guide could not see: files whose hunks were capped, a file list
  // cut at the cap, a title or body clipped. Empty when it saw everything.
  std::vector<std::string> limits;
  GuideScore importance, insight;  // the values shown (see GuideJudgment)
  GuideJudgment analysis;
  GuideTriage triage;
  std::vector<std::string> tags;
  GuideSource source;
  GuideWriter writer;
};

}  // namespace mergelens
