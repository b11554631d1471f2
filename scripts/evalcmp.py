#!/usr/bin/env python3
"""evalcmp.py - where capa-engine's scores part from a reference engine's, by material.

  evalcmp.py REF.epd CAPA.epd [REF2.epd CAPA2.epd ...] [--limit CP]

Each pair of files holds the same positions, in the same order, labelled
by two engines' searches as `capa tune --label-engine` writes them (with
--save-epd): sigmoid(cp / 400) from White's view, 1 or 0 for a mate. The
labels are turned back into centipawns (a mate counts as +-3000), and the
positions where both scores are within --limit (400) are fitted by least
squares, ref = k x capa + sum over piece kinds of d_kind x (White's count -
Black's), for all positions and split by game phase (N, B 1; R 2; A, C, Q
4; 24 or more is the middle game). Printed is d_kind / k, in capa-engine's
centipawns, with its 95% interval: how much less (negative) or more the
reference makes of one more piece of that kind than capa-engine's own
score already does.
"""
import math
import sys

KINDS = "pnbracq"
PHASE = {"n": 1, "b": 1, "r": 2, "a": 4, "c": 4, "q": 4}


def s_epd(name):
    """The (FEN, centipawns) of each position of a labelled EPD file."""
    out = []
    for line in open(name):
        if line.startswith("#") or not line.strip():
            continue
        fen, _, label = line.rstrip("]\n").rpartition(" [")
        p = float(label)
        cp = 3000 if p >= 1 else -3000 if p <= 0 else round(400 * math.log10(p / (1 - p)))
        out.append((fen, cp))
    return out


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
    limit = int(args[args.index("--limit") + 1]) if "--limit" in args else 400
    files = [a for i, a in enumerate(args) if a != "--limit" and (i == 0 or args[i - 1] != "--limit")]
    if len(files) < 2 or len(files) % 2:
        sys.exit(__doc__)
    rows = []
    for ref_name, capa_name in zip(files[0::2], files[1::2]):
        ref, capa = s_epd(ref_name), s_epd(capa_name)
        if [f for f, _ in ref] != [f for f, _ in capa]:
            sys.exit(f"evalcmp: {ref_name} and {capa_name} do not hold the same positions")
        for (fen, r), (_, c) in zip(ref, capa):
            if abs(r) < limit and abs(c) < limit:
                diff, phase = s_features(fen)
                rows.append((r, c, diff, phase))
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
    fit(sys.argv[1:])
