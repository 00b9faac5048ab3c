// PR page: every element of the guide (or the analysis facts when no guide
// has been written yet), focus regions with their code excerpt and a link to
// the exact lines on the original host.
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/analysis/text/threads.h"
#include "mergelens/guide/guide.h"
#include "mergelens/report/threads.h"
#include "mergelens/web/pages.h"

namespace mergelens::web {

namespace {

constexpr size_t kMaxExcerptLines = 60;

// Code spans the guide proposes (not in the change) are marked, so the
// template can show them as suggestions.
nlohmann::json marked(nlohmann::json segs, const std::set<std::string>& suggested) {
  for (auto& seg : segs)
    if (seg["code"].get<bool>() && suggested.count(seg["t"].get<std::string>()))
      seg["suggest"] = true;
  return segs;
}

nlohmann::json rich_list(const std::vector<std::string>& items,
                         const std::set<std::string>& suggested = {}) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : items)
    if (!s.empty()) out.push_back({{"segs", marked(rich(s), suggested)}});
  return out;
}

// The diff lines of `path` that fall in [start, end] of the new file, with
// removed lines that sat between them.
nlohmann::json excerpt(const Change& c, const std::string& path, int start, int end) {
  nlohmann::json out = nlohmann::json::array();
  if (start <= 0) return out;
  if (end < start) end = start;
  for (const auto& f : c.files) {
    if (f.path != path) continue;
    for (const auto& h : f.hunks) {
      int last_new = h.new_start - 1;
      for (const auto& l : h.lines) {
        if (l.origin == '\\') continue;
        const int pos = l.origin == '-' ? last_new + 1 : l.new_no;
        if (l.origin != '-') last_new = l.new_no;
        if (pos < start || pos > end) continue;
        if (out.size() >= kMaxExcerptLines) return out;
        out.push_back({{"no", l.origin == '-' ? std::string() : std::to_string(l.new_no)},
                       {"sign", std::string(1, l.origin == ' ' ? ' ' : l.origin)},
                       {"cls", l.origin == '+'   ? "add"
                               : l.origin == '-' ? "del"
                                                 : "ctx"},
                       {"text", clean_text(l.text)}});
      }
    }
  }
  return out;
}

nlohmann::json focus_item(const Site& site, const Change& c, const std::string& path, int start,
                          int end, const std::string& symbol, const std::string& question,
                          const std::string& why, const std::set<std::string>& suggested = {}) {
  const std::string lines = start <= 0    ? ""
                            : end > start ? fmt::format("L{}–L{}", start, end)
                                          : fmt::format("L{}", start);
  return {{"path", clean_text(path)},
          {"lines", lines},
          {"symbol", clean_text(symbol)},
          {"question", rich(question)},
          {"why", rich(why)},
          {"question_rich", {{"segs", marked(rich(question), suggested)}}},
          {"why_rich", {{"segs", marked(rich(why), suggested)}}},
          {"url", blob_url(site, c, path, start, end)},
          {"excerpt", excerpt(c, path, start, end)}};
}

nlohmann::json score(int value, const std::string& reason) {
  return {{"value", value}, {"reason", clean_text(reason)}, {"scored", value > 0}};
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

}  // namespace

std::string blob_url(const Site& site, const Change& c, const std::string& path, int start,
                     int end) {
  const std::string base = safe_url(site.repo.web_base);
  if (base.empty() || start <= 0 || c.sha.empty()) return "";
  std::string url = fmt::format("{}/blob/{}/{}#L{}", base, c.sha, url_encode(path, true), start);
  if (end > start) url += fmt::format("-L{}", end);
  return url;
}

