#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""fio's own histogram-log tool on rackbench's logs: `rackbench report --fio-logs` of a demo
run, then fio's tools/hist/fiologparser_hist.py (in fio's source tree, not in Debian's
package: give a checkout with --fio-tree) over every clat_hist log. Per interval it prints
the tool's sample count and p50/p99 beside the HDF5 file's own sample row, and checks
both ways: the counts equal, the percentiles within 5% (the tool interpolates inside fio's
buckets, 1/64 of their group wide; rackbench's rows use its own 1/128 buckets).

    /usr/bin/python3 bench/fio_logs.py --fio-tree ~/src/fio [--out DIR]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import h5py

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
COORD = os.path.join(ROOT, "build", "coordinator", "rackbench")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fio-tree", required=True, help="a checkout of fio's sources")
    ap.add_argument("--out", help="keep the run and the logs here")
    a = ap.parse_args()
    tool = os.path.join(a.fio_tree, "tools", "hist", "fiologparser_hist.py")
    if not os.path.exists(tool):
        sys.exit(f"{tool}: not there (--fio-tree is fio's source tree)")
    out = a.out or tempfile.mkdtemp(prefix="rb-fio-logs-")
    subprocess.run([COORD, "demo", "--out", out], check=True, capture_output=True)
    path = glob.glob(os.path.join(out, "demo-*.h5"))[0]
    logs = os.path.join(out, "logs")
    subprocess.run([COORD, "report", path, "--fio-logs", logs], check=True,
                   stdout=subprocess.DEVNULL)
    with h5py.File(path, "r") as f:
        smp, drives, points = f["samples"][:], f["drives"][:], f["points"][:]
    ids = {f"{d['agent'].decode()}:{d['path'].decode()}": d["drive"] for d in drives}
    pids = {p["name"].decode(): p["point"] for p in points}
    with open(os.path.join(logs, "jobs.tsv")) as f:
        jobs = [line.rstrip("\n").split("\t") for line in f][1:]
    bad = 0
    print(f"{'job':>4} {'ms':>6} {'tool IOs':>9} {'file IOs':>9} {'tool p50':>10} "
          f"{'file p50':>10} {'tool p99':>10} {'file p99':>10}")
    for num, _, point, drive in jobs:
        hist = os.path.join(logs, f"rackbench_clat_hist.{num}.log")
        if not os.path.exists(hist):
            continue
        # --group_nr 29: fio 3's 1856 buckets; percentiles 50 and 99
        r = subprocess.run([sys.executable, tool, "--group_nr", "29", "--percentiles",
                            "50,99", hist], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"fiologparser_hist.py {hist}: {r.stderr}")
        lines = [line.split(",") for line in r.stdout.splitlines() if line.strip()]
        head = [h.strip() for h in lines[0]]
        c50, c99 = head.index("50.0%" if "50.0%" in head else "50%"), head.index(
            "99.0%" if "99.0%" in head else "99%")
        rows = lines[1:]
        with open(hist) as f:
            ms = [int(line.split(",")[0]) for line in f]
        # the file's samples of the job's drive and point (the newest attempt), by end
        m = smp[(smp["drive"] == ids[drive]) & (smp["point"] == pids[point])]
        m = m[m["attempt"] == m["attempt"].max()]
        m = m[m["t_ns"].argsort(kind="stable")]
        for k, row in enumerate(rows):
            n, p50, p99 = int(row[1]), float(row[c50]), float(row[c99])
            fios, fp50, fp99 = ((int(m["ios"][k]), int(m["lat_p50_ns"][k]),
                                 int(m["lat_p99_ns"][k])) if k < len(m) else (0, 0, 0))
            ok = n == fios and fp50 and abs(p50 - fp50) <= 0.05 * fp50 and \
                abs(p99 - fp99) <= 0.05 * fp99
            bad += not ok
            print(f"{num:>4} {ms[k]:>6} {n:>9} {fios:>9} {p50:>10.0f} {fp50:>10} "
                  f"{p99:>10.0f} {fp99:>10}{'' if ok else '  DIFFERS'}  {point}")
    print(f"{'every interval agrees' if not bad else f'{bad} interval(s) differ'} "
          f"(logs in {logs})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
