#!/usr/bin/env python3
"""evalcmp.py - where capa-engine's scores part from a reference engine's, by material.

  evalcmp.py REF.epd CAPA.epd [REF2.epd CAPA2.epd ...] [--limit CP] [--pawns]
             [--terms CAPA-ENGINE [--option NAME=VALUE ...]]

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

With --pawns, the fit also takes the differences (White's - Black's) of
bishop pairs, doubled and isolated pawns and passed pawns by rank (ranks
2 to 4, 5 and 6, the seventh, each from its own side): how much more the
reference makes of each than capa-engine's score does.

With --terms CAPA-ENGINE, capa-engine's score is split instead into the
groups of its own evaluation terms (material, placement, mobility, king
danger, ... as its UCI command `eval` gives them under its default
parameters, centipawns from White's view), what they leave of its static
score (interplay: the terms do not add up exactly) and what its search
adds to its static score (search), and the fit is

    ref = sum over groups of w_g x term_g + w_i x interplay + w_s x search

with no k: w_g is how many of the reference's centipawns go with one of
ours in that group. Were the two evaluations the same up to scale, every
w_g would be the same number (the reference's scale, k above); a group
whose w_g stands above the others is one the reference makes more of
than we do, relative to the rest. (With k in the fit, the groups, which
add up to nearly the whole static score, would be nearly collinear with
capa's score, and each d_g / k would be known only up to an offset
shared by all.) A group that is 0 in every position of a row is left
out of that row.

--option NAME=VALUE (repeatable, with --terms) sets one of capa-engine's
parameters before the groups are taken, as `capa match --option` does:
the groups are then those of the engine under test (for example with
new terms switched on) rather than of the defaults. An option the engine
refuses stops the script with the engine's reason.
"""
import argparse
import math
import subprocess
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


PAWN_TERMS = ["bishop pair", "doubled", "isolated", "passed 2-4", "passed 5-6", "passed 7"]


def s_board(fen):
    """The board of a FEN as a list of ranks (rank 8 first), each a list of
    piece letters or None, ten files wide (or as wide as the FEN is)."""
    ranks = []
    for row in fen.split()[0].split("/"):
        squares, digits = [], ""
        for ch in row:
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                squares += [None] * int(digits)
                digits = ""
            squares.append(ch)
        if digits:
            squares += [None] * int(digits)
        ranks.append(squares)
    return ranks


def s_pawn_features(fen):
    """White's minus Black's count of each of PAWN_TERMS."""
    ranks = s_board(fen)
    height, width = len(ranks), max(len(r) for r in ranks)
    out = [0] * len(PAWN_TERMS)
    for side, sign, pawn, bishop in ((0, 1, "P", "B"), (1, -1, "p", "b")):
        colours = set()
        files = {}
        for y, row in enumerate(ranks):
            for x, ch in enumerate(row):
                if ch == bishop:
                    colours.add((x + y) % 2)
                if ch == pawn:
                    files.setdefault(x, []).append(y)
        enemy = "p" if pawn == "P" else "P"
        out[0] += sign * (len(colours) == 2)
        for x, ys in files.items():
            out[1] += sign * (len(ys) - 1)
            if x - 1 not in files and x + 1 not in files:
                out[2] += sign * len(ys)
            for y in ys:
                rank = height - y if side == 0 else y + 1  # 1..8 from its own side
                ahead = range(0, y) if side == 0 else range(y + 1, height)
                blocked = any(ranks[yy][xx] == enemy for yy in ahead
                              for xx in (x - 1, x, x + 1) if 0 <= xx < width and xx < len(ranks[yy]))
                if not blocked:
                    out[3 if rank <= 4 else 4 if rank <= 6 else 5] += sign
    return out


