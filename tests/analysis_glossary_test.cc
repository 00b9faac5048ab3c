// The zh/en glossary: every tag the taxonomy can emit has a Chinese name (so a
// tag added later without one fails here), forms lead to one entry only, and
// a Chinese term and its English term search for the same forms.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "mergelens/analysis/judgment/tags.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/analysis/text/glossary.h"

namespace mergelens {
namespace {

void expect_tag_entry(const std::string& tag, const std::string& where) {
  const GlossaryEntry* e = glossary_find(tag);
  ASSERT_NE(e, nullptr) << where << " tag \"" << tag << "\" has no glossary entry";
  EXPECT_EQ(std::string(e->key), tag)
      << where << " tag \"" << tag << "\" resolves to the entry of \"" << e->key << "\"";
  const std::string zh = tag_display_name(tag, "zh");
  EXPECT_FALSE(zh.empty()) << tag;
  EXPECT_EQ(tag_display_name(tag, "en"), tag);
}

TEST(Glossary, EveryTagOfTheDefaultTaxonomyHasAnEntry) {
  std::set<std::string> tags;
  for (const auto& r : default_taxonomy()) tags.insert(r.tag);
  ASSERT_GT(tags.size(), 20u);
  for (const auto& t : tags) expect_tag_entry(t, "default taxonomy");
  // What effective_rules emits for the defaults (canonical names) too.
  for (const auto& r : effective_rules(nullptr, nullptr)) expect_tag_entry(r.tag, "effective");
}

TEST(Glossary, EveryTagOfARealLabelerHasAnEntry) {
  const char* env = std::getenv("MERGELENS_SHARED_DATA");
  const std::filesystem::path path =
      std::filesystem::path(env ? env : "/work/shared/data") / "sglang-labeler.yml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path << " (MERGELENS_SHARED_DATA)";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto rules = parse_labeler_yml(text.str(), "sglang-labeler.yml");
  ASSERT_TRUE(rules) << rules.error().message;
  for (const auto& r : effective_rules(&*rules, nullptr)) expect_tag_entry(r.tag, "labeler");
}

TEST(Glossary, EveryFormLeadsToItsOwnEntry) {
  std::set<std::string> seen;
  for (const auto& e : glossary()) {
    ASSERT_NE(e.zh, nullptr);
    EXPECT_NE(std::string(e.zh), "") << e.key;
    for (const char* f : std::vector<const char*>{e.key, e.en, e.zh}) {
      EXPECT_EQ(glossary_find(f), &e) << "\"" << f << "\" of " << e.key;
    }
    for (const char* f : e.forms)
      EXPECT_EQ(glossary_find(f), &e) << "form \"" << f << "\" of " << e.key << " leads to "
                                      << (glossary_find(f) ? glossary_find(f)->key : "nothing");
  }
}

TEST(Glossary, ChineseAndEnglishTermsSearchTheSameForms) {
  for (const auto& [zh, en] :
       std::vector<std::pair<std::string, std::string>>{{"量化", "quantization"},
                                                        {"调度", "scheduler"},
                                                        {"注意力", "attention"},
                                                        {"缓存", "cache"},
                                                        {"投机解码", "speculative decoding"},
                                                        {"KV 缓存", "KV cache"},
                                                        {"预填充", "prefill"}}) {
    const auto a = search_forms(zh), b = search_forms(en);
    ASSERT_FALSE(a.empty()) << zh;
    EXPECT_EQ(a, b) << zh << " / " << en;
  }
  // Folding: case, '-' and '_' and the space between Latin and CJK text.
  EXPECT_EQ(glossary_find("Speculative-Decoding"), glossary_find("投机解码"));
  EXPECT_EQ(glossary_find("kv_cache"), glossary_find("KV 缓存"));
  EXPECT_EQ(glossary_find("KV缓存"), glossary_find("kv cache"));
  EXPECT_EQ(tag_display_name("kv-cache", "zh"), "KV 缓存");
  EXPECT_EQ(tag_display_name("quantization", "zh"), "量化");
  EXPECT_EQ(tag_display_name("no-such-tag", "zh"), "no-such-tag");
  // Identifiers and unknown words have no entry: they are searched as typed.
  EXPECT_TRUE(search_forms("_pad_intermediate_size").empty());
  EXPECT_TRUE(search_forms("").empty());
}

}  // namespace
}  // namespace mergelens
