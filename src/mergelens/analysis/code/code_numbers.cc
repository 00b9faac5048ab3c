// Changed numeric constants (see code_signals.h): removed and added lines of
// a hunk that are equal once their numbers are taken out are paired through a
// hash of that skeleton, and each number that differs is reported.
#include <algorithm>
#include <unordered_map>

#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/language.h"

namespace mergelens {
namespace {

using outline_internal::is_ident_char;
using outline_internal::trim;
using signal_internal::is_comment_line;

struct Numbers {
  std::string skeleton;  // the line without whitespace, numbers as '\1'
  std::vector<std::string_view> nums;
  std::vector<size_t> positions;  // offsets of the numbers in the line
};

Numbers split_numbers(std::string_view s) {
  Numbers n;
  char quote = 0;  // a number inside a string literal is text ("0.4.3", "v2"), not a constant
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (quote || c == '"' || c == '\'') {
      if (quote && c == '\\' && i + 1 < s.size()) {
        n.skeleton += c;
        n.skeleton += s[i + 1];
        i += 2;
        continue;
      }
      if (!quote)
        quote = c;
      else if (c == quote)
        quote = 0;
      n.skeleton += c;
      ++i;
      continue;
    }
    const bool starts =
        c >= '0' && c <= '9' && (i == 0 || (!is_ident_char(s[i - 1]) && s[i - 1] != '.'));
    if (!starts) {
      if (c != ' ' && c != '\t') n.skeleton += c;
      ++i;
      continue;
    }
    size_t e = i;
    while (e < s.size() && (is_ident_char(s[e]) || s[e] == '.' || s[e] == '\'')) {
      if ((s[e] == 'e' || s[e] == 'E') && e + 1 < s.size() &&
          (s[e + 1] == '-' || s[e + 1] == '+') && s[i] != '0')
        e += 2;
      else
        ++e;
    }
    while (e > i + 1 && s[e - 1] == '.') --e;
    n.nums.push_back(s.substr(i, e - i));
    n.positions.push_back(i);
    n.skeleton += '\1';
    i = e;
  }
  return n;
}

// The identifier a number is assigned or passed to: "BLOCK = 128" -> BLOCK.
std::string_view number_owner(std::string_view line, size_t pos) {
  size_t j = pos;
  int skipped = 0;
  while (j > 0 && skipped < 12 &&
         std::string_view(" \t=:([,\"'-*<").find(line[j - 1]) != std::string_view::npos) {
    --j;
    ++skipped;
  }
  const size_t e = j;
  while (j > 0 && (is_ident_char(line[j - 1]) || line[j - 1] == '.')) --j;
  std::string_view w = line.substr(j, e - j);
  if (w == "return" || w == "if" || w == "case" || w == "else" || w == "and" || w == "or" ||
      w == "in" || w == "range" || w.empty() || (w[0] >= '0' && w[0] <= '9'))
    return {};
  return w;
}

// Whether `s` names a version ("__version__", "VERSION", "version_info").
bool names_version(std::string_view s) {
  for (size_t i = 0; i + 7 <= s.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < 7 && match; ++k) match = (s[i + k] | 0x20) == "version"[k];
    if (match) return true;
  }
  return false;
}

std::string without_space(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

// The skeleton with names masked: "Unspecified=\1," and "TopKSigmoid=\1,"
// share "a=\1,".
std::string shape(std::string_view skeleton) {
  std::string out;
  for (size_t i = 0; i < skeleton.size(); ++i) {
    if (!is_ident_char(skeleton[i])) {
      out += skeleton[i];
      continue;
    }
    out += 'a';
    while (i + 1 < skeleton.size() && is_ident_char(skeleton[i + 1])) ++i;
  }
  return out;
}

// Whether another added line of the same shape takes the old value `old`:
// an enum renumbered to make room ("TopKSigmoid = 9" added, "Unspecified:
// 9 → 10") moves a value along, it tunes nothing.
bool value_handed_on(std::span<const std::string_view> added, Language lang, int at,
                     const std::string& skeleton, std::string_view old) {
  const std::string want = shape(skeleton);
  for (int j = 0; j < static_cast<int>(added.size()); ++j) {
    if (j == at) continue;
    const std::string_view t = trim(added[j]);
    if (t.size() > 400 || t.empty() || is_comment_line(lang, t)) continue;
    const Numbers n = split_numbers(t);
    if (std::find(n.nums.begin(), n.nums.end(), old) != n.nums.end() && shape(n.skeleton) == want)
      return true;
  }
  return false;
}

}  // namespace

