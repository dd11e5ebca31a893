# SPDX-License-Identifier: MIT
"""A coordinator killed with SIGKILL mid-campaign, then `rackbench resume RESULTS.h5`.
Run twice: the agents live on; and one agent killed with it (restarted before resume).

Three points on two agents (two file drives each). The coordinator is killed 1.5 s into
the second point; the agents finish that point on their own (their spools hold what was
never acknowledged) and wait. `rackbench resume` rebuilds the HDF5 file from the journal,
hears the agents' unacknowledged messages again, finds the second point whole, and runs
only the third. Checked: exit 0 and status complete; every sample the journal held at the
kill (read by `rackbench journal`) and every sample in the agents' spools after the kill
(read by `rackbench-agent spool`) is in the file exactly once; the key (drive, point,
attempt, interval, direction) is unique; every drive has a result for every point; the
crashed file is kept beside and still opens; no point ran twice, except the one the
killed agent never finished, which runs again as attempt 1."""
import glob
import json
import os
import shutil
import signal
import subprocess
from collections import Counter

from rbtest import AGENT, COORD, Tmp, check, events, file_agents, free_port, h5, run, spool_done, wait_for

h5py = h5()

CAMPAIGN = """name: resumed
insecure: true
destructive: true
wait: 30s
defaults: {size: 16m, interval: 200ms, runtime: 4s}
targets:
  - agent: rs-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
  - agent: rs-a2
    drives: [a2/disk0.dat, a2/disk1.dat]
phases:
  - name: one
    workload: {rw: randwrite, bs: 4k, iodepth: 4}
  - name: two
    workload: {rw: randread, bs: 4k, iodepth: 4}
  - name: three
    workload: {rw: randrw, bs: 8k, iodepth: 2}
"""


def sample_keys(lines):
    return [(r["agent"] if "agent" in r else None, s["drive"], s["point"], s["attempt"],
             s["interval"], s["direction"])
            for r in lines if r.get("body") == "samples" for s in r["samples"]]


def case(kill_agent):
    with Tmp() as tmp:
        camp = os.path.join(tmp, "c.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN)
        ep = f"tcp://127.0.0.1:{free_port()}"
        out = os.path.join(tmp, "out")
        ev = os.path.join(tmp, "events.jsonl")
        agents = file_agents(ep, tmp, "rs")
        try:
            c = subprocess.Popen([COORD, "run", camp, "--listen", ep, "--results", out,
                                  "--events", ev],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # about 1.5 s into the second point: the 200 ms samples of all four drives have
            # reached interval 6
            wait_for(lambda: len({e["drive"] for e in events(ev) if e["event"] == "sample" and
                                  e["point"] == 1 and e["interval"] >= 6}) == 4,
                     "1.5 s of the second point on every drive")
            c.send_signal(signal.SIGKILL)
            c.wait()
            path = glob.glob(os.path.join(out, "resumed-*.h5"))[0]
            journal = path + ".journal"
            # what the coordinator had acknowledged: the journal at the kill, read separately
            shutil.copy(journal, os.path.join(tmp, "journal-at-kill"))
            r = run([COORD, "journal", os.path.join(tmp, "journal-at-kill")])
            check(r.returncode == 0, f"rackbench journal: {r.returncode} {r.stderr}")
            jl = [json.loads(x) for x in r.stdout.splitlines()]
            acked = {k[1:] for k in sample_keys(jl)}
            check(any(k[1] == 1 for k in acked), "the journal holds part of the second point")
            if kill_agent:
                # one agent dies too: its part of the second point is never finished
                agents[1].proc.send_signal(signal.SIGKILL)
                agents[1].proc.wait()
            # the agents end the point alone, unheard (no coordinator), and spool its end
            live = ("a1",) if kill_agent else ("a1", "a2")
            wait_for(lambda: all(spool_done(os.path.join(tmp, n), 1) for n in live),
                     "the agents to end the second point alone")
            spooled = set()
            for name in ("a1", "a2"):
                for sp in glob.glob(os.path.join(tmp, name, "spool", "*.spool")):
                    r = run([AGENT, "spool", sp])
                    check(r.returncode == 0, f"spool reader: {r.stderr}")
                    sl = [json.loads(x) for x in r.stdout.splitlines()]
                    spooled |= {k[1:] for k in sample_keys(sl)}
                    check(not any(x.get("body") == "assign" for x in sl), "nothing odd")
            check(any(k[1] == 1 for k in spooled), "the agents spooled the rest of the point")
            print(f"{len(acked)} samples journaled at the kill, {len(spooled)} in the spools after")
            if kill_agent:
                agents[1] = file_agents(ep, tmp, "rs", names=("a2",))[0]
            # the HDF5 file a kill -9 left: still opens (SWMR mode: its writer died)
            with h5py.File(path, "r", swmr=True) as h:
                before = len(h["samples"])
            print(f"the killed run's file opens: {before} sample rows")

            r = run([COORD, "resume", path, "--events", os.path.join(tmp, "ev2.jsonl")], timeout=120)
            print(r.stderr[-3000:])
            check(r.returncode == 0, f"resume: exit {r.returncode}")
            check("point 0 ('one'): restored from the journal" in r.stderr,
                  "the first point is restored, not run")
            with open(os.path.join(tmp, "ev2.jsonl")) as f:
                ran = [json.loads(x)["point"] for x in f
                       if json.loads(x).get("event") == "point_start"]
            if kill_agent:
                check(ran == [1, 2], f"resume ran points {ran}: the second again, and the third")
                check("resuming at point 1 ('two') as attempt 1" in r.stderr, "as attempt 1")
            else:
                check("point 1 ('two'): restored from the journal" in r.stderr,
                      "the second point, finished by the agents alone, is restored")
                check(ran == [2], f"resume ran points {ran}; only the third was left")
            check(os.path.exists(path + ".crashed"), "the killed run's file is kept beside")
            with h5py.File(path + ".crashed", "r", swmr=True) as h:
                check(len(h["samples"]) == before, "the kept file is the killed run's")
        finally:
            for a in agents:
                a.stop()
        with h5py.File(path, "r") as h:
            status = h.attrs["status"]
            status = status.decode() if isinstance(status, bytes) else str(status)
            check(status == "complete", f"status {status}")
            drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
            rows = [(drives[int(s["drive"])], int(s["point"]), int(s["attempt"]),
                     int(s["interval"]), int(s["direction"])) for s in h["samples"][:]]
            results = {(drives[int(x["drive"])], int(x["point"]), x["status"].decode())
                       for x in h["results"][:]}
        count = Counter(rows)
        dup = [k for k, n in count.items() if n > 1]
        check(not dup, f"sample keys stored twice: {dup[:5]}")
        for what, keys in (("journaled", acked), ("spooled", spooled)):
            missing = [k for k in keys if count[k] != 1]
            check(not missing, f"{len(missing)} {what} samples not in the file once: {missing[:5]}")
        for d in drives.values():
            for p in range(3):
                check((d, p, "ok") in results, f"drive {d} has no ok result for point {p}")
        print(f"{len(rows)} sample rows; every journaled and spooled one once; 4 drives x 3 points")


case(False)
case(True)
print("ok")
