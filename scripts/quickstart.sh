#!/usr/bin/env bash
# capalab's main job on one machine, end to end: installs what is missing,
# builds (Release), starts a private PostgreSQL cluster in .capalab/pg (the
# embedded default; --db or CAPA_DB names another server instead), the
# coordinator, one worker per core, submits a small piece-value study
# (configs/quickstart-values.json: Archbishop vs Chancellor and friends,
# calibrated by pawn odds), shows its progress, prints the report with every
# value and its interval, and keeps the report pages up until Ctrl-C.
#
#   scripts/quickstart.sh [--db CONNINFO] [--study FILE.json] [--pairs N]
#                         [--workers N] [--no-serve]
#
#   --pairs N     pairs per imbalance (overrides the study file)
#   --no-serve    exit after the report instead of serving the pages
#
# Running it again reuses the build and the database; an unfinished study of
# an earlier run is continued rather than started again. Ctrl-C stops the
# workers, the coordinator and the private database cleanly.
#
# Environment: CAPA_BUILD_DIR (default build/release) uses an existing build
# folder, CAPA_STATE_DIR (default .capalab) holds the database, tokens, worker
# state and logs; CAPA_ZMQ_PORT / CAPA_HTTP_PORT are the first ports tried.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

db="${CAPA_DB:-}"
study="configs/quickstart-values.json"
pairs=""
workers=$(nproc)
serve=1
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db="$2"; shift 2 ;;
    --study) study="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --no-serve) serve=0; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "quickstart: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

state="${CAPA_STATE_DIR:-$root/.capalab}"
mkdir -p "$state/logs"
state=$(cd "$state" && pwd)
bin="${CAPA_BUILD_DIR:-$root/build/release}"
pids=()
own_pg=0

say() { printf '\033[1m== %s\033[0m\n' "$*"; }

cleanup() {
  trap - EXIT INT TERM
  if [ ${#pids[@]} -gt 0 ]; then
    say "stopping workers and coordinator"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for p in "${pids[@]}"; do
      for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$p" 2>/dev/null || true
    done
  fi
  if [ $own_pg -eq 1 ]; then
    say "stopping the private database (data kept in ${state#"$root"/}/pg)"
    scripts/pgtmp.sh stop "$state/pg" >/dev/null || true
  fi
}
trap cleanup EXIT
trap 'echo; exit 130' INT TERM

# A free TCP port on 127.0.0.1, starting from $1.
free_port() {
  local p=$1
  while ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
  echo "$p"
}

say "dependencies"
scripts/deps.sh

say "build (Release) in ${bin#"$root"/}"
[ -f "$bin/CMakeCache.txt" ] || cmake -S . -B "$bin" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$bin" -j "$(nproc)" --target capa-engine capa-coordinator capa-worker capa 2>&1 |
  grep -E '^\[ *[0-9]+%\] (Built|Linking)|error' || true
for p in capa-engine capa-coordinator capa-worker capa; do
  [ -x "$bin/$p" ] || { echo "quickstart: the build did not produce $p" >&2; exit 1; }
done
coord=("$bin/capa-coordinator" --sql-dir "$root/sql")

if [ -z "$db" ]; then
  say "database: private PostgreSQL cluster in ${state#"$root"/}/pg"
  db=$(scripts/pgtmp.sh start "$state/pg")
  own_pg=1
else
  say "database: $db"
fi
export CAPA_DB="$db"
"${coord[@]}" migrate

# One contributor for the local workers; its token is kept (0600) so a
# second run reuses it.
if [ ! -s "$state/token" ] || ! "${coord[@]}" contributor list | grep -q " quickstart-"; then
  name="quickstart-$(date +%s)"
  "${coord[@]}" contributor add "$name" | tail -n 1 >"$state/token.new"
  chmod 600 "$state/token.new"
  mv "$state/token.new" "$state/token"
fi

zmq_port=$(free_port "${CAPA_ZMQ_PORT:-5555}")
http_port=$(free_port "${CAPA_HTTP_PORT:-8080}")
say "coordinator on tcp://127.0.0.1:$zmq_port, pages on http://127.0.0.1:$http_port"
"${coord[@]}" --bind "tcp://127.0.0.1:$zmq_port" --http "127.0.0.1:$http_port" \
  --pgn-dir "$state/pgn" serve >>"$state/logs/coordinator.log" 2>&1 &
pids+=($!)
export CAPA_SERVER="http://127.0.0.1:$http_port"
for _ in $(seq 1 100); do
  "$bin/capa" runs >/dev/null 2>&1 && break
  kill -0 "${pids[0]}" 2>/dev/null || { tail -n 20 "$state/logs/coordinator.log" >&2; exit 1; }
  sleep 0.2
done

# Continue an unfinished study of an earlier run, or submit a new one.
run=""
if [ -s "$state/run" ] && "$bin/capa" show "$(cat "$state/run")" --json 2>/dev/null |
   grep -Eq '"status": *"(pending|running)"'; then
  run=$(cat "$state/run")
  say "continuing study $run"
else
  doc="$study"
  if [ -n "$pairs" ]; then
    doc="$state/study.json"
    sed -E "s/\"pairs_per_imbalance\": *[0-9]+/\"pairs_per_imbalance\": $pairs/; s/, *\"pairs\": *[0-9]+//" \
      "$study" >"$doc"
  fi
  run=$("${coord[@]}" run submit "$doc")
  echo "$run" >"$state/run"
  say "submitted study $run from $doc"
fi

say "starting $workers workers (one per core)"
for i in $(seq 1 "$workers"); do
  "$bin/capa-worker" --coordinator "tcp://127.0.0.1:$zmq_port" --token-file "$state/token" \
    --concurrency 1 --state-dir "$state/worker-$i" --name "quickstart-$i" \
    --http-base "$CAPA_SERVER" >>"$state/logs/worker-$i.log" 2>&1 &
  pids+=($!)
done

say "playing (logs in ${state#"$root"/}/logs; Ctrl-C stops everything)"
"$bin/capa" watch "$run"

say "report"
"$bin/capa" show "$run"
echo
echo "Report page: $CAPA_SERVER/runs/$run"
if [ $serve -eq 1 ]; then
  echo "Serving the pages until Ctrl-C."
  wait "${pids[0]}"
fi
