# SPDX-License-Identifier: MIT
"""A real coordinator and two real agents over TCP on loopback run tests/campaigns/e2e.yaml;
the HDF5 file is read back with h5py and held to schemas/results-layout.md."""
import glob
import json
import os
import subprocess

import layout
from rbtest import COORD, SRC, Tmp, check, file_agents, free_port, h5, run

h5py = h5()
import numpy as np  # noqa: E402

campaign = os.path.join(SRC, "tests", "campaigns", "e2e.yaml")
with Tmp() as tmp:
    port = free_port()
    ep = f"tcp://127.0.0.1:{port}"
    agents = file_agents(ep, tmp, "e2e")
    try:
        r = run([COORD, "run", campaign, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        for a in agents:
            rc = a.stop()
            check(rc == 0, f"agent exited {rc} on SIGTERM:\n{a.output()}")
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"rackbench run exited {r.returncode}")
    files = glob.glob(os.path.join(tmp, "out", "e2e-*.h5"))
    check(len(files) == 1, f"want one results file, found {files}")
    # the journal, synced, leaves the page cache as the run goes (it is read only by a
    # resume): at most its last, partly written page and what came after the last sync
    jpath = files[0] + ".journal"
    fs = subprocess.run(["stat", "-f", "-c", "%T", jpath], capture_output=True, text=True)
    page = os.sysconf("SC_PAGE_SIZE")
    size = os.path.getsize(jpath)
    if fs.stdout.strip() in ("tmpfs", "ramfs"):
        print("the journal is on tmpfs, which is its page cache: not checked")
    elif size < 8 * page:
        print(f"the journal is {size} bytes, under 8 pages of {page}: not checked")
    else:
        cached = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES",
                                 jpath], capture_output=True, text=True)
        check(cached.returncode == 0, f"fincore: {cached.stderr}")
        check(int(cached.stdout) <= size // 4,
              f"the journal's {size} bytes: {cached.stdout.strip()} of them still cached")
        print(f"journal: {size} bytes, {cached.stdout.strip()} cached after the run")
    with h5py.File(files[0], "r") as f:
        diffs = layout.check_file(f)
        check(not diffs, "file differs from schemas/results-layout.md:\n  " + "\n  ".join(diffs))
        check(f.attrs["status"] == "complete", f"status {f.attrs['status']}")
        check(f.attrs["campaign_name"] == "e2e", "campaign name")
        check(f.attrs["insecure"] == "true", "insecure attribute")
        text = f["campaign"][()]
        text = text.decode() if isinstance(text, bytes) else text
        check("e2e-a1" in text, "campaign text stored")
        drives = f["drives"][:]
        points = f["points"][:]
        res = f["results"][:]
        samples = f["samples"][:]
        hist = layout.hist_rows(f)
        bsc = f["bs_counts"][:]
        check(len(f["agents"]) == 2, "two agents")
        check(len(drives) == 4, f"{len(drives)} drives, want 4")
        check(len(points) == 5, f"{len(points)} points, want 5 (2x2 matrix + 1)")
        check(len(res) == 4 * 5, f"{len(res)} result rows, want 20")
        # identity: every drive row names its agent, path, kind and capacity
        want = {(b"e2e-a1", b"a1/disk0.dat"), (b"e2e-a1", b"a1/disk1.dat"),
                (b"e2e-a2", b"a2/disk0.dat"), (b"e2e-a2", b"a2/disk1.dat")}
        check({(d["agent"], d["path"]) for d in drives} == want, f"drives {drives}")
        for d in drives:
            check(d["kind"] == b"file", f"kind {d['kind']}")
            # made by this run or there before: a file's model is "file" either way
            check(d["model"] == b"file", f"model {d['model']}")
            check(d["capacity_bytes"] == 16 << 20, f"capacity {d['capacity_bytes']}")
            check(d["logical_block_size"] > 0, "logical block size")
        # units attributes on every table
        for t in ("results", "samples", "hist_bins", "points", "drives", "bs_counts", "agents"):
            json.loads(f[t].attrs["units"])
        check(json.loads(f["results"].attrs["units"])["read_lat_p99_ns"] == "ns", "units")
        # the matrix, in order
        check([p["iodepth"] for p in points[:4]] == [1, 1, 8, 8], "iodepth order")
        check([p["numjobs"] for p in points[:4]] == [1, 2, 1, 2], "numjobs order")
        check(points[4]["rw"] == b"randrw" and points[4]["rwmixread_pct"] == 70, "mixed point")
        for row in res:
            key = (row["drive"], row["point"], row["attempt"])
            check(row["status"] == b"ok", f"{key} status {row['status']} {row['message']}")
            ios = row["read_ios"] + row["write_ios"]
            check(ios > 0 and row["read_iops"] > 0, f"{key} has no IOs")
            check(row["elapsed_ns"] > 0, "elapsed")
            for d, col in ((0, "read_ios"), (1, "write_ios")):
                m = (hist["drive"] == row["drive"]) & (hist["point"] == row["point"]) & \
                    (hist["attempt"] == row["attempt"]) & (hist["direction"] == d)
                check(int(hist["count"][m].sum()) == int(row[col]),
                      f"{key} dir {d}: histogram total {hist['count'][m].sum()} != {row[col]}")
                ms = (samples["drive"] == row["drive"]) & (samples["point"] == row["point"]) & \
                     (samples["direction"] == d)
                check(int(samples["ios"][ms].sum()) == int(row[col]),
                      f"{key} dir {d}: samples total != {col}")
                mb = (bsc["drive"] == row["drive"]) & (bsc["point"] == row["point"]) & \
                     (bsc["direction"] == d)
                check(int(bsc["ios"][mb].sum()) == int(row[col]), f"{key} bs_counts")
            check(row["read_lat_min_ns"] <= row["read_lat_p50_ns"] <= row["read_lat_p99_ns"]
                  <= row["read_lat_max_ns"] * 1.004 + 1, f"{key} percentile order")
            check(row["start_ns"] > 1.7e18 and row["end_ns"] > row["start_ns"], "times")
        mixed = res[res["point"] == 4]
        check(all(mixed["write_ios"] > 0), "mixed point writes")
        frac = mixed["read_ios"].sum() / (mixed["read_ios"].sum() + mixed["write_ios"].sum())
        check(0.6 < frac < 0.8, f"read fraction {frac} for rwmixread 70")
        # 1.5 s at 500 ms intervals: 3 intervals per drive, point and direction used
        rr = samples[samples["point"] == 0]
        check(len(rr) == 4 * 3, f"{len(rr)} samples for point 0, want 12")
        check(len(np.unique(samples[["drive", "point", "attempt", "interval", "direction"]]))
              == len(samples), "sample keys unique")
print("ok")
