// The store: everything mergelens keeps between runs.
//
// `Store` is the only way other modules reach persisted data; no SQL leaves
// this folder, so another backend (PostgreSQL shared by several workers) can
// implement the same interface. Every method either completes or changes
// nothing: writes run in one transaction, and readers never see a change
// without its files and commits.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/model/change.h"
#include "mergelens/store/jobs.h"
#include "mergelens/util/error.h"

namespace mergelens {

struct RepoRecord {
  std::int64_t id = 0;
  std::string name;      // "owner/repo" or a folder name; unique in the store
  std::string path;      // local clone last ingested from
  std::string web_base;  // "https://github.com/owner/repo", empty when unknown
  std::string branch;
  // Newest first-parent commit whose whole ancestry is stored; the next ingest
  // stops walking there. Empty until one ingest reached the root.
  std::string base_sha;
};

// The repository id that stands for every repository of the store in the
// page queries that take it (list_changes, adjacent_merge, tag_stats,
// aggregate, search): the cross-repository pages. No repository has it.
inline constexpr std::int64_t kAllRepos = 0;

struct ChangeSummary {
  std::int64_t id = 0;
  std::int64_t repo_id = 0;  // the repository the change belongs to
  ChangeKind kind = ChangeKind::kCommit;
  std::optional<std::int64_t> number;
  std::string sha;
  std::string title;
  Person author;
  UnixSeconds merged_at = 0;
  std::string url;
  std::int32_t file_count = 0;
  std::int64_t additions = 0, deletions = 0;
  // From the stored facts; verdict is empty when the change is not analysed.
  std::string verdict;
  int importance = 0, insight = 0;
  bool open = false;  // an open pull request (merged_at is 0)
  // A newer change of the repository carries the same number (a second
  // "(#106)" commit): `/pr/106` and `show 106` name that one, so this one is
  // addressed by its sha (web::url_ref).
  bool number_reused = false;
};

// Where the GitHub sync of a repository stopped (see pipeline/sync.h).
struct GithubSyncState {
  UnixSeconds closed_since = 0;              // closed PRs updated before this are all stored
  UnixSeconds open_since = 0;                // open PRs updated before this are all stored
  std::map<std::string, std::string> etags;  // list query → ETag of its first page
};

// A stored row that carries a PR number (cheap lookup for the sync's join).
struct PullRow {
  std::int64_t id = 0;
  std::string sha;
  bool open = false;
  std::string head_sha;
  UnixSeconds updated_at = 0;
  std::int32_t file_count = 0;
};

struct ListQuery {
  std::optional<UnixSeconds> since;  // merged_at >= since
  std::optional<UnixSeconds> until;  // merged_at < until
  size_t limit = 0;                  // 0 = no limit
};

// One `write` run: what it produced and what it cost (the ledger).
struct WriteRunRecord {
  UnixSeconds started_at = 0, finished_at = 0;
  std::string writer;  // "offline" or "llm"
  std::string model;
  std::int64_t guides = 0, cached = 0, fallbacks = 0;
  std::int64_t requests = 0, retries = 0, failures = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  double usd = 0;
  std::int64_t removed_citations = 0;
};

// --- pages and search (web/) ---

// Monday 00:00 UTC of the week holding `t` (weeks are UTC weeks).
UnixSeconds week_start(UnixSeconds t);

// One week of an aggregate: how many changes and their mean scores.
struct WeekStat {
  UnixSeconds week = 0;  // week_start() of the week
  std::int64_t count = 0;
  double importance = 0, insight = 0;  // means over the analysed changes of the week
};

// A tag with how many changes carry it, and its weekly counts.
struct TagStat {
  std::string name;
  std::int64_t count = 0;
  std::int64_t close_reads = 0;
  std::vector<std::int64_t> weekly;  // counts of the last `weeks` weeks, oldest first
};

struct AggregateQuery {
  std::vector<std::string> tags;     // the changes carry every one of them (empty: all changes)
  std::optional<UnixSeconds> since;  // merged_at >= since
  std::optional<UnixSeconds> until;  // merged_at < until
  std::string verdict;               // "close_read", ...; empty: any
  int min_score = 0;                 // importance >= min_score (0: unscored changes too)
  size_t limit = 200;                // rows of `changes`
  size_t top = 10;                   // rows of `top` (0: none)
  bool figures = true;               // false: count, means and weeks are left empty (feeds)
};

// What a list (a day, a week, a tag's changes) shows of a guide, read
// without its document (Store::guide_briefs).
struct GuideBrief {
  std::string lang;
  std::string headline;
  std::string paragraph;  // the digest paragraph (the writer's, else composed: guide/digest.h)
  // The judgment the guide shows (a model may argue another than the one it
  // was written from); verdict empty and scores 0 when it gives none.
  std::string verdict;
  int importance = 0, insight = 0;
  std::string importance_reason, insight_reason;
  // The judgment it was written from: the triage's when the guide started
  // from one (Guide::triage), else Guide::analysis.
  std::string analysis_verdict;
  int analysis_importance = 0, analysis_insight = 0;
};

struct Aggregate {
  // The figures (not when the query said figures = false):
  std::int64_t count = 0;                        // every matching change (not capped by limit)
  std::int64_t close_reads = 0;                  // of them, verdict close_read
  double mean_importance = 0, mean_insight = 0;  // over the analysed ones
  std::vector<WeekStat> weeks;                   // weeks with at least one change, oldest first
  std::vector<ChangeSummary> changes;            // newest first, at most `limit`
  std::vector<ChangeSummary> top;                // by importance + insight, then newest
};

// One term of a parsed search query (web/search.h parses user input). The
// store quotes every term itself: no user text reaches FTS5 syntax.
struct SearchAlternative {
  std::string text;     // as SearchTerm::text
  bool prefix = false;  // as SearchTerm::prefix
};
struct SearchTerm {
  std::string text;      // one word or a phrase ("cuda graph", "缓存命中")
  bool prefix = false;   // the last word is a prefix ("quant*")
  bool exclude = false;  // -term: changes containing it are dropped
  // Other forms of the same term (the glossary's translations and spellings,
  // added by web/search.cc): the term matches a change when `text` or any
  // alternative matches it, so the group is one OR inside the AND of the
  // terms (and `exclude` drops changes matching any of them). Each form is
  // matched like `text` (phrase, CJK bigrams, its own prefix flag); a form
  // without a letter or digit is ignored. Empty for most terms.
  std::vector<SearchAlternative> alternatives;
};

struct SearchHit {
  ChangeSummary change;
  std::string headline;  // of the guide in the asked language, else any guide; may be empty
  std::string text;      // that guide's prose (guide_text), may be empty
  double rank = 0;       // bm25, lower is better; 0 when the hits are listed newest first
};

// The guide headline of a change in one language (from the guides table,
// without reading the guide document).
struct GuideLine {
  std::string lang;
  std::string headline;
  std::string writer;
};

// --- deliveries (deliver/; store/sqlite_deliveries.cc) ---------------------
//
// What was delivered where: a day's digest for a delivery target (a
// [[deliver]] table of mergelens.toml) is planned once as its parts (the
// messages, split to the service's size limit), and each part is marked sent
// when the service accepted it. A restart sends the parts still unsent, as
// planned, so a day is never planned twice and a sent part is never sent
// again. Payloads hold the message only: no URL, token or signature.

struct DeliveryPart {
  std::string target;   // the target's name
  std::string day;      // "YYYY-MM-DD", the local day of the target's time zone
  int part = 0;         // 0-based
  int parts = 0;        // how many parts the day was planned as (the same in every part)
  std::string payload;  // the message as planned (opaque to the store)
  UnixSeconds planned_at = 0;
  UnixSeconds sent_at = 0;  // 0 until the service accepted it
  int attempts = 0;         // requests made for this part (all runs)
  std::string last_error;   // of the last failed attempt; empty after success
};

// The model's triage of a change (pipeline/triage.h): its place in its day
// and the judgment a model gave it after comparing the day's changes. Kept
// beside the analysis's judgment, which stays in the facts.
struct TriageRecord {
  std::int64_t change_id = 0;
  std::string day;  // "YYYY-MM-DD" (UTC) of the batch the change was triaged in
  std::string key;  // the batch's input hash and model: an equal key means nothing new to ask
  int rank = 0;     // 1-based place in the day, most worth reading first
  int importance = 0, insight = 0;  // 1-10 on the calibrated scale (docs/judgment.md)
  std::string verdict;              // close_read | selective_read | skim | skip
  std::string scope;  // how much to read, in the model's words (English); may be empty
  std::string reason_zh, reason_en;  // one line each; may be empty
  std::string model;
  UnixSeconds at = 0;    // when it was stored
  std::string scope_zh;  // the scope in Chinese; may be empty
  // Read only (triage_of fills them from the facts; put_triage ignores
  // them): the analysis's own judgment of the change, so a reader can see
  // what the triage moved. Empty and 0 when the change has no facts.
  std::string analysis_verdict;
  int analysis_importance = 0, analysis_insight = 0;
};

// One end of a thread link (analysis/text/threads.h) as pages name it.
struct LinkEnd {
  std::int64_t id = 0;
  std::optional<std::int64_t> number;
  std::string sha, title;
  UnixSeconds merged_at = 0;
};

// A stored thread link: `from` (the later change) belongs with `to` as
// `relation` says ("series", "reverts", "relands", "follow_up", "fixes",
// "builds_on"; detail as ThreadLink::detail).
struct ThreadEdge {
  LinkEnd from, to;
  std::string relation, detail;
};

// A model's themes of a window (pipeline/themes.h), kept as the document the
// pipeline wrote: the store does not read it.
struct ThemeSet {
  std::string span;  // the window: "week:2026-W25", "dates:2026-06-01..2026-06-30", ...
  std::string key;   // the request's hash and model: an equal key means nothing new to ask
  std::string model;
  UnixSeconds at = 0;
  std::string doc;  // JSON
};

class DeliveryStore {
 public:
  virtual ~DeliveryStore() = default;
  // Records `parts` (all of one target and day, numbered 0..n-1, each with
  // `parts` = n; sent_at, attempts and last_error are ignored and start at
  // 0/"") unless that target and day already has parts recorded. Returns
  // the recorded parts in part order: the new ones, or the existing ones
  // untouched when the day was planned before. One transaction.
  // kInvalidInput when `parts` is empty or inconsistent.
  virtual Result<std::vector<DeliveryPart>> plan_delivery(std::int64_t repo_id,
                                                          std::span<const DeliveryPart> parts) = 0;
  // Records one attempt at a planned part: attempts + 1, and sent_at = `at`
  // with last_error cleared when `error` is empty, else last_error = `error`
  // (sent_at unchanged). kNotFound when the part is not planned.
  virtual Result<void> record_delivery_attempt(std::int64_t repo_id, std::string_view target,
                                               std::string_view day, int part, UnixSeconds at,
                                               std::string_view error) = 0;
  // The recorded parts of `target` for `day`, in part order (empty when
  // none); with `day` empty, those of the newest day recorded for `target`
  // (days compare as text).
  virtual Result<std::vector<DeliveryPart>> deliveries(std::int64_t repo_id,
                                                       std::string_view target,
                                                       std::string_view day) = 0;
  // Removes the records of `target` for `day` (deliver --force), so the day
  // can be planned again. Returns how many parts were removed.
  virtual Result<size_t> forget_delivery(std::int64_t repo_id, std::string_view target,
                                         std::string_view day) = 0;
};

// The job queue and worker settings (JobStore) are declared in store/jobs.h.
// Where a switch was first declared (Store::switch_origins).
struct SwitchOrigin {
  std::string name;  // switch_origin_key: the name, and for a field or option its file
  std::int64_t change_id = 0;
  std::string ref;  // "#123", or the short sha of a change without a PR number
  std::int64_t merged_at = 0;
};

class Store : public DeliveryStore, public JobStore {
 public:
  ~Store() override = default;

