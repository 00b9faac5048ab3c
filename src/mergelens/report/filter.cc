// A reader's filter (filter.h).
#include "mergelens/report/filter.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "mergelens/util/deadline.h"
#include "mergelens/util/strings.h"
#include "mergelens/util/toml_file.h"

namespace mergelens::report {

namespace {

constexpr size_t kMaxValues = 32;
// The automaton states of a filter's globs together: bounds what one path
// costs to test (analysis/glob.h), as one glob's own cap does.
constexpr size_t kMaxGlobStates = 16384;

std::string lower(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool equal_ci(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lower(a) == lower(b);
}

// A query value readable in a shared URL: what RFC 3986 allows in a query
// ("," "/" "*" ":" "@" among them) is kept, the rest percent-encoded.
std::string encode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) ||
        std::string_view("-_.~,/*:@!").find(static_cast<char>(c)) != std::string_view::npos)
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string decode(std::string_view s) {
  std::string out;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() + 0 && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The end of the list item starting `s`: the first ',' (with `braces`: outside
// braces and '[...]', and not after '\\'), so that "**/*.{py,md},docs/**" is two
// globs, the first with a brace list as actions/labeler writes it.
size_t item_end(std::string_view s, bool braces) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (!braces) {
      if (c == ',') return i;
    } else if (c == '\\') {
      ++i;
    } else if (c == '[') {
      // A class is one character: "[{,]" opens no brace and separates nothing.
      const size_t close = s.find(']', i + 2);
      if (close != std::string_view::npos) i = close;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Adds one value of `key` to `f`; a list value is comma-separated (`split`
// false: the value is one item, as a TOML array's item is).
Result<void> add(Filter& f, std::string_view key, std::string_view value, bool split = true) {
  auto list = [&](std::vector<std::string>& into, bool fold) -> Result<void> {
    for (std::string_view rest = value; !rest.empty();) {
      const size_t comma = split ? item_end(rest, key == "paths") : std::string_view::npos;
      const std::string_view item = trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
      if (item.empty()) continue;
      std::string v = fold ? lower(item) : std::string(item);
      if (std::ranges::find(into, v) == into.end()) into.push_back(std::move(v));
      if (into.size() > kMaxValues)
        return fail(ErrorKind::kInvalidInput, "{}: at most {} values", key, kMaxValues);
    }
    return {};
  };
  if (key == "tags") return list(f.tags, true);
  if (key == "labels") return list(f.labels, true);
  if (key == "authors") return list(f.authors, false);
  if (key == "paths") {
    const size_t before = f.paths.size();
    if (auto r = list(f.paths, false); !r) return r;
    size_t states = 0;
    for (const auto& g : f.globs) states += g.states();
    for (size_t i = before; i < f.paths.size(); ++i) {
      auto g = Glob::compile(f.paths[i]);
      if (!g) return fail(ErrorKind::kInvalidInput, "paths: {}", g.error().message);
      states += g->states();
      if (states > kMaxGlobStates)
        return fail(ErrorKind::kInvalidInput,
                    "paths: the globs are too complex together (more than {} states to match)",
                    kMaxGlobStates);
      f.globs.push_back(std::move(*g));
    }
    return {};
  }
  const std::string v(trim(value));
  if (key == "min") {
    if (v.empty()) return {};
    if (verdict_level(v) > 0) {
      f.min_verdict = v;
      f.min_importance = 0;
      return {};
    }
    int n = 0;
    if (v.size() <= 2 && std::ranges::all_of(v, [](unsigned char c) { return std::isdigit(c); }))
      n = std::stoi(v);
    if (n < 1 || n > 10)
      return fail(ErrorKind::kInvalidInput,
                  "min: \"{}\" is neither a verdict (close_read, selective_read, skim, skip) nor "
                  "an importance 1-10",
                  v);
    f.min_importance = n;
    f.min_verdict.clear();
    return {};
  }
  if (key == "lang") {
    if (!v.empty() && v != "zh" && v != "en")
      return fail(ErrorKind::kInvalidInput, "lang: \"{}\" is not zh or en", v);
    f.lang = v;
  }
  return {};
}

bool known_key(std::string_view k) {
  return k == "tags" || k == "paths" || k == "labels" || k == "authors" || k == "min" ||
         k == "lang";
}

}  // namespace

bool Filter::empty() const {
  return tags.empty() && paths.empty() && labels.empty() && authors.empty() &&
         min_verdict.empty() && min_importance == 0;
}

std::string Filter::query() const {
  std::string out;
  auto put = [&](std::string_view key, std::string value) {
    if (value.empty()) return;
    out += fmt::format("{}{}={}", out.empty() ? "" : "&", key, value);
  };
  auto joined = [](const std::vector<std::string>& values) {
    std::string s;
    for (const auto& v : values) s += (s.empty() ? "" : ",") + encode(v);
    return s;
  };
  // A glob's own separating commas (a TOML item "a,b.py") are escaped, so the
  // query reads back as the same globs.
  std::vector<std::string> globs;
  for (std::string g : paths) {
    for (size_t i = 0, end;
         (end = item_end(std::string_view(g).substr(i), true)) != std::string_view::npos;
         i += end + 2)
      g.insert(i + end, 1, '\\');
    globs.push_back(std::move(g));
  }
  put("tags", joined(tags));
  put("paths", joined(globs));
  put("labels", joined(labels));
  put("authors", joined(authors));
  put("min",
      min_verdict.empty() ? (min_importance ? std::to_string(min_importance) : "") : min_verdict);
  put("lang", lang);
  return out;
}

Result<Filter> parse_filter(const std::vector<std::pair<std::string, std::string>>& params) {
  Filter f;
  for (const auto& [k, v] : params)
    if (known_key(k))
      if (auto r = add(f, k, v); !r) return std::unexpected(r.error());
  return f;
}

Result<Filter> parse_filter_query(std::string_view query) {
  if (query.starts_with('?')) query.remove_prefix(1);
  std::vector<std::pair<std::string, std::string>> params;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    params.emplace_back(decode(item.substr(0, eq)),
                        eq == std::string_view::npos ? "" : decode(item.substr(eq + 1)));
  }
  return parse_filter(params);
}

Result<Filter> filter_from_toml(const toml::table& table, std::string_view where) {
  Filter f;
  for (const auto& [key, node] : table) {
    const std::string k(key.str());
    auto bad = [&](std::string_view what) {
      return fail(ErrorKind::kInvalidInput, "{}: {} {}", where, k, what);
    };
    if (!known_key(k)) return bad("is not a filter key (tags, paths, labels, authors, min, lang)");
    std::vector<std::string> values;
    if (const auto* s = node.as_string()) {
      values.push_back(s->get());
    } else if (const auto* i = node.as_integer(); i && k == "min") {
      values.push_back(std::to_string(i->get()));
    } else if (const auto* a = node.as_array(); a && k != "min" && k != "lang") {
      for (const auto& item : *a) {
        if (!item.is_string()) return bad("must be an array of strings");
        values.push_back(item.as_string()->get());
      }
    } else {
      return bad(k == "min" ? "must be a verdict or an importance 1-10"
                            : "must be a string or an array of strings");
    }
    for (const auto& v : values) {
      // A TOML array item is one value: a glob keeps its commas
      // ("**/*.{py,md}"); a tag, label or author cannot hold one.
      if (k != "min" && k != "lang" && k != "paths" && v.find(',') != std::string::npos)
        return bad("values may not hold a comma");
      if (auto r = add(f, k, v, /*split=*/k != "paths"); !r)
        return fail(ErrorKind::kInvalidInput, "{}: {}", where, r.error().message);
    }
  }
  return f;
}

Result<std::map<std::string, Filter>> read_subscriptions(const std::string& path) {
  std::map<std::string, Filter> out;
  auto file = read_toml_file(path);
  if (!file) return std::unexpected(file.error());
  if (!*file) return out;
  const toml::node* subs = (**file).get("subscriptions");
  if (!subs) return out;
  if (!subs->is_table())
    return fail(ErrorKind::kInvalidInput, "{}: subscriptions must be a table of tables", path);
  for (const auto& [key, node] : *subs->as_table()) {
    const std::string name(key.str());
    const std::string where = fmt::format("{}: [subscriptions.{}]", path, name);
    if (name.empty() || !std::ranges::all_of(name, [](unsigned char c) {
          return std::isalnum(c) || c == '.' || c == '_' || c == '-';
        }))
      return fail(ErrorKind::kInvalidInput, "{}: a name of letters, digits, '.', '_' or '-'",
                  where);
    if (!node.is_table()) return fail(ErrorKind::kInvalidInput, "{} must be a table", where);
    auto f = filter_from_toml(*node.as_table(), where);
    if (!f) return std::unexpected(f.error());
    out.emplace(name, std::move(*f));
  }
  return out;
}

bool matches(const Filter& f, const Entry& e, const ChangeFacets& facets) {
  if (!f.min_verdict.empty() &&
      report::verdict_level(e.change.verdict) < report::verdict_level(f.min_verdict))
    return false;
  if (f.min_importance > 0 && (e.change.verdict.empty() || e.change.importance < f.min_importance))
    return false;
  if (!f.tags.empty() && std::ranges::none_of(e.tags, [&](const std::string& t) {
        return std::ranges::find(f.tags, lower(t)) != f.tags.end();
      }))
    return false;
  if (!f.authors.empty() && std::ranges::none_of(f.authors, [&](const std::string& a) {
        return (!e.change.author.login.empty() && equal_ci(a, e.change.author.login)) ||
               (!e.change.author.name.empty() && equal_ci(a, e.change.author.name));
      }))
    return false;
  if (!f.labels.empty() && std::ranges::none_of(facets.labels, [&](const std::string& l) {
        return std::ranges::find(f.labels, lower(l)) != f.labels.end();
      }))
    return false;
  if (!f.globs.empty() && std::ranges::none_of(facets.paths, [&](const std::string& p) {
        // A change of thousands of files under a costly glob: give up once the
        // work's deadline has passed (apply_filter reports it). One path under
        // the costliest glob a filter takes is milliseconds of work, a clock
        // read is nanoseconds: the check runs before every path.
        if (deadline_passed()) return true;
        return std::ranges::any_of(f.globs, [&](const Glob& g) { return g.matches(p); });
      }))
    return false;
  return true;
}

Result<size_t> apply_filter(Store& store, const Filter& f, std::vector<Entry>& entries) {
  if (f.empty()) return size_t{0};
  std::vector<char> keep(entries.size(), 0);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (auto r = check_deadline("filtering"); !r) return std::unexpected(r.error());
    ChangeFacets facets;
    if (f.needs_change()) {
      auto c = store.get_change_by_id(entries[i].change.id);
      if (!c) return std::unexpected(c.error());
      if (*c) {
        facets.labels = (*c)->labels;
        for (const auto& file : (*c)->files) {
          facets.paths.push_back(file.path);
          if (!file.old_path.empty()) facets.paths.push_back(file.old_path);
        }
      }
    }
    keep[i] = matches(f, entries[i], facets);
  }
  if (auto r = check_deadline("filtering"); !r) return std::unexpected(r.error());
  std::vector<Entry> kept;
  for (size_t i = 0; i < entries.size(); ++i)
    if (keep[i]) kept.push_back(std::move(entries[i]));
  const size_t left_out = entries.size() - kept.size();
  entries = std::move(kept);
  return left_out;
}

std::string not_listed(std::string_view lang, size_t count, std::string_view why) {
  if (count == 0) return "";
  if (lang == "en")
    return fmt::format("{} not listed{}",
                       plural(static_cast<std::int64_t>(count), "more PR", "more PRs"),
                       why.empty() ? "" : fmt::format(" ({})", why));
  return fmt::format("另有 {} 个 PR 未列出{}", count,
                     why.empty() ? "" : fmt::format("（{}）", why));
}

}  // namespace mergelens::report
