// `mergelens notes`: a release-notes draft for a range (report/notes.h).
#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/guide/themes.h"
#include "mergelens/report/notes.h"
#include "mergelens/source/git_source.h"

namespace mergelens::cli {

Result<RevRange> first_parent_range(const std::string& path, const std::string& from,
                                    const std::string& to) {
  auto git = GitSource::open(path);
  if (!git) return std::unexpected(git.error());
  auto to_sha = (*git)->resolve_branch(to);
  if (!to_sha) return fail(ErrorKind::kInvalidInput, "--to {}: {}", to, to_sha.error().message);
  std::string from_sha;
  if (!from.empty()) {
    auto f = (*git)->resolve_branch(from);
    if (!f) return fail(ErrorKind::kInvalidInput, "--from {}: {}", from, f.error().message);
    from_sha = *f;
  }
  std::vector<std::string> shas;
  bool reached = from_sha.empty();
  auto walked = (*git)->walk_first_parent(*to_sha, [&](const std::string& sha, UnixSeconds) {
    if (sha == from_sha) {
      reached = true;
      return false;
    }
    shas.push_back(sha);
    return true;
  });
  if (!walked) return std::unexpected(walked.error());
  if (!reached)
    return fail(ErrorKind::kInvalidInput,
                "--from {} is not on the first-parent history of --to {} (a release branch? use "
                "--since/--until dates)",
                from, to);
  return RevRange{from_sha, *to_sha, std::move(shas)};
}

namespace {

// A full sha as its 12-character prefix; other revisions as given.
std::string short_rev(const std::string& rev) {
  const bool sha =
      rev.size() == 40 && rev.find_first_not_of("0123456789abcdef") == std::string::npos;
  return sha ? rev.substr(0, 12) : rev;
}

}  // namespace

Runner setup_notes(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string from, to, since, until, git, filter, web_base, format = "md", lang = "zh";
    size_t highlights = 8;
    bool all = false, per_pr = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--from", a->from, "The previous release (a revision: tag, branch or sha)");
  sub.add_option("--to", a->to, "The release (a revision; default HEAD when --from is given)");
  sub.add_option("--since", a->since, "Merged at or after (YYYY-MM-DD or an ISO time)");
  sub.add_option("--until", a->until, "Merged before (YYYY-MM-DD or an ISO time)");
  sub.add_option("--git", a->git, "The clone to read revisions in (default: the ingested one)");
  sub.add_option("--web-base", a->web_base,
                 "https://github.com/OWNER/REPO to link PRs when the store has no URL for them");
  sub.add_option("--filter", a->filter, "A reader's filter as a URL query (docs/subscriptions.md)");
  sub.add_option("--highlights", a->highlights, "At most this many highlights")
      ->capture_default_str()
      ->check(CLI::Range(0, 50));
  sub.add_flag("--all", a->all,
               "List every change, routine ones and skips too (else one line counts them)");
  sub.add_flag("--per-pr", a->per_pr,
               "One highlight per PR by its own judgment, no themes (to compare with themes)");
  sub.add_option("--format", a->format, "md or json")->capture_default_str();
  sub.add_option("--lang", a->lang, "zh or en")->capture_default_str();
  return [a, &g]() -> Result<void> {
    if (a->format != "md" && a->format != "json")
      return fail(ErrorKind::kInvalidInput, "--format must be md or json, not \"{}\"", a->format);
    if (a->lang != "zh" && a->lang != "en")
      return fail(ErrorKind::kInvalidInput, "--lang must be zh or en");
    const bool revs = !a->from.empty() || !a->to.empty();
    const bool dates = !a->since.empty() || !a->until.empty();
    if (revs == dates)
      return fail(ErrorKind::kInvalidInput,
                  "give a range: --from REV [--to REV], or --since DATE [--until DATE]");
    auto filter = report::parse_filter_query(a->filter);
    if (!filter) return fail(ErrorKind::kInvalidInput, "--filter: {}", filter.error().message);
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    if (!a->web_base.empty()) {
      if (!a->web_base.starts_with("https://") && !a->web_base.starts_with("http://"))
        return fail(ErrorKind::kInvalidInput, "--web-base must be an http(s):// address");
      while (a->web_base.ends_with('/')) a->web_base.pop_back();
      repo->web_base = a->web_base;
    }
    report::NotesRange range;
    if (revs) {
      const std::string to = a->to.empty() ? "HEAD" : a->to;
      auto shas = first_parent_range(a->git.empty() ? repo->path : a->git, a->from, to);
      if (!shas) return std::unexpected(shas.error());
      range.span = revs_span(shas->from, shas->to);
      range.shas = std::move(shas->shas);
      range.from_label = short_rev(a->from);
      range.to_label = short_rev(to);
    } else {
      // One check for every command: a reversed or empty range is an error.
      if (auto r = parse_range_flags(a->since, a->until, range.since, range.until); !r) return r;
      range.from_label = a->since;
      range.to_label = a->until;
    }
    report::NotesOptions o;
    o.lang = a->lang;
    o.max_highlights = a->highlights;
    o.list_all = a->all;
    o.per_pr = a->per_pr;
    auto notes =
        report::draft_notes(**store, *repo, range, o, filter->empty() ? nullptr : &*filter);
    if (!notes) return std::unexpected(notes.error());
    if (a->format == "json")
      fmt::print("{}\n", report::notes_json(*notes).dump(2));
    else
      fmt::print("{}", report::notes_markdown(*notes));
    return {};
  };
}

}  // namespace mergelens::cli
