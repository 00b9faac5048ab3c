// Offline guide: headline, summary, verdict, lesson and focus points.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/offline_parts.h"

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/guide/prose.h"
#include "mergelens/util/strings.h"

namespace mergelens::guide_detail {
namespace {

bool is_test(const Facts& f, const std::string& path) {
  return is_test_file(f, path);
}

std::string where(const Signal& s) {
  return s.at.symbol.empty() ? file(s.at.path) : code_name(s.at.symbol);
}

std::string kind_label(const Ctx& c, std::string_view kind) {
  struct L {
    std::string_view k, zh, en;
  };
  static constexpr L kLabels[] = {
      {"guard", "守卫", "guard"},
      {"fallback", "新路径旁保留旧路径", "new path beside the old"},
      {"handler", "异常处理后继续", "handled exception"},
      {"raise", "抛错", "raises"},
      {"assert", "断言", "assertion"},
      {"early_return", "提前返回", "early return"},
      {"try", "异常处理", "exception handling"},
      {"preprocessor", "编译期分支", "preprocessor branch"},
      {"env_var", "环境变量", "env var"},
      {"cli_flag", "命令行参数", "flag"},
      {"dtype_branch", "dtype 分支", "dtype branch"},
      {"device_branch", "设备分支", "device branch"},
      {"platform_branch", "平台分支", "platform branch"},
      {"concurrency", "并发", "concurrency"},
      {"todo", "TODO", "TODO"},
      {"numeric_constant", "常量", "constant"},
      {"public_api", "公共 API", "public API"},
      {"dead_code_removed", "删除死代码", "dead code removed"},
  };
  for (const auto& l : kLabels)
    if (l.k == kind) return std::string(c.zh() ? l.zh : l.en);
  return std::string(kind);
}

std::string def_label(const Ctx&, const Definition& d) {
  return code_name(d.name);
}

}  // namespace

bool is_test_file(const Facts& f, const std::string& path) {
  auto it = f.roles.find(path);
  return it != f.roles.end() && it->second == FileRole::kTest;
}

bool is_test_or_bench(const Facts& f, const std::string& path) {
  auto it = f.roles.find(path);
  return it != f.roles.end() &&
         (it->second == FileRole::kTest || it->second == FileRole::kBenchmark);
}

std::string file(std::string_view path) {
  auto slash = path.rfind('/');
  return code_name(slash == std::string_view::npos ? path : path.substr(slash + 1), 200);
}

std::string lines_label(const Ctx& c, std::int32_t start, std::int32_t end) {
  if (end <= start) return fmt_rt(c.tr("第 {} 行", "line {}"), start);
  return fmt_rt(c.tr("第 {}–{} 行", "lines {}–{}"), start, end);
}

std::string line_count(const Ctx& c, std::int64_t n) {
  return c.zh() ? std::to_string(n) : plural(n, "line");
}

std::string summary(const Ctx& c) {
  const auto& f = c.facts;
  // One file takes the singular form ("Changes 1 file"), in every language.
  std::string out = c.change.files.size() == 1
                        ? fmt_rt(c.p.summary_file_one, c.change.additions(), c.change.deletions())
                        : fmt_rt(c.p.summary_files, c.change.files.size(), c.change.additions(),
                                 c.change.deletions());
  std::vector<std::string> parts;
  if (!f.cleanup.empty()) {
    parts.push_back(fmt_rt(c.p.summary_cleanup, c.p.skim_reason(f.cleanup)));
  } else {
    // Large files added or deleted whole are named as files, not by the
    // first definitions they hold.
    std::vector<std::string> added, changed, removed;
    std::set<std::string> seen, whole;
    for (FileStatus st : {FileStatus::kAdded, FileStatus::kDeleted})
      for (const FileChange* fc : whole_code_files(c, st, 2, 200)) {
        whole.insert(fc->path);
        (st == FileStatus::kAdded ? added : removed).push_back(file_label(c, fc->path));
      }
    for (const Definition* dp : definitions_by_weight(c)) {
      const Definition& d = *dp;
      if (!is_code_role(f, d.at.path) || d.kind == "section" || whole.count(d.at.path) ||
          !seen.insert(d.name).second)
        continue;
      if (d.change == "added" && added.size() < 3) added.push_back(def_label(c, d));
      if (d.change == "removed" && removed.size() < 2) removed.push_back(def_label(c, d));
      if (d.change == "signature_changed" && changed.size() < 2) changed.push_back(def_label(c, d));
    }
    if (!added.empty()) parts.push_back(fmt_rt(c.p.summary_adds, phrases::join_list(added, c.p)));
    if (!changed.empty())
      parts.push_back(fmt_rt(c.p.summary_changes, phrases::join_list(changed, c.p)));
    if (!removed.empty())
      parts.push_back(fmt_rt(c.p.summary_removes, phrases::join_list(removed, c.p)));
    // A switch is "introduced" only when the parent did not have it.
    std::vector<std::string> switches;
    for (const auto* s : switch_signals(c, true))
      if (switches.size() < 3) switches.push_back(code_name(s->detail));
    if (!switches.empty())
      parts.push_back(fmt_rt(c.p.summary_switches, phrases::join_list(switches, c.p)));
    // A default both revisions declare, as each declares it.
    for (const SwitchFact* s : changed_defaults(c, 2))
      parts.push_back(fmt_rt(c.p.summary_default_changed, code_name(s->name),
                             code(s->before.default_value, 40), code(s->after.default_value, 40)));
    bool any_code = std::any_of(c.change.files.begin(), c.change.files.end(),
                                [&](const FileChange& fc) { return is_code_role(f, fc.path); });
    // Example scripts are neither docs nor tests: the sentence names them.
    const bool any_example = std::any_of(c.change.files.begin(), c.change.files.end(),
                                         [&](const FileChange& fc) { return example_file(f, fc); });
    if (!any_code)
      parts.push_back(std::string(examples_only(c.change, f) ? c.p.summary_examples_only
                                  : any_example              ? c.p.summary_docs_examples
                                                             : c.p.summary_docs_only));
    // The test files with the most changed lines, the one defining the
    // quoted test first: a test is named beside the file that defines it.
    std::vector<const TestFact*> by_size;
    // A test file whose changed lines are all comments or blank tests nothing new.
    auto only_comments = [&](const std::string& path) {
      for (const auto& fc : c.change.files) {
        if (fc.path != path) continue;
        if (fc.hunks.empty()) return false;
        for (const auto& h : fc.hunks)
          for (const auto& l : h.lines) {
            if (l.origin != '+' && l.origin != '-') continue;
            std::string_view t = l.text;
            while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
            if (!t.empty() && !t.starts_with("#") && !t.starts_with("//") && !t.starts_with("/*") &&
                !t.starts_with("*"))
              return false;
          }
        return true;
      }
      return false;
    };
    for (const auto& t : f.tests)  // a package's __init__.py under tests/ is not a test to name
      if (!t.path.ends_with("__init__.py") && !only_comments(t.path)) by_size.push_back(&t);
    auto changed_lines = [&](const std::string& path) {
      for (const auto& fc : c.change.files)
        if (fc.path == path) return fc.additions + fc.deletions;
      return 0;
    };
    std::stable_sort(by_size.begin(), by_size.end(), [&](const TestFact* a, const TestFact* b) {
      return changed_lines(a->path) > changed_lines(b->path);
    });
    const Definition* contract = nullptr;
    for (size_t i = 0; i < by_size.size() && !contract; ++i)
      if ((contract = contract_test(c, by_size[i]->path)))
        std::rotate(by_size.begin(), by_size.begin() + static_cast<std::ptrdiff_t>(i),
                    by_size.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    std::vector<std::string> tests;
    for (const auto* t : by_size)
      if (tests.size() < 2) tests.push_back(file(t->path));
    if (!tests.empty()) {
      std::string clause = fmt_rt(c.p.summary_tests, phrases::join_list(tests, c.p));
      if (contract)
        clause += std::string(c.p.open_paren) +
                  fmt_rt(c.p.summary_contract,
                         code_name(contract->name.substr(contract->name.rfind('.') + 1), 80),
                         quote(c, test_contract(contract->name), 120)) +
                  std::string(c.p.close_paren);
      parts.push_back(clause);
    }
    for (const auto& r : f.references)
      if (r.relation == "fixes" && r.repo.empty() && (r.kind == "issue" || r.kind == "pr")) {
        parts.push_back(fmt_rt(c.p.summary_fixes, fmt::format("#{}", r.number)));
        break;
      }
  }
  std::erase(parts, std::string());  // a phrase that did not format says nothing
  if (!parts.empty()) out += c.zh() ? "：" : ": ";
  out += fmt::format("{}", fmt::join(parts, c.p.semi));
  out += c.p.sentence_end;
  return out;
}

std::string verdict_text(const Ctx& c) {
  const auto& f = c.facts;
  std::string out;
  // Each path by its file name, or by as many trailing folders as it takes
  // to tell it from another path of the list with the same name.
  auto files_list = [&](const std::vector<std::string>& paths) {
    std::vector<std::string> names;
    for (const auto& p : paths) {
      size_t parts = 1;
      auto tail = [](const std::string& path, size_t n) {
        size_t at = path.size();
        for (size_t i = 0; i < n && at != std::string::npos && at > 0; ++i)
          at = path.rfind('/', at - 1);
        return at == std::string::npos ? path : path.substr(at + 1);
      };
      while (parts < 8 && std::any_of(paths.begin(), paths.end(), [&](const std::string& o) {
               return o != p && tail(o, parts) == tail(p, parts);
             }))
        ++parts;
      names.push_back(code_name(tail(p, parts), 400));
    }
    return phrases::join_list(names, c.p);
  };
  switch (f.verdict) {
    case Verdict::kCloseRead: {
      const FocusRegion* top = f.focus.empty() ? nullptr : &f.focus.front();
      bool one_place = top && f.verdict_scope.size() <= 1 && top->changed_lines <= 40 &&
                       (f.focus.size() == 1 || f.focus[1].score < top->score * 0.5);
      if (one_place) {
        std::string place = top->symbol.empty() ? file(top->path)
                                                : fmt_rt(c.p.symbol_in_file, file(top->path),
                                                         code_name(top->symbol));
        out = fmt_rt(c.p.close_one_place, place, line_count(c, top->changed_lines),
                     region_lines_label(c, *top));
      } else if (f.verdict_scope.size() >= 2) {
        out = fmt_rt(c.p.close_files, f.verdict_scope.size(), files_list(f.verdict_scope));
      } else {
        std::set<std::string> paths;
        for (const auto& r : f.focus) paths.insert(r.path);
        const std::string lines = line_count(c, f.lines_worth_reading);
        out = paths.size() <= 1 ? fmt_rt(c.p.close_lines_one, lines)
                                : fmt_rt(c.p.close_lines, lines, paths.size());
      }
      if (f.skim.size() == 1) {
        out += fmt_rt(c.p.rest_cleanup_one, file(f.skim.front().path));
      } else if (!f.skim.empty() && f.skim.size() <= 6) {
        std::vector<std::string> skim;
        for (const auto& s : f.skim) skim.push_back(s.path);
        out += fmt_rt(c.p.rest_cleanup, skim.size(), files_list(skim));
      }
      break;
    }
    case Verdict::kSelectiveRead: {
      // "About N lines" counts the changed lines of the files it names.
      int lines = 0;
      for (const auto& fc : c.change.files)
        if (std::find(f.verdict_scope.begin(), f.verdict_scope.end(), fc.path) !=
            f.verdict_scope.end())
          lines += fc.additions + fc.deletions;
      out = fmt_rt(c.p.selective,
                   f.verdict_scope.empty() ? std::string("…") : files_list(f.verdict_scope),
                   line_count(c, lines > 0 ? lines : f.lines_worth_reading));
      break;
    }
    case Verdict::kSkim: {
      std::string why;
      std::set<std::string> roles;
      bool any_code = false;
      for (const auto& fc : c.change.files) {
        auto it = f.roles.find(fc.path);
        if (it != f.roles.end()) roles.insert(std::string(c.p.role_name(to_string(it->second))));
        any_code |= is_code_role(f, fc.path);
      }
      // The reason states what was counted, not a judgment of the design.
      if (!any_code)
        why = fmt_rt(c.tr("只涉及{}", "only {}"),
                     phrases::join_list({roles.begin(), roles.end()}, c.p));
      else
        why = code_size(c);
      out = fmt_rt(c.p.skim, why);
      break;
    }
    case Verdict::kSkip: {
      std::string why;
      if (!f.cleanup.empty()) {
        why = std::string(c.p.skim_reason(f.cleanup));
      } else {
        std::set<std::string> roles;
        for (const auto& fc : c.change.files) {
          auto it = f.roles.find(fc.path);
          if (it != f.roles.end()) roles.insert(std::string(c.p.role_name(to_string(it->second))));
        }
        const bool any_code =
            std::any_of(c.change.files.begin(), c.change.files.end(),
                        [&](const FileChange& fc) { return is_code_role(f, fc.path); });
        why = any_code ? code_size(c)
                       : fmt_rt(c.tr("只涉及{}，不影响主路径", "only {}, nothing on the main path"),
                                phrases::join_list({roles.begin(), roles.end()}, c.p));
      }
      out = fmt_rt(c.p.skip, why);
      break;
    }
  }
  if (c.change.open) out = std::string(c.p.open_prefix) + out;
  return out + std::string(c.p.sentence_end);
}

std::string code_size(const Ctx& c) {
  std::set<std::string> skimmed;
  for (const auto& s : c.facts.skim) skimmed.insert(s.path);
  int files = 0, added_files = 0;
  for (const auto& fc : c.change.files)
    if (is_code_role(c.facts, fc.path) && !skimmed.count(fc.path)) {
      ++files;
      added_files += fc.status == FileStatus::kAdded;
    }
  const int n = code_lines(c);
  std::string out = n == 1 ? std::string(c.tr("代码改动 1 行", "1 changed line of code"))
                           : fmt_rt(c.tr("代码改动 {} 行", "{} changed lines of code"), n);
  if (files > 1)
    out += c.zh() ? fmt_rt("，分布在 {} 个文件", files) : " in " + plural(files, "file");
  if (added_files > 0 && files > 1)
    out += added_files == files
               ? std::string(c.tr("，都是新文件", ", all of them new"))
               : fmt_rt(c.tr("，其中 {} 个是新文件", ", {} of them new"), added_files);
  return out + deleted_code_clause(c);
}

int code_lines(const Ctx& c) {
  std::set<std::string> skimmed;
  for (const auto& s : c.facts.skim) skimmed.insert(s.path);
  int n = 0;
  for (const auto& fc : c.change.files)
    if (is_code_role(c.facts, fc.path) && !skimmed.count(fc.path))  // comments are no code
      n += fc.additions + fc.deletions - prose_changed_lines(c, fc.path, 0, INT32_MAX);
  return n;
}

std::string lesson(const Ctx& c) {
  std::vector<std::string> out;
  auto add = [&](std::string s) {
    if (out.size() < 2 && !s.empty()) out.push_back(std::move(s));
  };
  // The code's own words first: a comment or docstring added in the best
  // region that has one, then a replacement repeated across the change,
  // then the decisions verified against the parent: a new path added beside
  // the code that ran before, a switch the parent did not have. A kind of
  // line alone (a lock, a dtype test, a class, a kernel file, a check) is
  // not a lesson: what it teaches is not in the fact.
  const RationaleNote* note = lesson_note(c);
  if (note) {
    std::string s = fmt_rt(c.p.lesson_rationale, file(note->path),
                           lines_label(c, note->start_line, note->end_line),
                           note->kind == "docstring" ? c.p.word_docstring : c.p.word_comment,
                           quote(c, note->text, 240));
    if (citable(c, s)) add(std::move(s));
  }
  if (auto groups = replacement_groups(c); !groups.empty() && groups.front().items.size() >= 2) {
    const std::string pair = pair_label(*typical_replacement(groups.front()));
    std::string s = fmt_rt(c.p.lesson_replaced, groups.front().items.size(), pair);
    if (!citable(c, s)) s = fmt_rt(c.p.lesson_replaced_several, pair);
    if (citable(c, s)) add(std::move(s));
  }
  if (auto v = code_signals(c, {"fallback"}); !v.empty())
    add(fmt_rt(c.p.lesson_fallback, code(v[0]->detail, 70), where(*v[0])));
  if (auto v = switch_signals(c, true); !v.empty())
    add(fmt_rt(c.p.lesson_switch, code_name(v[0]->detail)));
  if (out.empty()) return {};
  if (!c.zh())  // "…; concurrency (…)": later clauses continue the sentence
    for (size_t i = 1; i < out.size(); ++i)
      if (!out[i].empty() && out[i][0] >= 'A' && out[i][0] <= 'Z' &&
          !(out[i].size() > 1 && out[i][1] >= 'A' && out[i][1] <= 'Z'))
        out[i][0] = static_cast<char>(out[i][0] - 'A' + 'a');
  return fmt::format("{}{}", fmt::join(out, c.p.semi), c.p.sentence_end);
}

// Whether a concurrency signal names something that guards state (a lock,
// a mutex, a semaphore, an atomic): a stream, an event or an executor does not.
bool guards_state(std::string_view detail) {
  std::string d(detail);
  for (char& ch : d) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (std::string_view w :
       {"lock", "mutex", "semaphore", "atomic", "acquire", "condvar", "condition", "memory_order"})
    if (d.find(w) != std::string::npos) return true;
  return false;
}

std::vector<GuideFocus> focus_points(const Ctx& c, size_t max) {
  const auto& f = c.facts;
  std::vector<GuideFocus> out;
  static constexpr std::string_view kPriority[] = {
      "fallback",          "guard",           "handler",     "dtype_branch",
      "device_branch",     "platform_branch", "concurrency", "env_var",
      "cli_flag",          "raise",           "assert",      "numeric_constant",
      "dead_code_removed", "early_return"};
  const auto groups = replacement_groups(c);
  auto group_of = [&](const Replacement* r) -> size_t {
    for (size_t i = 0; i < groups.size(); ++i)
      if (std::find(groups[i].items.begin(), groups[i].items.end(), r) != groups[i].items.end())
        return i;
    return groups.size();
  };
  std::set<std::string> asked;  // details already questioned in an earlier point
  std::set<size_t> shown_groups;
  std::set<std::string> quoted_edits;  // edit_key of the replacements quoted
  std::vector<std::string> edit_keys;  // per replacement
  for (const auto& x : f.replacements) edit_keys.push_back(edit_key(x));
  const std::set<std::string> renames = rename_keys(f);
  std::set<std::string> skimmed, questions_asked;
  for (const auto& s : f.skim) skimmed.insert(s.path);
  std::map<std::string, std::string> copy_of;  // diff → the first path shown with it
  for (size_t ri = 0; ri < f.focus.size(); ++ri) {
    if (out.size() >= max) break;
    const auto& r = f.focus[ri];
    if (skimmed.count(r.path)) continue;  // "glance at it" and "read it here" would disagree
    // A byte-identical copy of a file already shown is not another place to read.
    if (std::string key = diff_key(c, r.path); !key.empty())
      if (auto [it, fresh] = copy_of.emplace(std::move(key), r.path);
          !fresh && it->second != r.path)
        continue;
    const bool test = is_test(f, r.path);
    GuideFocus g{r.path, r.start_line, r.end_line, r.symbol, {}, {}};
    std::vector<const Signal*> in;
    for (const auto& s : f.signals)
      if (s.at.path == r.path && s.at.line >= r.start_line && s.at.line <= r.end_line)
        in.push_back(&s);
    std::vector<const Definition*> defs;
    std::set<std::string> def_names;
    for (const auto& d : f.definitions)
      if (d.at.path == r.path && d.at.line >= r.start_line && d.at.line <= r.end_line &&
          d.kind != "section" && def_names.insert(d.name + "/" + d.change).second)
        defs.push_back(&d);
    // The region's replacement to quote: the first whose edit (the text
    // between the pair's common ends) no earlier item quoted and that does
    // more than follow a rename or name a value anew, so an equivalent
    // rewrite, shown or not, does not stand for the new edit beside it; else
    // the first not quoted; else the first.
    const Replacement* rep = nullptr;
    int rep_rank = 3;
    for (size_t xi = 0; xi < f.replacements.size() && rep_rank > 0; ++xi) {
      const Replacement& x = f.replacements[xi];
      if (x.focus != static_cast<std::int32_t>(ri)) continue;
      const int rank = quoted_edits.count(edit_keys[xi])                          ? 2
                       : renames.count(edit_keys[xi]) || extracted_variable(c, x) ? 1
                                                                                  : 0;
      if (rank < rep_rank) rep = &x, rep_rank = rank;
    }
    if (rep) quoted_edits.insert(edit_keys[static_cast<size_t>(rep - f.replacements.data())]);
    const RationaleNote* note = note_in_focus(c, static_cast<int>(ri));

    // The question: what the region's own facts say changed there. A test
    // gets none (whether its assertions pin its name down fits any test); a
    // region whose facts name nothing specific gets no question rather than a
    // generic one.
    const Signal* key = nullptr;
    if (!test)
      for (auto kind : kPriority) {
        for (const auto* s : in)
          if (s->kind == kind && (s->added || kind == "dead_code_removed") &&
              !asked.count(s->detail) && askable(c, *s)) {
            key = s;
            break;
          }
        if (key) break;
      }
    const Definition* sig = nullptr;
    if (!test)
      for (const auto* d : defs)
        if (d->change == "signature_changed" && !d->compatible) sig = d;
    // A comment says less than the place it guards.
    const bool comment = key && (key->detail.starts_with("#") || key->detail.starts_with("//") ||
                                 key->detail.starts_with("/*"));
    std::string detail = !key ? "" : comment ? where(*key) : code(key->detail, 80);
    // An equivalent rewrite (a condition named by a new variable) asks nothing.
    const std::string rep_q = rep && !test && !extracted_variable(c, *rep)
                                  ? replacement_question(c, *rep)
                                  : std::string();
    if (!rep_q.empty()) {
      g.question = rep_q;
    } else if (key && key->kind == "fallback") {
      g.question = fmt_rt(c.p.q_fallback, code(key->detail, 70));
    } else if (key && key->kind == "handler") {
      g.question = fallback_question(c, *key);
    } else if (key && key->kind == "guard") {
      g.question = fmt_rt(c.p.q_guard, detail);
    } else if (key && key->kind == "dtype_branch") {
      g.question = fmt_rt(c.p.q_dtype, detail);
    } else if (key && (key->kind == "device_branch" || key->kind == "platform_branch")) {
      g.question = fmt_rt(c.p.q_device, detail);
    } else if (key && key->kind == "concurrency" && guards_state(key->detail)) {
      g.question = fmt_rt(c.p.q_concurrency, detail);
    } else if (key && key->kind == "env_var") {
      g.question = fmt_rt(c.p.q_env, detail);
    } else if (key && key->kind == "cli_flag") {
      g.question = fmt_rt(c.p.q_flag, detail);
    } else if (sig && asked.insert(sig->name).second) {
      g.question = fmt_rt(c.p.q_signature, code_name(sig->name));
    } else if (key && (key->kind == "raise" || key->kind == "assert")) {
      g.question = fmt_rt(c.p.q_raise, detail);
    } else if (key && key->kind == "numeric_constant") {
      g.question = fmt_rt(c.p.q_constant, detail);
    } else if (key && key->kind == "dead_code_removed") {
      g.question = fmt_rt(c.p.q_removed, detail);
    } else if (key && key->kind == "early_return") {
      g.question = fmt_rt(c.p.q_early, detail);
    }
    if (key && !g.question.empty()) asked.insert(key->detail);
    if (!g.question.empty() && !questions_asked.insert(g.question).second) g.question.clear();

    // Why here: the code's own note first, the replaced line as the pair,
    // then definitions and signals.
    std::vector<std::string> why;
    auto add_why = [&](std::string s) {
      if (citable(c, s)) why.push_back(std::move(s));
    };
    if (note) why.push_back(note_clause(c, *note));
    if (rep && rep_q.find(pair_label(*rep)) == std::string::npos)
      add_why(fmt_rt(c.p.why_replaced, pair_label(*rep)));
    if (const size_t gi = rep ? group_of(rep) : groups.size();
        gi < groups.size() && groups[gi].items.size() >= 2 && shown_groups.insert(gi).second) {
      add_why(fmt_rt(c.p.why_replaced_many, groups[gi].items.size()));
    } else if (rep) {  // the same edit on other lines of the range
      const std::string& key = edit_keys[static_cast<size_t>(rep - f.replacements.data())];
      size_t same = 0;
      for (size_t xi = 0; xi < f.replacements.size(); ++xi)
        same += f.replacements[xi].focus == static_cast<std::int32_t>(ri) && edit_keys[xi] == key;
      if (same >= 2) add_why(fmt_rt(c.p.why_replaced_many, same));
    }
    const size_t after_pair = why.size();
    // A test standing in place of removed ones of its file is not new.
    std::vector<std::string> added;
    const Definition* in_place = nullptr;
    for (const auto* d : defs) {
      if (d->change != "added") continue;
      if (!d->replaces.empty()) {
        if (!in_place) in_place = d;
      } else if (added.size() < 2) {
        added.push_back(code_name(d->name));
      }
    }
    if (!added.empty()) why.push_back(fmt_rt(c.p.why_new, phrases::join_list(added, c.p)));
    if (in_place) {
      std::vector<std::string> old;
      for (const auto& r : in_place->replaces)
        if (old.size() < 3) old.push_back(code_name(r));
      const std::string name = code_name(in_place->name);
      const std::string list = phrases::join_list(old, c.p);
      why.push_back(in_place->replaces.size() > 3
                        ? fmt_rt(c.p.why_in_place_many, name, in_place->replaces.size(), list)
                        : fmt_rt(c.p.why_in_place, name, list));
    }
    if (sig) why.push_back(fmt_rt(c.p.why_signature, code_name(sig->name)));
    std::set<std::string> kinds;
    for (const auto* s : in) {
      if (why.size() >= 3) break;
      if (!s->added || s->kind == "public_api" || s->kind == "fallback_mention" ||
          !askable(c, *s) || !kinds.insert(s->kind).second)
        continue;
      if (test) continue;  // a test's helpers are not what the region is about
      const bool is_comment = s->detail.starts_with("#") || s->detail.starts_with("//");
      why.push_back(is_comment ? kind_label(c, s->kind)
                               : fmt::format("{} {}", kind_label(c, s->kind), code(s->detail, 60)));
    }
    if (test) why.push_back(std::string(c.p.why_test));
    for (const auto& rp : f.review_points)
      if (rp.path == r.path && rp.line >= r.start_line && rp.line <= r.end_line) {
        why.push_back(fmt_rt(c.p.why_reviewed, "@" + rp.reviewer));
        break;
      }
    // The quoted pair is one edit of the range: when nothing else is named,
    // what else the range adds is, so the pair does not read as the whole change.
    if (rep && why.size() == after_pair)
      if (std::string other = other_added_statement(c, r, in); !other.empty())
        add_why(fmt_rt(c.tr("另新增 {}", "also adds {}"), code(other, 120)));
    if (why.size() < 3)
      why.push_back(r.changed_lines == 1 ? std::string(c.p.why_line_one)
                                         : fmt_rt(c.p.why_lines, r.changed_lines));
    g.why = fmt::format("{}", fmt::join(why, c.p.semi));
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace mergelens::guide_detail
