// The tree thread of the analyze job (see analyze_tree.h).
#include "mergelens/pipeline/analyze_tree.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <type_traits>

#include <unistd.h>

#include <fmt/format.h>

#include "mergelens/analysis/code/context.h"
#include "mergelens/analysis/code/import_graph.h"
#include "mergelens/analysis/code/switches.h"
#include "mergelens/source/ctags.h"
#include "mergelens/util/compress.h"
#include "mergelens/util/hash.h"

namespace mergelens {
namespace {

// Bytes the tracker keeps for the whole run but reads rarely (tags of
// contents seen before, facts of changes analysed before), out of memory: in
// an unlinked temporary file (std::tmpfile, gone when the process ends), read
// back by position. In memory when no temporary file can be made or written.
class Spill {
 public:
  struct Span {
    std::uint64_t at = 0;
    std::uint32_t size = 0;
    bool in_file = false;
  };
  Spill() : file_(std::tmpfile()) {}
  ~Spill() {
    if (file_) std::fclose(file_);
  }
  Spill(const Spill&) = delete;
  Spill& operator=(const Spill&) = delete;

  Span put(std::string_view bytes) {
    if (file_ && write_at(bytes, end_)) {
      Span s{end_, static_cast<std::uint32_t>(bytes.size()), true};
      end_ += bytes.size();
      return s;
    }
    Span s{memory_.size(), static_cast<std::uint32_t>(bytes.size()), false};
    memory_ += bytes;
    return s;
  }
  // The bytes put at `s`; nullopt when the file cannot be read back.
  std::optional<std::string> get(const Span& s) const {
    if (!s.in_file) return memory_.substr(s.at, s.size);
    std::string out(s.size, '\0');
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::pread(fileno(file_), out.data() + done, out.size() - done,
                                static_cast<off_t>(s.at + done));
      if (n <= 0) return std::nullopt;
      done += static_cast<size_t>(n);
    }
    return out;
  }
  // Forgets everything put (every Span given before is invalid).
  void clear() {
    if (file_ && ::ftruncate(fileno(file_), 0) != 0) {
      std::fclose(file_);
      file_ = nullptr;
    }
    end_ = 0;
    memory_.clear();
    memory_.shrink_to_fit();
  }

 private:
  bool write_at(std::string_view bytes, std::uint64_t at) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pwrite(fileno(file_), bytes.data() + done, bytes.size() - done,
                                 static_cast<off_t>(at + done));
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  std::FILE* file_;
  std::uint64_t end_ = 0;
  std::string memory_;
};

// A parser's tags per file content, so a blob read again (a tree read whole
// after a jump, a revert) is not parsed again. Bounded in entries.
// (Keyed by content, not path: ctags names anonymous structs after the file,
// so which path filled an entry shows in the facts; any change to when entries
// are dropped changes facts.) Entries are packed (a quarter of the bytes of
// the tags themselves) and compressed (a quarter again), and kept in a
// temporary file (Spill), not in memory: a long history parses tens of
// thousands of files.
class TagCache {
 public:
  explicit TagCache(CtagsReader* reader) : reader_(reader) {}
  // The tags of `content` as `path`; nullopt when the parser failed.
  std::optional<std::vector<CodeTag>> get(const std::string& path, std::string_view content) {
    if (!reader_ || !CtagsReader::reads(path)) return std::vector<CodeTag>{};
    const std::uint64_t key = Hasher().add(path.substr(path.rfind('.'))).add(content).value();
    if (auto it = map_.find(key); it != map_.end())
      if (auto kept = spill_.get(it->second))
        if (auto packed = load(*kept)) return unpack(*packed);
    auto t = reader_->tags(path, content);
    if (!t) return std::nullopt;
    ++parsed_;
    bytes_ += content.size();
    if (map_.size() >= kMaxEntries) {
      map_.clear();
      spill_.clear();
    }
    map_.insert_or_assign(key, spill_.put(store(pack(*t))));
    return std::move(*t);
  }
  size_t parsed() const { return parsed_; }
  size_t bytes() const { return bytes_; }

