#!/usr/bin/env bash
# The cluster test (ctest docker_cluster, labels docker;slow): capalab as
# docker/compose.yaml runs it, built from the last commit, through failures.
#
#   1. base images (docker/base-images.sh, cached) and the project image from
#      docker/Dockerfile (git archive of the commit; lib.sh)
#   2. secrets by docker/make-secrets.sh; `compose up --scale worker=3`
#      (PostgreSQL, the coordinator, three workers; short heartbeats)
#   3. a small values study submitted over HTTP (`capa submit` in the
#      coordinator container, with the admin token secret)
#   4. on the way: `docker kill` of one worker and its restart, a restart of
#      the coordinator container, one worker cut off the network
#      (`docker network disconnect`) for longer than the liveness window and
#      reconnected
#   5. at the end: every planned pair stored exactly once, the run's counters
#      equal a recount, the report served over HTTP (JSON and page) on the
#      published loopback port, clean stops
#
# Figures: image sizes, cluster start to first stored pair, games per minute
# with three workers, the whole test's time. Everything the test makes
# (compose project: containers, network, volumes; its images; its folder) is
# removed at the end, also on failure or timeout; base images and the
# package-stage caches stay. Exits 77 (skipped) when no Docker daemon answers.
#
# Environment: CAPA_SOURCE_DIR, CAPA_DOCKER_CONTEXT, CAPA_DOCKER_REF,
# CAPA_DOCKER_NETWORK, CAPA_BASE_IMAGE, CAPA_POSTGRES_IMAGE (see lib.sh);
# CAPA_CLUSTER_TIMEOUT (seconds, default 1800: the whole test is killed
# after that, teardown included), CAPA_CLUSTER_PAIRS (pairs per imbalance,
# default 30; three imbalances), CAPA_CLUSTER_NODES (nodes per move, 12000;
# the run must outlast the failures below, each of which is checked to hit
# it mid-run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${CAPA_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
limit=${CAPA_CLUSTER_TIMEOUT:-1800}

# A hard bound on the time: run under timeout(1), which sends TERM (the trap
# tears down) and KILL 60 s later.
if [ -z "${CAPA_CLUSTER_TIMED:-}" ]; then
  export CAPA_CLUSTER_TIMED=1
  exec timeout --kill-after=60 "$limit" bash "${BASH_SOURCE[0]}" "$@"
fi

# shellcheck source=tests/docker/lib.sh
. "$here/lib.sh"
pairs_per=${CAPA_CLUSTER_PAIRS:-30}
nodes=${CAPA_CLUSTER_NODES:-12000}
project=capalab-test-$run_id
t_test=$(date +%s)
compose=()
snap=""

# `docker compose` (v2) or `docker-compose` (v1.29+).
s_find_compose() {
  if docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
  elif command -v docker-compose >/dev/null 2>&1 && docker-compose version >/dev/null 2>&1; then
    compose=(docker-compose)
  else
    echo "SKIP: neither docker compose nor docker-compose is installed"
    exit $SKIP
  fi
}

s_compose() {
  "${compose[@]}" -p "$project" -f "$snap/docker/compose.yaml" -f "$work/test.yaml" "$@"
}

# Containers, networks and volumes of a compose project $1.
s_project_down() {
  local p=$1 ids
  ids=$(docker ps -aq --filter "label=com.docker.compose.project=$p" 2>/dev/null || true)
  [ -z "$ids" ] || docker rm -f -v $ids >/dev/null 2>&1 || true
  ids=$(docker network ls -q --filter "label=com.docker.compose.project=$p" 2>/dev/null || true)
  [ -z "$ids" ] || docker network rm $ids >/dev/null 2>&1 || true
  ids=$(docker volume ls -q --filter "label=com.docker.compose.project=$p" 2>/dev/null || true)
  [ -z "$ids" ] || docker volume rm -f $ids >/dev/null 2>&1 || true
}

