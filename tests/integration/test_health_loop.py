# SPDX-License-Identifier: MIT
"""Drive health in a campaign on loop devices: snapshots before, during (every
health_interval) and after every point land in the HDF5 `health` table, and each results
row carries what the drive's own counters say it wrote, which is at least what the
engine wrote. The file matches schemas/results-layout.md."""
import glob
import os
import subprocess

import layout
from rbtest import LoopDevices, COORD, Agent, Tmp, check, free_port, h5, run, skip

h5py = h5()
if os.geteuid() != 0:
    skip("needs root for loop devices")

CAMPAIGN = """name: health
insecure: true
destructive: true
wait: 20s
defaults: {{runtime: 1500ms, health_interval: 400ms, size: 16m}}
targets:
  - agent: h1
    drives: [{d0}, {d1}]
phases:
  - name: write
    workload: {{rw: randwrite, bs: 64k, iodepth: 4}}
  - name: read
    workload: {{rw: randread, bs: 4k}}
"""

with Tmp() as tmp:
    with LoopDevices(tmp, 2) as devs:
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(d0=devs[0], d1=devs[1]))
        ep = f"tcp://127.0.0.1:{free_port()}"
        # the first drive's slot as agent.yaml names it; the second has no PCI slot: none
        cfg = os.path.join(tmp, "agent.yaml")
        with open(cfg, "w") as f:
            f.write(f'slots: {{{devs[0]}: "bay 7"}}\n')
        agent = Agent(ep, "h1", devs, allow=devs, state_dir=os.path.join(tmp, "state"),
                      extra=["--config", cfg])
        try:
            r = run([COORD, "run", path, "--listen", ep, "--results", os.path.join(tmp, "out")])
        finally:
            agent.stop()
        print(r.stdout, r.stderr)
        check(r.returncode == 0, f"exit {r.returncode}")
        with h5py.File(glob.glob(os.path.join(tmp, "out", "*.h5"))[0], "r") as f:
            diffs = layout.check_file(f)
            check(not diffs, "layout: " + "; ".join(diffs))
            health = f["health"][:]
            res = f["results"][:]
            for d in range(2):
                for p in range(2):
                    rows = health[(health["drive"] == d) & (health["point"] == p)]
                    whens = sorted(rows["when"])
                    check(whens.count(0) == 1 and whens.count(2) == 1 and whens.count(1) >= 2,
                          f"drive {d} point {p}: snapshots {whens}")
                    check(all(rows["nvme"] == 0) and all(rows["temperature_c"] != rows["temperature_c"]),
                          "a loop device has no SMART: NaN")
                    slots = {x.decode() for x in rows["slot"]}
                    check(slots == ({"bay 7"} if d == 0 else {""}), f"drive {d}'s slot: {slots}")
                    before = rows[rows["when"] == 0][0]
                    after = rows[rows["when"] == 2][0]
                    row = res[(res["drive"] == d) & (res["point"] == p)][0]
                    delta = int(after["kernel_write_bytes"]) - int(before["kernel_write_bytes"])
                    check(row["health_write_bytes"] == delta, "results carry the counter delta")
                    if p == 0:
                        check(delta >= int(row["write_bytes"]) > 0,
                              f"the drive counted {delta} bytes written, the engine {row['write_bytes']}")
                    else:
                        check(delta == 0, f"a read point wrote {delta} bytes")
                        reads = int(after["kernel_read_ios"]) - int(before["kernel_read_ios"])
                        check(reads >= int(row["read_ios"]), "the drive saw every read")
print("ok")
