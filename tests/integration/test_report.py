# SPDX-License-Identifier: MIT
"""rackbench report: the table, Markdown and CSV of a real run agree with its HDF5 file (a
direction that moved no IO shows a dash, in CSV nothing); --baseline gives each drive's
IOPS difference from one drive at the same point, across files too, and without it there
is no column for one; the page's "wrote" message follows the table on a line of its own;
bad input is exit 2 with a message."""
import csv
import glob
import io
import os
import subprocess

from rbtest import COORD, Tmp, check, h5, run

h5py = h5()

with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode}")
    f = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    with h5py.File(f, "r") as h:
        res = h["results"][:]
        drives = h["drives"][:]
        points = h["points"][:]
    label0 = f"{drives[0]['agent'].decode()}:{drives[0]['path'].decode()}"
    r = run([COORD, "report", f, "--format", "csv", "--baseline", label0])
    check(r.returncode == 0, f"csv: {r.returncode} {r.stderr}")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(len(rows) == len(drives) * len(points), f"{len(rows)} rows")
    label = {int(d["drive"]): f"{d['agent'].decode()}:{d['path'].decode()}" for d in drives}
    name = {int(p["point"]): p["name"].decode() for p in points}
    base, exact = {}, {}
    for x in res:
        want = float(x["read_iops"] + x["write_iops"] + x["trim_iops"])
        exact[(label[int(x["drive"])], name[int(x["point"])])] = want
        row = [w for w in rows if w["drive"] == label[int(x["drive"])] and w["point"] == name[int(x["point"])]]
        check(len(row) == 1 and abs(float(row[0]["iops"]) - want) < 0.1, f"iops of {row}")
        for d in ("read", "write"):
            if x[f"{d}_ios"]:
                check(abs(float(row[0][f"{d}_p99_us"]) - x[f"{d}_lat_p99_ns"] / 1e3) < 0.01,
                      f"{d} p99 of {row}")
            else:  # a direction that moved no IO has no latency: nothing, not 0.00
                check(row[0][f"{d}_p99_us"] == row[0][f"{d}_mean_us"] == "", f"{d} of {row}")
        if label[int(x["drive"])] == label0:
            base[int(x["point"])] = want
    for w in rows:
        p = [k for k, v in name.items() if v == w["point"]][0]
        # from the stored IOPS, not the CSV's (rounded to 0.1, which at 93 IOPS moves the
        # percentage by 0.05): only the percentage's own rounding to 0.1 is allowed for
        want = 100.0 * (exact[(w["drive"], w["point"])] - base[p]) / base[p]
        check(abs(float(w["vs_baseline_pct"]) - want) <= 0.0501,
              f"vs baseline {w}: want {want:.3f}")
    r = run([COORD, "report", f, f, "--format", "markdown"])
    check(r.returncode == 0 and "| point | drive |" in r.stdout and "#2 " in r.stdout, "two files")
    r = run([COORD, "report", f])
    check(r.returncode == 0 and all(n in r.stdout for n in name.values()), "table names every point")
    # no baseline asked for: no column of a difference from one
    check("vs base" not in r.stdout, f"a baseline's column without one:\n{r.stdout[:400]}")
    b = run([COORD, "report", f, "--baseline", label0])
    check(b.returncode == 0 and "vs base" in b.stdout.splitlines()[0], "the baseline's column")
    # the demo's reads write nothing and its writes read nothing: a dash there, not 0.0
    for p in points:
        rows = [x for x in r.stdout.splitlines() if x[4:].startswith(p["name"].decode() + " ")]
        # after status, IOPS and MB/s: rd mean, rd p99, wr mean, wr p99
        lat = [x.split()[x.split().index("ok") + 3:][:4] for x in rows]
        want = [0, 1] if p["rw"] == b"randread" else [2, 3]
        check(len(rows) == len(drives) and all(
            all((v == "-") == (i not in want) for i, v in enumerate(x)) for x in lat),
            f"{p['name']}: latencies {lat}")
    # the page's message comes after the table, on a line of its own, even where the
    # table and the messages go to one pipe (stdout buffered, stderr not)
    page = os.path.join(tmp, "r.html")
    both = subprocess.run([COORD, "report", f, "--html", page], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=180)
    lines = both.stdout.splitlines()
    check(both.returncode == 0 and lines and lines[-1] == f"rackbench: wrote {page}" and
          both.stdout.count("wrote") == 1 and both.stdout[:-len(lines[-1]) - 1] == r.stdout,
          f"the table and the message mixed:\n{both.stdout[-600:]}")
    r = run([COORD, "report", f, "--baseline", "no-such-drive"])
    check(r.returncode == 2 and "matches --baseline 'no-such-drive'" in r.stderr, "unknown baseline")
    junk = os.path.join(tmp, "junk.h5")
    open(junk, "w").write("not hdf5")
    r = run([COORD, "report", junk])
    check(r.returncode == 2 and "is not a rackbench results file" in r.stderr, "not results")
print("ok")