  // Inserts a repository or updates the path, web_base and branch of the one
  // with the same name (base_sha is left as stored). Returns the stored record.
  virtual Result<RepoRecord> upsert_repo(const RepoRecord& repo) = 0;
  virtual Result<std::vector<RepoRecord>> list_repos() = 0;
  // nullopt when no repository has that name.
  virtual Result<std::optional<RepoRecord>> find_repo(std::string_view name) = 0;

  // Shas of every stored change of a repository.
  virtual Result<std::unordered_set<std::string>> known_shas(std::int64_t repo_id) = 0;
  // Shas of the repository's changes stored as shallow boundaries (read
  // without their parent; see Change::shallow), oldest merge first.
  virtual Result<std::vector<std::string>> shallow_boundaries(std::int64_t repo_id) = 0;
  // The repository's changes stored with a file whose diff was not read
  // (FileChange::unavailable), oldest merge first: sha and how many such files.
  virtual Result<std::vector<std::pair<std::string, size_t>>> incomplete_changes(
      std::int64_t repo_id) = 0;

  // Stores `changes` (each change's `repo` field is ignored: `repo_id` says
  // where it belongs), skipping any whose sha is already stored, and moves the
  // repository's base to `new_base` when given — in one transaction. One
  // exception: a change stored as a shallow boundary (Change::shallow), or
  // with an unavailable file (FileChange::unavailable), is replaced by a read
  // of it that is not (the clone was deepened, the blob fetched): same id,
  // its files, commits and counts rewritten, its facts dropped so the next
  // analysis recomputes them. Returns how many were inserted or so replaced.
  // On failure nothing is stored.
  virtual Result<size_t> put_changes(std::int64_t repo_id, std::span<const Change> changes,
                                     const std::optional<std::string>& new_base) = 0;

