# SPDX-License-Identifier: MIT
"""python/rackbench_h5.py: every table loads as a DataFrame, and percentiles recomputed
in Python from the stored histograms equal the C code's exactly (the results table's
values, written by the coordinator from the same histograms). Against a raw per-IO
latency log of a real run (rackbench-agent run --lat-log), the reported p50/p99 are
within the histogram's error bound of the exact percentiles, by the same rank rule.

Installed as pip installs it (issue 20): `pip install ./python` into a venv, offline (the
venv sees Debian's h5py, numpy and pandas), the module imports from the venv, not from
the checkout; its tidy() and compare() on two demo runs, given models and a re-run
attempt, equal what is computed here from the raw h5py tables: the newest attempt of each
(point, drive), the metric each workload is judged by, the median over a model's drives
(IOPS, MB/s), the mean over all their IOs and the p99 of their histograms added (as
`rackbench report --wide`), the percent difference and the review sentence."""
import atexit
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import json
import math

from rbtest import AGENT, COORD, SRC, Tmp, check, h5, run

sys.path.insert(0, os.path.join(SRC, "python"))
try:
    import pandas  # noqa: F401
except ImportError:
    from rbtest import fail
    fail("pandas is missing: install python3-pandas")
import rackbench_h5 as rb  # noqa: E402

# the bucket rule, against the C unit test's edges
check(rb.bucket_index(127) == 127 and rb.bucket_index(128) == 128 and rb.bucket_index(257) == 256,
      "bucket index")
for i in range(0, rb.BUCKETS - 1, 97):
    check(rb.bucket_upper(i) == rb.bucket_lower(i + 1), f"bucket {i} tiles")
    check(rb.bucket_index(rb.bucket_lower(i)) == i, f"bucket {i} index")

# the first demo's file, kept for the pip part at the end
KEEP = tempfile.mkdtemp(prefix="rbtest-")
atexit.register(shutil.rmtree, KEEP, True)

with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    path = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    shutil.copy(path, os.path.join(KEEP, "demo1.h5"))
    f = rb.open(path)
    for t in f.tables():
        df = f.table(t)
        check(len(df) == len(f.h5[t]), f"{t}: {len(df)} rows")
    res = f.table("results")
    check(res["status"].iloc[0] == "ok", "strings decoded")
    checked = 0
    for _, row in res.iterrows():
        for d, name in ((0, "read"), (1, "write")):
            if row[f"{name}_ios"] == 0:
                continue
            counts = f.histogram(drive=row["drive"], point=row["point"], attempt=row["attempt"],
                                 direction=d)
            check(int(counts.sum()) == row[f"{name}_ios"], "histogram total = IOs")
            for p, col in ((50, "p50"), (90, "p90"), (99, "p99"), (99.9, "p99_9")):
                got, want = rb.percentile(counts, p), row[f"{name}_lat_{col}_ns"]
                check(got == want, f"drive {row['drive']} point {row['point']} {name} p{p}: "
                                   f"python {got} != C {want}")
                checked += 1
    fleet = f.percentiles(["point", "direction"], [50, 99])
    check(len(fleet) == len(f.table("points")), "one fleet row per point and direction used")
    check((fleet["ios"] > 0).all(), "fleet IOs")

    # the histogram against every IO's own latency
    import numpy as np
    target, log = os.path.join(tmp, "t.dat"), os.path.join(tmp, "lat.bin")
    with open(target, "wb") as t:  # data, not holes: reads of holes measure no device
        t.write(os.urandom(32 << 20))
    r = run([AGENT, "run", "--json", "--target", target, "--rw", "randread", "--bs", "4k",
             "--iodepth", "4", "--runtime", "2s", "--lat-log", log])
    check(r.returncode == 0, f"run --lat-log: {r.returncode} {r.stderr}")
    out = json.loads(r.stdout)["read"]
    raw = np.sort(np.fromfile(log, dtype=np.uint64))
    check(len(raw) == out["ios"] == out["hist_ios"], f"{len(raw)} logged, {out['ios']} IOs")
    for p, col in ((50, "p50"), (99, "p99"), (99.9, "p99_9")):
        exact = int(raw[min(max(math.ceil(p / 100 * len(raw)), 1), len(raw)) - 1])
        got = out["lat_ns"][col]
        # a bucket is at most 1/128 of its values wide and reports its midpoint
        check(abs(got - exact) <= exact / 256 + 1,
              f"p{p}: reported {got}, exact {exact} (bound {exact / 256 + 1:.0f})")
    r = run([AGENT, "run", "--target", target, "--runtime", "1s", "--lat-log", log])
    check(r.returncode == 2 and "cannot create latency log" in r.stderr, "existing log refused")