void detect_numeric_changes(std::span<const std::string_view> removed,
                            std::span<const std::string_view> added, Language lang,
                            std::vector<RawSignal>& out) {
  if (!is_code_language(lang)) return;
  std::unordered_map<std::string, std::vector<int>> by_skeleton;
  std::vector<Numbers> old_numbers(removed.size());
  // A removed line that comes back unchanged (re-indented under a new branch)
  // kept its value: it pairs with its copy first, so that a new sibling line
  // with another value ("split_item=2" beside the kept "split_item=3") is not
  // read as the old line changed.
  std::unordered_map<std::string, int> removed_text;  // whitespace-free line -> copies
  for (int i = 0; i < static_cast<int>(removed.size()); ++i) {
    const std::string_view t = trim(removed[i]);
    if (t.size() > 400 || t.empty() || is_comment_line(lang, t)) continue;
    old_numbers[i] = split_numbers(t);
    if (!old_numbers[i].nums.empty()) ++removed_text[without_space(t)];
  }
  std::vector<char> unchanged(added.size(), 0);
  std::unordered_map<std::string, int> kept;  // lines that came back, by text
  for (int i = 0; i < static_cast<int>(added.size()); ++i) {
    auto it = removed_text.find(without_space(trim(added[i])));
    if (it == removed_text.end() || it->second == 0) continue;
    --it->second;
    unchanged[i] = 1;
    ++kept[it->first];
  }
  for (int i = static_cast<int>(removed.size()) - 1; i >= 0; --i) {
    if (old_numbers[i].nums.empty()) continue;
    auto k = kept.find(without_space(trim(removed[i])));
    if (k != kept.end() && k->second > 0) {
      --k->second;
      continue;
    }
    by_skeleton[old_numbers[i].skeleton].push_back(i);
  }
  if (by_skeleton.empty()) return;
  for (int i = 0; i < static_cast<int>(added.size()); ++i) {
    if (unchanged[i]) continue;
    const std::string_view t = trim(added[i]);
    if (t.size() > 400 || t.empty() || is_comment_line(lang, t)) continue;
    const Numbers now = split_numbers(t);
    if (now.nums.empty()) continue;
    auto it = by_skeleton.find(now.skeleton);
    if (it == by_skeleton.end() || it->second.empty()) continue;
    const Numbers& before = old_numbers[it->second.back()];
    it->second.pop_back();
    int reported = 0;
    for (size_t k = 0; k < now.nums.size() && k < before.nums.size() && reported < 3; ++k) {
      if (now.nums[k] == before.nums[k]) continue;
      if (value_handed_on(added, lang, i, now.skeleton, before.nums[k])) continue;
      const std::string_view owner = number_owner(t, now.positions[k]);
      // A version is not a tuned constant: "1.2.3" (two dots or more), or
      // any number given to a name that says version.
      if (std::count(now.nums[k].begin(), now.nums[k].end(), '.') >= 2 ||
          std::count(before.nums[k].begin(), before.nums[k].end(), '.') >= 2 ||
          names_version(owner) || names_version(t))
        continue;
      std::string detail = owner.empty() ? "" : std::string(owner) + ": ";
      detail += std::string(before.nums[k]) + " \xE2\x86\x92 " + std::string(now.nums[k]);
      out.push_back({"numeric_constant", std::move(detail), i});
      ++reported;
    }
  }
}

}  // namespace mergelens
