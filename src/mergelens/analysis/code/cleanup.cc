#include "mergelens/analysis/code/cleanup.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "mergelens/util/strings.h"

namespace mergelens {
namespace {

std::string squeeze(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

bool is_comment(std::string_view line, Language lang) {
  line = trim(line);
  if (line.empty()) return true;
  switch (lang) {
    case Language::kPython:
    case Language::kShell:
    case Language::kYaml:
    case Language::kToml:
    case Language::kCMake:
      return line.front() == '#';
    case Language::kCpp:
    case Language::kCuda:
    case Language::kRust:
    case Language::kGo:
    case Language::kJavaScript:
    case Language::kTypeScript:
      return line.starts_with("//") || line.starts_with("/*") || line.starts_with("*") ||
             line.ends_with("*/");
    default:
      return false;
  }
}

bool is_import(std::string_view line, Language lang) {
  line = trim(line);
  if (line.empty()) return true;
  switch (lang) {
    case Language::kPython:
      // Continuation lines of a parenthesised import ("name,") are told from
      // call arguments by python_import_only, which sees where they sit.
      return line.starts_with("import ") || line.starts_with("from ");
    case Language::kCpp:
    case Language::kCuda:
      return line.starts_with("#include");
    case Language::kRust:
      return line.starts_with("use ") || line.starts_with("pub use ");
    case Language::kGo:
      return line.starts_with("import") || line.starts_with("\"") || line == ")";
    case Language::kJavaScript:
    case Language::kTypeScript:
      return line.starts_with("import ") || line.starts_with("export {") ||
             line.find("require(") != std::string_view::npos;
    default:
      return false;
  }
}

// Python: whether every changed line of `f` is an import or a blank line, where "name," and ")"
// count only inside a parenthesised `from x import (` block that the hunk shows opening (on either
// side), so a call's argument line ("self.block_size,") is never taken for one.
bool python_import_only(const FileChange& f) {
  bool any = false;
  for (const auto& h : f.hunks) {
    bool open_old = false, open_new = false;  // inside `from x import (` on that side
    for (const auto& l : h.lines) {
      if (l.origin != ' ' && l.origin != '+' && l.origin != '-') continue;
      const std::string_view t = trim(l.text);
      bool& open = l.origin == '-' ? open_old : open_new;
      bool& other = l.origin == '-' ? open_new : open_old;
      bool import_line = t.empty();  // a comment rewritten is not an import
      if (t.starts_with("import ") || t.starts_with("from ")) {
        import_line = true;
        const bool opens =
            t.find('(') != std::string_view::npos && t.find(')') == std::string_view::npos;
        open = opens;
        if (l.origin == ' ') other = opens;
      } else if (open) {
        const bool name_list = std::all_of(t.begin(), t.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ',' || c == ' ' ||
                 c == ')' || c == '#';
        });
        import_line = import_line || name_list;
        if (t.find(')') != std::string_view::npos) {
          open = false;
          if (l.origin == ' ') other = false;
        }
      }
      if (l.origin == ' ') continue;
      if (!t.empty()) any = true;
      if (!import_line) return false;
    }
  }
  return any;
}

// Splits a line into identifier/number tokens and single punctuation characters.
std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      out.push_back(s.substr(i, 1));
      ++i;
    }
  }
  return out;
}

// "old→new" when the two lines differ in exactly one token, else empty.
std::string substitution(std::string_view removed, std::string_view added) {
  auto a = tokens(removed), b = tokens(added);
  if (a.size() != b.size() || a.empty()) return {};
  std::string sub;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (!sub.empty()) return {};
    sub = std::string(a[i]) + "\x1f" + std::string(b[i]);
  }
  return sub;
}

struct FileLines {
  std::vector<std::string_view> added, removed;
};

FileLines changed_lines(const FileChange& f) {
  FileLines out;
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines) {
      if (l.origin == '+') out.added.push_back(l.text);
      if (l.origin == '-') out.removed.push_back(l.text);
    }
  return out;
}

bool whitespace_only(const FileLines& fl) {
  if (fl.added.empty() && fl.removed.empty()) return false;
  std::vector<std::string> a, r;
  for (auto s : fl.added)
    if (auto q = squeeze(s); !q.empty()) a.push_back(std::move(q));
  for (auto s : fl.removed)
    if (auto q = squeeze(s); !q.empty()) r.push_back(std::move(q));
  std::sort(a.begin(), a.end());
  std::sort(r.begin(), r.end());
  return a == r;
}

template <class Pred>
bool all_changed(const FileLines& fl, Pred pred) {
  if (fl.added.empty() && fl.removed.empty()) return false;
  bool any_nonblank = false;
  for (const auto* side : {&fl.added, &fl.removed})
    for (auto s : *side) {
      if (trim(s).empty()) continue;
      any_nonblank = true;
      if (!pred(s)) return false;
    }
  return any_nonblank;
}

