// Source languages of changed files, recognised from the path (and, for
// files without a known extension, from a shebang line).
#pragma once

#include <string_view>

#include "mergelens/analysis/facts.h"

namespace mergelens {

// Returns the language of `path`: by file name (CMakeLists.txt), then by
// extension (case-insensitive), then by the shebang in `first_line`
// ("#!/usr/bin/env python3", "#!/bin/bash", "#!/usr/bin/env node").
// Returns Language::kUnknown when nothing matches; never fails.
//   .py .pyi → Python; .c .cc .cpp .cxx .h .hpp .hh (and .hxx .ipp .inl) → C++;
//   .cu .cuh → CUDA; .rs → Rust; .go → Go; .js .mjs .cjs .jsx → JavaScript;
//   .ts .tsx .mts .cts → TypeScript; .md .markdown .rst → Markdown; .json .jsonl → JSON;
//   .yml .yaml → YAML; .toml → TOML; .sh .bash .zsh → Shell;
//   CMakeLists.txt .cmake → CMake; .txt → Text.
Language detect_language(std::string_view path, std::string_view first_line = {});

// True for the languages whose code the analysis reads for symbols and
// signals: Python, C++, CUDA, Rust, Go, JavaScript, TypeScript.
bool is_code_language(Language l);

// True for C++/CUDA, Rust, Go, JavaScript and TypeScript (block structure by braces).
bool is_brace_language(Language l);

// True for C/C++/CUDA header files (.h .hh .hpp .hxx .cuh .inl .ipp).
bool is_cpp_header_path(std::string_view path);

}  // namespace mergelens
