"""The golden SVG charts in tests/fixtures/svg, parsed as XML and checked
against the fixture reports in tests/fixtures/reports they were drawn from.

The unit test tests/unit/report/test_report_svg.c keeps each golden file equal,
byte for byte, to what lib/report/svg/svg.c renders, so these checks hold for
the renderer. They recompute from the report JSON, independently of the C
code, what each chart must show: one series per target, an error bar per
bar with two or more iterations, bar lengths proportional to the means, a
stddev band per fsync line.
"""
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SVG = os.path.join(ROOT, "tests/fixtures/svg")
REPORTS = os.path.join(ROOT, "tests/fixtures/reports")
NS = "{http://www.w3.org/2000/svg}"

# The charts every check below runs on, named (not found by listing the
# directory: a golden that went missing fails its checks instead of
# leaving them with nothing to look at), plus any other golden present.
EXPECTED = ("storage-cluster-1", "storage-cluster-2", "storage-cluster-3", "quick-1", "quick-2",
            "quick-3")
GOLDENS = sorted(set(EXPECTED) | {f[:-4] for f in os.listdir(SVG) if f.endswith(".svg")})


def report_of(golden):
    with open(os.path.join(REPORTS, golden.split(".")[0] + ".json")) as f:
        return json.load(f)


def tree(golden):
    return ET.parse(os.path.join(SVG, golden + ".svg")).getroot()


def panels(root):
    return {g.get("data-panel"): g for g in root.iter(NS + "g") if g.get("class") == "panel"}


def series(el):
    return [g for g in el.iter(NS + "g") if g.get("class") == "series"]


def headline_results(rep, suffix):
    return [r for r in rep["results"] if any(h.endswith(suffix) for h in r.get("headline", []))]


@pytest.mark.parametrize("golden", GOLDENS)
def test_parses_as_svg(golden):
    root = tree(golden)
    assert root.tag == NS + "svg"
    w, h = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {w:.0f} {h:.0f}"
    assert root.find(NS + "title").text.startswith("storagebench report")
    # nothing is placed off the canvas
    for t in root.iter(NS + "text"):
        x, y = t.get("x"), t.get("y")
        if x is None:
            continue  # rotated axis titles use a transform
        dx, dy = 0.0, 0.0
        for g in ancestors(root, t):
            m = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", g.get("transform") or "")
            if m:
                dx, dy = dx + float(m.group(1)), dy + float(m.group(2))
        assert 0 <= float(x) + dx <= w, (golden, "".join(t.itertext()))
        assert 0 <= float(y) + dy <= h, (golden, "".join(t.itertext()))


def ancestors(root, el):
    parents = {c: p for p in root.iter() for c in p}
    out = []
    while el in parents:
        el = parents[el]
        out.append(el)
    return out


@pytest.mark.parametrize("golden", [g for g in GOLDENS if "." not in g])
def test_one_series_per_target(golden):
    rep = report_of(golden)
    targets = rep["targets"]
    for name, panel in panels(tree(golden)).items():
        charts = [c for c in panel.iter(NS + "g") if c.get("class") == "chart"] or [panel]
        for chart in charts:
            assert [s.get("data-target") for s in series(chart)] == targets, (golden, name)


@pytest.mark.parametrize("golden", [g for g in GOLDENS if "." not in g])
@pytest.mark.parametrize("panel,suffix", [("iops", "-iops"), ("bandwidth", "-bw")])
def test_bars_and_error_bars(golden, panel, suffix):
    rep = report_of(golden)
    want_bars, want_err, means = 0, 0, {}
    for r in headline_results(rep, suffix):
        for h in r["headline"]:
            m = r["metrics"].get(h)
            if not h.endswith(suffix) or m is None:
                continue
            want_bars += 1
            if m.get("n", 1) >= 2 and "stddev" in m:
                want_err += 1
            means.setdefault(r["target"], []).append(m["mean"])
    p = panels(tree(golden)).get(panel)
    if want_bars == 0:
        assert p is None
        return
    bars = [e for e in p.iter(NS + "rect") if e.get("class") == "bar"]
    errs = [e for e in p.iter(NS + "path") if e.get("class") == "errorbar"]
    assert len(bars) == want_bars
    assert len(errs) == want_err
    # bar length is proportional to the mean (one scale for the panel)
    widths = [float(b.get("width")) for b in bars]
    vals = [v for t in rep["targets"] for v in means.get(t, [])]
    big = max(range(len(vals)), key=lambda i: vals[i])
    scale = widths[big] / vals[big]
    for wdt, v in zip(widths, vals):
        assert abs(wdt - v * scale) <= 0.15, (wdt, v * scale)


def fsync_families(rep):
    fam = {}
    for w in rep["workloads"]:
        m = re.match(r"^(.+)-fsync(\d+)$", w)
        if m:
            fam.setdefault(m.group(1), set()).add(w)
    for base in fam:
        if base in rep["workloads"]:
            fam[base].add(base)
    return {b: ws for b, ws in fam.items() if len(ws) >= 2}


