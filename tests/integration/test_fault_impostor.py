# SPDX-License-Identifier: MIT
"""A1f: an allowed key (gamma's) connects with agent alpha's name as its routing id during
alpha's 6 s point, and sends nothing (tests/tools/impostor.c).

Checked: the impostor receives none of alpha's messages (the coordinator routes by the
key's name, not by a routing id a peer sets); alpha is never lost or cut off and its point
runs undisturbed; the run ends 0 with status complete; no process is left behind."""
import os
import subprocess

from faults import read_file, stop_all
from rbtest import AGENT, Agent, COORD, Tmp, check, events, free_port, pub, run, wait_for

IMPOSTOR = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "impostor")

CAMPAIGN = """name: impostor
key: {keys}/coordinator.key
agent_keys: {keys}/allowed
wait: 20s
defaults: {{size: 4m, runtime: 6s, interval: 200ms}}
targets:
  - agent: alpha
    drives: [st-alpha/d.dat]
phases:
  - workload: {{rw: randread}}
"""



with Tmp() as tmp:
    keys = os.path.join(tmp, "keys")
    check(run([COORD, "keygen", keys]).returncode == 0, "coordinator keygen")
    for n in ("alpha", "gamma"):
        check(run([AGENT, "keygen", keys, n]).returncode == 0, f"keygen {n}")
    with open(os.path.join(keys, "allowed"), "w") as f:
        for n in ("alpha", "gamma"):
            f.write(f"{n} {pub(os.path.join(keys, n + '.pub'))}\n")
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN.format(keys=keys))
    ep = f"tcp://127.0.0.1:{free_port()}"
    os.makedirs(os.path.join(tmp, "st-alpha"))
    agents = [Agent(ep, "alpha", ["st-alpha/d.dat"], cwd=tmp,
                    state_dir=os.path.join(tmp, "st-alpha"), insecure=False,
                    extra=["--key", f"{keys}/alpha.key",
                           "--coordinator-key", f"{keys}/coordinator.pub"])]
    imp = None
    try:
        ev = os.path.join(tmp, "events.jsonl")
        c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep, "--results",
                              os.path.join(tmp, "out"), "--events", ev],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: any(e["event"] == "point_start" for e in events(ev)),
                 "the point to start")
        imp = subprocess.Popen([IMPOSTOR, ep, "alpha", f"{keys}/gamma.key",
                                f"{keys}/coordinator.pub", "5"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        io, ie = imp.communicate(timeout=60)
        so, se = c.communicate(timeout=120)
        print(se[-2000:])
        check(imp.returncode == 0, f"impostor: {imp.returncode} {ie}")
        check(io.strip() == "0", f"the impostor received {io.strip()} of alpha's messages")
        check(c.returncode == 0, f"exit {c.returncode}")
        for bad in ("nothing heard", "is lost", "is back", "No route to host", "cannot send"):
            check(bad not in se, f"alpha was disturbed: '{bad}'")
        path = so.split("results: ")[1].split(" (")[0]
        status, rows, results = read_file(path)
        check(status == "complete" and results and results[0][3] == "ok",
              f"status {status}, results {results}")
    finally:
        if imp and imp.poll() is None:
            imp.kill()
        stop_all(agents)
print("ok")
