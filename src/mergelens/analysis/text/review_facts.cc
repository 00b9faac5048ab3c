#include "mergelens/analysis/text/review_facts.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "mergelens/analysis/text/text_facts.h"

namespace mergelens {
namespace {

constexpr size_t kExcerptBytes = 240;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// First kExcerptBytes of the remark on one line, cut at a UTF-8 boundary.
std::string excerpt(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() <= kExcerptBytes) return out;
  size_t cut = kExcerptBytes;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  return out + "…";
}

bool is_bot(std::string_view login) {
  return login.ends_with("[bot]") || login.ends_with("-bot");
}

}  // namespace

bool is_follow_up_remark(std::string_view text) {
  static constexpr std::string_view kPhrases[] = {
      "follow-up", "follow up", "followup",      "next step",     "separate pr",
      "later pr",  "future pr", "another pr",    "subsequent pr", "for later",
      "next pr",   "todo:",     "in a later pr", "as a follow-up"};
  const std::string t = lower(text);
  return std::any_of(std::begin(kPhrases), std::end(kPhrases),
                     [&](std::string_view p) { return t.find(p) != std::string::npos; });
}

void add_review_facts(const Change& change, std::string_view this_repo, Facts& facts) {
  const std::string& author = change.author.login;
  std::set<std::string> reviewers;
  auto note = [&](const std::string& who) {
    if (!who.empty() && who != author && !is_bot(who)) reviewers.insert(who);
  };
  std::vector<std::pair<std::string_view, std::string>> follow_ups;  // text, reviewer

  for (const auto& r : change.reviews) {
    note(r.author);
    if (is_bot(r.author)) continue;
    if (r.state == "CHANGES_REQUESTED") {
      facts.review_points.push_back({r.author, "changes_requested", "", 0, excerpt(r.body)});
    } else if (r.state == "APPROVED") {
      facts.review_points.push_back({r.author, "approval", "", 0, excerpt(r.body)});
    }
    if (is_follow_up_remark(r.body)) {
      facts.review_points.push_back({r.author, "follow_up", "", 0, excerpt(r.body)});
      follow_ups.emplace_back(r.body, r.author);
    }
  }
  for (const auto& c : change.review_comments) {
    note(c.author);
    if (is_bot(c.author) || c.author == author) continue;
    const std::int32_t line = c.line ? c.line : c.original_line;
    const bool follow = is_follow_up_remark(c.body);
    const char* kind = follow                                              ? "follow_up"
                       : c.body.find("```suggestion") != std::string::npos ? "suggestion"
                                                                           : "comment";
    facts.review_points.push_back({c.author, kind, c.path, line, excerpt(c.body)});
    if (follow) follow_ups.emplace_back(c.body, c.author);
  }
  for (const auto& c : change.comments) {
    note(c.author);
    if (is_bot(c.author) || c.author == author || !is_follow_up_remark(c.body)) continue;
    facts.review_points.push_back({c.author, "follow_up", "", 0, excerpt(c.body)});
    follow_ups.emplace_back(c.body, c.author);
  }
  facts.reviewers.assign(reviewers.begin(), reviewers.end());

  for (const auto& [text, who] : follow_ups) {
    for (auto& ref : extract_references(text, "review", this_repo)) {
      if (ref.kind != "pr" && ref.kind != "issue") continue;
      if (ref.repo.empty() && change.number && ref.number == *change.number) continue;
      auto same =
          std::find_if(facts.references.begin(), facts.references.end(), [&](const Reference& o) {
            return (o.kind == "pr" || o.kind == "issue") && o.repo == ref.repo &&
                   o.number == ref.number;
          });
      if (same != facts.references.end()) {
        if (same->relation == "mentions") same->relation = "follow_up";
        continue;
      }
      if (ref.relation == "mentions") ref.relation = "follow_up";
      facts.references.push_back(std::move(ref));
    }
  }
}

}  // namespace mergelens
