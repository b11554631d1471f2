#!/usr/bin/env bash
# The README's first command, shrunk: scripts/quickstart.sh with 2 pairs per
# imbalance, on the test build and a private state folder (its own
# PostgreSQL cluster: the embedded default), must build nothing new, play the
# study to the end, print the report and the page address, and stop cleanly.
# Then a second run reuses the database and the token and plays a new study.
set -euo pipefail
src=$1
build=$2
state="$build/quickstart-state"
rm -rf "$state"
export CAPA_BUILD_DIR="$build" CAPA_STATE_DIR="$state"
export CAPA_ZMQ_PORT=${CAPA_ZMQ_PORT:-25555} CAPA_HTTP_PORT=${CAPA_HTTP_PORT:-28080}

run() {
  local out=$1
  timeout 600 "$src/scripts/quickstart.sh" --pairs 2 --no-serve >"$out" 2>&1 || {
    echo "quickstart failed ($?):"; tail -n 40 "$out"; tail -n 20 "$state"/logs/*.log; exit 1; }
}
fail() { echo "FAIL: $*"; exit 1; }

run "$state.out1"
cat "$state.out1"
grep -q 'submitted study 1' "$state.out1" || fail "no study submitted"
grep -Eq 'run 1 finished .*100\.0% 20/20 pairs' "$state.out1" || fail "the study did not finish its 20 pairs"
grep -q 'imbalances (side under test)' "$state.out1" || fail "no imbalance table in the report"
grep -q 'pawn odds' "$state.out1" || fail "no pawn odds line in the report"
grep -q 'Report page: http://127.0.0.1:[0-9]*/runs/1' "$state.out1" || fail "no report page address"
grep -q 'stopping the private database' "$state.out1" || fail "the database was not stopped"
[ "$("$src/scripts/pgtmp.sh" status "$state/pg" || true)" = stopped ] || fail "PostgreSQL still running"
token1=$(cat "$state/token")

run "$state.out2"
grep -q '0 migrations applied' "$state.out2" || fail "the second run did not reuse the database"
grep -q 'submitted study 2' "$state.out2" || fail "the second run did not submit a new study"
[ "$(cat "$state/token")" = "$token1" ] || fail "the second run made a new token"
echo "quickstart: two runs, 40 pairs, database and token reused"
"$src/scripts/pgtmp.sh" destroy "$state/pg" >/dev/null
