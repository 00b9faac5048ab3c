// Written by bench/judgment/fit_scale.py: do not edit by hand, run the script
// (bench/README.md, "Calibrated scale and fitted weights", gives the command).
//
// Importance weights: L2-regularised logistic regression (L2 2.0) of "a release's highlights name
// the PR" on 4607 PRs of vllm-project/vllm-ascend (169 positives).
// Validation, fit on one part and ROC AUC on the other, beside changed lines and the
// previous (hand-set) importance on the same PRs:
//   vllm-project/vllm-ascend before 2026-02-06 -> from 2026-02-06: fitted 0.890, changed lines
//     0.722, previous 0.818
//   vllm-project/vllm-ascend from 2026-02-06 -> before 2026-02-06: fitted 0.772, changed lines
//     0.651, previous 0.702
//
// Scale: cuts at the shares of docs/judgment.md (1-10: 14, 14, 17.5, 17.5, 12.5, 12.5, 5, 5, 1.3,
// 0.7 %), each repository weighing the same;
// level 9 starts where at most 2 % are at or above (2.5 % in any repository).
// Levels before the caps (the caps only lower them):
//   vllm-project/vllm-ascend (4732 PRs) importance 1-10 (before caps): 229, 1170, 753, 967, 568,
//     546, 157, 337, 0, 5; 9-10 0.1 %
//   vllm-project/vllm-ascend (4732 PRs) insight 1-10 (before caps): 2299, 0, 62, 752, 612, 517,
//     229, 215, 17, 29; 9-10 1.0 %
//   baidu/vLLM-Kunlun (124 PRs) importance 1-10 (before caps): 5, 27, 21, 18, 15, 11, 11, 13, 1, 2;
//     9-10 2.4 %
//   baidu/vLLM-Kunlun (124 PRs) insight 1-10 (before caps): 49, 1, 3, 31, 16, 17, 3, 4, 0, 0; 9-10
//     0.0 %
//   flashinfer-ai/flashinfer (1951 PRs) importance 1-10 (before caps): 90, 353, 485, 253, 206, 374,
//     81, 108, 0, 1; 9-10 0.1 %
//   flashinfer-ai/flashinfer (1951 PRs) insight 1-10 (before caps): 626, 0, 6, 278, 288, 320, 168,
//     217, 14, 34; 9-10 2.5 %
//   vllm-project/llm-compressor (991 PRs) importance 1-10 (before caps): 65, 271, 122, 218, 155,
//     101, 34, 25, 0, 0; 9-10 0.0 %
//   vllm-project/llm-compressor (991 PRs) insight 1-10 (before caps): 555, 0, 9, 148, 93, 89, 41,
//     46, 6, 4; 9-10 1.0 %
#pragma once

#include <string_view>

namespace mergelens::score_fitted {

struct Weight {
  std::string_view feature;
  double weight;
};

inline constexpr double kImportanceIntercept = -5.5935;
inline constexpr Weight kImportanceWeights[] = {
    {"bugfix", -0.3713},             // in 1205 PRs
    {"capability", -0.0422},         // in 495 PRs
    {"correctness_paths", -0.0264},  // in 538 PRs
    {"default_change", 0.5149},      // in 71 PRs
    {"docs_with_code", 0.0451},      // in 400 PRs
    {"feature_tag", 1.0855},         // in 1343 PRs
    {"fixes_reported", -0.2913},     // in 116 PRs
    {"follow_up_later", -0.7075},    // in 75 PRs
    {"format_change", -0.2392},      // in 3 PRs
    {"hardware_support", 0.6644},    // in 346 PRs
    {"kernel", -0.8062},             // in 309 PRs
    {"main_path", 1.2945},           // in 2678 PRs
    {"model_support", 0.5776},       // in 24 PRs
    {"modules_broad", 0.2243},       // in 734 PRs
    {"perf_claim", -0.0617},         // in 190 PRs
    {"public_api", -0.1564},         // in 1138 PRs
    {"reach_core", -0.3864},         // in 20 PRs
    {"reach_some", 0.3562},          // in 1074 PRs
    {"reach_wide", 0.0956},          // in 403 PRs
    {"reverted_later", -0.7675},     // in 56 PRs
    {"reverts", -0.4942},            // in 56 PRs
    {"size_log", 0.3941},            // in 2678 PRs
    {"size_many", -0.1800},          // in 466 PRs
    {"size_some", -0.1568},          // in 1140 PRs
    {"tests_with_code", -0.0669},    // in 1333 PRs
    {"title_adds", 0.5892},          // in 1421 PRs
    {"user_switch", -0.0832},        // in 364 PRs
};
// Level k + 2 starts at cut k (raw ≥ cut): the raw importance (log-odds) ...
inline constexpr double kImportanceCuts[9] = {-5.5935, -5.0223, -4.1292, -3.8394, -3.2546,
                                              -2.1819, -1.8900, -0.3157, -0.3049};
// ... and the raw insight (density, insight.cc).
inline constexpr double kInsightCuts[9] = {0.0642, 0.0741, 0.3632, 1.0595, 1.5391,
                                           2.0486, 2.4674, 3.8004, 4.0972};

}  // namespace mergelens::score_fitted
