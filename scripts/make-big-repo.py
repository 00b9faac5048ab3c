#!/usr/bin/env python3
"""Generate a large, realistic, deterministic git history for benchmarks.

    python3 scripts/make-big-repo.py OUT [--commits 100000] [--seed 20261130] [--bare]
                                         [--paths 2600]

Creates OUT (removing any previous OUT first) as a git repository of
"enginekit", a fictional LLM inference engine (origin
https://github.com/enginekit-bench/enginekit.git), whose `main` branch is a
single first-parent line of COMMITS commits: an initial import of about PATHS
files, then GitHub-style squash merges whose subjects end with "(#N)" (PR
numbers increase with gaps, as closed PRs leave them), with a rare direct
"Bump version" push between them.

Each merge touches 1-5 files among Python modules, C++ sources and headers,
CUDA kernels (.cu/.cuh), Markdown docs, JSON configs and tests/**/test_*.py,
with small edits (a guard, a log line, an environment variable, a changed
constant, a new function or test, a removed line), and now and then a new
file, a deletion or a rename. Bodies follow a PR template; a quarter say
"Fixes #N" for a recent issue, about 1.5 % name a recent merged PR as a
follow-up or as the source of a regression, some quote benchmark figures.
Authors are drawn from ~400 identities (a few prolific, many occasional; most
with noreply addresses); commit (merge) times strictly increase, about 13
minutes apart on average, from 2023-01-02.

The whole history is written as one `git fast-import` stream by this process
(no git command per commit), so 100,000 commits take a few minutes. Output is
a pure function of --commits, --seed and --paths: the same arguments give the
same commit shas. Prints the head sha, the number of commits and the time.
Only the Python 3.11 standard library and the git CLI are used.
"""

import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import time

T0 = 1672617600  # 2023-01-02T00:00:00Z
REMOTE = "https://github.com/enginekit-bench/enginekit.git"
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

AREAS = ["scheduler", "attention", "sampling", "cache", "router", "speculative", "quantization",
         "distributed", "lora", "tokenizer", "memory", "server", "metrics", "multimodal", "moe",
         "compile", "disagg", "loader", "config", "grammar", "batching", "offload", "profiler",
         "observability", "entrypoints", "models", "layers", "ops", "utils", "eplb"]
TAGS = {"scheduler": "Scheduler", "attention": "Attention", "sampling": "Sampling",
        "cache": "KV Cache", "router": "Router", "speculative": "Spec", "quantization": "Quant",
        "distributed": "Distributed", "lora": "LoRA", "moe": "MoE", "disagg": "PD",
        "multimodal": "VLM", "server": "Server", "compile": "Compile", "models": "Model"}
NOUNS = ["batch", "request", "token", "block", "page", "slot", "head", "layer", "expert", "rank",
         "stream", "queue", "prefix", "chunk", "weight", "scale", "buffer", "graph", "shape",
         "kernel", "worker", "tensor", "prompt", "logit", "mask", "offset", "index", "budget"]
VERBS = ["compute", "build", "update", "resolve", "apply", "merge", "split", "load", "init",
         "check", "pack", "select", "schedule", "evict", "allocate", "release", "prepare",
         "dispatch", "reduce", "gather", "scatter", "encode", "decode", "normalize", "fuse"]
MODELS = ["llama", "qwen", "deepseek", "mistral", "gemma", "phi", "glm", "mixtral", "minicpm",
          "internvl", "kimi", "grok", "olmo", "falcon", "baichuan", "yi", "exaone", "granite"]
FIRST = ["Wei", "Li", "Alex", "Sam", "Jun", "Yi", "Chen", "Maria", "Ivan", "Priya", "Omar",
         "Hana", "Kai", "Lena", "Ravi", "Mei", "Tom", "Sofia", "Hiro", "Ana", "Ben", "Zoe",
         "Noah", "Xin", "Yu", "Min", "Ali", "Eva", "Leo", "Nina"]
LAST = ["Zhang", "Wang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Smith", "Kumar", "Kim",
        "Park", "Garcia", "Ivanov", "Tanaka", "Sato", "Nguyen", "Lopez", "Muller", "Rossi",
        "Singh", "Ali", "Cohen", "Silva", "Khan", "Xu", "Sun", "Ma", "Zhu", "Hu"]


