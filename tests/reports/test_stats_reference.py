"""lib/stats/stats.c's special functions against an independent reference.

The p-values of the comparison reports (lib/report/compare.c, lib/stats/verdict.c) come
from sb_student_t_p2, the regularized incomplete beta function I_x(a, b) at
x = df / (df + t^2). build/tests/tools/stats-eval evaluates the C functions
on a grid, and Debian's python3-scipy (scripts/deps/test.list) gives the
reference: scipy.special.betainc and scipy.stats.t.sf. Values agree to a
relative 1e-9 wherever the reference is a normal double (> 1e-300, so the
far tails are held to it too), and to an absolute 1e-14 below that (0 and
subnormal values, where a relative error means nothing).

scipy is a dependency of the tests, installed by `make deps`: without it
these tests fail, they do not skip.
"""
import math
import os
import subprocess

try:
    import scipy.special as sp_special
    import scipy.stats as sp_stats
except ImportError:  # reported by each test as a failure
    sp_special = sp_stats = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "build/tests/tools/stats-eval")

AB = (0.5, 1.0, 2.5, 10.0, 100.0, 1000.0)
XS = (1e-6, 0.01, 0.3, 0.5, 0.9, 0.999999)
TS = (0.0, 0.1, 1.0, 2.5, 10.0, 50.0)
DFS = (1.0, 2.0, 3.7, 10.0, 30.0, 1000.0, 1e6)
REL, ABS, TINY = 1e-9, 1e-14, 1e-300


def need_scipy():
    assert sp_special is not None, (
        "python3-scipy is missing; it is the reference of this test and "
        "scripts/deps/test.list installs it (make deps)")


def evaluate(queries):
    """Our values for the query lines (see tests/tools/stats-eval.c)."""
    assert os.access(TOOL, os.X_OK), f"{TOOL} is not built (make unit-bins)"
    proc = subprocess.run([TOOL], input="".join(q + "\n" for q in queries),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.split()
    assert len(out) == len(queries), proc.stdout
    return [float(v) for v in out]


def rel_err(ours, ref):
    if ours == ref:
        return 0.0
    return abs(ours - ref) / abs(ref) if ref != 0 else math.inf


def agree(ours, ref):
    if not math.isfinite(ours):
        return False
    return rel_err(ours, ref) <= REL if abs(ref) > TINY else abs(ours - ref) <= ABS


def compare(points, ours, refs):
    """The points that disagree, and the worst relative error where the
    reference is a normal double."""
    bad, worst = [], (0.0, None)
    for pt, o, r in zip(points, ours, refs):
        if not agree(o, r):
            bad.append(f"{pt}: ours {o!r}, scipy {r!r}, relative error {rel_err(o, r):.3g}")
        if r > TINY and rel_err(o, r) > worst[0]:
            worst = (rel_err(o, r), pt)
    return bad, worst


def test_betainc_grid():
    need_scipy()
    points = [(a, b, x) for a in AB for b in AB for x in XS]
    ours = evaluate([f"betainc {a!r} {b!r} {x!r}" for a, b, x in points])
    refs = [float(sp_special.betainc(a, b, x)) for a, b, x in points]
    bad, worst = compare(points, ours, refs)
    print(f"betainc: {len(points)} points, worst relative error {worst[0]:.3g} at {worst[1]}")
    assert not bad, "\n".join(bad)


def test_student_t_grid():
    need_scipy()
    # both signs: the two-sided p-value depends on |t| only
    points = [(t, df) for t in TS for df in DFS] + [(-t, df) for t in TS[1:] for df in DFS]
    ours = evaluate([f"t2 {t!r} {df!r}" for t, df in points])
    refs = [min(1.0, 2.0 * float(sp_stats.t.sf(abs(t), df))) for t, df in points]
    bad, worst = compare(points, ours, refs)
    print(f"t2: {len(points)} points, worst relative error {worst[0]:.3g} at {worst[1]}")
    assert not bad, "\n".join(bad)


def test_grid_is_not_trivial():
    """The grids reach both tails and the middle (a check that a grid of
    zeros and ones passing would not be a check)."""
    need_scipy()
    vals = [float(sp_special.betainc(a, b, x)) for a in AB for b in AB for x in XS]
    assert sum(TINY < v < 1e-6 for v in vals) >= 40
    assert sum(0.01 < v < 0.99 for v in vals) >= 50
    assert sum(1 - 1e-6 < v < 1 for v in vals) >= 50
    ps = [2.0 * float(sp_stats.t.sf(t, df)) for t in TS for df in DFS]
    assert sum(TINY < p < 1e-6 for p in ps) >= 5
    assert sum(0.01 < p < 0.99 for p in ps) >= 20


def test_tool_names_a_bad_line():
    assert os.access(TOOL, os.X_OK), f"{TOOL} is not built (make unit-bins)"
    proc = subprocess.run([TOOL], input="t2 1 10\nbetainc 1 2\n", capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2
    assert "line 2" in proc.stderr and "betainc 1 2" in proc.stderr
