// Ingests and analyses a test's git repository into a SQLite store and reads
// one change's facts: the steps the pipeline tests of the analysis share.
#pragma once

#include <cstdint>
#include <optional>

#include <gtest/gtest.h>

#include "mergelens/analysis/facts.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/store/store.h"
#include "test_helpers.h"

namespace mergelens::testing {

// The facts of change #`number` after ingesting and analysing `repo` into a
// store in `dir`; nullopt (and a test failure) when a step fails.
inline std::optional<Facts> analysed_facts(const TempDir& dir, const GitRepo& repo,
                                           std::int64_t number) {
  auto store = open_sqlite_store(dir / "db.sqlite");
  IngestOptions io;
  io.repo_path = repo.path();
  if (!store || !ingest(**store, io, nullptr)) {
    ADD_FAILURE() << "ingest failed";
    return std::nullopt;
  }
  auto rec = resolve_repo(**store, "");
  if (!rec || !analyze(**store, *rec, AnalyzeOptions{}, nullptr)) {
    ADD_FAILURE() << "analyze failed";
    return std::nullopt;
  }
  auto c = (*store)->get_change_by_number(rec->id, number);
  if (!c || !*c) {
    ADD_FAILURE() << "no change #" << number;
    return std::nullopt;
  }
  auto f = (*store)->get_facts((**c).id);
  if (!f || !*f) {
    ADD_FAILURE() << "no facts for #" << number;
    return std::nullopt;
  }
  return std::move(**f);
}

}  // namespace mergelens::testing