class Gen:
    def __init__(self, seed, n_paths):
        self.r = random.Random(seed)
        self.n_paths = n_paths
        self.files = {}   # path -> File, insertion-ordered (deterministic)
        self.paths = []   # list of live paths, for uniform picks
        self.index = {}   # path -> position in self.paths
        self.serial = 0
        self.authors = self.make_authors(400)
        self.issues = collections.deque(maxlen=1000)  # recent numbers that are not merged PRs
        self.merged = collections.deque(maxlen=1000)  # recent merged PR numbers

    # -- names -------------------------------------------------------------
    def ident(self):
        return f"{self.r.choice(VERBS)}_{self.r.choice(NOUNS)}"

    def camel(self):
        return self.r.choice(NOUNS).capitalize() + self.r.choice(["Manager", "Pool", "Runner",
                                                                  "Planner", "Cache", "Table",
                                                                  "Backend", "Config", "State"])

    def make_authors(self, n):
        out = []
        for i in range(n):
            name = f"{self.r.choice(FIRST)} {self.r.choice(LAST)}"
            login = name.lower().replace(" ", "") + (str(i) if self.r.random() < 0.4 else "")
            if self.r.random() < 0.7:
                email = f"{1000000 + i * 7919}+{login}@users.noreply.github.com"
            else:
                email = f"{login}@{self.r.choice(['example.com', 'corp.example', 'lab.example.org'])}"
            out.append(f"{name} <{email}>")
        return out

    def author(self):
        # Zipf-like: a few prolific authors, a long tail of occasional ones.
        return self.authors[int(len(self.authors) * self.r.random() ** 2.5)]

    # -- files -------------------------------------------------------------
    def new_path(self, kind=None):
        kind = kind or self.r.choices(["py", "cc", "h", "cu", "md", "json", "test"],
                                      [40, 12, 6, 10, 10, 6, 16])[0]
        area = self.r.choice(AREAS)
        while True:
            self.serial += 1
            stem = f"{self.r.choice(VERBS)}_{self.r.choice(NOUNS)}"
            if self.r.random() < 0.5:
                stem = f"{self.r.choice(NOUNS)}_{self.r.choice(NOUNS)}"
            p = {"py": f"python/enginekit/{area}/{stem}.py",
                 "cc": f"csrc/{area}/{stem}.cc",
                 "h": f"csrc/{area}/{stem}.h",
                 "cu": f"csrc/kernels/{area}/{stem}_kernel.{self.r.choice(['cu', 'cu', 'cuh'])}",
                 "md": f"docs/{self.r.choice(['guide', 'reference', 'developer', 'models'])}/{stem}.md",
                 "json": f"configs/{self.r.choice(MODELS)}/{stem}.json",
                 "test": f"tests/{area}/test_{stem}.py"}[kind]
            if p not in self.files:
                return p

    def lang(self, path):
        """py, cu (.cu/.cuh), cc (.cc/.h), md or json."""
        if path.endswith(".py"):
            return "py"
        if path.endswith((".cu", ".cuh")):
            return "cu"
        if path.endswith((".cc", ".h")):
            return "cc"
        return path.rsplit(".", 1)[1]

    def add(self, path, blocks):
        self.files[path] = blocks
        self.index[path] = len(self.paths)
        self.paths.append(path)

    def remove(self, path):
        del self.files[path]
        i = self.index.pop(path)
        last = self.paths.pop()
        if last != path:
            self.paths[i] = last
            self.index[last] = i

    def block(self, path):
        """One unit of a file: a function, a kernel, a section or a JSON key."""
        r, kind, name = self.r, self.lang(path), self.ident()
        if kind == "py" and "/test_" in path:
            return [f"def test_{name}():",
                    f"    {r.choice(NOUNS)} = {name}({r.randint(1, 64)})",
                    f"    assert {r.choice(NOUNS)} is not None",
                    f"    assert len({r.choice(NOUNS)}s) == {r.randint(0, 8)}"]
        if kind == "py":
            a, b = r.sample(NOUNS, 2)
            return [f"def {name}({a}, {b}=None):",
                    f'    """{name.replace("_", " ").capitalize()} for the given {a}."""',
                    f"    {b} = {b} or {r.randint(1, 4096)}",
                    f"    result = [{a}[i] for i in range(min(len({a}), {b}))]",
                    "    return result"]
        if kind == "cu":
            return [f"__global__ void {name}_kernel(const float* __restrict__ in, float* out, int n) {{",
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
                    f"  if (i < n) out[i] = in[i] * {r.randint(1, 9)}.0f + {r.randint(0, 99)}.0f;",
                    "}"]
        if kind == "cc":
            a = r.choice(NOUNS)
            if path.endswith(".h"):
                return [f"int64_t {name}(const std::vector<int64_t>& {a}s, int64_t limit = {r.randint(1, 512)});"]
            return [f"int64_t {name}(const std::vector<int64_t>& {a}s, int64_t limit) {{",
                    "  int64_t total = 0;",
                    f"  for (auto {a} : {a}s) total += std::min({a}, limit);",
                    "  return total;",
                    "}"]
        if kind == "md":
            noun = r.choice(NOUNS)
            return [f"## {name.replace('_', ' ').capitalize()}", "",
                    f"The {noun} path {r.choice(VERBS)}s each {r.choice(NOUNS)} before the {r.choice(NOUNS)} step.",
                    f"Set `--{noun}-size` to {r.randint(1, 256)} for small models."]
        return [f'"{name}": {r.randint(0, 8192)}']  # json

    def initial(self, path):
        return [self.block(path) for _ in range(self.r.randint(3, 9))]

    def render(self, path):
        blocks, kind = self.files[path], self.lang(path)
        if kind == "json":
            return "{\n" + ",\n".join("  " + b[0] for b in blocks) + "\n}\n"
        if kind == "md":
            head = [f"# {path.rsplit('/', 1)[1][:-3].replace('_', ' ').capitalize()}", ""]
            return "\n".join(head + ["\n".join(b) + "\n" for b in blocks])
        if kind == "py":
            head = ['"""' + path.rsplit("/", 1)[1] + ' (enginekit)."""', "import logging",
                    "import os", "", "logger = logging.getLogger(__name__)", "", ""]
            return "\n".join(head) + "\n\n\n".join("\n".join(b) for b in blocks) + "\n"
        head = ["// Copyright enginekit authors.", "#include <cstdint>", "#include <vector>", ""]
        if kind == "cu":
            head.insert(1, "#include <cuda_runtime.h>")
        return "\n".join(head) + "\n" + "\n\n".join("\n".join(b) for b in blocks) + "\n"

    def modify(self, path):
        """A small edit: a few lines added, changed or removed."""
        r, blocks, kind = self.r, self.files[path], self.lang(path)
        op = r.choices(["add_block", "drop_block", "insert", "change", "delete"],
                       [22, 6 if len(blocks) > 3 else 0, 34, 30, 8])[0]
        if len(blocks) > 24:
            op = "drop_block"
        if op == "add_block" or not blocks or path.endswith(".h") and op == "insert":
            blocks.insert(r.randint(0, len(blocks)), self.block(path))
            return
        i = r.randrange(len(blocks))
        b = blocks[i]
        if op == "drop_block":
            del blocks[i]
            return
        if kind == "json":
            key = b[0].split(":")[0]
            b[0] = f"{key}: {r.choice([r.randint(0, 8192), 'true', 'false', json.dumps(r.choice(NOUNS))])}"
            return
        if op == "delete" and len(b) > 4:
            del b[r.randint(2, len(b) - 2)]
            return
        if op in ("change", "delete"):  # change a number on one line
            j = r.randrange(len(b))
            words = b[j].split(" ")
            nums = [k for k, w in enumerate(words) if w.rstrip(";,.f)").isdigit()]
            if nums:
                k = r.choice(nums)
                tail = words[k][len(words[k].rstrip(";,.f)")):]
                words[k] = str(r.randint(0, 4096)) + tail
                b[j] = " ".join(words)
                return
        if len(b) >= 30 or path.endswith(".h"):  # full: a new unit instead
            blocks.insert(r.randint(0, len(blocks)), self.block(path))
            return
        v = r.choice(NOUNS)
        line = {"py": [f"    if {v} is None:", f"        return {r.choice(['None', '0', '[]'])}"],
                "cu": [f"  if (n <= {r.randint(0, 64)}) return;"],
                "cc": [f"  if (limit <= {r.randint(0, 64)}) return {r.randint(-1, 0)};"],
                "md": [r.choice([f"- `ENGINEKIT_{v.upper()}_{r.choice(NOUNS).upper()}` defaults to {r.randint(0, 16)}.",
                                 f"Each {v} is {r.choice(VERBS)}d once per {r.choice(NOUNS)}."])],
                }[kind]
        if kind == "py" and r.random() < 0.4:
            line = [r.choice([f'    logger.debug("{v}=%s", {v})',
                              f'    {v} = int(os.environ.get("ENGINEKIT_{v.upper()}", "{r.randint(0, 64)}"))'])]
        if kind == "py" and "/test_" in path:
            line = [f"    assert {v} == {r.randint(0, 99)}"]
        pos = len(b) - 1 if kind in ("cu", "cc") or len(b) < 3 else r.randint(2, len(b) - 1)
        b[pos:pos] = line


