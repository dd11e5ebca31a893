# SPDX-License-Identifier: MIT
"""F5c: with on_agent_lost: continue, an agent stopped (SIGSTOP) for 8 s in a 10 s point is
declared lost, then comes back; F5c-b: an agent killed with -9 in point 0, declared
lost, and started again while point 0 still runs (a new process: it sends no PointDone
of the point it was dropped in, only its Hello).

Checked, both ways: exactly one result row per (drive, point, attempt) -- its drives'
rows of that point say "lost", never "lost" and "ok"; back and idle, it takes part in the
next point again (its rows there say "ok"); exit 4 (partial); every sample key stored
once; no process left behind."""
import os
import signal
import subprocess
import time
from collections import Counter

from faults import read_file, stop_all
from rbtest import COORD, Agent, Tmp, check, events, free_port, wait_for

CAMPAIGN = """name: lostback
insecure: true
wait: 20s
on_agent_lost: continue
defaults: {size: 4m, interval: 500ms}
targets:
  - agent: f5-l1
    drives: [l1/d.dat]
  - agent: f5-l2
    drives: [l2/d.dat]
phases:
  - workload: {rw: randread, runtime: 10s}
    idle: 4s
  - workload: {rw: read, runtime: 2s}
"""


def lost_and_back(how):
    """Point 0 with agent l2 lost for 8 s (how: "stop" SIGSTOPs it, "kill" kills it with
    -9 and starts it again), then the checks."""
    with Tmp() as tmp:
        for n in ("l1", "l2"):
            os.makedirs(os.path.join(tmp, n))
        camp = os.path.join(tmp, "c.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN)
        ep = f"tcp://127.0.0.1:{free_port()}"

        def agent(n):
            return Agent(ep, f"f5-{n}", [f"{n}/d.dat"], cwd=tmp, state_dir=os.path.join(tmp, n))

        agents = [agent(n) for n in ("l1", "l2")]
        c = None
        try:
            ev = os.path.join(tmp, "events.jsonl")
            c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep,
                                  "--results", os.path.join(tmp, "out"), "--events", ev],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # registered, laid out, 1 s into point 0: l2's 500 ms samples reached interval 1
            wait_for(lambda: any(e["event"] == "sample" and e["drive"] == "f5-l2:l2/d.dat" and
                                 e["point"] == 0 and e["interval"] >= 1 for e in events(ev)),
                     "f5-l2 1 s into point 0")
            if how == "stop":
                agents[1].proc.send_signal(signal.SIGSTOP)
            else:
                agents[1].proc.send_signal(signal.SIGKILL)
                agents[1].proc.wait()
            # 8 s of silence in a 10 s point is the input: lost after 5 s, back before
            # its end
            time.sleep(8)
            if how == "stop":
                agents[1].proc.send_signal(signal.SIGCONT)
            else:
                agents[1] = agent("l2")
            so, se = c.communicate(timeout=120)
            print(se[-2500:])
            check("agent 'f5-l2' is lost" in se, f"{how}: the agent was declared lost")
            check(c.returncode == 4, f"{how}: exit {c.returncode}")
            path = so.split("results: ")[1].split(" (")[0]
            status, rows, results = read_file(path)
            keys = Counter((r[0], r[1], r[2]) for r in results)
            check(all(n == 1 for n in keys.values()),
                  f"{how}: one row per (drive, point, attempt): {results}")
            check(("l2/d.dat", 0, 0, "lost") in results, f"{how}: l2's point 0 says lost: {results}")
            check(("l2/d.dat", 1, 0, "ok") in results, f"{how}: l2 takes part in point 1: {results}")
            check(("l1/d.dat", 0, 0, "ok") in results and ("l1/d.dat", 1, 0, "ok") in results,
                  f"{how}: l1 measured both points: {results}")
            dup = [k for k, n in Counter(rows).items() if n > 1]
            check(not dup, f"{how}: samples stored twice: {dup[:5]}")
            check(status == "partial", f"{how}: status {status}")
        finally:
            if c and c.poll() is None:
                c.kill()
            if agents[1].proc.poll() is None:
                agents[1].proc.send_signal(signal.SIGCONT)
            stop_all(agents)


lost_and_back("stop")
lost_and_back("kill")
print("ok")
