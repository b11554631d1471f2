#!/usr/bin/env bash
# The worker package test (ctest docker_deb, labels docker;slow):
#
#   1. `cpack -G DEB` in the build folder makes capalab-worker_<version>.deb;
#      lintian (when installed) may report nothing above the one explained
#      warning (initial-upload-closes-no-bugs: the package is not for
#      Debian's archive, so no ITP bug)
#   2. a coordinator on the host, on loopback: a private PostgreSQL
#      (scripts/pgtmp.sh), a contributor, a small sprt run
#   3. a clean container from the project's base image (debian:bookworm-slim,
#      docker/base-images.sh), host network: `apt-get install ./the.deb`; the
#      package's files, its user, the config file's owner and mode;
#      `capa-worker setup` writes the address and token; the worker runs as
#      the unit's user with the unit's ExecStart (no systemd in a container)
#   4. pairs stored in the database by this worker; `capa-worker status`
#   5. SIGTERM; `apt-get remove`: the package's files gone, the state folder
#      and the conffile kept; `apt-get purge`: state, config and user gone
#
# Everything it makes (container, database, coordinator, folder) goes at
# the end, also on failure. Exits 77 (skipped) when no Docker daemon
# answers or the build folder has no capa-worker.
#   test_deb.sh BUILD_DIR
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${CAPA_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
# shellcheck source=tests/docker/lib.sh
. "$here/lib.sh"
t_test=$(date +%s)
coord_pid=""
ctr=""

s_deb_teardown() {
  set +e
  [ -z "$ctr" ] || docker rm -f "$ctr" >/dev/null 2>&1
  if [ -n "$coord_pid" ]; then
    kill -TERM "$coord_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$coord_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$coord_pid" 2>/dev/null
  fi
  [ -z "$work" ] || [ ! -d "$work/pg" ] || "$src/scripts/pgtmp.sh" destroy "$work/pg" >/dev/null 2>&1
  s_teardown
  s_say "figure: whole test $(( $(date +%s) - t_test )) s"
}

s_docker_or_skip
[ -x "$build/capa-worker" ] && [ -x "$build/capa-coordinator" ] ||
  { echo "SKIP: $build has no capa-worker/capa-coordinator (build them first)"; exit $SKIP; }
command -v cpack >/dev/null || { echo "SKIP: cpack is not installed"; exit $SKIP; }
trap s_deb_teardown EXIT
trap 'echo "FAIL: interrupted"; exit 124' TERM INT
s_sweep_stale
work=$(mktemp -d)
chmod 0755 "$work"

# ------------------------------------------------------------- 1. package
mkdir "$work/deb"
(cd "$build" && cmake --build . --target capa-worker package-files >/dev/null &&
   cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; s_die "cpack failed"; }
deb=$(ls "$work"/deb/capalab-worker_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || s_die "cpack made no capalab-worker_*.deb"
s_ok "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"
if command -v lintian >/dev/null; then
  lintian "$deb" >"$work/lintian.log" 2>&1 || true
  sed 's/^/  lintian: /' "$work/lintian.log"
  if grep -E '^[EW]: ' "$work/lintian.log" | grep -v 'W: capalab-worker: initial-upload-closes-no-bugs' | grep -q .; then
    s_fail "lintian reports errors or unexplained warnings"
  else
    s_ok "lintian: no error, no warning but initial-upload-closes-no-bugs"
  fi
else
  s_say "lintian is not installed: not run"
fi

# ------------------------------------------------------------- 2. coordinator
db=$("$src/scripts/pgtmp.sh" start "$work/pg")
export CAPA_DB="$db"
coord=("$build/capa-coordinator" --sql-dir "$src/sql")
"${coord[@]}" migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log"; s_die "migrate failed"; }
token=$("${coord[@]}" contributor add deb-donor 2>/dev/null | tail -n 1)
[[ $token == capa_* ]] || s_die "no token from contributor add"
cat >"$work/run.json" <<'JSON'
{ "kind": "sprt", "name": "deb test", "variant": "caparandom", "positions": { "source": "crc" },
  "game": { "nodes": 2000, "max_plies": 160 }, "a": {}, "b": { "ArchbishopValueMg": 900 },
  "elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.05, "max_pairs": 24 }
JSON
run=$("${coord[@]}" run submit "$work/run.json" 2>"$work/submit.log") || { cat "$work/submit.log"; s_die "run submit failed"; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${coord[@]}" --bind "tcp://127.0.0.1:$port" --heartbeat-ms 500 --task-seconds 5 serve >"$work/coordinator.log" 2>&1 &
coord_pid=$!
s_ok "coordinator on tcp://127.0.0.1:$port, run $run"
s_pairs() { psql "$db" -tA -c "SELECT count(*) FROM pairs WHERE run_id = $run" 2>/dev/null || echo 0; }

# ------------------------------------------------------------- 3. install
ctr=$(docker run -d --network host --label "$test_label=$run_id" -v "$work/deb:/deb:ro" \
        "$base_image" sleep infinity)
ctr_exec() { docker exec "$ctr" "$@"; }
t0=$(date +%s)
ctr_exec sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends /deb/capalab-worker_*.deb' \
  >"$work/apt.log" 2>&1 || { tail -n 30 "$work/apt.log"; s_die "apt-get install of the package failed"; }
s_ok "apt-get install ./$(basename "$deb") in a clean $base_image container ($(( $(date +%s) - t0 )) s)"
ctr_exec dpkg -L capalab-worker | sort >"$work/files"
sed 's/^/  file: /' "$work/files"
for f in /usr/bin/capa-worker /lib/systemd/system/capalab-worker.service /etc/capalab/worker.json \
         /usr/share/doc/capalab-worker/copyright; do
  s_check "installed: $f" grep -qx "$f" "$work/files"
done
# the slim base image excludes man pages from installs (dpkg path-exclude):
# the manual page is checked in the package itself
s_check "the package holds the manual page capa-worker(1)" \
  sh -c "dpkg-deb -c '$deb' | grep -q ' ./usr/share/man/man1/capa-worker.1.gz$'"
s_check "conffiles: /etc/capalab/worker.json" \
  sh -c "dpkg-deb -f '$deb' Package >/dev/null && dpkg-deb -I '$deb' conffiles | grep -qx /etc/capalab/worker.json"
s_check "the user capalab-worker is a system user" \
  ctr_exec sh -c 'u=$(getent passwd capalab-worker) && [ "$(echo "$u" | cut -d: -f3)" -lt 1000 ]'
s_check "/etc/capalab/worker.json is root:capalab-worker 640" \
  ctr_exec sh -c '[ "$(stat -c "%U:%G %a" /etc/capalab/worker.json)" = "root:capalab-worker 640" ]'
s_check "the unit runs as capalab-worker with Nice, CPUQuota and StateDirectory" \
  ctr_exec sh -c 'u=/lib/systemd/system/capalab-worker.service; grep -qx User=capalab-worker $u &&
            grep -q "^Nice=" $u && grep -q "^CPUQuota=" $u && grep -qx StateDirectory=capalab-worker $u'
s_check "capa-worker --help works in the container" sh -c "docker exec $ctr capa-worker --help >/dev/null"
ctr_exec capa-worker setup --coordinator "tcp://127.0.0.1:$port" --token "$token" --concurrency 2 \
  --batch-seconds 2 >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; s_die "capa-worker setup failed"; }
s_say "  setup: $(head -n 1 "$work/setup.log")"
s_check "setup kept the config's owner and mode" \
  ctr_exec sh -c '[ "$(stat -c "%U:%G %a" /etc/capalab/worker.json)" = "root:capalab-worker 640" ]'
exec_start=$(ctr_exec sed -n 's/^ExecStart=//p' /lib/systemd/system/capalab-worker.service)
ctr_exec sh -c "runuser -u capalab-worker -- $exec_start >/var/tmp/worker.log 2>&1 &"

# ------------------------------------------------------------- 4. pairs
t0=$(date +%s)
first=""
for _ in $(seq 1 240); do
  n=$(s_pairs)
  if [ "${n:-0}" -gt 0 ] && [ -z "$first" ]; then first=$(( $(date +%s) - t0 )); fi
  [ "${n:-0}" -ge 8 ] && break
  sleep 1
done
n=$(s_pairs)
s_check "the packaged worker's pairs are stored ($n pair(s); first after ${first:-?} s)" [ "${n:-0}" -ge 8 ]
ctr_exec sh -c 'sed -n "/starting$/,/limits/p" /var/tmp/worker.log' | sed 's/^/  worker: /' || true
ctr_exec capa-worker status >"$work/status.log" 2>&1 || true
sed 's/^/  status: /' "$work/status.log"
s_check "capa-worker status says it is running" grep -q ': running since ' "$work/status.log"
s_check "the state folder is the service user's" \
  ctr_exec sh -c '[ "$(stat -c %U /var/lib/capalab-worker/worker-id)" = capalab-worker ]'

# ------------------------------------------------------------- 5. stop, remove, purge
pid=$(ctr_exec sed -n 's/.*"pid":\([0-9]*\).*/\1/p' /var/lib/capalab-worker/status.json)
ctr_exec sh -c "kill -TERM $pid"
for _ in $(seq 1 130); do ctr_exec sh -c "kill -0 $pid" 2>/dev/null || break; sleep 1; done
s_check "SIGTERM stopped the worker" sh -c "! docker exec $ctr sh -c \"kill -0 $pid\" 2>/dev/null"
ctr_exec sh -c 'grep -E "said BYE|exit status" /var/tmp/worker.log | tail -n 1' | sed 's/^/  worker: /' || true
ctr_exec apt-get remove -y -qq capalab-worker >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; s_fail "apt-get remove failed"; }
left=$(ctr_exec sh -c 'for f in /usr/bin/capa-worker /lib/systemd/system/capalab-worker.service /usr/share/man/man1/capa-worker.1.gz /usr/share/doc/capalab-worker; do [ -e $f ] && echo $f; done' || true)
s_check "remove: the package's files are gone${left:+ (left: $left)}" [ -z "$left" ]
s_check "remove: the state folder (worker id, spool) is kept" ctr_exec test -s /var/lib/capalab-worker/worker-id
s_check "remove: the conffile is kept" ctr_exec test -f /etc/capalab/worker.json
ctr_exec apt-get purge -y -qq capalab-worker >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; s_fail "apt-get purge failed"; }
s_check "purge: state folder, config and user are gone" \
  ctr_exec sh -c '! [ -e /var/lib/capalab-worker ] && ! [ -e /etc/capalab ] && ! getent passwd capalab-worker'

if [ "$failures" -gt 0 ]; then
  s_say "coordinator log tail:"; tail -n 15 "$work/coordinator.log"
  exit 1
fi
s_say "all checks passed"
