# Sourced by the bench scripts (from the project root): resolves the binary
# to measure. MERGELENS_BIN names a prebuilt one, which must exist; without
# it, build/mergelens is used and built first when missing.
mergelens_bin() {
  local bin="${MERGELENS_BIN:-build/mergelens}"
  if [ ! -x "$bin" ]; then
    [ -z "${MERGELENS_BIN:-}" ] || { echo "MERGELENS_BIN=$bin is not executable" >&2; exit 2; }
    scripts/build.sh release >/dev/null
  fi
  echo "$bin"
}