// Per file: the one-token substitutions its changed line pairs make, when
// at least 80% of its changed lines are such pairs; empty otherwise.
std::set<std::string> file_substitutions(const FileChange& f) {
  std::set<std::string> subs;
  int pairs = 0, substituted = 0;
  for (const auto& h : f.hunks) {
    std::vector<std::string_view> rem, add;
    auto flush = [&] {
      if (rem.size() == add.size()) {
        for (size_t i = 0; i < rem.size(); ++i) {
          ++pairs;
          if (auto s = substitution(rem[i], add[i]); !s.empty()) {
            ++substituted;
            subs.insert(std::move(s));
          }
        }
      } else {
        pairs += static_cast<int>(std::max(rem.size(), add.size()));
      }
      rem.clear();
      add.clear();
    };
    for (const auto& l : h.lines) {
      if (l.origin == '-') {
        if (!add.empty()) flush();
        rem.push_back(l.text);
      } else if (l.origin == '+') {
        add.push_back(l.text);
      } else {
        flush();
      }
    }
    flush();
  }
  if (pairs == 0 || substituted * 10 < pairs * 8) return {};
  return subs;
}

bool is_code(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel;
}

}  // namespace

CleanupResult detect_cleanup(const Change& change, const std::map<std::string, FileRole>& roles,
                             const std::map<std::string, Language>& languages) {
  CleanupResult out;
  auto role_of = [&](const std::string& p) {
    auto it = roles.find(p);
    return it == roles.end() ? FileRole::kCore : it->second;
  };
  auto lang_of = [&](const std::string& p) {
    auto it = languages.find(p);
    return it == languages.end() ? Language::kUnknown : it->second;
  };
  bool touches_code = false;
  for (const auto& f : change.files) touches_code |= is_code(role_of(f.path));

  // Mechanical substitutions: files whose changes are all one-token
  // substitutions that recur across several files of the change.
  std::vector<std::set<std::string>> subs(change.files.size());
  std::unordered_map<std::string, int> files_with;
  for (size_t i = 0; i < change.files.size(); ++i) {
    subs[i] = file_substitutions(change.files[i]);
    for (const auto& sub : subs[i]) ++files_with[sub];
  }
  std::vector<bool> mechanical(change.files.size(), false);
  size_t mechanical_files = 0;
  for (size_t i = 0; i < change.files.size(); ++i) {
    const bool shared =
        !subs[i].empty() && std::all_of(subs[i].begin(), subs[i].end(),
                                        [&](const auto& sub) { return files_with[sub] >= 3; });
    mechanical[i] = shared;
    mechanical_files += shared;
  }
  if (mechanical_files < 4) std::fill(mechanical.begin(), mechanical.end(), false);

  std::map<std::string, int> kinds;
  size_t skimmed = 0;
  for (size_t i = 0; i < change.files.size(); ++i) {
    const FileChange& f = change.files[i];
    const FileRole role = role_of(f.path);
    const Language lang = lang_of(f.path);
    const FileLines fl = changed_lines(f);
    std::string reason;
    if (f.status == FileStatus::kRenamed && f.additions == 0 && f.deletions == 0) {
      reason = "rename-only";
    } else if (f.status == FileStatus::kDeleted) {
      reason = "delete-only";
    } else if (role == FileRole::kGenerated) {
      reason = "generated";
    } else if (!f.binary && whitespace_only(fl)) {
      reason = "whitespace-only";
    } else if (!f.binary &&
               all_changed(fl, [&](std::string_view s) { return is_comment(s, lang); })) {
      reason = "comment-only";
    } else if (!f.binary && (lang == Language::kPython ? python_import_only(f)
                                                       : all_changed(fl, [&](std::string_view s) {
                                                           return is_import(s, lang);
                                                         }))) {
      reason = "import-only";
    } else if (mechanical[i]) {
      reason = "mechanical";
    } else if (touches_code && (role == FileRole::kDocs || role == FileRole::kCi)) {
      reason = role == FileRole::kDocs ? "docs" : "ci";
    }
    if (reason.empty()) continue;
    out.skim.push_back({f.path, reason});
    ++skimmed;
    if (reason != "docs" && reason != "ci") ++kinds[reason];
  }
  if (!change.files.empty() && skimmed == change.files.size() && !kinds.empty()) {
    auto best = std::max_element(kinds.begin(), kinds.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    out.cleanup = kinds.size() == 1 ? best->first : "mixed-cleanup";
    if (kinds.size() > 1 && best->second * 10 >= static_cast<int>(skimmed) * 8)
      out.cleanup = best->first;
  }
  return out;
}

}  // namespace mergelens
