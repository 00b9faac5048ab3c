// PostgreSQL schema: ordered migrations of its own, recorded in
// mergelens_meta. The tables mirror the SQLite ones (store/schema.cc) column
// for column, so the SQL of both backends reads alike: flags are integers,
// times are Unix seconds, documents and patches zstd-compressed bytea.
// Search documents are a tsvector per change with a GIN index, built by the
// store itself from the bigram-rewritten text (sql_search.cc).
#include "mergelens/store/pg_store_impl.h"

namespace mergelens::pgsql {

namespace {

constexpr std::string_view kMigrations[] = {
    // 1: everything the SQLite store's migrations 1-5 hold.
    R"sql(
CREATE TABLE repos (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL DEFAULT '',
  web_base TEXT NOT NULL DEFAULT '',
  branch TEXT NOT NULL DEFAULT '',
  base_sha TEXT NOT NULL DEFAULT ''
);
CREATE TABLE changes (
  id BIGSERIAL PRIMARY KEY,
  repo_id BIGINT NOT NULL REFERENCES repos(id),
  kind TEXT NOT NULL,
  number BIGINT,
  sha TEXT NOT NULL,
  parent_sha TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  author_login TEXT NOT NULL,
  merged_at BIGINT NOT NULL,
  url TEXT NOT NULL,
  file_count INTEGER NOT NULL,
  additions BIGINT NOT NULL,
  deletions BIGINT NOT NULL,
  files_truncated INTEGER NOT NULL DEFAULT 0,
  open INTEGER NOT NULL DEFAULT 0,
  draft INTEGER NOT NULL DEFAULT 0,
  head_sha TEXT NOT NULL DEFAULT '',
  base_ref TEXT NOT NULL DEFAULT '',
  merged_by TEXT NOT NULL DEFAULT '',
  updated_at BIGINT NOT NULL DEFAULT 0,
  UNIQUE (repo_id, sha)
);
CREATE INDEX changes_by_number ON changes(repo_id, number);
CREATE INDEX changes_by_time ON changes(repo_id, merged_at);
CREATE INDEX changes_open ON changes(repo_id) WHERE open != 0;
CREATE TABLE change_files (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  path TEXT NOT NULL,
  old_path TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  "binary" INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  additions INTEGER NOT NULL,
  deletions INTEGER NOT NULL,
  patch BYTEA,
  PRIMARY KEY (change_id, idx)
);
CREATE TABLE change_commits (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  sha TEXT NOT NULL,
  author_name TEXT NOT NULL,
  author_email TEXT NOT NULL,
  authored_at BIGINT NOT NULL,
  committed_at BIGINT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (change_id, idx)
);
CREATE TABLE change_labels (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  PRIMARY KEY (change_id, name)
);
CREATE TABLE facts (
  change_id BIGINT PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  verdict TEXT NOT NULL,
  importance INTEGER NOT NULL,
  insight INTEGER NOT NULL,
  lines_worth_reading INTEGER NOT NULL,
  doc BYTEA NOT NULL
);
CREATE TABLE change_tags (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  PRIMARY KEY (change_id, name)
);
CREATE INDEX change_tags_by_name ON change_tags(name);
CREATE TABLE change_refs (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  relation TEXT NOT NULL,
  repo TEXT NOT NULL,
  number BIGINT NOT NULL,
  sha TEXT NOT NULL
);
CREATE INDEX change_refs_by_change ON change_refs(change_id);
CREATE INDEX change_refs_by_number ON change_refs(number) WHERE number > 0;
CREATE INDEX change_refs_by_sha ON change_refs(sha) WHERE sha != '';
CREATE TABLE guides (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  lang TEXT NOT NULL,
  writer TEXT NOT NULL,
  headline TEXT NOT NULL,
  text TEXT NOT NULL,
  stale INTEGER NOT NULL DEFAULT 0,
  written_at BIGINT NOT NULL,
  doc BYTEA NOT NULL,
  PRIMARY KEY (change_id, lang)
);
CREATE FUNCTION mergelens_guides_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE guides SET stale = 1
   WHERE change_id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.change_id ELSE NEW.change_id END);
  RETURN NULL;
END $$;
CREATE TRIGGER guides_stale_on_facts AFTER INSERT OR UPDATE OR DELETE ON facts
  FOR EACH ROW EXECUTE FUNCTION mergelens_guides_stale();
CREATE TABLE llm_cache (
  key TEXT PRIMARY KEY,
  written_at BIGINT NOT NULL,
  doc BYTEA NOT NULL
);
CREATE TABLE write_runs (
  id BIGSERIAL PRIMARY KEY,
  started_at BIGINT NOT NULL,
  finished_at BIGINT NOT NULL,
  writer TEXT NOT NULL,
  model TEXT NOT NULL,
  guides BIGINT NOT NULL,
  cached BIGINT NOT NULL,
  fallbacks BIGINT NOT NULL,
  requests BIGINT NOT NULL,
  retries BIGINT NOT NULL,
  failures BIGINT NOT NULL,
  prompt_tokens BIGINT NOT NULL,
  completion_tokens BIGINT NOT NULL,
  usd DOUBLE PRECISION NOT NULL,
  removed_citations BIGINT NOT NULL
);
CREATE TABLE change_reviews (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  github_id BIGINT NOT NULL,
  author TEXT NOT NULL,
  state TEXT NOT NULL,
  body TEXT NOT NULL,
  submitted_at BIGINT NOT NULL,
  PRIMARY KEY (change_id, idx)
);
CREATE TABLE change_review_comments (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  github_id BIGINT NOT NULL,
  in_reply_to BIGINT NOT NULL,
  author TEXT NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  original_line INTEGER NOT NULL,
  diff_hunk TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (change_id, idx)
);
CREATE TABLE change_comments (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  github_id BIGINT NOT NULL,
  author TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (change_id, idx)
);
CREATE TABLE github_sync (
  repo_id BIGINT PRIMARY KEY REFERENCES repos(id),
  closed_since BIGINT NOT NULL DEFAULT 0,
  open_since BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE github_etags (
  repo_id BIGINT NOT NULL REFERENCES repos(id),
  key TEXT NOT NULL,
  etag TEXT NOT NULL,
  PRIMARY KEY (repo_id, key)
);
CREATE TABLE search_docs (
  change_id BIGINT PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
  doc TSVECTOR NOT NULL
);
CREATE INDEX search_docs_gin ON search_docs USING GIN (doc);
)sql",
    // 2: the job queue, the shared model limits, per-repository worker settings
    // (store/jobs.h); the same tables as SQLite migration 7.
    R"sql(
CREATE TABLE jobs (
  id BIGSERIAL PRIMARY KEY,
  kind TEXT NOT NULL,
  repo_id BIGINT NOT NULL DEFAULT 0,
  change_id BIGINT NOT NULL DEFAULT 0,
  lang TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL,
  serial TEXT NOT NULL DEFAULT '',
  payload TEXT NOT NULL DEFAULT '',
  priority INTEGER NOT NULL DEFAULT 100,
  not_before BIGINT NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  state TEXT NOT NULL DEFAULT 'queued',
  attempts INTEGER NOT NULL DEFAULT 0,
  owner TEXT NOT NULL DEFAULT '',
  lease_until BIGINT NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX jobs_one_queued_per_key ON jobs(key) WHERE state = 'queued';
CREATE UNIQUE INDEX jobs_one_running_per_serial ON jobs(serial)
  WHERE state = 'running' AND serial != '';
CREATE INDEX jobs_ready ON jobs(priority, id) WHERE state IN ('queued', 'running');
CREATE TABLE model_limits (
  name TEXT PRIMARY KEY,
  tat_ms BIGINT NOT NULL DEFAULT 0,
  day BIGINT NOT NULL DEFAULT 0,
  day_tokens BIGINT NOT NULL DEFAULT 0,
  requests BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE repo_settings (
  name TEXT PRIMARY KEY,
  path TEXT NOT NULL DEFAULT '',
  branch TEXT NOT NULL DEFAULT '',
  github TEXT NOT NULL DEFAULT '',
  schedule_seconds BIGINT NOT NULL DEFAULT 0,
  langs TEXT NOT NULL DEFAULT 'zh',
  llm INTEGER NOT NULL DEFAULT 0
);
)sql",
    // 3: delivered digests (deliver/), as SQLite migration 6.
    R"sql(
CREATE TABLE deliveries (
  repo_id BIGINT NOT NULL REFERENCES repos(id),
  target TEXT NOT NULL,
  day TEXT NOT NULL,
  part INTEGER NOT NULL,
  parts INTEGER NOT NULL,
  payload BYTEA NOT NULL,
  planned_at BIGINT NOT NULL,
  sent_at BIGINT NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (repo_id, target, day, part)
);
)sql",
    // 4: the data version (sql_pages.cc), one row moved by every write transaction.
    R"sql(
CREATE TABLE mergelens_version (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  n BIGINT NOT NULL
);
INSERT INTO mergelens_version(one, n) VALUES (1, 0);
)sql",
    // 5: shallow-clone boundaries (Change::shallow), as SQLite migration 8.
    R"sql(
ALTER TABLE changes ADD COLUMN shallow INTEGER NOT NULL DEFAULT 0;
CREATE INDEX changes_shallow ON changes(repo_id) WHERE shallow != 0;
)sql",
    // 6: the model's triage of each day, as SQLite migration 9.
    R"sql(
