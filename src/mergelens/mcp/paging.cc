#include "mergelens/mcp/paging.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "mergelens/llm/tokens.h"
#include "mergelens/util/strings.h"

namespace mergelens::mcp {

namespace {

using nlohmann::json;

// Fields an item keeps whatever `fields` says: what names it.
const std::set<std::string> kIdentity = {"number", "sha", "ref", "tag", "name"};

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

size_t tokens_of(const json& j) {
  return llm::estimate_tokens(dump(j));
}

std::string base64url(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

std::optional<std::string> unbase64url(std::string_view in) {
  std::string s(in);
  for (char& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
  if (s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") !=
      std::string::npos)
    return std::nullopt;
  const size_t pad = (4 - s.size() % 4) % 4;
  if (pad == 3) return std::nullopt;
  s.append(pad, '=');
  std::string out(3 * s.size() / 4 + 1, '\0');
  const int n =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<size_t>(n) - pad);  // DecodeBlock counts the padding as bytes
  return out;
}

std::vector<std::string> split_fields(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view f = text.substr(0, comma);
    while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
    while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
    if (!f.empty() && std::find(out.begin(), out.end(), f) == out.end()) out.emplace_back(f);
    text = comma == std::string_view::npos ? "" : text.substr(comma + 1);
  }
  return out;
}

// One list of a result: "changes" or "sections[].entries".
struct ListPath {
  std::string outer, inner;  // inner empty: `outer` is the list itself
};

ListPath parse_path(std::string_view p) {
  const size_t brackets = p.find("[].");
  if (brackets == std::string_view::npos) return {std::string(p), ""};
  return {std::string(p.substr(0, brackets)), std::string(p.substr(brackets + 3))};
}

// An item's asked fields (its identity kept); the item as it is when it is
// not an object or nothing was asked.
json select(const json& item, const std::vector<std::string>& fields) {
  if (fields.empty() || !item.is_object()) return item;
  json out = json::object();
  for (const auto& [k, v] : item.items())
    if (kIdentity.count(k) || std::find(fields.begin(), fields.end(), k) != fields.end())
      out[k] = v;
  return out;
}

// Every key any listed item has, for the message about unknown fields.
void collect_keys(const json& item, std::set<std::string>& keys) {
  if (item.is_object())
    for (const auto& [k, v] : item.items()) keys.insert(k);
}

}  // namespace

Result<PageRequest> read_page_request(std::string_view tool, json& args, size_t default_limit) {
  PageRequest page;
  page.limit = default_limit;
  if (args.contains("limit") && args["limit"].is_number_integer())
    page.limit = static_cast<size_t>(std::max<std::int64_t>(1, args["limit"].get<std::int64_t>()));
  if (args.contains("fields") && args["fields"].is_string())
    page.fields = split_fields(args["fields"].get<std::string>());
  if (args.contains("cursor") && args["cursor"].is_string()) {
    const std::string text = args["cursor"].get<std::string>();
    auto raw = unbase64url(text);
    const json c = raw ? json::parse(*raw, nullptr, false) : json();
    if (!c.is_object() || !c.contains("t") || !c["t"].is_string() || !c.contains("o") ||
        !c["o"].is_number_unsigned() || !c.contains("p") || !c["p"].is_object())
      return fail(ErrorKind::kInvalidInput,
                  "cursor is not one this server gave: pass the `next_cursor` of a previous "
                  "result as it is");
    if (c["t"] != tool)
      return fail(ErrorKind::kInvalidInput, "this cursor pages the tool {}, not {}",
                  c["t"].get<std::string>(), tool);
    for (const auto& [k, v] : c["p"].items()) {
      if (args.contains(k) && args[k] != v)
        return fail(ErrorKind::kInvalidInput,
                    "the cursor was made for {}={}, not {}: leave `{}` out or start again "
                    "without a cursor",
                    k, dump(v), dump(args[k]), k);
      args[k] = v;
    }
    page.offset = c["o"].get<size_t>();
  }
  args.erase("cursor");
  args.erase("limit");
  args.erase("fields");
  return page;
}

std::string make_cursor(std::string_view tool, size_t offset, const json& pinned) {
  return base64url(dump(json{{"t", tool}, {"o", offset}, {"p", pinned}}));
}

Result<json> page_result(std::string_view tool, const json& full,
                         const std::vector<std::string>& lists, const PageRequest& page,
                         const json& pinned, size_t budget) {
  std::vector<ListPath> paths;
  for (const auto& p : lists) {
    ListPath lp = parse_path(p);
    if (full.contains(lp.outer) && full[lp.outer].is_array()) paths.push_back(std::move(lp));
  }
  // A result without lists: `fields` picks its top-level fields.
  if (paths.empty()) {
    if (page.fields.empty()) return full;
    bool any = false;
    for (const auto& f : page.fields) any = any || full.contains(f);
    if (!any) {
      std::set<std::string> keys;
      collect_keys(full, keys);
      return fail(ErrorKind::kInvalidInput, "fields names none of {}",
                  fmt::format("{}", fmt::join(keys, ", ")));
    }
    json out = select(full, page.fields);
    return out;
  }
  // The base: the result with every listed array emptied.
  json out = full;
  struct Item {
    size_t path, outer;  // which list, and the container's index for a nested one
    const json* value;
  };
  std::vector<Item> items;
  std::set<std::string> keys;
  for (size_t p = 0; p < paths.size(); ++p) {
    const json& list = full[paths[p].outer];
    if (paths[p].inner.empty()) {
      for (size_t i = 0; i < list.size(); ++i) {
        items.push_back({p, 0, &list[i]});
        collect_keys(list[i], keys);
      }
      out[paths[p].outer] = json::array();
    } else {
      for (size_t o = 0; o < list.size(); ++o) {
        const json& c = list[o];
        if (!c.is_object() || !c.contains(paths[p].inner) || !c[paths[p].inner].is_array())
          continue;
        for (const auto& v : c[paths[p].inner]) {
          items.push_back({p, o, &v});
          collect_keys(v, keys);
        }
      }
      out[paths[p].outer] = json::array();
    }
  }
  if (!page.fields.empty()) {
    bool any = false;
    for (const auto& f : page.fields) any = any || keys.count(f);
    if (!any && !keys.empty())
      return fail(ErrorKind::kInvalidInput, "fields names none of the items' fields: {}",
                  fmt::format("{}", fmt::join(keys, ", ")));
  }
  const size_t total = items.size();
  const size_t offset = std::min(page.offset, total);
  // The page object's own cost, with a cursor of the longest kind.
  json probe = {{"offset", offset},    {"returned", total},
                {"total", total},      {"remaining", total},
                {"limit", page.limit}, {"next_cursor", make_cursor(tool, total, pinned)},
                {"lists", lists},      {"fields", page.fields}};
  size_t used = tokens_of(out) + tokens_of(probe) + 150;  // + the text summary
  size_t returned = 0;
  size_t next = offset;
  // The containers of nested lists already on the page: index in `out`.
  std::vector<std::vector<std::ptrdiff_t>> placed(paths.size());
  for (size_t p = 0; p < paths.size(); ++p)
    if (!paths[p].inner.empty()) placed[p].assign(full[paths[p].outer].size(), -1);
  for (size_t i = offset; i < total && returned < page.limit; ++i) {
    const Item& it = items[i];
    const ListPath& lp = paths[it.path];
    json value = select(*it.value, page.fields);
    size_t cost = tokens_of(value) + 1;
    json container;
    if (!lp.inner.empty() && placed[it.path][it.outer] < 0) {
      container = full[lp.outer][it.outer];
      container[lp.inner] = json::array();
      cost += tokens_of(container);
    }
    if (returned > 0 && used + cost > budget) break;
    used += cost;
    ++returned;
    ++next;
    json& list = out[lp.outer];
    if (lp.inner.empty()) {
      list.push_back(std::move(value));
    } else {
      if (placed[it.path][it.outer] < 0) {
        placed[it.path][it.outer] = static_cast<std::ptrdiff_t>(list.size());
        list.push_back(std::move(container));
      }
      list[static_cast<size_t>(placed[it.path][it.outer])][lp.inner].push_back(std::move(value));
    }
  }
  out["page"] = {{"offset", offset},
                 {"returned", returned},
                 {"total", total},
                 {"remaining", total - next},
                 {"limit", page.limit},
                 {"next_cursor", next < total ? json(make_cursor(tool, next, pinned)) : json()},
                 {"lists", lists},
                 {"fields", page.fields}};
  return out;
}

json page_schema() {
  return {{"type", "object"},
          {"description",
           "What this result holds of the whole list: items offset+1 to offset+returned of "
           "total; pass next_cursor as `cursor` (alone, or with the same arguments) for the next "
           "page; null on the last page."},
          {"required", {"offset", "returned", "total", "remaining", "next_cursor"}},
          {"properties",
           {{"offset", {{"type", "integer"}, {"minimum", 0}}},
            {"returned", {{"type", "integer"}, {"minimum", 0}}},
            {"total", {{"type", "integer"}, {"minimum", 0}}},
            {"remaining", {{"type", "integer"}, {"minimum", 0}}},
            {"limit", {{"type", "integer"}, {"minimum", 1}}},
            {"next_cursor", {{"type", json::array({"string", "null"})}}},
            {"lists", {{"type", "array"}, {"items", {{"type", "string"}}}}},
            {"fields", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
}

std::string page_sentence(std::string_view tool, const json& result) {
  if (!result.is_object() || !result.contains("page") || !result["page"].is_object()) return "";
  const json& p = result["page"];
  const size_t offset = p.value("offset", size_t{0}), returned = p.value("returned", size_t{0}),
               total = p.value("total", size_t{0});
  std::string lists;
  for (const auto& l : p.value("lists", json::array()))
    lists += (lists.empty() ? "" : ", ") + l.get<std::string>();
  std::string out = returned == 0
                        ? fmt::format("No item of {} on this page ({} in all).", lists, total)
                        : fmt::format("Items {}-{} of {} ({}) are in structuredContent.",
                                      offset + 1, offset + returned, total, lists);
  if (p.contains("next_cursor") && p["next_cursor"].is_string())
    out += fmt::format(
        " {} not shown: call {} with {{\"cursor\": \"{}\"}} for the next page, or narrow "
        "it (`limit`, `fields`{}).",
        plural(static_cast<std::int64_t>(total - offset - returned), "more item", "more items"),
        tool, p["next_cursor"].get<std::string>(),
        tool == "day" || tool == "week" ? ", `tags`, `min`" : "");
  return out;
}

}  // namespace mergelens::mcp
