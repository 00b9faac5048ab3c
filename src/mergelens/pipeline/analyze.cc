#include "mergelens/pipeline/analyze.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/analysis/code/import_graph.h"
#include "mergelens/analysis/code/context.h"
#include "mergelens/analysis/code/switches.h"
#include "mergelens/source/ctags.h"
#include "mergelens/util/hash.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/source/git_source.h"

namespace mergelens {
namespace {

Result<std::string> read_local_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorKind::kInvalidInput, "cannot read configuration file {}", path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// CPU time of the calling thread (the machine may be shared: wall time says little).
double thread_cpu_micros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// File contents the graph read at a change's commit, kept for the workers
// that analyse the same change (they read the same files for symbols).
class ContentCache {
 public:
  void put(const std::string& sha, const std::string& path, std::optional<std::string> c) {
    std::lock_guard lock(mu_);
    const size_t size = c ? c->size() : 0;
    if (bytes_ + size > kMaxBytes) return;
    bytes_ += size;
    map_.emplace(sha + '\n' + path, std::move(c));
  }
  // True with the content (or its absence) when cached.
  bool get(const std::string& sha, const std::string& path, std::optional<std::string>& out) {
    std::lock_guard lock(mu_);
    auto it = map_.find(sha + '\n' + path);
    if (it == map_.end()) return false;
    out = it->second;
    return true;
  }
  void clear() {
    std::lock_guard lock(mu_);
    map_.clear();
    bytes_ = 0;
  }

 private:
  static constexpr size_t kMaxBytes = 64u << 20;
  std::mutex mu_;
  std::unordered_map<std::string, std::optional<std::string>> map_;
  size_t bytes_ = 0;
};

// What the tracker measured at one change: its reach at the merge commit and
// its switches at the parent and the merge.
struct TreeFacts {
  Reach reach;
  std::vector<SwitchFact> switches;
  bool switches_known = false;
  std::vector<ContextItem> context;
  std::vector<DefinitionFate> fates;
  bool context_known = false;
};

// A parser's tags per file content, so a blob read again (a tree read whole
// after a jump, a revert) is not parsed again. Bounded in entries.
// (Keyed by content, not path: ctags names anonymous structs after the file,
// so which path filled an entry shows in the facts; any change to when entries
// are dropped changes facts.) Entries are packed (a quarter of the bytes of
// the tags themselves): a long history parses tens of thousands of files.
class TagCache {
 public:
  explicit TagCache(CtagsReader* reader) : reader_(reader) {}
  // The tags of `content` as `path`; nullopt when the parser failed.
  std::optional<std::vector<CodeTag>> get(const std::string& path, std::string_view content) {
    if (!reader_ || !CtagsReader::reads(path)) return std::vector<CodeTag>{};
    const std::uint64_t key = Hasher().add(path.substr(path.rfind('.'))).add(content).value();
    if (auto it = map_.find(key); it != map_.end()) return unpack(it->second);
    auto t = reader_->tags(path, content);
    if (!t) return std::nullopt;
    ++parsed_;
    bytes_ += content.size();
    if (map_.size() >= kMaxEntries) map_.clear();
    map_.emplace(key, pack(*t));
    return std::move(*t);
  }
  size_t parsed() const { return parsed_; }
  size_t bytes() const { return bytes_; }

 private:
  // Each tag as its four strings, length first, then its line and end.
  static std::string pack(const std::vector<CodeTag>& tags) {
    std::string out;
    auto put = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(static_cast<std::uint32_t>(tags.size()));
    for (const auto& t : tags) {
      for (const std::string* f : {&t.name, &t.scope, &t.kind, &t.signature}) {
        put(static_cast<std::uint32_t>(f->size()));
        out += *f;
      }
      put(static_cast<std::uint32_t>(t.line));
      put(static_cast<std::uint32_t>(t.end));
    }
    out.shrink_to_fit();
    return out;
  }
  static std::vector<CodeTag> unpack(std::string_view in) {
    size_t at = 0;
    auto get = [&] {
      std::uint32_t v;
      std::memcpy(&v, in.data() + at, sizeof v);
      at += sizeof v;
      return v;
    };
    std::vector<CodeTag> tags(get());
    for (auto& t : tags) {
      for (std::string* f : {&t.name, &t.scope, &t.kind, &t.signature}) {
        const std::uint32_t n = get();
        f->assign(in.data() + at, n);
        at += n;
      }
      t.line = static_cast<std::int32_t>(get());
      t.end = static_cast<std::int32_t>(get());
    }
    return tags;
  }

