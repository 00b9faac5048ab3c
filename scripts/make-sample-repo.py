#!/usr/bin/env python3
"""Build the deterministic sample repository used by mergelens tests.

    python3 scripts/make-sample-repo.py OUT_DIR [--manifest FILE]

Creates OUT_DIR (removing any previous OUT_DIR first) as a git repository of
"lumen", a fictional LLM serving engine (GitHub lumen-ai/lumen), whose `main`
branch holds an initial import followed by ten days of merged pull requests:
GitHub-style squash merges, one true merge commit, one plain commit, a revert,
renames, binary and generated files, CRLF / no-EOL / Latin-1 files and a
commit message that is not valid UTF-8.

Next to it (default: OUT_DIR/../<basename of OUT_DIR>.manifest.json, i.e.
outside the repository) a JSON manifest describes every first-parent commit:
its sha, message, author, merge time, the files as `git diff --name-status -M
<first parent> <sha>` reports them (with `--numstat` line counts) and the
intent of the fixture author (category, expected verdict, focus, ...).

Manifest layout (UTF-8 JSON; invalid bytes of a message appear as U+FFFD):
  repo, remote, branch, head, generator, change_count,
  changes[]  every first-parent commit, oldest first:
    kind ("squash" | "merge" | "commit"), number (PR number or null), sha,
    parents, subject, title (squash: subject minus " (#N)"; merge: the PR
    title, first line of the body; commit: the subject), body (after the
    first line and the blank line; merge: after the title line), message_has_
    invalid_utf8, author_name, author_email, login (from noreply addresses
    only, else null), committer_name, committer_email, authored_at and
    merged_at (author / committer time, UTC "YYYY-MM-DDTHH:MM:SSZ"),
    files[] sorted by path: path, old_path + similarity (renames), status
    (added | modified | deleted | renamed), binary, additions, deletions
    (null for binary files), intent {...}; merges also carry branch and
    branch_commits (shas of the merged branch, oldest first).
  intent.crlf / no_eol / non_utf8_file are computed: true when the change
  touches a file stored with CRLF, without final newline, or in Latin-1.

The content lives in scripts/sample_content/:
  skeleton/*.txt   the files of the initial import, as "==> path <==" archives
  history/*.py     the pull requests: pure data, executed in a namespace that
                   provides the small helper constructors defined below

Only the Python 3.11 standard library and the git CLI are used. The output is
fully deterministic: dates, identities and contents are fixed and the user's
git configuration is ignored.
"""

import argparse
import datetime as dt
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTENT_DIR = HERE / "sample_content"
SKELETON_DIR = CONTENT_DIR / "skeleton"
HISTORY_DIR = CONTENT_DIR / "history"

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
FILE_MARKER = re.compile(r"^==> (.+) <==$")
NOREPLY_RE = re.compile(r"^(?:\d+\+)?(?P<login>[^@]+)@users\.noreply\.github\.com$")
SQUASH_SUBJECT_RE = re.compile(r" \(#(\d+)\)$")
MERGE_SUBJECT_RE = re.compile(r"^Merge pull request #(\d+) from (\S+)$")
IDENT_RE = re.compile(r"^(.*) <(.*)> (\d+) ([+-]\d{4})$")
PLACEHOLDER_RE = re.compile(r"\{(sha|title):(\d+)\}")

CATEGORIES = {"bugfix", "feature", "perf", "refactor", "docs", "ci", "tests", "deps", "cleanup", "revert", "config"}
CLEANUPS = {None, "rename-only", "delete-only", "whitespace-only", "comment-only", "import-only", "mechanical"}
VERDICTS = {"close", "selective", "skim", "skip"}
STATUS_NAMES = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "type-changed"}

GIT_CONFIG = [
    "-c", "user.name=lumen fixture",
    "-c", "user.email=fixture@lumen.invalid",
    "-c", "commit.gpgsign=false",
    "-c", "tag.gpgsign=false",
    "-c", "core.autocrlf=false",
    "-c", "core.safecrlf=false",
    "-c", "core.eol=lf",
    "-c", "core.quotepath=false",
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "gc.auto=0",
    "-c", "maintenance.auto=false",
    "-c", "init.defaultBranch=main",
    "-c", "advice.detachedHead=false",
    "-c", "merge.ff=true",
    "-c", "diff.renames=true",
    "-c", "i18n.commitEncoding=UTF-8",
]


