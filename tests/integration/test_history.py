# SPDX-License-Identifier: MIT
"""The drive's history with every number: each result row says when the drive was last
purged (rackbench-agent purge), what rackbench wrote to it since, and how many full
sequential passes (preconditioning) that was -- the state it was measured in, recorded
by its agent in STATE_DIR/history.jsonl across runs. The HTML report's drive table shows
it."""
import glob
import os

from rbtest import AGENT, COORD, Tmp, check, file_agents, free_port, h5, run

h5py = h5()
MIB = 1 << 20

CAMPAIGN = """name: hist
insecure: true
destructive: true
wait: 20s
defaults: {size: 8m}
targets:
  - agent: hi-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
phases:
  - name: fill
    workload: {rw: write, bs: 1m, iodepth: 4, passes: 2}
  - name: read
    workload: {rw: randread, bs: 4k, runtime: 300ms}
"""


def campaign_run(tmp, tag):
    ep = f"tcp://127.0.0.1:{free_port()}"
    (a,) = file_agents(ep, tmp, "hi", ("a1",))
    out = os.path.join(tmp, tag)
    try:
        r = run([COORD, "run", os.path.join(tmp, "c.yaml"), "--listen", ep, "--results", out])
    finally:
        a.stop()
    check(r.returncode == 0, f"{tag}: {r.returncode}\n{r.stderr}")
    path = glob.glob(os.path.join(out, "hist-*.h5"))[0]
    with h5py.File(path, "r") as h:
        res = {(int(x["drive"]), int(x["point"])): x for x in h["results"][:]}
    return path, res


with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "a1"))
    with open(os.path.join(tmp, "c.yaml"), "w") as f:
        f.write(CAMPAIGN)
    _, res = campaign_run(tmp, "one")
    for d in (0, 1):
        fill, read = res[(d, 0)], res[(d, 1)]
        check(fill["history_since_ns"] == 0 and fill["written_since_purge_bytes"] == 0 and
              fill["fill_passes_since_purge"] == 0 and fill["purge_ns"] == 0,
              f"drive {d}: a new drive has no history: {fill}")
        check(read["history_since_ns"] > 0 and read["purge_ns"] == 0, f"drive {d} read row")
        check(read["written_since_purge_bytes"] == 16 * MIB and read["fill_passes_since_purge"] == 2,
              f"drive {d}: before the read, 2 passes of 8 MiB: {read['written_since_purge_bytes']}"
              f" bytes, {read['fill_passes_since_purge']} passes")
    # purge drive 0: its history starts again there
    r = run([AGENT, "purge", "a1/disk0.dat", "--method", "zero", "--destructive",
             "--state-dir", os.path.join(tmp, "a1")], cwd=tmp)
    check(r.returncode == 0, f"purge: {r.returncode} {r.stderr}")
    page = os.path.join(tmp, "r.html")
    path, res = campaign_run(tmp, "two")
    f0, f1 = res[(0, 0)], res[(1, 0)]
    check(f0["purge_ns"] > 0 and f0["purge_method"] == b"zero" and
          f0["written_since_purge_bytes"] == 0 and f0["fill_passes_since_purge"] == 0,
          f"purged drive: {f0}")
    check(f1["purge_ns"] == 0 and f1["written_since_purge_bytes"] == 16 * MIB and
          f1["fill_passes_since_purge"] == 2, f"unpurged drive carries run one's fill: {f1}")
    check(res[(1, 1)]["written_since_purge_bytes"] == 32 * MIB and
          res[(1, 1)]["fill_passes_since_purge"] == 4, "and this run's")
    r = run([COORD, "report", path, "--html", page])
    check(r.returncode == 0, f"report: {r.returncode}")
    html = open(page).read()
    check("last purge" in html and ">zero, " in html and "4 passes" in html, "drive table history")
print("ok")