  // Changes of a repository (kAllRepos: of every repository), newest merge
  // first.
  virtual Result<std::vector<ChangeSummary>> list_changes(std::int64_t repo_id,
                                                          const ListQuery& query) = 0;
  virtual Result<size_t> count_changes(std::int64_t repo_id) = 0;

  // The newest change carrying a PR number, with files, hunks and commits.
  virtual Result<std::optional<Change>> get_change_by_number(std::int64_t repo_id,
                                                             std::int64_t number) = 0;
  // Every change of the repository carrying `number`, newest merge first
  // (the first is the one get_change_by_number returns); empty when none.
  virtual Result<std::vector<ChangeSummary>> changes_with_number(std::int64_t repo_id,
                                                                 std::int64_t number) = 0;
  // Full shas of stored changes starting with `prefix` (at most 10).
  virtual Result<std::vector<std::string>> find_shas(std::int64_t repo_id,
                                                     std::string_view prefix) = 0;
  virtual Result<std::optional<Change>> get_change_by_sha(std::int64_t repo_id,
                                                          std::string_view sha) = 0;
  virtual Result<std::optional<Change>> get_change_by_id(std::int64_t id) = 0;

  // Ids of the repository's changes that have no facts of `version`, oldest
  // merge first.
  virtual Result<std::vector<std::int64_t>> changes_needing_analysis(std::int64_t repo_id,
                                                                     int version) = 0;
  // Stores (or replaces) the facts of several changes in one transaction,
  // with their verdict, scores, tags, references and thread links (to the
  // stored change of the repository with the link's sha) indexed for queries.
  // Older changes of the same repository that these facts say they fix,
  // follow up or revert lose their facts in the same transaction, so the next
  // analysis recomputes them with the new back-reference. Returns how many
  // older changes were so marked.
  virtual Result<size_t> put_facts(std::span<const std::pair<std::int64_t, Facts>> facts) = 0;
  // nullopt when the change has no stored facts.
  virtual Result<std::optional<Facts>> get_facts(std::int64_t change_id) = 0;
  // The change that first declared each switch, as stored facts say
  // (Facts::switches with change "added"; indexed by put_facts): per name,
  // the earliest merge, names sorted. The analysis moves this along the
  // changes in merge order to say where a switch was introduced.
  virtual Result<std::vector<SwitchOrigin>> switch_origins(std::int64_t repo_id) = 0;
  // For each of `ids` with facts: the signals of its facts a reader sees as
  // user-visible (kinds "cli_flag", "env_var" and "public_api"), in the
  // facts' order, its tags with their weights (Tag::weight) and the path of
  // its first focus item, without decoding the facts document (facts stored
  // before the brief, or before its focus path, are read whole until
  // fill_page_rows()). Ids without facts are absent.
  struct FactsBrief {
    std::vector<Signal> signals;
    std::vector<std::pair<std::string, double>> tag_weights;
    std::string focus_path;  // Facts::focus.front().path; empty without focus
  };
  virtual Result<std::map<std::int64_t, FactsBrief>> facts_briefs(
      std::span<const std::int64_t> ids) = 0;
  // Later changes of the same repository whose references name `change` (its
  // PR number or its sha), oldest first.  (Backlink is defined in facts.h.)
  virtual Result<std::vector<Backlink>> referenced_by(std::int64_t repo_id,
                                                      const Change& change) = 0;

