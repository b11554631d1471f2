#!/usr/bin/env bash
# Makes the secret files docker/compose.yaml hands to its containers:
#
#   worker_token   the contributor token the workers present; the coordinator
#                  registers it at start (--bootstrap-contributor, only its
#                  hash reaches the database)
#   admin_token    the coordinator's admin token (HTTP writes: capa submit,
#                  capa stop, contributor add)
#   db_password    the PostgreSQL password of the user capalab
#
#   docker/make-secrets.sh [--force] [DIR]
#
# DIR defaults to docker/secrets (where compose.yaml looks unless
# CAPA_SECRETS_DIR says otherwise; git ignores it). An existing file is kept
# unless --force is given (a new worker token then replaces the old one at the
# coordinator's next start; a new db_password does NOT change the password
# of an existing database volume). Tokens are "capa_" + 43 URL-safe base64
# characters from 32 random bytes, the coordinator's own token format.
#
# The folder is made with mode 0700 and the files 0644: a file secret is
# bind-mounted as it is, and the containers' users (capalab, uid 10001, and
# postgres) must be able to read it; the folder keeps other users on the host
# out.
set -euo pipefail

force=0
dir=""
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "make-secrets: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "make-secrets: one folder only" >&2; exit 2; }; dir=$arg ;;
  esac
done
[ -n "$dir" ] || dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/secrets

# 32 random bytes as 43 characters of URL-safe base64 without padding.
s_random43() {
  local out
  out=$(head -c 32 /dev/urandom | base64 -w 0 | tr '+/' '-_' | tr -d '=')
  [ ${#out} -eq 43 ] || { echo "make-secrets: cannot read /dev/urandom" >&2; exit 1; }
  printf '%s' "$out"
}

# s_write NAME VALUE: writes DIR/NAME unless it exists (or --force).
s_write() {
  local name=$1 value=$2 path=$dir/$1 tmp
  if [ -e "$path" ] && [ $force -eq 0 ]; then
    echo "make-secrets: $path exists, kept (--force replaces it)"
    return 0
  fi
  tmp=$(mktemp "$dir/.$name.XXXXXX")
  printf '%s\n' "$value" >"$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$path"
  echo "make-secrets: wrote $path"
}

umask 077
mkdir -p "$dir"
chmod 0700 "$dir"
s_write worker_token "capa_$(s_random43)"
s_write admin_token "capa_$(s_random43)"
# The password goes into a libpq connection through PGPASSWORD: letters and
# digits only, so no quoting is ever needed.
s_write db_password "$(s_random43 | tr -d '_-')"
