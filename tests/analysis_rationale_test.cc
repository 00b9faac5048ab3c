// Tests of the code's own rationale: comments and docstrings a change adds
// (Facts::rationale) and one-for-one line replacements (Facts::replacements).
#include <gtest/gtest.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/analysis/code/rationale.h"
#include "mergelens/analysis/facts_json.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

Facts analyse(std::vector<FileChange> files, FileReader reader = {}) {
  Change c;
  c.kind = ChangeKind::kSquash;
  c.title = "Change";
  c.files = std::move(files);
  AnalysisContext ctx;
  ctx.read_new_file = std::move(reader);
  return analyze_change(c, ctx);
}

FileChange file(const std::string& path, const std::string& patch,
                FileStatus status = FileStatus::kModified) {
  return testing::file_from_patch(path, patch, status);
}

std::vector<std::string> texts(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& n : f.rationale) out.push_back(n.text);
  return out;
}

// The #35773 shape: a helper whose comment says why index_fill_ is used, and
// the indexed assignments it replaces.
TEST(Rationale, PythonCommentAndReplacement) {
  const std::string patch =
      "@@ -10,6 +10,13 @@ class Allocator:\n"
      "         swa = swa.to(self.mapping.dtype)\n"
      "         self.mapping[full] = swa\n"
      " \n"
      "+    def clear_mapping(self, full: torch.Tensor) -> None:\n"
      "+        if full.numel() == 0:\n"
      "+            return\n"
      "+        # index_fill_ passes the 0 as a kernel argument; mapping[idx] = 0 copies a\n"
      "+        # host-resident scalar and blocks until the stream drains.\n"
      "+        self.mapping.index_fill_(0, full.to(torch.int64), 0)\n"
      "+\n"
      "     def free(self, idx):\n"
      "         if idx.numel() == 0:\n"
      "             return\n"
      "@@ -30,4 +37,4 @@ class Allocator:\n"
      "         swa = self.mapping[idx]\n"
      "         self.pool.free(swa)\n"
      "-        self.mapping[idx.to(torch.int64)] = 0\n"
      "+        self.clear_mapping(idx)\n"
      "         return swa\n";
  Facts f = analyse({file("pkg/mem/alloc.py", patch)});
  ASSERT_EQ(f.rationale.size(), 1u) << ::testing::PrintToString(texts(f));
  const RationaleNote& n = f.rationale[0];
  EXPECT_EQ(n.path, "pkg/mem/alloc.py");
  EXPECT_EQ(n.kind, "comment");
  EXPECT_EQ(n.start_line, 16);
  EXPECT_EQ(n.end_line, 17);
  EXPECT_EQ(n.text,
            "index_fill_ passes the 0 as a kernel argument; mapping[idx] = 0 copies a "
            "host-resident scalar and blocks until the stream drains.");
  EXPECT_NE(n.symbol.find("clear_mapping"), std::string::npos) << n.symbol;
  EXPECT_GE(n.focus, 0);

  ASSERT_EQ(f.replacements.size(), 1u);
  const Replacement& r = f.replacements[0];
  EXPECT_EQ(r.old_line, 32);
  EXPECT_EQ(r.new_line, 39);
  EXPECT_EQ(r.old_text, "self.mapping[idx.to(torch.int64)] = 0");
  EXPECT_EQ(r.new_text, "self.clear_mapping(idx)");
  EXPECT_GE(r.focus, 0);
}

