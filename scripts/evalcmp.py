#!/usr/bin/env python3
"""evalcmp.py - where capa-engine's scores part from a reference engine's, by material.

  evalcmp.py score EPD N [--ref PATH] [--ref-nodes N] [--engine PATH] [--nodes N] > out.tsv
  evalcmp.py fit out.tsv[,more.tsv] [--limit CP]

score: the first N positions of EPD (as `capa tune --save-epd` writes them)
are searched by both engines (after ucinewgame, go nodes); one line each:
the reference's score, capa-engine's score (centipawns, White's view; a
mate counts as +-3000) and the FEN. The reference runs as UCI_Variant
capablanca with UCI_Chess960 (Fairy-Stockfish's name for caparandom).

fit: positions where both scores are within --limit (400) are fitted by
least squares, ref = k x capa + sum over piece kinds of d_kind x (White's
count - Black's), for all positions and split by game phase (N, B 1; R 2;
A, C, Q 4; 24 or more is the middle game). Printed is d_kind / k, in
capa-engine's centipawns, with its 95% interval: how much less (negative)
or more the reference makes of one more piece of that kind than
capa-engine's own score already does.
"""
import re
import subprocess
import sys

KINDS = "pnbracq"
PHASE = {"n": 1, "b": 1, "r": 2, "a": 4, "c": 4, "q": 4}


def s_engine(path, options):
    p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")

    def wait(token):
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit(f"evalcmp: {path} exited")
            if line.startswith(token):
                return

    send("uci")
    wait("uciok")
    for name, value in options:
        send(f"setoption name {name} value {value}")
    send("isready")
    wait("readyok")
    return p, send


def s_score(engine, fen, nodes):
    p, send = engine
    send("ucinewgame")
    send(f"position fen {fen}")
    send(f"go nodes {nodes}")
    score = None
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("evalcmp: an engine exited")
        m = re.search(r"score (cp|mate) (-?\d+)", line)
        if m:
            v = int(m.group(2))
            score = v if m.group(1) == "cp" else (3000 if v > 0 else -3000)
        if line.startswith("bestmove"):
            return score


def s_opt(args, name, default):
    if name in args:
        i = args.index(name)
        return args[i + 1]
    return default


def score(args):
    epd, count = args[0], int(args[1])
    ref = s_engine(s_opt(args, "--ref", "/usr/games/fairy-stockfish"),
                   [("UCI_Variant", "capablanca"), ("UCI_Chess960", "true")])
    capa = s_engine(s_opt(args, "--engine", "capa-engine"), [("UCI_Variant", "caparandom")])
    ref_nodes = int(s_opt(args, "--ref-nodes", "100000"))
    nodes = int(s_opt(args, "--nodes", "20000"))
    done = 0
    for line in open(epd):
        if line.startswith("#") or not line.strip():
            continue
        if done >= count:
            break
        fen = line.split(" [")[0].strip()
        white = 1 if fen.split()[1] == "w" else -1
        a, b = s_score(ref, fen, ref_nodes), s_score(capa, fen, nodes)
        if a is not None and b is not None:
            print(f"{white * a}\t{white * b}\t{fen}", flush=True)
        done += 1


def s_features(fen):
    count = {}
    for ch in fen.split()[0]:
        if ch.isalpha():
            count[ch] = count.get(ch, 0) + 1
    phase = sum(PHASE.get(ch.lower(), 0) * n for ch, n in count.items())
    return [count.get(k.upper(), 0) - count.get(k, 0) for k in KINDS], phase


def s_solve(a, y):
    """Least squares by the normal equations; returns (coefficients, the
    inverse of A'A, the residual variance)."""
    n, m = len(a), len(a[0])
    ata = [[sum(a[r][i] * a[r][j] for r in range(n)) for j in range(m)] for i in range(m)]
    aty = [sum(a[r][i] * y[r] for r in range(n)) for i in range(m)]
    inv = [row[:] + [1.0 if i == j else 0.0 for j in range(m)] for i, row in enumerate(ata)]
    for c in range(m):
        piv = max(range(c, m), key=lambda r: abs(inv[r][c]))
        inv[c], inv[piv] = inv[piv], inv[c]
        if abs(inv[c][c]) < 1e-12:
            sys.exit("evalcmp: too few positions for a fit (a piece kind never differs)")
        d = inv[c][c]
        inv[c] = [v / d for v in inv[c]]
        for r in range(m):
            if r != c and inv[r][c] != 0:
                f = inv[r][c]
                inv[r] = [v - f * w for v, w in zip(inv[r], inv[c])]
    inv = [row[m:] for row in inv]
    coef = [sum(inv[i][j] * aty[j] for j in range(m)) for i in range(m)]
    res = [y[r] - sum(coef[j] * a[r][j] for j in range(m)) for r in range(n)]
    var = sum(e * e for e in res) / (n - m)
    return coef, inv, var


def fit(args):
    limit = int(s_opt(args, "--limit", "400"))
    rows = []
    for name in args[0].split(","):
        for line in open(name):
            ref, capa, fen = line.rstrip("\n").split("\t")
            if abs(int(ref)) < limit and abs(int(capa)) < limit:
                diff, phase = s_features(fen)
                rows.append((int(ref), int(capa), diff, phase))
    for label, keep in (("all", lambda ph: True), ("phase >= 24", lambda ph: ph >= 24),
                        ("phase < 24", lambda ph: ph < 24)):
        sel = [r for r in rows if keep(r[3])]
        if len(sel) <= len(KINDS) + 1:
            print(f"{label}: {len(sel)} positions, too few")
            continue
        coef, inv, var = s_solve([[r[1]] + r[2] for r in sel], [r[0] for r in sel])
        k = coef[0]
        terms = " ".join(f"{kind} {coef[i + 1] / k:+.0f} +-{1.96 * (var * inv[i + 1][i + 1]) ** 0.5 / k:.0f}"
                         for i, kind in enumerate(KINDS))
        print(f"{label}: {len(sel)} positions, k {k:.2f}; {terms}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("score", "fit"):
        sys.exit(__doc__)
    (score if sys.argv[1] == "score" else fit)(sys.argv[2:])