  static constexpr size_t kMaxEntries = 40000;
  CtagsReader* reader_;
  std::unordered_map<std::uint64_t, std::string> map_;  // key → pack()
  size_t parsed_ = 0, bytes_ = 0;
};

// The import graph and the switch registry at each change's commits. Changes
// come in merge order, so the tree usually moves one change at a time (the
// files it touched are read again at its commit); when a change does not
// follow the commit the tree holds (the first one, or an older change
// re-analysed for a later reference), the whole tree is read at its parent
// first. The registry is probed at the parent, the change applied, and
// probed again at the merge. Results are kept by sha for the run, so a later
// pass finds them again.
//
// The tree holds the files at `commit_` whichever way it got there: an
// edit reads each touched file with read_regular_file(), the reader that
// agrees with the whole-tree walk (symlinks and files over kMaxFile read as
// absent), and the reach counts no further than its cap in any walk order.
// So a change's facts depend on its commits alone, not on where a run
// started, how the changes were batched or whether a run was killed.
class TreeTracker {
 public:
  TreeTracker(GitSource* source, const RepoConfig& config, ContentCache& cache,
              const std::vector<SwitchOrigin>& origins)
      : source_(source), config_(config), contents_(cache) {
    for (const auto& o : origins) origins_.emplace(o.name, o);
    graph_.set_config(config);
    if (source_)
      if (auto r = CtagsReader::start()) ctags_ = std::move(*r);
    tags_ = std::make_unique<TagCache>(ctags_.get());
  }

  TreeFacts at(const Change& c) {
    if (!source_ || c.sha.empty()) return {};
    if (auto it = cache_.find(c.sha); it != cache_.end()) return it->second;
    TreeFacts out;
    bool at_parent = !c.parent_sha.empty() && commit_ == c.parent_sha;
    if (!at_parent && !c.parent_sha.empty()) at_parent = rebuild(c.parent_sha);
    if (!at_parent && c.parent_sha.empty()) {  // a root commit: the empty tree before it
      clear();
      at_parent = true;
    }
    std::optional<SwitchProbe> probe;
    std::optional<ContextProbe> context;
    if (at_parent) probe.emplace(switches_, c);
    if (at_parent && symbols_ok_) context.emplace(symbols_, graph_, c);
    const bool moved = at_parent && !c.files_truncated ? apply(c) : rebuild(c.sha);
    if (!moved) {
      clear();
      return {};
    }
    commit_ = c.sha;
    graph_.commit = c.sha;
    out.reach = graph_.reach(c, config_);
    if (probe) {
      out.switches = probe->finish(switches_);
      out.switches_known = true;
      note_origins(c, out.switches);
    }
    if (context && symbols_ok_) {
      const MergeReader read = [&](const std::string& p) {
        std::optional<std::string> cached;
        if (contents_.get(c.sha, p, cached)) return cached;
        auto r = source_->read_regular_file(c.sha, p, kMaxFile);
        return r ? *r : std::nullopt;
      };
      out.context = context->finish(symbols_, graph_, read);
      out.fates = context->fates(symbols_, read);
      out.context_known = true;
    }
    cache_.emplace(c.sha, out);
    return out;
  }

  size_t rebuilds() const { return rebuilds_; }

 private:
  // Where each switch the change reads was introduced: the earliest change
  // before it that declared it (stored facts, then this run in merge order);
  // and the switches it introduces itself.
  void note_origins(const Change& c, std::vector<SwitchFact>& switches) {
    auto earlier = [](std::int64_t merged, std::int64_t id, const Change& x) {
      return merged < x.merged_at || (merged == x.merged_at && id < x.id);
    };
    for (auto& sw : switches) {
      auto it = origins_.find(sw.name);
      if (sw.existed_at_parent && it != origins_.end() &&
          earlier(it->second.merged_at, it->second.change_id, c))
        sw.introduced_by = it->second.ref;
      if (sw.change == "added" &&
          (it == origins_.end() || !earlier(it->second.merged_at, it->second.change_id, c)))
        origins_[sw.name] = {sw.name, c.id,
                             c.number ? fmt::format("#{}", *c.number) : c.sha.substr(0, 12),
                             c.merged_at};
    }
  }

