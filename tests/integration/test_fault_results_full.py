# SPDX-License-Identifier: MIT
"""F7: the results folder fills up during a run (a 300 KiB tmpfs).

Two agents with two file drives each, three points of 4 s sampled every 100 ms: the
journal and the HDF5 file outgrow the folder in the second point. Checked: the run stops
with exit 4 and a message naming the folder and its free space; it never says
"(complete)"; the file's status is not "complete"; the coordinator does not crash at exit;
the agents' IO stopped and what was not acknowledged stays in their spools. Then the
folder grows, `rackbench resume` completes the run (exit 0, status complete) and every
sample the journal and the spools held is in the file exactly once, every point whole.
Before the run, the free-space check warns that the folder looks too small."""
import glob
import os
import subprocess

from faults import (SmallFs, check_once, check_whole, journal_keys, need_root, read_file,
                    spool_keys, stop_all)
from rbtest import COORD, Tmp, check, file_agents, free_port, run

need_root("mounts a 300 KiB tmpfs to fill the results folder")

CAMPAIGN = """name: full
insecure: true
destructive: true
wait: 30s
defaults: {size: 8m, interval: 100ms, runtime: 4s}
targets:
  - agent: f7-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
  - agent: f7-a2
    drives: [a2/disk0.dat, a2/disk1.dat]
phases:
  - name: one
    workload: {rw: randwrite, bs: 4k, iodepth: 2}
  - name: two
    workload: {rw: randread, bs: 4k, iodepth: 2}
  - name: three
    workload: {rw: randrw, bs: 4k, iodepth: 2}
"""

with Tmp() as tmp:
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    out = os.path.join(tmp, "out")
    ep = f"tcp://127.0.0.1:{free_port()}"
    with SmallFs(out, "300k") as fs:
        agents = file_agents(ep, tmp, "f7")
        try:
            r = run([COORD, "run", camp, "--no-service", "--listen", ep, "--results", out],
                    timeout=120)
            print(r.stderr[-3000:])
            check("this run may need about" in r.stderr, "the free-space check warned first")
            # checked last, so that a crash at exit does not hide what else holds
            exit_rc = r.returncode
            check(f"the results folder '{out}'" in r.stderr and "free" in r.stderr,
                  "the message names the folder and its free space")
            check("(complete)" not in r.stdout, "a stopped run is not reported complete")
            path = glob.glob(os.path.join(out, "full-*.h5"))[0]
            check(f"results: {path} (aborted)" in r.stdout, f"results line: {r.stdout[-300:]}")
            journaled, _ = journal_keys(path + ".journal")
            spooled = spool_keys(os.path.join(tmp, "a1")) + spool_keys(os.path.join(tmp, "a2"))
            print(f"{len(journaled)} samples journaled, {len(spooled)} held in the spools")
            check(spooled, "the agents keep what was not acknowledged")
            # room again: resume completes the run from the journal and the spools
            fs.grow("64m")
            r = run([COORD, "resume", path, "--no-service"], timeout=180)
            print(r.stderr[-3000:])
            check(r.returncode == 0, f"resume after space was freed: exit {r.returncode}")
            status, rows, results = read_file(path)
            check(status == "complete", f"status after resume: {status}")
            check_once(rows, journaled, "journaled")
            check_once(rows, spooled, "spooled")
            check_whole(rows, results, 3)
            print(f"{len(rows)} sample rows, each once; 4 drives x 3 points whole")
        finally:
            stop_all(agents)
check(exit_rc == 4, f"a full results folder: exit {exit_rc}, not 4"
      + (" (a signal at exit: HDF5's exit handler, the results file not closed)"
         if exit_rc < 0 else ""))
print("ok")
