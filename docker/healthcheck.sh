#!/usr/bin/env bash
# HEALTHCHECK of the capalab image. Exit 0 = healthy, 1 = unhealthy.
#
# CAPA_HEALTHCHECK chooses the check (default auto):
#   auto     http when the container runs capa-coordinator, else process
#   http     GET CAPA_HEALTH_URL answers with status 200; the default URL is
#            http://127.0.0.1:${CAPA_HTTP_PORT:-8080}/health
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

url=${CAPA_HEALTH_URL:-http://127.0.0.1:${CAPA_HTTP_PORT:-8080}/health}
mode=${CAPA_HEALTHCHECK:-auto}
if [ "$mode" = auto ]; then
  mode=process
  if pid=$(s_main_pid) && [ "$(s_program_of "$pid")" = capa-coordinator ]; then
    mode=http
  fi
fi
case "$mode" in
  http) s_check_http "$url" ;;
  process) s_check_process ;;
  none) exit 0 ;;
  *) s_fail "CAPA_HEALTHCHECK must be auto, http, process or none, not '$mode'" ;;
esac
