# SPDX-License-Identifier: MIT
"""A striped volume of block devices in a campaign: two loop devices as one volume in 64k
units, beside a third measured alone, 128k random writes (each IO two parts, one per
member) then reads.

- each member claims its device (O_EXCL) for the writes and lets it go after the run;
- health: every member has its own rows (`member` 1 and 2, before/during/after) and the
  volume's rows (`member` 0) are their sum -- its write delta equals the members' deltas
  added up, and is what the result row carries; each member wrote half of what the
  engine wrote (128k IOs on a 128k grid over 64k units land half on each);
- the drives and members tables name block devices; the file matches the layout."""
import glob
import os

import layout
from rbtest import LoopDevices, COORD, Agent, Tmp, check, free_port, h5, run, skip

h5py = h5()
if os.geteuid() != 0:
    skip("needs root for loop devices")

CAMPAIGN = """name: vloop
insecure: true
destructive: true
wait: 20s
defaults: {{runtime: 1500ms, health_interval: 400ms, size: 16m}}
targets:
  - agent: vl1
    drives:
      - {d0}
      - {{volume: pair, stripe: 64k, members: [{d1}, {d2}]}}
phases:
  - name: write
    workload: {{rw: randwrite, bs: 128k, iodepth: 4}}
  - name: read
    workload: {{rw: randread, bs: 4k}}
"""

with Tmp() as tmp:
    with LoopDevices(tmp, 3) as devs:
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(d0=devs[0], d1=devs[1], d2=devs[2]))
        ep = f"tcp://127.0.0.1:{free_port()}"
        agent = Agent(ep, "vl1", devs, allow=devs, state_dir=os.path.join(tmp, "state"))
        try:
            r = run([COORD, "run", path, "--listen", ep, "--results", os.path.join(tmp, "out")])
        finally:
            agent.stop()
        print(r.stdout, r.stderr[-2000:])
        check(r.returncode == 0, f"exit {r.returncode}")
        for d in devs:  # the claims ended with the run
            fd = os.open(d, os.O_RDONLY | os.O_EXCL)
            os.close(fd)
        with h5py.File(glob.glob(os.path.join(tmp, "out", "*.h5"))[0], "r") as f:
            diffs = layout.check_file(f)
            check(not diffs, "layout: " + "; ".join(diffs))
            drives = {x["path"].decode(): x for x in f["drives"][:]}
            members = f["members"][:]
            health = f["health"][:]
            res = f["results"][:]
        vol = drives["pair"]
        vi = int(vol["drive"])
        check(vol["kind"] == b"volume" and vol["members"] == 2 and vol["capacity_bytes"] == 32 << 20,
              f"volume row: {vol}")
        check([m["path"].decode() for m in members] == devs[1:] and all(members["kind"] == b"block"),
              f"members: {members}")
        for p in range(2):
            rows = health[(health["drive"] == vi) & (health["point"] == p)]
            by = {m: rows[rows["member"] == m] for m in (0, 1, 2)}
            for m, rs in by.items():
                whens = sorted(rs["when"])
                check(whens.count(0) == 1 and whens.count(2) == 1 and whens.count(1) >= 2,
                      f"point {p} member {m}: snapshots {whens}")

            def delta(rs, key):
                return int(rs[rs["when"] == 2][0][key]) - int(rs[rs["when"] == 0][0][key])

            row = res[(res["drive"] == vi) & (res["point"] == p)][0]
            total = delta(by[0], "kernel_write_bytes")
            check(total == delta(by[1], "kernel_write_bytes") + delta(by[2], "kernel_write_bytes"),
                  f"point {p}: the volume's delta is its members' added up")
            check(row["health_write_bytes"] == total, "the result carries the volume's delta")
            if p == 0:
                w = int(row["write_bytes"])
                check(w > 0 and total >= w, f"the members counted {total} bytes, the engine {w}")
                for m in (1, 2):
                    got = delta(by[m], "kernel_write_bytes")
                    check(got >= w // 2, f"member {m} wrote {got} of the engine's {w}")
            else:
                check(total == 0, f"a read point wrote {total} bytes")
                reads = delta(by[0], "kernel_read_ios")
                check(reads >= int(row["read_ios"]), "the members saw every read")
        plain = int(drives[devs[0]]["drive"])
        check(all(health[health["drive"] == plain]["member"] == 0), "a drive's rows are member 0")
print("ok")
