#include "mergelens/web/render.h"

#include <map>
#include <memory>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

namespace mergelens::web {

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedCount;

namespace mstch = kainjow::mustache;

namespace {

// The model as mustache data, built in place: kainjow's set() and push_back()
// copy a subtree whole, so building a list of entries by them copied every
// entry once per level above it.
mstch::data to_data(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      mstch::data d{mstch::data::type::object};
      for (const auto& [k, v] : j.items()) {
        d[k] = to_data(v);
        // {{#has_X}} guards a list X (mustache cannot test a list's length).
        if (v.is_array()) d["has_" + k] = mstch::data{!v.empty()};
      }
      return d;
    }
    case nlohmann::json::value_t::array: {
      mstch::data l{mstch::data::type::list};
      // The list is ours (list_value() only hides it behind const): filled
      // by moves, reserved first because kainjow's data is copied, not moved,
      // when a vector grows (its move constructor is not noexcept).
      auto& items = const_cast<mstch::list&>(l.list_value());
      items.reserve(j.size());
      for (const auto& v : j) items.push_back(to_data(v));
      return l;
    }
    case nlohmann::json::value_t::string:
      // An empty string is false, so {{#x}} skips it and a lookup of x
      // stops here instead of reaching a parent context.
      if (j.get_ref<const std::string&>().empty()) return mstch::data{false};
      return mstch::data{j.get_ref<const std::string&>()};
    case nlohmann::json::value_t::boolean:
      return mstch::data{j.get<bool>()};
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return mstch::data{j.dump()};
    default:
      return mstch::data{false};
  }
}

// The text of template `name` with every partial ({{> NAME}}: the embedded
// "_NAME.mustache") written in place, as kainjow would render it: with the
// context of the tag and the same escaping. kainjow parses a partial again
// at each use, once per entry of a list; in place it is parsed once.
Result<std::string> expanded_source(std::string_view name, int depth = 0) {
  const EmbeddedFile* f = embedded_file(std::string(name) + ".mustache");
  if (!f) return fail(ErrorKind::kInternal, "no template named {}", name);
  if (depth > 8) return fail(ErrorKind::kInternal, "template {}: partials nest too deep", name);
  std::string out;
  std::string_view rest = f->data;
  for (;;) {
    const size_t open = rest.find("{{>");
    if (open == std::string_view::npos) break;
    const size_t close = rest.find("}}", open);
    if (close == std::string_view::npos) break;
    std::string_view partial = rest.substr(open + 3, close - open - 3);
    while (!partial.empty() && partial.front() == ' ') partial.remove_prefix(1);
    while (!partial.empty() && partial.back() == ' ') partial.remove_suffix(1);
    auto body = expanded_source("_" + std::string(partial), depth + 1);
    if (!body) return body;
    out.append(rest.substr(0, open));
    out += *body;
    rest.remove_prefix(close + 2);
  }
  out.append(rest);
  return out;
}

// Template `name`, parsed once per thread (kainjow's templates are not
// shared between threads while rendering), with the page's escaping: every
// {{value}} is valid UTF-8 without the controls XML/HTML forbid, whatever a
// page's view model forgot to clean.
Result<mstch::mustache*> parsed_template(std::string_view name) {
  thread_local std::map<std::string, std::unique_ptr<mstch::mustache>, std::less<>> parsed;
  if (auto it = parsed.find(name); it != parsed.end()) return it->second.get();
  auto source = expanded_source(name);
  if (!source) return std::unexpected(source.error());
  auto tmpl = std::make_unique<mstch::mustache>(*source);
  if (!tmpl->is_valid())
    return fail(ErrorKind::kInternal, "template {}: {}", name, tmpl->error_message());
  tmpl->set_custom_escape(
      [](const std::string& s) { return mstch::html_escape<std::string>(clean_text(s)); });
  return parsed.emplace(std::string(name), std::move(tmpl)).first->second.get();
}

Result<std::string> render_data(std::string_view name, const mstch::data& d) {
  try {
    auto tmpl = parsed_template(name);
    if (!tmpl) return std::unexpected(tmpl.error());
    std::string out = (*tmpl)->render(d);
    if (!(*tmpl)->is_valid())
      return fail(ErrorKind::kInternal, "template {}: {}", name, (*tmpl)->error_message());
    return out;
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "template {}: {}", name, e.what());
  }
}

}  // namespace

const EmbeddedFile* embedded_file(std::string_view name) {
  for (size_t i = 0; i < kEmbeddedCount; ++i)
    if (name == kEmbeddedFiles[i].name) return &kEmbeddedFiles[i];
  return nullptr;
}

Result<std::string> render_template(std::string_view name, const nlohmann::json& model) {
  try {
    return render_data(name, to_data(model));
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "template {}: {}", name, e.what());
  }
}

Result<std::string> render_page(const Site& site, const Page& page, std::string_view self,
                                std::string_view query) {
  Result<std::string> content;
  try {
    mstch::data model = to_data(page.model);
    model["ui"] = to_data(ui_strings(site.lang));
    model["static"] = mstch::data{site.links.is_static()};
    content = render_data(page.template_name, model);
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "template {}: {}", page.template_name, e.what());
  }
  if (!content) return content;
  // The repository switcher, when the store holds several: every
  // repository together first, then each one; on a day page each link goes
  // to the same day there.
  nlohmann::json repos = nlohmann::json::array();
  if (site.scopes.repos.size() > 1) {
    const bool day = page.template_name == "day" && page.model.contains("date") &&
                     page.model["date"].is_string() &&
                     !page.model["date"].get<std::string>().empty();
    auto entry = [&](std::int64_t id, const std::string& name) {
      const Links l = site.links.at(site.scopes.scope_of(id));
      repos.push_back({{"name", clean_text(name)},
                       {"href", day ? l.day(page.model["date"].get<std::string>()) : l.home()},
                       {"current", site.repo.id == id}});
    };
    entry(kAllRepos, tr(site.lang, "all_repos"));
    for (const auto& r : site.scopes.repos) entry(r.id, r.name);
  }
  const nlohmann::json layout = {
      {"ui", ui_strings(site.lang)},
      {"lang", html_lang(site.lang)},
      {"en", site.lang == Lang::kEn},
      {"title", page.title},
      {"repo", clean_text(site.repo.name)},
      {"css", site.links.css()},
      {"home", site.links.home()},
      {"tags", site.links.tags()},
      {"search", site.links.action("/search")},
      {"repos", repos},
      {"feed", site.links.feed_all()},
      {"feed_close", site.links.feed_close()},
      {"description",
       fmt::format(fmt::runtime(tr(site.lang, "description")), clean_text(site.repo.name))},
      {"favicon", site.links.favicon()},
      // A page of one tag announces the tag's feed, a week page the week
      // feed (autodiscovery).
      {"tag_feed", page.template_name == "tag" && page.model.value("single", false)
                       ? nlohmann::json{{"href", page.model.value("feed", "")},
                                        {"title", page.model.value("feed_title", "")}}
                   : page.model.contains("alternate_feed") ? page.model["alternate_feed"]
                                                           : nlohmann::json(false)},
      {"week", site.links.week_latest()},
      {"switch", site.links.other_lang(self, query)},
      {"static", site.links.is_static()},
      {"content", *content},
  };
  return render_template("layout", layout);
}

}  // namespace mergelens::web
