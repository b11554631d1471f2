#!/bin/sh
# capa match --state: a second run goes on from the first run's counts (one
# SPRT over both), the state file holding every seed and the counts; a seed
# played before, another limit or a forged file are refused with a sentence
# and leave the file as it was.
# usage: state_resume.sh CAPA CAPA_ENGINE
set -eu
capa=$1
engine=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
st=$dir/run.state

fail() {
    echo "FAIL: $*"
    for f in "$dir"/*; do echo "--- $f"; cat "$f"; done
    exit 1
}
run() {
    "$capa" match --engine "$engine" --name base --engine "$engine" --name new \
        --sprt 0,10 --games 4 --report-every 1 --state "$st" "$@"
}

run --nodes 300 --seed 1 > "$dir/first.out" 2>&1 || fail "first run"
grep -q "^pairs 2: " "$dir/first.out" || fail "first run: no status line for 2 pairs"
grep -qx "seeds 1" "$st" || fail "first run: seeds"
grep -q "^counts 2 " "$st" || fail "first run: counts"

run --nodes 300 --seed 2 > "$dir/second.out" 2>&1 || fail "second run"
grep -q "^going on from $st (seeds 1): pairs 2: " "$dir/second.out" || fail "second run: no resume line"
grep -q "^pairs 3: " "$dir/second.out" || fail "second run: does not count on from 2 pairs"
grep -q "^pairs 4: " "$dir/second.out" || fail "second run: does not reach 4 pairs"
grep -q "^Pairs: 4  Games: 8  " "$dir/second.out" || fail "second run: the SPRT does not take in both runs"
grep -q "^new vs base: 4 games" "$dir/second.out" || fail "second run: its own games miscounted"
grep -qx "seeds 1 2" "$st" || fail "second run: seeds"
grep -q "^counts 4 " "$st" || fail "second run: counts"
cp "$st" "$dir/kept"

if run --nodes 300 --seed 2 > "$dir/same-seed.out" 2>&1; then fail "a seed played before was accepted"; fi
grep -q "seed 2 was played already" "$dir/same-seed.out" || fail "same seed: no reason given"
if run --nodes 400 --seed 3 > "$dir/other-limit.out" 2>&1; then fail "another limit was accepted"; fi
grep -q "it was played at 300 nodes a move; this match is at 400 nodes a move" "$dir/other-limit.out" ||
    fail "other limit: no reason given"
cmp -s "$st" "$dir/kept" || fail "a refused run changed the state file"

sed 's/^counts 4 /counts 5 /' "$dir/kept" > "$st"
if run --nodes 300 --seed 3 > "$dir/forged.out" 2>&1; then fail "a forged state was accepted"; fi
grep -q "line 7: the counts do not add up" "$dir/forged.out" || fail "forged: no reason given"
echo "state_resume: ok"
