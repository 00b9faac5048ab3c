// universal-ctags in interactive mode (see ctags.h). The protocol: one JSON
// line {"command":"generate-tags","filename":F,"size":N} followed by N bytes
// of content; ctags answers with one JSON line per tag and a closing
// {"_type":"completed"}. It reads the whole content before it writes, so
// writing everything and then reading cannot deadlock.
#include "mergelens/source/ctags.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

extern char** environ;

namespace mergelens {
namespace {

#ifdef MERGELENS_CTAGS
constexpr const char* kProgram = MERGELENS_CTAGS;
#else
constexpr const char* kProgram = "";
#endif

// Writes all of `data`; false when the pipe broke (SIGPIPE blocked for the
// call, so a dead ctags is an error here, not a signal for the process).
bool write_all(int fd, std::string_view data) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  bool ok = true;
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  if (!ok) {  // consume the pending SIGPIPE before unblocking
    timespec zero{};
    siginfo_t info;
    sigtimedwait(&block, &info, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

// The fields of one tag line that the reader keeps.
struct TagLine {
  std::string type, name, scope, kind, scope_kind, signature, inherits;
  bool has_line = false, has_end = false;
  int line = 0, end = 0;
};

// Reads a flat JSON object of ASCII strings (simple escapes only) and small
// non-negative integers, as ctags writes tags, without building a document.
// False for anything else (a \u escape, a byte outside printable ASCII, a
// nested value, a repeated field, a field of the wrong type): the caller then
// parses the line with nlohmann, so both paths agree on every line.
bool read_tag_line(std::string_view s, TagLine& out) {
  size_t i = 0;
  auto space = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
  };
  auto string = [&](std::string& v) {
    if (i >= s.size() || s[i] != '"') return false;
    v.clear();
    for (++i; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"') {
        ++i;
        return true;
      }
      if (c < 0x20 || c >= 0x80) return false;
      if (c != '\\') {
        v += static_cast<char>(c);
        continue;
      }
      if (++i >= s.size()) return false;
      static constexpr std::string_view kEscaped = "\"\\/bfnrt", kMeant = "\"\\/\b\f\n\r\t";
      const size_t e = kEscaped.find(s[i]);
      if (e == std::string_view::npos) return false;  // \u and anything unknown
      v += kMeant[e];
    }
    return false;
  };
  std::string key, value;
  unsigned seen = 0;  // bits of the kept fields already read
  space();
  if (i >= s.size() || s[i] != '{') return false;
  ++i;
  space();
  if (i < s.size() && s[i] == '}') {
    ++i;
  } else {
    for (;;) {
      space();
      if (!string(key)) return false;
      space();
      if (i >= s.size() || s[i] != ':') return false;
      ++i;
      space();
      if (i >= s.size()) return false;
      static constexpr std::string_view kStrings[] = {"_type",     "name",      "scope",   "kind",
                                                      "scopeKind", "signature", "inherits"};
      int field = -1;  // 0-6 strings, 7 line, 8 end
      for (int k = 0; k < 7; ++k)
        if (key == kStrings[k]) field = k;
      if (key == "line") field = 7;
      if (key == "end") field = 8;
      if (field >= 0) {
        if (seen & (1u << field)) return false;
        seen |= 1u << field;
      }
      if (s[i] == '"') {
        if (!string(value)) return false;
        if (field >= 7) return false;
        std::string* dest[] = {&out.type,       &out.name,      &out.scope,   &out.kind,
                               &out.scope_kind, &out.signature, &out.inherits};
        if (field >= 0) *dest[field] = std::move(value);
      } else if (s[i] >= '0' && s[i] <= '9') {
        if (field >= 0 && field < 7) return false;
        const size_t b = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i - b > 9 || (s[b] == '0' && i - b > 1)) return false;
        if (i < s.size() && (s[i] == '.' || s[i] == 'e' || s[i] == 'E')) return false;
        int n = 0;
        for (size_t k = b; k < i; ++k) n = n * 10 + (s[k] - '0');
        if (field == 7) out.line = n, out.has_line = true;
        if (field == 8) out.end = n, out.has_end = true;
      } else {
        std::string_view rest = s.substr(i);
        size_t len = rest.starts_with("true")    ? 4
                     : rest.starts_with("null")  ? 4
                     : rest.starts_with("false") ? 5
                                                 : 0;
        // ctags writes `"inherits": false` for a class without bases.
        if (!len || (field >= 0 && field != 6)) return false;
        i += len;
      }
      space();
      if (i >= s.size()) return false;
      if (s[i] == ',') {
        ++i;
        continue;
      }
      if (s[i] != '}') return false;
      ++i;
      break;
    }
  }
  space();
  return i == s.size();
}

// The same fields through nlohmann's parser; false when the line is not a
// JSON object.
bool read_tag_line_slow(std::string_view line, TagLine& out) {
  auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) return false;
  out.type = j.value("_type", "");
  out.name = j.value("name", "");
  out.scope = j.value("scope", "");
  out.kind = j.value("kind", "");
  out.scope_kind = j.value("scopeKind", "");
  out.line = j.value("line", 0);
  out.has_line = true;
  out.end = j.value("end", out.line);
  out.has_end = true;
  out.signature = j.value("signature", "");
  if (auto it = j.find("inherits"); it != j.end() && it->is_string())
    out.inherits = it->get<std::string>();
  return true;
}

