# SPDX-License-Identifier: MIT
"""Nothing lost when an agent is killed: every data message is in the agent's spool before
it is sent. kill -9 an agent in the middle of a point and start it again: the new process
sends what the old one spooled, the coordinator keeps each message once (numbered per
process, journaled before acknowledged) and runs the point again as the next attempt, and
the run exits 0. Every sample the spool held at the kill -- read by a separate reader,
`rackbench-agent spool` -- is in the HDF5 file exactly once, the key (drive, point,
attempt, interval, direction) is unique, and the old process's spool is removed once the
coordinator holds all of it."""
import glob
import json
import os
import signal
import subprocess
from collections import Counter

from rbtest import AGENT, COORD, Agent, Tmp, check, events, free_port, h5, run, wait_for

h5py = h5()

CAMPAIGN = """name: spooled
insecure: true
destructive: true
wait: 20s
on_agent_lost: wait
lost_wait: 30s
defaults: {size: 16m, interval: 200ms}
targets:
  - agent: sp-a1
    drives: [a1/d0.dat, a1/d1.dat]
phases:
  - workload: {rw: randwrite, bs: 4k, iodepth: 4, runtime: 6s}
"""

with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "a1"))
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    t = ["a1/d0.dat", "a1/d1.dat"]
    state = os.path.join(tmp, "a1")
    a = Agent(ep, "sp-a1", t, allow=t, cwd=tmp, state_dir=state)
    ev = os.path.join(tmp, "events.jsonl")
    c = subprocess.Popen([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out"),
                          "--events", ev],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # mid-point: kill the agent 3 s into it, when both drives' 200 ms samples reach interval 14
    spool_dir = os.path.join(state, "spool")
    wait_for(lambda: len({e["drive"] for e in events(ev) if e["event"] == "sample" and
                          e["interval"] >= 14}) == 2, "3 s of the point on both drives")
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait()
    spools = glob.glob(os.path.join(spool_dir, "*.spool"))
    check(len(spools) == 1, f"spool files at the kill: {spools}")
    r = run([AGENT, "spool", spools[0]])
    check(r.returncode == 0, f"spool reader: {r.returncode} {r.stderr}")
    recs = [json.loads(x) for x in r.stdout.splitlines()]
    held = [(s["drive"], s["point"], s["attempt"], s["interval"], s["direction"])
            for x in recs if x["body"] == "samples" for s in x["samples"]]
    check(len(held) >= 10, f"only {len(held)} samples spooled before the kill")
    print(f"{len(recs)} messages, {len(held)} samples in the spool at the kill")
    # the next process of this agent
    a2 = Agent(ep, "sp-a1", t, allow=t, cwd=tmp, state_dir=state)
    try:
        out, err = c.communicate(timeout=90)
    finally:
        a2.stop()
    print(err[-2500:])
    check(c.returncode in (0, 4), f"run: exit {c.returncode}")
    check("restarted during point 0: running it again as attempt 1" in err, "re-run as attempt 1")
    path = glob.glob(os.path.join(tmp, "out", "spooled-*.h5"))[0]
    with h5py.File(path, "r") as h:
        drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
        rows = [(drives[int(s["drive"])], int(s["point"]), int(s["attempt"]), int(s["interval"]),
                 int(s["direction"])) for s in h["samples"][:]]
    count = Counter(rows)
    dup = [k for k, n in count.items() if n > 1]
    check(not dup, f"sample keys stored twice: {dup[:5]}")
    missing = [k for k in held if count[k] != 1]
    check(not missing, f"{len(missing)} spooled samples not in the file once: {missing[:5]}")
    check(os.path.exists(path + ".journal") and os.path.getsize(path + ".journal") > 0, "journal")
    left = [p for p in glob.glob(os.path.join(spool_dir, "*.spool")) if os.path.getsize(p) > 0]
    check(spools[0] not in left, f"the killed process's spool is still there: {left}")
    print(f"{len(rows)} sample rows, every one of the {len(held)} spooled at the kill among them once")
print("ok")
