// Environment variables and CLI/config flags (see code_text.h).
//
// Environment variables: explicit accessors (os.environ, getenv, std::env::var,
// os.Getenv, process.env) with any name; helpers whose name contains "env"
// (get_bool_env_var, monkeypatch.setenv, check_env) and env-ish subscripts
// with a project-style ALL_CAPS_NAME; `envs.NAME`; declarations such as
// `NAME = EnvBool(...)` or `"NAME": lambda ...`.
#include <algorithm>

#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/code_text.h"

namespace mergelens::signal_internal {
namespace {

using outline_internal::is_ident_char;
using outline_internal::trim;

// Environment variables.
ML_PATTERN(
    env_environ,
    R"re((?i:environ)\s*(?:\.\s*(?:get|pop|setdefault)\s*\(|\[)\s*[rbuf]?["']([A-Za-z_]\w*)["'])re")
ML_PATTERN(
    env_getenv,
    R"re((?i:getenv|lookupenv|setenv|unsetenv|putenv)\s*\(\s*[rbuf]?["']([A-Za-z_]\w*)["'])re")
ML_PATTERN(
    env_rust,
    R"re(\b(?:env::(?:var|var_os|set_var|remove_var)|(?:option_)?env!)\s*\(\s*"([A-Za-z_]\w*)")re")
