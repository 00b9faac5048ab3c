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

VERSION = re.compile(r"(?<![\w.])\[?v?(\d+\.\d+(?:\.\d+)*(?:(?:rc|a|b|\.post|\.dev|-rc)\d*)?)\b")
ISO_DATE = re.compile(r"(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})")
WORD_DATE = re.compile(r"\b([A-Z][a-z]{2,8})\.?\s+(\d{1,2}),?\s+(\d{4})\b")     # Jan 9, 2025
YEAR_WORD_DATE = re.compile(r"\b(\d{4})\s+([A-Z][a-z]{2,8})\.?\s+(\d{1,2})\b")  # 2025 Jul 9
DAY_WORD_DATE = re.compile(r"\b(\d{1,2})\s+([A-Z][a-z]{2,8})\.?,?\s+(\d{4})\b")  # 9 July 2025
MONTHS = {m: i + 1 for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split())}
MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
RST_DIRECTIVE = re.compile(r"^\.\. (?:dropdown|rubric|admonition|topic)::\s*(.*)$")
RST_UNDERLINE = re.compile(r"^([=\-~^*+#\"'`])\1{2,}\s*$")
# A PR of this repository: #N, a /pull/N link, :pr:`N` / :pull:`N` / {pr}`N`
# (Sphinx roles), gh-N (NumPy), "PR N" (mypy).
PR = re.compile(r"(?:/pull/|#|:pr:`|:pull:`|\{pr\}`|\bgh-|\bPR\s)(\d{2,6})\b")
OTHER_REPO = r"https?://github\.com/(?!{repo}/)[\w.\-]+/[\w.\-]+/(?:pull|issues)/\d+"
# Links to issues and issue roles name issues, not PRs, even when a bare #N is
# in the link text.
ISSUE_LINK = re.compile(r"\[[^\]]*\]\(https?://github\.com/[^)]*/issues/\d+\)|"
                        r"`[^`<]*<https?://github\.com/[^>]*/issues/\d+>`_+|:issue:`\d+`")


def _prs(line, other):
    if other is not None:
        line = other.sub("", line)
    return {int(n) for n in PR.findall(ISSUE_LINK.sub("", line))}


def heading_date(text):
    """The date a release heading names (ISO, "Jan 9, 2025", "2025 Jul 9",
    "9 July 2025"), or None."""
    m = ISO_DATE.search(text)
    try:
        if m:
            return dt.date(*map(int, m.groups()))
        for pat, order in ((WORD_DATE, "mdy"), (YEAR_WORD_DATE, "ymd"), (DAY_WORD_DATE, "dmy")):
            m = pat.search(text)
            if m:
                parts = dict(zip(order, m.groups()))
                month = MONTHS.get(parts["m"][:3].lower())
                if month:
                    return dt.date(int(parts["y"]), month, int(parts["d"]))
    except ValueError:
        return None
    return None


def _release(text):
    """(version, date) when a heading names a release (a version in a short
    heading that does not say it is unreleased), else None."""
    m = VERSION.search(text)
    if not m or len(text.split()) > 8 or re.search(r"unreleased|upcoming", text, re.I):
        return None
    return m.group(1), heading_date(text[:m.start()] + " " + text[m.end():])


def _parse(headings_and_lines, other):
    """Common walk: items are ("h", style, text) or ("l", line). The style of
    the first heading that names a release is the release level; every
    other heading is a section, named with the headings above it in the
    release ("new functions > new function x"), so a feature's own heading
    under "New functions" still counts as one."""
    releases, cur, stack, level = [], None, [], None
    for item in headings_and_lines:
        if item[0] == "h":
            _, style, text = item
            rel = _release(text) if level in (None, style) else None
            if rel:
                level = style
                cur = (rel[0], rel[1], {})
                releases.append(cur)
                stack = []
            elif level == style:  # a release-level heading without a version: not a release
                cur, stack = None, []
            else:
                name = text.strip().strip("*_`:").strip().lower()
                styles = [st for st, _ in stack]
                if style == "directive":  # ".. dropdown:: Additional changes": a top section
                    stack = []
                else:
                    stack = stack[:styles.index(style)] if style in styles else stack
                stack.append((style, name))
            continue
        if cur is not None:
            section = " > ".join(n for _, n in stack)
            for n in _prs(item[1], other):
                cur[2].setdefault(section, set()).add(n)
    return releases