# --------------------------------------------------------------------------
# Helpers exposed to the history data files.
# --------------------------------------------------------------------------

def _strip(text):
    """Drop the leading and trailing newlines of a triple-quoted block."""
    return text.strip("\n")


def edit(path, old, new, count=1):
    """Replace `old` by `new` in `path`; `old` must occur exactly `count` times."""
    return ("edit", path, _strip(old), _strip(new), count)


def write(path, text):
    """Create or overwrite `path` with `text` (a newline is added at the end)."""
    return ("write", path, _strip(text) + "\n")


def append(path, text, blank_lines=2):
    """Append `text` after `blank_lines` empty lines (2 suits Python files)."""
    return ("append", path, _strip(text) + "\n", blank_lines)


def delete(path):
    return ("delete", path)


def rename(old, new):
    return ("rename", old, new)


def sub_all(pattern, repl, paths):
    """Regex-replace in every listed file (each must change)."""
    return ("sub_all", pattern, repl, tuple(paths))


def generate(path, generator, *args):
    return ("generate", path, generator, args)


def revert(number):
    """`git revert --no-commit` of the squash commit of PR `number`."""
    return ("revert", number)


def skeleton():
    """Write every file of sample_content/skeleton."""
    return ("skeleton",)


HELPERS = {
    "edit": edit,
    "write": write,
    "append": append,
    "delete": delete,
    "rename": rename,
    "sub_all": sub_all,
    "generate": generate,
    "revert": revert,
    "skeleton": skeleton,
}


# --------------------------------------------------------------------------
# Generators for contents that are not plain text data.
# --------------------------------------------------------------------------

def gen_moe_config(seed, vendor="nvidia"):
    """A plausible fused-MoE tuning table keyed by the M bucket."""
    # A tiny LCG keeps the choice sequence independent of Python's random module.
    state = seed & 0xFFFFFFFF

    def pick(options):
        nonlocal state
        state = (1103515245 * state + 12345) & 0x7FFFFFFF
        return options[(state >> 8) % len(options)]

    buckets = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096]
    table = {}
    for m in buckets:
        if m <= 16:
            bm = 16
        elif m <= 96:
            bm = pick([16, 32, 64])
        else:
            bm = pick([64, 128])
        entry = {
            "BLOCK_SIZE_M": bm,
            "BLOCK_SIZE_N": pick([32, 64, 128] if m <= 64 else [128, 256]),
            "BLOCK_SIZE_K": pick([64, 128, 256] if m <= 64 else [64, 128]),
            "GROUP_SIZE_M": 1 if m <= 8 else pick([1, 16, 32, 64]),
            "num_warps": pick([4, 8]),
            "num_stages": pick([2, 3, 4, 5]) if vendor == "nvidia" else pick([1, 2]),
        }
        if vendor == "amd":
            entry["waves_per_eu"] = pick([0, 1, 2])
            entry["matrix_instr_nonkdim"] = pick([16, 32])
            entry["kpack"] = pick([1, 2])
        table[str(m)] = entry
    return json.dumps(table, indent=4) + "\n"


def gen_png_diagram():
    """A 64x32 1-bit PNG: three boxes joined by arrows (stored, not deflated)."""
    width, height = 64, 32
    pixels = [[0] * width for _ in range(height)]

    def box(x0, y0, x1, y1):
        for x in range(x0, x1 + 1):
            pixels[y0][x] = pixels[y1][x] = 1
        for y in range(y0, y1 + 1):
            pixels[y][x0] = pixels[y][x1] = 1

    box(1, 10, 16, 21)
    box(24, 4, 39, 27)
    box(47, 10, 62, 21)
    for x0, x1 in ((17, 23), (40, 46)):
        for x in range(x0, x1 + 1):
            pixels[15][x] = 1
        pixels[14][x1 - 1] = pixels[16][x1 - 1] = 1
    raw = bytearray()
    for row in pixels:
        raw.append(0)  # filter type: none
        for i in range(0, width, 8):
            byte = 0
            for bit in range(8):
                byte = (byte << 1) | row[i + bit]
            raw.append(byte)
    # zlib stream with a single stored block: deterministic across zlib versions.
    stored = bytes([0x78, 0x01, 0x01]) + struct.pack("<HH", len(raw), len(raw) ^ 0xFFFF) + bytes(raw)
    stored += struct.pack(">I", zlib.adler32(bytes(raw)))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    text = b"Software\x00lumen docs"
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"tEXt", text) + chunk(b"IDAT", stored) + chunk(b"IEND", b"")


