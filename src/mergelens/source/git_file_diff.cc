// Reading one file's diff out of a libgit2 diff (see git_internal.h): hunks
// within the line budgets, files too large to diff, blobs missing from a
// partial clone and allocations failing, each said in FileChange::unavailable
// rather than stored as an empty diff.
#include <algorithm>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "mergelens/source/git_internal.h"

namespace mergelens::git_detail {

std::string last_git_error() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

ssize_t blob_size(git_repository* repo, const git_oid* id) {
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) return -1;
  size_t size = 0;
  git_object_t type{};
  const int rc = git_odb_read_header(&size, &type, odb, id);
  git_odb_free(odb);
  return rc == 0 ? static_cast<ssize_t>(size) : -1;
}

namespace {

// The text after the second "@@" of a hunk header, without the newline.
std::string section_of(const char* header, size_t len) {
  std::string_view h(header, len);
  const size_t second = h.find("@@", 2);
  if (second == std::string_view::npos) return {};
  h.remove_prefix(second + 2);
  while (!h.empty() && (h.back() == '\n' || h.back() == '\r')) h.remove_suffix(1);
  if (!h.empty() && h.front() == ' ') h.remove_prefix(1);
  return std::string(h);
}

// Fills f.hunks from a patch, keeping at most `budget` lines; returns lines kept.
size_t read_hunks(git_patch* patch, FileChange& f, size_t budget) {
  size_t kept = 0;
  const size_t nh = git_patch_num_hunks(patch);
  for (size_t h = 0; h < nh; ++h) {
    const git_diff_hunk* gh = nullptr;
    size_t nlines = 0;
    if (git_patch_get_hunk(&gh, &nlines, patch, h) != 0) break;
    if (kept + nlines > budget) {
      f.truncated = true;
      break;
    }
    Hunk hunk;
    hunk.old_start = gh->old_start;
    hunk.old_lines = gh->old_lines;
    hunk.new_start = gh->new_start;
    hunk.new_lines = gh->new_lines;
    hunk.section = section_of(gh->header, gh->header_len);
    hunk.lines.reserve(nlines);
    for (size_t l = 0; l < nlines; ++l) {
      const git_diff_line* gl = nullptr;
      if (git_patch_get_line_in_hunk(&gl, patch, h, l) != 0) break;
      DiffLine dl;
      switch (gl->origin) {
        case GIT_DIFF_LINE_CONTEXT:
          dl.origin = ' ';
          break;
        case GIT_DIFF_LINE_ADDITION:
          dl.origin = '+';
          break;
        case GIT_DIFF_LINE_DELETION:
          dl.origin = '-';
          break;
        default:  // the three *_EOFNL markers
          dl.origin = '\\';
          dl.text = " No newline at end of file";
          hunk.lines.push_back(std::move(dl));
          continue;
      }
      dl.old_no = gl->old_lineno > 0 ? gl->old_lineno : 0;
      dl.new_no = gl->new_lineno > 0 ? gl->new_lineno : 0;
      size_t len = gl->content_len;
      if (len > 0 && gl->content[len - 1] == '\n') --len;
      dl.text.assign(gl->content, len);
      hunk.lines.push_back(std::move(dl));
    }
    kept += hunk.lines.size();
    f.hunks.push_back(std::move(hunk));
  }
  return kept;
}

// The size of one side of a delta: 0 when the side is absent (an added or
// deleted file) or a submodule (a commit of another repository), -1 when its
// blob is not in the clone.
ssize_t side_size(git_repository* repo, const git_diff_file& side) {
  if (git_oid_is_zero(&side.id) || side.mode == GIT_FILEMODE_COMMIT) return 0;
  return blob_size(repo, &side.id);
}

// A file over the diff limit: added or deleted, its lines are counted from
// its one blob (read once, then freed); modified, it is not diffed at all.
void read_huge_file(git_repository* repo, const git_diff_delta* d, ssize_t old_size,
                    ssize_t new_size, size_t limit, FileChange& f) {
  const bool added = old_size == 0, deleted = new_size == 0;
  if (!added && !deleted) {
    f.truncated = true;
    f.unavailable = fmt::format("too large to diff ({} and {} bytes; the limit is {})", old_size,
                                new_size, limit);
    return;
  }
  Owned<git_blob, git_blob_free> blob;
  if (git_blob_lookup(blob.out(), repo, added ? &d->new_file.id : &d->old_file.id) != 0) {
    f.unavailable = fmt::format("the blob could not be read ({})", last_git_error());
    return;
  }
  const auto* p = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  const auto n = static_cast<size_t>(git_blob_rawsize(blob.get()));
  if (std::memchr(p, '\0', std::min<size_t>(n, 8000))) {  // git's test for binary content
    f.binary = true;
    return;
  }
  const auto lines =
      static_cast<std::int32_t>(std::count(p, p + n, '\n') + (n && p[n - 1] != '\n'));
  (added ? f.additions : f.deletions) = lines;
  f.truncated = true;
}

}  // namespace