TEST(Rationale, DocstringsAndModuleDocstring) {
  const std::string patch =
      "@@ -0,0 +1,14 @@\n"
      "+\"\"\"Paged allocator for the KV pool.\n"
      "+\n"
      "+Pages are handed out in order so that frees stay cheap.\n"
      "+\"\"\"\n"
      "+\n"
      "+\n"
      "+def alloc(n):\n"
      "+    \"\"\"Return n pages; raises when the pool is exhausted.\"\"\"\n"
      "+    return pool.take(n)\n"
      "+\n"
      "+\n"
      "+def log(msg):\n"
      "+    print(\"\"\"not a docstring at all\"\"\")\n"
      "+    return msg\n";
  Facts f = analyse({file("pkg/mem/pages.py", patch, FileStatus::kAdded)});
  ASSERT_EQ(f.rationale.size(), 2u) << ::testing::PrintToString(texts(f));
  EXPECT_EQ(f.rationale[0].kind, "docstring");
  EXPECT_EQ(f.rationale[0].text,
            "Paged allocator for the KV pool.\nPages are handed out in order so that frees stay "
            "cheap.");
  EXPECT_EQ(f.rationale[0].start_line, 1);
  EXPECT_EQ(f.rationale[0].end_line, 4);  // the closing quotes are part of it
  EXPECT_EQ(f.rationale[1].kind, "docstring");
  EXPECT_EQ(f.rationale[1].text, "Return n pages; raises when the pool is exhausted.");
  EXPECT_EQ(f.rationale[1].start_line, 8);
  EXPECT_EQ(f.rationale[1].symbol, "alloc");
}

TEST(Rationale, CppAndCudaComments) {
  const std::string patch =
      "@@ -0,0 +1,16 @@\n"
      "+// Copyright 2026 The Authors. All rights reserved.\n"
      "+// SPDX-License-Identifier: Apache-2.0\n"
      "+#include <cuda.h>\n"
      "+\n"
      "+/**\n"
      "+ * Fills the mapping on the device, so the host never waits\n"
      "+ * for the copy stream.\n"
      "+ */\n"
      "+__global__ void fill(int* m, int n) {\n"
      "+  int i = blockIdx.x * blockDim.x + threadIdx.x;  // one thread per slot\n"
      "+  if (i >= n) return;  // NOLINT\n"
      "+  /* Writes are coalesced because slots are contiguous. */\n"
      "+  m[i] = 0;\n"
      "+  // m[i] = -1;\n"
      "+  // ------------------------------\n"
      "+}\n";
  Facts f = analyse({file("csrc/fill.cu", patch, FileStatus::kAdded)});
  ASSERT_EQ(f.rationale.size(), 3u) << ::testing::PrintToString(texts(f));
  EXPECT_EQ(f.rationale[0].kind, "docstring");
  EXPECT_EQ(f.rationale[0].text,
            "Fills the mapping on the device, so the host never waits for the copy stream.");
  EXPECT_EQ(f.rationale[0].start_line, 5);
  EXPECT_EQ(f.rationale[0].end_line, 8);
  EXPECT_EQ(f.rationale[1].text, "one thread per slot");
  EXPECT_EQ(f.rationale[1].start_line, 10);
  EXPECT_EQ(f.rationale[1].symbol, "fill");
  EXPECT_EQ(f.rationale[2].text, "Writes are coalesced because slots are contiguous.");
  EXPECT_EQ(f.rationale[2].kind, "comment");
}

TEST(Rationale, PragmasTodosCodeAndTinyCommentsAreSkipped) {
  const std::string patch =
      "@@ -1,2 +1,16 @@\n"
      " import os\n"
      "+import numpy as np  # noqa: F401\n"
      "+x = compute()  # type: ignore[attr-defined]\n"
      "+# fmt: off\n"
      "+TABLE = [1, 2, 3]\n"
      "+# fmt: on\n"
      "+# TODO(someone):\n"
      "+# y = old_compute(x)\n"
      "+# return y\n"
      "+# ok\n"
      "+# ====\n"
      "+z = 3  # 1\n"
      "+# Keep the table sorted: lookups bisect it.\n"
      "+w = 4  # FIXME\n"
      "+# FIXME: fp16 overflow makes a NaN row; sample it uniformly so only it degrades.\n"
      "+v = 5\n"
      " y = 2\n";
  Facts f = analyse({file("pkg/core.py", patch)});
  // A TODO or FIXME that says why is rationale; one that only marks is not.
  EXPECT_EQ(texts(f),
            (std::vector<std::string>{
                "Keep the table sorted: lookups bisect it.",
                "FIXME: fp16 overflow makes a NaN row; sample it uniformly so only it degrades."}));
}

