// The digest paragraph of a guide when its writer gave none: the verdict
// with its scope, then the lesson, then (for a guide worth reading) the focus
// places the text does not name yet — as each entry of a day's digest reads.
// Used by the model writer for answers without a digest and by every
// publisher for guides stored before the paragraph existed. No I/O.
#pragma once

#include <string>

#include "mergelens/guide/guide.h"

namespace mergelens {

// Built from `guide`'s verdict text, why and focus points only (each already
// checked), in the guide's language; empty when all three are.
std::string compose_digest(const Guide& guide);

}  // namespace mergelens
