# SPDX-License-Identifier: MIT
"""python/rackbench_h5.py: every table loads as a DataFrame, and percentiles recomputed
in Python from the stored histograms equal the C code's exactly (the results table's
values, written by the coordinator from the same histograms). Against a raw per-IO
latency log of a real run (rackbench-agent run --lat-log), the reported p50/p99 are
within the histogram's error bound of the exact percentiles, by the same rank rule."""
import glob
import os
import sys

import json
import math

from rbtest import AGENT, COORD, SRC, Tmp, check, run

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

with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    path = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
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
print(f"ok: {checked} percentiles equal")
