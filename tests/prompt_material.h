// The material a model saw, read back from a prompt that `mergelens show N
// --prompt` printed: the change (title, body, commits, reviews, the files and
// the hunks of the diff excerpt with their new-file line numbers) and the
// facts the prompt states (verdict, scores, focus regions, signals,
// definitions). Tests check real model answers against exactly what the
// model was shown, without the repository the prompt came from.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens::testing {

struct Material {
  Change change;
  Facts facts;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline Verdict verdict_of(const std::string& v) {
  if (v == "close_read") return Verdict::kCloseRead;
  if (v == "selective_read") return Verdict::kSelectiveRead;
  if (v == "skim") return Verdict::kSkim;
  return Verdict::kSkip;
}

inline Material material_from_prompt(const std::string& text) {
  Material m;
  Change& c = m.change;
  Facts& f = m.facts;
  c.kind = ChangeKind::kSquash;
  c.repo = "o/r";
  std::istringstream in(text);
  std::string line, section;
  enum class Block { kNone, kFiles, kFocus, kSignals, kDefinitions, kText, kDiff };
  Block block = Block::kNone;
  bool in_body = false, in_commits = false, in_reviews = false;
  std::string body;
  FileChange* file = nullptr;
  Hunk* hunk = nullptr;
  std::int32_t old_no = 0;
  std::map<std::pair<std::string, size_t>, std::string> symbols;  // from the diff headers
  auto file_of = [&](const std::string& path) -> FileChange* {
    for (auto& fc : c.files)
      if (fc.path == path) return &fc;
    c.files.push_back({});
    c.files.back().path = path;
    return &c.files.back();
  };
  auto close_hunk = [&] {
    if (!hunk) return;
    std::int32_t first = 0, count = 0, olds = 0;
    for (const auto& l : hunk->lines) {
      if (l.origin != '-') {
        if (!first) first = l.new_no;
        ++count;
      }
      if (l.origin != '+') ++olds;
    }
    hunk->new_start = first;
    hunk->new_lines = count;
    hunk->old_start = first;
    hunk->old_lines = olds;
    hunk = nullptr;
  };
  static const RE2 kFile(R"(^  (\S+) \((\w+), (\w+), \+(\d+) -(\d+).*\)$)");
  static const RE2 kFocus(R"(^  \d+\. (\S+):(\d+)-(\d+)(?: (\S+))? — (.*)$)");
  static const RE2 kSignal(R"(^  (removed )?(\w+) `(.*)` at (\S+):(\d+)(?: in (\S+))?$)");
  static const RE2 kDefinition(R"(^  (\w+) (\w+) (\S+) at (\S+):(\d+)$)");
  static const RE2 kDiffHead(R"(^--- (\S+)(?: \(focus #\d+(?:, (.*))?\)| @@ [^@]* @@ ?(.*))?$)");
  static const RE2 kDiffLine(R"(^( {0,4}\d+|     ) ([ +\-])(.*)$)");
  static const RE2 kScore(R"(^(importance|insight): (\d+) \((.*)\)$)");
  static const RE2 kVerdict(R"(^verdict: (\w+).*lines worth reading: (\d+)$)");
  while (std::getline(in, line)) {
    std::string a, b, d, e, g, h;
    if (line.starts_with("Change: #")) {
      c.number = std::stoll(line.substr(9));
      continue;
    }
    if (line.starts_with("Author: ")) {
      c.author.name = line.substr(8);
      continue;
    }
    if (RE2::FullMatch(line, kVerdict, &a, &b)) {
      f.verdict = verdict_of(a);
      f.lines_worth_reading = std::stoi(b);
      continue;
    }
    if (RE2::FullMatch(line, kScore, &a, &b, &d)) {
      Score& s = a == "importance" ? f.importance : f.insight;
      s.value = std::stoi(b);
      if (!d.empty()) s.reasons.push_back(d);
      continue;
    }
    if (line == "files:") {
      block = Block::kFiles;
      continue;
    }
    if (line == "focus regions, best first:") {
      block = Block::kFocus;
      continue;
    }
    if (line == "signals:") {
      block = Block::kSignals;
      continue;
    }
    if (line == "definitions:") {
      block = Block::kDefinitions;
      continue;
    }
    if (line.starts_with("## The PR's own text")) {
      block = Block::kText;
      continue;
    }
    if (line.starts_with("## Diff excerpt")) {
      block = Block::kDiff;
      continue;
    }
    if (line.starts_with("UNTRUSTED>>>")) {
      close_hunk();
      if (block == Block::kText) c.body = body;
      in_body = in_commits = in_reviews = false;
      block = Block::kNone;
      continue;
    }
    if (line.starts_with("<<<UNTRUSTED")) continue;
    switch (block) {
      case Block::kFiles:
        if (RE2::FullMatch(line, kFile, &a, &b, &d, &e, &g)) {
          FileChange* fc = file_of(a);
          fc->status = d == "added"     ? FileStatus::kAdded
                       : d == "deleted" ? FileStatus::kDeleted
                                        : FileStatus::kModified;
          fc->additions = std::stoi(e);
          fc->deletions = std::stoi(g);
          f.roles[a] = b == "test"     ? FileRole::kTest
                       : b == "docs"   ? FileRole::kDocs
                       : b == "kernel" ? FileRole::kKernel
                                       : FileRole::kCore;
          continue;
        }
        block = Block::kNone;
        break;
      case Block::kFocus:
        if (RE2::FullMatch(line, kFocus, &a, &b, &d, &e, &g)) {
          FocusRegion r;
          r.path = a;
          r.start_line = std::stoi(b);
          r.end_line = std::stoi(d);
          r.symbol = e;
          r.reasons.push_back(g);
          f.focus.push_back(r);
          continue;
        }
        block = Block::kNone;
        break;
      case Block::kSignals:
        if (RE2::FullMatch(line, kSignal, &a, &b, &d, &e, &g, &h)) {
          Signal s;
          s.added = a.empty();
          s.kind = b;
          s.detail = d;
          s.at.path = e;
          s.at.line = std::stoi(g);
          s.at.symbol = h;
          f.signals.push_back(s);
          continue;
        }
        block = Block::kNone;
        break;
      case Block::kDefinitions:
        if (RE2::FullMatch(line, kDefinition, &a, &b, &d, &e, &g)) {
          Definition def;
          def.change = a;
          def.kind = b;
          def.name = d;
          def.at.path = e;
          def.at.line = std::stoi(g);
          f.definitions.push_back(def);
          continue;
        }
        block = Block::kNone;
        break;
      case Block::kText:
        if (line.starts_with("Title: ") && c.title.empty()) {
          c.title = line.substr(7);
        } else if (line == "Description:") {
          in_body = true;
        } else if (line == "Commit messages:") {
          in_body = false;
          in_commits = true;
        } else if (line == "Reviews:") {
          in_body = in_commits = false;
          in_reviews = true;
        } else if (in_commits && line.starts_with("- ")) {
          Commit cm;
          auto sp = line.find(' ', 2);
          cm.sha = line.substr(2, sp - 2);
          cm.message = sp == std::string::npos ? "" : line.substr(sp + 1);
          c.commits.push_back(cm);
        } else if (in_reviews && line.starts_with("- ")) {
          Review r;
          r.body = line.substr(2);
          c.reviews.push_back(r);
        } else if (in_body) {
          body += line + "\n";
        }
        continue;
      case Block::kDiff:
        if (RE2::FullMatch(line, kDiffHead, &a, &b, &d)) {
          close_hunk();
          file = file_of(a);
          file->hunks.push_back({});
          hunk = &file->hunks.back();
          symbols[{file->path, file->hunks.size() - 1}] = !b.empty() ? b : d;
          continue;
        }
        if (line == "    …" && file) {
          close_hunk();
          file->hunks.push_back({});
          hunk = &file->hunks.back();
          continue;
        }
        if (hunk && RE2::FullMatch(line, kDiffLine, &a, &b, &d)) {
          DiffLine l;
          l.origin = b[0];
          l.text = d;
          std::string no = a;
          no.erase(0, no.find_first_not_of(' '));
          l.new_no = no.empty() ? 0 : std::stoi(no);
          l.old_no = l.origin == '+' ? 0 : ++old_no;
          hunk->lines.push_back(l);
        }
        continue;
      case Block::kNone:
        break;
    }
  }
  close_hunk();
  // Hunks are numbered as the facts expect them.
  for (size_t fi = 0; fi < c.files.size(); ++fi)
    for (size_t hi = 0; hi < c.files[fi].hunks.size(); ++hi) {
      HunkFacts h;
      h.file = fi;
      h.hunk = hi;
      h.new_start = c.files[fi].hunks[hi].new_start;
      h.new_end = h.new_start + c.files[fi].hunks[hi].new_lines - 1;
      if (auto it = symbols.find({c.files[fi].path, hi}); it != symbols.end())
        h.symbol = it->second;
      f.hunks.push_back(h);
    }
  c.sha = "0123456789abcdef0123456789abcdef01234567";
  return m;
}

}  // namespace mergelens::testing
