#!/bin/sh
# The release-notes figure of bench/README.md: the draft for vllm-ascend
# v0.23.0rc1 beside the notes the project published for it.
#   MERGELENS_VA_REPO=/work/.mirror/vllm-project+vllm-ascend/repo \
#   bench/release_notes.sh build/src/mergelens /tmp/va-copy.db
set -eu
BIN=${1:?usage: release_notes.sh BINARY STORE_COPY}
DB=${2:?usage: release_notes.sh BINARY STORE_COPY}
: "${MERGELENS_VA_REPO:?set MERGELENS_VA_REPO to a vllm-ascend clone}"
exec python3 "$(dirname "$0")/release_notes.py" --binary "$BIN" --db "$DB" \
  --repo "$MERGELENS_VA_REPO" --prev "${PREV:-v0.22.1rc1}" --release "${RELEASE:-v0.23.0rc1}"