def _other(repo):
    return re.compile(OTHER_REPO.format(repo=re.escape(repo)), re.I) if repo else None


def parse_markdown(text, repo=None):
    """[(version, date or None, {section: set(PR numbers)})], in file order."""
    items = []
    for line in text.splitlines():
        m = MD_HEADING.match(line)
        items.append(("h", len(m.group(1)), m.group(2)) if m else ("l", line))
    return _parse(items, _other(repo))


def parse_rst(text, repo=None):
    """As parse_markdown, for reStructuredText headings (a line underlined,
    and maybe overlined, with = - ~ ^ ...); a dropdown, rubric, admonition or
    topic directive at the left margin starts a section of its own."""
    lines = text.splitlines()
    items, i = [], 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        over = RST_UNDERLINE.match(line)
        if over and i + 2 < len(lines) and lines[i + 1].strip() and \
                RST_UNDERLINE.match(lines[i + 2]):  # overlined title
            items.append(("h", ("o", over.group(1)), lines[i + 1].strip()))
            i += 3
            continue
        under = RST_UNDERLINE.match(nxt)
        if line.strip() and not over and under and \
                len(nxt.rstrip()) >= len(line.rstrip()) - 2:
            items.append(("h", ("u", under.group(1)), line.strip()))
            i += 2
            continue
        m = RST_DIRECTIVE.match(line)
        if m:
            items.append(("h", "directive", m.group(1)))
        elif not over:
            items.append(("l", line))
        i += 1
    return _parse(items, _other(repo))


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


def tag_points(clone, branch="HEAD", versions=None):
    """{version: UTC seconds} for the clone's tags that name a version: the
    commit time of the tag's merge base with `branch` (where the release left
    the branch: a release cut from a maintenance branch takes the PRs merged
    on `branch` up to its branch point). A tag "v1.2.0", "1.2.0" or
    "name-1.2.0" names version 1.2.0; a plain one wins. With `versions`, only
    those."""
    out = subprocess.run(["git", "-C", clone, "for-each-ref", "refs/tags",
                          "--format=%(refname:short) %(*objectname) %(objectname)"],
                         capture_output=True, text=True, check=True).stdout
    best = {}
    for line in out.splitlines():
        name, *objs = line.split()
        m = re.search(r"(?:^|[-/_v])(\d+\.\d+(?:\.\d+)*(?:(?:rc|a|b|\.post|\.dev|-rc)\d*)?)$",
                      name)
        if not m or (versions is not None and m.group(1) not in versions):
            continue
        plain = name in (m.group(1), "v" + m.group(1))
        rank = 0 if plain else 1
        if m.group(1) not in best or rank < best[m.group(1)][0]:
            best[m.group(1)] = (rank, objs[0])
    points = {}
    for version, (_, commit) in best.items():
        base = subprocess.run(["git", "-C", clone, "merge-base", commit, branch],
                              capture_output=True, text=True).stdout.strip()
        if base:
            t = subprocess.run(["git", "-C", clone, "show", "-s", "--format=%ct", base],
                               capture_output=True, text=True).stdout.strip()
            if t:
                points[version] = int(t)
    return points


def pools(releases, points, highlight="highlight"):
    """Each release's pool: the PRs merged after the previous release's point
    and up to its own (the tag's merge base from `points`, else the end of
    the heading's date). [{version, lo, hi (UTC seconds), highlights, named}],
    oldest first; a release without a point, or with the point of an older
    one (a patch release cut from a maintenance branch), has no pool of its
    own and its PRs count in no pool."""
    dated = []
    for version, date, sections in releases:
        hi = points.get(version)
        if hi is None and date is not None:
            hi = int(dt.datetime(date.year, date.month, date.day, 23, 59, 59,
                                 tzinfo=dt.timezone.utc).timestamp())
        if hi is not None:
            top, named, _ = labels([(version, date, sections)], highlight)
            dated.append((hi, version, top, named))
    dated.sort(key=lambda r: r[0])
    out, prev = [], None
    for hi, version, top, named in dated:
        if prev is not None and hi > prev:
            out.append({"version": version, "lo": prev, "hi": hi,
                        "highlights": top, "named": named})
        prev = hi if prev is None else max(prev, hi)
    return out
