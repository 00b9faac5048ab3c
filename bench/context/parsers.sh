#!/usr/bin/env bash
# The context resolver's parser, measured: universal-ctags (what mergelens runs)
# against tree-sitter (libtree-sitter 0.20.7 from Debian with the Python grammar's
# C source fetched from npm at bench time and compiled here; never committed),
# both against CPython's own parser (ast) as the reference, on every Python file of
# a repository's tree.
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/context/parsers.sh [REV]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a clone}"
rev="${1:-HEAD}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
dpkg -s libtree-sitter-dev >/dev/null 2>&1 || apt-get install -y -qq libtree-sitter-dev >/dev/null
(cd "$work" && npm pack tree-sitter-python@0.20.4 --silent >/dev/null && tar xzf tree-sitter-python-0.20.4.tgz)
cc -O2 -I"$work/package/src" -o "$work/ts_defs" "$here/ts_defs.c" "$work/package/src/parser.c" \
  "$work/package/src/scanner.c" -ltree-sitter
mkdir -p "$work/tree"
git -C "$repo" archive "$rev" | tar -x -C "$work/tree"
(cd "$work/tree" && find . -name '*.py' -type f | sed 's|^\./||' | sort) > "$work/files"
echo "files: $(wc -l < "$work/files"), $(cd "$work/tree" && cat $(cat "$work/files") | wc -c) bytes at $rev"
cd "$work/tree"
/usr/bin/time -f "ast: %e s wall, %M KB peak" python3 "$here/ast_defs.py" < "$work/files" > "$work/ast.tsv"
for i in 1 2 3; do
  /usr/bin/time -f "ctags run $i: %e s wall, %U s user, %M KB peak" \
    python3 "$here/ctags_defs.py" "$(command -v ctags-universal || command -v ctags)" < "$work/files" > "$work/ctags.tsv"
  /usr/bin/time -f "tree-sitter run $i: %e s wall, %U s user, %M KB peak" "$work/ts_defs" < "$work/files" > "$work/ts.tsv"
done
python3 "$here/compare.py" "$work/ast.tsv" ctags="$work/ctags.tsv" tree-sitter="$work/ts.tsv"
