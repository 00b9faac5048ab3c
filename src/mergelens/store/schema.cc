#include "mergelens/store/schema.h"

namespace mergelens::sql {

namespace {

constexpr std::string_view kMigrations[] = {
    // 1: repositories, changes, their files (patch = zstd-compressed hunks), commits, labels.
    R"sql(
CREATE TABLE repos (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL DEFAULT '',
  web_base TEXT NOT NULL DEFAULT '',
  branch TEXT NOT NULL DEFAULT '',
  base_sha TEXT NOT NULL DEFAULT ''
);
CREATE TABLE changes (
  id INTEGER PRIMARY KEY,
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  kind TEXT NOT NULL,
  number INTEGER,
  sha TEXT NOT NULL,
  parent_sha TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  author_login TEXT NOT NULL,
  merged_at INTEGER NOT NULL,
  url TEXT NOT NULL,
  file_count INTEGER NOT NULL,
  additions INTEGER NOT NULL,
  deletions INTEGER NOT NULL,
  files_truncated INTEGER NOT NULL DEFAULT 0,
  UNIQUE (repo_id, sha)
);
CREATE INDEX changes_by_number ON changes(repo_id, number);
CREATE INDEX changes_by_time ON changes(repo_id, merged_at);
CREATE TABLE change_files (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  path TEXT NOT NULL,
  old_path TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  binary INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  additions INTEGER NOT NULL,
  deletions INTEGER NOT NULL,
  patch BLOB,
  PRIMARY KEY (change_id, idx)
) WITHOUT ROWID;
CREATE TABLE change_commits (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  sha TEXT NOT NULL,
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  authored_at INTEGER NOT NULL,
  committed_at INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (change_id, idx)
) WITHOUT ROWID;
CREATE TABLE change_labels (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  PRIMARY KEY (change_id, name)
) WITHOUT ROWID;
)sql",
    // 2: analysis facts (zstd JSON) with the fields queries filter on, tags and references.
    R"sql(
CREATE TABLE facts (
  change_id INTEGER PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  verdict TEXT NOT NULL,
  importance INTEGER NOT NULL,
  insight INTEGER NOT NULL,
  lines_worth_reading INTEGER NOT NULL,
  doc BLOB NOT NULL
);
CREATE TABLE change_tags (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  PRIMARY KEY (change_id, name)
) WITHOUT ROWID;
CREATE INDEX change_tags_by_name ON change_tags(name);
CREATE TABLE change_refs (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  relation TEXT NOT NULL,
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  sha TEXT NOT NULL
);
CREATE INDEX change_refs_by_change ON change_refs(change_id);
CREATE INDEX change_refs_by_number ON change_refs(number) WHERE number > 0;
CREATE INDEX change_refs_by_sha ON change_refs(sha) WHERE sha != '';
)sql",
    // 3: guides per change and language (zstd JSON), marked stale when the facts change; the
    // LLM answer cache; one row per write run (the token and cost ledger).
    R"sql(
CREATE TABLE guides (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  lang TEXT NOT NULL,
  writer TEXT NOT NULL,
  headline TEXT NOT NULL,
  text TEXT NOT NULL,
  stale INTEGER NOT NULL DEFAULT 0,
  written_at INTEGER NOT NULL,
  doc BLOB NOT NULL,
  PRIMARY KEY (change_id, lang)
) WITHOUT ROWID;
CREATE TRIGGER guides_stale_on_facts AFTER INSERT ON facts BEGIN
  UPDATE guides SET stale = 1 WHERE change_id = NEW.change_id;
END;
CREATE TRIGGER guides_stale_on_facts_delete AFTER DELETE ON facts BEGIN
  UPDATE guides SET stale = 1 WHERE change_id = OLD.change_id;
END;
CREATE TABLE llm_cache (
  key TEXT PRIMARY KEY,
  written_at INTEGER NOT NULL,
  doc BLOB NOT NULL
);
CREATE TABLE write_runs (
  id INTEGER PRIMARY KEY,
  started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  writer TEXT NOT NULL,
  model TEXT NOT NULL,
  guides INTEGER NOT NULL,
  cached INTEGER NOT NULL,
  fallbacks INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  retries INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  usd REAL NOT NULL,
  removed_citations INTEGER NOT NULL
);
)sql",
    // 4: GitHub source: PR state, conversation (reviews, review comments, issue
    // comments) and per-repository sync state. Written without reference to
    // the migrations before it, so it can be renumbered.
    R"sql(
