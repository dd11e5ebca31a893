# SPDX-License-Identifier: MIT
"""A campaign's results in fio's formats: `rackbench report --format fio-json | json+` and
`--fio-logs DIR`, checked against the HDF5 file's own rows and read by fio's tools.

- fio-json: a job per (point, drive) with a result, the fields a fio-JSON reader takes,
  each job's IOs those of its result row, its p99 within the two histogram layouts' error
  of the row's, its bw/iops sample statistics those of the drive's interval samples;
- json+: fio_jsonplus_clat2csv (Debian's fio package) validates every job's bins;
- logs: jobs.tsv names every job; a job's bw, iops and lat logs have a line per interval
  sample with the sample's figures; its clat_hist lines hold 1856 buckets adding up to the
  sample's IOs; fio2gnuplot (Debian's fio package) reads the bandwidth logs."""
import glob
import json
import os
import shutil
import statistics
import subprocess

from fiojson import FIELDS, get, kinds
from rbtest import COORD, Tmp, check, h5, run, skip

if not shutil.which("fio_jsonplus_clat2csv") or not shutil.which("fio2gnuplot"):
    skip("needs fio_jsonplus_clat2csv and fio2gnuplot (Debian's fio package)")
h5py = h5()

with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    path = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    with h5py.File(path, "r") as f:
        res, pts, smp = f["results"][:], f["points"][:], f["samples"][:]
        ids = {f"{d['agent'].decode()}:{d['path'].decode()}": d["drive"] for d in f["drives"][:]}
    r = run([COORD, "report", path, "--format", "fio-json", "--fio-logs",
             os.path.join(tmp, "logs")])
    check(r.returncode == 0, f"report: {r.returncode} {r.stderr}")
    doc = json.loads(r.stdout)  # the document alone on stdout
    jobs = doc["jobs"]
    check(len(jobs) == len(res), f"{len(jobs)} jobs for {len(res)} result rows")
    with open(os.path.join(tmp, "logs", "jobs.tsv")) as f:
        index = [line.rstrip("\n").split("\t") for line in f][1:]
    check(len(index) == len(jobs), f"jobs.tsv names {len(index)} jobs")
    for n, (job, row) in enumerate(zip(jobs, index), 1):
        for p, t in FIELDS.items():
            if "percentile" in p and not job[p[0]]["total_ios"]:
                continue  # as in fio's: no percentiles of a direction without IO
            check(isinstance(get(job, p), kinds(t)), f"job {n} {p}: {get(job, p)!r}")
        num, _, point, drive = row
        check(int(num) == n and job["jobname"] == f"{point} {drive}",
              f"job {n}: '{job['jobname']}' against jobs.tsv {row}")
        # the result row of that point and drive (the newest attempt): the same IOs, a p99
        # within the error
        prow = next(p for p in pts if p["name"].decode() == point)
        mine = [x for x in res if x["point"] == prow["point"] and x["drive"] == ids[drive]]
        check(len(mine) >= 1, f"job {n}: no result row of {point} on {drive}")
        x = max(mine, key=lambda r: r["attempt"])
        rd = job["read"]
        check(x["read_ios"] == rd["total_ios"] and x["write_ios"] == job["write"]["total_ios"],
              f"job {n}: {rd['total_ios']} reads and {job['write']['total_ios']} writes, the "
              f"row {x['read_ios']} and {x['write_ios']}")
        for d, name in ((0, "read"), (1, "write")):
            if not job[name]["total_ios"]:
                continue
            p99 = job[name]["clat_ns"]["percentile"]["99.000000"]
            want = x[f"{name}_lat_p99_ns"]
            # fio's buckets are 1/64 of their group wide, rackbench's 1/128
            check(abs(p99 - want) <= 0.024 * want + 2, f"job {n} {name} p99 {p99} vs {want}")
            s = smp[(smp["drive"] == x["drive"]) & (smp["point"] == x["point"]) &
                    (smp["attempt"] == x["attempt"]) & (smp["direction"] == d)]
            check(job[name]["iops_samples"] == len(s),
                  f"job {n} {name}: {job[name]['iops_samples']} samples, file {len(s)}")
            # 1 s intervals: a sample's IOs are its IOPS
            check(abs(job[name]["iops_mean"] - statistics.mean(int(i) for i in s["ios"])) < 0.01 *
                  job[name]["iops_mean"] + 1, f"job {n} {name}: iops_mean")
            check(job[name]["iops_max"] == max(s["ios"]), f"job {n} {name}: iops_max")
            # the logs: a line per sample, the sample's own figures
            logs = {}
            for kind in ("bw", "iops", "lat", "clat_hist"):
                with open(os.path.join(tmp, "logs", f"rackbench_{kind}.{n}.log")) as f:
                    logs[kind] = [[int(v) for v in line.split(",")] for line in f
                                  if int(line.split(",")[2 if kind != "clat_hist" else 1]) == d]
            check(sorted(v[1] for v in logs["iops"]) == sorted(int(i) for i in s["ios"]),
                  f"job {n} {name}: the iops log is not the samples' IOs")
            check(sorted(v[1] for v in logs["bw"]) ==
                  sorted(round(b / 1024) for b in s["bytes"]), f"job {n} {name}: bw log")
            check(len(logs["lat"]) == len(s), f"job {n} {name}: lat log lines")
            for line in logs["clat_hist"]:
                check(len(line) == 3 + 1856, f"job {n}: a histogram line of {len(line)} fields")
            check(sorted(sum(v[3:]) for v in logs["clat_hist"]) ==
                  sorted(int(i) for i in s["ios"]), f"job {n} {name}: clat_hist sums")
    # json+: fio's own tool validates every job's bins
    r = run([COORD, "report", path, "--format", "json+"])
    check(r.returncode == 0, f"json+: {r.stderr}")
    plus = os.path.join(tmp, "plus.json")
    with open(plus, "w") as f:
        f.write(r.stdout)
    for extra in ([], ["--validate"]):  # the CSV files first, then checked against the bins
        v = subprocess.run(["fio_jsonplus_clat2csv"] + extra + [plus, os.path.join(tmp, "clat.csv")],
                           capture_output=True, text=True)
    check(v.returncode == 0 and v.stdout.count("validated") >= len(jobs),
          f"fio_jsonplus_clat2csv --validate: {v.stdout} {v.stderr}")
    # fio2gnuplot reads the bandwidth logs: its summary counts every line
    out = os.path.join(tmp, "plot") + "/"
    os.makedirs(out)
    v = subprocess.run(["fio2gnuplot", "-p", "rackbench_bw.*.log", "-d", out, "-t", "demo"],
                       capture_output=True, text=True, cwd=os.path.join(tmp, "logs"))
    check(v.returncode == 0, f"fio2gnuplot: {v.stdout} {v.stderr}")
    summary = glob.glob(os.path.join(out, "*.global"))
    check(summary, f"fio2gnuplot wrote no summary: {os.listdir(out)} {v.stdout}")
    r = run([COORD, "report", path, "--format", "xml"])
    check(r.returncode == 2 and "fio-json" in r.stderr, f"bad format: {r.stderr}")
print("ok")
