#!/usr/bin/env bash
# `cmake --install` puts the four programs, the SQL migrations, the example
# configs and the worker's systemd unit where a package would, and the
# installed coordinator finds its migrations without --sql-dir.
set -euo pipefail
build=$1
prefix=$(mktemp -d /tmp/capa-install.XXXXXX)
db=""
cleanup() {
  [ -n "$db" ] && psql "$(cat "$CAPA_PGTEST_DIR/conninfo")" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
  rm -rf "$prefix"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for p in capa-engine capa-coordinator capa-worker capa; do
  [ -x "$prefix/bin/$p" ] || fail "bin/$p not installed"
done
ls "$prefix"/share/capalab/sql/0*.sql >/dev/null || fail "no migrations in share/capalab/sql"
for f in run-sprt.json run-values.json run-spsa.json coordinator.json worker.json capa-worker.service; do
  [ -f "$prefix/share/capalab/configs/$f" ] || fail "share/capalab/configs/$f not installed"
done
"$prefix/bin/capa-engine" perft 2 | grep -q 'Nodes searched: 784\|784' || fail "installed capa-engine perft 2 != 784"

# The installed coordinator applies the installed migrations (found next to
# its executable) to a fresh database of the test cluster.
ci=$(cat "$CAPA_PGTEST_DIR/conninfo")
db="t_install_$$"
psql "$ci" -qc "CREATE DATABASE $db" >/dev/null
out=$(cd / && CAPA_DB="$ci dbname=$db" "$prefix/bin/capa-coordinator" migrate 2>&1) || fail "migrate: $out"
echo "$out" | grep -q "from $prefix/.*share/capalab/sql" || fail "migrations not taken from the install: $out"
echo "installed into $prefix: 4 programs, $(ls "$prefix"/share/capalab/sql | wc -l) migrations, configs; migrate ok"
