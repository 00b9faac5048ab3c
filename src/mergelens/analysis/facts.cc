#include "mergelens/analysis/facts.h"

namespace mergelens {

const char* to_string(Language l) {
  switch (l) {
    case Language::kUnknown:
      return "unknown";
    case Language::kPython:
      return "python";
    case Language::kCpp:
      return "cpp";
    case Language::kCuda:
      return "cuda";
    case Language::kRust:
      return "rust";
    case Language::kGo:
      return "go";
    case Language::kJavaScript:
      return "javascript";
    case Language::kTypeScript:
      return "typescript";
    case Language::kMarkdown:
      return "markdown";
    case Language::kJson:
      return "json";
    case Language::kYaml:
      return "yaml";
    case Language::kToml:
      return "toml";
    case Language::kShell:
      return "shell";
    case Language::kCMake:
      return "cmake";
    case Language::kText:
      return "text";
  }
  return "unknown";
}

const char* to_string(FileRole r) {
  switch (r) {
    case FileRole::kCore:
      return "core";
    case FileRole::kKernel:
      return "kernel";
    case FileRole::kModel:
      return "model";
    case FileRole::kConfig:
      return "config";
    case FileRole::kTest:
      return "test";
    case FileRole::kBenchmark:
      return "benchmark";
    case FileRole::kDocs:
      return "docs";
    case FileRole::kCi:
      return "ci";
    case FileRole::kBuild:
      return "build";
    case FileRole::kGenerated:
      return "generated";
  }
  return "core";
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kCloseRead:
      return "close_read";
    case Verdict::kSelectiveRead:
      return "selective_read";
    case Verdict::kSkim:
      return "skim";
    case Verdict::kSkip:
      return "skip";
  }
  return "skim";
}

}  // namespace mergelens