def fast_import_stream(g, commits, out):
    w = out.write
    t = T0
    number = 1200
    version = [0, 1, 0]
    # Initial import: a plain commit with every file.
    for _ in range(g.n_paths):
        p = g.new_path()
        g.add(p, g.initial(p))
    msg = b"Initial import of enginekit\n"
    w(b"commit refs/heads/main\n")
    w(f"author Enginekit Maintainers <maintainers@enginekit.example> {t} +0000\n".encode())
    w(f"committer Enginekit Maintainers <maintainers@enginekit.example> {t} +0000\n".encode())
    w(b"data %d\n%s" % (len(msg), msg))
    for p in g.paths:
        data = g.render(p).encode()
        w(b"M 100644 inline %s\ndata %d\n%s\n" % (p.encode(), len(data), data))
    w(b"\n")
    r = g.r
    for c in range(1, commits):
        t += 1 + int(r.expovariate(1 / 780))
        if r.random() < 0.004:  # a direct push: version bump, no PR number
            version[2] += 1
            if version[2] == 10:
                version[1:] = [version[1] + 1, 0]
            v = ".".join(map(str, version))
            p = "python/enginekit/version.py"
            msg = f"Bump version to {v}\n".encode()
            w(b"commit refs/heads/main\n")
            w(f"author Release Bot <release-bot@enginekit.example> {t} +0000\n".encode())
            w(f"committer Release Bot <release-bot@enginekit.example> {t} +0000\n".encode())
            data = f'__version__ = "{v}"\n'.encode()
            w(b"data %d\n%sM 100644 inline %s\ndata %d\n%s\n\n" % (len(msg), msg, p.encode(), len(data), data))
            continue
        gap = int(r.expovariate(0.8)) if r.random() < 0.6 else 0
        g.issues.extend(range(number + 1, number + 1 + gap))  # numbers of issues / closed PRs
        number += 1 + gap
        ops, subject = pick_change(g)
        body = make_body(g, subject)
        g.merged.append(number)
        msg = f"{subject} (#{number})\n\n{body}".encode()
        authored = t - r.randint(600, 14 * 86400)
        w(b"commit refs/heads/main\n")
        w(f"author {g.author()} {authored} +0000\n".encode())
        w(f"committer GitHub <noreply@github.com> {t} +0000\n".encode())
        w(b"data %d\n%s" % (len(msg), msg))
        for op in ops:
            if op[0] == "D":
                w(b"D %s\n" % op[1].encode())
            elif op[0] == "R":
                w(b'R "%s" "%s"\n' % (op[1].encode(), op[2].encode()))
            else:
                data = g.render(op[1]).encode()
                w(b"M 100644 inline %s\ndata %d\n%s\n" % (op[1].encode(), len(data), data))
        w(b"\n")
        if c % 5000 == 0:
            print(f"  {c} commits generated", file=sys.stderr, flush=True)
    w(b"done\n")


