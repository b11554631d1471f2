#!/usr/bin/env bash
# pgtmp.sh - a private PostgreSQL cluster in a folder, reachable only through a
# unix socket. Used by the tests (ctest fixture "pg"), the quickstart and the
# Docker tests.
#
#   scripts/pgtmp.sh start   DIR   create the cluster if missing, start it if it
#                                  is not running, wait until it accepts
#                                  connections, print its libpq conninfo
#   scripts/pgtmp.sh stop    DIR   stop it (fast mode); harmless if stopped
#   scripts/pgtmp.sh crash   DIR   stop it in immediate mode (no checkpoint, every
#                                  connection cut: what a crash looks like)
#   scripts/pgtmp.sh restart DIR   stop then start; prints the conninfo
#   scripts/pgtmp.sh status  DIR   prints "running" (exit 0) or "stopped" (exit 3)
#   scripts/pgtmp.sh url     DIR   prints the conninfo (running or not)
#   scripts/pgtmp.sh destroy DIR   stop it and delete DIR and its socket folder
#
# Layout: DIR/data is the data directory, DIR/postgres.log the server log,
# DIR/conninfo a copy of the conninfo written by start. The socket lives in
# /tmp/capapg-<hash of DIR> because a unix socket path must stay under ~107
# bytes whatever the length of DIR. The server listens on no TCP address.
# The superuser is "postgres" with trust authentication for local sockets.
#
# PostgreSQL refuses to run as root: as root, initdb and pg_ctl run as the
# "postgres" system user (Debian's postgresql package creates it) and DIR is
# given to that user. If that user cannot reach DIR (a parent folder is
# private, e.g. /root), the data directory goes to /tmp/capapg-<hash>/data
# instead (and its log to /tmp/capapg-<hash>/postgres.log); DIR/data and
# DIR/postgres.log are symlinks to them.
#
# Environment: CAPA_PG_BINDIR overrides where initdb/pg_ctl are looked up;
# CAPA_PG_TIMEOUT (seconds, default 60) bounds the waits.
set -euo pipefail

die() { echo "pgtmp: $*" >&2; exit 1; }

