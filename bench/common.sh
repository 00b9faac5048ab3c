# Sourced by the bench scripts (from the project root): resolves the binary
# to measure. MERGELENS_BIN names a prebuilt one, which must exist; without
# it, build/mergelens is used and built first when missing.
mergelens_bin() {
  local bin="${MERGELENS_BIN:-build/mergelens}"
  if [ ! -x "$bin" ]; then
    [ -z "${MERGELENS_BIN:-}" ] || { echo "MERGELENS_BIN=$bin is not executable" >&2; exit 2; }
    scripts/build.sh release >/dev/null
  fi
  echo "$bin"
}

# replay_start OUT ARGS...: starts bench/replay_llm.py (the stand-ins' answers
# as an OpenAI-compatible server) on a free port with ARGS, its output in OUT;
# sets REPLAY_PID and REPLAY_PORT, or exits when it does not start in 10 s.
# replay_stop ends it.
replay_start() {
  local out=$1
  shift
  rm -f "$out"
  python3 "$(dirname "${BASH_SOURCE[0]}")/replay_llm.py" --port 0 "$@" > "$out" 2>&1 &
  REPLAY_PID=$!
  for _ in $(seq 100); do
    REPLAY_PORT=$(sed -n 's/^listening on //p' "$out" 2>/dev/null || true)
    [ -n "$REPLAY_PORT" ] && return 0
    sleep 0.1
  done
  echo "replay server did not start (see $out)" >&2
  exit 1
}
replay_stop() {
  kill "$REPLAY_PID" 2>/dev/null || true
  wait "$REPLAY_PID" 2>/dev/null || true
}

# make_window_repo SRC REPO TIP WINDOW NAME: a bare repository REPO borrowing
# SRC's objects (alternates) whose main is one root commit holding the tree of
# TIP~WINDOW followed by the WINDOW newest first-parent commits of TIP with
# their trees, messages, authors and dates (one git fast-import stream; the
# diffs against the first parent are the originals). Reused when it was made
# from the same tip and size. (bench/crash_resume.sh, bench/workers.sh)
make_window_repo() {
  local src="$1" repo="$2" tip="$3" window="$4" name="$5"
  local stamp="$tip $window"
if [ "$(cat "$repo/bench-window" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$repo"
  git init -q --bare -b main "$repo"
  local objects
  objects="$(cd "$src" && cd "$(git rev-parse --git-common-dir)" && pwd)/objects"
  echo "$objects" > "$repo/objects/info/alternates"
  git -C "$src" rev-list --first-parent --reverse -n "$((window + 1))" "$tip" |
    python3 -c '
import subprocess, sys
src, name = sys.argv[1], sys.argv[2]
shas = sys.stdin.read().split()
cat = subprocess.Popen(["git", "-C", src, "cat-file", "--batch"], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE)
out = sys.stdout.buffer
for k, sha in enumerate(shas):
    cat.stdin.write(sha.encode() + b"\n"); cat.stdin.flush()
    size = int(cat.stdout.readline().split()[2])
    raw = cat.stdout.read(size); cat.stdout.read(1)
    head, _, msg = raw.partition(b"\n\n")
    h = {}
    for line in head.split(b"\n"):
        if line[:1] != b" ":
            key, _, val = line.partition(b" ")
            h.setdefault(key, val)
    if k == 0:  # the root: the tree of the oldest commit, as one plain commit
        msg = b"Window of %s: the tree of %s\n" % (name.encode(), sha.encode())
    out.write(b"commit refs/heads/main\n")
    out.write(b"author " + h[b"author"] + b"\ncommitter " + h[b"committer"] + b"\n")
    if b"encoding" in h:
        out.write(b"encoding " + h[b"encoding"] + b"\n")
    out.write(b"data %d\n%s\nM 040000 %s \"\"\n\n" % (len(msg), msg, h[b"tree"]))
cat.stdin.close(); cat.wait()
' "$src" "$name" | git -C "$repo" fast-import --quiet
  echo "$stamp" > "$repo/bench-window"
fi
}
