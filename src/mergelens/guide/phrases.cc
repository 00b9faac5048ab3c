#include "mergelens/guide/phrases.h"

#include <re2/re2.h>

#include <fmt/format.h>

namespace mergelens::phrases {
namespace {

Phrases make_zh() {
  Phrases p;
  p.lang = "zh";
  p.list_sep = "、";
  p.and_word = " 和 ";
  p.sentence_end = "。";
  p.semi = "；";
  p.open_paren = "（";
  p.close_paren = "）";
  p.headline_number = "{}（PR 称 {}）";
  p.summary_files = "改动 {} 个文件（+{} −{}）";
  p.summary_file_one = "改动 1 个文件（+{} −{}）";
  p.summary_adds = "新增 {}";
  p.summary_removes = "删除 {}";
  p.summary_changes = "修改 {}";
  p.summary_switches = "引入开关 {}";
  p.summary_default_changed = "把 {} 的默认值从 {} 改为 {}";
  p.summary_tests = "附带测试 {}";
  p.summary_fixes = "修复 {}";
  p.summary_docs_only = "只涉及测试、文档、配置或 CI，没有主路径代码";
  p.summary_examples_only = "只涉及示例脚本，没有主路径代码";
  p.summary_docs_examples = "只涉及示例、测试、文档、配置或 CI，没有主路径代码";
  p.summary_cleanup = "属于清理（{}）";
  p.summary_shallow =
      "这是浅克隆的边界提交：它的父提交 {} 不在克隆中，无法计算 "
      "diff，改动了哪些文件、多少行都未知。";
  p.verdict_shallow =
      "暂时无从判断：diff 没有读到。在克隆中执行 git fetch --deepen=N（或 --unshallow）后重新运行，"
      "就会补上这个改动的 diff 和指南。";
  p.close_one_place = "值得精读，但只需读一处：{} 的 {} 行（{}）";
  p.close_files = "值得精读，重点看 {} 个文件：{}";
  p.close_lines = "值得精读：约 {} 行值得细看，分布在 {} 个文件";
  p.close_lines_one = "值得精读：约 {} 行值得细看，都在一个文件中";
  p.rest_cleanup = "；其余 {} 个文件（{}）是清理项，浏览即可";
  p.rest_cleanup_one = "；另一个文件 {} 是清理项，浏览即可";
  p.selective = "值得选读：先看 {}（约 {} 行）";
  p.skim = "浏览即可：{}";
  p.skip = "可以跳过：{}";
  p.open_prefix = "【未合并】";
  p.symbol_in_file = "{} 中 {}";
  p.lesson_fallback = "新路径加在旧代码旁边而不是替换它：{} 不成立时，{} 仍执行改动前的那段代码";
  p.lesson_switch = "新增开关 {}（父提交中没有它）：它的默认值决定了老用户是否受影响";
  p.pattern_fallback =
      "{}：新路径放在 {} 之后，旧代码原样保留为另一分支——条件不满足的输入仍走改动前的代码";
  p.pattern_switch = "{}：新行为由新增开关 {} 控制（父提交中没有这个开关）";
  p.q_fallback = "条件 {} 是否恰好在新路径安全的情况下成立、其余情况都不成立？";
  p.q_guard = "新检查（{}）会拦下哪些改动前能走过这里的输入？每个调用方都预期到了吗？";
  p.q_dtype = "dtype 分支（{}）之外的类型走哪条路径？是否有测试覆盖？";
  p.q_device = "设备/平台分支（{}）：其它设备上是否仍走原路径？";
  p.q_concurrency = "{} 保护的状态是否在所有读写路径上都被正确同步？";
  p.q_env = "环境变量 {} 未设置时，行为是否与改动前一致？";
  p.q_flag = "参数 {} 的默认值是否保持旧行为？";
  p.q_signature = "{} 的签名变了：所有调用点是否都已同步更新？";
  p.q_raise = "新的错误/断言（{}）会不会在合法输入下误触发？";
  p.q_constant = "常量 {} 的取值依据是什么？是否应当可配置？";
  p.q_early = "提前返回（{}）跳过了后面的哪些步骤？这对所有调用方都成立吗？";
  p.q_removed = "删除的代码（{}）是否真的没有其它调用者？";
  p.q_generic = "这里的改动与 PR 描述的意图是否一致？";
  p.why_new = "新增 {}";
  p.why_in_place = "{} 取代了本 PR 从同一文件删除的 {}";
  p.why_in_place_many = "{} 取代了本 PR 从同一文件删除的 {} 个测试（其中有 {}）";
  p.why_signature = "{} 签名变化";
  p.why_lines = "{} 行改动";
  p.why_line_one = "1 行改动";
  p.why_test = "测试文件";
  p.why_reviewed = "审阅者在此留言（{}）";
  p.risk_signature = "{} 的签名变了：仓库外的调用者（插件、脚本）会不会受影响？";
  p.risk_dtype = "{} 之外的 dtype/设备组合是否有测试？";
  p.risk_todo = "留下了 TODO（{}）：后续由谁跟进？";
  p.risk_fixed_later = "这个改动后来由 {} 修复（{}）：阅读时留意它引入的问题";
  p.risk_reverted_later = "这个改动后来被 {} 回退（{}）：先弄清回退原因再借鉴";
  p.risk_public_removed = "删除了 {}：是否还有外部调用者？";
  p.risk_constant = "{}：PR 是否说明了新取值的依据，以及它是在哪种硬件或负载上选定的？";
  p.num_spread = "PR 中的数字差异很大（{}）：不要把最好的情况当成普遍收益";
  p.num_no_benchmark = "PR 给出的数字（{}）没有随附可复现的 benchmark：引用时注明条件";
  p.num_single = "数字 {} 没有说明 batch size、序列长度或硬件";
  p.body_named_not_touched = "PR 描述提到 {}，但最终 diff 中没有它：以代码为准";
  p.body_touched_not_mentioned = "{} 行改动（{}%）在 {} 下，标题和描述都没有提到：描述可能已过时";
  p.gap_test =
      "{} 新增了多个分支或守卫（第一个是 {}），本 PR "
      "中没有测试提到这个文件或它定义的名字：补一个走这些分支的测试";
  p.gap_test_one =
      "{} 新增了一个分支或守卫（{}），本 PR "
      "中没有测试提到这个文件或它定义的名字：补一个走这条分支的测试";
  p.gap_test_existing =
      "{} 新增了多个分支或守卫（第一个是 {}），本 PR 中没有测试提到这个文件或它定义的名字；"
      "已有的测试 {}（{}）调用了 {}：可以在其中补上走这些分支的用例";
  p.gap_test_one_existing =
      "{} 新增了一个分支或守卫（{}），本 PR 中没有测试提到这个文件或它定义的名字；"
      "已有的测试 {}（{}）调用了 {}：可以在其中补上走这条分支的用例";
  p.gap_benchmark = "PR 声称 {}，但没有可复现的 benchmark 脚本或结果文件：建议记录测量条件";
  p.note_comment = "{}的注释：{}";
  p.note_docstring = "{}的文档字符串：{}";
  p.lesson_rationale = "代码自己的说明：{} {}的{}写道 {}";
  p.word_comment = "注释";
  p.word_docstring = "文档字符串";
  p.lesson_replaced = "{} 处改动是同一种替换，例如 {}";
  p.lesson_replaced_several = "多处改动是同一种替换，例如 {}";
  p.why_replaced = "替换：{}";
  p.why_replaced_many = "同样的替换共 {} 处";
  p.q_value_moved = "{} 从 {} 改为 {}：依赖原值的调用方或配置是否都已考虑到？";
  p.q_condition_changed = "条件从 {} 改为 {}：两者结果不同的输入现在走哪条路径？";
  p.q_call_replaced = "这里 {}：{} 在每个调用点上都与原写法等价吗？";
  p.q_fallback_to = "{} 时继续执行 {}：这对每个调用方都是正确的结果吗？";
  p.q_renamed = "定义改为 {}：旧名字或旧签名的调用方（包括仓库外的）是否都已更新？";
  p.test_contract = "测试 {} 以名字说明它检查的契约：{}";
  p.summary_contract = "其中 {} 检查 {}";
  p.digest_place = "{1} 的 {0}（{2}）";
  p.digest_places = "先读 {}";
  p.adv_user_switch = "本次新增开关 {}：升级前确认默认值是否符合你的部署";
  p.adv_user_default = "{} 的默认值从 {} 变为 {}：依赖旧默认值、没有显式设置它的部署行为会变";
  p.adv_user_api = "如果你的代码调用 {}，签名已变，升级前检查调用点";
  p.adv_reviewer_tests = "合入前要求补测试（{}）";
  p.adv_reviewer_body = "PR 描述与代码不一致，请作者更新描述";
  p.adv_reviewer_numbers = "请作者补充测量条件（硬件、batch size、序列长度）或可复现的脚本";
  p.adv_reviewer_open = "合并前重点确认：{}";
  p.adv_reviewer_point = "合并前确认 @{} 在{}提出的意见已处理";
  p.review_point_whole = "整个 PR 上";
  p.audience = "尤其适合关注 {} 的工程师";
  p.ref_fixes = "修复 {}";
  p.ref_follow_up = "{} 的后续";
  p.ref_reverts = "回退 {}";
  p.ref_mentions = "提及 {}";
  p.ref_fixed_by = "后来由 {} 修复";
  p.ref_followed_by = "后续改动 {}";
  p.ref_reverted_by = "后来被 {} 回退";
  p.ref_mentioned_by = "被 {} 提及";
  return p;
}

Phrases make_en() {
  Phrases p;
  p.lang = "en";
  p.list_sep = ", ";
  p.and_word = " and ";
  p.sentence_end = ".";
  p.semi = "; ";
  p.open_paren = " (";
  p.close_paren = ")";
  p.headline_number = "{} ({} per the PR)";
  p.summary_files = "Changes {} files (+{} −{})";
  p.summary_file_one = "Changes 1 file (+{} −{})";
  p.summary_adds = "adds {}";
  p.summary_removes = "removes {}";
  p.summary_changes = "changes {}";
  p.summary_switches = "introduces {}";
  p.summary_default_changed = "changes the default of {} from {} to {}";
  p.summary_tests = "with tests in {}";
  p.summary_fixes = "fixes {}";
  p.summary_docs_only = "touches only tests, docs, configuration or CI, no code on the main path";
  p.summary_examples_only = "touches only example scripts, no code on the main path";
  p.summary_docs_examples =
      "touches only examples, tests, docs, configuration or CI, no code on the main path";
  p.summary_cleanup = "is clean-up ({})";
  p.summary_shallow =
      "The boundary commit of a shallow clone: its parent {} is not in the clone, so the diff "
      "could not be read; which files and how many lines it changes is unknown.";
  p.verdict_shallow =
      "Nothing to judge yet: the diff was not read. Run git fetch --deepen=N (or --unshallow) in "
      "the clone and run again to get this change's diff and guide.";
  p.close_one_place = "Worth a close read, but only one place: {}, {} ({})";
  p.close_files = "Worth a close read, focused on {} files: {}";
  p.close_lines = "Worth a close read: about {} to read closely, across {} files";
  p.close_lines_one = "Worth a close read: about {} to read closely, all in one file";
  p.rest_cleanup = "; the other {} files ({}) are clean-up, a glance is enough";
  p.rest_cleanup_one = "; the other file, {}, is clean-up: a glance is enough";
  p.selective = "Worth a selective read: start with {} (about {})";
  p.skim = "Skim: {}";
  p.skip = "Skip: {}";
  p.open_prefix = "[open] ";
  p.symbol_in_file = "{1} in {0}";
  p.lesson_fallback =
      "The new path is added beside the old code, not in its place: when {} does not hold, {} "
      "runs the code it ran before the change";
  p.lesson_switch =
      "New switch {} (the parent revision does not have it): its default decides whether existing "
      "users are affected";
  p.pattern_fallback =
      "{}: the new path sits behind {} and the old code stays as the other branch, so inputs "
      "that fail the condition run exactly the code they ran before";
  p.pattern_switch =
      "{}: the new behaviour sits behind {}, a switch the parent revision did not have";
  p.q_fallback = "Does {} hold exactly where the new path is safe, and nowhere else?";
  p.q_guard =
      "Which inputs that got past this point before does the new check ({}) now stop, and does "
      "every caller expect that?";
  p.q_dtype = "Which path do dtypes other than the branch ({}) take, and are they tested?";
  p.q_device = "Device/platform branch ({}): do other devices still take the old path?";
  p.q_concurrency = "Is the state guarded by {} synchronised on every read and write path?";
  p.q_env = "With {} unset, is the behaviour the same as before?";
  p.q_flag = "Does the default of {} keep the old behaviour?";
  p.q_signature = "The signature of {} changed: are all call sites updated?";
  p.q_raise = "Can the new error/assertion ({}) fire on valid input?";
  p.q_constant = "Where does the value {} come from, and should it be configurable?";
  p.q_early = "What does the early return ({}) skip, and does that hold for every caller?";
  p.q_removed = "Does the removed code ({}) really have no other callers?";
  p.q_generic = "Does this change do what the PR description says?";
  p.why_new = "new {}";
  p.why_in_place = "{} in place of {}, which the PR removes from this file";
  p.why_in_place_many = "{} in place of {} tests the PR removes from this file ({} among them)";
  p.why_signature = "signature of {} changed";
  p.why_lines = "{} changed lines";
  p.why_line_one = "1 changed line";
  p.why_test = "test file";
  p.why_reviewed = "reviewers commented here ({})";
  p.risk_signature = "The signature of {} changed: are callers outside the repository affected?";
  p.risk_dtype = "Are dtype/device combinations other than {} tested?";
  p.risk_todo = "A TODO is left ({}): who follows it up?";
  p.risk_fixed_later =
      "This change was later fixed by {} ({}): watch for the problem it introduced";
  p.risk_reverted_later = "This change was later reverted by {} ({}): learn why before reusing it";
  p.risk_public_removed = "{} was removed: are there outside callers?";
  p.risk_constant =
      "{}: does the PR say why the new value, and on which hardware or workload it was chosen?";
  p.num_spread =
      "The PR's figures vary widely ({}): do not promise the best case as the general gain";
  p.num_no_benchmark =
      "The figures in the PR ({}) come with no reproducible benchmark: quote them with their "
      "conditions";
  p.num_single = "The figure {} comes with no batch size, sequence length or hardware stated";
  p.body_named_not_touched =
      "The PR description names {}, which the final diff does not contain: trust the code";
  p.body_touched_not_mentioned =
      "{} changed lines ({}%) are under {}, which neither title nor description mentions: the "
      "description may be stale";
  p.gap_test =
      "{} adds new branches or guards (the first: {}), and no test in this PR names the file or "
      "what it defines: add a test that takes them";
  p.gap_test_one =
      "{} adds a new branch or guard ({}), and no test in this PR names the file or what it "
      "defines: add a test that takes it";
  p.gap_test_existing =
      "{} adds new branches or guards (the first: {}), and no test in this PR names the file or "
      "what it defines; the existing test {} ({}) calls {}: extend it to take them";
  p.gap_test_one_existing =
      "{} adds a new branch or guard ({}), and no test in this PR names the file or what it "
      "defines; the existing test {} ({}) calls {}: extend it to take it";
  p.gap_benchmark =
      "The PR claims {} but adds no reproducible benchmark script or results: record the "
      "measurement conditions";
  p.note_comment = "comment at {}: {}";
  p.note_docstring = "docstring at {}: {}";
  p.lesson_rationale = "In the code's own words: the {2} in {0}, {1}, reads {3}";
  p.word_comment = "comment";
  p.word_docstring = "docstring";
  p.lesson_replaced = "{} edits are the same replacement, e.g. {}";
  p.lesson_replaced_several = "Several edits are the same replacement, e.g. {}";
  p.why_replaced = "replaced: {}";
  p.why_replaced_many = "the same replacement in {} places";
  p.q_value_moved =
      "{} moves from {} to {}: are the callers and configurations that relied on the old value "
      "accounted for?";
  p.q_condition_changed =
      "The condition changes from {} to {}: which path do the inputs on which they differ take "
      "now?";
  p.q_call_replaced = "Here {}: is {} equivalent to the old form at every call site?";
  p.q_fallback_to = "On {}, the code goes on with {}: is that the right result for every caller?";
  p.q_renamed =
      "The definition becomes {}: are the callers of the old name or signature, outside the "
      "repository too, all updated?";
  p.test_contract = "the test {} is named for the contract it checks: {}";
  p.summary_contract = "{} checks {}";
  p.digest_place = "{0} in {1} ({2})";
  p.digest_places = "Start with {}";
  p.adv_user_switch =
      "New in this change: {}; before upgrading, check that the defaults suit your deployment";
  p.adv_user_default =
      "The default of {} changes from {} to {}: a deployment that does not set it behaves "
      "differently after upgrading";
  p.adv_user_api =
      "If your code calls {}, its signature changed: check your call sites before upgrading";
  p.adv_reviewer_tests = "Ask for tests before merging ({})";
  p.adv_reviewer_body = "The description and the code disagree; ask the author to update it";
  p.adv_reviewer_numbers =
      "Ask for the measurement conditions (hardware, batch size, sequence length) or a "
      "reproducible script";
  p.adv_reviewer_open = "Before merging, confirm: {}";
  p.adv_reviewer_point = "Before merging, check that the point @{} raised on {} is resolved";
  p.review_point_whole = "the PR as a whole";
  p.audience = "Especially for engineers working on {}";
  p.ref_fixes = "fixes {}";
  p.ref_follow_up = "follow-up to {}";
  p.ref_reverts = "reverts {}";
  p.ref_mentions = "mentions {}";
  p.ref_fixed_by = "later fixed by {}";
  p.ref_followed_by = "followed up by {}";
  p.ref_reverted_by = "later reverted by {}";
  p.ref_mentioned_by = "mentioned by {}";
  return p;
}

struct Rule {
  const char* pattern;  // RE2, anchored
  const char* zh;       // with \1 … substitutions
};

// Score reasons of analysis/judgment/scores.cc in Chinese.
constexpr Rule kScoreRules[] = {
    {R"((\d+) lines? of code changed)", "\\1 行代码改动"},
    {R"((\d+) modules touched)", "涉及 \\1 个模块"},
    {R"(kernel code)", "内核代码"},
    {R"(public API changes)", "公共 API 变化"},
    {R"(user-visible switch (.*))", "用户可见的开关 \\1"},
    {R"(performance numbers claimed)", "给出了性能数字"},
    {R"(fixes a defect in code)", "修复代码缺陷"},
    {R"(fixes a reported problem \((.*)\))", "修复已报告的问题（\\1）"},
    {R"(touches correctness-critical paths.*)", "触及正确性关键路径（并发、dtype 或设备）"},
    {R"(reverts an earlier change)", "回退了之前的改动"},
    {R"(reverted later by (.*))", "后来被 \\1 回退"},
    {R"(the title says something is added)", "标题说明新增了功能"},
    {R"(a new feature)", "新功能"},
    {R"(documented with the code)", "随代码附带文档"},
    {R"(tested with the code)", "随代码附带测试"},
    {R"(no new capability, model, hardware, default or format: 9–10 is for release highlights)",
     "没有新能力、模型、硬件、默认值或格式变化：9–10 分留给发布亮点"},
    {R"(needed a follow-up \((.*)\))", "后来需要跟进（\\1）"},
    {R"(guard with fallback)", "守卫 + 回退"},
    {R"(new guards)", "新增守卫"},
    {R"(concurrency)", "并发"},
    {R"(dtype/device branches)", "dtype/设备分支"},
    {R"(a new type)", "新类型"},
    {R"(kernel technique)", "内核技巧"},
    {R"(small change \((\d+) lines?\), large effect)", "小改动（\\1 行）、大影响"},
    {R"(tuned constants)", "调优常量"},
    {R"(tests show the contract)", "测试固化了契约"},
    {R"(clean-up \((.*)\))", "清理（\\1）"},
    {R"(no design decision to learn from)", "没有值得学习的设计决策"},
    {R"(no code on the main path \(example scripts only\))", "主路径上没有代码（仅示例脚本）"},
    {R"(no code on the main path.*)", "主路径上没有代码（仅文档、测试、配置或 CI）"},
    // Judgment reasons (analysis/judgment/importance.cc, insight.cc).
    {R"(a new guard \((\d+) places\))", "新增守卫（\\1 处）"},
    {R"(guard with fallback \((\d+) places\))", "守卫 + 回退（\\1 处）"},
    {R"(a new path beside the old code \((\d+) places\))", "新路径加在旧代码旁（\\1 处）"},
    {R"(concurrency \((\d+) places\))", "并发（\\1 处）"},
    {R"(dtype/device branches \((\d+) places\))", "dtype/设备分支（\\1 处）"},
    {R"(a switch left to the user \((\d+) places\))", "留给用户的开关（\\1 处）"},
    {R"(tuned constants \((\d+) places\))", "调优常量（\\1 处）"},
    {R"(a line replaced by another \((\d+) places\))", "一行代码被另一行取代（\\1 处）"},
    {R"(a comment argues the decision \((\d+) places\))", "注释阐明了决策的理由（\\1 处）"},
    {R"(comments explain the code \((\d+) places\))", "注释解释了代码（\\1 处）"},
    {R"(a new type \((\d+) places\))", "新类型（\\1 处）"},
    {R"(a signature changed \((\d+) places\))", "签名变化（\\1 处）"},
    {R"(a new guard)", "新增守卫"},
    {R"(a new path beside the old code)", "新路径加在旧代码旁"},
    {R"(a switch left to the user)", "留给用户的开关"},
    {R"(a line replaced by another)", "一行代码被另一行取代"},
    {R"(a comment argues the decision)", "注释阐明了决策的理由"},
    {R"(comments explain the code)", "注释解释了代码"},
    {R"(a signature changed)", "签名变化"},
    {R"(changes code on the main path)", "改动主路径上的代码"},
    {R"((\d+) modules import the touched code)", "\\1 个模块导入了改动的代码"},
    {R"(changes a default \((.*)\))", "改变了默认值（\\1）"},
    {R"(changes a request or response format)", "改变了请求或响应格式"},
    {R"(adds model support \((\d+) new model files\))", "新增模型支持（\\1 个新模型文件）"},
    {R"(new hardware support \((.*)\))", "新增硬件支持（\\1）"},
    {R"(adds a capability \((\d+) new definitions\))", "新增能力（\\1 个新定义）"},
    {R"((\d+) lines? to read in (\d+) regions?)", "需阅读 \\1 行，分布在 \\2 个区域"},
    {R"(mostly mechanical bulk.*)", "主要是机械性的大块代码（模型移植、整体引入或生成的代码）"},
    {R"(shallow clone boundary: the diff was not read)", "浅克隆的边界提交：没有读到 diff"},
    // More importance reasons (analysis/judgment/importance_more.cc, importance.cc).
    {R"((\d+) % of the changed lines are kernel)", "\\1 % 的改动行是内核代码"},
    {R"((\d+) % of the changed lines are model)", "\\1 % 的改动行是模型实现"},
    {R"((\d+) % of the changed lines are config)", "\\1 % 的改动行是配置"},
    {R"((\d+) % of the changed lines are test)", "\\1 % 的改动行是测试"},
    {R"((\d+) % of the changed lines are benchmark)", "\\1 % 的改动行是基准测试"},
    {R"((\d+) % of the changed lines are docs)", "\\1 % 的改动行是文档"},
    {R"((\d+) % of the changed lines are ci)", "\\1 % 的改动行是 CI"},
    {R"((\d+) % of the changed lines are build)", "\\1 % 的改动行是构建文件"},
    {R"((\d+) % of the changed lines are generated)", "\\1 % 的改动行是生成文件"},
    {R"((\d+) % of the changed lines are core)", "\\1 % 的改动行是核心代码"},
    {R"(adds (\d+) code files? and (\d+) cop(?:y|ies) of (?:it|them))",
     "新增 \\1 个代码文件，另有 \\2 个副本"},
    {R"(adds (\d+) code files?)", "新增 \\1 个代码文件"},
    {R"(adds (\d+) definitions?)", "新增 \\1 个定义"},
    {R"(one part of a series of changes)", "系列改动中的一个"},
    {R"(lands an earlier change again)", "重新合入之前的改动"},
    {R"(follows up an earlier change \((.*)\))", "跟进之前的改动（\\1）"},
    {R"((\d+) later changes? names? it)", "后来有 \\1 个改动提到它"},
    {R"(the title's words \((.*)\))", "标题用词（\\1）"},
    {R"(the title says “(.*)”)", "标题写着“\\1”"},
};

}  // namespace

std::string_view Phrases::skim_reason(std::string_view reason) const {
  struct Pair {
    std::string_view key, zh, en;
  };
  static constexpr Pair kPairs[] = {
      {"rename-only", "仅重命名", "rename only"},
      {"delete-only", "仅删除", "deletion only"},
      {"whitespace-only", "仅空白/格式", "whitespace only"},
      {"comment-only", "仅注释", "comments only"},
      {"import-only", "仅 import", "imports only"},
      {"mechanical", "机械改动", "mechanical edit"},
      {"generated", "生成文件", "generated file"},
      {"docs", "文档", "docs"},
      {"example", "示例", "example"},
      {"mixed-cleanup", "多种清理", "mixed clean-up"},
      {"moved", "代码搬移", "moved code"},
      {"config", "配置数据", "configuration data"},
  };
  for (const auto& p : kPairs)
    if (p.key == reason) return lang == "zh" ? p.zh : p.en;
  return reason;
}

std::string_view Phrases::role_name(std::string_view role) const {
  struct Pair {
    std::string_view key, zh, en;
  };
  static constexpr Pair kPairs[] = {
      {"core", "核心代码", "core code"}, {"kernel", "内核", "kernels"},
      {"model", "模型实现", "models"},   {"config", "配置", "configuration"},
      {"test", "测试", "tests"},         {"benchmark", "基准测试", "benchmarks"},
      {"docs", "文档", "docs"},          {"ci", "CI", "CI"},
      {"build", "构建", "build files"},  {"generated", "生成文件", "generated files"},
  };
  for (const auto& p : kPairs)
    if (p.key == role) return lang == "zh" ? p.zh : p.en;
  return role;
}

const Phrases& get(std::string_view lang) {
  static const Phrases zh = make_zh();
  static const Phrases en = make_en();
  return lang == "zh" ? zh : en;
}

std::string score_reason(std::string_view reason, std::string_view lang) {
  if (lang != "zh") return std::string(reason);
  static const auto* compiled = [] {
    auto* v = new std::vector<std::unique_ptr<RE2>>;
    for (const auto& r : kScoreRules) v->push_back(std::make_unique<RE2>(r.pattern));
    return v;
  }();
  for (size_t i = 0; i < compiled->size(); ++i) {
    std::string out(reason);
    if (RE2::FullMatch(out, *(*compiled)[i]) &&
        RE2::Replace(&out, *(*compiled)[i], kScoreRules[i].zh))
      return out;
  }
  return std::string(reason);
}

std::string join_list(const std::vector<std::string>& items, const Phrases& p) {
  if (items.empty()) return {};
  if (items.size() == 1) return items[0];
  std::string out;
  for (size_t i = 0; i + 1 < items.size(); ++i) {
    if (i) out += p.list_sep;
    out += items[i];
  }
  out += p.and_word;
  out += items.back();
  return out;
}

}  // namespace mergelens::phrases
