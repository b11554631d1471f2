#!/usr/bin/env bash
# The Swarm test (ctest docker_swarm, labels docker;slow): docker/stack.yaml
# on a single-node swarm, built from the last commit, through scaling,
# rolling updates and a removed task.
#
#   1. the project image from docker/Dockerfile (lib.sh); a swarm: `docker
#      swarm init` when the daemon is in none (left again at the end), the
#      daemon's own when it is a manager already; the node labelled
#      capalab.db=true (the label restored at the end); in the daemon's own
#      swarm, stacks left by killed earlier runs of this test are removed
#   2. secrets (docker/make-secrets.sh); `docker stack deploy` with one worker
#      (short heartbeats, small tasks, a 0.5 CPU reservation per worker so
#      that three fit on two cores, less when the node has less unreserved;
#      when a scale does not complete, the tasks' states and errors print)
#   3. a small values study submitted in the coordinator's container
#   4. workers scaled 1 -> 3 -> 1; `docker service update --force` of the
#      coordinator (stop-first) and of the workers (one at a time, SIGTERM);
#      one worker task's container removed by hand (`docker rm -f`: the
#      swarm starts a new task, the lease of the old one expires)
#   5. the run finishes: every planned pair stored once, counters equal a
#      recount, no lease left; `docker stack rm` leaves no service,
#      container, network, secret or volume of the stack behind
#
# Figures: deploy to first stored pair, pairs stored during the rolling
# updates, duplicates and lost pairs, the whole test's time. Exits 77
# (skipped) when no Docker daemon answers or the daemon is a swarm worker.
#
# Environment: as test_cluster.sh (lib.sh), and CAPA_SWARM_TIMEOUT (s,
# default 1200), CAPA_SWARM_PAIRS (pairs per imbalance, default 60; two
# imbalances), CAPA_SWARM_NODES (nodes per move, default 6000).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${CAPA_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
limit=${CAPA_SWARM_TIMEOUT:-1200}
if [ -z "${CAPA_SWARM_TIMED:-}" ]; then
  export CAPA_SWARM_TIMED=1
  exec timeout --kill-after=60 "$limit" bash "${BASH_SOURCE[0]}" "$@"
fi

# shellcheck source=tests/docker/lib.sh
. "$here/lib.sh"
pairs_per=${CAPA_SWARM_PAIRS:-60}
nodes=${CAPA_SWARM_NODES:-6000}
stack=capalab-test-$run_id
t_test=$(date +%s)
swarm_made=0
gwbridge_before=""
node=""
label_before=""
snap=""

# The filter for the objects of stack $1 (default: this run's).
s_ns() { printf 'label=com.docker.stack.namespace=%s' "${1:-$stack}"; }

# Waits until nothing of stack $1 (default: this run's) is left (services,
# containers, networks).
s_stack_gone() {
  local i ns
  ns=$(s_ns "${1:-}")
  for ((i = 0; i < 120; i++)); do
    if [ -z "$(docker service ls -q --filter "$ns" 2>/dev/null)" ] &&
       [ -z "$(docker ps -aq --filter "$ns" 2>/dev/null)" ] &&
       [ -z "$(docker network ls -q --filter "$ns" 2>/dev/null)" ]; then
      return 0
    fi
    sleep 1
  done
  return 1
}

# Removes stack $1 and what `docker stack rm` keeps of it (volumes, secrets).
s_stack_remove() {
  local ids
  docker stack rm "$1" >/dev/null 2>&1 || true
  s_stack_gone "$1" || true
  ids=$(docker volume ls -q --filter "$(s_ns "$1")" 2>/dev/null || true)
  [ -z "$ids" ] || docker volume rm -f $ids >/dev/null 2>&1 || true
  ids=$(docker secret ls -q --filter "$(s_ns "$1")" 2>/dev/null || true)
  [ -z "$ids" ] || docker secret rm $ids >/dev/null 2>&1 || true
}

s_swarm_teardown() {
  set +e
  if [ -n "$snap" ] && docker info -f '{{.Swarm.ControlAvailable}}' 2>/dev/null | grep -q true; then
    s_stack_remove "$stack"
  fi
  if [ -n "$node" ] && [ $swarm_made -eq 0 ]; then
    if [ -n "$label_before" ]; then
      docker node update --label-add "capalab.db=$label_before" "$node" >/dev/null 2>&1
    else
      docker node update --label-rm capalab.db "$node" >/dev/null 2>&1
    fi
  fi
  if [ $swarm_made -eq 1 ]; then
    docker swarm leave --force >/dev/null 2>&1
    [ -n "$gwbridge_before" ] || docker network rm docker_gwbridge >/dev/null 2>&1
  fi
  s_teardown
  s_say "figure: whole test $(( $(date +%s) - t_test )) s"
}

