#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds with warnings as
# errors and runs every ctest test (unit, perft, integration with a real
# PostgreSQL started by the tests, fault); then the unit tests again under
# ASan+UBSan, and each fuzz target for a fixed budget under ASan+UBSan (that
# build is clang's, warnings as errors too, so gcc and clang both judge the
# whole tree).
#
#   scripts/test.sh            everything (CI runs exactly this)
#   scripts/test.sh --fast     only the main build's tests
# Last, the Docker tests (label docker: base images made locally, the project
# image, a compose cluster with failures injected, the worker .deb installed in
# a clean container, the Swarm stack); they skip themselves when
# no Docker daemon answers. Deep perft rows and the 10+0.1 UCI matches are
# label slow only: ctest --test-dir build/test -L slow -LE docker.
#   CAPA_FUZZ_SECONDS=N        budget per fuzz target (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."

fast=0
case "${1:-}" in
  "") ;;
  --fast) fast=1 ;;
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  *) echo "scripts/test.sh: unknown argument \"$1\" (try --help)" >&2; exit 2 ;;
esac
jobs=$(nproc)

step() { printf '\n== %s\n' "$*"; }

step "dependencies"
scripts/deps.sh

step "build (Release, warnings are errors)"
cmake -S . -B build/test -DCMAKE_BUILD_TYPE=Release -DCAPA_WERROR=ON >/dev/null
cmake --build build/test -j "$jobs"

step "tests"
ctest --test-dir build/test --output-on-failure -j "$jobs" -LE slow

[ $fast -eq 1 ] && exit 0

step "unit tests under ASan+UBSan"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAPA_WERROR=ON \
      -DCAPA_SANITIZE=address,undefined >/dev/null
cmake --build build/asan -j "$jobs"
ctest --test-dir build/asan --output-on-failure -j "$jobs" -L unit

if ls fuzz/fuzz_*.c >/dev/null 2>&1; then
  step "fuzz targets under ASan+UBSan (${CAPA_FUZZ_SECONDS:-60} s each)"
  CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAPA_FUZZ=ON -DCAPA_WERROR=ON \
        -DCAPA_SANITIZE=address,undefined -DCAPA_FUZZ_SECONDS="${CAPA_FUZZ_SECONDS:-60}" >/dev/null
  cmake --build build/fuzz -j "$jobs"
  ctest --test-dir build/fuzz --output-on-failure -j "$jobs" -L fuzz
fi

step "Docker: base images, project image, compose cluster, worker package, Swarm stack"
ctest --test-dir build/test --output-on-failure -L docker
