// UI strings in Chinese (the default) and English. Page text that comes from
// the store (titles, guides) is shown as stored; only the chrome is here.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mergelens::web {

enum class Lang { kZh, kEn };

// "zh" or "en"; anything else is Chinese.
Lang lang_from(std::string_view code);
const char* lang_code(Lang l);  // "zh" / "en"
const char* html_lang(Lang l);  // "zh-CN" / "en"

// The string for `key` in `lang`; "?" when unknown (a test checks that
// every key the pages use exists in both languages).
const char* tr(Lang lang, std::string_view key);

// Every UI string of `lang` as one object (templates read {{ui.KEY}}).
const nlohmann::json& ui_strings(Lang lang);

// Verdict label ("值得精读" / "Close read"); empty verdict: "未分析" / "Not analysed".
std::string verdict_label(Lang lang, std::string_view verdict);
// 0 for close_read ... 3 for skip, 4 when not analysed (sort order).
int verdict_rank(std::string_view verdict);

// "44 merged, 6 worth a close read" in `lang`.
std::string day_counts(Lang lang, size_t merged, size_t close_reads, size_t open);

}  // namespace mergelens::web
