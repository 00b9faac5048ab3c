// What a delivered digest says, before any service's format: the day page's
// entries (web/digest.h) with the links a message can carry. Every renderer
// (render.h) formats this one value, so Feishu, DingTalk, WeCom, Slack and
// e-mail readers read the same digest as the day page.
#pragma once

#include <string>
#include <vector>

#include "mergelens/deliver/config.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/web/digest.h"

namespace mergelens::deliver {

// A run of text: plain, or a code span (`code` in the guide's prose).
struct Span {
  std::string text;
  bool code = false;
};

struct Entry {
  std::string ref;                // "#1234" or a short sha
  std::vector<Span> headline;     // code spans split out
  std::string link;               // the entry's page (site_url) or the original PR; may be empty
  std::vector<Span> paragraph;    // the digest paragraph; empty without a guide
  std::vector<std::string> tags;  // display names in the target's language
  std::string pr_url;             // the original PR (http(s) only); may be empty
  std::string author, merged;     // login or name; "YYYY-MM-DD HH:MM" local time
  std::string verdict;            // "close_read", ...; empty when not analysed
  std::string verdict_label;
  int importance = 0, insight = 0;
};

// Labels in the target's language.
struct Labels {
  std::string original_pr, author, merged_at, tags, close_links, skipped, importance, insight, more,
      part;
};

struct Content {
  std::string lang;  // "zh" or "en"
  std::string repo, date;
  std::string title;    // "sgl-project/sglang · 2026-09-16"
  std::string figures;  // "合并 44 个，其中 6 个值得精读；选读 9 · ..."
  // A week's themes (report/themes.h), one line each ("title: highlight
  // (#1, #2)"), most important first; empty for a day.
  std::vector<std::string> themes;
  std::string themes_label;    // "本周主题（模型）" / "Themes of the week (analysis)"
  std::vector<Entry> entries;  // most worth reading first, skip-verdict ones excluded
  std::vector<Entry> skipped;  // skip-verdict entries, one line each
  std::string day_url;         // the day page when site_url is set; else empty
  Labels labels;

  size_t close_reads() const;
};

// The digest of local day `day` for `target` (its language, time zone and
// site_url), read in one snapshot of the store. kInvalidInput for a bad day
// or time zone.
Result<Content> build_content(Store& store, const RepoRecord& repo, const Target& target,
                              std::string_view day);

// The digest of ISO week `week` ("2026-W48") for a weekly target: the
// week's themes (at most five lines), then its close and selective reads
// (report/week.h) by their theme's rank, then the day's order,
// filtered by the target's filter; `date` is the week. kInvalidInput for a
// bad week.
Result<Content> build_week_content(Store& store, const RepoRecord& repo, const Target& target,
                                   std::string_view week);

// One entry as delivered (links by the target's site_url), and the labels
// in `lang`: shared by the day and the week.
Entry entry_of(const web::Site& site, const Target& target, const web::DigestEntry& entry);
Labels labels_of(web::Lang lang);
// The links a target's messages use (/r/NAME/... in a store of several
// repositories), and a Content with its language, repository, date (the day
// or week `key`) and title set. Store errors pass through.
Result<web::Links> target_links(Store& store, const RepoRecord& repo, web::Lang lang);
Content content_head(const RepoRecord& repo, const Target& target, std::string_view key);

// `text` split on backticks into plain and code spans (as web::rich does).
std::vector<Span> spans(std::string_view text);

}  // namespace mergelens::deliver
