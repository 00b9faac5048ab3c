// Written by bench/judgment/fit_scale.py: do not edit by hand, run the script
// (bench/README.md, "Importance fitted on many repositories", gives the
// command).
//
// Importance weights: L2-regularised logistic regression (L2 3.0, title
// words 6.0) of "a release's highlights name the PR" on 19269 PRs of 13
// repositories (1559 positives), one intercept per repository, each weighing
// the same: vllm-project/vllm-ascend, scikit-image/scikit-image, pydata/xarray,
// pydantic/pydantic, pyg-team/pytorch_geometric, fastapi/fastapi, numpy/numpy,
// networkx/networkx, dask/dask, dmlc/xgboost, Lightning-AI/pytorch-lightning,
// arviz-devs/arviz, psf/black. Leaving each repository out (fit on the others),
// ROC AUC on it, the level after the caps / changed lines:
//   (bench/README.md, "Importance fitted on many repositories")
//
// Scale: cuts at the shares of docs/judgment.md (1-10: 14,
// 14, 17.5, 17.5, 12.5, 12.5, 5, 5, 1.3, 0.7 %), each repository weighing the
// same; level 9 starts where at most 2 % are at or above (2.5 % in any
// repository). Levels before the caps (the caps only lower them):
//   vllm-project/vllm-ascend (4732 PRs) importance 1-10 (before caps): 641,
//   570, 932, 836, 571,
//     483, 252, 406, 0, 41; 9-10 0.9 %
//   vllm-project/vllm-ascend (4732 PRs) insight 1-10 (before caps): 2299, 1,
//   61, 752, 612, 517,
//     230, 215, 17, 28; 9-10 1.0 %
//   scikit-image/scikit-image (1818 PRs) importance 1-10 (before caps): 181,
//   272, 390, 351, 230,
//     206, 80, 107, 0, 1; 9-10 0.1 %
//   scikit-image/scikit-image (1818 PRs) insight 1-10 (before caps): 950, 0,
//   23, 281, 183, 200, 65,
//     96, 8, 12; 9-10 1.1 %
//   pydata/xarray (2225 PRs) importance 1-10 (before caps): 311, 252, 345, 408,
//   292, 312, 153, 148,
//     0, 4; 9-10 0.2 %
//   pydata/xarray (2225 PRs) insight 1-10 (before caps): 1117, 0, 26, 360, 257,
//   203, 110, 131, 12,
//     9; 9-10 0.9 %
//   pydantic/pydantic (2672 PRs) importance 1-10 (before caps): 399, 268, 390,
//   522, 401, 361, 120,
//     201, 0, 10; 9-10 0.4 %
//   pydantic/pydantic (2672 PRs) insight 1-10 (before caps): 1241, 1, 12, 413,
//   377, 240, 124, 202,
//     28, 34; 9-10 2.3 %
//   pyg-team/pytorch_geometric (2611 PRs) importance 1-10 (before caps): 160,
//   269, 418, 492, 341,
//     386, 217, 322, 1, 5; 9-10 0.2 %
//   pyg-team/pytorch_geometric (2611 PRs) insight 1-10 (before caps): 895, 0,
//   36, 631, 471, 357,
//     108, 105, 2, 6; 9-10 0.3 %
//   fastapi/fastapi (2344 PRs) importance 1-10 (before caps): 713, 1004, 294,
//   154, 72, 50, 18, 29,
//     0, 10; 9-10 0.4 %
//   fastapi/fastapi (2344 PRs) insight 1-10 (before caps): 2003, 0, 7, 162, 87,
//   47, 19, 17, 2, 0;
//     9-10 0.1 %
//   numpy/numpy (4293 PRs) importance 1-10 (before caps): 875, 570, 806, 843,
//   564, 434, 102, 98, 0,
//     1; 9-10 0.0 %
//   numpy/numpy (4293 PRs) insight 1-10 (before caps): 2147, 0, 72, 806, 455,
//   418, 171, 183, 22,
//     19; 9-10 1.0 %
//   networkx/networkx (1625 PRs) importance 1-10 (before caps): 143, 176, 325,
//   366, 226, 224, 76,
//     88, 0, 1; 9-10 0.1 %
//   networkx/networkx (1625 PRs) insight 1-10 (before caps): 779, 0, 12, 282,
//   185, 177, 85, 85, 5,
//     15; 9-10 1.2 %
//   dask/dask (1900 PRs) importance 1-10 (before caps): 212, 139, 342, 324,
//   301, 336, 108, 136, 0,
//     2; 9-10 0.1 %
//   dask/dask (1900 PRs) insight 1-10 (before caps): 928, 0, 16, 321, 235, 175,
//   82, 106, 17, 20;
//     9-10 1.9 %
//   dmlc/xgboost (2352 PRs) importance 1-10 (before caps): 249, 293, 396, 405,
//   336, 369, 151, 152,
//     0, 1; 9-10 0.0 %
//   dmlc/xgboost (2352 PRs) insight 1-10 (before caps): 1102, 0, 21, 406, 338,
//   272, 104, 94, 10, 5;
//     9-10 0.6 %
//   Lightning-AI/pytorch-lightning (4713 PRs) importance 1-10 (before caps):
//   833, 816, 663, 641,
//     568, 569, 281, 332, 0, 10; 9-10 0.2 %
//   Lightning-AI/pytorch-lightning (4713 PRs) insight 1-10 (before caps): 2492,
//   0, 22, 702, 528,
//     462, 197, 261, 18, 31; 9-10 1.0 %
//   arviz-devs/arviz (568 PRs) importance 1-10 (before caps): 47, 67, 117, 132,
//   80, 75, 24, 26, 0,
//     0; 9-10 0.0 %
//   arviz-devs/arviz (568 PRs) insight 1-10 (before caps): 235, 0, 8, 118, 84,
//   73, 24, 23, 2, 1;
//     9-10 0.5 %
//   psf/black (1374 PRs) importance 1-10 (before caps): 334, 200, 216, 197,
//   150, 170, 49, 57, 0, 1;
//     9-10 0.1 %
//   psf/black (1374 PRs) insight 1-10 (before caps): 849, 0, 6, 145, 124, 91,
//   45, 96, 10, 8; 9-10
//     1.3 %
//   flashinfer-ai/flashinfer (1951 PRs) importance 1-10 (before caps): 143,
//   170, 317, 330, 266,
//     287, 142, 248, 0, 48; 9-10 2.5 %
//   flashinfer-ai/flashinfer (1951 PRs) insight 1-10 (before caps): 626, 0, 6,
//   279, 286, 322, 167,
//     217, 14, 34; 9-10 2.5 %
//   vllm-project/llm-compressor (991 PRs) importance 1-10 (before caps): 124,
//   122, 222, 175, 106,
//     118, 46, 74, 0, 4; 9-10 0.4 %
//   vllm-project/llm-compressor (991 PRs) insight 1-10 (before caps): 555, 0,
//   9, 148, 92, 90, 41,
//     46, 6, 4; 9-10 1.0 %
#pragma once