Result<Page> pr_page(const Site& site, std::string_view ref) {
  if (site.all())
    return fail(
        ErrorKind::kNotFound,
        "a PR page belongs to one repository: /r/OWNER/NAME/pr/{} (the switcher lists them)",
        clean_text(ref));
  auto change = find_change(site.store, site.repo, ref);
  if (!change) return std::unexpected(change.error());
  const Change& c = *change;
  auto facts = site.store.get_facts(c.id);
  if (!facts) return std::unexpected(facts.error());
  std::optional<Guide> guide;
  for (const Lang l : {site.lang, site.lang == Lang::kZh ? Lang::kEn : Lang::kZh}) {
    auto g = site.store.get_guide(c.id, lang_code(l));
    if (!g) return std::unexpected(g.error());
    if (*g) {
      guide = std::move(*g);
      break;
    }
  }
  ChangeSummary s;
  s.number = c.number;
  s.sha = c.sha;
  // Other changes carrying the same number (a second "(#106)" commit): each
  // page links the others, the newest by its number, older ones by sha.
  nlohmann::json same = nlohmann::json::array();
  if (c.number) {
    auto others = site.store.changes_with_number(site.repo.id, *c.number);
    if (!others) return std::unexpected(others.error());
    for (const auto& o : *others)
      if (o.id != c.id)
        same.push_back({{"href", site.links.pr(url_ref(o))},
                        {"sha", o.sha.substr(0, 12)},
                        {"title", clean_text(o.title)},
                        {"merged", site.tz.minute(o.merged_at)},
                        {"newest", !o.number_reused}});
  }
  Page page;
  page.template_name = "pr";
  nlohmann::json& m = page.model;
  const std::string title = clean_text(c.title);
  m["ref"] = display_ref(s);
  m["title"] = title;
  m["url"] = safe_url(c.url);
  m["author"] = author_of(c.author);
  m["merged"] = site.tz.minute(c.merged_at);
  m["merged_utc"] = format_utc(c.merged_at);
  m["day_href"] = site.links.day(site.tz.day(c.merged_at));
  m["sha"] = c.sha;
  m["additions"] = c.additions();
  m["deletions"] = c.deletions();
  m["files"] = c.files.size();
  m["body"] = clean_text(c.body);
  m["has_guide"] = guide.has_value();
  m["open"] = c.open;
  m["same_number"] = same;
  m["has_same_number"] = !same.empty();
  // Its thread: "part 3 of 5", "reverted by #M on the same day", each linked.
  {
    const std::int64_t id = c.id;
    auto notes = report::thread_notes(site.store, std::span<const std::int64_t>(&id, 1));
    if (!notes) return std::unexpected(notes.error());
    const auto& mine = (*notes)[id];
    const std::string lang = lang_code(site.lang);
    nlohmann::json thread = nlohmann::json::array();
    for (const auto& n : mine) {
      ChangeSummary o;
      o.number = n.other.number;
      o.sha = n.other.sha;
      const std::string phrase = report::thread_phrase(lang, c.merged_at, n);
      thread.push_back({{"phrase", clean_text(phrase)},
                        {"href", site.links.pr(url_ref(o))},
                        {"ref", display_ref(o)},
                        {"title", clean_text(n.other.title)}});
    }
    m["thread"] = thread;
    m["series"] = clean_text(series_phrase(lang, c.title));
  }
  nlohmann::json focus = nlohmann::json::array(), skim = nlohmann::json::array();
  std::vector<std::string> tags;
  if (guide) {
    const Guide& g = *guide;
    m["guide_lang"] = g.lang;
    m["guide_other_lang"] = g.lang != lang_code(site.lang);
    const std::set<std::string> sug(g.suggested_code.begin(), g.suggested_code.end());
    m["headline"] = clean_text(g.headline.empty() ? c.title : g.headline);
    m["summary"] = rich(g.summary);
    m["verdict"] = g.verdict;
    m["verdict_text"] = rich(g.verdict_text);
    m["why"] = rich(g.why);
    for (const char* k : {"summary", "verdict_text", "why"})
      m[std::string(k) + "_rich"] = {{"segs", marked(m[k], sug)}};
    for (const auto& f : g.focus)
      focus.push_back(
          focus_item(site, c, f.path, f.start_line, f.end_line, f.symbol, f.question, f.why, sug));
    for (const auto& k : g.skim)
      skim.push_back({{"path", clean_text(k.path)}, {"reason", clean_text(k.reason)}});
    m["design_decisions"] = rich_list(g.design_decisions, sug);
    m["questions"] = rich_list(g.questions, sug);
    m["number_cautions"] = rich_list(g.number_cautions);
    m["body_vs_code"] = rich_list(g.body_vs_code);
    m["gaps"] = rich_list(g.gaps, sug);
    nlohmann::json advice = nlohmann::json::array();
    for (const auto& a : g.advice)
      advice.push_back({{"role", clean_text(a.role)}, {"segs", marked(rich(a.text), sug)}});
    m["advice"] = advice;
    m["audience"] = rich(g.audience);
    m["audience_rich"] = {{"segs", m["audience"]}};
    m["suggested"] = nlohmann::json::array();
    for (const auto& x : g.suggested_code) m["suggested"].push_back(clean_text(x));
    // Whose judgment is whose: the day's triage the guide started from, and
    // the analysis's when the one shown differs from it.
    if (!g.triage.verdict.empty())
      m["triage_judgment"] = {{"verdict", g.triage.verdict},
                              {"verdict_label", verdict_label(site.lang, g.triage.verdict)},
                              {"importance", g.triage.importance},
                              {"insight", g.triage.insight},
                              {"scope", {{"segs", rich(g.triage.scope)}}},
                              {"has_scope", !g.triage.scope.empty()},
                              {"reason", {{"segs", rich(g.triage.reason)}}},
                              {"has_reason", !g.triage.reason.empty()}};
    const GuideJudgment& a = g.analysis;
    if (!a.verdict.empty() && (a.verdict != g.verdict || a.importance.value != g.importance.value ||
                               a.insight.value != g.insight.value || !a.argument.empty()))
      m["judgment"] = {{"verdict", a.verdict},
                       {"verdict_label", verdict_label(site.lang, a.verdict)},
                       {"importance", a.importance.value},
                       {"insight", a.insight.value},
                       {"has_argument", !a.argument.empty()},
                       {"argument", {{"segs", rich(a.argument)}}}};
    m["removed"] = nlohmann::json::array();
    for (const auto& r : g.writer.removed) m["removed"].push_back(clean_text(r));
    m["removed_count"] = g.writer.removed.size();
    m["edits"] = nlohmann::json::array();
    for (const auto& r : g.writer.edits) m["edits"].push_back(clean_text(r));
    m["edits_count"] = g.writer.edits.size();
    m["has_edits"] = !g.writer.edits.empty();
    nlohmann::json refs = nlohmann::json::array();
    for (const auto& r : g.references)
      refs.push_back({{"ref", clean_text(r.ref)},
                      {"relation", clean_text(r.relation)},
                      {"note", rich(r.note)}});
    m["references"] = refs;
    m["importance"] = score(g.importance.value, g.importance.reason);
    m["insight"] = score(g.insight.value, g.insight.reason);
    tags = g.tags;
    nlohmann::json w = {
        {"kind", clean_text(g.writer.kind)},
        {"kind_label", tr(site.lang, g.writer.kind == "llm" ? "writer_llm" : "writer_offline")},
        {"model", clean_text(g.writer.model)},
        {"prompt_version", clean_text(g.writer.prompt_version)},
        {"fallback_reason", clean_text(g.writer.fallback_reason)},
        {"cached", g.writer.cached}};
    m["writer"] = w;
    if (!g.source.author.empty()) m["author"] = clean_text(g.source.author);
    m["open"] = c.open || g.source.open;
  } else {
    m["headline"] = title;
    m["summary_rich"] = m["verdict_text_rich"] = m["why_rich"] = m["audience_rich"] =
        nlohmann::json{{"segs", nlohmann::json::array()}};
    m["writer"] = {{"kind", tr(site.lang, "writer_facts")}, {"model", ""}};
  }
  if (*facts) {
    const Facts& f = **facts;
    if (!guide) {
      m["verdict"] = to_string(f.verdict);
      for (const auto& r : f.focus)
        focus.push_back(focus_item(site, c, r.path, r.start_line, r.end_line, r.symbol, "",
                                   join(r.reasons, "; ")));
      for (const auto& k : f.skim)
        skim.push_back({{"path", clean_text(k.path)}, {"reason", clean_text(k.reason)}});
      std::vector<std::string> cautions, mismatches, gaps;
      for (const auto& n : f.number_cautions) cautions.push_back(n.kind + ": " + n.detail);
      for (const auto& b : f.body_mismatches)
        mismatches.push_back(fmt::format("{} `{}`: {}", b.kind, b.subject, b.detail));
      for (const auto& g : f.gaps)
        gaps.push_back(fmt::format("{} `{}`: {}", g.kind, g.subject, g.detail));
      m["number_cautions"] = rich_list(cautions);
      m["body_vs_code"] = rich_list(mismatches);
      m["gaps"] = rich_list(gaps);
      m["importance"] = score(f.importance.value, join(f.importance.reasons, "; "));
      m["insight"] = score(f.insight.value, join(f.insight.reasons, "; "));
      for (const auto& t : f.tags) tags.push_back(t.name);
    }
    nlohmann::json back = nlohmann::json::array();
    for (const auto& b : f.referenced_by)
      back.push_back({{"ref", clean_text(b.ref)},
                      {"title", clean_text(b.title)},
                      {"relation", clean_text(b.relation)},
                      {"href", b.ref.starts_with("#") ? site.links.pr(b.ref.substr(1))
                                                      : site.links.pr(b.ref)}});
    m["referenced_by"] = back;
  }
  if (!m.contains("verdict")) m["verdict"] = "";
  const std::string verdict = m["verdict"].get<std::string>();
  m["verdict_label"] = verdict_label(site.lang, verdict);
  m["verdict_class"] = verdict.empty() ? "none" : verdict;
  m["focus"] = focus;
  m["skim"] = skim;
  nlohmann::json tag_list = nlohmann::json::array();
  for (const auto& t : tags)
    tag_list.push_back({{"name", clean_text(tag_display_name(t, lang_code(site.lang)))},
                        {"href", site.links.tag(t)}});
  m["tags"] = tag_list;
  // Code spans of the headline: <code> on the page, no backticks in <title>.
  m["headline_rich"] = rich(m["headline"].get<std::string>());
  std::string plain = m["headline"].get<std::string>();
  std::erase(plain, '`');
  page.title = fmt::format("{} {} · {}", m["ref"].get<std::string>(), plain, site.repo.name);
  return page;
}

}  // namespace mergelens::web