CREATE TABLE triage (
  change_id BIGINT PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
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
  at BIGINT NOT NULL DEFAULT 0
);
-- The judgment pages show and filter on: the model's triage when a day has
-- one, else the analysis's (store/rows.h kSummaryColumns reads it as f).
CREATE VIEW judged AS
  SELECT f.change_id AS change_id, coalesce(t.verdict, f.verdict) AS verdict,
         coalesce(t.importance, f.importance) AS importance,
         coalesce(t.insight, f.insight) AS insight
  FROM facts f LEFT JOIN triage t ON t.change_id = f.change_id;
)sql",
    // 7: files whose diff was not read (FileChange::unavailable), as SQLite migration 10.
    R"sql(
ALTER TABLE change_files ADD COLUMN unavailable TEXT;
CREATE INDEX change_files_unavailable ON change_files(change_id) WHERE unavailable IS NOT NULL;
)sql",
    // 8: switches a change declares for the first time, as SQLite migration 11.
    R"sql(
CREATE TABLE switch_origins (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  PRIMARY KEY (change_id, name)
);
)sql",
    // 9: the triage's scope in Chinese beside its English one (scope), as SQLite migration 12.
    R"sql(
ALTER TABLE triage ADD COLUMN scope_zh TEXT NOT NULL DEFAULT '';
)sql",
    // 10: threads and themes, as SQLite migration 13.
    R"sql(
