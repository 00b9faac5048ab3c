#include "mergelens/pipeline/sync.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "mergelens/model/repo_name.h"
#include "mergelens/source/github_json.h"

namespace mergelens {
namespace {

using github::PullSummary;

using github::kPerPage;
// The files endpoint stops at 3000 files (30 pages of 100).
constexpr size_t kMaxFilePages = github::kMaxFiles / kPerPage;

class SyncJob {
 public:
  SyncJob(Store& store, const SyncOptions& opt)
      : store_(store),
        opt_(opt),
        client_(github::ClientOptions{.api_url = opt.api_url,
                                      .token = opt.token,
                                      .max_wait_seconds = opt.max_wait_seconds,
                                      .max_retries = opt.max_retries,
                                      .clock = opt.clock}),
        base_("/repos/" + opt.repo) {}

  Result<SyncReport> run(Progress* progress);

 private:
  // Every page of a list endpoint, decoded and concatenated; at most
  // `max_pages` pages when given (the rest dropped), else an error past
  // SyncOptions::max_pages pages or on a repeated page.
  template <class T, class Decode>
  Result<std::vector<T>> get_all(const std::string& path, Decode decode, size_t max_pages = 0);
  // PRs of one list ("closed" or "open") updated at or after `since`, newest
  // first. Sets `etag` to the first page's ETag; empty result on a 304.
  Result<std::vector<PullSummary>> list(const std::string& state, UnixSeconds since,
                                        std::string& etag);
  Result<void> sync_list(const std::string& state, Progress* progress);
  Result<void> store_pull(const PullSummary& p, const std::vector<PullRow>& rows);

