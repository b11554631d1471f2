#!/usr/bin/env bash
# HEALTHCHECK of the capalab image. Exit 0 = healthy, 1 = unhealthy.
#
# CAPA_HEALTHCHECK chooses the check (default auto):
#   auto     http when the container runs capa-coordinator with its HTTP
#            server on, else process
#   http     GET /health answers with status 200 (the coordinator answers 503
#            while its database is down). The URL: CAPA_HEALTH_URL if set,
#            else built from the coordinator's `http` setting (host:port) as
#            given by --http on its command line or CAPA_HTTP in the
#            environment (0.0.0.0 and * mean 127.0.0.1), else
#            http://127.0.0.1:8080/health, the coordinator's default
#   process  the container's capalab program is running (not a zombie)
#   none     always healthy
# A compose file may also replace the check with its own `healthcheck:`.
set -uo pipefail

s_fail() {
  echo "unhealthy: $*"
  exit 1
}

# The capalab program of this container: PID 1 itself (the entrypoint execs
# it), or the first capa* process when an init (docker run --init) is PID 1.
s_main_pid() {
  local dir pid argv0
  for dir in /proc/1 /proc/[0-9]*; do
    pid=${dir#/proc/}
    [ -r "$dir/cmdline" ] || continue
    argv0=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1)
    case "${argv0##*/}" in
      capa|capa-*) echo "$pid"; return 0 ;;
    esac
  done
  return 1
}

s_program_of() {
  local argv0
  argv0=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1)
  echo "${argv0##*/}"
}

s_check_process() {
  local pid state
  pid=$(s_main_pid) || s_fail "no capalab program is running"
  state=$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
  [ -n "$state" ] || s_fail "process $pid is gone"
  [ "$state" != Z ] || s_fail "$(s_program_of "$pid") (pid $pid) is a zombie"
  exit 0
}

s_check_http() {
  local url=$1 host port path status
  [[ $url =~ ^http://([^/:]+)(:([0-9]+))?(/.*)?$ ]] || s_fail "CAPA_HEALTH_URL must be http://HOST[:PORT]/PATH, not '$url'"
  host=${BASH_REMATCH[1]}
  port=${BASH_REMATCH[3]:-80}
  path=${BASH_REMATCH[4]:-/}
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || s_fail "cannot connect to $host:$port"
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$host" >&3
  IFS= read -r -t 4 status <&3 || s_fail "no answer from $url"
  exec 3<&-
  status=${status%$'\r'}
  [[ $status =~ ^HTTP/1\.[01]\ 200([[:space:]]|$) ]] || s_fail "$url answered '$status'"
  exit 0
}

# The coordinator's `http` setting: --http VALUE or --http=VALUE on the
# command line of process $1, else CAPA_HTTP, else its default.
s_coordinator_http() {
  local arg next=0 http=${CAPA_HTTP-127.0.0.1:8080}
  if [ -n "${1:-}" ] && [ -r "/proc/$1/cmdline" ]; then
    while IFS= read -r -d '' arg; do
      if [ $next -eq 1 ]; then http=$arg; next=0; continue; fi
      case "$arg" in
        --http) next=1 ;;
        --http=*) http=${arg#--http=} ;;
      esac
    done <"/proc/$1/cmdline"
  fi
  echo "$http"
}

# http://HOST:PORT/health for an `http` setting HOST:PORT (or PORT).
s_health_url() {
  local http=$1 host port
  if [[ $http == *:* ]]; then host=${http%:*}; port=${http##*:}; else host=""; port=$http; fi
  case "$host" in ""|0.0.0.0|"*") host=127.0.0.1 ;; esac
  echo "http://$host:$port/health"
}

mode=${CAPA_HEALTHCHECK:-auto}
pid=$(s_main_pid) || pid=""
program=""
[ -z "$pid" ] || program=$(s_program_of "$pid")
if [ "$program" = capa-coordinator ]; then
  http=$(s_coordinator_http "$pid")
else
  http=$(s_coordinator_http "")
fi
if [ -n "${CAPA_HEALTH_URL:-}" ]; then
  url=$CAPA_HEALTH_URL
else
  url=$(s_health_url "${http:-127.0.0.1:8080}")
fi
if [ "$mode" = auto ]; then
  mode=process
  if [ "$program" = capa-coordinator ] && { [ -n "$http" ] || [ -n "${CAPA_HEALTH_URL:-}" ]; }; then
    mode=http
  fi
fi
case "$mode" in
  http) s_check_http "$url" ;;
  process) s_check_process ;;
  none) exit 0 ;;
  *) s_fail "CAPA_HEALTHCHECK must be auto, http, process or none, not '$mode'" ;;
esac
