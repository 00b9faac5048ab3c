#!/usr/bin/env bash
# The main job on the bundled sample: generate the sample repository, ingest it
# into an embedded SQLite store, analyse it, write the reading guides (offline,
# Chinese and English), and print the list and one guide.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/mergelens ] || scripts/build.sh release
python3 scripts/make-sample-repo.py build/sample --manifest build/sample.manifest.json
./build/mergelens ingest build/sample --db build/demo/mergelens.db
./build/mergelens analyze --db build/demo/mergelens.db
./build/mergelens write --db build/demo/mergelens.db --lang both
./build/mergelens list --db build/demo/mergelens.db
./build/mergelens show 1213 --db build/demo/mergelens.db
./build/mergelens digest --date 2026-09-10 --db build/demo/mergelens.db
./build/mergelens export --out build/demo/site --db build/demo/mergelens.db
echo "static site in build/demo/site/index.html; live pages: ./build/mergelens serve --db build/demo/mergelens.db"
