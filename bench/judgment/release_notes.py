"""A project's in-tree release notes as labels of importance (issue 21): which
PRs each release names, by section.

Two formats, chosen by the file's extension:

- Markdown (vllm-ascend's `docs/source/user_guide/release_notes.md`): a
  release is a `## <version> [- YYYY.MM.DD]` heading, a section a `### ...`
  heading.
- reStructuredText (scikit-image's `doc/source/release_notes/release_0.N.rst`,
  one file per minor version): a heading is a line underlined with `=`, `-`,
  `~` or `^`; a heading holding a version and a `(YYYY-MM-DD)` date starts a
  release, any other heading a section.

`notes` is one file or a directory (every .md/.rst file in it, at the branch
tip of the clone). A PR is named as `#N` or as a link to `/pull/N` of this
repository; links to other repositories' PRs and issues (upstream vLLM, specs)
are not this repository's PRs and are skipped when the repository is given.
A section counts as highlights when its name matches `highlight` (a regular
expression, case-insensitive; "highlight" by default).

Python 3 standard library only.
"""

import datetime as dt
import re
import subprocess

MD_RELEASE = re.compile(
    r"^##\s+(v?[\w.\-]+)\s*(?:[-–]\s*(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2}))?")
MD_SECTION = re.compile(r"^###\s+(.*)$")
RST_RELEASE = re.compile(r"(v?\d+\.\d+[\w.\-]*)\s*\((\d{4})-(\d{1,2})-(\d{1,2})\)")
RST_UNDERLINE = re.compile(r"^([=\-~^])\1{2,}\s*$")
PR = re.compile(r"(?:/pull/|#)(\d{2,6})\b")
OTHER_REPO = r"https?://github\.com/(?!{repo}/)[\w.\-]+/[\w.\-]+/(?:pull|issues)/\d+"


def _prs(line, other):
    if other is not None:
        line = other.sub("", line)
    return {int(n) for n in PR.findall(line)}


def parse_markdown(text, repo=None):
    """[(version, date or None, {section: set(PR numbers)})], in file order."""
    other = re.compile(OTHER_REPO.format(repo=re.escape(repo)), re.I) if repo else None
    releases, cur, section = [], None, ""
    for line in text.splitlines():
        m = MD_RELEASE.match(line)
        if m:
            date = dt.date(*map(int, m.group(2, 3, 4))) if m.group(2) else None
            cur = (m.group(1), date, {})
            releases.append(cur)
            section = ""
            continue
        m = MD_SECTION.match(line)
        if m:
            section = m.group(1).strip().lower()
            continue
        if cur is not None:
            for n in _prs(line, other):
                cur[2].setdefault(section, set()).add(n)
    return releases


def parse_rst(text, repo=None):
    """As parse_markdown, for reStructuredText headings (see the module doc)."""
    other = re.compile(OTHER_REPO.format(repo=re.escape(repo)), re.I) if repo else None
    lines = text.splitlines()
    releases, cur, section = [], None, ""
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        underlined = RST_UNDERLINE.match(nxt) and len(nxt.rstrip()) >= len(line.rstrip()) - 2
        if line.strip() and underlined:
            m = RST_RELEASE.search(line)
            if m:
                cur = (m.group(1), dt.date(*map(int, m.group(2, 3, 4))), {})
                releases.append(cur)
                section = ""
            else:
                section = line.strip().lower()
            continue
        if RST_UNDERLINE.match(line) or cur is None:
            continue
        for n in _prs(line, other):
            cur[2].setdefault(section, set()).add(n)
    return releases


def read(clone, branch, notes, repo=None):
    """The releases of `notes` (a file or a directory) at `branch` of `clone`.
    Raises subprocess.CalledProcessError when the path is not there."""
    def show(path):
        return subprocess.run(["git", "-C", clone, "show", f"{branch}:{path}"],
                              capture_output=True, text=True, check=True).stdout

    listing = subprocess.run(["git", "-C", clone, "ls-tree", "--name-only", f"{branch}:{notes}"],
                             capture_output=True, text=True)
    is_dir = listing.returncode == 0 and not notes.endswith((".md", ".rst"))
    paths = ([f"{notes.rstrip('/')}/{p}" for p in listing.stdout.split()
              if p.endswith((".md", ".rst"))] if is_dir else [notes])
    releases = []
    for path in paths:
        parse = parse_rst if path.endswith(".rst") else parse_markdown
        releases += parse(show(path), repo)
    return releases


def labels(releases, highlight="highlight"):
    """(PRs in sections matching `highlight`, PRs named anywhere, (first, last
    release date) or None when no release is dated)."""
    pat = re.compile(highlight, re.I)
    top, named = set(), set()
    for _, _, sections in releases:
        for name, prs in sections.items():
            named |= prs
            if pat.search(name):
                top |= prs
    dates = [d for _, d, _ in releases if d]
    return top, named, (min(dates), max(dates)) if dates else None
