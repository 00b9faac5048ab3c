// One change as a reader sees it in a digest, a week or release notes: its
// summary with the judgment shown (the guide's, else the model's triage of
// the day, else the analysis's), the guide's headline and digest paragraph in
// one language, its tags and the triage's place and reason. web/digest.h
// names this value DigestEntry; every list a reader gets is built from it, so
// the day page, the week, feeds, deliveries and release notes say the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/guide/guide.h"
#include "mergelens/report/threads.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::report {

struct Entry {
  ChangeSummary change;           // verdict and scores: the judgment shown (see above)
  std::string headline;           // the guide's headline, else the title (clean UTF-8)
  std::string paragraph;          // digest_paragraph() of the guide; empty without a guide
  std::vector<std::string> tags;  // tag names as stored
  std::string importance_reason, insight_reason;  // from the guide; may be empty
  bool has_guide = false;
  // The model's triage of the day (pipeline/triage.h), when there is one: its
  // place, and its reason in the entry's language. The entry then shows the
  // triage's verdict and scores, or the guide's when the guide was written
  // from this triage (a model may argue it by a level).
  std::optional<TriageRecord> triage;
  std::string triage_reason;
  std::string triage_scope;  // the triage's scope in the entry's language; may be empty
  // The triage moved the analysis's judgment far: the verdict by two levels
  // or more, or the importance by two points or more (guide/triage_guide.h
  // triage_moved_far); the triage record holds both judgments.
  bool triage_moved_far = false;
  // The changes it belongs with (report/threads.h), strongest first, and the
  // same as phrases in the entry's language ("part 2 of 3 (with #12)",
  // "reverted by #130 on the same day").
  std::vector<ThreadNote> thread;
  std::vector<std::string> thread_text;
};

// The digest paragraph of a guide: Guide::digest when its writer gave one,
// else guide/digest.h's compose_digest(). Empty when the guide has neither.
std::string digest_paragraph(const Guide& guide);

// The guide of change `id` in `lang` ("zh"/"en"), else in the other one;
// nullopt when it has none. Store errors pass through.
Result<std::optional<Guide>> guide_in(Store& store, std::string_view lang, std::int64_t id);

// The entries of `rows`, in the order given: tags, triage records, thread
// links and each change's guide (in `lang`, else the other language) read from `store`.
// Fails only with the store's errors. The caller owns the result.
Result<std::vector<Entry>> load_entries(Store& store, std::string_view lang,
                                        const std::vector<ChangeSummary>& rows);

// 4 close_read, 3 selective_read, 2 skim, 1 skip, 0 not analysed (or unknown):
// how much reading a verdict asks for.
int verdict_level(std::string_view verdict);

// Sorts most worth reading first: close reads, selective reads, skims,
// unanalysed, skips; within a verdict the triage's order of its day when
// the model triaged it, else importance + insight, then newest. Stable.
void order_entries(std::vector<Entry>& entries);

// The strongest of an entry's tags by its stored facts' weights; else its
// first tag; empty for an untagged entry. Store errors pass through.
Result<std::string> strongest_tag(Store& store, const Entry& entry);

}  // namespace mergelens::report