 private:
  // Each tag as its five strings, length first, then its line and end.
  static std::string pack(const std::vector<CodeTag>& tags) {
    std::string out;
    auto put = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(static_cast<std::uint32_t>(tags.size()));
    for (const auto& t : tags) {
      for (const std::string* f : {&t.name, &t.scope, &t.kind, &t.signature, &t.bases}) {
        put(static_cast<std::uint32_t>(f->size()));
        out += *f;
      }
      put(static_cast<std::uint32_t>(t.line));
      put(static_cast<std::uint32_t>(t.end));
    }
    out.shrink_to_fit();
    return out;
  }
  // pack() compressed ('z' first), or as it is ('r') when it cannot be.
  static std::string store(const std::string& packed) {
    auto z = zstd_compress(packed, 1);
    return z ? 'z' + *z : 'r' + packed;
  }
  static std::optional<std::string> load(std::string_view stored) {
    if (stored.starts_with('r')) return std::string(stored.substr(1));
    auto raw = zstd_decompress(stored.substr(1));
    return raw ? std::optional<std::string>(std::move(*raw)) : std::nullopt;
  }
  static std::vector<CodeTag> unpack(std::string_view in) {
    size_t at = 0;
    auto get = [&] {
      std::uint32_t v;
      std::memcpy(&v, in.data() + at, sizeof v);
      at += sizeof v;
      return v;
    };
    std::vector<CodeTag> tags(get());
    for (auto& t : tags) {
      for (std::string* f : {&t.name, &t.scope, &t.kind, &t.signature, &t.bases}) {
        const std::uint32_t n = get();
        f->assign(in.data() + at, n);
        at += n;
      }
      t.line = static_cast<std::int32_t>(get());
      t.end = static_cast<std::int32_t>(get());
    }
    return tags;
  }

  static constexpr size_t kMaxEntries = 40000;
  CtagsReader* reader_;
  std::unordered_map<std::uint64_t, Spill::Span> map_;  // key → store(pack()) in spill_
  Spill spill_;
  size_t parsed_ = 0, bytes_ = 0;
};

// TreeFacts kept for the run as bytes: every field in one visit, written by
// Writer and read back by Reader, then compressed (a long history keeps a
// few kilobytes of context and switches per change, mostly small strings).
struct Writer {
  std::string out;
  void operator()(const std::string& s) {
    (*this)(static_cast<std::uint32_t>(s.size()));
    out += s;
  }
  void operator()(std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void operator()(std::int32_t v) { (*this)(static_cast<std::uint32_t>(v)); }
  void operator()(bool v) { out += static_cast<char>(v); }
  void operator()(char v) { out += v; }
  template <class T>
  void operator()(const std::vector<T>& v) {
    (*this)(static_cast<std::uint32_t>(v.size()));
    for (const auto& x : v) visit(*this, x);
  }
};

struct Reader {
  std::string_view in;
  size_t at = 0;
  void operator()(std::string& s) {
    std::uint32_t n = 0;
    (*this)(n);
    s.assign(in.substr(at, n));
    at += n;
  }
  void operator()(std::uint32_t& v) {
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
  }
  void operator()(std::int32_t& v) {
    std::uint32_t u = 0;
    (*this)(u);
    v = static_cast<std::int32_t>(u);
  }
  void operator()(bool& v) { v = in[at++] != 0; }
  void operator()(char& v) { v = in[at++]; }
  template <class T>
  void operator()(std::vector<T>& v) {
    std::uint32_t n = 0;
    (*this)(n);
    v.resize(n);
    for (auto& x : v) visit(*this, x);
  }
};

// Each field of a struct, in one order for both ways (S: const for Writer).
template <class IO, class S>
void visit_side(IO& io, S& s) {
  io(s.exists), io(s.path), io(s.line), io(s.origin), io(s.default_value), io(s.has_default);
  io(s.text);
}
template <class IO, class S>
requires std::is_same_v<std::remove_const_t<S>, SwitchFact>
void visit(IO& io, S& f) {
  io(f.name), io(f.kind), io(f.change), io(f.existed_at_parent), io(f.default_changed);
  visit_side(io, f.before), visit_side(io, f.after), io(f.introduced_by), io(f.unread);
}
template <class IO, class S>
requires std::is_same_v<std::remove_const_t<S>, ContextItem>
void visit(IO& io, S& c) {
  io(c.why), io(c.name), io(c.kind), io(c.path), io(c.start_line), io(c.end_line);
  io(c.revision), io(c.signature), io(c.at), io(c.target);
}
template <class IO, class S>
requires std::is_same_v<std::remove_const_t<S>, DefinitionFate>
void visit(IO& io, S& d) {
  io(d.path), io(d.name), io(d.side), io(d.fate), io(d.enclosing), io(d.compatible);
}
template <class IO, class S>
requires std::is_same_v<std::remove_const_t<S>, TreeFacts>
void visit(IO& io, S& t) {
  io(t.reach.known), io(t.reach.importers), io(t.reach.direct), io(t.reach.hub);
  io(t.reach.hub_importers), io(t.switches), io(t.switches_known), io(t.context);
  io(t.context_known), io(t.fates);
}

// The facts as kept; nullopt when they cannot be compressed (then not kept).
std::optional<std::string> pack(const TreeFacts& t) {
  Writer w;
  visit(w, t);
  auto z = zstd_compress(w.out, 1);
  return z ? std::optional<std::string>(std::move(*z)) : std::nullopt;
}

std::optional<TreeFacts> unpack(std::string_view packed) {
  auto raw = zstd_decompress(packed);
  if (!raw) return std::nullopt;
  TreeFacts t;
  Reader r{*raw};
  visit(r, t);
  return t;
}

}  // namespace

// The import graph and the switch registry at each change's commits. Changes
// come in merge order, so the tree usually moves one change at a time (the
// files it touched are read again at its commit); when a change does not
// follow the commit the tree holds (the first one, or an older change
// re-analysed for a later reference), the whole tree is read at its parent
// first. The registry is probed at the parent, the change applied, and
// probed again at the merge. Results are kept by sha for the run (packed, in
// a temporary file), so a later pass finds them again.
//
// The tree holds the files at `commit_` whichever way it got there: an
// edit reads each touched file with read_regular_file(), the reader that
// agrees with the whole-tree walk (symlinks and files over kMaxFile read as
// absent), and the reach counts no further than its cap in any walk order.
// So a change's facts depend on its commits alone, not on where a run
// started, how the changes were batched or whether a run was killed.
class TreeTracker::Impl {
 public:
  Impl(GitSource* source, const RepoConfig& config, ContentCache& cache,
       const std::vector<SwitchOrigin>& origins)
      : source_(source), config_(config), contents_(cache) {
    for (const auto& o : origins) origins_.emplace(o.name, o);
    graph_.set_config(config);
    if (source_)
      if (auto r = CtagsReader::start()) ctags_ = std::move(*r);
    tags_ = std::make_unique<TagCache>(ctags_.get());
  }