def gen_from_script(repo, script_path):
    """Run render() of a generator script that the same change adds to the repo."""
    source = repo.read_text(script_path)
    namespace = {"__name__": "lumen_fixture_generator", "__file__": script_path}
    exec(compile(source, script_path, "exec"), namespace)
    return namespace["render"]()


# --------------------------------------------------------------------------
# Repository access.
# --------------------------------------------------------------------------

class GitError(RuntimeError):
    pass


class Repo:
    def __init__(self, root, formats):
        self.root = Path(root)
        self.formats = formats  # path -> set of {"crlf", "no_eol", "latin1"}
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            {
                "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0",
                "LC_ALL": "C",
                "TZ": "UTC",
            }
        )
        self.base_env = env

    # -- git ---------------------------------------------------------------
    def git(self, *args, env=None, input=None, check=True):
        full_env = dict(self.base_env)
        if env:
            full_env.update(env)
        proc = subprocess.run(
            ["git", *GIT_CONFIG, *args],
            cwd=self.root,
            env=full_env,
            input=input,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        if check and proc.returncode != 0:
            raise GitError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr.decode(errors='replace')}")
        return proc.stdout

    def rev_parse(self, rev):
        return self.git("rev-parse", "--verify", rev + "^{commit}").decode().strip()

    # -- working tree ------------------------------------------------------
    def path(self, rel):
        p = (self.root / rel).resolve()
        if self.root.resolve() not in p.parents:
            raise ValueError(f"path escapes the repository: {rel}")
        return p

    def read_text(self, rel):
        data = self.path(rel).read_bytes()
        fmt = self.formats.get(rel, set())
        text = data.decode("latin-1" if "latin1" in fmt else "utf-8")
        if "crlf" in fmt:
            if re.search(r"(?<!\r)\n", text):
                raise ValueError(f"{rel}: CRLF file contains a bare LF")
            text = text.replace("\r\n", "\n")
        if "no_eol" in fmt:
            if text.endswith("\n"):
                raise ValueError(f"{rel}: no-EOL file ends with a newline")
            text += "\n"
        return text

    def write_text(self, rel, text):
        fmt = self.formats.get(rel, set())
        if "no_eol" in fmt:
            text = text.rstrip("\n")
        if "crlf" in fmt:
            text = text.replace("\n", "\r\n")
        data = text.encode("latin-1" if "latin1" in fmt else "utf-8")
        self.write_bytes(rel, data)

    def write_bytes(self, rel, data):
        p = self.path(rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    # -- operations --------------------------------------------------------
    def apply(self, op, ctx):
        kind = op[0]
        if kind == "edit":
            _, rel, old, new, count = op
            text = self.read_text(rel)
            found = text.count(old)
            if found != count:
                raise ValueError(f"{ctx}: edit of {rel}: expected {count} occurrence(s), found {found}:\n{old}")
            if old == new:
                raise ValueError(f"{ctx}: edit of {rel} changes nothing")
            self.write_text(rel, text.replace(old, new))
        elif kind == "write":
            _, rel, text = op
            self.write_text(rel, text)
        elif kind == "append":
            _, rel, text, blank_lines = op
            self.write_text(rel, self.read_text(rel).rstrip("\n") + "\n" * (blank_lines + 1) + text)
        elif kind == "delete":
            p = self.path(op[1])
            if not p.is_file():
                raise ValueError(f"{ctx}: cannot delete missing {op[1]}")
            p.unlink()
            self._prune_dirs(p.parent)
        elif kind == "rename":
            _, old, new = op
            src, dst = self.path(old), self.path(new)
            if not src.is_file() or dst.exists():
                raise ValueError(f"{ctx}: cannot rename {old} -> {new}")
            dst.parent.mkdir(parents=True, exist_ok=True)
            src.rename(dst)
            self._prune_dirs(src.parent)
        elif kind == "sub_all":
            _, pattern, repl, paths = op
            for rel in paths:
                text = self.read_text(rel)
                new_text, n = re.subn(pattern, repl, text)
                if n == 0:
                    raise ValueError(f"{ctx}: {pattern!r} not found in {rel}")
                self.write_text(rel, new_text)
            leftovers = self.git("grep", "-l", "-I", "-E", pattern.replace(r"\b", ""), check=False).decode().split()
            if leftovers:
                raise ValueError(f"{ctx}: {pattern!r} still present in {leftovers}")
        elif kind == "generate":
            _, rel, generator, args = op
            if generator == "moe_config":
                self.write_text(rel, gen_moe_config(*args))
            elif generator == "png_diagram":
                self.write_bytes(rel, gen_png_diagram())
            elif generator == "script":
                self.write_text(rel, gen_from_script(self, *args))
            else:
                raise ValueError(f"{ctx}: unknown generator {generator}")
        else:
            raise ValueError(f"{ctx}: unknown operation {kind}")

    def _prune_dirs(self, directory):
        root = self.root.resolve()
        directory = directory.resolve()
        while directory != root and directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
            directory = directory.parent

    def stage_all(self, ctx):
        self.git("add", "-A")
        proc = subprocess.run(
            ["git", *GIT_CONFIG, "diff", "--cached", "--quiet"],
            cwd=self.root,
            env=self.base_env,
        )
        if proc.returncode == 0:
            raise ValueError(f"{ctx}: nothing to commit")

    def commit(self, message, author, author_date, committer, committer_date):
        try:
            message.decode("utf-8")
        except UnicodeDecodeError:
            # `git commit` (and commit-tree) would silently re-encode the
            # invalid bytes as Latin-1 -> UTF-8, so write the object by hand.
            return self.commit_raw(message, author, author_date, committer, committer_date)
        with tempfile.NamedTemporaryFile(prefix="lumen-msg-", delete=False) as f:
            f.write(message)
            msg_file = f.name
        try:
            self.git(
                "commit", "-q", "--no-verify", "--cleanup=verbatim", "-F", msg_file,
                env=identity_env(author, author_date, committer, committer_date),
            )
        finally:
            os.unlink(msg_file)
        return self.rev_parse("HEAD")

    def commit_raw(self, message, author, author_date, committer, committer_date):
        tree = self.git("write-tree").decode().strip()
        parent = self.rev_parse("HEAD")
        obj = (
            f"tree {tree}\n"
            f"parent {parent}\n"
            f"author {author[0]} <{author[1]}> {git_date(author_date)}\n"
            f"committer {committer[0]} <{committer[1]}> {git_date(committer_date)}\n"
            "\n"
        ).encode("utf-8") + message
        sha = self.git("hash-object", "-t", "commit", "-w", "--stdin", input=obj).decode().strip()
        self.git("update-ref", "HEAD", sha, parent)
        return sha

    # -- inspection ----------------------------------------------------------
    def changed_files(self, parent, sha):
        base = parent or EMPTY_TREE
        opts = ["--no-ext-diff", "--no-textconv", "-M", "-z"]
        name_status = self.git("diff", "--name-status", *opts, base, sha).split(b"\0")
        numstat = self.git("diff", "--numstat", *opts, base, sha).split(b"\0")

        files = {}
        i = 0
        while i < len(name_status) and name_status[i]:
            status = name_status[i].decode()
            letter = status[0]
            if letter in "RC":
                old, new = name_status[i + 1].decode(), name_status[i + 2].decode()
                entry = {"path": new, "old_path": old, "status": STATUS_NAMES[letter], "similarity": int(status[1:])}
                i += 3
            else:
                entry = {"path": name_status[i + 1].decode(), "status": STATUS_NAMES[letter]}
                i += 2
            files[entry["path"]] = entry

        i = 0
        while i < len(numstat) and numstat[i]:
            added, deleted, path = numstat[i].decode().split("\t")
            if path == "":  # rename: old and new path follow
                path = numstat[i + 2].decode()
                i += 3
            else:
                i += 1
            entry = files[path]
            binary = added == "-" and deleted == "-"
            entry["binary"] = binary
            entry["additions"] = None if binary else int(added)
            entry["deletions"] = None if binary else int(deleted)

        ordered = []
        for path in sorted(files):
            e = files[path]
            out = {"path": e["path"]}
            if "old_path" in e:
                out["old_path"] = e["old_path"]
            out["status"] = e["status"]
            if "similarity" in e:
                out["similarity"] = e["similarity"]
            out["binary"] = e["binary"]
            out["additions"] = e["additions"]
            out["deletions"] = e["deletions"]
            ordered.append(out)
        return ordered

    def read_commit(self, sha):
        """Parse the raw commit object: (header dict, raw message bytes)."""
        obj = self.git("cat-file", "commit", sha)
        head, message = obj.split(b"\n\n", 1)
        header = {"parents": []}
        for line in head.decode("utf-8").split("\n"):
            key, _, value = line.partition(" ")
            if key == "parent":
                header["parents"].append(value)
            elif key in ("author", "committer"):
                m = IDENT_RE.match(value)
                header[key + "_name"] = m.group(1)
                header[key + "_email"] = m.group(2)
                header[key + "_time"] = int(m.group(3))
                header[key + "_tz"] = m.group(4)
            elif key == "encoding":
                raise ValueError(f"{sha}: unexpected encoding header")
        return header, message


# --------------------------------------------------------------------------
# Dates and identities.
# --------------------------------------------------------------------------

def parse_when(text):
    """'2026-09-01 09:12' (UTC) or '2026-09-05 19:05 +0200' -> aware datetime."""
    parts = text.split()
    if len(parts) == 2:
        parts.append("+0000")
    stamp = dt.datetime.strptime(" ".join(parts), "%Y-%m-%d %H:%M %z")
    return stamp


def git_date(when):
    offset = when.utcoffset()
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{int(when.timestamp())} {sign}{minutes // 60:02d}{minutes % 60:02d}"


def iso_utc(epoch):
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def identity_env(author, author_date, committer, committer_date):
    return {
        "GIT_AUTHOR_NAME": author[0],
        "GIT_AUTHOR_EMAIL": author[1],
        "GIT_AUTHOR_DATE": git_date(author_date),
        "GIT_COMMITTER_NAME": committer[0],
        "GIT_COMMITTER_EMAIL": committer[1],
        "GIT_COMMITTER_DATE": git_date(committer_date),
    }


def login_from_email(email):
    m = NOREPLY_RE.match(email)
    return m.group("login") if m else None


def to_bytes(text):
    return text if isinstance(text, bytes) else text.encode("utf-8")


def build_message(subject, body):
    subject = to_bytes(subject)
    body = to_bytes(body).strip(b"\n")
    if b"\n" in subject:
        raise ValueError(f"subject spans several lines: {subject!r}")
    return subject + b"\n" + (b"\n" + body + b"\n" if body else b"")


def split_message(raw):
    """Return (subject, body) where body is everything after the first line and
    the blank line that follows it, without the trailing newline."""
    first, _, rest = raw.partition(b"\n")
    if rest.startswith(b"\n"):
        rest = rest[1:]
    return first, rest.rstrip(b"\n")


def decode(raw):
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


# --------------------------------------------------------------------------
# Loading the content.
# --------------------------------------------------------------------------

def load_skeleton():
    files = {}
    for archive in sorted(SKELETON_DIR.glob("*.txt")):
        current, lines = None, []
        for line in archive.read_text(encoding="utf-8").split("\n"):
            m = FILE_MARKER.match(line)
            if m:
                if current is not None:
                    files[current] = lines
                current, lines = m.group(1), []
                if current in files:
                    raise ValueError(f"{archive.name}: duplicate file {current}")
            elif current is None:
                if line.strip():
                    raise ValueError(f"{archive.name}: text before the first file marker")
            else:
                lines.append(line)
        if current is not None:
            files[current] = lines
    out = {}
    for name, lines in files.items():
        text = "\n".join(lines).rstrip("\n")
        text = text + "\n" if text else ""
        out[map_skeleton_name(name)] = text
    return out


def map_skeleton_name(name):
    # Dot files are stored as dot-NAME so that they do not act on this repository.
    return "/".join("." + p[4:] if p.startswith("dot-") else p for p in name.split("/"))


def load_history():
    namespace = dict(HELPERS)
    namespace["__builtins__"] = __builtins__
    for source in sorted(HISTORY_DIR.glob("*.py")):
        code = compile(source.read_text(encoding="utf-8"), str(source), "exec")
        exec(code, namespace)
    return namespace


# --------------------------------------------------------------------------
# Building.
# --------------------------------------------------------------------------

INTENT_DEFAULTS = {
    "category": None,
    "cleanup": None,
    "expected_verdict": None,
    "focus": [],
    "skim": [],
    "tags": [],
    "env_vars_added": [],
    "flags_added": [],
    "has_test": False,
    "numbers": [],
    "body_mentions_untouched": [],
    "references": [],
    "reverts": None,
    "huge_file": None,
}


class Builder:
    def __init__(self, out_dir, history):
        self.history = history
        self.authors = history["AUTHORS"]
        self.github = history["GITHUB_COMMITTER"]
        self.formats = {p: set(f) for p, f in history["FILE_FORMATS"].items()}
        self.repo = Repo(out_dir, self.formats)
        self.sha_by_number = {}
        self.title_by_number = {}
        self.records = []

    def person(self, key):
        return self.authors[key]

    def expand(self, text):
        """Fill {sha:N} and {title:N} with the sha / title of an earlier PR."""
        if isinstance(text, bytes):
            return text

        def repl(m):
            number = int(m.group(2))
            table = self.sha_by_number if m.group(1) == "sha" else self.title_by_number
            return table[number]

        return PLACEHOLDER_RE.sub(repl, text)

    def run(self):
        repo = self.repo
        repo.root.mkdir(parents=True)
        repo.git("init", "-q", "--template=", "-b", "main")
        repo.git("remote", "add", "origin", self.history["REMOTE"])
        last_number = 0
        for change in self.history["CHANGES"]:
            number = change.get("number")
            if number is not None:
                if number <= last_number:
                    raise ValueError(f"PR numbers must increase: #{number} after #{last_number}")
                last_number = number
            kind = change["kind"]
            if kind == "squash":
                self.squash(change)
            elif kind == "merge":
                self.merge(change)
            elif kind == "commit":
                self.plain(change)
            else:
                raise ValueError(f"unknown change kind {kind}")

    def apply_ops(self, ops, ctx):
        for op in ops:
            if op[0] == "skeleton":
                for rel, text in load_skeleton().items():
                    self.repo.write_text(rel, text)
            elif op[0] == "revert":
                sha = self.sha_by_number[op[1]]
                self.repo.git("revert", "--no-commit", sha)
            else:
                self.repo.apply(op, ctx)
        self.repo.stage_all(ctx)

    def squash(self, change):
        number = change["number"]
        ctx = f"#{number}"
        merged = parse_when(change["merged"])
        authored = merged - dt.timedelta(minutes=change.get("authored_before_min", 7 + (number * 37) % 180))
        title = self.expand(change["title"])
        self.apply_ops(change["ops"], ctx)
        message = build_message(to_bytes(title) + f" (#{number})".encode(), self.expand(change.get("body", "")))
        sha = self.repo.commit(message, self.person(change["author"]), authored, self.github, merged)
        self.sha_by_number[number] = sha
        self.title_by_number[number] = title
        self.record(change, sha)

    def plain(self, change):
        when = parse_when(change["date"])
        person = self.person(change["author"])
        self.apply_ops(change["ops"], change["subject"])
        message = build_message(self.expand(change["subject"]), self.expand(change.get("body", "")))
        sha = self.repo.commit(message, person, when, person, when)
        self.record(change, sha)

    def merge(self, change):
        repo = self.repo
        number = change["number"]
        fork_sha = self.sha_by_number[change["fork_after"]]
        local_branch = change["branch"].split("/", 1)[1]
        repo.git("checkout", "-q", "-b", local_branch, fork_sha)
        branch_shas = []
        for i, commit in enumerate(change["branch_commits"]):
            when = parse_when(commit["date"])
            person = self.person(commit["author"])
            self.apply_ops(commit["ops"], f"#{number} commit {i + 1}")
            message = build_message(commit["subject"], commit.get("body", ""))
            branch_shas.append(repo.commit(message, person, when, person, when))
        repo.git("checkout", "-q", "main")

        merged = parse_when(change["merged"])
        merger = self.person(change["merger"])
        subject = f"Merge pull request #{number} from {change['branch']}"
        message = build_message(subject, change["title"] + ("\n\n" + change["body"].strip("\n") if change.get("body") else ""))
        with tempfile.NamedTemporaryFile(prefix="lumen-merge-", delete=False) as f:
            f.write(message)
            msg_file = f.name
        try:
            repo.git(
                "merge", "-q", "--no-ff", "--no-edit", "--no-verify", "--cleanup=verbatim", "-F", msg_file, local_branch,
                env=identity_env(merger, merged, self.github, merged),
            )
        finally:
            os.unlink(msg_file)
        repo.git("branch", "-q", "-D", local_branch)
        sha = repo.rev_parse("HEAD")
        self.sha_by_number[number] = sha
        self.title_by_number[number] = change["title"]
        self.record(change, sha, extra={"branch": change["branch"], "branch_commits": branch_shas})

    # -- manifest ------------------------------------------------------------
    def record(self, change, sha, extra=None):
        repo = self.repo
        header, raw_message = repo.read_commit(sha)
        parent = header["parents"][0] if header["parents"] else None
        raw_subject, raw_body = split_message(raw_message)
        subject, bad_subject = decode(raw_subject)
        body, bad_body = decode(raw_body)
        kind = change["kind"]
        number = change.get("number")

        if kind == "squash":
            m = SQUASH_SUBJECT_RE.search(subject)
            assert m and int(m.group(1)) == number, subject
            title = subject[: m.start()]
        elif kind == "merge":
            m = MERGE_SUBJECT_RE.match(subject)
            assert m and int(m.group(1)) == number, subject
            title, _, rest = body.partition("\n")
            body = rest[1:] if rest.startswith("\n") else rest
        else:
            assert not SQUASH_SUBJECT_RE.search(subject), subject
            title = subject

        files = repo.changed_files(parent, sha)
        touched = {f["path"] for f in files} | {f.get("old_path") for f in files if f.get("old_path")}
        intent = dict(INTENT_DEFAULTS)
        intent.update(change["intent"])
        for key in ("focus", "skim", "tags", "env_vars_added", "flags_added", "numbers", "body_mentions_untouched", "references"):
            intent[key] = list(intent[key])
        intent["crlf"] = any("crlf" in self.formats.get(p, ()) for p in touched)
        intent["no_eol"] = any("no_eol" in self.formats.get(p, ()) for p in touched)
        intent["non_utf8_file"] = any("latin1" in self.formats.get(p, ()) for p in touched)
        if intent["reverts"] is not None and not isinstance(intent["reverts"], int):
            raise ValueError("intent.reverts must be a PR number")
        self.check_intent(number or subject, intent, files, touched, title, body)

        record = {
            "kind": kind,
            "number": number,
            "sha": sha,
            "parents": header["parents"],
            "subject": subject,
            "title": title,
            "body": body,
            "message_has_invalid_utf8": bad_subject or bad_body,
            "author_name": header["author_name"],
            "author_email": header["author_email"],
            "login": login_from_email(header["author_email"]),
            "committer_name": header["committer_name"],
            "committer_email": header["committer_email"],
            "authored_at": iso_utc(header["author_time"]),
            "merged_at": iso_utc(header["committer_time"]),
            "files": files,
            "intent": intent,
        }
        if extra:
            record.update(extra)
        self.records.append(record)

    def check_intent(self, ident, intent, files, touched, title, body):
        ctx = f"intent of {ident}"
        if intent["category"] not in CATEGORIES:
            raise ValueError(f"{ctx}: bad category {intent['category']!r}")
        if intent["cleanup"] not in CLEANUPS:
            raise ValueError(f"{ctx}: bad cleanup {intent['cleanup']!r}")
        if intent["expected_verdict"] not in VERDICTS:
            raise ValueError(f"{ctx}: bad verdict {intent['expected_verdict']!r}")
        paths = {f["path"] for f in files}
        for focus in intent["focus"]:
            if focus["path"] not in paths:
                raise ValueError(f"{ctx}: focus path {focus['path']} is not in the diff")
            if focus.get("symbol") and focus["symbol"] not in self.repo.read_text(focus["path"]):
                raise ValueError(f"{ctx}: symbol {focus['symbol']} not found in {focus['path']}")
        for path in intent["skim"]:
            if path not in paths:
                raise ValueError(f"{ctx}: skim path {path} is not in the diff")
        for path in intent["body_mentions_untouched"]:
            if path in touched or path not in body:
                raise ValueError(f"{ctx}: body_mentions_untouched {path} is touched or not mentioned")
        for num in intent["numbers"]:
            if num not in body:
                raise ValueError(f"{ctx}: number {num!r} does not appear in the body")
        for ref in intent["references"]:
            if f"#{ref}" not in body and f"#{ref}" not in title:
                raise ValueError(f"{ctx}: reference #{ref} appears in neither title nor body")
        if intent["huge_file"] is not None and intent["huge_file"] not in paths:
            raise ValueError(f"{ctx}: huge_file is not in the diff")
        if intent["reverts"] is not None and intent["reverts"] not in self.sha_by_number:
            raise ValueError(f"{ctx}: reverts an unknown PR")


def default_manifest_path(out_dir):
    out = Path(os.path.abspath(out_dir))
    return out.parent / f"{out.name}.manifest.json"


def check_out_dir(out_dir):
    out = Path(os.path.abspath(out_dir))
    forbidden = {Path("/"), Path.home().resolve(), Path.cwd().resolve()}
    if out.resolve() in forbidden or out.resolve() in HERE.parents or out.resolve() == HERE:
        raise SystemExit(f"refusing to use {out} as OUT_DIR")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", metavar="OUT_DIR", help="directory to create (removed first if it exists)")
    parser.add_argument("--manifest", metavar="FILE", help="manifest path (default: OUT_DIR/../<name>.manifest.json)")
    args = parser.parse_args(argv)

    started = time.monotonic()
    out_dir = check_out_dir(args.out_dir)
    manifest_path = Path(args.manifest) if args.manifest else default_manifest_path(out_dir)
    if out_dir.is_dir() and not out_dir.is_symlink():
        shutil.rmtree(out_dir)
    elif out_dir.exists() or out_dir.is_symlink():
        out_dir.unlink()

    history = load_history()
    builder = Builder(out_dir, history)
    builder.run()

    repo = builder.repo
    first_parent = repo.git("rev-list", "--first-parent", "--reverse", "HEAD").decode().split()
    recorded = [r["sha"] for r in builder.records]
    if first_parent != recorded:
        raise SystemExit("internal error: recorded changes do not match the first-parent history")

    manifest = {
        "repo": history["REPO"],
        "remote": history["REMOTE"],
        "branch": "main",
        "head": first_parent[-1],
        "generator": "scripts/make-sample-repo.py",
        "change_count": len(builder.records),
        "changes": builder.records,
    }
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    kinds = {}
    for r in builder.records:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    print(
        f"lumen sample repo: {out_dir} ({len(builder.records)} first-parent changes: {summary}; "
        f"HEAD {first_parent[-1][:12]}) manifest: {manifest_path} [{time.monotonic() - started:.1f}s]"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