  // --- guides (one per change and language) ---

  // Ids of analysed changes, oldest merge first, that need a guide in `lang`:
  // none stored, or the stored one is stale (its facts changed since), or
  // (`want_llm`) it was not written by a model. `force` returns every
  // analysed change.
  virtual Result<std::vector<std::int64_t>> changes_needing_guide(std::int64_t repo_id,
                                                                  std::string_view lang,
                                                                  bool want_llm, bool force) = 0;
  // Stores (or replaces) guides in one transaction; each guide's `lang` and
  // `writer.kind` are indexed. On failure nothing is stored.
  virtual Result<void> put_guides(std::span<const std::pair<std::int64_t, Guide>> guides) = 0;
  // nullopt when the change has no guide in `lang`. kCorrupt when the stored
  // document cannot be read.
  virtual Result<std::optional<Guide>> get_guide(std::int64_t change_id, std::string_view lang) = 0;
  // For each of `ids` with a guide: the brief of its guide in `lang`, else of
  // its guide in the other language ("zh"/"en"); ids without a guide are
  // absent. Read from a column, so a list of hundreds costs no document
  // (guides stored before the column are read whole until fill_page_rows()).
  // kCorrupt as get_guide.
  virtual Result<std::map<std::int64_t, GuideBrief>> guide_briefs(std::span<const std::int64_t> ids,
                                                                  std::string_view lang) = 0;