  static bool tracks(const std::string& p) {
    return import_graph_tracks(p) || switch_scan_tracks(p) || CtagsReader::reads(p);
  }

  void clear() {
    graph_.clear();
    switches_.clear();
    symbols_.clear();
    symbols_ok_ = ctags_ != nullptr;
    commit_.clear();
  }

  // Sets or removes `path` in every index the tracker keeps.
  void set(const std::string& p, std::string_view content) {
    graph_.set_file(p, content);
    switches_.set_file(p, content);
    if (symbols_ok_ && CtagsReader::reads(p)) {
      auto t = tags_->get(p, content);
      if (t)
        symbols_.set_file(p, std::move(*t));
      else
        symbols_ok_ = false;  // the parser failed: no context until the next full read
    }
  }
  void remove(const std::string& p) {
    graph_.remove_file(p);
    switches_.remove_file(p);
    symbols_.remove_file(p);
  }

  bool rebuild(const std::string& sha) {
    ++rebuilds_;
    clear();
    graph_.begin_bulk();
    auto done = source_->for_each_file(sha, tracks,
                                       [&](const std::string& p, std::string_view content) {
                                         set(p, content);
                                       },
                                       kMaxFile);
    graph_.end_bulk();
    if (!done) {
      clear();
      return false;
    }
    commit_ = sha;
    return true;
  }

  bool apply(const Change& c) {
    for (const auto& f : c.files) {
      if (!f.old_path.empty() && f.old_path != f.path && f.status == FileStatus::kRenamed)
        remove(f.old_path);
      if (!tracks(f.path)) continue;
      if (f.status == FileStatus::kDeleted) {
        remove(f.path);
        continue;
      }
      auto content = source_->read_regular_file(c.sha, f.path, kMaxFile);
      if (!content) return false;
      if (*content) {
        set(f.path, **content);
        // Absent ones the workers read themselves.
        contents_.put(c.sha, f.path, std::move(*content));
      } else {
        remove(f.path);
      }
    }
    return true;
  }

