# SPDX-License-Identifier: MIT
"""fio-plot reads rackbench's fio JSON: a campaign's randread and randrw points
(`rackbench report --format fio-json`) and a local randrw run (`rackbench-agent run
--output-format json+`) are read exactly the way fio-plot's parser reads a fio JSON file
(fio_plot/fiolib/jsonimport.py, jsonparsing.py and jsonparsing_support.py of
louwrentius/fio-plot: the file's keys checked, global options merged into each job's,
the rw mode mapped to a direction, then every member get_json_mapping reads, with no
KeyError), and the figures it takes are the report's: IOPS, bandwidth and mean latency of
the result rows, CPU, the IOPS standard deviation of the interval samples, the latency
standard deviation and fio's latency ranges (latency_ns/us/ms) of the stored histograms.
fio_jsonplus_clat2csv (Debian's fio package) still validates the json+ output."""
import csv
import glob
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

from rbtest import AGENT, COORD, SRC, Tmp, check, file_agents, free_port, h5, run, skip

if not shutil.which("fio_jsonplus_clat2csv"):
    skip("needs fio_jsonplus_clat2csv (Debian's fio package)")
h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

MODE = object()  # the direction get_record_mode maps the rw mode to
# Every member fio-plot's get_json_mapping (fio_plot/fiolib/jsonparsing_support.py) reads
# from a job, in its order; MODE stands for "read" or "write".
GET_JSON_MAPPING = {
    "job options": ("job options",),
    "iodepth": ("job options", "iodepth"),
    "numjobs": ("job options", "numjobs"),
    "bs": ("job options", "bs"),
    "rw": ("job options", "rw"),
    "bw": (MODE, "bw"),
    "iops": (MODE, "iops"),
    "iops_stddev": (MODE, "iops_stddev"),
    "lat": (MODE, "lat_ns", "mean"),
    "lat_stddev": (MODE, "lat_ns", "stddev"),
    "latency_ms": ("latency_ms",),
    "latency_us": ("latency_us",),
    "latency_ns": ("latency_ns",),
    "cpu_usr": ("usr_cpu",),
    "cpu_sys": ("sys_cpu",),
}
# jsonimport.validate_json_file: a file is fio's when it has two of these keys
VALID_KEYS = ("fio version", "global options", "client_stats", "jobs")
# jsonparsing_support.get_record_mode: the rw mode to a direction (randrw: the filter's)
RECORD_MODE = {"randrw": None, "read": "read", "write": "write", "rw": None,
               "readwrite": None, "randread": "read", "randwrite": "write"}
# barhistogram.py's keys of the latency ranges, as fio writes them
LAT_KEYS = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"]
LAT_MS_KEYS = LAT_KEYS + ["2000", ">=2000"]


def get(d, path, mode):
    for k in path:
        d = d[mode if k is MODE else k]
    return d


def fio_plot_rows(doc, rw, direction):
    """What fio-plot takes from a document for rw mode rw and filter direction: the
    file accepted (jsonimport.filter_json_files), each job's options merged with the global
    ones (jsonparsing.process_json_record), each job mapped (get_json_mapping) and the
    fio version added. A missing member raises KeyError as in fio-plot."""
    check(sum(k in doc for k in VALID_KEYS) >= 2, "not a fio JSON file to fio-plot")
    glob_opts = doc.get("global options", {})
    glob_opts = glob_opts[0] if isinstance(glob_opts, list) else glob_opts
    first = dict(doc["jobs"][0]["job options"], **glob_opts)
    check(all(k in first for k in ("rw", "iodepth", "numjobs")), "job options")
    check(first["rw"] == rw, f"rw {first['rw']} is not {rw}")
    int(first["iodepth"]), int(first["numjobs"])  # fio-plot sorts by them as numbers
    mode = RECORD_MODE[rw] or direction
    rows = []
    for job in doc["jobs"]:
        job["job options"] = {**job["job options"], **glob_opts}
        row = {name: get(job, path, mode) for name, path in GET_JSON_MAPPING.items()}
        row["fio_version"] = doc["fio version"]
        rows.append(row)
    return rows