def pick_change(g):
    """The files of one PR and its subject; mutates the generator's files."""
    r = g.r
    kind = r.choices(["fix", "feat", "perf", "docs", "config", "test", "refactor", "cleanup",
                      "rename"], [30, 22, 10, 10, 6, 8, 8, 3, 3])[0]
    anchor = r.choice(g.paths)
    area = anchor.split("/")[-2]
    sym = g.ident()
    tag = f"[{TAGS[area]}] " if area in TAGS and r.random() < 0.6 else ""
    ops = []
    if kind == "rename" and len(g.paths) > 50:
        new = g.new_path(kind_of(anchor))
        if new in g.files:
            return pick_change_fallback(g, anchor, tag, sym)
        g.add(new, g.files[anchor])
        g.remove(anchor)
        ops.append(("R", anchor, new))
        if r.random() < 0.5:
            g.modify(new)
            ops.append(("M", new))
        return ops, f"{tag}Move {anchor.rsplit('/', 1)[1]} to {new.rsplit('/', 2)[-2]}/"
    if kind == "cleanup" and len(g.paths) > g.n_paths * 0.8:
        g.remove(anchor)
        ops.append(("D", anchor))
        if r.random() < 0.5:
            other = r.choice(g.paths)
            g.modify(other)
            ops.append(("M", other))
        return ops, f"{tag}Remove unused {anchor.rsplit('/', 1)[1]}"
    n = r.choices([1, 2, 3, 4, 5], [35, 30, 18, 10, 7])[0]
    targets = [anchor]
    if kind == "docs":
        targets = [p for p in (r.choice(g.paths) for _ in range(40)) if p.endswith(".md")][:n] or [anchor]
    elif kind == "config":
        targets = [p for p in (r.choice(g.paths) for _ in range(40)) if p.endswith(".json")][:n] or [anchor]
    else:
        near = [p for p in (r.choice(g.paths) for _ in range(60)) if f"/{area}/" in p]
        targets += near[:n - 1]
        while len(targets) < n:
            targets.append(r.choice(g.paths))
    if kind in ("feat", "test") and r.random() < 0.14:  # a new file
        p = g.new_path("test" if kind == "test" else r.choice(["py", "py", "cu", "cc", "md"]))
        g.add(p, g.initial(p))
        ops.append(("M", p))
    for p in dict.fromkeys(targets):
        g.modify(p)
        ops.append(("M", p))
    what = r.choice(NOUNS)
    subject = {
        "fix": f"{tag}Fix {what} {r.choice(['overflow', 'leak', 'race', 'off-by-one', 'hang', 'crash', 'mismatch'])} in {sym}",
        "feat": f"{tag}Support {r.choice(MODELS)} {what} in {sym}",
        "perf": f"{tag}Speed up {sym} by fusing the {what} loop",
        "docs": f"docs: explain {what} {r.choice(['tuning', 'limits', 'options', 'layout'])}",
        "config": f"Add tuned configs for {r.choice(MODELS)} on {r.choice(['H100', 'H200', 'B200', 'MI300X', 'A100'])}",
        "test": f"{tag}Add tests for {sym}",
        "refactor": f"{tag}Refactor {sym} into smaller helpers",
        "cleanup": f"{tag}Tidy up {sym}",
    }[kind]
    return ops, subject