  static constexpr size_t kMaxFile = 1u << 20;  // larger files are read as importing nothing
  GitSource* source_;
  const RepoConfig& config_;
  ContentCache& contents_;
  ImportGraph graph_;
  SwitchRegistry switches_;
  SymbolIndex symbols_;
  bool symbols_ok_ = false;  // the index holds the tree (a parser ran on every file)
  std::unique_ptr<CtagsReader> ctags_;
  std::unique_ptr<TagCache> tags_;
  std::string commit_;  // the tree both hold; empty: the empty tree or nothing
  std::unordered_map<std::string, TreeFacts> cache_;
  std::map<std::string, SwitchOrigin> origins_;  // name → the change that first declared it
  size_t rebuilds_ = 0;
};

// A shallow clone's boundary has no diff (see Change::shallow): what the
// analysis found in an empty file list says nothing about the change, so the
// facts say that instead. A later deepened ingest drops them for a real read.
void mark_shallow(Facts& f) {
  const std::string why = "shallow clone boundary: the diff was not read";
  f.importance = Score{1, {why}};
  f.insight = Score{1, {why}};
  f.verdict = Verdict::kSkip;
  f.verdict_scope.clear();
  f.cleanup.clear();
}

// The repository's stored history for thread links, with the files changes
// merged since `since` added. Every stored change is a candidate (links
// point backward only), so the links of a change do not depend on which
// other changes this run analyses.
Result<void> fill_thread_index(Store& store, const RepoRecord& repo, UnixSeconds since,
                               ThreadIndex& index) {
  index = ThreadIndex();
  auto rows = store.list_changes(repo.id, ListQuery{});
  if (!rows) return std::unexpected(rows.error());
  for (auto& r : *rows) {
    if (r.open || r.merged_at <= 0) continue;
    index.add({std::move(r.sha), r.number.value_or(0), std::move(r.title),
               r.author.login.empty() ? std::move(r.author.name) : std::move(r.author.login),
               r.merged_at});
  }
  auto added = store.added_files(repo.id, since);
  if (!added) return std::unexpected(added.error());
  for (auto& [sha, path] : *added) index.add_added_path(sha, std::move(path));
  index.finish();
  return {};
}

// How far back a change's "builds on" link looks (threads.h: 30 days), with a day to spare.
constexpr UnixSeconds kThreadLookBack = 31 * 86400;

}  // namespace

Result<AnalyzeReport> analyze(Store& store, const RepoRecord& repo, const AnalyzeOptions& opt,
                              Progress* progress) {
  AnalyzeReport report;
  const unsigned threads =
      std::max(1u, std::min(opt.threads ? opt.threads : std::thread::hardware_concurrency(), 8u));

  // File readers over the clone, one per thread; the analysis works without them.
  std::vector<std::unique_ptr<GitSource>> sources;
  std::string tip;
  if (!repo.path.empty()) {
    for (unsigned i = 0; i < threads; ++i) {
      auto s = GitSource::open(repo.path);
      if (!s) break;
      sources.push_back(std::move(*s));
    }
    if (!sources.empty()) {
      auto t = sources.front()->resolve_branch(repo.branch);
      if (t) tip = *t;
    }
  }
  report.clone_available = !sources.empty();

  std::string toml, labeler;
  if (!opt.config_path.empty()) {
    auto text = read_local_file(opt.config_path);
    if (!text) return std::unexpected(text.error());
    toml = std::move(*text);
  } else if (!tip.empty()) {
    if (auto t = sources.front()->read_file(tip, "mergelens.toml"); t && *t) toml = **t;
  }
  if (!tip.empty())
    if (auto l = sources.front()->read_file(tip, ".github/labeler.yml"); l && *l) labeler = **l;
  // The watched repository's own files are its authors' to break: a malformed
  // one is a warning naming it (and the line), and the defaults are used.
  // A file named by --config is ours, and its errors stop the run.
  if (!labeler.empty())
    if (auto r = parse_labeler_yml(labeler, ".github/labeler.yml"); !r) {
      report.warnings.push_back(r.error().message + " (the repository's labels are not used)");
      labeler.clear();
    }
  if (!toml.empty() && opt.config_path.empty())
    if (auto r = parse_mergelens_toml(toml, "mergelens.toml"); !r) {
      report.warnings.push_back(r.error().message + " (the default settings are used)");
      toml.clear();
    }
  auto ctx = make_context(repo.name, toml, labeler);
  if (!ctx) return std::unexpected(ctx.error());
  // The import graph has its own reader: it walks the changes in order on a
  // thread of its own while the workers analyse them.
  std::unique_ptr<GitSource> graph_source;
  if (!sources.empty())
    if (auto s = GitSource::open(repo.path)) graph_source = std::move(*s);
  ContentCache contents;
  auto origins = store.switch_origins(repo.id);
  if (!origins) return std::unexpected(origins.error());
  TreeTracker tree(graph_source.get(), ctx->config, contents, *origins);

  // Pass 1 analyses what is missing (or everything with --force); facts that
  // name older changes as fixed, followed up or reverted invalidate those, and
  // later passes recompute them with the back-reference (at most 3 passes).
  ThreadIndex thread_index;
  UnixSeconds thread_horizon = INT64_MAX;
  for (int pass = 0; pass < 3; ++pass) {
    auto ids =
        store.changes_needing_analysis(repo.id, opt.force && pass == 0 ? -1 : kAnalyzerVersion);
    if (!ids) return std::unexpected(ids.error());
    if (ids->empty()) break;
    if (progress) progress->set_total(report.analyzed + ids->size());

    // The thread index reaches back far enough for the oldest change to analyse.
    {
      UnixSeconds oldest = INT64_MAX;
      for (auto id : *ids) {
        auto c = store.get_change_by_id(id);  // merge order: the first is the oldest
        if (!c) return std::unexpected(c.error());
        if (*c && !(*c)->open && (*c)->merged_at > 0) {
          oldest = (*c)->merged_at;
          break;
        }
      }
      if (oldest != INT64_MAX && oldest - kThreadLookBack < thread_horizon) {
        if (auto r = fill_thread_index(store, repo, oldest - kThreadLookBack, thread_index); !r)
          return std::unexpected(r.error());
        thread_horizon = oldest - kThreadLookBack;
        ctx->threads = &thread_index;
      }
    }
    const size_t batch = std::max<size_t>(1, opt.batch_size);
    for (size_t start = 0; start < ids->size(); start += batch) {
      const size_t n = std::min(batch, ids->size() - start);
      const auto batch_start = std::chrono::steady_clock::now();
      std::vector<Change> changes;
      changes.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        auto c = store.get_change_by_id((*ids)[start + i]);
        if (!c) return std::unexpected(c.error());
        if (*c) changes.push_back(std::move(**c));
      }
      std::vector<std::vector<Backlink>> backlinks(changes.size());
      for (size_t i = 0; i < changes.size(); ++i) {
        auto b = store.referenced_by(repo.id, changes[i]);
        if (!b) return std::unexpected(b.error());
        backlinks[i] = std::move(*b);
      }
      // Reaches, in order, beside the analysis: a worker waits for its change's.
      std::vector<TreeFacts> reaches(changes.size());
      size_t reached = 0;
      std::mutex reach_mu;
      std::condition_variable reach_cv;
      std::thread grapher([&] {
        const double g0 = thread_cpu_micros();
        for (size_t i = 0; i < changes.size(); ++i) {
          if (!changes[i].open) reaches[i] = tree.at(changes[i]);
          std::lock_guard lock(reach_mu);
          reached = i + 1;
          reach_cv.notify_all();
        }
        report.graph_micros += thread_cpu_micros() - g0;
      });
      std::vector<std::pair<std::int64_t, Facts>> results(changes.size());
      std::vector<double> micros(changes.size());
      auto work = [&](unsigned t) {
        AnalysisContext local = *ctx;
        for (size_t i = t; i < changes.size(); i += threads) {
          const Change& c = changes[i];
          if (t < sources.size()) {
            GitSource* src = sources[t].get();
            local.read_new_file =
                [src, &c, &contents](const std::string& path) -> std::optional<std::string> {
              std::optional<std::string> cached;
              if (contents.get(c.sha, path, cached)) return cached;
              auto r = src->read_file(c.sha, path, 1u << 20);
              return r ? *r : std::nullopt;
            };
          }
          local.referenced_by = backlinks[i];
          {
            std::unique_lock lock(reach_mu);
            reach_cv.wait(lock, [&] { return reached > i; });
            local.reach = reaches[i].reach;
            local.switches = std::move(reaches[i].switches);
            local.switches_known = reaches[i].switches_known;
            local.context = std::move(reaches[i].context);
            local.definition_fates = std::move(reaches[i].fates);
            local.context_known = reaches[i].context_known;
          }
          const auto t0 = std::chrono::steady_clock::now();
          results[i] = {c.id, analyze_change(c, local)};
          if (c.shallow) mark_shallow(results[i].second);
          micros[i] =
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                  .count();
        }
      };
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads && t < changes.size(); ++t) pool.emplace_back(work, t);
      work(0);
      for (auto& th : pool) th.join();
      grapher.join();
      contents.clear();
      auto put = store.put_facts(results);
      if (!put) return std::unexpected(put.error());
      report.invalidated += *put;
      for (const auto& [id, f] : results) ++report.verdicts[to_string(f.verdict)];
      report.analyzed += results.size();
      report.micros.insert(report.micros.end(), micros.begin(), micros.end());
      const double wall =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - batch_start)
              .count();
      report.wall_micros.insert(report.wall_micros.end(), micros.size(),
                                micros.empty() ? 0 : wall / static_cast<double>(micros.size()));
      if (progress) progress->advance(n);
    }
  }
  if (progress) progress->finish();
  report.graph_rebuilds = tree.rebuilds();
  return report;
}

}  // namespace mergelens
