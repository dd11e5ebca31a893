# SPDX-License-Identifier: MIT
"""The report a reviewer publishes, on three models: a campaign in the shapes of the
crystaldiskmark, atto, storagereview-fio and vdbench-4corners presets runs on four file
drives; its file is cloned into three files of three "models" (each its drives' IOPS scaled:
A 1.0, B 1.3, C 0.8); `rackbench report` of the three, rendered by headless Chromium, has
the summary and contents, the head-to-head table (absolute values, % both ways, each equal
to what the rows give), the CrystalDiskMark grid, ATTO's MB/s against transfer size, the
fills of every drive of every file on one chart, p99 against queue depth and the curves'
peak table; every series keeps one colour on every chart; the page's title says it is of
three runs. The Python helper's compare() is at the points --wide has rows for (not the
fill, not the curve's throttled points). The screenshot is kept (artifacts/review.png), and one of each kind of chart
alone (artifacts/review-KIND.png). --wide prints the same figures. The campaign's alias for
a drive and its agents' labels are in the drives' rows, the alias names it in the report,
and --by label=rack makes a column per rack.

On three models far apart, each drive against a drive of the slowest, the page as Chromium
paints it: the grid's values, names and ticks dark on white, none cut at a chart's or
cell's edge, no two ticks on each other; every chart's title whole, no text past a chart's
edge; ATTO's chart's sizes in binary units (1 MiB, not 1.05M), its MB/s on a log axis with
the slowest model drawn clear of the axis, a drive's read and write swatches in its legend
unlike."""
import csv
import io
import math
import os
import re
import statistics

import sys

import synth
from htmlpage import CHROMIUM, Charts, inside, keep, keep_charts, overlap, probe, render
from rbtest import COORD, SRC, Agent, Tmp, check, free_port, h5, run, skip

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

if not CHROMIUM:
    skip("no chromium here (apt-get install chromium; scripts/install-deps.sh does)")
MODELS = {"ACME A": 1.0, "ACME B": 1.3, "ACME C": 0.8}
LOOK = {"Model A": 25.0, "Model B": 0.3, "Model C": 0.8}


def judged(p):
    """The figure a point is judged by (MB/s or IOPS), as the report chooses it."""
    seq = p["rw"] in (b"read", b"write")
    return "MB/s" if seq or p["bs_bytes"] >= 65536 else "IOPS"


def luminance(rgb):
    """WCAG's relative luminance of a computed colour, "rgb(R, G, B)"."""
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
           for c in (int(x) / 255 for x in re.findall(r"[\d.]+", rgb)[:3])]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def number(text):
    """A tick's number: "250", "10k", "1.5M"."""
    return float(text.rstrip("kM")) * {"k": 1e3, "M": 1e6}.get(text[-1:], 1)


def readable(t):
    """Whether a chart's text (probe()'s) reads on the chart's white: drawn in a colour of
    at least WCAG's 4.5:1 contrast to white, with no outline of another colour."""
    return (t["stroke"] in ("none", "rgba(0, 0, 0, 0)") and
            1.05 / (luminance(t["fill"]) + 0.05) >= 4.5)


def figures(path):
    """{point name: (metric, median over the file's drives)} from the raw rows."""
    with h5py.File(path, "r") as h:
        pts = {int(p["point"]): p for p in h["points"][:]}
        res = h["results"][:]
    out = {}
    for pid, p in pts.items():
        rows = [x for x in res if int(x["point"]) == pid and x["status"] == b"ok"]
        if not rows or p["rate_iops"] or (p["curve_pct"] == p["curve_pct"] and
                                          p["curve_pct"] > 0):
            continue
        m = judged(p)
        if m == "MB/s":
            v = [sum(x[d + "_bw_bytes_per_s"] for d in ("read", "write", "trim")) / 1e6
                 for x in rows]
        else:
            v = [sum(x[d + "_iops"] for d in ("read", "write", "trim")) for x in rows]
        out[p["name"].decode()] = (m, statistics.median(v))
    return out


