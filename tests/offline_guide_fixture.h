// The setup the offline writer's end-to-end suites share: each suite crafts
// one small git repository, and the real pipeline ingests it, analyses every
// change and writes its offline guide in both languages (zh, en), once per
// suite. Tests then look a change, its facts and its guides up by PR number.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/write.h"
#include "mergelens/store/store.h"
#include "test_helpers.h"

namespace mergelens::testing {

// The parts of a guide guide_sentences() reads beyond those it always reads
// (headline, summary, verdict text, why, digest, importance and insight
// reasons, each focus item's question and why, design decisions, questions,
// number cautions and gaps).
struct GuideParts {
  bool audience = true;      // after the digest
  bool body_vs_code = true;  // before the gaps
  bool advice = true;        // each advice's text, after the gaps
  bool skim = true;          // "path reason" per skimmed file, after the advice
  bool tags = false;         // "tag:name" per tag, last
};

// The published text of `g` that `parts` names, one string per item, in the
// order GuideParts lists; empty items are kept.
inline std::vector<std::string> guide_sentences(const Guide& g, const GuideParts& parts = {}) {
  std::vector<std::string> out = {g.headline, g.summary, g.verdict_text, g.why, g.digest};
  if (parts.audience) out.push_back(g.audience);
  out.push_back(g.importance.reason);
  out.push_back(g.insight.reason);
  for (const auto& f : g.focus) {
    out.push_back(f.question);
    out.push_back(f.why);
  }
  for (const auto* v : {&g.design_decisions, &g.questions, &g.number_cautions})
    out.insert(out.end(), v->begin(), v->end());
  if (parts.body_vs_code) out.insert(out.end(), g.body_vs_code.begin(), g.body_vs_code.end());
  out.insert(out.end(), g.gaps.begin(), g.gaps.end());
  if (parts.advice)
    for (const auto& a : g.advice) out.push_back(a.text);
  if (parts.skim)
    for (const auto& s : g.skim) out.push_back(s.path + " " + s.reason);
  if (parts.tags)
    for (const auto& t : g.tags) out.push_back("tag:" + t);
  return out;
}

// A GoogleTest fixture over one crafted history, written once per suite.
// `Suite` derives from OfflineGuideFixture<Suite> and declares, public:
//   static void write_history(GitRepo& repo);
// which writes and commits its repository's contents (and adds a remote when
// the suite wants one); the repository starts empty on branch main. A suite
// may also declare `static constexpr GuideParts kGuideParts` to choose what
// all_text() reads (every part but the tags when it does not).
//
// SetUpTestSuite builds the history under a fresh temporary folder, opens a
// SQLite store there, ingests, analyses and writes zh and en guides with the
// default options; an assertion failing there fails every test of the suite.
// The fixture owns the folder, the store and the repository record until
// TearDownTestSuite deletes them; tests borrow them through store_ and repo_.
template <typename Suite>
class OfflineGuideFixture : public ::testing::Test {
 public:
  static constexpr GuideParts kGuideParts{};

 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    GitRepo repo(*dir_ / "work");
    Suite::write_history(repo);

    auto s = open_sqlite_store(*dir_ / "db.sqlite");
    ASSERT_TRUE(s);
    store_ = s->release();
    IngestOptions io;
    io.repo_path = repo.path();
    ASSERT_TRUE(ingest(*store_, io, nullptr));
    auto r = resolve_repo(*store_, "");
    ASSERT_TRUE(r);
    repo_ = new RepoRecord(*r);
    ASSERT_TRUE(analyze(*store_, *repo_, AnalyzeOptions{}, nullptr));
    WriteOptions w;
    w.langs = {"zh", "en"};
    ASSERT_TRUE(write_guides(*store_, *repo_, w, nullptr));
  }

  static void TearDownTestSuite() {
    delete store_;
    delete repo_;
    delete dir_;
    store_ = nullptr;
    repo_ = nullptr;
    dir_ = nullptr;
  }

  // The stored change of PR `number`'s id; 0, and a failed expectation, when
  // there is none.
  static std::int64_t id(std::int64_t number) {
    auto c = store_->get_change_by_number(repo_->id, number);
    EXPECT_TRUE(c && *c) << "#" << number;
    return c && *c ? (**c).id : 0;
  }
  // PR `number`'s facts; empty facts, and a failed expectation, when none
  // are stored.
  static Facts facts(std::int64_t number) {
    auto f = store_->get_facts(id(number));
    EXPECT_TRUE(f && *f) << "#" << number;
    return f && *f ? **f : Facts{};
  }
  // PR `number`'s guide in `lang`; an empty guide, and a failed expectation,
  // when none is stored.
  static Guide guide(std::int64_t number, const std::string& lang) {
    auto g = store_->get_guide(id(number), lang);
    EXPECT_TRUE(g && *g) << "#" << number << " " << lang;
    return g && *g ? **g : Guide{};
  }
  // The zh guide's and then the en guide's parts Suite::kGuideParts names,
  // one line each.
  static std::string all_text(std::int64_t number) {
    std::string out;
    for (const char* lang : {"zh", "en"})
      for (const auto& s : guide_sentences(guide(number, lang), Suite::kGuideParts))
        out += s + "\n";
    return out;
  }

  static inline TempDir* dir_ = nullptr;
  static inline Store* store_ = nullptr;
  static inline RepoRecord* repo_ = nullptr;
};

}  // namespace mergelens::testing