@pytest.mark.parametrize("golden", [g for g in GOLDENS if not g.endswith(".latency")])
def test_fsync_lines_and_bands(golden):
    rep = report_of(golden)
    fam = fsync_families(rep)
    p = panels(tree(golden)).get("fsync")
    if not fam:
        assert p is None
        return
    charts = [c for c in p.iter(NS + "g") if c.get("class") == "chart"]
    assert sorted(c.get("data-family") for c in charts) == sorted(fam)
    for c in charts:
        ws = fam[c.get("data-family")]
        metric = c.get("data-metric")
        for s in series(c):
            present = [r for r in rep["results"]
                       if r["target"] == s.get("data-target") and r["workload"] in ws
                       and metric in r["metrics"]]
            points = [g for g in s.iter(NS + "g") if g.get("class") == "point"]
            bands = [e for e in s.iter(NS + "path") if e.get("class") == "band"]
            lines = [e for e in s.iter(NS + "path") if e.get("class") == "line"]
            assert len(points) == len(present)
            if len(present) == len(ws):  # no gaps: one line and one band
                assert len(lines) == 1 and len(bands) == 1
                # the band is a closed polygon around the line: 2 points per x
                assert bands[0].get("d").count("L") == 2 * len(ws) - 1
                assert float(bands[0].get("fill-opacity")) < 0.5


def test_latency_percentiles():
    rep = report_of("quick-3")
    p = panels(tree("quick-3"))["latency"]
    lat = headline_results(rep, "-lat-mean")
    groups = [g for g in p.iter(NS + "g") if g.get("class") == "percentiles"]
    assert len(groups) == len(lat) == 6
    # each row: the connecting line and three markers, values in the columns
    for g in groups:
        assert len(list(g)) == 1 + 3 + 3
        texts = ["".join(t.itertext()) for t in g.iter(NS + "text")]
        assert all(re.match(r"^[\d.]+ (ns|\u00b5s|ms|s)$", t) for t in texts), texts
    # the p99 of fast/latency-read from the merged histogram
    r = next(r for r in lat if r["target"] == "fast" and r["workload"] == "latency-read")
    p99 = r["merged"]["read"]["p99"] / 1000
    shown = [t for g in groups for t in ("".join(x.itertext()) for x in g.iter(NS + "text"))]
    assert f"{p99:.3g} \u00b5s" in shown or f"{p99:.1f} \u00b5s" in shown


@pytest.mark.parametrize("golden", [g for g in GOLDENS if g.startswith("lifecycle-")])
def test_lifecycle_bars_whiskers_p95(golden):
    rep = report_of(golden)
    p = panels(tree(golden))["lifecycle"]
    stats = [e for e in rep["lifecycle"] if "mean" in e]
    # a series per class of the section, a bar, a whisker and a p95 tick per measured phase
    classes = list(dict.fromkeys(e["target"] for e in rep["lifecycle"]))
    assert [s.get("data-target") for s in series(p)] == classes
    for s in series(p):
        mine = [e for e in stats if e["target"] == s.get("data-target")]
        bars = [e for e in s.iter(NS + "rect") if e.get("class") == "bar"]
        ticks = [e for e in s.iter(NS + "path") if e.get("class") == "p95"]
        errs = [e for e in s.iter(NS + "path") if e.get("class") == "errorbar"]
        assert len(bars) == len(ticks) == len(mine)
        assert len(errs) == len([e for e in mine if e["n"] >= 2])
        # one linear scale from the bars' left edge: bar ends at the mean, tick at p95
        for b, t, e in zip(bars, ticks, mine):
            x0, w = float(b.get("x")), float(b.get("width"))
            tx = float(re.match(r"M([\d.]+)", t.get("d")).group(1))
            assert abs((tx - x0) / w - e["p95"] / e["mean"]) < 0.01, e
            assert f"(n={e['n']})" in "".join(b.itertext())
    texts = ["".join(t.itertext()) for t in p.iter(NS + "text")]
    for e in rep["lifecycle"]:
        if "skipped" in e:
            assert "skipped: " + e["skipped"] in texts
        if e.get("phase") == "error":
            assert f"{e['target']}: iteration {e['iteration']} failed: {e['message']}" in texts


def test_escaped_names_round_trip():
    rep = report_of("edge-escape")
    root = tree("edge-escape")
    got = [s.get("data-target") for s in series(root)]
    assert got == rep["targets"]
    titles = "".join(root.find(NS + "title").itertext())
    assert titles == "storagebench report " + rep["name"]


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="rsvg-convert (librsvg2-bin) not installed")
@pytest.mark.parametrize("golden", GOLDENS)
def test_rsvg_renders(golden, tmp_path):
    png = tmp_path / (golden + ".png")
    proc = subprocess.run(["rsvg-convert", "-o", str(png), os.path.join(SVG, golden + ".svg")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert png.stat().st_size > 1000
