#include "mergelens/web/render.h"

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

namespace mergelens::web {

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedCount;

namespace mstch = kainjow::mustache;

namespace {

mstch::data to_data(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      mstch::data d{mstch::data::type::object};
      for (const auto& [k, v] : j.items()) {
        d.set(k, to_data(v));
        // {{#has_X}} guards a list X (mustache cannot test a list's length).
        if (v.is_array()) d.set("has_" + k, mstch::data{!v.empty()});
      }
      return d;
    }
    case nlohmann::json::value_t::array: {
      mstch::data l{mstch::data::type::list};
      for (const auto& v : j) l.push_back(to_data(v));
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

// Partials: every embedded "_NAME.mustache" is {{> NAME}}.
void add_partials(mstch::data& d) {
  for (size_t i = 0; i < kEmbeddedCount; ++i) {
    const std::string_view n = kEmbeddedFiles[i].name;
    if (!n.starts_with("_") || !n.ends_with(".mustache")) continue;
    const std::string body(kEmbeddedFiles[i].data);
    d.set(std::string(n.substr(1, n.size() - 10)), mstch::partial([body] { return body; }));
  }
}

}  // namespace

const EmbeddedFile* embedded_file(std::string_view name) {
  for (size_t i = 0; i < kEmbeddedCount; ++i)
    if (name == kEmbeddedFiles[i].name) return &kEmbeddedFiles[i];
  return nullptr;
}

Result<std::string> render_template(std::string_view name, const nlohmann::json& model) {
  const EmbeddedFile* f = embedded_file(std::string(name) + ".mustache");
  if (!f) return fail(ErrorKind::kInternal, "no template named {}", name);
  try {
    mstch::mustache tmpl{std::string(f->data)};
    if (!tmpl.is_valid())
      return fail(ErrorKind::kInternal, "template {}: {}", name, tmpl.error_message());
    // Every {{value}} is valid UTF-8 without the controls XML/HTML forbid,
    // whatever a page's view model forgot to clean.
    tmpl.set_custom_escape(
        [](const std::string& s) { return mstch::html_escape<std::string>(clean_text(s)); });
    mstch::data d = to_data(model);
    add_partials(d);
    std::string out = tmpl.render(d);
    if (!tmpl.is_valid())
      return fail(ErrorKind::kInternal, "template {}: {}", name, tmpl.error_message());
    return out;
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "template {}: {}", name, e.what());
  }
}

Result<std::string> render_page(const Site& site, const Page& page, std::string_view self,
                                std::string_view query) {
  nlohmann::json model = page.model;
  model["ui"] = ui_strings(site.lang);
  model["static"] = site.links.is_static();
  auto content = render_template(page.template_name, model);
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