CREATE TABLE change_links (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  target_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  relation TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (change_id, target_id)
);
CREATE INDEX change_links_by_target ON change_links(target_id);
CREATE TABLE themes (
  repo_id BIGINT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  span TEXT NOT NULL,
  key TEXT NOT NULL,
  model TEXT NOT NULL DEFAULT '',
  at BIGINT NOT NULL DEFAULT 0,
  doc TEXT NOT NULL,
  PRIMARY KEY (repo_id, span)
);
)sql",
    // 11: what pages read without decoding a document, as SQLite migration 14.
    R"sql(
ALTER TABLE change_tags ADD COLUMN repo_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE change_tags ADD COLUMN merged_at BIGINT NOT NULL DEFAULT 0;
UPDATE change_tags t SET repo_id = c.repo_id, merged_at = c.merged_at
  FROM changes c WHERE c.id = t.change_id;
CREATE INDEX change_tags_by_repo ON change_tags(repo_id, name, merged_at);
CREATE FUNCTION mergelens_tags_follow_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE change_tags SET repo_id = NEW.repo_id, merged_at = NEW.merged_at
   WHERE change_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER change_tags_follow_change AFTER UPDATE OF repo_id, merged_at ON changes
  FOR EACH ROW EXECUTE FUNCTION mergelens_tags_follow_change();
CREATE INDEX facts_by_verdict ON facts(verdict);
CREATE INDEX triage_by_verdict ON triage(verdict);
CREATE TABLE facts_briefs (
  change_id BIGINT PRIMARY KEY REFERENCES changes(id) ON DELETE CASCADE,
  brief TEXT NOT NULL
);
CREATE TABLE guide_briefs (
  change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
  lang TEXT NOT NULL,
  brief TEXT NOT NULL,
  PRIMARY KEY (change_id, lang)
);
)sql",
};

}  // namespace

std::span<const std::string_view> migrations() {
  return kMigrations;
}

}  // namespace mergelens::pgsql
