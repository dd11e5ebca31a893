# SPDX-License-Identifier: MIT
"""`rackbench report --db URL --campaign NAME`: the fleet's head-to-head from the results
database equals the files' report, exactly, against a real PostgreSQL 15 of the test's own
(pgserver.py).

Three racks' results files of one campaign (a demo file widened into eight drives of two
models each, every drive its own IOPS scale and latency shift, its own serial, its agent's
rack label) and a fourth file of another campaign are exported. For --by model, firmware
and rack, the per-group table of `report --db` (markdown) has the same rows as `report
FILES` prints for the campaign's three files: drives, IOPS min/median/max, p50/p99 per
direction, outliers. Its CSV's percentiles in ns are those of the files' histograms added
up in Python (rackbench_h5's rank rule), and the other campaign's drives are in no group.
The view model_latency (each run's percentiles per point, model and direction) equals the
files' histograms added up per file, and the Grafana dashboard's fleet queries run on
these runs (grafana_sql.py).
"""
import csv
import glob
import io
import os
import sys

import numpy as np

import grafana_sql
import synth
from pgserver import PgServer
from rbtest import COORD, SRC, Tmp, check, h5, run

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

MODELS = ("ACME X1", "BOLT Y2")


def rack_file(base, path, rack, campaign=None):
    """Eight drives of two models on one rack; serials and the start its own."""
    drives = []
    for i in range(8):
        drives.append({"model": MODELS[i % 2], "scale": 0.9 + 0.03 * i + 0.01 * rack,
                       "shift": 3 * i + rack, "labels": f"rack=r{rack}"})
    synth.widen(h5py, base, path, drives)
    with h5py.File(path, "a") as h:
        dr = h["drives"][:]
        for k in range(len(dr)):
            dr[k]["serial"] = f"R{rack}S{k:03d}".encode()
        # two firmwares of model BOLT Y2, so --by firmware has more groups than --by model
        for k in range(len(dr)):
            if k % 4 == 3:
                dr[k]["firmware"] = b"FW-NEW"
        h["drives"][:] = dr
        h.attrs["start_ns"] = int(h.attrs["start_ns"]) + rack * 10**9
        if campaign:
            h.attrs["campaign_name"] = campaign


def table_rows(text, title):
    """The per-group table's rows of markdown text: the lines after its heading."""
    lines = text.splitlines()
    start = [i for i, x in enumerate(lines) if x.startswith("### per ")]
    check(len(start) == 1, f"one per-group table ({title}): {start}")
    rows = []
    for x in lines[start[0] + 4:]:
        if not x.startswith("| "):
            break
        rows.append(x)
    return sorted(rows)


