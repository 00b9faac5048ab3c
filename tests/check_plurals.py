"""Plurals in English by one function (util/strings.h: plural): finds the
English text templates of what readers see (pages, feeds, the API, MCP
results, deliveries, the analysis's reasons) that put a number before a
plural noun themselves ("{} lines", "{} PR{}"), which reads "1 lines" when
the number is 1. Such a count goes through plural(n, "line").

Reads the string literals of the folders below and fails naming file, line
and literal. Usage: check_plurals.py SOURCE_DIR. Templates still written by
hand are listed in KNOWN with the reason they are left (each is a defect
still to fix: the list only shrinks)."""
import os
import re
import sys

FOLDERS = ["src/mergelens/web", "src/mergelens/report", "src/mergelens/deliver",
           "src/mergelens/mcp", "src/mergelens/analysis/judgment", "src/mergelens/guide"]
NOUNS = (r"lines|files|regions|PRs|changes|places|weeks|days|modules|tags|matches|results|"
         r"items|entries|reads|comments|reviews|commits|authors|terms|hunks|functions|tests|"
         r"definitions|calls|parts|repositories")
# "{} lines", "{} more files", "{}{} lines": a placeholder, then the plural noun.
COUNTED = re.compile(r"\{[^{}]*\}\s*(?:more\s+|new\s+)?(?:" + NOUNS + r")\b")
# "{} PR{}" / "change{}": a hand-made plural suffix.
SUFFIX = re.compile(r"\b(?:PR|change|file|line|day|week|region|tag)\{\}")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
# file -> literals left as they are, and why.
KNOWN = {
    # The offline writer's phrase tables: each template is shared with its
    # zh twin and filled at the call site; the counts there are 2 or more
    # except for files and lines, still to fix with the offline writer.
    "src/mergelens/guide/phrases.cc": None,
    # Model prompts: read by a model, not by a reader.
    "src/mergelens/guide/prompt_excerpt.cc": None,
    "src/mergelens/guide/prompt_facts.cc": None,
    "src/mergelens/guide/prompt.cc": None,
    "src/mergelens/guide/triage.cc": None,
    # Counts of 2 or more only (the file count is checked above the format).
    "src/mergelens/analysis/judgment/tags.cc": {'{} files, {}% of changed lines (largest {})'},
    "src/mergelens/analysis/judgment/insight.cc": {'{} ({} places)'},
    # Features that count only from a threshold of 2 or more (score_weights.h:
    # kReachSome, kModulesBroad, kCapabilityDefs).
    "src/mergelens/analysis/judgment/importance.cc": {
        "{} modules import the touched code", "{} modules touched",
        "adds a capability ({} new definitions)"},
    # The search parser's limit (a constant, 12).
    "src/mergelens/web/search.cc": {"at most {} terms"},
    # report/notes*.cc belongs to the release-notes rewrite (issue 32).
    "src/mergelens/report/notes_render.cc": None,
    # The offline writer's notices on truncated diffs (files is never 1 there).
    "src/mergelens/guide/offline.cc": None,
}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems, checked = [], 0
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith((".cc", ".h", ".mustache")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                known = KNOWN.get(rel, set())
                if known is None:
                    continue
                checked += 1
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        if line.lstrip().startswith("//"):
                            continue
                        for lit in LITERAL.findall(line):
                            if lit in known:
                                continue
                            if COUNTED.search(lit) or SUFFIX.search(lit):
                                problems.append(f"{rel}:{n}: \"{lit}\": use plural() for the count")
    for p in problems:
        print(p)
    print(f"{checked} files checked, {len(problems)} English template(s) with a hand-made plural")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
