// Claims about what a change does, checked against the code before and after
// it (the facts' switches and context, read at the parent and the merge):
//   - "new" claims: a new switch, a new file, a new function or API. False
//     when it existed at the parent ("新增开关 `SGLANG_OPT_X`" for a variable
//     read with a default months earlier).
//   - default claims: "on by default", "defaults to `False`", "changes the
//     default", "gives users a new default". Checked against the declared
//     default before and after; false when the default said is not the one
//     declared, or when a change of default is claimed and none happened.
//   - reach claims that rest on a switch being off: "only when `X` is on;
//     limited reach" for a switch declared on by default.
// A false claim fails its sentence, and every other sentence of the guide
// that argues from it (names the same subject with the same kind of claim,
// or, for a "new switch", a gradual rollout built on it). Both languages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"

namespace mergelens {

// Appends one failure per false claim (reason names what the repository
// had), and per sentence arguing from one. Only switches the analysis read
// (switches_known) and definitions it found at the parent are judged; a
// claim about something it did not read passes.
void check_claims(const Guide& guide, const CitationIndex& index,
                  std::vector<CitationFailure>& out);

// Claims about order: a PR called "later", "follow-up" or "后续" (a question's
// premise included) that the store says merged before this change (a PR that
// names this one but came first). Appends one failure per sentence making
// such a claim. Nothing when the store knows no such PR.
void check_order_claims(const Guide& guide, const CitationIndex& index,
                        std::vector<CitationFailure>& out);

// Gaps that ask for what the change already has: an assertion (`assert x ==
// y`, `self.assertEqual(...)`, `pytest.raises(...)`, `EXPECT_EQ(...)`) quoted
// in a gap, a trailing "…" dropped, that stands (as code_key writes both) in
// a run of lines the change adds to one of its test files. Appends one failure per such
// sentence, naming the file.
void check_gap_claims(const Guide& guide, const CitationIndex& index,
                      std::vector<CitationFailure>& out);
// Code as check_gap_claims compares it: no whitespace but one space between
// two words, single quotes made double, no comma before a closing bracket
// (Python reads the same code either way).
std::string code_key(std::string_view code);

// A reference whose relation says it came later ("later fix", "follow_up",
// "fixed_by", "后续") while the store says it merged before this change gets
// the relation "earlier change" ("更早的改动"); each fix is recorded in
// guide.writer.edits. The reference itself stays: it is real.
void fix_reference_order(Guide& guide, const CitationIndex& index);

}  // namespace mergelens
