#!/usr/bin/env bash
# Entrypoint of the capalab image: runs the program named by the first
# argument with the remaining arguments, as PID 1 (signals reach it directly).
#
#   docker run IMAGE capa-coordinator [ARGS]
#   docker run IMAGE capa-worker [ARGS]
#   docker run IMAGE capa [ARGS]
#   docker run IMAGE capa-engine [ARGS]
#
# Any other command runs as it is (e.g. `bash` to look around); no argument
# or --help lists the programs this image holds.
set -euo pipefail

PROGRAMS=(capa-coordinator capa-worker capa capa-engine)
BINDIR=/usr/local/bin

s_usage() {
  local p
  echo "usage: docker run IMAGE PROGRAM [ARGS]"
  echo "programs in this image:"
  for p in "${PROGRAMS[@]}"; do
    [ -x "$BINDIR/$p" ] && echo "  $p"
  done
  echo "SQL migrations: /usr/local/share/capalab/sql, example configs: /usr/local/share/capalab/configs"
}

case "${1:-}" in
  "")
    s_usage >&2
    exit 2 ;;
  -h|--help|help)
    s_usage
    exit 0 ;;
  capa-coordinator|capa-worker|capa|capa-engine)
    if [ ! -x "$BINDIR/$1" ]; then
      echo "capalab-entrypoint: this image has no $1 (its source tree did not build one)" >&2
      s_usage >&2
      exit 127
    fi
    prog=$1
    shift
    exec "$BINDIR/$prog" "$@" ;;
  *)
    exec "$@" ;;
esac
