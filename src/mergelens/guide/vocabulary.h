// Names a guide may write without the change containing them: those of the
// languages, standard libraries, frameworks and protocols the code speaks
// (`KeyError`, `fcntl.LOCK_NB`, `torch.cuda.synchronize`, `tool_use`,
// `cudaStreamSynchronize`, `pytest.mark.parametrize`).
//
// The citation checker asks it only about identifier tokens it found nowhere
// in the change: a guide that says "add a test that expects `KeyError`" or
// "use `os.environ.setdefault`" is sound advice, while an invented class or
// function of the project (`QuarkFP8Dispatcher`) is not on any list. The
// Python part is generated from the interpreter (scripts/gen-vocabulary.py);
// the rest is kept by hand in vocabulary.cc (PyTorch's names in
// vocabulary_torch.inc), each list with its source.
#pragma once

#include <string_view>

namespace mergelens::vocabulary {

// Whether `token` (one identifier, case-sensitive) is such a name.
bool known(std::string_view token);

}  // namespace mergelens::vocabulary
