# SPDX-License-Identifier: MIT
"""Agents lost mid-point, with real processes (issue 5, fault (a) and the policies):
- kill -9 an agent mid-point and restart it: the point runs again on it as attempt 1, the
  campaign ends 0, and (drive, point, attempt, interval, direction) stays unique;
- on_agent_lost: continue, the agent gone for good: exit 4 naming the point, its drives'
  rows say 'lost' for that point and the next, the other agent's are measured;
- on_agent_lost: abort: exit 1 and the results say 'aborted'."""
import glob
import os
import signal
import time

from rbtest import COORD, Agent, Tmp, check, events, free_port, h5, run, wait_for
import subprocess

h5py = h5()
import numpy as np  # noqa: E402

CAMPAIGN = """name: lost
insecure: true
wait: 20s
{policy}
defaults: {{size: 4m, runtime: 3s, interval: 500ms}}
targets:
  - agent: l1
    drives: [l1/d.dat]
  - agent: l2
    drives: [l2/d.dat]
phases:
  - workload: {{rw: randread}}
  - workload: {{rw: read}}
"""


def start(ep, tmp, name):
    return Agent(ep, name, [f"{name}/d.dat"], cwd=tmp, state_dir=os.path.join(tmp, name))


def scenario(tmp, policy, restart):
    for n in ("l1", "l2"):
        os.makedirs(os.path.join(tmp, n), exist_ok=True)
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(policy=policy))
    out = os.path.join(tmp, "out-" + str(time.monotonic()))
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = [start(ep, tmp, "l1"), start(ep, tmp, "l2")]
    ev = out + ".jsonl"
    c = subprocess.Popen([COORD, "run", path, "--listen", ep, "--results", out, "--events", ev],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # registered, laid out, 1 s into point 0: l2's 500 ms samples have reached interval 1
        wait_for(lambda: any(e["event"] == "sample" and e["drive"] == "l2:l2/d.dat" and
                             e["point"] == 0 and e["interval"] >= 1 for e in events(ev)),
                 "l2 1 s into point 0")
        agents[1].proc.send_signal(signal.SIGKILL)
        agents[1].proc.wait()
        if restart:
            agents[1] = start(ep, tmp, "l2")
        o, e = c.communicate(timeout=120)
    finally:
        for a in agents:
            a.stop()
    print(e)
    files = glob.glob(os.path.join(out, "*.h5"))
    return c.returncode, e, files[0] if files else None


with Tmp() as tmp:
    rc, err, f = scenario(tmp, "", restart=True)
    check(rc == 0, f"restart: exit {rc}")
    check("running it again as attempt 1" in err, "the point ran again")
    with h5py.File(f, "r") as h:
        res = h["results"][:]
        s = h["samples"][:]
        r2 = res[(res["drive"] == 1) & (res["point"] == 0)]
        check(len(r2) == 1 and r2["attempt"][0] == 1 and r2["status"][0] == b"ok",
              f"l2 point 0: {r2[['attempt', 'status']]}")
        check(all(res["status"] == b"ok"), "every row measured")
        keys = s[["drive", "point", "attempt", "interval", "direction"]]
        check(len(np.unique(keys)) == len(s), "sample keys unique")

    rc, err, f = scenario(tmp, "on_agent_lost: continue", restart=False)
    check(rc == 4, f"continue: exit {rc}, want 4")
    check("agent 'l2' is lost: point 0" in err, "names the agent and the point")
    with h5py.File(f, "r") as h:
        res = h["results"][:]
        lost = res[res["drive"] == 1]
        check(sorted(lost["point"]) == [0, 1] and all(lost["status"] == b"lost"), f"{lost}")
        ok = res[res["drive"] == 0]
        check(len(ok) == 2 and all(ok["status"] == b"ok"), "l1 measured both points")
        check(h.attrs["status"] == "partial", f"status {h.attrs['status']}")

    rc, err, f = scenario(tmp, "on_agent_lost: abort", restart=False)
    check(rc == 1 and "on_agent_lost: abort" in err, f"abort: exit {rc}")
    with h5py.File(f, "r") as h:
        check(h.attrs["status"] == "aborted", f"status {h.attrs['status']}")
print("ok")
