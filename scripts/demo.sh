#!/usr/bin/env bash
# The main job on the bundled sample: generate the sample repository, run the
# main job over it (ingest into an embedded SQLite store, analyse, write the
# reading guides offline in Chinese and English, export the static site),
# print the list, one guide and one day's digest, then serve the pages and
# print the digest's URL (Ctrl-C stops; MERGELENS_DEMO_PORT picks the port,
# default 8080, 0 for any free one).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/mergelens ] || scripts/build.sh release
python3 scripts/make-sample-repo.py build/sample --manifest build/sample.manifest.json
db=build/demo/mergelens.db
# The main job: ingest → (GitHub sync when a token is set) → analyse → write → export.
./build/mergelens run build/sample --db "$db" --lang both --export build/demo/site
./build/mergelens list --db "$db"
./build/mergelens show 1213 --db "$db"
./build/mergelens digest --date 2026-09-10 --db "$db"
echo "static site in build/demo/site/index.html"
# Again, incrementally (nothing new to do), and serve the digest until Ctrl-C.
exec ./build/mergelens run build/sample --db "$db" --lang both --serve \
  --port "${MERGELENS_DEMO_PORT:-8080}"