# Stacks of earlier runs of this test that were killed (the pid in the name
# is gone): their workers' CPU reservations would keep this run's workers
# from being placed.
s_sweep_stale_stacks() {
  local name
  while read -r name; do
    [[ $name =~ ^capalab-test-([0-9]+)$ ]] || continue
    kill -0 "${BASH_REMATCH[1]}" 2>/dev/null && continue
    s_say "event: removing the stack $name of a killed earlier run"
    s_stack_remove "$name"
  done < <(docker stack ls --format '{{.Name}}' 2>/dev/null)
}

# CPUs of this node not reserved by the tasks that should run on it, in
# thousandths of a CPU.
s_unreserved_millicpus() {
  local total used
  total=$(docker node inspect -f '{{.Description.Resources.NanoCPUs}}' self)
  used=$(docker node ps self -q --filter desired-state=running 2>/dev/null |
         xargs -r docker inspect -f '{{with .Spec.Resources}}{{with .Reservations}}{{.NanoCPUs}}{{end}}{{end}}' 2>/dev/null |
         awk '{ s += $1 } END { print s + 0 }')
  echo $(( (total - used) / 1000000 ))
}

# The scheduler's view of a service's tasks, for a failure's message.
s_tasks() {
  docker service ps --no-trunc --format '  {{.Name}} {{.DesiredState}} {{.CurrentState}} {{.Error}}' "${stack}_$1" 2>&1 | head -n 8
}

s_docker_or_skip
state=$(docker info -f '{{.Swarm.LocalNodeState}}')
case "$state" in
  inactive) ;;
  active)
    docker info -f '{{.Swarm.ControlAvailable}}' | grep -q true ||
      { echo "SKIP: this Docker daemon is a swarm worker, not a manager"; exit $SKIP; } ;;
  *) echo "SKIP: the daemon's swarm state is $state"; exit $SKIP ;;
esac
trap s_swarm_teardown EXIT
trap 'echo "FAIL: interrupted or out of time (${limit} s)"; exit 124' TERM INT
s_sweep_stale
work=$(mktemp -d)
chmod 0755 "$work"

# ------------------------------------------------------------- 1. image, swarm
image=capalab-test/capalab:$run_id
s_build_project "$image"
snap=$work/snap
mkdir -p "$snap/docker"
if [ -n "$commit" ]; then
  tar -xf "$work/context.tar" -C "$snap" docker/stack.yaml docker/make-secrets.sh ||
    s_die "commit $commit has no docker/stack.yaml"
else
  cp "$src/docker/stack.yaml" "$src/docker/make-secrets.sh" "$snap/docker/"
fi
if [ "$state" = inactive ]; then
  gwbridge_before=$(docker network ls -q --filter name='^docker_gwbridge$')
  docker swarm init --advertise-addr 127.0.0.1 >/dev/null || s_die "docker swarm init failed"
  swarm_made=1
  s_ok "docker swarm init (single node, advertise 127.0.0.1; left at the end)"
else
  s_say "using the daemon's swarm (it is a manager)"
fi
node=$(docker info -f '{{.Swarm.NodeID}}')
[ $swarm_made -eq 1 ] || s_sweep_stale_stacks
label_before=$(docker node inspect -f '{{ index .Spec.Labels "capalab.db" }}' "$node" 2>/dev/null || true)
docker node update --label-add capalab.db=true "$node" >/dev/null

# ------------------------------------------------------------- 2. deploy
bash "$snap/docker/make-secrets.sh" "$work/secrets" >/dev/null
cat >"$work/test.yaml" <<'YAML'
version: "3.8"
services:
  coordinator:
    environment:
      CAPA_TASK_SECONDS: "4"
      CAPA_LEASE_SECONDS: "40"
  worker:
    environment:
      CAPA_BATCH_PAIRS: "1"
      CAPA_BATCH_SECONDS: "2"
YAML
export CAPA_IMAGE=$image CAPA_POSTGRES_IMAGE=$postgres_image CAPA_SECRETS_DIR=$work/secrets
export CAPA_HEARTBEAT_MS=500 CAPA_LIVENESS=4 CAPA_WORKER_GRACE_SECONDS=5 CAPA_WORKER_STOP_GRACE=20s
# Three workers of 0.5 CPU fit on two cores; when less is unreserved on this
# node (a daemon's own swarm may run other services), each gets a third of
# what is free, at least 0.1 CPU.
free=$(s_unreserved_millicpus)
per=$(( free / 3 / 100 * 100 ))
[ $per -le 500 ] || per=500
[ $per -ge 100 ] || s_die "this node has $free/1000 CPU unreserved; three workers need at least 0.3"
cpus=$(awk -v m=$per 'BEGIN { printf "%.1f", m / 1000 }')
s_say "figure: unreserved on this node ${free}/1000 CPU; ${cpus} CPU reserved per worker"
export CAPA_WORKERS=1 CAPA_WORKER_CPUS=$cpus CAPA_WORKER_CONCURRENCY=1
t_deploy=$(date +%s)
docker stack deploy --resolve-image never -c "$snap/docker/stack.yaml" -c "$work/test.yaml" "$stack" \
  >"$work/deploy.log" 2>&1 || { cat "$work/deploy.log"; s_die "docker stack deploy failed"; }
