# SPDX-License-Identifier: MIT
"""F13 and F13b: `rackbench resume` of a run still going, and of a run that ended.

F13: while a coordinator runs a campaign, `rackbench resume` of its file (on another
port, so the bind cannot be what stops it) is refused at once, naming the running
coordinator's pid, and the journal and file are left alone; the live run then ends
complete (exit 0). Tried twice.
F13b: resume of that complete run says it is complete, exits 0, and changes not one byte
of the results file or its journal (no .crashed copy appears)."""
import glob
import os
import subprocess

from faults import stop_all
from rbtest import COORD, Tmp, check, events, file_agents, free_port, run, sha256, wait_for

CAMPAIGN = """name: racing
insecure: true
destructive: true
wait: 30s
defaults: {size: 8m, interval: 200ms, runtime: 3s}
targets:
  - agent: f13-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
phases:
  - name: one
    workload: {rw: randwrite, bs: 4k, iodepth: 2}
  - name: two
    workload: {rw: randread, bs: 4k, iodepth: 2}
"""

with Tmp() as tmp:
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    out = os.path.join(tmp, "out")
    ev = os.path.join(tmp, "events.jsonl")
    agents = file_agents(ep, tmp, "f13", names=("a1",))
    try:
        c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep, "--results",
                              out, "--events", ev],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: any(e["event"] == "point_start" for e in events(ev)),
                 "the run to start")
        path = glob.glob(os.path.join(out, "racing-*.h5"))[0]
        for _ in range(2):
            other = f"tcp://127.0.0.1:{free_port()}"
            r = run([COORD, "resume", path, "--no-service", "--listen", other], timeout=60)
            print(r.stderr[-800:])
            check(r.returncode == 1, f"resume of a live run: exit {r.returncode}")
            check(f"(pid {c.pid})" in r.stderr, f"the live coordinator's pid {c.pid} is named")
            check(not os.path.exists(path + ".crashed"), "the live run's file is untouched")
        so, se = c.communicate(timeout=120)
        check(c.returncode == 0, f"the live run, after the refused resumes: exit {c.returncode}"
              f"\n{se[-2000:]}")
        check(f"results: {path} (complete)" in so, "the live run ends complete")
        before = (sha256(path), sha256(path + ".journal"), sorted(os.listdir(out)))
        r = run([COORD, "resume", path, "--no-service"], timeout=60)
        print(r.stderr[-800:])
        check(r.returncode == 0, f"resume of a complete run: exit {r.returncode}")
        check("is complete: there is nothing to resume" in r.stderr, "it says the run is complete")
        after = (sha256(path), sha256(path + ".journal"), sorted(os.listdir(out)))
        check(before == after, f"resume of a complete run changed files: {before} {after}")
    finally:
        stop_all(agents)
print("ok")
