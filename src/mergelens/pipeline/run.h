// The main job: ingest a clone, sync the PR conversation from GitHub (when a
// token is given), analyse and write guides, incrementally. Each step keeps
// its own resumability (batches of one transaction), so a run killed at any
// point leaves a store the next run completes.
#pragma once

#include <optional>
#include <string>

#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/sync.h"
#include "mergelens/pipeline/write.h"

namespace mergelens {

struct RunOptions {
  IngestOptions ingest;
  bool fetch = false;        // fetch `origin` before ingesting (watch mode)
  std::string github_token;  // empty: no sync
  std::string github_api_url = "https://api.github.com";
  AnalyzeOptions analyze;
  WriteOptions write;
};

struct RunReport {
  bool fetched = false;
  std::string fetch_failed;  // why fetching origin failed; the clone was ingested as it is
  IngestReport ingest;
  std::optional<SyncReport> sync;  // set when a sync ran
  std::string sync_skipped;        // why no sync ran, when a token was given
  AnalyzeReport analyze;
  WriteReport write;
};

// Runs the steps in order. Fails with the first step's error (what earlier
// steps stored stays stored). `show_progress`: each step reports its own
// progress on stderr (see util/progress.h).
Result<RunReport> run_once(Store& store, const RunOptions& options, bool show_progress);

}  // namespace mergelens