usage() {
  echo "usage: $0 start|stop|crash|restart|status|url|destroy DIR" >&2
  exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
dir=$2
[ -n "$dir" ] || usage
timeout=${CAPA_PG_TIMEOUT:-60}
port=5432

# Absolute path without requiring it to exist.
case "$dir" in
  /*) ;;
  *) dir="$PWD/$dir" ;;
esac
dir=$(realpath -m -- "$dir")

hash=$(printf '%s' "$dir" | sha256sum | cut -c1-12)
sockdir="/tmp/capapg-$hash"
conninfo="host=$sockdir port=$port dbname=postgres user=postgres"

find_bindir() {
  local d
  if [ -n "${CAPA_PG_BINDIR:-}" ]; then
    [ -x "$CAPA_PG_BINDIR/pg_ctl" ] || die "CAPA_PG_BINDIR=$CAPA_PG_BINDIR has no pg_ctl"
    echo "$CAPA_PG_BINDIR"
    return
  fi
  if command -v pg_config >/dev/null 2>&1; then
    d=$(pg_config --bindir 2>/dev/null || true)
    if [ -n "$d" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then
      echo "$d"
      return
    fi
  fi
  # Debian installs the server binaries per major version; take the newest.
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then
      echo "$d"
      return
    fi
  done
  die "no PostgreSQL server binaries found (install the postgresql package: scripts/deps.sh)"
}

as_root=0
if [ "$(id -u)" -eq 0 ]; then
  as_root=1
  id postgres >/dev/null 2>&1 \
    || die "running as root needs the postgres system user (install the postgresql package: scripts/deps.sh)"
fi

# Runs a command as the user that owns the cluster.
pg() {
  if [ $as_root -eq 1 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

datadir="$dir/data"
logfile="$dir/postgres.log"

# Is the postmaster named in postmaster.pid alive? A killed server leaves its
# pid file behind, and its pid may linger as a zombie or be reused by an
# unrelated process: only a live process called postgres counts.
is_running() {
  local pid state comm
  [ -e "$datadir/postmaster.pid" ] || return 1
  pid=$(head -n 1 "$datadir/postmaster.pid" 2>/dev/null || true)
  case "$pid" in ''|*[!0-9]*) return 1 ;; esac
  [ -r "/proc/$pid/stat" ] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
  state=$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
  [ "$comm" = postgres ] && [ "$state" != Z ]
}

wait_ready() {
  local i=0
  while [ $i -lt $((timeout * 10)) ]; do
    if pg "$bindir/pg_isready" -q -h "$sockdir" -p "$port" -d postgres -U postgres; then
      return 0
    fi
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

make_sockdir() {
  mkdir -p "$sockdir"
  chmod 755 "$sockdir"
  if [ $as_root -eq 1 ]; then
    chown postgres: "$sockdir"
  fi
}

# Can the postgres user reach (and write) DIR?
reachable() {
  [ $as_root -eq 0 ] && return 0
  runuser -u postgres -- test -w "$dir" -a -x "$dir" 2>/dev/null
}

init_cluster() {
  mkdir -p "$dir"
  [ $as_root -eq 1 ] && chown postgres: "$dir"
  if [ ! -e "$datadir" ]; then
    if reachable; then
      mkdir -p "$datadir"
    else
      echo "pgtmp: user postgres cannot reach $dir; data goes to $sockdir/data" >&2
      make_sockdir
      mkdir -p "$sockdir/data"
      ln -s "$sockdir/data" "$datadir"
      ln -sf "$sockdir/postgres.log" "$logfile"
      datadir="$sockdir/data"
      logfile="$sockdir/postgres.log"
    fi
    [ $as_root -eq 1 ] && chown postgres: "$datadir"
    chmod 700 "$datadir"
  fi
  if [ ! -e "$datadir/PG_VERSION" ]; then
    # A half-made data directory (initdb was killed) is started again.
    find "$datadir" -mindepth 1 -delete
    pg "$bindir/initdb" -D "$datadir" -U postgres --auth=trust -E UTF8 --locale=C \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed in $datadir"; }
    cat >>"$datadir/postgresql.conf" <<'EOF'

# capalab (scripts/pgtmp.sh): a private cluster on a unix socket only.
listen_addresses = ''
fsync = on
max_connections = 200
include_if_exists = 'capalab.conf'
EOF
  fi
}

resolve_links() {
  if [ -L "$datadir" ]; then
    datadir=$(readlink -f "$datadir")
  fi
  if [ -L "$logfile" ]; then
    logfile=$(readlink -f "$logfile")
  fi
}

do_start() {
  resolve_links
  init_cluster
  make_sockdir
  # Rewritten at every start: the socket folder is derived from DIR.
  printf "unix_socket_directories = '%s'\nport = %d\n" "$sockdir" "$port" \
    | pg tee "$datadir/capalab.conf" >/dev/null
  if ! is_running; then
    [ -e "$logfile" ] || { touch "$logfile"; [ $as_root -eq 1 ] && chown postgres: "$logfile"; }
    # A pid file whose server is gone is stale (a killed server).
    rm -f "$datadir/postmaster.pid"
    # Children of a killed server may hold its shared memory for a moment:
    # the new server then refuses to start, so try a few times.
    local tries=0
    # fd 9 (the lock) must not be inherited by the server.
    until pg "$bindir/pg_ctl" start -D "$datadir" -l "$logfile" -w -t "$timeout" >/dev/null 9>&-; do
      tries=$((tries + 1))
      if [ $tries -ge 5 ]; then
        tail -n 20 "$logfile" >&2 || true
        die "the server in $datadir did not start"
      fi
      sleep 1
    done
  fi
  wait_ready || { tail -n 20 "$logfile" >&2 || true; die "the server in $datadir does not accept connections"; }
  printf '%s\n' "$conninfo" >"$dir/conninfo"
  printf '%s\n' "$conninfo"
}

do_stop() {
  resolve_links
  if is_running; then
    pg "$bindir/pg_ctl" stop -D "$datadir" -m "${1:-fast}" -w -t "$timeout" >/dev/null \
      || die "the server in $datadir did not stop"
  fi
}

bindir=$(find_bindir)

# One command at a time per cluster (two tests starting the same cluster).
if [ "$cmd" = start ] || [ "$cmd" = stop ] || [ "$cmd" = crash ] || [ "$cmd" = restart ] \
   || [ "$cmd" = destroy ]; then
  mkdir -p "$dir"
  exec 9>"$dir/.pgtmp.lock"
  flock -w "$timeout" 9 || die "$dir is locked by another pgtmp.sh"
fi

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  crash) do_stop immediate ;;
  restart) do_stop; do_start ;;
  status)
    resolve_links
    if is_running; then echo running; else echo stopped; exit 3; fi
    ;;
  url) printf '%s\n' "$conninfo" ;;
  destroy)
    do_stop
    rm -rf -- "$dir" "$sockdir"
    ;;
  *) usage ;;
esac