# ---- the module as pip installs it: tidy() and compare() against the raw tables ----

h5py = h5()

# what the venv's Python runs, from a folder that is not the checkout
VENV_SCRIPT = r"""
import json, sys
import rackbench_h5 as rb
a, b, ab, b2 = sys.argv[1:5]
out = {"file": rb.__file__}
from importlib import metadata
out["version"] = metadata.version("rackbench-h5")
out["requires"] = sorted(metadata.requires("rackbench-h5") or [])
f = rb.open(a)
out["table_units"] = f.table("results").attrs["units"]
t = f.tidy()
f.close()
out["tidy"] = t.to_dict("records")
out["tidy_units"] = t.attrs["units"]
runs = {"models": ([a, b], "ACME B", None, "model"),
        "one_file": ([ab], "ACME B", "p99_us", "model"),
        "by_file": ([a, b2], b2, None, "model"),
        "mean": ([a, rb.open(b)], "ACME B", "mean_us", "model"),
        "by_agent": (a, "demo-a2", None, "agent")}
for k, (files, base, metric, by) in runs.items():
    c = rb.compare(files, base, metric, by=by)
    out[k] = c.to_dict("records")
    out[k + "_units"] = c.attrs["units"]
try:
    rb.compare([a, b], "no such model")
    out["bad_baseline"] = ""
except ValueError as e:
    out["bad_baseline"] = str(e)
print(json.dumps(out))
"""


def text(v):
    return v.decode("utf-8") if isinstance(v, bytes) else v


def raw_rows(path, name):
    """A table's rows as dicts of plain values, with h5py alone."""
    with h5py.File(path, "r") as f:
        d = f[name][:]
        return [{k: text(r[k].item() if hasattr(r[k], "item") else r[k]) for k in d.dtype.names}
                for r in d]


def raw_units(path, name):
    with h5py.File(path, "r") as f:
        return json.loads(text(f[name].attrs["units"]))


def newest(path):
    """(point, drive) -> the results row of the highest attempt (of equal ones, the last)."""
    best = {}
    for r in raw_rows(path, "results"):
        k = (r["point"], r["drive"])
        if k not in best or r["attempt"] >= best[k]["attempt"]:
            best[k] = r
    return best


