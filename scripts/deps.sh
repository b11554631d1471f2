#!/usr/bin/env bash
# Installs the Debian packages capalab needs to build, test and run, only those
# that are missing. Needs root (or sudo). Debian 12 (bookworm).
set -euo pipefail

# What it takes to build the four programs.
BUILD_PACKAGES=(
  build-essential cmake pkg-config
  libzmq3-dev libcjson-dev libcurl4-openssl-dev libmicrohttpd-dev libsodium-dev
  libpq-dev zlib1g-dev ca-certificates
)
# What the quickstart and the tests need beside that: a PostgreSQL server,
# clang with libFuzzer, Fairy-Stockfish as a reference oracle, Chromium for
# the page tests (tests/integration/test_http_browser.c), the tools the
# scripts call, and help2man (the worker package's manual page) and lintian
# (its check) for `cpack -G DEB` (packaging/package.cmake, tests/docker/test_deb.sh).
RUN_PACKAGES=(
  clang libclang-rt-14-dev postgresql postgresql-contrib
  python3 procps iproute2 curl fairy-stockfish chromium help2man lintian
)
# --build-only: just the build (the Docker image's build stage).
if [ "${1:-}" = "--build-only" ]; then
  PACKAGES=("${BUILD_PACKAGES[@]}")
else
  PACKAGES=("${BUILD_PACKAGES[@]}" "${RUN_PACKAGES[@]}")
fi
if [ "${CAPA_DEPS_EXTRA:-}" ]; then
  read -r -a extra <<<"$CAPA_DEPS_EXTRA"
  PACKAGES+=("${extra[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "capalab: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
