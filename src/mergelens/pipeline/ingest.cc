#include "mergelens/pipeline/ingest.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "mergelens/source/subject.h"

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

struct Pending {
  std::string sha;
  UnixSeconds time;
};

}  // namespace

Result<IngestReport> ingest(Store& store, const IngestOptions& opt, Progress* progress) {
  auto source = GitSource::open(opt.repo_path);
  if (!source) return std::unexpected(source.error());
  std::string branch = opt.branch;
  if (branch.empty()) branch = (*source)->head_branch().value_or("");
  auto tip = (*source)->resolve_branch(branch);
  if (!tip) return std::unexpected(tip.error());

  RepoRecord rec;
  std::optional<RemoteInfo> remote;
  if (auto url = (*source)->remote_url("origin")) remote = parse_remote_url(*url);
  rec.name = !opt.repo_name.empty() ? opt.repo_name
             : remote               ? remote->name
                                    : folder_name(opt.repo_path);
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

  // Newest first; reversed below so batches extend the stored base.
  std::vector<Pending> todo;
  bool cut = false;  // the walk stopped early for --since or --limit
  auto walked = (*source)->walk_first_parent(*tip, [&](const std::string& sha, UnixSeconds t) {
    if (sha == stored->base_sha) {
      report.anchored = true;
      return false;
    }
    ++report.walked;
    if (opt.since && t < *opt.since) {
      cut = true;
      return false;
    }
    if (opt.until && t >= *opt.until) return true;
    if (known->count(sha)) return true;
    if (opt.limit && todo.size() >= opt.limit) {
      cut = true;
      return false;
    }
    todo.push_back({sha, t});
    return true;
  });
  if (!walked) return std::unexpected(walked.error());
  if (!cut) report.anchored = true;  // reached the base or the root
  std::reverse(todo.begin(), todo.end());
  report.pending = todo.size();
  if (progress) progress->set_total(todo.size());

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
      c.repo = stored->name;
      c.url = change_url(stored->web_base, c);
      changes.push_back(std::move(c));
    }
    std::optional<std::string> new_base;
    if (report.anchored) new_base = base = changes.back().sha;
    auto put = store.put_changes(stored->id, changes, new_base);
    if (!put) return std::unexpected(put.error());
    report.stored += *put;
    if (progress) progress->advance(n);
  }
  // Every commit from the tip down to the base is stored now (some were known
  // before this run): the tip is the new base.
  if (report.anchored && !opt.until && base != *tip) {
    auto put = store.put_changes(stored->id, {}, *tip);
    if (!put) return std::unexpected(put.error());
  }
  if (progress) progress->finish();
  return report;
}

}  // namespace mergelens