ALTER TABLE changes ADD COLUMN open INTEGER NOT NULL DEFAULT 0;
ALTER TABLE changes ADD COLUMN draft INTEGER NOT NULL DEFAULT 0;
ALTER TABLE changes ADD COLUMN head_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN base_ref TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN merged_by TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX changes_open ON changes(repo_id) WHERE open != 0;
CREATE TABLE change_reviews (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  github_id INTEGER NOT NULL,
  author TEXT NOT NULL,
  state TEXT NOT NULL,
  body TEXT NOT NULL,
  submitted_at INTEGER NOT NULL,
  PRIMARY KEY (change_id, idx)
) WITHOUT ROWID;
CREATE TABLE change_review_comments (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  github_id INTEGER NOT NULL,
  in_reply_to INTEGER NOT NULL,
  author TEXT NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  original_line INTEGER NOT NULL,
  diff_hunk TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (change_id, idx)
) WITHOUT ROWID;
CREATE TABLE change_comments (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  github_id INTEGER NOT NULL,
  author TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (change_id, idx)
) WITHOUT ROWID;
CREATE TABLE github_sync (
  repo_id INTEGER PRIMARY KEY REFERENCES repos(id),
  closed_since INTEGER NOT NULL DEFAULT 0,
  open_since INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE github_etags (
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  key TEXT NOT NULL,
  etag TEXT NOT NULL,
  PRIMARY KEY (repo_id, key)
) WITHOUT ROWID;
)sql",
    // 5: full-text search, one document per change (rowid = changes.id): title, guide
    // headlines, guide text; CJK runs rewritten as bigrams (store/sql_search.cc).
    R"sql(
CREATE VIRTUAL TABLE search_docs USING fts5(title, headline, body, tokenize = 'unicode61',
                                            prefix = '1 2 3');
)sql",
    // 6: delivered digests (deliver/): each part of a day's message as planned for a target,
    // and whether the service accepted it. Written without reference to the migrations
    // before it (beyond repos), so it can be renumbered.
    R"sql(
CREATE TABLE deliveries (
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  target TEXT NOT NULL,
  day TEXT NOT NULL,
  part INTEGER NOT NULL,
  parts INTEGER NOT NULL,
  payload BLOB NOT NULL,
  planned_at INTEGER NOT NULL,
  sent_at INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (repo_id, target, day, part)
) WITHOUT ROWID;
)sql",
    // 7: the job queue, the shared model limits and per-repository worker settings
    // (store/jobs.h; the same tables as PostgreSQL migration 2, store/pg_schema.cc).
    R"sql(
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  repo_id INTEGER NOT NULL DEFAULT 0,
  change_id INTEGER NOT NULL DEFAULT 0,
  lang TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL,
  serial TEXT NOT NULL DEFAULT '',
  payload TEXT NOT NULL DEFAULT '',
  priority INTEGER NOT NULL DEFAULT 100,
  not_before INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  state TEXT NOT NULL DEFAULT 'queued',
  attempts INTEGER NOT NULL DEFAULT 0,
  owner TEXT NOT NULL DEFAULT '',
  lease_until INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX jobs_one_queued_per_key ON jobs(key) WHERE state = 'queued';
CREATE UNIQUE INDEX jobs_one_running_per_serial ON jobs(serial)
  WHERE state = 'running' AND serial != '';
CREATE INDEX jobs_ready ON jobs(priority, id) WHERE state IN ('queued', 'running');
CREATE TABLE model_limits (
  name TEXT PRIMARY KEY,
  tat_ms INTEGER NOT NULL DEFAULT 0,
  day INTEGER NOT NULL DEFAULT 0,
  day_tokens INTEGER NOT NULL DEFAULT 0,
  requests INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE repo_settings (
  name TEXT PRIMARY KEY,
  path TEXT NOT NULL DEFAULT '',
  branch TEXT NOT NULL DEFAULT '',
  github TEXT NOT NULL DEFAULT '',
  schedule_seconds INTEGER NOT NULL DEFAULT 0,
  langs TEXT NOT NULL DEFAULT 'zh',
  llm INTEGER NOT NULL DEFAULT 0
);
)sql",
    // 8: shallow-clone boundaries: the change was read without its parent, so it has no files
    // (Change::shallow); a later ingest of the deepened clone fills it in.
    // Numbered 6 on the branch that added it; open_sqlite_store renumbers such stores.
    R"sql(
ALTER TABLE changes ADD COLUMN shallow INTEGER NOT NULL DEFAULT 0;
CREATE INDEX changes_shallow ON changes(repo_id) WHERE shallow != 0;
)sql",
    // 9: the model's triage of each day (pipeline/triage.h), beside the analysis's judgment.
    R"sql(
CREATE TABLE triage (
  change_id INTEGER PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  key TEXT NOT NULL,
  rank INTEGER NOT NULL,
  importance INTEGER NOT NULL,
  insight INTEGER NOT NULL,
  verdict TEXT NOT NULL,
  scope TEXT NOT NULL DEFAULT '',
  reason_zh TEXT NOT NULL DEFAULT '',
  reason_en TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  at INTEGER NOT NULL DEFAULT 0
);
-- The judgment pages show and filter on: the model's triage when a day has
-- one, else the analysis's (store/rows.h kSummaryColumns reads it as f).
CREATE VIEW judged AS
  SELECT f.change_id AS change_id, coalesce(t.verdict, f.verdict) AS verdict,
         coalesce(t.importance, f.importance) AS importance,
         coalesce(t.insight, f.insight) AS insight
  FROM facts f LEFT JOIN triage t ON t.change_id = f.change_id;
)sql",
    // 10: files whose diff was not read (FileChange::unavailable: a blob missing from a partial
    // clone, a file too large to diff, memory), why; NULL when read. A later ingest rereads
    // the changes holding one and rewrites them once the file can be read.
    R"sql(
