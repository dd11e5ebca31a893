# SPDX-License-Identifier: MIT
"""rackbench report across drives of one model: five drives, four within 5% of each other
and one 25% slower -- exactly that one is flagged an outlier at every point; the model's
percentiles equal those of its drives' histograms added together (recomputed in Python with
the C code's bucket rule); a spec file's passing and failing claims give the right verdicts
and exit 5, --require moves the line, and a bad spec file is exit 2 at FILE:LINE:COLUMN.
Three models on one model string, told apart by a label of their agents: with --by
label=model the per-model table, the outliers (only the one slow drive of a model), --wide,
the page and the Python helper's compare() all group the drives by it alike."""
import csv
import glob
import io
import os
import sys

import synth
from rbtest import COORD, SRC, Tmp, check, h5, run

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

SCALES = [1.00, 1.03, 0.97, 1.04, 0.75]

with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    base = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    f = os.path.join(tmp, "five.h5")
    # each drive's latencies a step (20 sub-buckets, about 16%) above the one before
    synth.widen(h5py, base, f, [{"model": "ACME X1", "scale": s, "shift": 20 * i}
                                for i, s in enumerate(SCALES)])

    # outliers: exactly the slow drive, at every point
    r = run([COORD, "report", f, "--format", "csv"])
    check(r.returncode == 0, f"csv: {r.returncode} {r.stderr}")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    points = {w["point"] for w in rows}
    flagged = {(w["drive"], w["point"]) for w in rows if w["outlier"] == "yes"}
    want = {(w["drive"], w["point"]) for w in rows if w["drive"].endswith("/dev/synth4")}
    check(len(want) == len(points) and flagged == want,
          f"outliers {sorted(flagged)}, want {sorted(want)}")

    # the model's percentiles come from the added histograms
    r = run([COORD, "report", f, "--format", "markdown"])
    check(r.returncode == 0, f"markdown: {r.returncode}")
    check("|IOPS - median| > max(3.5 x 1.4826 x MAD, 10% of the median)" in r.stdout,
          "the report states its outlier rule")
    res = rb.open(f)
    pts = res.table("points")
    results = res.table("results")
    for _, p in pts.iterrows():
        line = [x for x in r.stdout.splitlines()
                if x.startswith(f"| {p['name']} | ACME X1 | 5 |")]
        check(len(line) == 1, f"one model row for {p['name']}: {line}")
        cells = [c.strip() for c in line[0].strip("|").split("|")]
        for direction, p50_col, p99_col in ((0, 6, 7), (1, 8, 9)):
            counts = 0
            for d in range(5):
                att = results[(results.drive == d) & (results.point == p["point"])].attempt.max()
                counts = counts + res.histogram(drive=d, point=p["point"], attempt=att,
                                                direction=direction)
            for col, pct in ((p50_col, 50), (p99_col, 99)):
                # a direction none of the drives moved IO in: a dash, not 0.0
                want = f"{rb.percentile(counts, pct) / 1e3:.1f}" if counts.sum() else "-"
                check(cells[col] == want, f"{p['name']} dir {direction} p{pct}: report "
                      f"{cells[col]}, added histograms {want}")
        # the merged p99 lies between the fastest and the slowest drive's: drives are
        # shifted up one after another, so the sum sits within their range
        d = 0 if p["rw"] == "randread" else 1
        lo = rb.percentile(res.histogram(drive=0, point=p["point"], direction=d), 99) / 1e3
        hi = rb.percentile(res.histogram(drive=4, point=p["point"], direction=d), 99) / 1e3
        merged = float(cells[7 if d == 0 else 9])
        # (the report prints 0.1 us: its figure may round to just below the fastest's)
        check(lo - 0.05 <= merged <= hi + 0.05 and lo < hi,
              f"merged p99 {merged} outside [{lo}, {hi}]")

    # a spec: claims at the median drive's figures; the slow drive fails the IOPS claim
    rr = results[(results.drive == 0)].merge(pts, left_on="point", right_on="point")
    qd1 = rr[(rr.rw == "randread") & (rr.iodepth == 1)].iloc[0]
    wr8 = rr[(rr.rw == "write") & (rr.iodepth == 8)].iloc[0]
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as s:
        s.write(f"""# ACME X1 datasheet
model: ACME X1
claims:
  - name: random read QD1
    rw: randread
    bs: 4k
    iodepth: 1
    iops: {qd1.read_iops:.3f}
  - name: sequential write
    rw: write
    bs: 128k
    iodepth: 8
    mbps: {wr8.write_bw_bytes_per_s / 1e6 * 0.5:.3f}
  - name: read latency QoS
    rw: randread
    iodepth: 1
    p99_us: {qd1.read_lat_p99_ns / 1e3 * 100:.3f}
""")
    r = run([COORD, "report", f, "--spec", spec])
    check(r.returncode == 5, f"spec: exit {r.returncode}, want 5\n{r.stderr}")
    lines = [x for x in r.stdout.splitlines() if x.startswith(("PASS", "FAIL"))]
    check(len(lines) == 15, f"{len(lines)} verdicts, want 3 claims x 5 drives")
    fails = [x for x in lines if x.startswith("FAIL")]
    check(len(fails) == 1 and "random read QD1" in fails[0] and "synth4" in fails[0],
          f"failures: {fails}")
    check("1 of 15 checks below 90%" in r.stdout, "summary line")
    r = run([COORD, "report", f, "--spec", spec, "--require", "70%"])
    check(r.returncode == 0, f"--require 70%: exit {r.returncode}")
    r = run([COORD, "report", f, "--spec", spec, "--require", "101%"])
    check(r.returncode == 5, f"--require 101%: exit {r.returncode}")

    # three models on one model string, told apart by their agents' label: grouped by it
    # (--by label=model), the per-model table, the outliers, --wide, the page and the Python
    # helper all have the three groups, and only the one slow drive of model A stands out
    lab = os.path.join(tmp, "labelled.h5")
    spread = [("A", 1.00), ("A", 1.03), ("A", 0.97), ("A", 0.60), ("B", 0.50), ("B", 0.51),
              ("B", 0.49), ("C", 0.25), ("C", 0.26), ("C", 0.24)]
    synth.widen(h5py, base, lab, [{"model": "ACME X1", "scale": sc, "shift": i,
                                   "labels": f"rack=r1,model={m}"}
                                  for i, (m, sc) in enumerate(spread)])
    by = ["--by", "label=model"]
    r = run([COORD, "report", lab, *by, "--format", "csv"])
    check(r.returncode == 0, f"csv: {r.returncode} {r.stderr}")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    flagged = {(w["drive"], w["point"]) for w in rows if w["outlier"] == "yes"}
    want = {(w["drive"], w["point"]) for w in rows if w["drive"].endswith("/dev/synth3")}
    check(len(want) == len(points) and flagged == want,
          f"outliers by label: {sorted(flagged)}, want {sorted(want)}")
    r = run([COORD, "report", lab, *by, "--format", "markdown"])
    check(r.returncode == 0 and "per label model" in r.stdout, f"markdown: {r.stdout[-800:]}")
    for pname in points:
        for m, n in (("A", 4), ("B", 3), ("C", 3)):
            check(f"| {pname} | model={m} | {n} |" in r.stdout, f"{pname} model={m}: {n} drives")
    page = os.path.join(tmp, "labelled.html")
    r = run([COORD, "report", lab, *by, "--html", page])
    check(r.returncode == 0, f"html: {r.returncode} {r.stderr}")
    text = open(page).read()
    check(f"<li>Outliers: {len(points)}:" in text and
          text.count('data-outlier="1"') == len(points) and ">Per label model</h2>" in text,
          "the page's outliers and groups")
    r = run([COORD, "report", lab, *by, "--wide", "--format", "csv"])
    check(r.returncode == 0, f"--wide: {r.returncode} {r.stderr}")
    wide = list(csv.reader(io.StringIO(r.stdout)))
    cols = [c for c in wide[0][3:] if " vs " not in c]
    check(cols == ["model=A", "model=B", "model=C"], f"--wide's columns {cols}")
    c = rb.compare(lab, "model=A", by="label=model")
    check(list(dict.fromkeys(c["model"])) == cols, f"compare()'s groups {set(c['model'])}")
    for row in wide[1:]:
        if row[2] not in ("MB/s", "IOPS"):
            continue
        for g in cols:
            v = float(row[wide[0].index(g)])
            got = c[(c["point"] == row[0]) & (c["model"] == g)]["value"]
            check(len(got) == 1 and abs(got.iloc[0] - v) <= 1e-5 * v,
                  f"{row[0]} {g}: compare() {got.tolist()}, --wide {v}")

    # bad spec files: clear errors with positions, exit 2
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as s:
        s.write("model: X\nclaims:\n  - rw: read\n    speed: 9\n  - rw: read\n    iops: -3\n")
    r = run([COORD, "report", f, "--spec", bad])
    check(r.returncode == 2, f"bad spec: exit {r.returncode}")
    check(f"{bad}:4:5: " in r.stderr and "unknown key 'speed'" in r.stderr, r.stderr)
    check(f"{bad}:6:11: " in r.stderr and "positive number" in r.stderr, r.stderr)
    r = run([COORD, "report", f, "--require", "lots"])
    check(r.returncode == 2 and "percentage" in r.stderr, "bad --require")
print("ok")