  // Stores triage records, replacing a change's earlier one. A change whose
  // verdict or scores differ from its earlier record (or that had none) has
  // its guides marked stale, so they are written again from the new
  // judgment. Failure: kIo/kCorrupt from the database; nothing is stored.
  virtual Result<void> put_triage(std::span<const TriageRecord> records) = 0;
  // The triage records of `ids` that have one (changes without are absent).
  virtual Result<std::map<std::int64_t, TriageRecord>> triage_of(
      std::span<const std::int64_t> ids) = 0;
  // --- threads and themes (store/sql_threads.cc) ---

  // (merge sha, path) of every file added by the repository's changes merged
  // at or after `since`, oldest merge first: thread detection's "files
  // another recent change added".
  virtual Result<std::vector<std::pair<std::string, std::string>>> added_files(
      std::int64_t repo_id, UnixSeconds since) = 0;
  // Every stored thread link with either end in `ids`, ordered by the later
  // change's merge time, then the earlier one's. Links are written by
  // put_facts from Facts::thread.
  virtual Result<std::vector<ThreadEdge>> thread_edges(std::span<const std::int64_t> ids) = 0;
  // Stores `set` for `repo_id`, replacing the window's earlier one.
  virtual Result<void> put_themes(std::int64_t repo_id, const ThemeSet& set) = 0;
  // The stored themes of window `span`; nullopt when none.
  virtual Result<std::optional<ThemeSet>> get_themes(std::int64_t repo_id,
                                                     std::string_view span) = 0;