  TreeFacts at(const Change& c) {
    if (!source_ || c.sha.empty()) return {};
    if (auto it = cache_.find(c.sha); it != cache_.end())
      if (auto kept = kept_.get(it->second))
        if (auto t = unpack(*kept)) return std::move(*t);
    TreeFacts out;
    bool at_parent = !c.parent_sha.empty() && commit_ == c.parent_sha;
    if (!at_parent && !c.parent_sha.empty()) at_parent = rebuild(c.parent_sha);
    if (!at_parent && c.parent_sha.empty()) {  // a root commit: the empty tree before it
      clear();
      at_parent = true;
    }
    std::optional<SwitchProbe> probe;
    std::optional<ContextProbe> context;
    if (at_parent) probe.emplace(switches_, c);
    if (at_parent && symbols_ok_) context.emplace(symbols_, graph_, c);
    const bool moved = at_parent && !c.files_truncated ? apply(c) : rebuild(c.sha);
    if (!moved) {
      clear();
      return {};
    }
    commit_ = c.sha;
    graph_.commit = c.sha;
    out.reach = graph_.reach(c, config_);
    if (probe) {
      out.switches = probe->finish(switches_);
      out.switches_known = true;
      note_origins(c, out.switches);
    }
    if (context && symbols_ok_) {
      const MergeReader read = [&](const std::string& p) {
        std::optional<std::string> cached;
        if (contents_.get(c.sha, p, cached)) return cached;
        auto r = source_->read_regular_file(c.sha, p, kMaxFile);
        return r ? *r : std::nullopt;
      };
      out.context = context->finish(symbols_, graph_, read);
      out.fates = context->fates(symbols_);
      out.context_known = true;
    }
    if (auto packed = pack(out)) cache_.insert_or_assign(c.sha, kept_.put(*packed));
    return out;
  }

  size_t rebuilds() const { return rebuilds_; }

