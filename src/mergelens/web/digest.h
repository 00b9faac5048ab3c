// The digest: a day's entries in the form of the reference examples (headline,
// the digest paragraph, tags, original PR · author · merge time), the most
// worth reading first and skip-verdict PRs last. One value serves the day
// page, `digest --format md`, the feeds and every delivered message
// (deliver/), so they all say the same thing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/guide/guide.h"
#include "mergelens/report/entry.h"
#include "mergelens/report/week.h"
#include "mergelens/web/pages.h"

namespace mergelens::web {

// The digest paragraph of a guide: Guide::digest when its writer gave one;
// otherwise built from the guide's verdict_text (the verdict with its
// scope), its why (the lesson) and, for close and selective reads, the focus
// places the text does not name yet (at most three, by symbol and file), in
// the guide's language. Empty when the guide has none of these.
std::string digest_paragraph(const Guide& guide);

// One entry of a digest (report/entry.h: the judgment shown, headline,
// paragraph, tags, triage).
using DigestEntry = report::Entry;

struct DayDigest {
  std::string date;  // "YYYY-MM-DD" (local day of the site's time zone); empty: empty store
  // Changes merged that day: close reads first, then selective reads, skims,
  // unanalysed ones and skips; within a verdict, the triage's order when the
  // model triaged the day, else by importance + insight, then newest.
  std::vector<DigestEntry> entries;
  std::vector<DigestEntry> open;  // open PRs (listed on the newest day only)
  size_t close_reads = 0, selective_reads = 0, skims = 0, skips = 0;
  size_t triaged = 0;                     // entries with a model triage
  size_t left_out = 0;                    // changes the site's filter left out (Site::filter)
  std::optional<std::string> prev, next;  // nearest days with changes
};

// The digest of local day `date` ("" = the newest day with changes).
// kInvalidInput for a malformed date; a valid day without changes has no
// entries. Reads the guides in the site's language, else any language.
// With Site::filter, only the entries passing it (the counts are theirs;
// left_out says how many the filter dropped).
Result<DayDigest> day_digest(const Site& site, std::string_view date);

// The guide of change `id` in the site's language, else in the other one;
// nullopt when it has none.
Result<std::optional<Guide>> guide_for(const Site& site, std::int64_t id);

// What the model's triage moved of the analysis's judgment, with both values
// ("模型分诊改动了分析的判断：结论 浏览即可 → 值得精读；重要度 3 → 6").
std::string triage_moved_text(Lang lang, const TriageRecord& triage);

// `entry` as a list item of the pages (change_item() plus "paragraph" as
// rich segments, "anchor", and the score reasons).
nlohmann::json digest_item(const Site& site, const DigestEntry& entry);

// Loads the guide of every item in `items` (change_item() values) and adds
// what digest_item() adds: the paragraph and the score reasons.
Result<void> add_paragraphs(const Site& site, nlohmann::json& items);

// The same figures line for a week's entries (report::Week), with what a
// filter left out.
std::string week_figures(Lang lang, const report::Week& week);

// "合并 44 个，其中 6 个值得精读；选读 9 · 浏览 20 · 可跳过 9" in the site's
// language (the day's figures).
std::string day_figures(Lang lang, const DayDigest& d);

}  // namespace mergelens::web
