// Review facts: what the PR's reviewers said, read from Change::reviews,
// review_comments and comments (filled by the GitHub source; empty otherwise).
// No I/O.
#pragma once

#include <string_view>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// True when a remark proposes later work: "follow-up", "next step", "in a
// follow-up PR", "in a separate PR", "later PR", "TODO for later".
bool is_follow_up_remark(std::string_view text);

// Fills facts.reviewers (logins of reviewers and commenters other than the
// author and bots, sorted) and facts.review_points: requested changes,
// approvals with a remark, line comments (path and line; "suggestion" for
// suggested edits) and follow-up remarks (from reviews, line comments and the
// conversation). PR references in follow-up remarks are appended to
// facts.references with source "review" and relation "follow_up" (references
// to the change itself and ones already listed are skipped). `this_repo` as
// for extract_references.
void add_review_facts(const Change& change, std::string_view this_repo, Facts& facts);

}  // namespace mergelens