 private:
  // Where each switch the change reads was introduced: the earliest change
  // before it that declared it (stored facts, then this run in merge order);
  // and the switches it introduces itself.
  void note_origins(const Change& c, std::vector<SwitchFact>& switches) {
    auto earlier = [](std::int64_t merged, std::int64_t id, const Change& x) {
      return merged < x.merged_at || (merged == x.merged_at && id < x.id);
    };
    for (auto& sw : switches) {
      // Looked up where the parent declared it; recorded where the merge does.
      auto it = origins_.find(switch_origin_key(sw, sw.before));
      if (sw.existed_at_parent && it != origins_.end() &&
          earlier(it->second.merged_at, it->second.change_id, c))
        sw.introduced_by = it->second.ref;
      if (sw.change != "added") continue;
      const std::string key = switch_origin_key(sw, sw.after);
      auto at = origins_.find(key);
      if (at == origins_.end() || !earlier(at->second.merged_at, at->second.change_id, c))
        origins_[key] = {key, c.id, c.number ? fmt::format("#{}", *c.number) : c.sha.substr(0, 12),
                         c.merged_at};
    }
  }

  static bool tracks(const std::string& p) {
    return import_graph_tracks(p) || switch_scan_tracks(p) || CtagsReader::reads(p);
  }

  void clear() {
    graph_.clear();
    switches_.clear();
    symbols_.clear();
    symbols_ok_ = ctags_ != nullptr;
    commit_.clear();
  }

  // Sets or removes `path` in every index the tracker keeps.
  void set(const std::string& p, std::string_view content) {
    graph_.set_file(p, content);
    switches_.set_file(p, content);
    if (symbols_ok_ && CtagsReader::reads(p)) {
      auto t = tags_->get(p, content);
      if (t)
        symbols_.set_file(p, std::move(*t));
      else
        symbols_ok_ = false;  // the parser failed: no context until the next full read
    }
  }
  void remove(const std::string& p) {
    graph_.remove_file(p);
    switches_.remove_file(p);
    symbols_.remove_file(p);
  }

  bool rebuild(const std::string& sha) {
    ++rebuilds_;
    clear();
    graph_.begin_bulk();
    auto done = source_->for_each_file(
        sha, tracks, [&](const std::string& p, std::string_view content) { set(p, content); },
        kMaxFile);
    graph_.end_bulk();
    if (!done) {
      clear();
      return false;
    }
    commit_ = sha;
    return true;
  }

  bool apply(const Change& c) {
    for (const auto& f : c.files) {
      if (!f.old_path.empty() && f.old_path != f.path && f.status == FileStatus::kRenamed)
        remove(f.old_path);
      if (!tracks(f.path)) continue;
      if (f.status == FileStatus::kDeleted) {
        remove(f.path);
        continue;
      }
      auto content = source_->read_regular_file(c.sha, f.path, kMaxFile);
      if (!content) return false;
      if (*content) {
        set(f.path, **content);
        // Absent ones the workers read themselves.
        contents_.put(c.sha, f.path, std::move(*content));
      } else {
        remove(f.path);
      }
    }
    return true;
  }

  static constexpr size_t kMaxFile = 1u << 20;  // larger files are read as importing nothing
  GitSource* source_;
  const RepoConfig& config_;
  ContentCache& contents_;
  ImportGraph graph_;
  SwitchRegistry switches_;
  SymbolIndex symbols_;
  bool symbols_ok_ = false;  // the index holds the tree (a parser ran on every file)
  std::unique_ptr<CtagsReader> ctags_;
  std::unique_ptr<TagCache> tags_;
  std::string commit_;  // the tree both hold; empty: the empty tree or nothing
  std::unordered_map<std::string, Spill::Span> cache_;  // sha → pack() in kept_
  Spill kept_;
  std::map<std::string, SwitchOrigin> origins_;  // name → the change that first declared it
  size_t rebuilds_ = 0;
};

TreeTracker::TreeTracker(GitSource* source, const RepoConfig& config, ContentCache& cache,
                         const std::vector<SwitchOrigin>& origins)
    : impl_(std::make_unique<Impl>(source, config, cache, origins)) {}
TreeTracker::~TreeTracker() = default;
TreeFacts TreeTracker::at(const Change& c) {
  return impl_->at(c);
}
size_t TreeTracker::rebuilds() const {
  return impl_->rebuilds();
}

}  // namespace mergelens
