#!/bin/bash
# fake_uci_engine.sh - a misbehaving UCI engine for the capa match tests.
#
# FAKE_UCI_MODE says how it misbehaves:
#   garbage  writes one line that is not UCI and exits
#   silent   reads everything and never answers (not a UCI engine)
#   crash    plays through FAKE_UCI_ENGINE, then exits on its FAKE_UCI_AFTER-th "go"
#   hang     plays through FAKE_UCI_ENGINE, then ignores every "go" from the
#            FAKE_UCI_AFTER-th on (no bestmove ever comes)
#   illegal  plays through FAKE_UCI_ENGINE, then answers its FAKE_UCI_AFTER-th
#            "go" with a move that is not legal
# Plays through: every line goes on to the real engine, whose output is ours.
mode=${FAKE_UCI_MODE:-crash}
after=${FAKE_UCI_AFTER:-3}
case "$mode" in
garbage)
    echo "hello, I am not a chess engine"
    exit 0 ;;
silent)
    while read -r line; do :; done
    exit 0 ;;
esac
exec 3> >(exec "$FAKE_UCI_ENGINE")
engine=$!
gos=0
while IFS= read -r line; do
    case "$line" in
    go*)
        gos=$((gos + 1))
        if [ "$gos" -ge "$after" ]; then
            case "$mode" in
            crash) kill -9 "$engine"; exit 3 ;;
            hang) continue ;;
            illegal) echo "bestmove a1a1"; continue ;;
            esac
        fi ;;
    quit)
        printf '%s\n' "$line" >&3
        exit 0 ;;
    esac
    printf '%s\n' "$line" >&3
done
