#include "mergelens/pipeline/ingest.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "mergelens/model/repo_name.h"
#include "mergelens/source/subject.h"
#include "mergelens/util/time.h"

namespace mergelens {
namespace {

std::string folder_name(const std::string& path) {
  std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
  std::string name = p.filename().string();
  if (name.empty()) name = p.parent_path().filename().string();
  if (name == ".git") name = p.parent_path().filename().string();
  if (name.size() > 4 && name.ends_with(".git")) name.resize(name.size() - 4);
  return name.empty() ? "repository" : name;
}

std::string change_url(const std::string& base, const Change& c) {
  if (base.empty()) return {};
  if (c.number) return fmt::format("{}/pull/{}", base, *c.number);
  return fmt::format("{}/commit/{}", base, c.sha);
}

size_t unavailable_files(const Change& c) {
  return static_cast<size_t>(std::count_if(
      c.files.begin(), c.files.end(), [](const FileChange& f) { return !f.unavailable.empty(); }));
}

struct Pending {
  std::string sha;
  UnixSeconds time;
};

// Reads `todo` (oldest first) in parallel and stores it in batches of one
// transaction each. With `base` set, each batch moves the repository's base to
// its newest change (`todo` then extends the stored base without a gap).
Result<size_t> store_pending(Store& store, const RepoRecord& repo,
                             std::vector<std::unique_ptr<GitSource>>& readers,
                             const std::vector<Pending>& todo, const IngestOptions& opt,
                             std::string* base, Progress* progress, size_t* unavailable) {
  size_t stored = 0;
  const size_t batch = std::max<size_t>(1, opt.batch_size);
  for (size_t start = 0; start < todo.size(); start += batch) {
    const size_t n = std::min(batch, todo.size() - start);
    std::vector<Result<Change>> results(n, fail(ErrorKind::kInternal, "not read"));
    auto work = [&](unsigned t) {
      for (size_t i = t; i < n; i += readers.size())
        results[i] = readers[t]->read_change(todo[start + i].sha, opt.read);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < readers.size() && t < n; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();

    std::vector<Change> changes;
    changes.reserve(n);
    for (auto& r : results) {
      if (!r) return std::unexpected(r.error());
      Change c = std::move(*r);
      c.repo = repo.name;
      c.url = change_url(repo.web_base, c);
      if (unavailable) *unavailable += unavailable_files(c);
      changes.push_back(std::move(c));
    }
    std::optional<std::string> new_base;
    if (base) new_base = *base = changes.back().sha;
    auto put = store.put_changes(repo.id, changes, new_base);
    if (!put) return std::unexpected(put.error());
    stored += *put;
    if (progress) progress->advance(n);
  }
  return stored;
}

// Changes stored with files whose diff was not read (FileChange::unavailable:
// a blob the partial clone left out, memory) are read again, oldest first;
// one that now reads more of its files replaces the stored row in place
// (Store::put_changes: same id, facts dropped), as a deepened shallow
// boundary does. One that reads no better is left as stored. Returns how many
// were replaced.
Result<size_t> complete_stored(Store& store, const RepoRecord& repo, GitSource& src,
                               const IngestOptions& opt) {
  auto incomplete = store.incomplete_changes(repo.id);
  if (!incomplete) return std::unexpected(incomplete.error());
  size_t replaced = 0;
  std::vector<Change> better;
  auto flush = [&]() -> Result<void> {
    if (better.empty()) return {};
    auto put = store.put_changes(repo.id, better, std::nullopt);
    if (!put) return std::unexpected(put.error());
    replaced += *put;
    better.clear();
    return {};
  };
  for (const auto& [sha, missing] : *incomplete) {
    if (!src.has_commit(sha)) continue;
    auto c = src.read_change(sha, opt.read);
    if (!c) return std::unexpected(c.error());
    if (unavailable_files(*c) >= missing) continue;
    c->repo = repo.name;
    c->url = change_url(repo.web_base, *c);
    better.push_back(std::move(*c));
    if (better.size() >= std::max<size_t>(1, opt.batch_size))
      if (auto r = flush(); !r) return std::unexpected(r.error());
  }
  if (auto r = flush(); !r) return std::unexpected(r.error());
  return replaced;
}

}  // namespace

Result<IngestReport> ingest(Store& store, const IngestOptions& opt, Progress* progress) {
  auto source = GitSource::open(opt.repo_path);
  if (!source) return std::unexpected(source.error());
  std::string branch = opt.branch;
  if (branch.empty()) branch = (*source)->head_branch().value_or("");
  auto tip = opt.follow_fetched ? (*source)->resolve_fetched_branch(branch)
                                : (*source)->resolve_branch(branch);
  if (!tip) return std::unexpected(tip.error());

  RepoRecord rec;
  std::optional<RemoteInfo> remote;
  if (auto url = (*source)->remote_url("origin")) remote = parse_remote_url(*url);
  rec.name = !opt.repo_name.empty() ? opt.repo_name
             : remote               ? remote->name
                                    : folder_name(opt.repo_path);
  // The name goes into page paths: the origin remote's (or the folder's) must
  // pass the same rule as --repo.
  if (auto r = check_repo_name(rec.name, !opt.repo_name.empty() ? "--repo"
                                         : remote               ? "the origin remote"
                                                                : "the clone's folder");
      !r)
    return fail(ErrorKind::kInvalidInput, "{}; pass --repo NAME", r.error().message);
  rec.web_base = !opt.url_base.empty() ? opt.url_base : remote ? remote->web_base : "";
  while (!rec.web_base.empty() && rec.web_base.back() == '/') rec.web_base.pop_back();
  rec.path = std::filesystem::absolute(opt.repo_path).lexically_normal().string();
  rec.branch = branch;
  auto stored = store.upsert_repo(rec);
  if (!stored) return std::unexpected(stored.error());

  IngestReport report;
  report.repo = *stored;
  auto known = store.known_shas(stored->id);
  if (!known) return std::unexpected(known.error());
  GitSource& src = **source;

  // Walks from `from` down the first-parent chain, collecting the commits to
  // read (newest first). Returns false when --since or --limit cut it short.
  auto collect = [&](const std::string& from, const std::string& skip_first,
                     std::vector<Pending>& out, size_t room) -> Result<bool> {
    bool cut = false;
    auto walked = src.walk_first_parent(from, [&](const std::string& sha, UnixSeconds t) {
      if (sha == stored->base_sha) {
        report.anchored = true;
        return false;
      }
      if (sha == skip_first) return true;
      ++report.walked;
      if (opt.since && t < *opt.since) {
        cut = true;
        return false;
      }
      if (opt.until && t >= *opt.until) return true;
      if (known->count(sha)) return true;
      if (opt.limit && out.size() >= room) {
        cut = true;
        return false;
      }
      if (src.is_shallow_boundary(sha)) {
        report.shallow_boundary = sha;
        report.shallow_boundary_at = t;
      }
      out.push_back({sha, t});
      return true;
    });
    if (!walked) return std::unexpected(walked.error());
    return !cut;
  };

  // Newest first; reversed below so batches extend the stored base.
  std::vector<Pending> todo;
  auto whole = collect(*tip, "", todo, opt.limit);
  if (!whole) return std::unexpected(whole.error());
  if (*whole) report.anchored = true;  // reached the base, the root or the shallow boundary
  std::reverse(todo.begin(), todo.end());

  // A clone deepened since a run stored its boundary: the history below each
  // such boundary, oldest first, then the boundary itself, read with its diff
  // (last, so a run killed before it still finds the boundary marked).
  std::vector<Pending> deeper;
  auto boundaries = store.shallow_boundaries(stored->id);
  if (!boundaries) return std::unexpected(boundaries.error());
  for (const std::string& b : *boundaries) {
    if (src.is_shallow_boundary(b) || !src.has_commit(b)) continue;
    std::vector<Pending> below;
    const size_t room =
        opt.limit > todo.size() + deeper.size() ? opt.limit - todo.size() - deeper.size() : 0;
    if (opt.limit && room == 0) break;
    auto complete = collect(b, b, below, room);
    if (!complete) return std::unexpected(complete.error());
    std::reverse(below.begin(), below.end());
    report.deepened += below.size();
    deeper.insert(deeper.end(), below.begin(), below.end());
    if (*complete) {
      deeper.push_back({b, 0});
      ++report.filled;
    }
  }

  report.pending = todo.size() + deeper.size();
  if (progress) progress->set_total(report.pending);

  const unsigned threads =
      std::max(1u, std::min(opt.threads ? opt.threads : std::thread::hardware_concurrency(), 8u));
  std::vector<std::unique_ptr<GitSource>> readers;
  readers.push_back(std::move(*source));
  for (unsigned i = 1; i < threads; ++i) {
    auto r = GitSource::open(opt.repo_path);
    if (!r) return std::unexpected(r.error());
    readers.push_back(std::move(*r));
  }

  std::string base = stored->base_sha;
  auto put = store_pending(store, *stored, readers, todo, opt, report.anchored ? &base : nullptr,
                           progress, &report.unavailable);
  if (!put) return std::unexpected(put.error());
  report.stored += *put;
  // Every commit from the tip down to the base is stored now (some were known
  // before this run): the tip is the new base.
  if (report.anchored && !opt.until && base != *tip) {
    auto moved = store.put_changes(stored->id, {}, *tip);
    if (!moved) return std::unexpected(moved.error());
  }
  put = store_pending(store, *stored, readers, deeper, opt, nullptr, progress, &report.unavailable);
  if (!put) return std::unexpected(put.error());
  report.stored += *put > report.filled ? *put - report.filled : 0;
  if (auto done = complete_stored(store, *stored, *readers.front(), opt); !done)
    return std::unexpected(done.error());
  else
    report.completed = *done;
  if (progress) progress->finish();
  return report;
}

std::vector<std::string> shallow_notes(const IngestReport& r) {
  std::vector<std::string> out;
  if (r.unavailable > 0)
    out.push_back(fmt::format(
        "{} file{} stored without {} diff (a blob missing from a partial clone, or too large to "
        "diff: `mergelens show --json` says which and why); fetch the blobs and ingest again to "
        "fill them in",
        r.unavailable, r.unavailable == 1 ? "" : "s", r.unavailable == 1 ? "its" : "their"));
  if (r.completed > 0)
    out.push_back(fmt::format("{} stored change{} read again with files {} lacked", r.completed,
                              r.completed == 1 ? "" : "s", r.completed == 1 ? "it" : "they"));
  if (r.deepened > 0 || r.filled > 0)
    out.push_back(fmt::format(
        "the clone was deepened: {} older change{} stored, {} former shallow boundar{} read with "
        "{} diff",
        r.deepened, r.deepened == 1 ? "" : "s", r.filled, r.filled == 1 ? "y" : "ies",
        r.filled == 1 ? "its" : "their"));
  if (!r.shallow_boundary.empty())
    out.push_back(fmt::format(
        "the clone is shallow: history stops at {} (merged {}), stored without a diff because "
        "its parent is not in the clone; `git fetch --deepen=N` (or `--unshallow`) and run again "
        "to read older changes",
        r.shallow_boundary.substr(0, 12), format_utc(r.shallow_boundary_at)));
  return out;
}

}  // namespace mergelens