def set_models(src, dst, models, extra_attempt=False):
    """A copy of src whose drives have the given models (one per drive, in order); with
    extra_attempt, point 0 of drive 0 gets a newer attempt that read 1.5 times as much."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        d = f["drives"]
        x = d[:]
        for i in range(len(x)):
            x["model"][i] = models[i].encode()
        d[...] = x
        if extra_attempt:
            r = f["results"]
            rows = r[:]
            row = rows[(rows["point"] == 0) & (rows["drive"] == 0)][0].copy()
            row["attempt"] = rows["attempt"].max() + 1
            row["read_iops"] *= 1.5
            row["read_bw_bytes_per_s"] *= 1.5
            r.resize((len(rows) + 1,))
            r[len(rows)] = row


def judged(p):
    """The metric a review judges the point by (the demo has no splits)."""
    if p["rw"].startswith("rand") and p["bs_bytes"] < 64 * 1024:
        return "iops"
    return "mbps"


def value(r, metric):
    if metric == "iops":
        return r["read_iops"] + r["write_iops"] + r["trim_iops"]
    if metric == "mbps":
        return (r["read_bw_bytes_per_s"] + r["write_bw_bytes_per_s"] +
                r["trim_bw_bytes_per_s"]) / 1e6
    d = "read" if r["read_ios"] else "write"
    return {"p99_us": r[f"{d}_lat_p99_ns"], "mean_us": r[f"{d}_lat_mean_ns"]}[metric] / 1e3


def raw_p99(path, rows):
    """The p99 (us) of the histograms of these results rows added, with h5py alone: each
    row's samples (its drive, point, attempt, the direction it did) and their bins."""
    counts = {}
    with h5py.File(path, "r") as f:
        sm, bins = f["samples"][:], f["hist_bins"][:]
    for r in rows:
        d = 0 if r["read_ios"] else 1
        sel = sm[(sm["drive"] == r["drive"]) & (sm["point"] == r["point"]) &
                 (sm["attempt"] == r["attempt"]) & (sm["direction"] == d)]
        for x in sel:
            first, n = int(x["hist_first"]), int(x["hist_n"])
            for b in bins[first:first + n]:
                counts[int(b["bucket"])] = counts.get(int(b["bucket"]), 0) + int(b["count"])
    total = sum(counts.values())
    if not total:
        return float("nan")
    rank, seen = math.ceil(0.99 * total), 0
    for b in sorted(counts):
        seen += counts[b]
        if seen >= rank:
            return rb.bucket_value(b) / 1e3


def group_value(path, rows, m):
    """A group's figure, as `rackbench report --wide`: the median for IOPS and MB/s, the
    mean over all the IOs, the p99 of the histograms added."""
    if m in ("iops", "mbps"):
        return median([value(r, m) for r in rows])
    if m == "mean_us":
        ios = [r["read_ios"] if r["read_ios"] else r["write_ios"] for r in rows]
        return sum(value(r, m) * n for r, n in zip(rows, ios)) / sum(ios)
    return raw_p99(path, rows)


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def where(p):
    words = {"randread": "random read", "write": "sequential write"}[p["rw"]]
    return f"{p['bs_bytes'] // 1024}K {words} QD{p['iodepth']}"


def pct_text(x):
    return f"{x:.0f}" if x >= 9.95 else f"{x:.1f}"


def expect(groups, base, metric):
    """groups: [(name, path, drives)], base: a name. -> {(point name, name): (value,
    base value, pct, sentence)} from the raw tables."""
    out = {}
    pts = {p["point"]: p for p in raw_rows(groups[0][1], "points")}  # one plan in every file
    vals = {}
    for name, path, drives in groups:
        best = newest(path)
        for p in pts.values():
            m = metric or judged(p)
            vals[(p["name"], name)] = group_value(path, [best[(p["point"], d)] for d in drives],
                                                  m)
    for (pname, name), v in vals.items():
        p = [x for x in pts.values() if x["name"] == pname][0]
        m = metric or judged(p)
        bv = vals[(pname, base)]
        pct = (v / bv - 1) * 100
        if name == base:
            s = ""
        elif m in ("iops", "mbps"):
            s = (f"{name} is {pct_text(abs(pct))}% {'faster' if pct > 0 else 'slower'} than "
                 f"{base} at {where(p)}")
        else:
            what = {"p99_us": "p99 latency", "mean_us": "mean latency"}[m]
            s = (f"{name}'s {what} is {pct_text(abs(pct))}% "
                 f"{'higher' if pct > 0 else 'lower'} than {base}'s at {where(p)}")
        if abs(pct) < 0.05 and name != base:
            s = None  # "as fast as" / "the same as": not checked word for word
        out[(pname, name)] = (m, v, bv, pct, s)
    return out


def same(x, y):
    return math.isclose(x, y, rel_tol=1e-12, abs_tol=0) or (x != x and y != y)