  // The model-answer cache: a JSON text by key (see pipeline/write.h for the
  // key). nullopt on a miss.
  virtual Result<std::optional<std::string>> cache_get(std::string_view key) = 0;
  virtual Result<void> cache_put(std::string_view key, std::string_view json) = 0;
  // Up to `limit` cache entries (key, JSON) with keys after `after`, in key
  // order: how `mergelens migrate-store` copies the cache.
  virtual Result<std::vector<std::pair<std::string, std::string>>> cache_entries(
      std::string_view after, size_t limit) = 0;

  // --- pages (store/sql_pages.cc) ---

  // The merge time of the newest change merged before `t` (`before`), or of
  // the oldest change merged at or after `t` (!`before`); nullopt when none.
  // repo_id kAllRepos: over every repository (as in tag_stats, aggregate).
  virtual Result<std::optional<UnixSeconds>> adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                            bool before) = 0;
  // Tag names of each change (sorted), for the given ids; ids without tags
  // are absent from the map.
  virtual Result<std::map<std::int64_t, std::vector<std::string>>> tags_of(
      std::span<const std::int64_t> ids) = 0;
  // Stored guide headlines of each change (any language) for the given ids.
  virtual Result<std::map<std::int64_t, std::vector<GuideLine>>> guide_lines(
      std::span<const std::int64_t> ids) = 0;
  // Every tag of the repository with its count, its close reads and its
  // counts over the `weeks` weeks ending with the week of the newest change
  // (none when `weeks` is 0), most used first, then by name.
  virtual Result<std::vector<TagStat>> tag_stats(std::int64_t repo_id, size_t weeks) = 0;
  // The changes matching `query` with their figures (see Aggregate).
  // kInvalidInput when more than 8 tags are given.
  virtual Result<Aggregate> aggregate(std::int64_t repo_id, const AggregateQuery& query) = 0;
  // A number that changes whenever another connection commits to the store
  // (PRAGMA data_version): publishers use it to drop cached pages.
  virtual Result<std::int64_t> data_version() = 0;
  // Runs `body` inside one read transaction, so every query it makes sees
  // the same committed state: a writer committing meanwhile is not seen
  // half-way (its whole change shows on the next call). `body` must not
  // write. Returns BEGIN/COMMIT failures; an exception from `body` ends the
  // transaction and is rethrown to the caller.
  virtual Result<void> read_snapshot(const std::function<void()>& body) = 0;

  // --- search (store/sql_search.cc) ---
  //
  // One full-text document per change: its title, its guide headlines and
  // its guide text in every language. put_changes and put_guides keep it
  // current in their own transaction. CJK text is indexed as overlapping
  // bigrams plus the last character of each run (see ARCHITECTURE.md), so a
  // query of any length, one character included, matches as a substring.

  // Indexes every change that has no search document yet (a store created
  // before the index existed). Returns how many were indexed.
  virtual Result<size_t> refresh_search_index() = 0;
  // Fills the briefs pages read instead of documents (facts_briefs,
  // guide_briefs) for facts and guides stored before they existed, in
  // transactions of a few hundred; returns how many were filled (0 on every
  // later call). The facts and guides themselves are unchanged (no guide turns stale).
  virtual Result<size_t> fill_page_rows() = 0;
  // Changes of the repository (kAllRepos: of every repository) matching
  // every included term and no excluded one, best first (bm25), at most
  // `limit`; when 500 or more changes match
  // (a common word), the newest matches first. kInvalidInput when no term is
  // included or a term has no letter or digit.
  virtual Result<std::vector<SearchHit>> search(std::int64_t repo_id,
                                                std::span<const SearchTerm> terms,
                                                std::string_view lang, size_t limit) = 0;