TEST(Rationale, CommentsOnlyInCodeFiles) {
  const std::string comment =
      "@@ -1,1 +1,3 @@\n x = 1\n+# Explain why the value moved here.\n+y = 2\n";
  Facts f = analyse({file("tests/test_core.py", comment), file("docs/conf.py", comment),
                     file("pkg/core.py", comment)});
  ASSERT_EQ(f.rationale.size(), 1u);
  EXPECT_EQ(f.rationale[0].path, "pkg/core.py");
}

TEST(Rationale, ContextDocstringFromContent) {
  // The hunk starts inside a docstring whose opening quotes are above it: with
  // the file's content the lexer knows, and the '#' lines are not comments.
  const std::string content =
      "def f():\n"
      "    \"\"\"Doc.\n"
      "\n"
      "    # Heading inside the docstring\n"
      "    more text\n"
      "    \"\"\"\n"
      "    # Added because the cache may be cold on first call.\n"
      "    return 1\n";
  const std::string patch =
      "@@ -4,3 +4,4 @@\n"
      "     # Heading inside the docstring\n"
      "     more text\n"
      "     \"\"\"\n"
      "+    # Added because the cache may be cold on first call.\n";
  Facts f = analyse({file("pkg/f.py", patch)}, [&](const std::string&) { return content; });
  ASSERT_EQ(f.rationale.size(), 1u) << ::testing::PrintToString(texts(f));
  EXPECT_EQ(f.rationale[0].text, "Added because the cache may be cold on first call.");
  EXPECT_EQ(f.rationale[0].start_line, 7);
}

TEST(Replacements, UnrelatedDeleteAndAddAreNotPaired) {
  const std::string patch =
      "@@ -1,4 +1,4 @@\n"
      " def f(a):\n"
      "-    total = compute_sum(a)\n"
      "+    return None\n"
      "-    # old comment\n"
      "+    # new comment\n"
      "     pass\n";
  Facts f = analyse({file("pkg/f.py", patch)});
  EXPECT_TRUE(f.replacements.empty());
}

TEST(Replacements, PairsOneForOneMostSimilarFirst) {
  Hunk h;
  auto line = [&](char o, std::string t) { h.lines.push_back({o, 0, 0, std::move(t)}); };
  line('-', "    out = torch.zeros(n, dtype=torch.float32)");
  line('-', "    scale = cfg.scale");
  line('+', "    scale = cfg.get_scale(layer)");
  line('+', "    out = torch.empty(n, dtype=torch.float32, device=dev)");
  line('+', "    log_everything()");
  auto pairs = find_replacements(Language::kPython, h);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].removed, 1);
  EXPECT_EQ(pairs[0].added, 2);
  EXPECT_EQ(pairs[1].removed, 0);
  EXPECT_EQ(pairs[1].added, 3);
  // A whitespace-only edit is no replacement.
  Hunk ws;
  ws.lines = {{'-', 0, 0, "x = f(a,b)"}, {'+', 0, 0, "x = f(a, b)"}};
  EXPECT_TRUE(find_replacements(Language::kPython, ws).empty());
  EXPECT_GT(line_similarity("alloc.full_to_swa_index_mapping[idx.to(torch.int64)] = 0",
                            "alloc.clear_full_to_swa_mapping(idx)"),
            0.5);
  EXPECT_LT(line_similarity("import os", "return compute(x)"), 0.1);
}

TEST(Rationale, RoundTripsThroughJson) {
  Facts f;
  f.rationale.push_back({"a.py", 3, 4, "comment", "why it is so", "f", 0});
  f.replacements.push_back({"a.py", 7, 8, "x = 1", "x = 2", "f", -1});
  auto back = facts_from_json(facts_to_json(f));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->rationale.size(), 1u);
  EXPECT_EQ(back->rationale[0].text, "why it is so");
  EXPECT_EQ(back->rationale[0].end_line, 4);
  EXPECT_EQ(back->rationale[0].focus, 0);
  ASSERT_EQ(back->replacements.size(), 1u);
  EXPECT_EQ(back->replacements[0].new_text, "x = 2");
  EXPECT_EQ(back->replacements[0].focus, -1);
}

}  // namespace
}  // namespace mergelens
