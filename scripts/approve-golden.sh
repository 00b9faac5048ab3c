#!/usr/bin/env bash
# Re-approves the golden offline guides: renders every sample change's guide
# (zh and en) with the current build and writes them to tests/golden/guides/.
# Review `git diff tests/golden` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/mergelens ] || scripts/build.sh release
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$PWD" "$work" <<'PY'
import os, shutil, sys
src, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests", "e2e"))
sys.argv = ["approve", "--binary", os.path.join(src, "build", "mergelens"), "--source-dir", src,
            "--work-dir", work]
import common, golden_guides
rendered = golden_guides.render(common.parse_args())
out = os.path.join(src, "tests", "golden", "guides")
shutil.rmtree(out, ignore_errors=True)
for name, text in rendered.items():
    os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)
print(f"approved {len(rendered)} guides in tests/golden/guides")
PY