  // Appends one row to the ledger of write runs.
  virtual Result<void> record_write_run(const WriteRunRecord& run) = 0;
  // The most recent runs, newest first.
  virtual Result<std::vector<WriteRunRecord>> write_runs(size_t limit) = 0;

  // --- GitHub source (store/sqlite_github.cc) ---

  // Rows of a repository carrying PR `number` (open ones and merged ones),
  // newest id first; empty when none.
  virtual Result<std::vector<PullRow>> pull_rows(std::int64_t repo_id, std::int64_t number) = 0;

  // Stores one pull request with its files, commits, labels, state and
  // conversation, in one transaction: the row with id `change.id` when
  // nonzero (kept: same id), else the row with the same sha, else a new row.
  // Rows listed in `absorb` (say, the git row of a PR first stored open) are
  // deleted first, so the surviving row may take their sha. The row's facts
  // are dropped so the next analysis recomputes them. When `state` is given it
  // is saved in the same transaction (sync progress). Returns the row id. On
  // failure nothing changes.
  virtual Result<std::int64_t> put_pull(std::int64_t repo_id, const Change& change,
                                        std::span<const std::int64_t> absorb,
                                        const std::optional<GithubSyncState>& state) = 0;

  // Deletes a change with everything it owns (a PR that was stored open and
  // closed without merging). Deleting an unknown id is not an error.
  virtual Result<void> delete_change(std::int64_t id) = 0;

  // The sync state of a repository; all zero and no ETags before a first sync.
  virtual Result<GithubSyncState> get_sync_state(std::int64_t repo_id) = 0;
  // Replaces the sync state of a repository (its ETags included).
  virtual Result<void> put_sync_state(std::int64_t repo_id, const GithubSyncState& state) = 0;
};

struct StoreOptions {
  bool create = true;  // create the file (and its folder) when missing
  // Map the file for reads (mmap): best for long-lived readers that come back
  // to the same pages (the server). A batch job that reads the whole store
  // once would keep every page it touched resident in its own RSS, so the
  // command-line jobs read through SQLite's bounded page cache instead.
  bool map_file = true;
};

// Opens (creating and migrating as needed) the SQLite store at `path`.
// Failures, each naming `path`: kNotFound (missing and !create), kIo (folder
// cannot be created or is read-only), kCorrupt (not a database, or not a
// mergelens one), kUnsupported (written by a newer mergelens).
Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path,
                                                 const StoreOptions& options = {});

// Opens the PostgreSQL store at `url` (postgresql://... or postgres://...),
// migrating it as needed. Failures name the server: kIo (unreachable),
// kCorrupt (the database holds another program's tables), kUnsupported
// (written by a newer mergelens, or an encoding other than UTF8 and
// SQL_ASCII: docs/operations.md, "How commit text is kept byte for byte").
Result<std::unique_ptr<Store>> open_pg_store(const std::string& url,
                                             const StoreOptions& options = {});

// True when `location` is a PostgreSQL URL rather than a file path.
bool is_pg_url(std::string_view location);

// Opens the store at `location`: a PostgreSQL URL, else a SQLite file.
Result<std::unique_ptr<Store>> open_store_at(const std::string& location,
                                             const StoreOptions& options = {});

// Chooses the repository a command works on: the one named `name`, or the only
// one in the store when `name` is empty. kNotFound / kInvalidInput otherwise,
// listing the names the store holds.
Result<RepoRecord> resolve_repo(Store& store, std::string_view name);

// Looks a change up by "#N", "N" or a sha prefix of at least 7 hex digits. An
// all-digit ref (up to 18 digits) is a PR number first, and a sha prefix only
// when no PR has that number.
// kNotFound when nothing matches, kInvalidInput when `ref` is malformed or an
// abbreviated sha is ambiguous.
Result<Change> find_change(Store& store, const RepoRecord& repo, std::string_view ref);

}  // namespace mergelens
