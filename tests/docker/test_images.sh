#!/usr/bin/env bash
# Tests of capalab's Docker images (docker/), run by ctest (label docker):
#
#   test_images.sh base      docker/base-images.sh makes debian:bookworm-slim and
#                            capalab/postgres:15, a second run keeps them
#   test_images.sh postgres  the PostgreSQL image: first-start initialisation from
#                            POSTGRES_*, healthcheck, password over the network,
#                            initdb scripts, data kept across a restart, refusal
#                            without a password
#   test_images.sh project   docker/Dockerfile built from the last commit (or the
#                            working tree with CAPA_DOCKER_CONTEXT=worktree): size,
#                            non-root user, capa-engine inside, installed files,
#                            healthcheck; when the tree has a coordinator and a
#                            worker, a small cluster (PostgreSQL, coordinator,
#                            worker on one Docker network) plays a run to its end
#
# Everything a run makes (containers, networks, volumes, project images) is
# removed when it ends, also on failure; the base images and the two stages
# that only install packages (capalab/build-cache:deps and :runtime-base)
# stay so that the next run is fast. Exits 77 (skipped) when no Docker daemon answers.
#
# Environment: CAPA_SOURCE_DIR (default: two folders up), CAPA_DOCKER_CONTEXT
# (head | worktree), CAPA_DOCKER_REF (the commit to build in head mode,
# default HEAD), CAPA_DOCKER_NETWORK (network for docker build),
# CAPA_BASE_IMAGE, CAPA_POSTGRES_IMAGE.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${CAPA_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
part=${1:-all}
# shellcheck source=tests/docker/lib.sh
. "$here/lib.sh"

