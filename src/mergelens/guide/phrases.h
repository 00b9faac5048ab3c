// Phrases of the offline writer in each output language. Format strings use
// fmt's "{}" placeholders; arguments are already formatted (code in backticks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mergelens::phrases {

struct Phrases {
  std::string_view lang;
  std::string_view list_sep;      // between list items: "、" / ", "
  std::string_view and_word;      // before the last item: "和" / " and "
  std::string_view sentence_end;  // "。" / "."
  std::string_view semi;          // "；" / "; "
  std::string_view open_paren, close_paren;

  // headline / summary
  std::string_view headline_number;   // {title} {number}
  std::string_view summary_files;     // {n files} {+a} {-d}
  std::string_view summary_file_one;  // {+a} {-d}
  std::string_view summary_adds;      // {things}
  std::string_view summary_removes;
  std::string_view summary_changes;
  std::string_view summary_switches;
  // {name} {old} {new}: a default the parent and the merge declare differently
  std::string_view summary_default_changed;
  std::string_view summary_tests;
  std::string_view summary_fixes;
  std::string_view summary_docs_only;
  std::string_view summary_examples_only, summary_docs_examples;  // examples told from docs
  std::string_view summary_cleanup;                               // {kind}
  std::string_view summary_shallow;  // {parent sha}: a shallow clone's boundary, no diff
  std::string_view verdict_shallow;  // how to read it: deepen the clone

  // verdicts
  std::string_view close_one_place;   // {n} {symbol-in-file} {a} {b}
  std::string_view close_files;       // {k} {files}
  std::string_view close_lines;       // {n} {k}
  std::string_view close_lines_one;   // {n}: in one file
  std::string_view rest_cleanup;      // {m} {files}
  std::string_view rest_cleanup_one;  // {file}
  std::string_view selective;         // {files} {n}
  std::string_view skim;              // {why}
  std::string_view skip;              // {why}
  std::string_view open_prefix;       // "before merging" framing
  std::string_view symbol_in_file;    // {symbol} {file}

  // lessons and patterns: each states a fact checked against the parent
  std::string_view lesson_fallback;   // {cond} {where}: a new path beside the old code
  std::string_view lesson_switch;     // {name}: a switch the parent did not have
  std::string_view pattern_fallback;  // {where} {cond}
  std::string_view pattern_switch;    // {where} {name}

  // focus questions
  std::string_view q_fallback, q_guard, q_dtype, q_device, q_concurrency, q_env, q_flag,
      q_signature, q_raise, q_constant, q_early, q_removed, q_generic;
  // why a focus region
  std::string_view why_new, why_signature, why_lines, why_line_one, why_test, why_reviewed;
  std::string_view why_in_place;       // {test} {removed tests}: an added test replacing them
  std::string_view why_in_place_many;  // {test} {n} {the first three}

  // questions / risks
  std::string_view risk_signature, risk_dtype, risk_todo, risk_fixed_later, risk_reverted_later,
      risk_public_removed, risk_constant;

  // numbers, body vs code, gaps
  std::string_view num_spread, num_no_benchmark, num_single;
  std::string_view body_named_not_touched, body_touched_not_mentioned;
  std::string_view gap_test;      // {file} {first}: several new branches or guards (no count:
                                  // the detectors see guards, not every `if`)
  std::string_view gap_test_one;  // {file} {first}
  // The same, when an existing test outside the diff calls a definition the
  // file's changed code is in: ... {test} {test file} {definition}.
  std::string_view gap_test_existing;      // {file} {first} {test} {test file} {definition}
  std::string_view gap_test_one_existing;  // {file} {first} {test} {test file} {definition}
  std::string_view gap_benchmark;

  // what the code says about itself (offline_rationale.cc)
  std::string_view note_comment, note_docstring;  // {lines} {quote}
  std::string_view lesson_rationale;              // {file} {lines} {kind word} {quote}
  std::string_view word_comment, word_docstring;
  std::string_view lesson_replaced;          // {n} {pair}
  std::string_view lesson_replaced_several;  // {pair}: when the count is not citable
  std::string_view why_replaced;             // {pair}
  std::string_view why_replaced_many;        // {n}: the same replacement elsewhere too
  std::string_view q_value_moved;            // {name} {old} {new}
  std::string_view q_condition_changed;      // {old} {new}
  std::string_view q_call_replaced;          // {pair} {call}
  std::string_view q_renamed;                // {pair}: the definition line itself
  std::string_view q_fallback_to;            // {except} {action}: a handled exception
  std::string_view test_contract;            // {test} {words}
  std::string_view summary_contract;         // {test} {words}
  std::string_view digest_place;             // {symbol} {file} {lines}
  std::string_view digest_places;            // {places}

  // advice
  std::string_view adv_user_default;  // {name} {old} {new}
  std::string_view adv_user_switch, adv_user_api, adv_reviewer_tests, adv_reviewer_body,
      adv_reviewer_numbers, adv_reviewer_open;
  // {reviewer} {where}: a review point asking for a change or a follow-up.
  std::string_view adv_reviewer_point, review_point_whole;
  std::string_view audience;  // {topics}

  // references
  std::string_view ref_fixes, ref_follow_up, ref_reverts, ref_mentions, ref_fixed_by,
      ref_followed_by, ref_reverted_by, ref_mentioned_by;

  // skim reasons and roles
  std::string_view skim_reason(std::string_view reason) const;
  std::string_view role_name(std::string_view role) const;
};

const Phrases& get(std::string_view lang);

// Translates a score reason written by analysis/judgment/scores.cc ("12 lines of code
// changed", "guard with fallback", ...) into `lang`; unknown reasons pass
// through unchanged.
std::string score_reason(std::string_view reason, std::string_view lang);

// Joins items with the language's separators: "a、b 和 c" / "a, b and c".
std::string join_list(const std::vector<std::string>& items, const Phrases& p);

}  // namespace mergelens::phrases
