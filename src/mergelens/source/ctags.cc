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
  for (std::string_view ext : {".py", ".pyi", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp",
                               ".hxx", ".cu", ".cuh"})
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
                        "--fields=+neS",
                        "--fields=-P",
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
    nlohmann::json head = {{"command", "generate-tags"}, {"filename", path},
                           {"size", content.size()}};
    std::vector<CodeTag> out;
    bool done = false;
    // A path that is not UTF-8 (git allows any bytes) is sent with U+FFFD
    // for its bad bytes: ctags reads the language from the extension.
    const std::string line =
        head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (write_all(in_, line) && write_all(in_, content)) {
      char chunk[65536];
      while (!done) {
        size_t nl;
        while (!done && (nl = buffer_.find('\n')) != std::string::npos) {
          std::string_view line(buffer_.data(), nl);
          auto j = nlohmann::json::parse(line, nullptr, false);
          if (j.is_object()) {
            const std::string type = j.value("_type", "");
            if (type == "completed") done = true;
            if (type == "tag") {
              CodeTag t;
              t.name = j.value("name", "");
              t.scope = j.value("scope", "");
              t.kind = kind_of(j.value("kind", ""), j.value("scopeKind", ""), python);
              t.line = j.value("line", 0);
              t.end = j.value("end", t.line);
              t.signature = j.value("signature", "");
              if (!t.name.empty() && t.line > 0) out.push_back(std::move(t));
            }
          }
          buffer_.erase(0, nl + 1);
        }
        if (done) break;
        ssize_t n = ::read(out_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        buffer_.append(chunk, static_cast<size_t>(n));
      }
    }
    if (done) return out;
    stop();  // died (a parser crash, the sandbox): start again once
  }
  return fail(ErrorKind::kIo, "ctags stopped while reading {}", path);
}

}  // namespace mergelens