# ------------------------------------------------------------------- base
s_test_base() {
  local t0 out id_debian id_pg
  t0=$(date +%s)
  "$src/docker/base-images.sh" all || s_die "docker/base-images.sh failed"
  s_say "figure: base images ready in $(( $(date +%s) - t0 )) s"
  s_say "figure: $base_image $(s_mb "$base_image") MB, $postgres_image $(s_mb "$postgres_image") MB"
  id_debian=$(docker image inspect -f '{{ .Id }}' "$base_image")
  id_pg=$(docker image inspect -f '{{ .Id }}' "$postgres_image")

  out=$("$src/docker/base-images.sh" all 2>&1) || s_die "second run of docker/base-images.sh failed: $out"
  s_check "a second run keeps $base_image" \
    [ "$(docker image inspect -f '{{ .Id }}' "$base_image")" = "$id_debian" ]
  s_check "a second run keeps $postgres_image" \
    [ "$(docker image inspect -f '{{ .Id }}' "$postgres_image")" = "$id_pg" ]
  s_check "a second run says both images are up to date" \
    [ "$(grep -c 'is up to date' <<<"$out")" -eq 2 ]

  out=$(docker run --rm --label "$test_label=$run_id" "$base_image" bash -c \
        '. /etc/os-release; echo "$VERSION_CODENAME $LANG $(id -u)";
         find /usr/share/doc -type f ! -name copyright | wc -l;
         ls /var/lib/apt/lists | grep -vc -e "^lock$" -e "^partial$" || true')
  s_check "$base_image is Debian bookworm with LANG=C.UTF-8 (got: $(head -n 1 <<<"$out"))" \
    [ "$(head -n 1 <<<"$out")" = "bookworm C.UTF-8 0" ]
  s_check "$base_image holds no documentation besides copyright files" \
    [ "$(sed -n 2p <<<"$out")" = 0 ]
  s_check "$base_image holds no apt lists" [ "$(sed -n 3p <<<"$out")" = 0 ]
  s_check "$base_image stays under 150 MB ($(s_mb "$base_image") MB)" \
    awk -v s="$(s_mb "$base_image")" 'BEGIN { exit !(s < 150) }'
}

# --------------------------------------------------------------- postgres
s_test_postgres() {
  local net=$prefix-net vol=$prefix-pgdata db=$prefix-db init out
  docker image inspect "$postgres_image" >/dev/null 2>&1 ||
    s_die "$postgres_image is missing (run docker/base-images.sh)"
  work=$(mktemp -d)
  init=$work/initdb.d
  mkdir -p "$init"
  printf 'CREATE TABLE made_by_init (note text);\nINSERT INTO made_by_init VALUES ($$hello$$);\n' \
    >"$init/10-table.sql"
  chmod 0755 "$work" "$init"
  chmod 0644 "$init/10-table.sql"

  docker network create --label "$test_label=$run_id" "$net" >/dev/null
  docker volume create --label "$test_label=$run_id" "$vol" >/dev/null
  docker volume create --label "$test_label=$run_id" "$prefix-empty" >/dev/null

  s_check "a container without POSTGRES_PASSWORD on an empty volume refuses to start with a clear message" \
    bash -c "! docker run --rm --label $test_label=$run_id -v $prefix-empty:/var/lib/postgresql/data \
               $postgres_image >$work/nopw.log 2>&1 && grep -q POSTGRES_PASSWORD $work/nopw.log"
  docker volume rm -f "$prefix-empty" >/dev/null 2>&1 || true

  docker run -d --name "$db" --label "$test_label=$run_id" --network "$net" --network-alias db \
    -e POSTGRES_USER=capalab -e POSTGRES_PASSWORD='pw with spaces' -e POSTGRES_DB=capalab_test \
    -v "$vol:/var/lib/postgresql/data" -v "$init:/docker-entrypoint-initdb.d:ro" \
    --health-interval 1s "$postgres_image" >/dev/null
  s_require "the server initialises and its healthcheck turns healthy" s_wait_health "$db" healthy 90 || return 0

  s_client() { docker run --rm --label "$test_label=$run_id" --network "$net" "$@"; }
  out=$(s_client -e PGPASSWORD='pw with spaces' "$postgres_image" \
        psql -h db -U capalab -d capalab_test -tA -c 'SELECT current_user, current_database(), note FROM made_by_init') || true
  s_check "another container connects over TCP with the password and sees the initdb script's table (got: $out)" \
    [ "$out" = "capalab|capalab_test|hello" ]
  s_check "a wrong password is refused" \
    bash -c "! docker run --rm --label $test_label=$run_id --network $net -e PGPASSWORD=wrong $postgres_image \
               psql -h db -U capalab -d capalab_test -c 'SELECT 1' >/dev/null 2>&1"
  out=$(docker exec "$db" stat -c '%U %a' /var/lib/postgresql/data)
  s_check "the data folder belongs to postgres with mode 700 (got: $out)" [ "$out" = "postgres 700" ]
  out=$(docker exec "$db" stat -c %U /proc/1)
  s_check "the server runs as postgres, not root (got: $out)" [ "$out" = postgres ]

  printf 'from-a-file\n' >"$work/pw"
  chmod 0644 "$work/pw"
  docker run -d --name "$db-secret" --label "$test_label=$run_id" --network "$net" --network-alias db-secret \
    -e POSTGRES_PASSWORD_FILE=/run/secrets/pw -v "$work/pw:/run/secrets/pw:ro" \
    --health-interval 1s "$postgres_image" >/dev/null
  if s_wait_health "$db-secret" healthy 90; then
    out=$(s_client -e PGPASSWORD=from-a-file "$postgres_image" \
          psql -h db-secret -U postgres -d postgres -tA -c 'SELECT current_user') || true
  else
    out="not healthy"
  fi
  s_check "POSTGRES_PASSWORD_FILE sets the password of the default user postgres (got: $out)" [ "$out" = postgres ]
  docker rm -f -v "$db-secret" >/dev/null

  docker exec "$db" psql -U capalab -d capalab_test -q -c "INSERT INTO made_by_init VALUES ('kept')"
  docker stop "$db" >/dev/null
  docker rm -v "$db" >/dev/null
  docker run -d --name "$db" --label "$test_label=$run_id" --network "$net" --network-alias db \
    -v "$vol:/var/lib/postgresql/data" --health-interval 1s "$postgres_image" >/dev/null
  s_require "a new container on the same volume starts without POSTGRES_PASSWORD" s_wait_health "$db" healthy 60 || return 0
  out=$(s_client -e PGPASSWORD='pw with spaces' "$postgres_image" \
        psql -h db -U capalab -d capalab_test -tA -c "SELECT count(*) FROM made_by_init WHERE note = 'kept'") || true
  s_check "rows written before the restart are still there (got: $out)" [ "$out" = 1 ]
  s_check "the second start does not initialise again" \
    bash -c "! docker logs $db 2>&1 | grep -q 'initialising a new cluster'"
}

# ---------------------------------------------------------------- project
s_test_project() {
  local image=capalab-test/capalab:$run_id build_image=capalab-test/capalab-build:$run_id
  local size out p want got want_programs
  work=$(mktemp -d)
  s_build_project "$image" "$build_image"

  size=$(s_mb "$image")
  s_say "figure: runtime image $size MB (base $(s_mb "$base_image") MB)"
  s_check "the runtime image is of a sane size (${size} MB < 300 MB)" \
    awk -v s="$size" 'BEGIN { exit !(s < 300) }'

  s_run() { docker run --rm --label "$test_label=$run_id" "$@"; }
  s_check "the image runs as the user capalab" \
    [ "$(docker image inspect -f '{{ .Config.User }}' "$image")" = capalab ]
  out=$(s_run "$image" id -un 2>&1) || true
  s_check "commands in the container run as capalab (got: $out)" [ "$out" = capalab ]

  docker volume create --label "$test_label=$run_id" "$prefix-state" >/dev/null
  out=$(s_run -v "$prefix-state:/var/lib/capalab" "$image" \
        bash -c 'mkdir -p .capalab/worker && touch .capalab/worker/probe && stat -c "%U %a" .') || true
  s_check "a new named volume on /var/lib/capalab is writable by capalab (got: $out)" \
    [ "$out" = "capalab 750" ]
  out=$(s_run "$image" bash -c 'cd /usr/local/bin && du -ck capa capa-* 2>/dev/null | tail -n 1 | cut -f1')
  s_say "figure: programs take $out kB in the image"

  # Every program whose main.c is in the tree is in the image, and no other.
  want=""
  for p in engine:capa-engine coordinator:capa-coordinator worker:capa-worker cli:capa; do
    if [ -n "$commit" ]; then
      git -C "$src" cat-file -e "$commit:${p%%:*}/main.c" 2>/dev/null && want="$want ${p##*:}"
    else
      [ -f "$src/${p%%:*}/main.c" ] && want="$want ${p##*:}"
    fi
  done
  got=$(s_run "$image" bash -c 'cd /usr/local/bin && for p in capa-engine capa-coordinator capa-worker capa; do [ -x "$p" ] && printf " %s" "$p"; done; true')
  s_check "the image holds exactly the programs of the tree ($want) (got:$got)" [ "$got" = "$want" ]
  want_programs=$want

  if [[ " $want " == *" capa-engine "* ]]; then
    out=$(s_run "$image" capa-engine perft 3 2>&1) || true
    s_check "capa-engine perft 3 inside the image counts the published 25228 nodes" \
      grep -q 'Nodes searched: 25228$' <<<"$out"
  fi
  out=$(s_run "$image" 2>&1) || true
  s_check "the entrypoint lists the image's programs when given none" grep -q '^  capa' <<<"$out"
  s_check "an unknown program name runs as a command (false fails)" \
    bash -c "! docker run --rm --label $test_label=$run_id $image false"

  # SQL migrations and example configs, as the tree has them.
  for p in sql configs; do
    if [ -n "$commit" ]; then
      want=$(git -C "$src" ls-tree -r --name-only "$commit" "$p/" | sed "s|^$p/||" |
             { if [ "$p" = sql ]; then grep '\.sql$'; else cat; fi; } | sort | tr '\n' ' ' || true)
    else
      want=$(cd "$src/$p" 2>/dev/null && find . -type f | sed 's|^\./||' |
             { if [ "$p" = sql ]; then grep '\.sql$'; else cat; fi; } | sort | tr '\n' ' ' || true)
    fi
    got=$(s_run "$image" bash -c "cd /usr/local/share/capalab/$p && find . -type f | sed 's|^\./||' | sort | tr '\n' ' '")
    s_check "/usr/local/share/capalab/$p holds the tree's $p files (${want:-none})" [ "$got" = "$want" ]
  done

  # The HEALTHCHECK: alive for the engine/worker/cli, GET /health on the
  # coordinator's --http address (nothing listens here: unhealthy).
  docker run -d --name "$prefix-alive" --label "$test_label=$run_id" --health-interval 1s \
    "$image" bash -c 'exec -a capa-worker sleep 300' >/dev/null
  docker run -d --name "$prefix-coord" --label "$test_label=$run_id" --health-interval 1s \
    --health-retries 1 --health-start-period 1s \
    "$image" bash -c 'exec -a capa-coordinator bash -c "sleep 300; exit 0" sh --http 0.0.0.0:9' >/dev/null
  s_check "the healthcheck finds a running capa-worker healthy" s_wait_health "$prefix-alive" healthy 60
  s_check "the healthcheck finds a coordinator whose /health does not answer unhealthy" \
    s_wait_health "$prefix-coord" unhealthy 60
  out=$(docker exec "$prefix-coord" capalab-healthcheck 2>&1) || true
  s_check "the coordinator's check follows its --http setting (got: $out)" \
    grep -q 'cannot connect to 127.0.0.1:9$' <<<"$out"
  out=$(docker exec -e CAPA_HEALTH_URL=http://127.0.0.1:7/health "$prefix-coord" capalab-healthcheck 2>&1) || true
  s_check "CAPA_HEALTH_URL overrides the address (got: $out)" \
    grep -q 'cannot connect to 127.0.0.1:7$' <<<"$out"
  s_check "no capalab program in the container is unhealthy" \
    bash -c "! docker run --rm --label $test_label=$run_id $image capalab-healthcheck >/dev/null"

  if [[ " $want_programs " == *" capa-coordinator "* && " $want_programs " == *" capa-worker "* ]] &&
     docker image inspect "$postgres_image" >/dev/null 2>&1; then
    s_test_cluster "$image"
  else
    s_say "no cluster check: the image lacks capa-coordinator or capa-worker, or $postgres_image is missing"
  fi
}

# ---------------------------------------------------------------- cluster
# A small cluster from the project image $1 and the PostgreSQL image, as a
# compose file would run it: migrations, a contributor, the coordinator, one
# worker, a run of two pairs played to the end, clean stops.
s_test_cluster() {
  local image=$1 net=$prefix-cluster db=$prefix-cdb coord=$prefix-coord1 worker=$prefix-worker1
  local conninfo="host=db port=5432 dbname=capalab user=capalab password=cluster-pw"
  local out token i
  docker network create --label "$test_label=$run_id" "$net" >/dev/null
  docker run -d --name "$db" --label "$test_label=$run_id" --network "$net" --network-alias db \
    -e POSTGRES_USER=capalab -e POSTGRES_PASSWORD=cluster-pw -e POSTGRES_DB=capalab \
    --health-interval 1s "$postgres_image" >/dev/null
  s_require "cluster: PostgreSQL turns healthy" s_wait_health "$db" healthy 90 || return 0

  s_admin() {
    docker run --rm --label "$test_label=$run_id" --network "$net" -e CAPA_DB="$conninfo" \
      "$image" capa-coordinator "$@" </dev/null
  }
  s_migrate() { s_admin migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log"; return 1; }; }
  s_require "cluster: capa-coordinator migrate applies the installed migrations" s_migrate || return 0
  out=$(s_admin contributor add docker-test 2>/dev/null) || true
  token=$(tail -n 1 <<<"$out")
  s_require "cluster: capa-coordinator contributor add issues a token" [ -n "$token" ] || return 0

  docker run -d --name "$coord" --label "$test_label=$run_id" --network "$net" \
    --network-alias coordinator -e CAPA_DB="$conninfo" -e CAPA_BIND=tcp://0.0.0.0:5555 \
    -e CAPA_HTTP=0.0.0.0:8080 --health-interval 2s --health-start-period 1s --health-retries 30 \
    "$image" capa-coordinator >/dev/null
  docker run -d --name "$worker" --label "$test_label=$run_id" --network "$net" \
    -e CAPA_COORDINATOR=tcp://coordinator:5555 -e CAPA_TOKEN="$token" -e CAPA_CONCURRENCY=1 \
    "$image" capa-worker >/dev/null
  docker run --rm -i --label "$test_label=$run_id" --network "$net" -e CAPA_DB="$conninfo" \
    "$image" capa-coordinator run submit /dev/stdin >/dev/null <<'JSON' || s_fail "cluster: run submit failed"
{"kind": "values", "name": "docker-cluster-test", "variant": "caparandom",
 "positions": {"source": "crc"}, "game": {"nodes": 500, "max_plies": 200}, "params": {},
 "pairs_per_imbalance": 2, "imbalances": [{"name": "A vs C", "side": "A", "other": "C"}]}
JSON
  for ((i = 0; i < 120; i++)); do
    out=$(s_admin run list 2>/dev/null | grep docker-cluster-test || true)
    grep -q finished <<<"$out" && break
    sleep 1
  done
  s_check "cluster: the worker plays the run's pairs and the coordinator finishes it (run list: $out)" \
    grep -q finished <<<"$out"
  s_check "cluster: the coordinator's /health turns its container healthy" \
    s_wait_health "$coord" healthy 60
  if ! grep -q finished <<<"$out"; then
    docker logs "$coord" 2>&1 | tail -n 10
    docker logs "$worker" 2>&1 | tail -n 10
  fi
  docker stop -t 30 "$worker" "$coord" >/dev/null
  out=$(docker inspect -f '{{ .State.ExitCode }}' "$worker" "$coord" | tr '\n' ' ')
  s_check "cluster: worker and coordinator stop cleanly on docker stop (exit codes: $out)" \
    [ "$out" = "0 0 " ]
}

# ------------------------------------------------------------------- main
s_docker_or_skip
trap s_teardown EXIT
s_sweep_stale

case "$part" in
  base) s_test_base ;;
  postgres) s_test_postgres ;;
  project) s_test_project ;;
  all) s_test_base; s_test_postgres; s_teardown; work=""; s_test_project ;;
  *) echo "usage: $0 [base|postgres|project|all]" >&2; exit 2 ;;
esac

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
