"""The analysis rooms' one-way rule (src/mergelens/analysis/CMakeLists.txt):
judgment/ may use code/ and text/; code/ may use text/ but never judgment/;
text/ uses neither; the top level (facts, facts_json, repo_config, glob) uses
no room, except analyzer, which runs them all.

Reads every source file under src/mergelens/analysis/ and fails, naming the
file, the line and the rule, when an #include breaks the rule. Usage:
check_layers.py SOURCE_DIR"""
import os
import re
import sys

ANALYSIS = "src/mergelens/analysis"
# room -> rooms it may include (the top level, "", is open to all)
ALLOWED = {
    "": {""},
    "code": {"", "code", "text"},
    "text": {"", "text"},
    "judgment": {"", "code", "text", "judgment"},
}
# top-level files that tie the rooms together and so may include any room
TIES = {"analyzer.h", "analyzer.cc"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"mergelens/analysis/(?:(\w+)/)?[\w.]+"')


def room_of(rel):
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 else ""


def main():
    root = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", ANALYSIS)
    problems, checked = [], 0
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".h", ".cc", ".inc")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            room = room_of(rel)
            if room not in ALLOWED:
                problems.append(f"{rel}: in no known room (add it to ALLOWED)")
                continue
            allowed = set(ALLOWED) if rel in TIES else ALLOWED[room]
            checked += 1
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1) or ""
                    if target not in allowed:
                        problems.append(f"{rel}:{n}: analysis/{room or '(top)'} includes "
                                        f"analysis/{target or '(top)'}: {line.strip()}")
    for p in problems:
        print(p)
    if checked == 0:
        print(f"no source files under {root}")
        return 1
    print(f"{checked} files checked, {len(problems)} include(s) against the one-way rule")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
