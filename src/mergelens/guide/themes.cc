// The theme prompt and the reading of its answer (themes.h).
#include "mergelens/guide/themes.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/guide/answer_check.h"
#include "mergelens/guide/prompt_excerpt.h"
#include "mergelens/guide/themes_text.h"
#include "mergelens/llm/tokens.h"
#include "mergelens/util/hash.h"
#include "mergelens/util/strings.h"

namespace mergelens {

using answer_check::first_unshown;
using answer_check::one_line;

namespace {

std::string entry_text(const ThemeCandidate& c) {
  std::string t = fmt::format("[{}] {}\n", c.ref, one_line(c.title, 160));
  std::string line = fmt::format("{} · by {}", c.day, one_line(c.author, 40));
  if (!c.tags.empty()) {
    std::vector<std::string> tags;
    for (const auto& tag : c.tags)
      if (tags.size() < 5) tags.push_back(one_line(tag, 30));
    line += fmt::format(" · tags: {}", fmt::join(tags, ", "));
  }
  t += line + "\n";
  if (!c.judgment.empty()) t += one_line(c.judgment, 260) + "\n";
  if (!c.size.empty()) t += "size: " + one_line(c.size, 160) + "\n";
  if (!c.thread.empty()) t += "thread: " + one_line(c.thread, 200) + "\n";
  return t;
}

std::string text_of(const nlohmann::json& item, const char* key, size_t chars) {
  auto it = item.find(key);
  if (it == item.end() || !it->is_string()) return {};
  return one_line(it->get<std::string>(), chars);
}

}  // namespace

Prompt build_theme_prompt(const ThemeWindow& w, std::span<const ThemeCandidate> candidates,
                          size_t max_themes, size_t budget, size_t& shown) {
  Prompt p;
  p.system = std::string(themes_text::kSystem);
  std::string format = prompt_detail::replace_all(std::string(themes_text::kFormat), "{max}",
                                                  std::to_string(max_themes));
  auto head = [&](size_t n) {
    std::string s = fmt::format("Repository: {}\nWindow: {}\nPRs merged in the window: {}\n",
                                one_line(w.repo, 100), one_line(w.label, 160), w.merged);
    s += fmt::format(
        "Shown below: {} (each day's highest-ranked by the day's triage, and the PRs "
        "linked to them){}\n\n",
        plural(static_cast<std::int64_t>(n), "PR"),
        n < candidates.size() ? fmt::format("; {} left out to keep the list short",
                                            plural(static_cast<std::int64_t>(candidates.size() - n),
                                                   "more candidate", "more candidates"))
                              : std::string());
    return s;
  };
  // The fixed parts, then candidates while they fit.
  const size_t fixed = llm::estimate_tokens(p.system) + llm::estimate_tokens(head(0)) +
                       llm::estimate_tokens(format) + 40;
  std::string data;
  size_t used = fixed;
  shown = 0;
  for (const auto& c : candidates) {
    std::string e = entry_text(c) + "\n";
    const size_t t = llm::estimate_tokens(e);
    if (used + t > budget && shown > 0) break;
    used += t;
    data += e;
    ++shown;
  }
  Hasher h;
  for (size_t i = 0; i < shown; ++i) h.add(candidates[i].ref);
  data = prompt_detail::replace_all(std::move(data), "UNTRUSTED", "untrusted");
  const std::string fence = h.hex().substr(0, 12);
  p.user = head(shown);
  p.user += fmt::format("<<<UNTRUSTED {}\n{}UNTRUSTED>>> {}\n\n", fence, data, fence);
  p.user += format;
  p.max_tokens = static_cast<int>(std::min<size_t>(8192, 600 + max_themes * 220));
  p.estimated_tokens =
      llm::estimate_tokens(std::vector<llm::Message>{{"system", p.system}, {"user", p.user}});
  return p;
}

nlohmann::json theme_answer_schema() {
  nlohmann::json item = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"title_zh", "title_en", "highlight_zh", "highlight_en", "prs"}},
      {"properties",
       {{"title_zh", {{"type", "string"}}},
        {"title_en", {{"type", "string"}}},
        {"highlight_zh", {{"type", "string"}}},
        {"highlight_en", {{"type", "string"}}},
        {"prs", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", {"themes"}},
          {"properties", {{"themes", {{"type", "array"}, {"items", item}}}}}};
}

Result<ThemeAnswer> parse_theme_answer(const nlohmann::json& answer,
                                       std::span<const ThemeCandidate> shown) {
  if (!answer.is_object() || !answer.contains("themes") || !answer["themes"].is_array())
    return fail(ErrorKind::kCorrupt, "theme answer: not an object with a \"themes\" list");
  std::map<std::string, size_t> by_ref;
  for (size_t i = 0; i < shown.size(); ++i) {
    by_ref[shown[i].ref] = i;
    if (shown[i].ref.starts_with('#')) by_ref[shown[i].ref.substr(1)] = i;
  }
  ThemeAnswer out;
  std::set<size_t> used;
  size_t position = 0;
  for (const auto& item : answer["themes"]) {
    ++position;
    if (!item.is_object()) {
      out.dropped.push_back(fmt::format("theme {}: not an object", position));
      continue;
    }
    ThemeItem t;
    t.title_zh = text_of(item, "title_zh", 120);
    t.title_en = text_of(item, "title_en", 120);
    t.highlight_zh = text_of(item, "highlight_zh", 300);
    t.highlight_en = text_of(item, "highlight_en", 400);
    std::string shown_text;  // what the prompt showed of this theme's PRs
    if (item.contains("prs") && item["prs"].is_array())
      for (const auto& pr : item["prs"]) {
        std::string ref;
        if (pr.is_string())
          ref = std::string(trim(pr.get<std::string>()));
        else if (pr.is_number_integer())
          ref = std::to_string(pr.get<long long>());
        auto it = by_ref.find(ref);
        if (it == by_ref.end() && ref.size() > 10) it = by_ref.find(ref.substr(0, 10));
        if (it == by_ref.end()) {
          out.dropped.push_back(fmt::format("theme {}: {} is not a candidate", position,
                                            one_line(ref.empty() ? "(no id)" : ref, 40)));
          continue;
        }
        if (!used.insert(it->second).second) {
          out.dropped.push_back(
              fmt::format("theme {}: {} is in an earlier theme", position, shown[it->second].ref));
          continue;
        }
        t.change_ids.push_back(shown[it->second].change_id);
        t.refs.push_back(shown[it->second].ref);
        shown_text += entry_text(shown[it->second]);
      }
    if (t.change_ids.empty()) {
      out.dropped.push_back(fmt::format("theme {}: no PR of the list", position));
      continue;
    }
    if (t.title_en.empty() && t.title_zh.empty()) {
      out.dropped.push_back(fmt::format("theme {}: no title", position));
      for (size_t i = 0; i < t.refs.size(); ++i) used.erase(by_ref[t.refs[i]]);
      continue;
    }
    for (auto* field : {&t.title_zh, &t.title_en, &t.highlight_zh, &t.highlight_en}) {
      const std::string name = first_unshown(*field, shown_text);
      if (name.empty()) continue;
      out.dropped.push_back(
          fmt::format("theme {}: `{}` is not in its PRs' entries", position, one_line(name, 60)));
      field->clear();
    }
    out.themes.push_back(std::move(t));
  }
  if (out.themes.empty())
    return fail(ErrorKind::kCorrupt, "theme answer: no usable theme ({})",
                out.dropped.empty() ? std::string("the list is empty") : out.dropped.front());
  return out;
}

nlohmann::json themes_doc(const ThemeAnswer& a, std::span<const std::int64_t> candidates,
                          size_t left_out, size_t estimated_tokens) {
  nlohmann::json themes = nlohmann::json::array();
  for (const auto& t : a.themes)
    themes.push_back({{"title_zh", t.title_zh},
                      {"title_en", t.title_en},
                      {"highlight_zh", t.highlight_zh},
                      {"highlight_en", t.highlight_en},
                      {"changes", t.change_ids},
                      {"refs", t.refs}});
  return {{"themes", std::move(themes)},
          {"candidates", std::vector<std::int64_t>(candidates.begin(), candidates.end())},
          {"left_out", left_out},
          {"dropped", a.dropped},
          {"estimated_tokens", estimated_tokens}};
}

Result<ThemeAnswer> themes_from_doc(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("themes") || !doc["themes"].is_array())
    return fail(ErrorKind::kCorrupt, "stored themes: not an object with a \"themes\" list");
  ThemeAnswer a;
  try {
    for (const auto& t : doc["themes"]) {
      ThemeItem item;
      item.title_zh = t.value("title_zh", "");
      item.title_en = t.value("title_en", "");
      item.highlight_zh = t.value("highlight_zh", "");
      item.highlight_en = t.value("highlight_en", "");
      item.change_ids = t.value("changes", std::vector<std::int64_t>{});
      item.refs = t.value("refs", std::vector<std::string>{});
      a.themes.push_back(std::move(item));
    }
    a.dropped = doc.value("dropped", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorKind::kCorrupt, "stored themes: {}", e.what());
  }
  return a;
}

std::string week_span(std::string_view week) {
  return fmt::format("week:{}", week);
}

std::string time_span(std::optional<std::int64_t> since, std::optional<std::int64_t> until) {
  return fmt::format("time:{}..{}", since ? std::to_string(*since) : std::string(),
                     until ? std::to_string(*until) : std::string());
}

std::string revs_span(std::string_view from_sha, std::string_view to_sha) {
  return fmt::format("revs:{}..{}", from_sha, to_sha);
}

}  // namespace mergelens