s_ok "docker stack deploy $stack"

# The running container of a service's task (the newest), "" if none.
s_task_ctr() {
  docker ps -q --filter "label=com.docker.swarm.service.name=${stack}_$1" --filter status=running | head -n 1
}
s_db() { s_task_ctr db; }
s_sql() { docker exec "$(s_db)" psql -U capalab -d capalab -tA -c "$1" 2>&1; }
s_pairs() { s_sql "SELECT count(*) FROM pairs WHERE run_id = $run" 2>/dev/null | grep -E '^[0-9]+$' || echo 0; }
s_status() { s_sql "SELECT status FROM runs WHERE id = $run" 2>/dev/null || true; }
s_running() { docker service ls --filter "name=${stack}_$1" --format '{{.Replicas}}'; }

# waits for a coordinator container that is healthy; at most $1 s
s_coord_healthy() {
  local i c
  for ((i = 0; i < $1; i++)); do
    c=$(s_task_ctr coordinator)
    if [ -n "$c" ] && [ "$(docker inspect -f '{{ .State.Health.Status }}' "$c" 2>/dev/null)" = healthy ]; then
      coord=$c
      return 0
    fi
    sleep 1
  done
  return 1
}
s_require "the coordinator turns healthy (database on the labelled node, migrations, bench)" \
  s_coord_healthy 240 || { docker service ps --no-trunc "${stack}_coordinator" | tail -n 5; exit 1; }
s_say "figure: deploy to a healthy coordinator $(( $(date +%s) - t_deploy )) s"
s_check "the database runs on the labelled node" \
  [ "$(docker service ps -f desired-state=running --format '{{.Node}}' "${stack}_db")" = "$(docker info -f '{{.Name}}')" ]

# ------------------------------------------------------------- 3. submit
planned=$((2 * pairs_per))
cat >"$work/study.json" <<JSON
{"kind": "values", "name": "swarm-study", "variant": "caparandom",
 "positions": {"source": "crc"}, "game": {"nodes": $nodes, "max_plies": 200}, "params": {},
 "pairs_per_imbalance": $pairs_per,
 "imbalances": [{"name": "A vs C", "side": "A", "other": "C"},
                {"name": "pawn odds", "side": "", "other": "P"}]}
JSON
out=$(docker exec -i "$coord" bash -c \
      'capa --server http://127.0.0.1:8080 --token "$(cat /run/secrets/admin_token)" submit /dev/stdin' \
      <"$work/study.json" 2>&1) || true
run=$(grep -oE '[0-9]+' <<<"$out" | head -n 1 || true)
s_require "capa submit in the coordinator's container (got: $out)" [ -n "$run" ] || exit 1

s_wait_pairs() {
  local want=$1 max=$2 i
  for ((i = 0; i < max; i++)); do
    [ "$(s_pairs)" -ge "$want" ] && return 0
    case "$(s_status)" in finished|stopped|failed) return 0 ;; esac
    sleep 1
  done
  return 1
}
s_require "a first pair is stored" s_wait_pairs 1 300 || exit 1
s_say "figure: deploy to the first stored pair $(( $(date +%s) - t_deploy )) s"

# "mid-run": the run has work left
s_mid() { [ "$(s_status)" = running ] && [ "$(s_pairs)" -lt "$planned" ]; }

# ------------------------------------------------------------- 4. scale, update, remove
docker service scale -d "${stack}_worker=3" >/dev/null
for _ in $(seq 1 120); do [ "$(s_running worker)" = 3/3 ] && break; sleep 1; done
[ "$(s_running worker)" = 3/3 ] || s_tasks worker
s_check "workers scaled 1 -> 3 ($(s_running worker) running)" [ "$(s_running worker)" = 3/3 ]
s_wait_pairs $((planned / 4)) 300 || true
s_check "scaling happened mid-run ($(s_pairs) of $planned pairs)" s_mid
got=$(s_sql "SELECT count(DISTINCT worker_id) FROM pairs WHERE run_id = $run")
s_say "event: 3 workers, $(s_pairs) pairs stored by $got worker(s)"
t_down=$(date -u +%Y-%m-%dT%H:%M:%SZ)
docker service scale -d "${stack}_worker=1" >/dev/null
for _ in $(seq 1 120); do [ "$(s_running worker)" = 1/1 ] && [ "$(docker ps -q --filter "label=com.docker.swarm.service.name=${stack}_worker" | wc -l)" = 1 ] && break; sleep 1; done
[ "$(s_running worker)" = 1/1 ] || s_tasks worker
s_check "workers scaled 3 -> 1 ($(s_running worker))" [ "$(s_running worker)" = 1/1 ]
# Swarm deletes the containers of the tasks it scales away: their BYEs in
# the coordinator's log show that they stopped through SIGTERM, not a kill.
byes=$(docker logs --since "$t_down" "$coord" 2>&1 | grep -c 'said BYE (shutdown)' || true)
s_check "the two workers scaled away said BYE on SIGTERM ($byes BYE(s))" [ "$byes" -ge 2 ]