s_cluster_teardown() {
  set +e
  if [ ${#compose[@]} -gt 0 ] && [ -n "$snap" ] && [ -f "$work/test.yaml" ]; then
    s_compose down -v --remove-orphans --timeout 10 >/dev/null 2>&1
  fi
  s_project_down "$project"
  s_teardown
  s_say "figure: whole test $(( $(date +%s) - t_test )) s"
}

# Compose projects of earlier runs whose pid is gone.
s_sweep_projects() {
  local p pid
  docker ps -a --filter label=com.docker.compose.project --format '{{.Label "com.docker.compose.project"}}' 2>/dev/null |
    sort -u | grep '^capalab-test-[0-9]*$' | while read -r p; do
      pid=${p##*-}
      kill -0 "$pid" 2>/dev/null || s_project_down "$p"
    done || true
}

s_sql() {
  docker exec "$db" psql -U capalab -d capalab -tA -c "$1" 2>&1
}

# The run's status (pending/running/finished/...), "" if unreadable.
s_status() { s_sql "SELECT status FROM runs WHERE id = $run" 2>/dev/null || true; }
s_pairs() { s_sql "SELECT count(*) FROM pairs WHERE run_id = $run" 2>/dev/null || echo 0; }

# Waits until at least $1 pairs are stored or the run ended; at most $2 s.
s_wait_pairs() {
  local want=$1 max=$2 i n
  for ((i = 0; i < max; i++)); do
    n=$(s_pairs)
    [[ $n =~ ^[0-9]+$ ]] || n=0
    [ "$n" -ge "$want" ] && return 0
    case "$(s_status)" in finished|stopped|failed) return 0 ;; esac
    sleep 1
  done
  return 1
}

# Stores the container id of each service: db, coord, workers[].
s_containers() {
  db=$(s_compose ps -q db)
  coord=$(s_compose ps -q coordinator)
  mapfile -t workers < <(s_compose ps -q worker | sort)
}

s_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

s_docker_or_skip
s_find_compose
command -v curl >/dev/null 2>&1 || { echo "SKIP: curl is not installed"; exit $SKIP; }
trap s_cluster_teardown EXIT
trap 'echo "FAIL: interrupted or out of time (${limit} s)"; exit 124' TERM INT
s_sweep_stale
s_sweep_projects
work=$(mktemp -d)
chmod 0755 "$work"

# ------------------------------------------------------------- 1. images
t0=$(date +%s)
"$src/docker/base-images.sh" all || s_die "docker/base-images.sh failed"
s_say "figure: base images ready in $(( $(date +%s) - t0 )) s"
image=capalab-test/capalab:$run_id
s_build_project "$image" "capalab-test/capalab-build:$run_id"
size=$(s_mb "$image")
s_say "figure: runtime image $size MB, $postgres_image $(s_mb "$postgres_image") MB, $base_image $(s_mb "$base_image") MB"
s_check "the runtime image stays under 150 MB ($size MB)" awk -v s="$size" 'BEGIN { exit !(s < 150) }'

# The compose file and the secrets maker of the same snapshot.
snap=$work/snap
mkdir -p "$snap"
if [ -n "$commit" ]; then
  tar -xf "$work/context.tar" -C "$snap" docker/compose.yaml docker/make-secrets.sh ||
    s_die "commit $commit has no docker/compose.yaml or docker/make-secrets.sh"
else
  mkdir -p "$snap/docker"
  cp "$src/docker/compose.yaml" "$src/docker/make-secrets.sh" "$snap/docker/"
fi

# ------------------------------------------------------------- 2. secrets, up
bash "$snap/docker/make-secrets.sh" "$work/secrets" >/dev/null
s_check "make-secrets writes a worker token, an admin token and a password (mode 0700 folder)" \
  bash -c "[ \$(stat -c %a '$work/secrets') = 700 ] && grep -qxE 'capa_[A-Za-z0-9_-]{43}' '$work/secrets/worker_token' &&
           grep -qxE 'capa_[A-Za-z0-9_-]{43}' '$work/secrets/admin_token' && grep -qxE '[A-Za-z0-9]+' '$work/secrets/db_password'"
before=$(cat "$work/secrets/worker_token")
bash "$snap/docker/make-secrets.sh" "$work/secrets" >/dev/null
s_check "a second make-secrets run keeps the existing secrets" [ "$(cat "$work/secrets/worker_token")" = "$before" ]

http_port=$(s_free_port)
zmq_port=$(s_free_port)
export CAPA_IMAGE=$image CAPA_POSTGRES_IMAGE=$postgres_image CAPA_SECRETS_DIR=$work/secrets
export CAPA_HTTP_PORT=$http_port CAPA_ZMQ_PORT=$zmq_port CAPA_PUBLISH_ADDR=127.0.0.1
# Short heartbeats: a worker is dead after 4 x 500 ms.
export CAPA_HEARTBEAT_MS=500 CAPA_LIVENESS=4 CAPA_WORKER_GRACE_SECONDS=5 CAPA_WORKER_STOP_GRACE=20s
# Small tasks and prompt results, so that the work spreads over the workers
# and the failures below hit leases in flight. The lease keeps its default
# (3600 s): a killed and restarted worker's leases come back through its
# HELLO, not through the lease running out.
cat >"$work/test.yaml" <<YAML
services:
  coordinator:
    environment:
      CAPA_TASK_SECONDS: "4"
  worker:
    environment:
      CAPA_BATCH_PAIRS: "1"
      CAPA_BATCH_SECONDS: "2"
YAML
s_check "the compose file is valid" bash -c "$(printf '%q ' "${compose[@]}") -p $project -f $snap/docker/compose.yaml -f $work/test.yaml config -q"

t_up=$(date +%s)
if ! s_compose up -d --scale worker=3 >"$work/up.log" 2>&1; then
  cat "$work/up.log"
  s_compose logs --tail 30 2>&1 || true
  s_die "compose up failed"
fi
s_containers
s_say "figure: compose up (database and coordinator healthy, 3 workers started) in $(( $(date +%s) - t_up )) s"
s_require "compose runs one database, one coordinator and three workers" \
  [ -n "$db" -a -n "$coord" -a ${#workers[@]} -eq 3 ] || exit 1
s_check "the coordinator registered the bootstrap contributor from the secret (hash only)" \
  [ "$(s_sql "SELECT count(*) FROM contributors WHERE name = 'cluster' AND token_hash <> '$(cat "$work/secrets/worker_token")'")" = 1 ]

# ------------------------------------------------------------- 3. submit
planned=$((3 * pairs_per))
cat >"$work/study.json" <<JSON
{"kind": "values", "name": "docker-cluster-study", "variant": "caparandom",
 "positions": {"source": "crc"}, "game": {"nodes": $nodes, "max_plies": 200}, "params": {},
 "pairs_per_imbalance": $pairs_per,
 "imbalances": [{"name": "A vs C", "side": "A", "other": "C"},
                {"name": "C vs Q", "side": "C", "other": "Q"},
                {"name": "pawn odds", "side": "", "other": "P"}]}
JSON
out=$(docker exec -i "$coord" bash -c \
      'capa --server http://127.0.0.1:8080 --token "$(cat /run/secrets/admin_token)" submit /dev/stdin' \
      <"$work/study.json" 2>&1) || true
run=$(grep -oE '[0-9]+' <<<"$out" | head -n 1 || true)
s_require "capa submit in the coordinator container takes the study over HTTP (got: $out)" \
  [ -n "$run" ] || exit 1
s_check "a submit without the admin token is refused" \
  bash -c "! docker exec -i $coord capa --server http://127.0.0.1:8080 submit /dev/stdin <'$work/study.json' >/dev/null 2>&1"
s_check "the run plans $planned pairs" [ "$(s_sql "SELECT pairs_planned FROM runs WHERE id = $run")" = "$planned" ]

if s_wait_pairs 1 180; then
  t_first=$(date +%s)
  s_say "figure: cluster start (compose up) to the first stored pair: $((t_first - t_up)) s"
else
  s_compose logs --tail 20 2>&1 || true
  s_die "no pair stored within 180 s"
fi

# ------------------------------------------------------------- 4. failures
# "mid-run" when the run is running and at most 3/4 of its pairs are stored.
mid() {
  local n
  n=$(s_pairs)
  case "$(s_status)" in
    running|pending) if [ "$n" -le $((planned * 3 / 4)) ]; then echo mid-run; else echo "near the end ($n pairs stored)"; fi ;;
    *) echo "after the run ended" ;;
  esac
}
# Each failure must hit the run while it has work left.
s_mid_check() { s_check "$1 happens mid-run ($2)" [ "$2" = mid-run ]; }

# (a) a worker killed outright and started again (its container, with its
# spool and worker id, survives).
s_wait_pairs 2 120 || true
w=${workers[0]}
when=$(mid)
docker kill "$w" >/dev/null
sleep 3
docker start "$w" >/dev/null
s_say "event: docker kill + start of worker ${w:0:12} ($when, $(s_pairs) pairs stored)"
s_mid_check "the worker's kill" "$when"
s_check "the killed worker runs again" [ "$(docker inspect -f '{{ .State.Running }}' "$w")" = true ]

# (b) the coordinator's container restarted (SIGTERM, then a new start).
s_wait_pairs $((planned / 5)) 120 || true
when=$(mid)
t0=$(date +%s)
docker stop -t 20 "$coord" >/dev/null
s_check "the coordinator stops cleanly on SIGTERM (exit code $(docker inspect -f '{{ .State.ExitCode }}' "$coord"))" \
  [ "$(docker inspect -f '{{ .State.ExitCode }}' "$coord")" = 0 ]
docker start "$coord" >/dev/null
s_check "the coordinator turns healthy again after its restart" s_wait_health "$coord" healthy 120
s_say "event: coordinator container stopped and started ($when) in $(( $(date +%s) - t0 )) s"
s_mid_check "the coordinator's restart" "$when"

# (c) a worker cut off the network for 5 x the liveness window (2 s).
s_wait_pairs $((planned * 2 / 5)) 120 || true
w=${workers[1]}
net=$(docker inspect -f '{{ range $k, $v := .NetworkSettings.Networks }}{{ $k }} {{ end }}' "$w" | awk '{ print $1 }')
when=$(mid)
since=$(date -u +%Y-%m-%dT%H:%M:%SZ)
docker network disconnect "$net" "$w"
sleep 10
docker network connect "$net" "$w"
s_check "the coordinator declared the cut-off worker dead within the 10 s" \
  bash -c "docker logs --since $since $coord 2>&1 | grep -q 'silent for over'"
s_say "event: worker ${w:0:12} off network $net for 10 s ($when, $(s_pairs) pairs stored)"
s_mid_check "the worker's network partition" "$when"

# ------------------------------------------------------------- 5. the end
for ((i = 0; i < 300; i++)); do
  st=$(s_status)
  case "$st" in finished|stopped|failed) break ;; esac
  sleep 1
done
t_end=$(date +%s)
s_require "the run finishes (status: $st, $(s_pairs) of $planned pairs)" [ "$st" = finished ] || {
  s_compose logs --tail 30 2>&1 || true
  exit 1
}
games=$((2 * planned))
s_say "figure: $games games in $((t_end - t_first)) s from the first pair: $(awk -v g=$games -v s=$((t_end - t_first)) 'BEGIN { printf "%.1f", (s > 0) ? 60 * g / s : 0 }') games/min with 3 workers (concurrency 1, $nodes nodes/move, with the kill, restart and partition)"

got=$(s_sql "SELECT count(*) || ' ' || count(DISTINCT pair_no) || ' ' || min(pair_no) || ' ' || max(pair_no) FROM pairs WHERE run_id = $run")
s_check "every planned pair is stored exactly once (count, distinct, min, max: $got)" \
  [ "$got" = "$planned $planned 0 $((planned - 1))" ]
got=$(s_sql "SELECT count(*) FROM runs r JOIN run_totals_recount t ON t.run_id = r.id WHERE r.id = $run
             AND (r.pairs_done, r.penta0, r.penta1, r.penta2, r.penta3, r.penta4, r.wins, r.draws, r.losses)
               = (t.pairs_done, t.penta0, t.penta1, t.penta2, t.penta3, t.penta4, t.wins, t.draws, t.losses)
             AND r.pairs_done = $planned")
s_check "the run's counters equal a recount of its pairs" [ "$got" = 1 ]
got=$(s_sql "SELECT count(DISTINCT worker_id) FROM pairs WHERE run_id = $run")
s_check "more than one worker played the run's pairs ($got workers)" [ "${got:-0}" -ge 2 ]
got=$(s_sql "SELECT count(*) FROM tasks WHERE run_id = $run AND status = 'active'")
s_check "no lease of the finished run is left active" [ "$got" = 0 ]

base=http://127.0.0.1:$http_port
curl -fsS --max-time 20 -o "$work/run.json" "$base/api/runs/$run" 2>"$work/curl.err" || true
s_check "GET /api/runs/$run on the published port serves the finished report" \
  bash -c "grep -q '\"status\": *\"finished\"' '$work/run.json' && grep -q docker-cluster-study '$work/run.json'"
curl -fsS --max-time 20 -o "$work/run.html" "$base/runs/$run" 2>>"$work/curl.err" || true
s_check "GET /runs/$run serves the HTML page of the study" \
  bash -c "grep -qi '<html' '$work/run.html' && grep -q docker-cluster-study '$work/run.html'"
[ ! -s "$work/curl.err" ] || cat "$work/curl.err"
out=$(curl -fsS --max-time 20 "$base/health" 2>&1) || true
s_check "GET /health answers ok ($out)" grep -q '"ok"' <<<"$out"

t0=$(date +%s)
s_compose stop -t 30 >/dev/null 2>&1 || true
codes=$(docker inspect -f '{{ .State.ExitCode }}' "$coord" "${workers[@]}" | tr '\n' ' ')
s_check "the coordinator and the workers stop cleanly (exit codes: $codes)" [ "$codes" = "0 0 0 0 " ]
s_say "figure: compose stop in $(( $(date +%s) - t0 )) s"

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