with Tmp() as tmp:
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = []
    for name, rack in (("a1", "r12"), ("a2", "r13")):
        os.makedirs(os.path.join(tmp, name), exist_ok=True)
        t = [f"{name}/disk0.dat", f"{name}/disk1.dat"]
        agents.append(Agent(ep, f"rev-{name}", t, allow=t, cwd=tmp,
                            state_dir=os.path.join(tmp, name),
                            extra=["--label", f"rack={rack}", "--label", "model=B"]))
    try:
        r = run([COORD, "run", os.path.join(SRC, "tests", "campaigns", "review.yaml"),
                 "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        for a in agents:
            a.stop()
    check(r.returncode == 0, f"campaign: {r.returncode}\n{r.stderr}")
    src = [os.path.join(tmp, "out", x) for x in os.listdir(os.path.join(tmp, "out"))
           if x.endswith(".h5")][0]
    # the campaign's alias and the agents' labels are the drives' rows
    with h5py.File(src, "r") as h:
        dr = {(d["agent"].decode(), d["path"].decode()): d for d in h["drives"][:]}
    check(dr[("rev-a2", "a2/disk1.dat")]["alias"] == b"Kingston DC3000ME #1" and
          dr[("rev-a1", "a1/disk0.dat")]["alias"] == b"", "the alias stored")
    check(all(sorted(d["labels"].decode().split(",")) == sorted(
        [f"rack={'r12' if a == 'rev-a1' else 'r13'}", "model=B"]) for (a, _), d in dr.items()),
        f"the labels stored: {[d['labels'] for d in dr.values()]}")
    r = run([COORD, "report", src, "--wide", "--by", "label=rack", "--format", "csv"])
    check(r.returncode == 0 and r.stdout.startswith(
        'point,workload,metric,"rack=r12","rack=r13",'), f"by label: {r.stdout[:200]}")
    r = run([COORD, "report", src])
    check(r.returncode == 0 and "Kingston DC3000ME #1" in r.stdout and
          "a2/disk1.dat" not in r.stdout, "the alias names the drive")
    files = []
    for i, (model, scale) in enumerate(MODELS.items()):
        f = os.path.join(tmp, f"model-{'abc'[i]}.h5")
        synth.widen(h5py, src, f, [{"model": model, "scale": scale * (1 + k / 100), "shift": k}
                                   for k in range(2)])
        files.append(f)
    # more datasheet claims than a chart draws lines for (8): the page keeps 8
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as f:
        f.write("claims:\n" + "".join(f"  - {{name: c{i}, rw: {rw}, bs: 1m, mbps: {100 + i}}}\n"
                                      for i in range(6) for rw in ("read", "write")))
    page = os.path.join(tmp, "review.html")
    r = run([COORD, "report", *files, "--html", page, "--baseline", "ACME A", "--spec", spec])
    check(r.returncode in (0, 5), f"report: {r.returncode} {r.stderr}")
    ts = open(page).read().split('data-chart="transfer-size"')[1].split("</svg>")[0]
    nref = ts.count('<g class="ref">')
    check(nref == 8, f"{nref} spec lines on the transfer-size chart, want 8")
    r = run([COORD, "report", *files, "--html", page, "--baseline", "ACME A"])
    check(r.returncode == 0, f"report: {r.returncode} {r.stderr}")
    text = open(page).read()

    r, console = render(page, tmp)
    check(r.returncode == 0 and not console, f"chromium: {r.returncode} {console}")
    p = Charts()
    p.feed(r.stdout)
    kinds = {}
    for c in p.charts:
        kinds.setdefault(c["kind"], []).append(c)
    for want in ("summary", "toc", "head-to-head", "test-grid", "transfer-size", "curve-peaks"):
        check(want in p.sections, f"no {want} section: {p.sections}")
    check(p.sections.index("summary") < p.sections.index("toc") < p.sections.index("head-to-head"),
          f"sections' order {p.sections}")
    check("3 file(s)" in text and "of 3 model(s): ACME A, ACME B, ACME C" in text, "summary")
    # the page is of the three runs, not of the first file alone
    check("<title>rackbench: review-fixture (3 runs)</title>" in text and
          "<h1>rackbench report: review-fixture (3 runs)</h1>" in text, "the page's title")
    # CrystalDiskMark's grid: two tests (seq1m-q8t1, rnd4k-q1t1), read and write each
    check(len(kinds.get("test-grid-cell", [])) == 4, f"grid cells {len(kinds.get('test-grid-cell', []))}")
    # ATTO: one chart, each drive's read and write (dashed) over 3 sizes
    ts = kinds.get("transfer-size", [])
    check(len(ts) == 1 and len(ts[0]["series"]) == 12, f"transfer-size charts {ts}")
    check(text.count('stroke-dasharray="6 4" points') >= 6, "writes dashed")
    # the fill of every drive of every file on one chart
    fills = kinds.get("timeseries", [])
    check(len(fills) == 1 and len(fills[0]["series"]) == 6, f"fill charts {fills}")
    check(len(kinds.get("qd-p99", [])) == 1, "p99 against queue depth")
    check('<td class="n unthrottled">' in text and 'class="peak"' in text, "the peak table")
    # one colour per series on every chart, and six drives in six colours
    for name, cols in p.colours.items():
        check(len(cols) == 1, f"{name} in colours {cols}")
    drives = fills[0]["series"]
    check(len({next(iter(p.colours[d])) for d in drives}) == 6, "a colour per drive")
    for d in drives:
        for k in ("read", "write"):
            check(p.colours.get(f"{d} {k}") == p.colours[d], f"{d} {k}: its drive's colour")

    # the head-to-head table: absolute values from the rows, % both ways
    want = {m: figures(f) for m, f in zip(MODELS, files)}
    cells = re.findall(r'<tr><td>([^<]*)</td><td>[^<]*</td><td>(MB/s|IOPS)</td>((?:<td class="n"'
                       r'[^>]*>.*?</td>)+)</tr>', text)
    check(len(cells) >= 10, f"{len(cells)} head-to-head rows")
    print(f"{len(cells)} head-to-head rows checked against the rows")
    for point, metric, tds in cells:
        vals = [float(x) for x in re.findall(r'data-value="([^"]+)"', tds)]
        pct = [float(x) for x in re.findall(r'data-pct="([^"]+)"', tds)]
        back = [float(x) for x in re.findall(r'data-pct-base="([^"]+)"', tds)]
        check(len(vals) == 3 and len(pct) == 2 and len(back) == 2, f"{point}: {tds}")
        for i, m in enumerate(MODELS):
            wm, wv = want[m][point]
            check(wm == metric and abs(vals[i] - wv) <= 1e-4 * wv + 1e-6,
                  f"{point} {m}: page {vals[i]} {metric}, rows {wv} {wm}")
        for i in (1, 2):
            check(abs(pct[i - 1] - (vals[i] / vals[0] - 1) * 100) < 0.01 and
                  abs(back[i - 1] - (vals[0] / vals[i] - 1) * 100) < 0.01, f"{point}: % {pct} {back}")
    # B is 30% faster than A everywhere the drives' speed scales
    check(re.search(r'data-pct="29\.\d+">', text) or re.search(r'data-pct="30\.\d+">', text),
          "B against A")

    # --wide: the same figures as CSV
    r = run([COORD, "report", *files, "--wide", "--format", "csv", "--baseline", "ACME A"])
    check(r.returncode == 0, f"--wide: {r.returncode} {r.stderr}")
    rows = list(csv.reader(io.StringIO(r.stdout)))
    check(rows[0][3:6] == ["ACME A", "ACME B", "ACME B vs ACME A %"], f"header {rows[0]}")
    for row in rows[1:]:
        if row[2] in ("MB/s", "IOPS") and row[0] in want["ACME B"]:
            check(abs(float(row[4]) - want["ACME B"][row[0]][1]) <= 1e-4 * float(row[4]),
                  f"csv {row}")

    # the points compared are one selection, --wide's and the Python helper's: not the
    # fill ("prepare", a 1M sequential write at QD8 as seq1m-q8t1's write is), not the
    # curve's throttled points; each workload's sentence once per model
    c = rb.compare(files, "ACME A")
    check(set(c["point"]) == {row[0] for row in rows[1:]} and "prepare" not in set(c["point"]),
          f"compare() at {sorted(set(c['point']))}, --wide at {sorted({r[0] for r in rows[1:]})}")
    said = [x for x in c["sentence"] if x.endswith(" at 1M sequential write QD8")]
    check(len(said) == 2 and len(set(said)) == 2, f"the 1M write's sentences: {said}")

    keep(page, tmp, "review")
    shots = keep_charts(page, tmp, "review")
    for k in ("test-grid-cell", "transfer-size", "timeseries", "qd-p99", "curve", "bars"):
        check(k in shots, f"no screenshot of a {k} chart: {sorted(shots)}")

    # the page as a person sees it, of models far apart (an NVMe drive's speed beside two
    # slow ones'), each drive against one of the slowest: what Chromium painted
    look = []
    for i, (model, scale) in enumerate(LOOK.items()):
        f = os.path.join(tmp, f"look-{'abc'[i]}.h5")
        synth.widen(h5py, src, f, [{"model": model, "scale": scale * (1 + k / 100), "shift": k}
                                   for k in range(2)])
        look.append(f)
    page = os.path.join(tmp, "look.html")
    r = run([COORD, "report", *look, "--html", page, "--baseline", "#2 rev-a1:/dev/synth0"])
    check(r.returncode == 0, f"report: {r.returncode} {r.stderr}")
    seen = probe(page, tmp)
    # CrystalDiskMark's grid: every value, name and tick dark on white, none cut by its
    # chart's or its cell's edge, no two ticks on each other
    grid = [c for c in seen["charts"] if c["kind"] == "test-grid-cell"]
    check(len(grid) == 4, f"{len(grid)} cells of the grid")
    for c in grid:
        vals = [t for t in c["texts"] if t["cls"] == "val"]
        check(len(vals) == 6 and all(t["text"].endswith("%)") for t in vals),
              f"the values, each with its difference from the baseline: {vals}")
        for t in c["texts"]:
            check(readable(t), f"'{t['text']}' painted {t['fill']}, outlined {t['stroke']}")
            check(inside(t["box"], c["box"]) and inside(t["box"], c["cell"]),
                  f"'{t['text']}' at {t['box']} cut by its chart {c['box']} or cell {c['cell']}")
        ticks = [t for t in c["texts"] if t["cls"].startswith("ax") and not t["series"]]
        check(len(ticks) >= 2, f"ticks {ticks}")
        for i, a in enumerate(ticks):
            for b in ticks[i + 1:]:
                check(not overlap(a["box"], b["box"]), f"ticks '{a['text']}' and '{b['text']}' "
                      f"overlap: {a['box']} {b['box']}")
    # every chart's title whole above it, however long ("... (diamond: unthrottled)"), and
    # no text of a chart past its edge
    for c in seen["charts"]:
        cap = c["caption"]
        check(cap and cap["text"] and cap["sw"] <= cap["cw"] and inside(cap["box"], c["figure"]),
              f"a {c['kind']} chart's title cut: {cap}")
        for t in c["texts"]:
            check(inside(t["box"], c["box"]), f"'{t['text']}' of a {c['kind']} chart past its "
                  f"edge: {t['box']} {c['box']}")
    curve = [c for c in seen["charts"] if c["kind"] == "curve"]
    check(curve and curve[0]["caption"]["text"].endswith("(diamond: unthrottled)"),
          f"the curve's title: {curve and curve[0]['caption']}")
    # ATTO's chart: its sizes in binary units; MB/s on a log axis, where the slowest
    # model's lines stand as clear of the axis as the fastest's
    ts = [c for c in seen["charts"] if c["kind"] == "transfer-size"]
    check(len(ts) == 1, f"{len(ts)} transfer-size charts")
    ts = ts[0]
    bottom, top = max(g[1] for g in ts["grid"]), min(g[1] for g in ts["grid"])
    left = min(g[0] for g in ts["grid"])
    free = [t for t in ts["texts"] if t["cls"].startswith("ax") and not t["series"]]
    xt = [t for t in free if bottom + 4 < (t["box"][1] + t["box"][3]) / 2 < bottom + 24]
    check(xt and all(re.fullmatch(r"\d+ (B|KiB|MiB|GiB)", t["text"]) for t in xt) and
          {"4 KiB", "1 MiB"} <= {t["text"] for t in xt}, f"size ticks {[t['text'] for t in xt]}")
    for i, a in enumerate(xt):
        for b in xt[i + 1:]:
            check(not overlap(a["box"], b["box"]), f"ticks {a['text']} and {b['text']} overlap")
    yt = sorted(((t["box"][1] + t["box"][3]) / 2, number(t["text"])) for t in free
                if left - 12 <= t["box"][2] <= left)
    check(len(yt) >= 3 and all(v > 0 for _, v in yt), f"MB/s ticks {yt}")
    per_decade = [(y1 - y0) / math.log10(v0 / v1) for (y0, v0), (y1, v1) in zip(yt, yt[1:])]
    check(max(per_decade) - min(per_decade) < 1, f"not a log axis: {yt}")
    for x in ts["series"]:
        high = min((b[1] + b[3]) / 2 for b in x["points"])
        check(bottom - high >= 0.2 * (bottom - top),
              f"{x['name']} drawn {bottom - high:.0f} px above the axis of {bottom - top:.0f}")
    # its legend: a drive's read and write swatches drawn as their lines are, not alike
    sw = {x["text"]: x["swatch"] for x in ts["legend"]}
    pairs = [n[:-5] for n in sw if n.endswith(" read") and n[:-5] + " write" in sw]
    check(len(pairs) == 6, f"read and write in the legend of each drive: {sorted(sw)}")
    for d in pairs:
        check(sw[d + " read"] != sw[d + " write"],
              f"{d}: read and write swatches alike ({sw[d + ' read']})")
    keep_charts(page, tmp, "look", seen)
print("ok")