ML_PATTERN(
    env_js,
    R"re(\b(?:process|import\.meta)\.env(?:\.([A-Za-z_]\w*)|\[\s*["'`]([A-Za-z_]\w*)["'`]))re")
ML_PATTERN(env_module, R"re(\benvs\.([A-Z][A-Z0-9]+_[A-Z0-9_]+))re")
ML_PATTERN(env_helper,
           R"re([A-Za-z_][\w.:]*(?i:env)\w*\s*\(\s*[rbuf]?["']?([A-Z][A-Z0-9]+_[A-Z0-9_]+)\b)re")
ML_PATTERN(env_subscript, R"re((?i:env)\w*\s*\[\s*["']([A-Z][A-Z0-9]+_[A-Z0-9_]+)["'])re")
ML_PATTERN(env_in,
           R"re(["']([A-Z][A-Z0-9]+_[A-Z0-9_]+)["']\s+(?:not\s+)?in\s+[\w.]*(?i:environ))re")
ML_PATTERN(
    env_definition,
    R"re(^\s*["']?([A-Z][A-Z0-9]+_[A-Z0-9_]+)["']?\s*(?::\s*[\w\[\], .]+)?[:=]\s*(?:Env\w*\(|lambda\b))re")
// Flags.
ML_PATTERN(flag_literal, R"re(["'](--?[A-Za-z0-9][\w.-]*)["'])re")
ML_PATTERN(flag_option, R"re(\.(?:option|Option)\(\s*["'](--?[\w-]+)["'])re")
ML_PATTERN(
    flag_gflags,
    R"re(\b(?:C10_)?DEFINE_(?:bool|int32|int64|uint32|uint64|double|string|float|int)\s*\(\s*(\w+))re")
ML_PATTERN(flag_absl, R"re(\bABSL_FLAG\s*\(\s*[\w:<>]+\s*,\s*(\w+))re")
ML_PATTERN(flag_clap, R"re(#\[(?:arg|clap|structopt)\((.*)\)\])re")
ML_PATTERN(flag_clap_long, R"re(\blong\s*=\s*"([\w-]+)")re")
ML_PATTERN(rust_field, R"re(^\s*(?:pub(?:\([^)]*\))?\s+)?([a-z_]\w*)\s*:)re")
ML_PATTERN(
    flag_go,
    R"re((?:\bflag|\bpflag|Flags\(\)|PersistentFlags\(\))\.\w+\(\s*(?:&[\w.\[\]]+\s*,\s*)?"([\w.-]+)")re")
ML_PATTERN(flag_field_meta,
           R"re(^\s+([A-Za-z_]\w*)\s*:[^=]*=\s*(?:dataclasses\.)?field\(.*\b(?:metadata|help)\b)re")
ML_PATTERN(config_field, R"re(^([A-Za-z_]\w*)\s*:\s*([^=()]+?)\s*(?:=.*)?$)re")
ML_PATTERN(config_class, R"re((?:Args|Arguments)$)re")

bool has_long(std::string_view args) {
  for (size_t p = args.find("long"); p != std::string_view::npos; p = args.find("long", p + 1))
    if ((p == 0 || !is_ident_char(args[p - 1])) &&
        (p + 4 >= args.size() || !is_ident_char(args[p + 4])))
      return true;
  return false;
}

std::string kebab(std::string_view name) {
  std::string out = "--";
  for (char c : name) out += c == '_' ? '-' : c;
  return out;
}

void argparse(std::string_view call, std::vector<std::string>& out) {
  re2::StringPiece input(call.data(), call.size());
  Cap flag;
  std::string_view best;
  while (RE2::FindAndConsume(&input, flag_literal(), &flag)) {
    if (best.empty() || (flag.starts_with("--") && !best.starts_with("--"))) best = flag;
  }
  if (!best.empty() && std::find(out.begin(), out.end(), best) == out.end())
    out.push_back(std::string(best));
}

}  // namespace

void env_var_names(std::string_view code, std::vector<std::string>& out) {
  auto emit = [&](std::string name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  };
  auto all = [&](const RE2& re, int groups) {
    re2::StringPiece input(code.data(), code.size());
    Cap g1, g2;
    while (groups == 1 ? RE2::FindAndConsume(&input, re, &g1)
                       : RE2::FindAndConsume(&input, re, &g1, &g2)) {
      const std::string_view name = !g1.empty() ? g1 : g2;
      if (!name.empty()) emit(std::string(name));
      if (input.empty()) break;
    }
  };
  all(env_environ(), 1);
  all(env_getenv(), 1);
  all(env_rust(), 1);
  all(env_js(), 2);
  all(env_module(), 1);
  all(env_helper(), 1);
  all(env_subscript(), 1);
  all(env_in(), 1);
  Cap name;
  if (RE2::PartialMatch(code, env_definition(), &name)) emit(std::string(name));
}

void flag_names(Language lang, std::span<const SideLine> side, int i, std::string_view code,
                std::vector<std::string>& out) {
  auto emit = [&](std::string flag) {
    if (std::find(out.begin(), out.end(), flag) == out.end()) out.push_back(std::move(flag));
  };
  Cap name;
  if (code.find("add_argument(") != std::string_view::npos &&
      code.find("add_argument_group") == std::string_view::npos) {
    argparse(code.substr(code.find("add_argument(")), out);
  } else if (lang == Language::kPython && (code.starts_with("\"-") || code.starts_with("'-"))) {
    // "--flag", on the line after a bare `add_argument(`.
    for (int p = i - 1; p >= 0 && p >= i - 2; --p) {
      const std::string_view t = trim(side[p].text);
      if (t.empty() || t.starts_with("#")) continue;
      if (t.ends_with("add_argument(")) argparse(code, out);
      break;
    }
  }
  if (RE2::PartialMatch(code, flag_option(), &name)) emit(std::string(name));
  if (RE2::PartialMatch(code, flag_gflags(), &name) || RE2::PartialMatch(code, flag_absl(), &name))
    emit("--" + std::string(name));
  if (lang == Language::kRust) {
    Cap args;
    if (RE2::PartialMatch(code, flag_clap(), &args) && has_long(args)) {
      if (RE2::PartialMatch(args, flag_clap_long(), &name)) {
        emit("--" + std::string(name));
      } else {
        for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + 4; ++j) {
          const std::string_view t = trim(side[j].text);
          if (t.starts_with("#[") || t.starts_with("///") || t.empty()) continue;
          if (RE2::PartialMatch(t, rust_field(), &name)) emit(kebab(name));
          break;
        }
      }
    }
  }
  if (lang == Language::kGo && RE2::PartialMatch(code, flag_go(), &name))
    emit("-" + std::string(name));
  if (lang == Language::kPython) {
    const std::string_view cls = side[i].class_body;
    const bool args_class = cls.ends_with("Args") || cls.ends_with("Arguments");
    Cap type;
    if (RE2::PartialMatch(side[i].text, flag_field_meta(), &name)) {
      emit(args_class ? kebab(name) : std::string(name));
    } else if (!cls.empty() && indentation(side[i].text) > 0 &&
               RE2::PartialMatch(cls, config_class()) &&
               RE2::FullMatch(code_part(lang, side[i].text), config_field(), &name, &type) &&
               type.find("ClassVar") == std::string_view::npos) {
      emit(args_class ? kebab(name) : std::string(name));
    }
  }
}

bool env_flag_patterns_ok() {
  const RE2* all[] = {&env_environ(),    &env_getenv(),      &env_rust(),       &env_js(),
                      &env_module(),     &env_helper(),      &env_subscript(),  &env_in(),
                      &env_definition(), &flag_literal(),    &flag_option(),    &flag_gflags(),
                      &flag_absl(),      &flag_clap(),       &flag_clap_long(), &rust_field(),
                      &flag_go(),        &flag_field_meta(), &config_field(),   &config_class()};
  for (const RE2* re : all)
    if (!re->ok()) return false;
  return true;
}

}  // namespace mergelens::signal_internal