def kind_of(path):
    """The new_path() kind of an existing path."""
    if "/test_" in path:
        return "test"
    ext = path.rsplit(".", 1)[1]
    return {"cuh": "cu"}.get(ext, ext)


def pick_change_fallback(g, anchor, tag, sym):
    g.modify(anchor)
    return [("M", anchor)], f"{tag}Adjust {sym}"


def make_body(g, subject):
    r = g.r
    lines = ["## Motivation", "", f"{subject.split('] ')[-1]}."]
    # Most references name a recent issue; about 1.5 % name a recent merged PR (a
    # follow-up, or a fix of a regression), as in real histories.
    x = r.random()
    if x < 0.25 and g.issues:
        lines += ["", f"Fixes #{g.issues[-r.randint(1, len(g.issues))]}"]
    elif x < 0.265 and g.merged:
        pr = g.merged[-r.randint(1, len(g.merged))]
        lines += ["", r.choice([f"Follow-up to #{pr}.", f"Fixes a regression from #{pr}."])]
    if r.random() < 0.25:
        lines += ["", "## Benchmark", "",
                  f"Throughput {r.randint(900, 5000)} -> {r.randint(900, 5000)} tok/s "
                  f"({r.randint(2, 60)}% {r.choice(['faster', 'lower latency', 'less memory'])})."]
    lines += ["", "## Checklist", "", "- [x] Format your code", "- [x] Add unit tests"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--commits", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--paths", type=int, default=2600, help="files in the initial import (<= 3000)")
    ap.add_argument("--bare", action="store_true", help="a bare repository (no work tree)")
    a = ap.parse_args()
    if a.commits < 1 or not 10 <= a.paths <= 3000:
        ap.error("--commits must be >= 1 and --paths within 10..3000")
    start = time.monotonic()
    shutil.rmtree(a.out, ignore_errors=True)
    env = dict(os.environ, **GIT_ENV)
    git = ["git", "-c", "init.defaultBranch=main", "-c", "gc.auto=0", "-c", "core.autocrlf=false"]
    subprocess.run(git + ["init", "-q"] + (["--bare"] if a.bare else []) + [a.out], check=True, env=env)
    subprocess.run(git + ["remote", "add", "origin", REMOTE], cwd=a.out, check=True, env=env)
    p = subprocess.Popen(git + ["fast-import", "--quiet", "--done"], cwd=a.out, env=env,
                         stdin=subprocess.PIPE)
    try:
        fast_import_stream(Gen(a.seed, a.paths), a.commits, p.stdin)
    finally:
        p.stdin.close()
    if p.wait() != 0:
        sys.exit("git fast-import failed")
    if not a.bare:
        subprocess.run(git + ["reset", "-q", "--hard", "main"], cwd=a.out, check=True, env=env)
    head = subprocess.run(git + ["rev-parse", "main"], cwd=a.out, check=True, env=env,
                          capture_output=True, text=True).stdout.strip()
    print(f"{a.out}: {a.commits} commits on main, head {head}, {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
