#!/usr/bin/env bash
# Installs everything mergelens needs to build and test on Debian 12.
# Uses sudo when not run as root. Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3 time bc util-linux
  libgit2-dev libsqlite3-dev sqlite3 libzstd-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libre2-dev libyaml-cpp-dev libtomlplusplus-dev
  # analysis context: definitions at the parent revision (run as a program).
  universal-ctags
  libgtest-dev libgmock-dev libbenchmark-dev libcurl4-openssl-dev libcpp-httplib-dev libh2o-evloop-dev
  # deliver/: webhook signatures (OpenSSL HMAC); the e-mail test's local SMTP server.
  libssl-dev python3-aiosmtpd
  clang-format clang-16 libclang-rt-16-dev
  # web/: templates, gzip, Atom checks in tests; the browser test; bench/serve.
  libkainjow-mustache-dev zlib1g-dev libexpat1-dev
  chromium chromium-driver fonts-wqy-zenhei
  # e2e web_checks: the Nu HTML Checker's JVM, feed parsing; node for tests/npm (npm below).
  default-jre-headless python3-feedparser nodejs
  wrk nginx
  # store/: the PostgreSQL backend (libpq) and the throwaway test cluster.
  libpq-dev postgresql-15 postgresql-client-15
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Test tooling from npm, at the versions tests/npm/package-lock.json pins: axe-core,
# puppeteer-core (no browser download: it drives Debian's chromium), vnu-jar (its jar; Java
# from Debian), the MCP TypeScript SDK (its client drives
# `mergelens mcp`), an OpenAPI 3.1 validator and ajv. No install scripts: none of them needs
# one here. Debian's nodejs comes without npm (a node from NodeSource brings its own).
if ! command -v npm >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm
fi
(cd "$(dirname "$0")/../tests/npm" &&
  PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
