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

}  // namespace mergelens
