// The [[deliver]] tables of mergelens.toml (config.h), read with toml++.
#include "mergelens/deliver/config.h"

#include <cstdlib>
#include <exception>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "mergelens/util/http.h"
#include "mergelens/util/toml_file.h"

namespace mergelens::deliver {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::kFeishu:
      return "feishu";
    case Kind::kLark:
      return "lark";
    case Kind::kDingTalk:
      return "dingtalk";
    case Kind::kWeCom:
      return "wecom";
    case Kind::kSlack:
      return "slack";
    case Kind::kEmail:
      return "email";
  }
  return "?";
}

namespace {

std::optional<Kind> kind_from(std::string_view s) {
  for (Kind k :
       {Kind::kFeishu, Kind::kLark, Kind::kDingTalk, Kind::kWeCom, Kind::kSlack, Kind::kEmail})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

// http(s)://host[...] without whitespace or control characters.
bool valid_url(std::string_view u, bool allow_smtp) {
  std::string_view rest;
  for (std::string_view scheme : {"https://", "http://", "smtp://", "smtps://"}) {
    if (!allow_smtp && scheme.starts_with("smtp")) continue;
    if (allow_smtp && scheme.starts_with("http")) continue;
    if (u.starts_with(scheme)) rest = u.substr(scheme.size());
  }
  if (rest.empty() || rest.front() == '/' || rest.front() == ':') return false;
  for (unsigned char c : u)
    if (c <= 0x20 || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '\\') return false;
  return true;
}

class Reader {
 public:
  Reader(const std::string& path, const EnvLookup& env) : path_(path), env_(env) {}

  Result<Target> target(const toml::table& t, const toml::node& where) {
    Target out;
    std::optional<std::string> kind;
    for (const auto& [key, node] : t) {
      const std::string_view k = key.str();
      Result<void> r;
      if (k == "name") {
        r = text(node, k, out.name);
      } else if (k == "kind") {
        std::string s;
        r = text(node, k, s);
        kind = s;
      } else if (k == "lang") {
        r = text(node, k, out.lang);
        if (r && out.lang != "zh" && out.lang != "en")
          r = error(node, "lang must be \"zh\" or \"en\"");
      } else if (k == "tz") {
        r = text(node, k, out.tz);
      } else if (k == "repo") {
        r = text(node, k, out.repo);
      } else if (k == "site_url") {
        r = text(node, k, out.site_url);
        if (r && !valid_url(out.site_url, false))
          r = error(node, "site_url must be an http(s):// address");
        while (!out.site_url.empty() && out.site_url.back() == '/') out.site_url.pop_back();
      } else if (k == "delay_minutes") {
        r = integer(node, k, 0, 24 * 60, out.delay_minutes);
      } else if (k == "catch_up_days") {
        r = integer(node, k, 1, 366, out.catch_up_days);
      } else if (k == "timeout_s") {
        int s = 0;
        r = integer(node, k, 1, 600, s);
        out.timeout_ms = s * 1000L;
      } else if (k == "max_retries") {
        r = integer(node, k, 0, 20, out.max_retries);
      } else if (k == "min_interval_ms") {
        int ms = 0;
        r = integer(node, k, 0, 600000, ms);
        out.min_interval_ms = ms;
      } else if (k == "max_wait_s") {
        int s = 0;
        r = integer(node, k, 0, 3600, s);
        out.max_wait_ms = s * 1000L;
      } else if (k == "filter") {
        if (!node.is_table()) {
          r = error(node, "filter must be a table: { tags = [...], paths = [...], ... }");
        } else if (auto f = report::filter_from_toml(*node.as_table(), "filter"); !f) {
          r = error(node, f.error().message);
        } else {
          out.filter = std::move(*f);
        }
      } else if (k == "schedule") {
        r = text(node, k, out.schedule);
        if (r && out.schedule != "daily" && out.schedule != "weekly")
          r = error(node, "schedule must be \"daily\" or \"weekly\"");
      } else if (k == "send_empty") {
        if (!node.is_boolean()) return error(node, "send_empty must be true or false");
        out.send_empty = node.as_boolean()->get();
      } else if (k == "url_env") {
        r = text(node, k, out.url_env);
      } else if (k == "secret_env") {
        r = text(node, k, out.secret_env);
      } else if (k == "smtp_url") {
        r = text(node, k, out.smtp_url);
        if (r && !valid_url(out.smtp_url, true))
          r = error(node, "smtp_url must be smtp://host[:port] or smtps://host[:port]");
      } else if (k == "username") {
        r = text(node, k, out.username);
      } else if (k == "password_env") {
        r = text(node, k, out.password_env);
      } else if (k == "from") {
        r = text(node, k, out.from);
      } else if (k == "ca_file") {
        r = text(node, k, out.ca_file);
      } else if (k == "unsubscribe") {
        r = text(node, k, out.unsubscribe);
        if (r && !out.unsubscribe.starts_with("https://") &&
            !out.unsubscribe.starts_with("mailto:"))
          r = error(node,
                    "unsubscribe must be an https:// address (RFC 8058 one-click) or a "
                    "mailto: address someone reads");
        if (r && out.unsubscribe.find_first_of("<>\r\n \t") != std::string::npos)
          r = error(node, "unsubscribe may not hold spaces, < or >");
      } else if (k == "to") {
        r = text_list(node, k, out.to);
      } else if (k == "url" || k == "secret" || k == "password") {
        // The value is never read, copied or echoed.
        return error(node, fmt::format("{} is not read from files; put it in an environment "
                                       "variable and name that variable with {}_env",
                                       k, k));
      } else {
        return error(node, fmt::format("unknown key \"{}\" in [[deliver]]", k));
      }
      if (!r) return std::unexpected(r.error());
    }
    if (out.name.empty()) return error(where, "[[deliver]] needs a name");
    if (!valid_name(out.name))
      return error(where, fmt::format("[[deliver]] name \"{}\" may only hold letters, digits, "
                                      "'-', '_' and '.'",
                                      out.name));
    const std::string what = fmt::format("target \"{}\"", out.name);
    if (!kind)
      return error(where, what + " needs a kind (feishu, lark, dingtalk, wecom, slack, email)");
    auto k = kind_from(*kind);
    if (!k)
      return error(where, fmt::format("{}: unknown kind \"{}\" (feishu, lark, dingtalk, wecom, "
                                      "slack or email)",
                                      what, *kind));
    out.kind = *k;
    if (out.is_email()) {
      if (out.smtp_url.empty()) return error(where, what + " needs smtp_url");
      if (http::redact_userinfo(out.smtp_url) != out.smtp_url)  // the value is never echoed
        return error(where, what +
                                ": smtp_url must not hold credentials (user:password@); put the "
                                "user in username and the password in an environment "
                                "variable named by password_env");
      if (out.from.empty()) return error(where, what + " needs from");
      if (out.to.empty()) return error(where, what + " needs at least one address in to");
      for (const auto& a : out.to)
        if (!plain_address(a)) return error(where, fmt::format("{}: bad address in to", what));
      if (!out.password_env.empty()) {
        auto v = secret(where, what, "password_env", out.password_env);
        if (!v) return std::unexpected(v.error());
        out.password = *v;
      }
      if (!out.url_env.empty() || !out.secret_env.empty())
        return error(where, what + ": url_env and secret_env are for webhooks, not e-mail");
    } else {
      if (out.url_env.empty())
        return error(where, what + " needs url_env, the variable holding its webhook URL");
      auto url = secret(where, what, "url_env", out.url_env);
      if (!url) return std::unexpected(url.error());
      if (!valid_url(*url, false))
        return error(where, fmt::format("{}: the URL in ${} is not an http(s):// address", what,
                                        out.url_env));
      out.url = *url;
      if (!out.secret_env.empty()) {
        if (out.kind == Kind::kWeCom || out.kind == Kind::kSlack)
          return error(where, fmt::format("{}: {} webhooks are not signed; remove secret_env", what,
                                          to_string(out.kind)));
        auto s = secret(where, what, "secret_env", out.secret_env);
        if (!s) return std::unexpected(s.error());
        out.secret = *s;
      }
      if (!out.smtp_url.empty() || !out.to.empty() || !out.from.empty())
        return error(where, what + ": smtp_url, from and to are for e-mail targets");
    }
    return out;
  }

  std::unexpected<Error> error(const toml::node& n, std::string_view what) const {
    return fail(ErrorKind::kInvalidInput, "{}:{}: {}", path_, n.source().begin.line, what);
  }

 private:
  Result<void> text(const toml::node& n, std::string_view key, std::string& out) {
    const auto* s = n.as_string();
    if (!s || s->get().empty())
      return error(n, fmt::format("[[deliver]] {} must be a non-empty string", key));
    out = s->get();
    return {};
  }
  Result<void> text_list(const toml::node& n, std::string_view key, std::vector<std::string>& out) {
    const auto* a = n.as_array();
    if (!a) return error(n, fmt::format("[[deliver]] {} must be a list of strings", key));
    for (const auto& item : *a) {
      std::string s;
      if (auto r = text(item, key, s); !r) return r;
      out.push_back(std::move(s));
    }
    return {};
  }
  Result<void> integer(const toml::node& n, std::string_view key, int lo, int hi, int& out) {
    const auto* i = n.as_integer();
    if (!i || i->get() < lo || i->get() > hi)
      return error(n, fmt::format("[[deliver]] {} must be an integer from {} to {}", key, lo, hi));
    out = static_cast<int>(i->get());
    return {};
  }
  Result<std::string> secret(const toml::node& where, const std::string& what, std::string_view key,
                             const std::string& var) {
    auto v = env_(var);
    if (!v || v->empty())
      return error(where, fmt::format("{}: the environment variable {} named by {} is not set",
                                      what, var, key));
    return *v;
  }
  // "addr@host" or "Name <addr@host>" without line breaks.
  static bool plain_address(std::string_view a) {
    if (a.find_first_of("\r\n") != std::string_view::npos) return false;
    const size_t at = a.find('@');
    return at != std::string_view::npos && at > 0 && at + 1 < a.size();
  }

  const std::string& path_;
  const EnvLookup& env_;
};

}  // namespace

Result<std::vector<Target>> read_targets(const std::string& path, const EnvLookup& env) {
  std::vector<Target> out;
  auto file = read_toml_file(path);
  if (!file) return std::unexpected(file.error());
  if (!*file) return out;
  const toml::table& root = **file;
  const toml::node* d = root.get("deliver");
  if (!d) return out;
  Reader reader(path, env);
  const toml::array* tables = d->as_array();
  if (!tables || !tables->is_array_of_tables())
    return reader.error(*d, "deliver must be an array of tables: write [[deliver]]");
  try {
    for (const auto& node : *tables) {
      auto t = reader.target(*node.as_table(), node);
      if (!t) return std::unexpected(t.error());
      for (const auto& other : out)
        if (other.name == t->name)
          return reader.error(node,
                              fmt::format("two [[deliver]] tables are named \"{}\"", t->name));
      out.push_back(std::move(*t));
    }
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "{}: {}", path, e.what());
  }
  return out;
}

Result<std::vector<Target>> read_targets(const std::string& path) {
  return read_targets(path, [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  });
}

Result<const Target*> find_target(const std::vector<Target>& targets, std::string_view name,
                                  std::string_view path) {
  std::string names;
  for (const auto& t : targets) {
    if (t.name == name) return &t;
    names += (names.empty() ? "" : ", ") + t.name;
  }
  if (targets.empty())
    return fail(ErrorKind::kInvalidInput,
                "unknown delivery target \"{}\": {} has no [[deliver]] table", name, path);
  return fail(ErrorKind::kInvalidInput, "unknown delivery target \"{}\" (configured in {}: {})",
              name, path, names);
}

}  // namespace mergelens::deliver