std::string kind_of(std::string_view k, std::string_view scope_kind, bool python) {
  if (python && k == "member") return "method";
  if (k == "function" && (scope_kind == "class" || scope_kind == "struct")) return "method";
  return std::string(k);
}

}  // namespace

std::string CtagsReader::program() {
  return kProgram;
}

bool CtagsReader::reads(std::string_view p) {
  for (std::string_view ext :
       {".py", ".pyi", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh"})
    if (p.ends_with(ext)) return true;
  return false;
}

Result<std::unique_ptr<CtagsReader>> CtagsReader::start() {
  if (std::string_view(kProgram).empty())
    return fail(ErrorKind::kUnsupported, "mergelens was built without universal-ctags");
  std::unique_ptr<CtagsReader> r(new CtagsReader());
  if (auto s = r->spawn(); !s) return std::unexpected(s.error());
  return r;
}

CtagsReader::~CtagsReader() {
  stop();
}

Result<void> CtagsReader::spawn() {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0) return fail(ErrorKind::kIo, "ctags: pipe: {}", strerror(errno));
  if (pipe2(from, O_CLOEXEC) != 0) {
    close(to[0]);
    close(to[1]);
    return fail(ErrorKind::kIo, "ctags: pipe: {}", strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const char* argv[] = {kProgram,
                        "--_interactive=sandbox",
                        "--output-format=json",
                        "--fields=+neSi",
                        "--fields=-PtF",
                        "--extras=-q",
                        "--kinds-Python=-xIil",
                        "--kinds-C++=-lpxhz",
                        "--kinds-C=-lpxhz",
                        "--kinds-CUDA=-lpxhz",
                        "--languages=Python,C,C++,CUDA",
                        "--langmap=CUDA:.cu.cuh",
                        nullptr};
  pid_t pid = -1;
  int rc = posix_spawn(&pid, kProgram, &fa, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(to[0]);
  close(from[1]);
  if (rc != 0) {
    close(to[1]);
    close(from[0]);
    return fail(ErrorKind::kUnsupported, "cannot start {}: {}", kProgram, strerror(rc));
  }
  in_ = to[1];
  out_ = from[0];
  pid_ = pid;
  buffer_.clear();
  return {};
}

void CtagsReader::stop() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (pid_ > 0) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  in_ = out_ = pid_ = -1;
}

Result<std::vector<CodeTag>> CtagsReader::tags(std::string_view path, std::string_view content) {
  const bool python = path.ends_with(".py") || path.ends_with(".pyi");
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (pid_ < 0)
      if (auto s = spawn(); !s) return std::unexpected(s.error());
    nlohmann::json head = {
        {"command", "generate-tags"}, {"filename", path}, {"size", content.size()}};
    std::vector<CodeTag> out;
    bool done = false;
    // A path that is not UTF-8 (git allows any bytes) is sent with U+FFFD
    // for its bad bytes: ctags reads the language from the extension.
    const std::string line =
        head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (write_all(in_, line) && write_all(in_, content)) {
      char chunk[65536];
      size_t consumed = 0;  // bytes of buffer_ already read as lines
      while (!done) {
        size_t nl;
        while (!done && (nl = buffer_.find('\n', consumed)) != std::string::npos) {
          std::string_view line(buffer_.data() + consumed, nl - consumed);
          TagLine tl;
          if (read_tag_line(line, tl) || read_tag_line_slow(line, (tl = TagLine{}))) {
            if (tl.type == "completed") done = true;
            if (tl.type == "tag") {
              CodeTag t;
              t.name = std::move(tl.name);
              t.scope = std::move(tl.scope);
              t.kind = kind_of(tl.kind, tl.scope_kind, python);
              t.line = tl.has_line ? tl.line : 0;
              t.end = tl.has_end ? tl.end : t.line;
              t.signature = std::move(tl.signature);
              t.bases = std::move(tl.inherits);
              if (!t.name.empty() && t.line > 0) out.push_back(std::move(t));
            }
          }
          consumed = nl + 1;
        }
        if (done) break;
        buffer_.erase(0, consumed);
        consumed = 0;
        ssize_t n = ::read(out_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        buffer_.append(chunk, static_cast<size_t>(n));
      }
      buffer_.erase(0, consumed);
    }
    if (done) return out;
    stop();  // died (a parser crash, the sandbox): start again once
  }
  return fail(ErrorKind::kIo, "ctags stopped while reading {}", path);
}

}  // namespace mergelens
