// The two languages of one answer (languages.h).
#include "mergelens/guide/languages.h"

#include <fmt/format.h>

namespace mergelens {
namespace {

// Removes from `list` the items whose answer index is in `drop` (indexes
// into the list as the answer had it, less `gone`: those already removed).
template <class T>
void erase_at(std::vector<T>& list, const std::set<size_t>& drop, const std::set<size_t>& gone) {
  std::vector<T> kept;
  size_t at = 0;  // index into `list`
  for (size_t i = 0; at < list.size(); ++i) {
    if (gone.count(i)) continue;
    if (!drop.count(i)) kept.push_back(std::move(list[at]));
    ++at;
  }
  list = std::move(kept);
}

// The answer indexes of `name`'s items a report names as removed.
std::set<size_t> removed_in(const PruneReport& r, const std::string& name) {
  std::set<size_t> out;
  for (const auto& f : r.items_removed)
    if (f.starts_with(name + "[")) out.insert(std::stoul(f.substr(name.size() + 1)));
  return out;
}

// Whether any field of item `name[i]` drew a failure or an edit.
bool touched(const PruneReport& r, const std::string& name, size_t i) {
  const std::string item = fmt::format("{}[{}]", name, i);
  for (const auto& f : r.fields_edited)
    if (f == item || f.starts_with(item + ".")) return true;
  return false;
}

// Makes `to` drop what `from` lost in list `name`.
template <class T>
size_t follow(const char* name, const PruneReport& from, const char* from_lang, Guide& to,
              const PruneReport& to_report, std::vector<T>& list) {
  const auto fa = from.list_sizes.find(name), ta = to_report.list_sizes.find(name);
  if (fa == from.list_sizes.end() || ta == to_report.list_sizes.end() || fa->second != ta->second)
    return 0;
  const std::set<size_t> lost = removed_in(from, name), gone = removed_in(to_report, name);
  std::set<size_t> drop;
  for (size_t i : lost)
    if (!gone.count(i) && !touched(to_report, name, i)) drop.insert(i);
  if (drop.empty()) return 0;
  erase_at(list, drop, gone);
  for (size_t i : drop)
    to.writer.edits.push_back(fmt::format(
        "{}[{}]: removed, as in the {} guide of the same answer (the check removed it there)", name,
        i, from_lang));
  return drop.size();
}

size_t follow_all(const PruneReport& from, const char* from_lang, Guide& to,
                  const PruneReport& to_report) {
  size_t n = 0;
  n += follow("focus", from, from_lang, to, to_report, to.focus);
  n += follow("skim", from, from_lang, to, to_report, to.skim);
  n += follow("design_decisions", from, from_lang, to, to_report, to.design_decisions);
  n += follow("questions", from, from_lang, to, to_report, to.questions);
  n += follow("number_cautions", from, from_lang, to, to_report, to.number_cautions);
  n += follow("body_vs_code", from, from_lang, to, to_report, to.body_vs_code);
  n += follow("gaps", from, from_lang, to, to_report, to.gaps);
  n += follow("advice", from, from_lang, to, to_report, to.advice);
  n += follow("references", from, from_lang, to, to_report, to.references);
  return n;
}

}  // namespace

size_t agree_items(Guide& a, const PruneReport& ra, Guide& b, const PruneReport& rb) {
  const char* la = a.lang.empty() ? "other" : a.lang.c_str();
  const char* lb = b.lang.empty() ? "other" : b.lang.c_str();
  return follow_all(ra, la, b, rb) + follow_all(rb, lb, a, ra);
}

}  // namespace mergelens
