#!/usr/bin/env bash
# Entrypoint of capalab/postgres: starts PostgreSQL like the official image.
#
#   docker run -e POSTGRES_PASSWORD=... -v pgdata:/var/lib/postgresql/data capalab/postgres:15
#
# On the first start (no PG_VERSION in PGDATA) it runs initdb with
# POSTGRES_USER (default postgres) as superuser and POSTGRES_PASSWORD as its
# password, lets local (unix socket) connections in without a password and
# TCP connections with POSTGRES_HOST_AUTH_METHOD (default scram-sha-256),
# creates POSTGRES_DB (default: the user's name), runs the *.sh, *.sql and
# *.sql.gz files of /docker-entrypoint-initdb.d in name order against a
# server that listens on its unix socket only, then starts the real server on
# 0.0.0.0:5432. Later starts reuse the data. Every POSTGRES_* variable may be
# given as POSTGRES_*_FILE (a path, e.g. a Docker secret) instead.
#
# Arguments: none or starting with "-" -> postgres with those options;
# "postgres ..." -> the same; anything else is run as it is (e.g. bash).
set -Eeuo pipefail

s_die() {
  printf 'docker-entrypoint: error: %s\n' "$*" >&2
  exit 1
}

s_say() {
  printf 'docker-entrypoint: %s\n' "$*"
}

# VAR from $VAR or from the file named by $VAR_FILE (not both), else DEFAULT.
s_file_env() {
  local var=$1 def=${2:-} file_var="${1}_FILE" val
  if [ -n "${!var:-}" ] && [ -n "${!file_var:-}" ]; then
    s_die "both $var and $file_var are set (they are exclusive)"
  fi
  val=$def
  if [ -n "${!var:-}" ]; then
    val=${!var}
  elif [ -n "${!file_var:-}" ]; then
    [ -r "${!file_var}" ] || s_die "$file_var names ${!file_var}, which cannot be read"
    val=$(<"${!file_var}")
  fi
  export "$var"="$val"
  unset "$file_var"
}

s_prepare_dirs_as_root() {
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA"
  chmod 0700 "$PGDATA" || :
  chown postgres:postgres /var/run/postgresql
  chmod 3777 /var/run/postgresql
}

s_psql() {
  psql -v ON_ERROR_STOP=1 --no-password --no-psqlrc --username "$POSTGRES_USER" "$@"
}

s_run_initdb_scripts() {
  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [ -e "$f" ] || continue
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then s_say "running $f"; "$f"
        else s_say "sourcing $f"; # shellcheck disable=SC1090
          . "$f"
        fi ;;
      *.sql) s_say "running $f"; s_psql --dbname "$POSTGRES_DB" -f "$f" >/dev/null ;;
      *.sql.gz) s_say "running $f"; gzip -dc "$f" | s_psql --dbname "$POSTGRES_DB" >/dev/null ;;
      *) s_say "ignoring $f" ;;
    esac
  done
}

s_init_cluster() {
  local auth pwfile
  s_file_env POSTGRES_PASSWORD
  s_file_env POSTGRES_USER postgres
  s_file_env POSTGRES_DB "$POSTGRES_USER"
  s_file_env POSTGRES_INITDB_ARGS
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [ -z "$POSTGRES_PASSWORD" ] && [ "$auth" != trust ]; then
    s_die "the database is not initialised and no superuser password is given:" \
          "set POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE), or POSTGRES_HOST_AUTH_METHOD=trust" \
          "to allow every connection without a password (not recommended)"
  fi
  [ -w "$PGDATA" ] || s_die "$PGDATA is not writable by $(id -un) (uid $(id -u))"

  s_say "initialising a new cluster in $PGDATA (superuser $POSTGRES_USER, database $POSTGRES_DB)"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  local pwopt=(--pwfile="$pwfile")
  [ -n "$POSTGRES_PASSWORD" ] || pwopt=()
  # shellcheck disable=SC2086
  initdb --username="$POSTGRES_USER" "${pwopt[@]}" --auth-local=trust --auth-host="$auth" \
         -D "$PGDATA" $POSTGRES_INITDB_ARGS >/dev/null
  rm -f "$pwfile"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf '\n# docker: every address, %s\nhost all all all %s\n' "$auth" "$auth" >>"$PGDATA/pg_hba.conf"

  # A private server for the set-up: unix socket only, so that nothing from
  # outside (and no healthcheck over TCP) sees a half-made database.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w -t 60 start >/dev/null
  export PGHOST=/var/run/postgresql PGPORT=5432
  if [ "$POSTGRES_DB" != postgres ]; then
    local exists
    exists=$(s_psql --dbname postgres -tA -v db="$POSTGRES_DB" <<<"SELECT 1 FROM pg_database WHERE datname = :'db';")
    if [ -z "$exists" ]; then
      s_psql --dbname postgres -v db="$POSTGRES_DB" <<<'CREATE DATABASE :"db";' >/dev/null
    fi
  fi
  s_run_initdb_scripts
  pg_ctl -D "$PGDATA" -m fast -w -t 60 stop >/dev/null
  unset PGHOST PGPORT
  s_say "initialisation complete; starting the server"
}

if [ "${1:-}" = "" ] || [ "${1:0:1}" = "-" ]; then
  set -- postgres "$@"
fi

if [ "$1" = postgres ]; then
  if [ "$(id -u)" -eq 0 ]; then
    s_prepare_dirs_as_root
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
  fi
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    s_init_cluster
  fi
  unset POSTGRES_PASSWORD
fi

exec "$@"