  Store& store_;
  const SyncOptions& opt_;
  github::Client client_;
  std::string base_;
  RepoRecord repo_;
  GithubSyncState state_;
  bool cut_ = false;  // --since or --limit: the sync point does not move
  SyncReport report_;
};

template <class T, class Decode>
Result<std::vector<T>> SyncJob::get_all(const std::string& path, Decode decode, size_t max_pages) {
  std::vector<T> out;
  std::string url = path + (path.find('?') == std::string::npos ? "?" : "&") +
                    fmt::format("per_page={}", kPerPage);
  github::PageWalk walk(github::Client::endpoint_name(path), opt_.max_pages);
  while (!max_pages || walk.pages() < max_pages) {
    auto more = walk.next(url);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    auto page = client_.get(url);
    if (!page) return std::unexpected(page.error());
    auto items = decode(page->body, github::Client::endpoint_name(url));
    if (!items) return std::unexpected(items.error());
    std::move(items->begin(), items->end(), std::back_inserter(out));
    url = page->next_url;
  }
  return out;
}

Result<std::vector<PullSummary>> SyncJob::list(const std::string& state, UnixSeconds since,
                                               std::string& etag) {
  std::string url = fmt::format("{}/pulls?state={}&sort=updated&direction=desc&per_page={}", base_,
                                state, kPerPage);
  std::vector<PullSummary> out;
  github::PageWalk walk(github::Client::endpoint_name(url), opt_.max_pages);
  for (bool first = true;; first = false) {
    auto more = walk.next(url);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    auto page = client_.get(url, first ? etag : std::string());
    if (!page) return std::unexpected(page.error());
    if (page->not_modified) return out;  // only the first page is sent an ETag
    if (first) etag = page->etag;
    auto items = github::decode_pulls(page->body, github::Client::endpoint_name(url));
    if (!items) return std::unexpected(items.error());
    for (auto& p : *items) {
      if (p.updated_at < since) return out;
      if (opt_.limit && out.size() >= opt_.limit) return out;
      out.push_back(std::move(p));
    }
    url = page->next_url;
  }
  return out;
}

Result<void> SyncJob::store_pull(const PullSummary& summary, const std::vector<PullRow>& rows) {
  const std::string pull_path = fmt::format("{}/pulls/{}", base_, summary.number);
  auto page = client_.get(pull_path);
  if (!page) return std::unexpected(page.error());
  std::int64_t changed_files = 0;
  auto pull =
      github::decode_pull(page->body, github::Client::endpoint_name(pull_path), &changed_files);
  if (!pull) return std::unexpected(pull.error());
  Change c = std::move(*pull);
  if (!c.open && c.merged_at == 0) {  // closed without merging since it was listed
    ++report_.skipped_unmerged;
    return {};
  }
  const PullRow* open_row = nullptr;
  const PullRow* merged_row = nullptr;
  for (const auto& r : rows) {
    if (r.open && !open_row) open_row = &r;
    if (!r.open && r.sha == c.sha && !merged_row) merged_row = &r;
  }
  // Where the diff comes from: the merge commit already stored (git ingest, or
  // an earlier sync), the stored open row when its head has not moved, or the API.
  const PullRow* diff_row = merged_row;
  if (c.open && open_row && open_row->head_sha == c.head_sha) diff_row = open_row;
  if (diff_row) {
    auto stored = store_.get_change_by_id(diff_row->id);
    if (!stored) return std::unexpected(stored.error());
    if (!*stored) return fail(ErrorKind::kInternal, "change {} vanished", diff_row->id);
    Change& s = **stored;
    c.files = std::move(s.files);
    c.commits = std::move(s.commits);
    c.files_truncated = s.files_truncated;
    if (diff_row == merged_row) {
      c.kind = s.kind;
      c.parent_sha = s.parent_sha;
      c.merged_at = s.merged_at;  // the commit time git recorded, as ingest stores it
      if (!s.author.email.empty()) {
        c.author.name = s.author.name;
        c.author.email = s.author.email;
      }
      if (s.updated_at == 0) ++report_.joined;  // came from the clone
    }
  } else {
    auto files = get_all<FileChange>(pull_path + "/files", github::decode_files, kMaxFilePages);
    if (!files) return std::unexpected(files.error());
    c.files = std::move(*files);
    c.files_truncated = c.files.size() >= github::kMaxFiles ||
                        (changed_files > 0 && static_cast<size_t>(changed_files) > c.files.size());
    auto commits = get_all<Commit>(pull_path + "/commits", github::decode_commits);
    if (!commits) return std::unexpected(commits.error());
    c.commits = std::move(*commits);
    for (const auto& cm : c.commits)
      if (cm.author.login == c.author.login && !cm.author.email.empty()) {
        c.author.name = cm.author.name;
        c.author.email = cm.author.email;
        break;
      }
  }
  auto reviews = get_all<Review>(pull_path + "/reviews", github::decode_reviews);
  if (!reviews) return std::unexpected(reviews.error());
  auto review_comments =
      get_all<ReviewComment>(pull_path + "/comments", github::decode_review_comments);
  if (!review_comments) return std::unexpected(review_comments.error());
  auto comments = get_all<IssueComment>(fmt::format("{}/issues/{}/comments", base_, summary.number),
                                        github::decode_issue_comments);
  if (!comments) return std::unexpected(comments.error());
  c.reviews = std::move(*reviews);
  c.review_comments = std::move(*review_comments);
  c.comments = std::move(*comments);
  c.repo = repo_.name;
  if (c.url.empty() && !repo_.web_base.empty())
    c.url = fmt::format("{}/pull/{}", repo_.web_base, *c.number);

  std::vector<std::int64_t> absorb;
  if (open_row) {
    c.id = open_row->id;  // an open PR keeps its row, also when it merges
    if (merged_row) absorb.push_back(merged_row->id);
  } else if (merged_row) {
    c.id = merged_row->id;
  }
  if (!cut_) {
    UnixSeconds& mark = summary.open ? state_.open_since : state_.closed_since;
    mark = std::max(mark, summary.updated_at);
  }
  auto put = store_.put_pull(repo_.id, c, absorb,
                             cut_ ? std::nullopt : std::optional<GithubSyncState>(state_));
  if (!put) return std::unexpected(put.error());
  if (c.open) {
    ++report_.open;
  } else {
    ++report_.merged;
    if (open_row) ++report_.turned_merged;
  }
  return {};
}

Result<void> SyncJob::sync_list(const std::string& state, Progress* progress) {
  const bool open = state == "open";
  const UnixSeconds since =
      opt_.since ? *opt_.since : (open ? state_.open_since : state_.closed_since);
  const std::string key = "pulls?state=" + state;
  std::string etag = cut_ ? std::string() : state_.etags[key];
  auto listed = list(state, since, etag);
  if (!listed) return std::unexpected(listed.error());
  if (progress) progress->set_total(listed->size());
  // Oldest update first, so the sync point only moves over stored PRs.
  for (auto it = listed->rbegin(); it != listed->rend(); ++it) {
    const PullSummary& p = *it;
    auto rows = store_.pull_rows(repo_.id, p.number);
    if (!rows) return std::unexpected(rows.error());
    if (!p.open && p.merged_at == 0) {
      ++report_.skipped_unmerged;
      for (const auto& r : *rows)
        if (r.open)
          if (auto d = store_.delete_change(r.id); !d) return std::unexpected(d.error());
    } else if (std::any_of(rows->begin(), rows->end(), [&](const PullRow& r) {
                 return r.open == p.open && r.updated_at == p.updated_at &&
                        (p.open ? r.head_sha == p.head_sha : r.sha == p.merge_commit_sha);
               })) {
      ++report_.unchanged;
    } else if (auto r = store_pull(p, *rows); !r) {
      return r;
    }
    if (progress) progress->advance();
  }
  if (!cut_) state_.etags[key] = etag;
  return {};
}

Result<SyncReport> SyncJob::run(Progress* progress) {
  if (auto r = check_repo_name(opt_.repo, "sync"); !r) return std::unexpected(r.error());
  if (opt_.repo.find('/') == std::string::npos)
    return fail(ErrorKind::kInvalidInput, "repository \"{}\" is not of the form owner/repo",
                opt_.repo);
  auto found = store_.find_repo(opt_.repo);
  if (!found) return std::unexpected(found.error());
  if (*found) {
    repo_ = **found;
  } else {
    auto made = store_.upsert_repo({0, opt_.repo, "", "https://github.com/" + opt_.repo, "", ""});
    if (!made) return std::unexpected(made.error());
    repo_ = *made;
  }
  auto st = store_.get_sync_state(repo_.id);
  if (!st) return std::unexpected(st.error());
  state_ = std::move(*st);
  cut_ = opt_.since.has_value() || opt_.limit > 0;
  report_.repo = repo_;

  auto r = sync_list("closed", progress);
  if (r && opt_.open) r = sync_list("open", progress);
  if (r && !cut_) r = store_.put_sync_state(repo_.id, state_);
  report_.stats = client_.stats();
  if (progress) progress->finish();
  if (!r) return std::unexpected(r.error());
  return report_;
}

}  // namespace

Result<SyncReport> sync_github(Store& store, const SyncOptions& options, Progress* progress) {
  SyncJob job(store, options);
  return job.run(progress);
}

}  // namespace mergelens