ALTER TABLE change_files ADD COLUMN unavailable TEXT;
CREATE INDEX change_files_unavailable ON change_files(change_id) WHERE unavailable IS NOT NULL;
)sql",
    // 11: switches a change declares for the first time (Facts::switches, change "added"),
    // indexed by put_facts so the analysis knows where each switch was introduced.
    R"sql(
CREATE TABLE switch_origins (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  PRIMARY KEY (change_id, name)
);
)sql",
    // 12: the triage's scope in Chinese beside its English one (scope).
    R"sql(
ALTER TABLE triage ADD COLUMN scope_zh TEXT NOT NULL DEFAULT '';
)sql",
    // 13: threads and themes. change_links: the earlier changes a change belongs with
    // (Facts::thread, written with its facts); themes: a model's themes of a window (a week, a
    // release range), one document per window (pipeline/themes.h).
    R"sql(
CREATE TABLE change_links (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  target_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  relation TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (change_id, target_id)
) WITHOUT ROWID;
CREATE INDEX change_links_by_target ON change_links(target_id);
CREATE TABLE themes (
  repo_id INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  span TEXT NOT NULL,
  key TEXT NOT NULL,
  model TEXT NOT NULL DEFAULT '',
  at INTEGER NOT NULL DEFAULT 0,
  doc TEXT NOT NULL,
  PRIMARY KEY (repo_id, span)
);
)sql",
    // 14: what pages read without decoding a document (issue 36). A tag row carries its
    // change's repository and merge time (kept by a trigger when they change), so the tag
    // list, a tag's weeks and a tag's newest changes are read from one index; verdicts are
    // indexed for the close reads. facts_briefs: the user-visible signals and the tag weights
    // of the facts (JSON), written with them; guide_briefs: what a list shows of a guide
    // (JSON). Facts or guides without one (written before this migration) are read from the
    // document until `serve` or `export` fills it in (Store::fill_page_rows).
    R"sql(
ALTER TABLE change_tags ADD COLUMN repo_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE change_tags ADD COLUMN merged_at INTEGER NOT NULL DEFAULT 0;
UPDATE change_tags SET
  repo_id = (SELECT c.repo_id FROM changes c WHERE c.id = change_tags.change_id),
  merged_at = (SELECT c.merged_at FROM changes c WHERE c.id = change_tags.change_id);
CREATE INDEX change_tags_by_repo ON change_tags(repo_id, name, merged_at);
CREATE TRIGGER change_tags_follow_change AFTER UPDATE OF repo_id, merged_at ON changes BEGIN
  UPDATE change_tags SET repo_id = NEW.repo_id, merged_at = NEW.merged_at
   WHERE change_id = NEW.id;
END;
CREATE INDEX facts_by_verdict ON facts(verdict);
CREATE INDEX triage_by_verdict ON triage(verdict);
CREATE TABLE facts_briefs (
  change_id INTEGER PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
  brief TEXT NOT NULL
);
CREATE TABLE guide_briefs (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  lang TEXT NOT NULL,
  brief TEXT NOT NULL,
  PRIMARY KEY (change_id, lang)
) WITHOUT ROWID;
)sql",
    // 15: guides as a rowid table. WITHOUT ROWID kept each whole row (its document included) in
    // the primary key's b-tree, so every key comparison of a lookup read the row's overflow
    // pages: 5 µs to find one guide on a whole-history store, against 0.3 µs now (issue 36;
    // bench/README.md, "Search, 2026-12-05"). Same columns, keys and triggers.
    R"sql(
DROP TRIGGER guides_stale_on_facts;
DROP TRIGGER guides_stale_on_facts_delete;
CREATE TABLE guides_rowid (
  change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  lang TEXT NOT NULL,
  writer TEXT NOT NULL,
  headline TEXT NOT NULL,
  text TEXT NOT NULL,
  stale INTEGER NOT NULL DEFAULT 0,
  written_at INTEGER NOT NULL,
  doc BLOB NOT NULL,
  PRIMARY KEY (change_id, lang)
);
INSERT INTO guides_rowid (change_id, lang, writer, headline, text, stale, written_at, doc)
  SELECT change_id, lang, writer, headline, text, stale, written_at, doc FROM guides
  ORDER BY change_id, lang;
DROP TABLE guides;
ALTER TABLE guides_rowid RENAME TO guides;
CREATE TRIGGER guides_stale_on_facts AFTER INSERT ON facts BEGIN
  UPDATE guides SET stale = 1 WHERE change_id = NEW.change_id;
END;
CREATE TRIGGER guides_stale_on_facts_delete AFTER DELETE ON facts BEGIN
  UPDATE guides SET stale = 1 WHERE change_id = OLD.change_id;
END;
)sql",
};

}  // namespace

std::span<const std::string_view> migrations() {
  return kMigrations;
}

}  // namespace mergelens::sql