n_before=$(s_pairs)
t0=$(date +%s)
s_check "the rolling updates begin mid-run ($n_before of $planned pairs)" s_mid
docker service update --force --detach=false "${stack}_coordinator" >"$work/update-coord.log" 2>&1 ||
  { cat "$work/update-coord.log"; s_fail "service update --force of the coordinator"; }
s_check "the coordinator is healthy again after its rolling update" s_coord_healthy 180
docker service update --force --detach=false "${stack}_worker" >"$work/update-worker.log" 2>&1 ||
  { cat "$work/update-worker.log"; s_fail "service update --force of the workers"; }
n_after=$(s_pairs)
s_say "figure: pairs stored during the rolling updates of coordinator and workers: $((n_after - n_before)) in $(( $(date +%s) - t0 )) s"

w=$(s_task_ctr worker)
s_check "a worker task's container is removed by hand mid-run" s_mid
docker rm -f "$w" >/dev/null
for _ in $(seq 1 120); do
  c=$(s_task_ctr worker)
  [ -n "$c" ] && [ "$c" != "$w" ] && break
  sleep 1
done
s_check "the swarm replaces the removed worker task (${w:0:12} -> ${c:0:12})" [ -n "$c" ] && [ "$c" != "$w" ]

# ------------------------------------------------------------- 5. the end
for ((i = 0; i < 600; i++)); do
  st=$(s_status)
  case "$st" in finished|stopped|failed) break ;; esac
  sleep 1
done
s_require "the run finishes (status: $st, $(s_pairs) of $planned pairs)" [ "$st" = finished ] || {
  docker service logs --tail 20 "${stack}_coordinator" 2>&1 | tail -n 20
  exit 1
}
s_say "figure: deploy to the finished run $(( $(date +%s) - t_deploy )) s"
got=$(s_sql "SELECT count(*) || ' ' || count(DISTINCT pair_no) || ' ' || min(pair_no) || ' ' || max(pair_no) FROM pairs WHERE run_id = $run")
read -r n_rows n_distinct _ _ <<<"$got"
s_say "figure: duplicates $((n_rows - n_distinct)), lost $((planned - n_distinct)) (of $planned pairs)"
s_check "every planned pair is stored exactly once (count, distinct, min, max: $got)" \
  [ "$got" = "$planned $planned 0 $((planned - 1))" ]
got=$(s_sql "SELECT count(*) FROM runs r JOIN run_totals_recount t ON t.run_id = r.id WHERE r.id = $run
             AND (r.pairs_done, r.penta0, r.penta1, r.penta2, r.penta3, r.penta4, r.wins, r.draws, r.losses)
               = (t.pairs_done, t.penta0, t.penta1, t.penta2, t.penta3, t.penta4, t.wins, t.draws, t.losses)
             AND r.pairs_done = $planned")
s_check "the run's counters equal a recount of its pairs" [ "$got" = 1 ]
got=$(s_sql "SELECT count(*) FROM tasks WHERE run_id = $run AND status = 'active'")
s_check "no lease of the finished run is left active" [ "$got" = 0 ]
got=$(s_sql "SELECT count(DISTINCT worker_id) FROM pairs WHERE run_id = $run")
s_say "figure: $got distinct worker ids stored the run's pairs"

t0=$(date +%s)
docker stack rm "$stack" >/dev/null
s_check "docker stack rm removes services, containers and networks" s_stack_gone
ids=$(docker volume ls -q --filter "$(s_ns)")
[ -z "$ids" ] || docker volume rm -f $ids >/dev/null
s_check "no volume of the stack is left (docker stack rm keeps them: removed by name)" \
  [ -z "$(docker volume ls -q --filter "$(s_ns)")" ]
s_check "no secret of the stack is left" [ -z "$(docker secret ls -q --filter "$(s_ns)")" ]
s_say "figure: stack rm in $(( $(date +%s) - t0 )) s"

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
