#!/usr/bin/env bash
# The main job on the bundled sample: generate the sample repository, run the
# main job over it (ingest into an embedded SQLite store, analyse, write the
# reading guides offline in Chinese and English), print the list, one guide and
# one day's digest, and export the static site.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/mergelens ] || scripts/build.sh release
python3 scripts/make-sample-repo.py build/sample --manifest build/sample.manifest.json
# The main job: ingest → (GitHub sync when a token is set) → analyse → write guides.
./build/mergelens run build/sample --db build/demo/mergelens.db --lang both
./build/mergelens list --db build/demo/mergelens.db
./build/mergelens show 1213 --db build/demo/mergelens.db
./build/mergelens digest --date 2026-09-10 --db build/demo/mergelens.db
./build/mergelens export --out build/demo/site --db build/demo/mergelens.db
echo "static site in build/demo/site/index.html; live pages: ./build/mergelens serve --db build/demo/mergelens.db"