#include <string_view>

namespace mergelens::score_fitted {

struct Weight {
  std::string_view feature;
  double weight;
};

inline constexpr double kImportanceIntercept = -4.3120;
// Sorted by feature name (importance.cc looks them up by binary search); a
// title word is "w:WORD".
inline constexpr Weight kImportanceWeights[] = {
    {"adds_defs", 0.2935},           // in 3469 PRs
    {"adds_files", 0.7315},          // in 911 PRs
    {"bugfix", -0.3566},             // in 3691 PRs
    {"capability", -0.0988},         // in 1041 PRs
    {"correctness_paths", -0.0804},  // in 1074 PRs
    {"default_change", -0.0062},     // in 175 PRs
    {"docs_with_code", 0.4068},      // in 1742 PRs
    {"feature_tag", 0.1268},         // in 2852 PRs
    {"fixes_reported", 0.3423},      // in 458 PRs
    {"follow_up_later", 0.3042},     // in 102 PRs
    {"follows_up", 0.5042},          // in 178 PRs
    {"format_change", 0.0768},       // in 39 PRs
    {"hardware_support", 0.5578},    // in 298 PRs
    {"kernel", -1.0439},             // in 317 PRs
    {"main_path", 0.1975},           // in 11247 PRs
    {"model_support", 0.6265},       // in 31 PRs
    {"modules_broad", -0.2701},      // in 1655 PRs
    {"named_later", 0.2965},         // in 665 PRs
    {"perf_claim", 0.6875},          // in 202 PRs
    {"public_api", 0.3941},          // in 3922 PRs
    {"reach_core", 0.4750},          // in 1399 PRs
    {"reach_some", 0.6313},          // in 2907 PRs
    {"reach_wide", 0.7075},          // in 3035 PRs
    {"reland", -0.1190},             // in 5 PRs
    {"reverted_later", -0.3953},     // in 93 PRs
    {"reverts", -0.4432},            // in 198 PRs
    {"series", -0.5560},             // in 207 PRs
    {"share_benchmark", 1.7454},     // in 296 PRs
    {"share_build", -0.1602},        // in 2377 PRs
    {"share_ci", -0.4283},           // in 3540 PRs
    {"share_config", 0.7061},        // in 475 PRs
    {"share_docs", -0.1984},         // in 4626 PRs
    {"share_generated", 1.1148},     // in 170 PRs
    {"share_kernel", 0.8344},        // in 329 PRs
    {"share_model", -0.1705},        // in 333 PRs
    {"share_test", 0.7740},          // in 7869 PRs
    {"size_log", 0.3787},            // in 11247 PRs
    {"size_many", -0.2422},          // in 940 PRs
    {"size_some", 0.3826},           // in 4218 PRs
    {"tests_with_code", 0.5829},     // in 6209 PRs
    {"title_adds", 0.5446},          // in 4190 PRs
    {"user_switch", -0.0503},        // in 621 PRs
    {"w:about", 0.0154},             // in 93 PRs
    {"w:action", -0.3501},           // in 350 PRs
    {"w:actions", -0.0862},          // in 410 PRs
    {"w:add", 0.3724},               // in 2732 PRs
    {"w:after", 0.2917},             // in 138 PRs
    {"w:all", -0.0816},              // in 149 PRs
    {"w:allow", 0.6205},             // in 213 PRs
    {"w:always", -0.3202},           // in 31 PRs
    {"w:and", 0.0952},               // in 1812 PRs
    {"w:api", -0.1510},              // in 280 PRs
    {"w:as", 0.2859},                // in 245 PRs
    {"w:avoid", 0.5800},             // in 208 PRs
    {"w:bug", -0.3230},              // in 780 PRs
    {"w:build", -0.0260},            // in 476 PRs
    {"w:bump", -0.8003},             // in 1077 PRs
    {"w:by", 0.1648},                // in 287 PRs
    {"w:cache", -0.0449},            // in 195 PRs
    {"w:change", 0.1216},            // in 149 PRs
    {"w:changes", 0.4615},           // in 89 PRs
    {"w:check", -0.3103},            // in 236 PRs
    {"w:ci", -0.1883},               // in 1446 PRs
    {"w:code", -0.6395},             // in 258 PRs
    {"w:commit", -0.4345},           // in 254 PRs
    {"w:config", 0.0219},            // in 180 PRs
    {"w:coverage", -0.3967},         // in 124 PRs
    {"w:data", 0.0884},              // in 218 PRs
    {"w:default", -0.1572},          // in 220 PRs
    {"w:dependency", 0.1159},        // in 140 PRs
    {"w:deprecated", 0.0186},        // in 183 PRs
    {"w:doc", -0.6075},              // in 1415 PRs
    {"w:docs", -1.4715},             // in 892 PRs
    {"w:docstring", -0.0746},        // in 221 PRs
    {"w:documentation", -0.3851},    // in 353 PRs
    {"w:enable", 0.0619},            // in 272 PRs
    {"w:error", 0.3325},             // in 396 PRs
    {"w:errors", -0.3884},           // in 136 PRs
    {"w:example", 0.6020},           // in 299 PRs
    {"w:examples", -0.1618},         // in 164 PRs
    {"w:file", -0.3543},             // in 115 PRs
    {"w:files", -0.2710},            // in 139 PRs
    {"w:fix", -0.4296},              // in 3596 PRs
    {"w:for", -0.0084},              // in 3281 PRs
    {"w:from", -0.0772},             // in 1712 PRs
    {"w:function", 0.0284},          // in 193 PRs
    {"w:functions", 0.2482},         // in 150 PRs
    {"w:get", -0.0464},              // in 108 PRs
    {"w:github", -0.1595},           // in 238 PRs
    {"w:guide", -0.5048},            // in 140 PRs
    {"w:handling", -0.2034},         // in 112 PRs
    {"w:if", 0.1426},                // in 137 PRs
    {"w:import", -0.3750},           // in 135 PRs
    {"w:improve", 0.4268},           // in 271 PRs
    {"w:in", -0.0558},               // in 3716 PRs
    {"w:include", 0.3290},           // in 74 PRs
    {"w:index", -0.1289},            // in 193 PRs
    {"w:input", -0.7283},            // in 102 PRs
    {"w:install", -0.1277},          // in 120 PRs
    {"w:instead", -0.0122},          // in 100 PRs
    {"w:into", 0.3969},              // in 78 PRs
    {"w:is", -0.0097},               // in 315 PRs
    {"w:issue", -0.2055},            // in 202 PRs
    {"w:link", -0.1558},             // in 187 PRs
    {"w:main", 0.1629},              // in 205 PRs
    {"w:make", -0.3429},             // in 263 PRs
    {"w:method", 0.5199},            // in 132 PRs
    {"w:missing", -0.3127},          // in 211 PRs
    {"w:module", -0.1930},           // in 121 PRs
    {"w:more", 0.3492},              // in 160 PRs
    {"w:move", -0.6701},             // in 201 PRs
    {"w:name", -0.0763},             // in 115 PRs
    {"w:new", 0.0315},               // in 261 PRs
    {"w:not", -0.3486},              // in 287 PRs
    {"w:note", 0.2748},              // in 121 PRs
    {"w:of", -0.1916},               // in 1195 PRs
    {"w:on", 0.0494},                // in 802 PRs
    {"w:one", 0.5381},               // in 44 PRs
    {"w:only", -0.1780},             // in 163 PRs
    {"w:optional", -0.3097},         // in 56 PRs
    {"w:order", -0.0553},            // in 77 PRs
    {"w:parameter", 0.2010},         // in 144 PRs
    {"w:path", 0.0372},              // in 155 PRs
    {"w:pre", -0.4636},              // in 241 PRs
    {"w:py", -0.5314},               // in 370 PRs
    {"w:python", -0.0980},           // in 373 PRs
    {"w:re", 0.0609},                // in 86 PRs
    {"w:refactor", -0.2531},         // in 336 PRs
    {"w:release", -0.2459},          // in 388 PRs
    {"w:remove", -0.4483},           // in 964 PRs
    {"w:replace", -0.1861},          // in 176 PRs
    {"w:return", -0.0489},           // in 120 PRs
    {"w:revert", -0.3754},           // in 132 PRs
    {"w:ruff", -0.7673},             // in 192 PRs
    {"w:run", 0.1462},               // in 192 PRs
    {"w:set", 0.1973},               // in 167 PRs
    {"w:setup", -0.2397},            // in 207 PRs
    {"w:simplify", -0.3379},         // in 97 PRs
    {"w:skip", 0.1599},              // in 180 PRs
    {"w:some", -0.2384},             // in 148 PRs
    {"w:string", 0.6667},            // in 141 PRs
    {"w:support", 0.4809},           // in 868 PRs
    {"w:test", -0.6067},             // in 1019 PRs
    {"w:tests", -0.9955},            // in 589 PRs
    {"w:that", -0.2452},             // in 145 PRs
    {"w:the", 0.2016},               // in 1287 PRs
    {"w:to", 0.0044},                // in 4079 PRs
    {"w:type", -0.5414},             // in 473 PRs
    {"w:types", 0.1939},             // in 122 PRs
    {"w:typo", -0.3116},             // in 218 PRs
    {"w:typos", -0.3643},            // in 129 PRs
    {"w:up", -0.1181},               // in 176 PRs
    {"w:update", -0.7136},           // in 1568 PRs
    {"w:use", 0.0209},               // in 719 PRs
    {"w:using", -0.1133},            // in 177 PRs
    {"w:values", 0.0959},            // in 59 PRs
    {"w:version", -0.4277},          // in 365 PRs
    {"w:warning", -0.0556},          // in 198 PRs
    {"w:warnings", -0.4365},         // in 116 PRs
    {"w:when", -0.2092},             // in 522 PRs
    {"w:with", 0.4680},              // in 1115 PRs
    {"w:workflow", 0.1168},          // in 112 PRs
};
// Level k + 2 starts at cut k (raw ≥ cut): the raw importance (log-odds) ...
inline constexpr double kImportanceCuts[9] = {-5.3849, -4.6950, -3.8175, -2.8799, -2.1229,
                                              -1.2079, -0.6585, 1.0829,  1.0882};
// ... and the raw insight (density, insight.cc).
inline constexpr double kInsightCuts[9] = {0.0642, 0.0741, 0.3632, 1.0595, 1.5391,
                                           2.0486, 2.4674, 3.8004, 4.0972};

}  // namespace mergelens::score_fitted
