#!/usr/bin/env bash
# capa-worker's bad input, `setup` and `status` (ctest worker_cli, label
# integration): each bad input is one ERROR line naming the problem, a
# non-zero exit status (2 = bad config, 1 = state folder), and nothing
# half-written. The disk cases mount small tmpfs folders and need root;
# without root they are skipped with a message.
#   test_worker_cli.sh BUILD_DIR
set -uo pipefail
bin=${1:?usage: $0 BUILD_DIR}/capa-worker
work=$(mktemp -d /tmp/capa-worker-cli-XXXXXX)
mounts=()
failures=0
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
ok() { printf 'ok: %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

# expect STATUS PATTERN -- ARGS: exit status STATUS, exactly one ERROR line (or
# one stderr line for setup/status), matching PATTERN.
expect() {
  local want=$1 pattern=$2
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$? errs
  errs=$(grep -c ' ERROR \|^capa-worker setup: \|^capa-worker status: ' "$work/err")
  if [ "$rc" = "$want" ] && [ "$errs" = 1 ] && grep -q -- "$pattern" "$work/err"; then
    ok "$* -> exit $rc: $(grep ' ERROR \|^capa-worker setup: \|^capa-worker status: ' "$work/err" | sed 's/^.* ERROR //')"
  else
    fail "$* -> exit $rc (want $want), $errs error line(s), want /$pattern/:"
    sed 's/^/    /' "$work/err" | grep -v ' INFO config ' | tail -n 5
  fi
}
# the folder holds no file
empty() {
  if [ -z "$(find "$1" -mindepth 1 -not -name 'lost+found' 2>/dev/null)" ]; then ok "$1 holds nothing"
  else fail "$1 holds: $(find "$1" -mindepth 1 | tr '\n' ' ')"; fi
}

# ------------------------------------------------------------- config
printf '{"coordinator": "tcp://127.0.0.1:5555", "coordinatr": "x"}\n' >"$work/typo.json"
expect 2 'typo.json: coordinatr: unknown key' -- "$bin" --config "$work/typo.json" --state-dir "$work/s1"
[ ! -e "$work/s1" ] && ok "no state folder made for a bad config" || fail "state folder made"
expect 2 'coordinator: "tcp://coord.example" has no host and port' -- \
  "$bin" --coordinator tcp://coord.example --token capa_x --state-dir "$work/s1"
expect 2 'the port must be 1..65535' -- "$bin" --coordinator tcp://127.0.0.1:70000 --token capa_x --state-dir "$work/s1"
expect 2 'is not tcp://HOST:PORT' -- "$bin" --coordinator 127.0.0.1:5555 --token capa_x --state-dir "$work/s1"
expect 2 'stop_at: "25:00" is not HH:MM' -- "$bin" --stop-at 25:00 --token capa_x --state-dir "$work/s1"
expect 2 'max_memory_mb 20 is below one game thread' -- "$bin" --max-memory-mb 20 --token capa_x --state-dir "$work/s1"
[ ! -e "$work/s1" ] && ok "still no state folder" || fail "state folder made"

# ------------------------------------------------------------- token file
expect 2 "cannot read $work/no-such-token: No such file or directory" -- \
  "$bin" --token-file "$work/no-such-token" --state-dir "$work/s2"
mkdir "$work/tokdir"
expect 2 "cannot read $work/tokdir: Is a directory" -- "$bin" --token-file "$work/tokdir" --state-dir "$work/s2"
: >"$work/empty-token"
expect 2 "$work/empty-token is empty" -- "$bin" --token-file "$work/empty-token" --state-dir "$work/s2"
empty "$work/s2"

# ------------------------------------------------------------- state folder on a bad disk
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$work/ro" "$work/full"
  if mount -t tmpfs -o size=64k,ro tmpfs "$work/ro" 2>/dev/null; then
    mounts+=("$work/ro")
    expect 1 "cannot create folder $work/ro/w: Read-only file system" -- \
      "$bin" --token capa_x --state-dir "$work/ro/w"
    mount -o remount,rw "$work/ro" && mkdir "$work/ro/w" && mount -o remount,ro "$work/ro"
    expect 1 "state folder $work/ro/w is not writable: Read-only file system" -- \
      "$bin" --token capa_x --state-dir "$work/ro/w"
  else
    echo "SKIP (part): cannot mount a tmpfs"
  fi
  if mount -t tmpfs -o size=32k tmpfs "$work/full" 2>/dev/null; then
    mounts+=("$work/full")
    mkdir "$work/full/w"
    dd if=/dev/zero of="$work/full/filler" bs=4k 2>/dev/null
    expect 1 "state folder $work/full/w is not writable: No space left on device" -- \
      "$bin" --token capa_x --state-dir "$work/full/w"
    empty "$work/full/w"
  fi
else
  echo "SKIP (part): not root, the read-only and full-disk cases need tmpfs mounts"
fi

# ------------------------------------------------------------- setup
tok=capa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
cfg="$work/etc/capalab/worker.json"
if "$bin" setup --config "$cfg" --coordinator tcp://10.0.0.5:5555 --token "$tok" --nice 10 >"$work/out" 2>&1 &&
   grep -q "wrote $cfg: coordinator tcp://10.0.0.5:5555, token capa_AAAA..." "$work/out"; then
  ok "setup wrote $cfg"
else
  fail "setup: $(cat "$work/out")"
fi
[ "$(stat -c %a "$cfg" 2>/dev/null)" = 600 ] && ok "config file mode 600" || fail "mode $(stat -c %a "$cfg")"
python3 - "$cfg" "$tok" <<'PY' && ok "config holds coordinator, token, nice" || fail "config content: $(cat "$cfg")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"coordinator": "tcp://10.0.0.5:5555", "token": sys.argv[2], "nice": 10}, d
PY
# a second setup keeps the other keys
"$bin" setup --config "$cfg" --coordinator tcp://10.0.0.6:5555 --token "$tok" >/dev/null 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["nice"] == 10 and d["coordinator"] == "tcp://10.0.0.6:5555"' "$cfg" &&
  ok "setup again: coordinator changed, nice kept" || fail "after the second setup: $(cat "$cfg")"
sum=$(md5sum <"$cfg")
expect 2 'coordinator: "tcp://nowhere" has no host and port' -- "$bin" setup --config "$cfg" --coordinator tcp://nowhere --token "$tok"
expect 2 'token: ' -- "$bin" setup --config "$cfg" --coordinator tcp://10.0.0.5:5555 --token 'not a token'
expect 2 'concurency: unknown key' -- "$bin" setup --config "$cfg" --coordinator tcp://10.0.0.5:5555 --token "$tok" --concurency 3
expect 2 'give --coordinator and --token' -- "$bin" setup --config "$cfg" --coordinator tcp://10.0.0.5:5555
[ "$(md5sum <"$cfg")" = "$sum" ] && ok "refused setups left the file as it was" || fail "config changed: $(cat "$cfg")"
[ -z "$(ls "$work/etc/capalab" | grep -v '^worker.json$')" ] && ok "no temp files left" || fail "left: $(ls "$work/etc/capalab")"
if [ "$(id -u)" = 0 ] && [ ${#mounts[@]} -gt 0 ]; then
  expect 1 "cannot write $work/ro/worker.json: Read-only file system" -- \
    "$bin" setup --config "$work/ro/worker.json" --coordinator tcp://10.0.0.5:5555 --token "$tok"
fi

# ------------------------------------------------------------- status
"$bin" status --config "$cfg" --state-dir "$work/never" >"$work/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "no $work/never/status.json: this worker has not run yet" "$work/out"; then
  ok "status of a worker that never ran: exit 1, says so"
else
  fail "status: exit $rc: $(cat "$work/out")"
fi
[ ! -e "$work/never" ] && ok "status created nothing" || fail "status made $work/never"

if [ $failures -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all checks passed"