def s_engine_terms(engine, fens, options=()):
    """capa-engine's `eval` groups for each FEN under the NAME=VALUE
    options: (names, one list of values per FEN, or None where the engine
    refused the FEN, and each FEN's static score from White's view)."""
    lines = ["setoption name UCI_Variant value caparandom"]
    for opt in options:
        name, eq, value = opt.partition("=")
        if not eq or not name or not value or " " in name + value:
            sys.exit(f"evalcmp: --option {opt!r}: want NAME=VALUE")
        lines.append(f"setoption name {name} value {value}")
    lines.append("isready")
    for fen in fens:
        lines += [f"position fen {fen}", "eval"]
    lines.append("quit")
    out = subprocess.run([engine], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout
    names, rows, totals, cur, bad = [], [], [], [], False
    answer = out.splitlines()
    if "readyok" not in answer:
        sys.exit(f"evalcmp: {engine} did not answer isready")
    ready = answer.index("readyok")
    refused = [ln[len("info string "):] for ln in answer[:ready] if ln.startswith("info string")]
    if refused:
        sys.exit(f"evalcmp: {engine} refused an option: {'; '.join(refused)}")
    for line in answer[ready + 1:]:
        if line.startswith("info string term "):
            name, value = line.split()[3:5]
            if len(rows) == 0 and name not in names:
                names.append(name)
            cur.append(int(value))
        elif line.startswith("info string eval "):
            rows.append(None if bad or len(cur) != len(names) else cur)
            totals.append(int(line.split()[5]))
            cur, bad = [], False
        elif line.startswith("info string"):
            bad = True
    if len(rows) != len(fens):
        sys.exit(f"evalcmp: {engine} answered {len(rows)} evals for {len(fens)} positions")
    return names, rows, totals


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
            sys.exit("evalcmp: too few positions for a fit (a term never differs)")
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


def s_args(args):
    """(files, limit, engine, options, pawns) from the command line."""
    ap = argparse.ArgumentParser(prog="evalcmp.py", usage=__doc__.split("\n\n")[1])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--terms", dest="engine")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--pawns", action="store_true")
    a = ap.parse_intermixed_args(args)
    if a.option and not a.engine:
        sys.exit("evalcmp: --option goes with --terms")
    if len(a.files) < 2 or len(a.files) % 2:
        sys.exit(__doc__)
    return a.files, a.limit, a.engine, a.option, a.pawns


def fit(args):
    files, limit, engine, options, pawns = s_args(args)
    names = list(KINDS) + (PAWN_TERMS if pawns else [])
    rows = []
    for ref_name, capa_name in zip(files[0::2], files[1::2]):
        ref, capa = s_epd(ref_name), s_epd(capa_name)
        if [f for f, _ in ref] != [f for f, _ in capa]:
            sys.exit(f"evalcmp: {ref_name} and {capa_name} do not hold the same positions")
        kept = [(fen, r, c) for (fen, r), (_, c) in zip(ref, capa) if abs(r) < limit and abs(c) < limit]
        if engine:
            names, groups, totals = s_engine_terms(engine, [fen for fen, _, _ in kept], options)
            names = names + ["interplay", "search"]
        for i, (fen, r, c) in enumerate(kept):
            diff, phase = s_features(fen)
            if engine:
                if groups[i] is None:
                    continue
                diff = groups[i] + [totals[i] - sum(groups[i]), c - totals[i]]
            elif pawns:
                diff += s_pawn_features(fen)
            rows.append((r, c, diff, phase))
    for label, keep in (("all", lambda ph: True), ("phase >= 24", lambda ph: ph >= 24),
                        ("phase < 24", lambda ph: ph < 24)):
        sel = [r for r in rows if keep(r[3])]
        if len(sel) <= len(names) + 1:
            print(f"{label}: {len(sel)} positions, too few")
            continue
        # a feature that is 0 in every position of this subset is left out
        cols = [j for j in range(len(names)) if any(r[2][j] for r in sel)]
        if engine:
            coef, inv, var = s_solve([[r[2][j] for j in cols] for r in sel], [r[0] for r in sel])
            terms = "; ".join(f"{names[j]} {coef[i]:.2f} +-{1.96 * (var * inv[i][i]) ** 0.5:.2f}"
                              for i, j in enumerate(cols))
            print(f"{label}: {len(sel)} positions; {terms}")
            continue
        coef, inv, var = s_solve([[r[1]] + [r[2][j] for j in cols] for r in sel], [r[0] for r in sel])
        k = coef[0]
        terms = "; ".join(f"{names[j]} {coef[i + 1] / k:+.0f} +-{1.96 * (var * inv[i + 1][i + 1]) ** 0.5 / k:.0f}"
                          for i, j in enumerate(cols))
        print(f"{label}: {len(sel)} positions, k {k:.2f}; {terms}")


if __name__ == "__main__":
    fit(sys.argv[1:])