with Tmp() as tmp, PgServer() as pg:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    base = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    with h5py.File(base, "r") as h:
        campaign = h.attrs["campaign_name"]
        campaign = campaign.decode() if isinstance(campaign, bytes) else campaign
    files = []
    for rack in (1, 2, 3):
        files.append(os.path.join(tmp, f"rack{rack}.h5"))
        rack_file(base, files[-1], rack)
    other = os.path.join(tmp, "other.h5")
    rack_file(base, other, 9, campaign="another-campaign")
    r = run([COORD, "export", *files, other, "--db", pg.url()])
    check(r.returncode == 0 and "4 added" in r.stdout, f"export: {r.returncode} {r.stdout} "
          f"{r.stderr}")

    for by in ("model", "firmware", "rack"):
        r = run([COORD, "report", *files, "--by", by, "--format", "markdown"])
        check(r.returncode == 0, f"report files --by {by}: {r.returncode} {r.stderr}")
        want = table_rows(r.stdout, f"files by {by}")
        r = run([COORD, "report", "--db", pg.url(), "--campaign", campaign, "--by", by,
                 "--format", "markdown"])
        check(r.returncode == 0, f"report --db --by {by}: {r.returncode} {r.stderr}")
        check(pg.password not in r.stdout + r.stderr, "the password was printed")
        got = table_rows(r.stdout, f"db by {by}")
        print(f"--by {by}: {len(got)} rows")
        check(got == want and len(got) >= 2,
              f"--by {by}: the database's table\n" + "\n".join(got) +
              "\nthe files'\n" + "\n".join(want))
    check("R9S" not in r.stdout, "another campaign's drives are not in it")

    # the CSV's percentiles in ns: the files' histograms added up, rank rule in Python
    r = run([COORD, "report", "--db", pg.url(), "--campaign", campaign, "--format", "csv"])
    check(r.returncode == 0, f"csv: {r.returncode} {r.stderr}")
    got = {(w["point"], w["group"]): w for w in csv.DictReader(io.StringIO(r.stdout))}
    sums, runs = {}, {}
    for path in files:
        x = rb.open(path)
        start = int(x.h5.attrs["start_ns"])
        pts = {int(p["point"]): p["name"].decode() for p in x.h5["points"][:]}
        res = x.h5["results"][:]
        models = {int(d["drive"]): d["model"].decode() for d in x.h5["drives"][:]}
        for p, name in pts.items():
            for d, model in models.items():
                rows = res[(res["drive"] == d) & (res["point"] == p)]
                if not len(rows):
                    continue
                att = int(rows["attempt"].max())
                for direction in (0, 1):
                    key = (name, model, direction)
                    sums.setdefault(key, np.zeros(rb.BUCKETS, dtype=np.uint64))
                    h = x.histogram(drive=d, point=p, attempt=att, direction=direction)
                    sums[key] += h
                    runs.setdefault((start,) + key, np.zeros(rb.BUCKETS, dtype=np.uint64))
                    runs[(start,) + key] += h
    checked = 0
    for (name, model, direction), counts in sums.items():
        w = got.get((name, model))
        check(w is not None, f"a CSV row for {name} {model}: {sorted(got)}")
        for pct in (50, 99):
            col = f"{'read' if direction == 0 else 'write'}_p{pct}_ns"
            want = str(rb.percentile(counts, pct)) if counts.sum() else ""
            check(w[col] == want, f"{name} {model} {col}: database {w[col]}, files {want}")
            checked += 1
    print(f"{checked} percentiles equal")
    check(checked >= 8, f"percentiles checked: {checked}")

    # the view model_latency (the dashboard's p99 per model over time): each run's
    # percentiles per point, model and direction, exact from the files' histograms
    got = {(int(a), b, c, 0 if d == "read" else 1): (int(e), int(f), int(g))
           for a, b, c, d, e, f, g in pg.sql(None, (
               "SELECT start_ns, point_name, model, direction, ios, p50_ns, p99_ns FROM "
               f"rackbench.model_latency WHERE campaign = '{campaign}'"))}
    want = {k: (int(v.sum()), rb.percentile(v, 50), rb.percentile(v, 99))
            for k, v in runs.items() if v.sum()}
    check(got == want and len(want) >= 24, f"model_latency: {len(got)} rows, {len(want)} "
          f"wanted; differing: {sorted(k for k in want if got.get(k) != want[k])[:5]}")
    page = grafana_sql.run_all(pg, [campaign], sorted(sums)[0][0])
    p99 = page[[t for t in page if t.startswith("p99 latency per model")][0]]
    check(len(p99) >= 6 and all(float(x[2]) > 0 for x in p99),
          f"the dashboard's p99 per model: {p99}")
    print(f"model_latency: {len(got)} rows equal; the dashboard's fleet queries ran")

    # bad asks: no --campaign, an unknown one, --db with files
    r = run([COORD, "report", "--db", pg.url()])
    check(r.returncode == 2 and "--campaign" in r.stderr, f"no campaign: {r.stderr}")
    r = run([COORD, "report", "--db", pg.url(), "--campaign", "no-such"])
    check(r.returncode == 2 and "no run of campaign 'no-such'" in r.stderr, f"{r.stderr}")
    r = run([COORD, "report", files[0], "--db", pg.url(), "--campaign", campaign])
    check(r.returncode == 2, f"files with --db: {r.returncode}")
    r = run([COORD, "report", "--db", pg.url(), "--campaign", campaign, "--by", "drive"])
    check(r.returncode == 2, f"--by drive with --db: {r.returncode}")
print("ok")
