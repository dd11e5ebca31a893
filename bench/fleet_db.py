#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fleet's results into PostgreSQL: `rackbench export --db` of N drives x 20 points, each
drive's merged histograms as sparse as a real drive's (~300 non-zero buckets of the fixed
4,736-bucket layout), then `rackbench report --db URL --campaign NAME --by model` over them.

Its input is made as a fleet's services would leave it: results files of one campaign, one
per rack (--per-file drives each, 24 drives an agent), written with h5py in the layout of
a real file (`rackbench demo` makes the template: its attributes, tables and their types).
Each drive and point has one sample interval a direction whose histogram is drawn from a
plausible latency distribution (a log-normal body and a slow tail, per point kind, each
drive a little slower or faster than its model), counts drawn around IOPS x 60 s; its
result row's IOPS and percentiles agree with its histogram. A private PostgreSQL 15
(tests/integration/pgserver.py), durable (fsync on) in --dir, which must not be tmpfs.

Prints, and checks both ways:
- the export's rate: result rows (drive x point) a second over `rackbench export`'s wall,
  beside PostgreSQL's own COPY of the same rows into a bare copy of the table (what the
  server takes on this disk: an export faster than that did not write its rows), and the
  rows, buckets and bytes counted in the database afterwards (every row there, each
  histogram the file's);
- the same files exported again: all "already there", no row added, and its time;
- the fleet report's time, its groups' drives adding up to the fleet at every point, and
  (unless --no-files-report) its table equal to `rackbench report FILES --by model`'s and
  that report's time beside it.

    /usr/bin/python3 bench/fleet_db.py [--drives 2000] [--per-file 1000] [--points 20]
                                       [--dir /var/tmp/rackbench-fleet-db] [--keep]
                                       [--no-files-report]

docs/performance.md's figures: the defaults, and --drives 24000 --no-files-report.
"""
import argparse
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
COORD = os.path.join(ROOT, "build", "coordinator", "rackbench")

sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from pgserver import PgServer  # noqa: E402  (one private server for tests and benches)

BUCKETS = 4736
RUNTIME_S = 60
MODELS = (("ACME NV7680", ("4.1.0", "4.2.1")), ("BOLT Q3840", ("B220",)),
          ("CORE M15360", ("7X03", "7X05")), ("DYNA E1920", ("E1.0",)))
CAMPAIGN = "fleet-db-bench"


def bucket_value(b):
    """The value a bucket reports (common/workload/hist.h), vectorised."""
    b = np.asarray(b, dtype=np.int64)
    g = np.maximum(b - 128, 0) // 128
    s = np.maximum(b - 128, 0) % 128
    lower = (128 + s) << g
    return np.where(b < 128, b, lower + ((np.int64(1) << g) - 1) // 2)


def bucket_edges():
    """Each bucket's lower edge in ns, and one past the last's upper edge."""
    b = np.arange(BUCKETS + 1, dtype=np.int64)
    g = np.maximum(b - 128, 0) // 128
    s = np.maximum(b - 128, 0) % 128
    return np.where(b < 128, b, (128 + s) << g).astype(np.float64)


ERF = np.frompyfunc(math.erf, 1, 1)


def lognormal_cdf(x, median, sigma):
    z = (np.log(np.maximum(x, 1e-9)) - math.log(median)) / (sigma * math.sqrt(2))
    return 0.5 * (1 + ERF(z).astype(np.float64))


def point_kinds(n):
    """n points: (name, rw, bs, iodepth, rwmixread, read median us, write median us,
    IOPS of a typical drive)."""
    kinds = [("4k-randread", "randread", 4096, 1, 0, 85, 0, 11_000),
             ("4k-randread", "randread", 4096, 32, 0, 190, 0, 160_000),
             ("4k-randwrite", "randwrite", 4096, 1, 0, 0, 18, 50_000),
             ("4k-randwrite", "randwrite", 4096, 32, 0, 0, 260, 120_000),
             ("4k-randrw", "randrw", 4096, 16, 70, 150, 60, 90_000),
             ("128k-read", "read", 131072, 8, 0, 420, 0, 19_000),
             ("128k-write", "write", 131072, 8, 0, 0, 530, 15_000)]
    out = []
    for i in range(n):
        name, rw, bs, qd, mix, rmed, wmed, iops = kinds[i % len(kinds)]
        rep = i // len(kinds)
        qd = qd * (1 + rep)  # repeats at a deeper queue: longer waits, more IOPS
        f = 1 + 0.6 * rep
        out.append((f"{name} iodepth={qd}", rw, bs, qd, mix, rmed * f, wmed * f,
                    int(iops * (1 + 0.3 * rep))))
    return out


def base_probs(median_us):
    """Bucket probabilities of a latency: a log-normal body and a slow tail (GC, queueing)."""
    edges = bucket_edges()
    med = median_us * 1000
    cdf = 0.997 * lognormal_cdf(edges, med, 0.08) + 0.003 * lognormal_cdf(edges, 2 * med, 0.2)
    return np.diff(cdf)


def draw_hists(rng, probs, ios, shift):
    """Counts (drives x BUCKETS window) for each drive: expected ios x probs moved by its
    shift of buckets (a drive slower or faster by 2^(shift/128)), Poisson around it."""
    nz = np.nonzero(probs * ios.max() > 1e-4)[0]
    lo, hi = int(nz[0]), int(nz[-1]) + 1
    pad = int(np.abs(shift).max()) + 1
    lo, hi = max(lo - pad, 128), min(hi + pad, BUCKETS)
    win = np.arange(lo, hi)
    idx = win[None, :] - shift[:, None]
    p = np.where((idx >= 0) & (idx < BUCKETS), probs[np.clip(idx, 0, BUCKETS - 1)], 0)
    return win, rng.poisson(p * ios[:, None]).astype(np.uint64)


def percentiles(win, counts, pcts):
    cum = np.cumsum(counts, axis=1)
    tot = cum[:, -1]
    out = []
    for p in pcts:
        rank = np.ceil(p / 100 * tot).astype(np.uint64)
        k = (cum < rank[:, None]).sum(axis=1)
        out.append(np.where(tot > 0, bucket_value(win[np.minimum(k, len(win) - 1)]), 0))
    return out


def make_file(h5py, tmpl, path, rack, drives, points, rng, start_ns):
    """One rack's results file of len(drives) drives (global index, model, firmware)."""
    with h5py.File(tmpl, "r") as t, h5py.File(path, "w") as d:
        for k, v in t.attrs.items():
            d.attrs[k] = v
        d.attrs["start_ns"] = start_ns
        d.attrs["end_ns"] = start_ns + len(points) * (RUNTIME_S + 5) * 10**9
        d.attrs["campaign_name"] = CAMPAIGN
        d.attrs["methodology"] = "f1ee7db000000020"
        d.attrs["status"] = "complete"
        d.attrs["verdict"] = "PASS"
        d.create_dataset("campaign", data=t["campaign"][()])
        nd, npt = len(drives), len(points)
        agents = np.zeros((nd + 23) // 24, dtype=t["agents"].dtype)
        for a in range(len(agents)):
            agents[a]["name"] = f"r{rack:02d}-a{a:02d}".encode()
            agents[a]["host"] = f"r{rack:02d}-host{a:02d}".encode()
            agents[a]["protocol"] = b"1.7"
        dr = np.zeros(nd, dtype=t["drives"].dtype)
        speed = rng.normal(0, 0.06, nd)  # each drive's log2 latency factor
        for i, (g, model, fw) in enumerate(drives):
            a = agents[i // 24]
            dr[i]["drive"] = i
            dr[i]["agent"], dr[i]["host"] = a["name"], a["host"]
            dr[i]["path"] = f"/dev/nvme{i % 24}n1".encode()
            dr[i]["kind"] = b"block"
            dr[i]["model"], dr[i]["firmware"] = model.encode(), fw.encode()
            dr[i]["serial"] = f"S{g:07d}".encode()
            dr[i]["capacity_bytes"] = 7_680_000_000_000
            dr[i]["logical_block_size"] = 4096
            dr[i]["labels"] = f"rack=r{rack:02d},slot=U{1 + (i // 24) % 42}".encode()
        pt = np.zeros(npt, dtype=t["points"].dtype)
        res = np.zeros(nd * npt, dtype=t["results"].dtype)
        samples, bins = [], []
        nbins = 0
        for p, (name, rw, bs, qd, mix, rmed, wmed, iops) in enumerate(points):
            pt[p]["point"], pt[p]["phase"], pt[p]["name"] = p, name.split()[0].encode(), \
                name.encode()
            pt[p]["rw"], pt[p]["bs_bytes"], pt[p]["iodepth"] = rw.encode(), bs, qd
            pt[p]["numjobs"], pt[p]["rwmixread_pct"] = 1, mix
            pt[p]["runtime_ns"], pt[p]["direct"], pt[p]["engine"] = RUNTIME_S * 10**9, 1, \
                b"uring"
            pt[p]["settings"] = f"rw={rw} bs={bs} iodepth={qd}".encode()
            pt[p]["curve_pct"] = np.nan
            r = res[p * nd:(p + 1) * nd]
            r["drive"], r["point"], r["status"] = np.arange(nd), p, b"ok"
            t0 = start_ns + p * (RUNTIME_S + 5) * 10**9
            r["start_ns"], r["end_ns"], r["elapsed_ns"] = t0, t0 + RUNTIME_S * 10**9, \
                RUNTIME_S * 10**9
            dir_iops = rng.normal(1, 0.03, nd) * iops / 2 ** speed
            shift = np.round(speed * 128).astype(np.int64)
            for direction, med, share in ((0, rmed, mix / 100 if mix else 1),
                                          (1, wmed, 1 - mix / 100 if mix else 1)):
                if not med:
                    continue
                ios = dir_iops * share * RUNTIME_S
                win, counts = draw_hists(rng, base_probs(med), ios, shift)
                tot = counts.sum(axis=1)
                col = "read" if direction == 0 else "write"
                r[f"{col}_ios"] = tot
                r[f"{col}_bytes"] = tot * bs
                r[f"{col}_iops"] = tot / RUNTIME_S
                r[f"{col}_bw_bytes_per_s"] = tot * bs / RUNTIME_S
                vals = bucket_value(win).astype(np.float64)
                r[f"{col}_lat_mean_ns"] = (counts * vals).sum(axis=1) / np.maximum(tot, 1)
                p50, p90, p99, p999 = percentiles(win, counts, (50, 90, 99, 99.9))
                r[f"{col}_lat_p50_ns"], r[f"{col}_lat_p90_ns"] = p50, p90
                r[f"{col}_lat_p99_ns"], r[f"{col}_lat_p99_9_ns"] = p99, p999
                nzr, nzc = np.nonzero(counts)
                n = np.bincount(nzr, minlength=nd)
                s = np.zeros(nd, dtype=t["samples"].dtype)
                s["drive"], s["point"], s["direction"] = np.arange(nd), p, direction
                s["t_ns"], s["ios"], s["bytes"] = t0 + RUNTIME_S * 10**9, tot, tot * bs
                s["lat_mean_ns"], s["lat_p50_ns"], s["lat_p99_ns"] = r[f"{col}_lat_mean_ns"], \
                    p50, p99
                s["hist_first"] = nbins + np.cumsum(n) - n
                s["hist_n"] = n
                b = np.zeros(len(nzr), dtype=t["hist_bins"].dtype)
                b["bucket"], b["count"] = win[nzc], counts[nzr, nzc]
                nbins += len(b)
                samples.append(s)
                bins.append(b)
        for col in ("trim_iops", "health_max_temp_c", "health_new_media_errors",
                    "fdp_host_bytes", "fdp_media_bytes", "waf"):
            res[col] = np.nan if col != "trim_iops" else 0
        vd = np.zeros(nd, dtype=t["verdicts"].dtype)
        vd["drive"], vd["rule"], vd["verdict"] = np.arange(nd), b"drive", b"PASS"
        vd["measured"], vd["limit"], vd["point"], vd["interval"] = np.nan, np.nan, -1, -1
        vd["reason"] = b"every rule passed"
        tables = {"agents": agents, "drives": dr, "points": pt, "results": res,
                  "samples": np.concatenate(samples), "hist_bins": np.concatenate(bins),
                  "verdicts": vd}
        for name in t.keys():
            if name == "campaign":
                continue
            data = tables.get(name, t[name][:0])
            ds = d.create_dataset(name, data=data, maxshape=(None,), chunks=True)
            for k, v in t[name].attrs.items():
                ds.attrs[k] = v
        return nbins


def timed(args, **kw):
    t = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    return r, time.monotonic() - t


def table_rows(text):
    """The per-group table's rows of a report in markdown."""
    lines = text.splitlines()
    start = [i for i, x in enumerate(lines) if x.startswith("### per ")]
    rows = []
    for x in lines[start[0] + 4:] if start else []:
        if not x.startswith("| "):
            break
        rows.append(x)
    return sorted(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drives", type=int, default=2000)
    ap.add_argument("--per-file", type=int, default=1000, help="drives a rack (a file)")
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--dir", default="/var/tmp/rackbench-fleet-db")
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--keep", action="store_true", help="keep --dir afterwards")
    ap.add_argument("--no-files-report", action="store_true",
                    help="skip `report FILES` (minutes and GBs of memory at 24,000 drives)")
    a = ap.parse_args()
    import h5py
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    os.chmod(a.dir, 0o755)
    fstype = subprocess.run(["stat", "-f", "-c", "%T", a.dir], capture_output=True,
                            text=True).stdout.strip()
    if fstype in ("tmpfs", "ramfs"):
        sys.exit(f"{a.dir} is on {fstype}: the database must be on a disk")
    rng = np.random.default_rng(a.seed)
    try:
        r = subprocess.run([COORD, "demo", "--out", os.path.join(a.dir, "tmpl")],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"rackbench demo: {r.returncode} {r.stderr}")
        tmpl = glob.glob(os.path.join(a.dir, "tmpl", "demo-*.h5"))[0]
        points = point_kinds(a.points)
        files, nbins, t = [], 0, time.monotonic()
        start_ns = 1_790_000_000 * 10**9
        for f, first in enumerate(range(0, a.drives, a.per_file)):
            drives = []
            for g in range(first, min(first + a.per_file, a.drives)):
                model, fws = MODELS[g % len(MODELS)]
                # one drive in seven of a model on its newer firmware, where it has two
                fw = fws[-1] if (g // len(MODELS)) % 7 == 0 else fws[0]
                drives.append((g, model, fw))
            files.append(os.path.join(a.dir, f"rack{f:02d}.h5"))
            nbins += make_file(h5py, tmpl, files[-1], f, drives, points, rng,
                               start_ns + f * 10**9)
        size = sum(os.path.getsize(p) for p in files)
        rows = a.drives * a.points
        print(f"{len(files)} results files ({a.drives:,} drives x {a.points} points = {rows:,} "
              f"result rows, {nbins:,} histogram buckets, {nbins / rows:.0f} a row, "
              f"{size / 1e6:,.0f} MB) made in {time.monotonic() - t:.0f} s on {fstype}")
        with PgServer(durable=True, base=a.dir) as pg:
            url = pg.url()
            # the server's own ceiling comes after; the export first, on a fresh server
            r, wall = timed(["nice", "-n", "0", COORD, "export", *files, "--db", url])
            if r.returncode:
                sys.exit(f"export: {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
            if f"{len(files)} added" not in r.stdout:
                sys.exit(f"export did not add every file:\n{r.stdout[-2000:]}")
            (n, nb, nr, nw, sz), = pg.sql(None, (
                "SELECT count(*), sum(coalesce(array_length(read_hist_buckets, 1), 0) + "
                "coalesce(array_length(write_hist_buckets, 1), 0)), "
                "count(*) FILTER (WHERE read_ios > 0), count(*) FILTER (WHERE write_ios > 0), "
                "pg_total_relation_size('rackbench.results') FROM rackbench.results"))
            n, nb = int(n), int(nb)
            print(f"export: {wall:.1f} s for {len(files)} files: {rows / wall:,.0f} result rows/s "
                  f"({nbins / wall:,.0f} histogram buckets/s)")
            print(f"in the database: {n:,} result rows ({nr} read, {nw} write histograms), "
                  f"{nb:,} buckets, {int(sz) / 1e6:,.0f} MB with indexes and TOAST")
            ok = n == rows and nb == nbins
            print(f"  every row and bucket there: {'yes' if ok else 'NO'}")
            # the server's ceiling for the same rows: COPY of them into a bare copy
            dump = os.path.join(pg.dir, "results.copy")
            pg.sql(None, f"COPY rackbench.results TO '{dump}'", timeout=3600)
            pg.sql(None, "CREATE TABLE rackbench.results_copy (LIKE rackbench.results)")
            t = time.monotonic()
            pg.sql(None, f"COPY rackbench.results_copy FROM '{dump}'", timeout=3600)
            copy_s = time.monotonic() - t
            pg.sql(None, "DROP TABLE rackbench.results_copy")
            os.unlink(dump)
            print(f"PostgreSQL's own COPY of the same rows (no keys, no checks, one "
                  f"statement): {copy_s:.1f} s, {rows / copy_s:,.0f} rows/s; the export "
                  f"is {copy_s / wall:.0%} of that rate")
            if wall < copy_s * 0.9:
                print("  FASTER than the server's own COPY: not every row can have been "
                      "written")
            r, wall2 = timed([COORD, "export", *files, "--db", url])
            (n2,), = pg.sql(None, "SELECT count(*) FROM rackbench.results")
            known = f"{len(files)} already there" in r.stdout
            print(f"the same files again: {wall2:.1f} s, "
                  f"{'all' if known else 'NOT all'} already there, {int(n2) - n} rows added")
            r, rep = timed([COORD, "report", "--db", url, "--campaign", CAMPAIGN, "--by",
                            "model", "--format", "markdown"])
            if r.returncode:
                sys.exit(f"report --db: {r.returncode} {r.stderr[-2000:]}")
            got = table_rows(r.stdout)
            per_point = {}
            for x in got:
                cells = [c.strip() for c in x.strip("|").split("|")]
                per_point[cells[0]] = per_point.get(cells[0], 0) + int(cells[2])
            whole = sorted(set(per_point.values()))
            print(f"report --db --by model: {rep:.2f} s, {len(got)} rows ({len(per_point)} "
                  f"points); drives per point {whole} (the fleet: {a.drives})")
            if not a.no_files_report:
                r, frep = timed([COORD, "report", *files, "--by", "model", "--format",
                                 "markdown"])
                want = table_rows(r.stdout)
                print(f"report FILES --by model: {frep:.2f} s; its table "
                      f"{'equal to' if want == got else 'DIFFERENT from'} the database's")
    finally:
        if not a.keep:
            shutil.rmtree(a.dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
