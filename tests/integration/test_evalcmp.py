#!/usr/bin/env python3
"""test_evalcmp.py CAPA-ENGINE EVALCMP.py POSITIONS.fen TMPDIR

scripts/evalcmp.py --terms, end to end: a made-up reference whose scores
are capa-engine's static scores plus half its mobility group and less a
third of its king-danger group must come out of the fit with weights 1.5
for mobility, 0.67 for king danger and 1 for every other group; a
reference equal to capa-engine gives 1 for all. Exit 0 when it does, 1
with the reason."""
import os
import subprocess
import sys

engine, script, positions, tmp = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
import evalcmp  # noqa: E402

fens = [line.strip() for line in open(positions) if line.strip()]
names, terms, totals = evalcmp.s_engine_terms(engine, fens)
if len(terms) != len(fens) or any(t is None for t in terms):
    sys.exit(f"FAIL: {engine} did not evaluate every position")
mob, kd = names.index("mobility"), names.index("king-danger")
if not any(t[kd] for t in terms) or not any(t[mob] for t in terms):
    sys.exit("FAIL: the positions have no mobility or king-danger terms to test with")


def s_label(cp):
    return 1 / (1 + 10 ** (-cp / 400))


def s_write(name, cps):
    with open(name, "w") as f:
        for fen, cp in zip(fens, cps):
            f.write(f"{fen} [{s_label(cp):.9f}]\n")


os.makedirs(tmp, exist_ok=True)
capa, same, ref = (os.path.join(tmp, n) for n in ("capa.epd", "same.epd", "ref.epd"))
s_write(capa, totals)
s_write(same, totals)
s_write(ref, [c + 0.5 * t[mob] - t[kd] / 3 for c, t in zip(totals, terms)])


def s_fit(ref_file):
    out = subprocess.run([sys.executable, script, ref_file, capa, "--terms", engine,
                          "--limit", "100000"], capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("all:"))
    got = {}
    for part in line.split("; ")[1:]:
        name, value = part.split()[:2]
        got[name] = float(value)
    return got, line


got, line = s_fit(ref)
want = {"mobility": 1.5, "king-danger": 2 / 3}
for name, value in got.items():
    if abs(value - want.get(name, 1.0)) > 0.03:
        sys.exit(f"FAIL: {name} {value:.2f}, want {want.get(name, 1.0):.2f}: {line}")
if "mobility" not in got or "king-danger" not in got or "material" not in got:
    sys.exit(f"FAIL: a group is missing: {line}")
got, line = s_fit(same)
if any(abs(v - 1) > 0.03 for v in got.values()):
    sys.exit(f"FAIL: a reference equal to capa-engine: {line}")
print("ok: " + line)