void read_file_diff(git_repository* repo, git_diff* diff, size_t i, const GitReadOptions& opt,
                    size_t& line_budget, FileChange& f) {
  // libgit2 reads each side's size (the object header) before it loads the
  // blob, and marks a side over opt.max_diff_bytes binary without diffing it
  // (git_diff_options::max_size): the sizes are asked here only when the
  // patch says so, not read a second time for every file of every change.
  const git_diff_delta* d = git_diff_get_delta(diff, i);
  auto missing = [&]() -> bool {
    for (const git_diff_file* side : {&d->old_file, &d->new_file}) {
      if (side_size(repo, *side) >= 0) continue;
      char id[GIT_OID_HEXSZ + 1];
      git_oid_tostr(id, sizeof id, &side->id);
      f.unavailable = fmt::format(
          "blob {} is not in the clone (a partial or filtered clone): fetch it and ingest again",
          id);
      return true;
    }
    return false;
  };
  try {
    PatchPtr patch;
    if (git_patch_from_diff(patch.out(), diff, i) != 0) {
      const std::string why = last_git_error();
      if (!missing()) f.unavailable = fmt::format("the diff could not be computed ({})", why);
      return;
    }
    const git_diff_delta* pd = patch.get() ? git_patch_get_delta(patch.get()) : d;
    // Sizes as libgit2 read them (0 for an absent side or a submodule).
    const auto size_of = [&](const git_diff_file& side) -> ssize_t {
      return git_oid_is_zero(&side.id) || side.mode == GIT_FILEMODE_COMMIT
                 ? 0
                 : static_cast<ssize_t>(side.size);
    };
    const ssize_t old_size = size_of(pd->old_file), new_size = size_of(pd->new_file);
    if (static_cast<size_t>(std::max(old_size, new_size)) > opt.max_diff_bytes) {
      git_patch_free(patch.p);  // the blobs it holds, before the huge one is read again
      patch.p = nullptr;
      return read_huge_file(repo, d, old_size, new_size, opt.max_diff_bytes, f);
    }
    f.binary = (pd->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (!patch.get() || f.binary) return;
    size_t ctx = 0, adds = 0, dels = 0;
    git_patch_line_stats(&ctx, &adds, &dels, patch.get());
    f.additions = static_cast<std::int32_t>(adds);
    f.deletions = static_cast<std::int32_t>(dels);
    const size_t budget = std::min(opt.max_lines_per_file, line_budget);
    line_budget -= read_hunks(patch.get(), f, budget);
    // Different contents always differ by a line; none means libgit2 gave up.
    if (adds + dels == 0 && (old_size > 0 || new_size > 0) &&
        !git_oid_equal(&d->old_file.id, &d->new_file.id))
      f.unavailable = "the diff came out empty for contents that differ (memory?)";
  } catch (const std::bad_alloc&) {
    f.hunks.clear();
    f.hunks.shrink_to_fit();
    f.additions = f.deletions = 0;
    f.unavailable = "out of memory computing the diff";
  }
}

}  // namespace mergelens::git_detail
