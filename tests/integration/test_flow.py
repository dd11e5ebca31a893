# SPDX-License-Identifier: MIT
"""Flow control between an agent and a coordinator that falls behind (SIGSTOP for 4 s or
6 s, mid-point, samples every 25 ms).

(a) Credits: the agent sends at most 16 messages past the last acknowledgement and holds
    the rest in its spool (it says so), sends them as acknowledgements come (it says when
    it has caught up), and the run completes: every interval of every drive is in the
    HDF5 file exactly once, with no gap.
(b) The spool's cap (--spool-max 64k): reached while the coordinator is stopped, the
    agent stops the point's IO and reports it (result status error, naming the cap; the
    run exits 4); every interval it measured before stopping is in the file once."""
import glob
import os
import signal
import subprocess
import time
from collections import Counter

from rbtest import COORD, Agent, Tmp, check, events, free_port, h5, wait_for

h5py = h5()

CAMPAIGN = """name: flow
insecure: true
destructive: true
wait: 20s
on_agent_lost: wait
defaults: {size: 8m, interval: 25ms, runtime: 8s}
targets:
  - agent: fl-a1
    drives: [a1/d0.dat, a1/d1.dat]
phases:
  - workload: {rw: randread, bs: 4k, iodepth: 2}
"""


def case(tmp, name, extra, stop_s):
    camp = os.path.join(tmp, f"{name}.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    t = ["a1/d0.dat", "a1/d1.dat"]
    a = Agent(ep, "fl-a1", t, allow=t, cwd=tmp, state_dir=os.path.join(tmp, "a1"), extra=extra)
    out = os.path.join(tmp, f"out-{name}")
    ev = os.path.join(tmp, f"{name}.jsonl")
    c = subprocess.Popen([COORD, "run", camp, "--listen", ep, "--results", out, "--events", ev],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # 2 s into the point: the 25 ms samples of both drives have reached interval 79
        wait_for(lambda: len({e["drive"] for e in events(ev) if e["event"] == "sample" and
                              e["interval"] >= 79}) == 2, "2 s of the point on both drives")
        c.send_signal(signal.SIGSTOP)
        # how long the coordinator stays stopped is the input: the backlog it leaves to hold
        time.sleep(stop_s)
        c.send_signal(signal.SIGCONT)
        cout, cerr = c.communicate(timeout=60)
    finally:
        if c.poll() is None:
            c.send_signal(signal.SIGCONT)
            c.kill()
        a.stop()
    log = a.output()
    print(cerr[-1500:], log[-1500:])
    path = glob.glob(os.path.join(out, "flow-*.h5"))[0]
    with h5py.File(path, "r") as h:
        drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
        keys = [(drives[int(s["drive"])], int(s["interval"])) for s in h["samples"][:]
                if int(s["direction"]) == 0]
        results = [(drives[int(x["drive"])], x["status"].decode(), x["message"].decode())
                   for x in h["results"][:]]
    count = Counter(keys)
    check(all(n == 1 for n in count.values()), "an interval stored twice")
    for d in t:
        iv = sorted(i for dd, i in count if dd == d)
        check(iv and iv == list(range(len(iv))), f"{d}: intervals with a gap: {iv[:10]}...")
    return c.returncode, log, results, count


with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "a1"))
    rc, log, results, count = case(tmp, "window", [], 4)
    check(rc == 0, f"(a) exit {rc}")
    check("holding the rest in the spool until it acknowledges" in log, "(a) the agent held data")
    check("the coordinator caught up" in log, "(a) and sent it once acknowledged")
    check(all(s == "ok" for _, s, _ in results) and len(results) == 2, f"(a) results {results}")
    n = len(count)
    check(n >= 2 * 250, f"(a) only {n} intervals for 8 s at 25 ms on 2 drives")
    print(f"(a) {n} intervals, each once, no gap")

    # 6 s of 25 ms batches: well past 64k, whatever a batch weighs
    rc, log, results, count = case(tmp, "cap", ["--spool-max", "64k"], 6)
    check(rc == 4, f"(b) exit {rc}, want 4 (partial)")
    check("reached its cap" in log, "(b) the agent says the spool is full")
    check(all(s == "error" and "spool reached its cap" in m for _, s, m in results),
          f"(b) results {results}")
    print(f"(b) stopped at the cap after {len(count)} intervals, each once, no gap")
print("ok")
