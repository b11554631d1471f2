#!/usr/bin/env python3
"""depth_in_game.py - the depth two UCI engines reach at equal nodes, position by position.

Plays one game of the reference engine against itself at --nodes a move from
a FEN (caparandom) and has both engines search every position of it at the
same node count, each twice: "warm" (one process for the whole game, so the
hash table carries over from the ply before) and "cold" ("ucinewgame" before
each search). Prints a line a ply (ply, reference warm, reference cold, test
warm, test cold: the depth of the last "info depth" line with a PV and no
bound) and the means, over all plies and over the plies where no engine
reported a mate score, since a search that has found a mate runs on to its
greatest depth (Fairy-Stockfish: 245) in a few nodes.

    scripts/depth_in_game.py --reference /usr/games/fairy-stockfish \\
        --test build/dev/capa-engine --nodes 10000 --plies 250 \\
        --fen "$(build/dev/capa-engine crc fen 12345)"
"""
import argparse
import re
import subprocess
import sys

INFO = re.compile(r"^info depth (\d+) .*score (cp|mate) (-?\d+)")


class Engine:
    def __init__(self, path, variant):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name UCI_Variant value " + variant)
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, token):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("engine exited")
            if line.startswith(token):
                return line

    def search(self, fen, moves, nodes, cold):
        """Returns (depth, mate score seen, best move)."""
        if cold:
            self.send("ucinewgame")
        self.send("position fen " + fen + (" moves " + " ".join(moves) if moves else ""))
        self.send("go nodes %d" % nodes)
        depth, mate = 0, False
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("engine exited")
            m = INFO.match(line)
            if m and "bound" not in line and " pv " in line:
                depth, mate = int(m.group(1)), m.group(2) == "mate"
            if line.startswith("bestmove"):
                return depth, mate, line.split()[1]

    def quit(self):
        self.send("quit")
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", required=True, help="plays the game; e.g. fairy-stockfish")
    ap.add_argument("--test", required=True, help="the engine compared with it")
    ap.add_argument("--fen", required=True)
    ap.add_argument("--variant", default="caparandom")
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--plies", type=int, default=250)
    a = ap.parse_args()
    engines = [Engine(a.reference, a.variant), Engine(a.reference, a.variant),
               Engine(a.test, a.variant), Engine(a.test, a.variant)]
    moves = []
    rows = []
    for ply in range(a.plies):
        results = [e.search(a.fen, moves, a.nodes, cold=(i % 2 == 1))
                   for i, e in enumerate(engines)]
        best = results[0][2]
        if best in ("(none)", "0000"):
            break
        depths = [r[0] for r in results]
        mate = any(r[1] for r in results)
        rows.append((depths, mate))
        print(ply, *depths, "mate" if mate else "", flush=True)
        moves.append(best)
    for e in engines:
        e.quit()
    names = ("reference warm", "reference cold", "test warm", "test cold")
    for label, sel in (("all plies", rows), ("no mate score", [r for r in rows if not r[1]])):
        if not sel:
            continue
        means = [sum(r[0][i] for r in sel) / len(sel) for i in range(4)]
        print("%s (%d): " % (label, len(sel)) +
              ", ".join("%s %.1f" % (n, m) for n, m in zip(names, means)))


if __name__ == "__main__":
    main()