def lat_ranges(counts, values):
    """fio's latency ranges of a histogram given as bucket counts: each bucket's IOs at its
    value (rackbench's rule, common/fio/fioout.h), as percentages with fio's 0.01 floor."""
    ns, us, ms = [0] * 10, [0] * 10, [0] * 12
    bounds = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000]

    def at(v, n):
        i = 0
        while i < n - 1 and v >= bounds[i]:
            i += 1
        return i
    for v, c in zip(values, counts):
        if v < 1000:
            ns[at(v, 10)] += c
        elif v < 1000000:
            us[at(v // 1000, 10)] += c
        else:
            ms[at(v // 1000000, 12)] += c
    total = sum(counts)

    def pct(c):
        p = 100.0 * c / total if total else 0.0
        return 0.01 if c and p < 0.01 else p
    return ({k: pct(c) for k, c in zip(LAT_KEYS, ns)}, {k: pct(c) for k, c in zip(LAT_KEYS, us)},
            {k: pct(c) for k, c in zip(LAT_MS_KEYS, ms)})


def close(a, b, rel=1e-6, abs_=1e-6):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


CAMPAIGN = """name: fioplot
insecure: true
destructive: true
wait: 20s
defaults:
  size: 16m
  runtime: 1500ms
  interval: 250ms
targets:
  - agent: fp-a1
    drives: [a1/disk0.dat]
phases:
  - name: randread
    workload: {rw: randread, bs: 4k, iodepth: 4}
  - name: mixed
    workload: {rw: randrw, rwmixread: 70, bs: 4k, iodepth: 4}
"""

with Tmp() as tmp:
    campaign = os.path.join(tmp, "fioplot.yaml")
    with open(campaign, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = file_agents(ep, tmp, "fp", names=("a1",))
    try:
        r = run([COORD, "run", campaign, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        for a in agents:
            a.stop()
    check(r.returncode == 0, f"rackbench run: {r.returncode} {r.stderr}")
    path = glob.glob(os.path.join(tmp, "out", "fioplot-*.h5"))[0]
    r = run([COORD, "report", path, "--format", "fio-json"])
    check(r.returncode == 0, f"report: {r.stderr}")
    doc = json.loads(r.stdout)
    r = run([COORD, "report", path, "--format", "csv"])
    check(r.returncode == 0, f"report csv: {r.stderr}")
    table = {row["point"]: row for row in csv.DictReader(io.StringIO(r.stdout))}
    f = rb.open(path)
    res, pts, smp = f.table("results"), f.table("points"), f.table("samples")
    hist = f.buckets()
    f.close()
    check(len(doc["jobs"]) == 2 and len(res) == 2, f"{len(doc['jobs'])} jobs, {len(res)} rows")
    for job in doc["jobs"]:
        point = next(p for p in pts["name"] if job["jobname"].startswith(p + " "))
        rw = job["job options"]["rw"]
        pid = int(pts[pts["name"] == point]["point"].iloc[0])
        row = res[res["point"] == pid].iloc[0]
        # fio-plot reads a file per benchmark (as bench-fio writes them): this job's
        one = dict(doc, jobs=[json.loads(json.dumps(job))])
        for d in (("read",) if rw == "randread" else ("read", "write")):
            got = fio_plot_rows(one, rw, d)[0]
            print(f"{point} {d}: iops {got['iops']:.1f}, bw {got['bw']} KiB/s, lat "
                  f"{got['lat']:.0f} ns, iops_stddev {got['iops_stddev']:.1f}")
            # the result row's figures (the report's source), and the report's own
            check(close(got["iops"], row[f"{d}_iops"]), f"{point} {d} iops {got['iops']} "
                  f"vs the row's {row[f'{d}_iops']}")
            check(abs(got["bw"] - row[f"{d}_bw_bytes_per_s"] / 1024) <= 0.5,
                  f"{point} {d} bw {got['bw']} KiB/s vs {row[f'{d}_bw_bytes_per_s']} B/s")
            check(close(got["lat"], row[f"{d}_lat_mean_ns"]), f"{point} {d} mean latency")
            check(abs(got["lat"] / 1e3 - float(table[point][f"{d}_mean_us"])) <= 0.006,
                  f"{point} {d}: {got['lat']} ns, the report {table[point][f'{d}_mean_us']} us")
            check(close(got["cpu_usr"], row["cpu_usr_pct"]) and
                  close(got["cpu_sys"], row["cpu_sys_pct"]), f"{point}: cpu")
            s = smp[(smp["point"] == pid) & (smp["direction"] == int(d == "write")) &
                    (smp["attempt"] == row["attempt"])]
            want = statistics.stdev(s["ios"] / 0.25)
            check(close(got["iops_stddev"], want, 1e-5), f"{point} {d} iops_stddev "
                  f"{got['iops_stddev']} vs the samples' {want}")
            # the latency spread of the stored histogram, about the row's mean
            h = hist[(hist["point"] == pid) & (hist["direction"] == int(d == "write")) &
                     (hist["attempt"] == row["attempt"])].groupby("bucket")["count"].sum()
            vals = [rb.bucket_value(int(b)) for b in h.index]
            n = int(h.sum())
            sd = math.sqrt(sum(c * (v - got["lat"]) ** 2 for v, c in zip(vals, h)) / (n - 1))
            check(close(got["lat_stddev"], sd, 1e-5), f"{point} {d} lat_stddev")
            check(got["fio_version"].startswith("rackbench-"), "fio version")
        # fio's latency ranges: every direction's IOs in the job's histograms
        h = hist[(hist["point"] == pid) & (hist["attempt"] == row["attempt"])]
        h = h.groupby("bucket")["count"].sum()
        want = lat_ranges(list(h), [rb.bucket_value(int(b)) for b in h.index])
        for name, w in zip(("latency_ns", "latency_us", "latency_ms"), want):
            check(list(got[name]) == list(w), f"{point} {name} keys {list(got[name])}")
            for k in w:
                check(close(got[name][k], w[k]), f"{point} {name}[{k}] {got[name][k]} vs {w[k]}")
        check(abs(sum(sum(got[n].values()) for n in ("latency_ns", "latency_us", "latency_ms"))
                  - 100) < 0.2, f"{point}: latency ranges do not add up to 100%")

    # a local run's json+, read the same way; fio's own tool validates its bins
    data = os.path.join(tmp, "data.bin")
    with open(data, "wb") as f:
        f.write(os.urandom(16 << 20))
    r = run([AGENT, "run", "--target", data, "--allow", data, "--destructive", "--rw", "randrw",
             "--bs", "4k", "--iodepth", "4", "--runtime", "1s", "--output-format", "json+",
             "--state-dir", os.path.join(tmp, "state")])
    check(r.returncode == 0, f"run: {r.returncode} {r.stderr}")
    plus = os.path.join(tmp, "plus.json")
    with open(plus, "w") as f:
        f.write(r.stdout)
    doc = json.loads(r.stdout)
    for d in ("read", "write"):
        got = fio_plot_rows(doc, "randrw", d)[0]
        job = doc["jobs"][0]
        check(close(got["iops"], job[d]["total_ios"] / (job[d]["runtime"] / 1000), 1e-3),
              f"run {d}: iops (runtime in whole ms)")
        h = {}
        for x in ("read", "write"):
            for v, c in job[x]["clat_ns"].get("bins", {}).items():
                h[int(v)] = h.get(int(v), 0) + c
        check(sum(h.values()) == job["read"]["total_ios"] + job["write"]["total_ios"],
              "bins hold every IO")
        check(abs(sum(sum(got[n].values()) for n in ("latency_ns", "latency_us", "latency_ms"))
                  - 100) < 0.2, f"run {d}: latency ranges do not add up to 100%")
    for extra in ([], ["--validate"]):
        v = subprocess.run(["fio_jsonplus_clat2csv"] + extra + [plus, os.path.join(tmp, "c.csv")],
                           capture_output=True, text=True)
    check(v.returncode == 0 and "validated" in v.stdout, f"--validate: {v.stdout} {v.stderr}")
print("ok")
