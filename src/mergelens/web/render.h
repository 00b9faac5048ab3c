// HTML rendering: kainjow-mustache templates (templates/*.mustache, embedded
// at build time) that escape every {{value}} by default. Only {{{content}}}
// in the layout is unescaped, and it holds a page rendered by this module.
#pragma once

#include <string>
#include <string_view>

#include "mergelens/util/error.h"
#include "mergelens/web/pages.h"

namespace mergelens::web {

struct EmbeddedFile {
  const char* name;  // file name under templates/
  std::string_view data;
};

// An embedded file by name ("style.css", "day.mustache"), nullptr when none.
const EmbeddedFile* embedded_file(std::string_view name);

// The full HTML document of `page` in the layout. `self` and `query` locate
// the page for the language switch (see Links::other_lang). kInternal when a
// template fails (a bug: templates are fixed at build time).
Result<std::string> render_page(const Site& site, const Page& page, std::string_view self,
                                std::string_view query = "");

// Renders template `name` with `model` (for tests and the digest).
Result<std::string> render_template(std::string_view name, const nlohmann::json& model);

}  // namespace mergelens::web