def check_compare(got, want, what):
    check(len(got) == len(want), f"{what}: {len(got)} rows, want {len(want)}")
    for row in got:
        k = (row["point"], row["model"])
        check(k in want, f"{what}: unexpected row {k}")
        m, v, bv, pct, s = want[k]
        check(row["metric"] == m, f"{what} {k}: metric {row['metric']}, want {m}")
        check(row["unit"] == {"iops": "IOPS", "mbps": "MB/s"}.get(m, "us"), f"{what} {k} unit")
        check(same(row["value"], v) and same(row["baseline_value"], bv),
              f"{what} {k}: {row['value']} vs {row['baseline_value']}, want {v} vs {bv}")
        check(abs(row["pct"] - pct) < 1e-9, f"{what} {k}: {row['pct']}%, want {pct}%")
        if s is not None:
            check(row["sentence"] == s, f"{what} {k}: '{row['sentence']}', want '{s}'")
    return [r["sentence"] for r in got if r["sentence"]]


def cmake_version():
    with open(os.path.join(SRC, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\s*rackbench\s+VERSION\s+([0-9.]+)", f.read())
    return m.group(1)


with Tmp() as tmp:
    # two demo runs (the first one's above): their drives become models ACME A and B
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo 2: {r.returncode} {r.stderr}")
    demos = [os.path.join(KEEP, "demo1.h5"), glob.glob(os.path.join(tmp, "demo-*.h5"))[0]]
    nd = len(raw_rows(demos[0], "drives"))
    check(nd == 4 and len(raw_rows(demos[1], "drives")) == 4, "the demo has 4 drives")
    a, b, ab, b2 = (os.path.join(tmp, n) for n in ("a.h5", "b.h5", "ab.h5", "b2.h5"))
    set_models(demos[0], a, ["ACME A"] * 4, extra_attempt=True)
    set_models(demos[1], b, ["ACME B"] * 4)
    set_models(demos[0], ab, ["ACME A", "ACME A", "ACME B", "ACME B"])
    set_models(demos[1], b2, ["ACME A"] * 4)

    # pip install ./python, offline: a venv that sees Debian's h5py, numpy and pandas.
    # A copy of python/, so that the build's leftovers (build/, *.egg-info) stay out of
    # the checkout. --no-deps: Debian's h5py calls itself h5py._debian_h5py_serial to
    # pip, which then finds no "h5py" (the import works all the same).
    src = os.path.join(tmp, "src")
    shutil.copytree(os.path.join(SRC, "python"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = os.path.join(tmp, "venv")
    r = run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    check(r.returncode == 0, "python3 -m venv failed (install python3-venv python3-pip "
                             f"python3-setuptools python3-wheel: scripts/install-deps.sh): "
                             f"{r.stdout[-300:]} {r.stderr[-500:]}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    vpy = os.path.join(venv, "bin", "python")
    r = run([vpy, "-m", "pip", "install", "--no-cache-dir", "--no-build-isolation", "--no-index",
             "--no-deps", src], cwd=tmp, env=env)
    check(r.returncode == 0, f"pip install ./python: {r.stdout[-1500:]} {r.stderr[-1500:]}")
    with open(os.path.join(tmp, "use.py"), "w") as f:
        f.write(VENV_SCRIPT)
    work = os.path.join(tmp, "elsewhere")
    os.mkdir(work)
    r = subprocess.run([vpy, os.path.join(tmp, "use.py"), a, b, ab, b2], cwd=work, env=env,
                       capture_output=True, text=True, timeout=180)
    check(r.returncode == 0, f"the venv's python: {r.stdout[-500:]} {r.stderr[-2000:]}")
    got = json.loads(r.stdout)
    site = os.path.realpath(os.path.join(venv, "lib"))
    check(os.path.realpath(got["file"]).startswith(site + os.sep),
          f"rackbench_h5 imported from {got['file']}, not from the venv")
    check(got["version"] == cmake_version(),
          f"pyproject version {got['version']} != CMakeLists.txt's {cmake_version()}")
    check(got["requires"] == ["h5py", "numpy", "pandas"], f"requires {got['requires']}")

    # table(): the units come along, columns as stored
    check(got["table_units"] == raw_units(a, "results"), "results units in df.attrs")

    # tidy(): a row per (point, drive), the newest attempt, points and drives joined
    best = newest(a)
    pts = {p["point"]: p for p in raw_rows(a, "points")}
    drv = {d["drive"]: d for d in raw_rows(a, "drives")}
    tidy = got["tidy"]
    check(len(tidy) == len(best) == len(pts) * nd, f"tidy: {len(tidy)} rows, {len(best)} keys")
    check([(t["point"], t["drive"]) for t in tidy] == sorted(best), "tidy in (point, drive) order")
    check(best[(0, 0)]["attempt"] > 0, "the re-run attempt is there")
    for t in tidy:
        k = (t["point"], t["drive"])
        w, p, d = best[k], pts[t["point"]], drv[t["drive"]]
        for col in ("attempt", "status", "read_iops", "write_bw_bytes_per_s", "read_lat_p99_ns",
                    "rate_iops"):
            check(t[col] == w[col], f"tidy {k} {col}: {t[col]} != {w[col]}")
        for col, raw in (("point_name", "name"), ("phase", "phase"), ("rw", "rw"),
                         ("bs_bytes", "bs_bytes"), ("iodepth", "iodepth"),
                         ("point_rate_iops", "rate_iops")):
            check(t[col] == p[raw], f"tidy {k} {col}: {t[col]} != {p[raw]}")
        for col in ("agent", "path", "model", "serial", "firmware", "capacity_bytes"):
            check(t[col] == d[col], f"tidy {k} {col}: {t[col]} != {d[col]}")
        check(t["iops"] == w["read_iops"] + w["write_iops"] + w["trim_iops"], f"tidy {k} iops")
        check(same(t["mb_s"], value(w, "mbps")), f"tidy {k} mb_s")
    tu = got["tidy_units"]
    ru, pu, du = raw_units(a, "results"), raw_units(a, "points"), raw_units(a, "drives")
    check(tu["read_iops"] == ru["read_iops"] and tu["point_name"] == pu["name"] and
          tu["point_rate_iops"] == pu["rate_iops"] and tu["bs_bytes"] == pu["bs_bytes"] and
          tu["capacity_bytes"] == du["capacity_bytes"] and tu["iops"] == "1/s" and
          tu["mb_s"] == "MB/s", f"tidy units: {tu}")
    check(set(tu) == set(tidy[0]), "a unit for every tidy column")

    # compare(): two files of one model each, the metric each point is judged by
    all4 = range(4)
    want = expect([("ACME A", a, all4), ("ACME B", b, all4)], "ACME B", None)
    said = check_compare(got["models"], want, "two models")
    check(any(s.startswith("ACME A is ") and " than ACME B at 4K random read QD1" in s
              for s in said), f"the review sentence: {said}")
    check(got["models_units"]["pct"] == "%", "compare units")
    # one file of two models (an agent each), p99 latency
    want = expect([("ACME A", ab, (0, 1)), ("ACME B", ab, (2, 3))], "ACME B", "p99_us")
    said += check_compare(got["one_file"], want, "one file, p99")
    # one model in two files: grouped by file, the baseline named by its path
    na, nb = "ACME A (a.h5)", "ACME A (b2.h5)"
    want = expect([(na, a, all4), (nb, b2, all4)], nb, None)
    said += check_compare(got["by_file"], want, "by file")
    want = expect([("ACME A", a, all4), ("ACME B", b, all4)], "ACME B", "mean_us")
    said += check_compare(got["mean"], want, "mean latency")
    # grouped by agent instead of model
    agents = {}
    for d in drv.values():
        agents.setdefault(d["agent"], []).append(d["drive"])
    check(sorted(agents) == ["demo-a1", "demo-a2"], f"the demo's agents: {sorted(agents)}")
    want = expect([(n, a, ds) for n, ds in sorted(agents.items())], "demo-a2", None)
    said += check_compare(got["by_agent"], want, "by agent")
    check("no such model" in got["bad_baseline"] and "'ACME A'" in got["bad_baseline"],
          f"an unknown baseline: {got['bad_baseline']!r}")
    print("\n".join(said[:4]))
print(f"ok: {checked} percentiles equal; pip install, tidy() and compare() agree with the "
      "raw tables")
