# SPDX-License-Identifier: MIT
"""An agent started before its coordinator connects once it appears; a campaign naming an
agent that never comes fails after its wait time, naming the missing agent."""
import os
import time

from rbtest import COORD, Agent, Tmp, check, free_port, run

CAMPAIGN = """name: waits
insecure: true
wait: {wait}
defaults: {{size: 4m, runtime: 300ms, interval: 100ms}}
targets:
  - agent: {agent}
    drives: [w/disk0.dat]
phases:
  - workload: {{rw: randread}}
"""

with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "w"))
    ep = f"tcp://127.0.0.1:{free_port()}"
    # 1. the agent first; the coordinator 2 s later
    agent = Agent(ep, "early", ["w/disk0.dat"], cwd=tmp, state_dir=os.path.join(tmp, "w"))
    try:
        # the agent must outlive 2 s with no coordinator: the span itself is what is tested
        time.sleep(2)
        check(agent.proc.poll() is None, f"agent exited without a coordinator:\n{agent.output()}")
        path = os.path.join(tmp, "early.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(wait="20s", agent="early"))
        r = run([COORD, "run", path, "--listen", ep, "--results", tmp])
        print(r.stdout, r.stderr)
        check(r.returncode == 0, f"late coordinator: exit {r.returncode}")
        check("agent 'early' connected" in r.stderr, "connection not reported")
    finally:
        agent.stop()

    # 2. an agent that never comes: fails after the wait, naming it
    path = os.path.join(tmp, "ghost.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(wait="1500ms", agent="ghost"))
    t0 = time.monotonic()
    out = os.path.join(tmp, "ghost-out")
    r = run([COORD, "run", path, "--listen", f"tcp://127.0.0.1:{free_port()}", "--results", out])
    took = time.monotonic() - t0
    print(r.stderr)
    check(r.returncode == 1, f"missing agent: exit {r.returncode}, want 1")
    check("agent 'ghost' did not connect within 1500ms" in r.stderr, "message names the agent")
    check(took >= 1.4, "gave up before its wait time")
    check(not os.path.exists(out), "no results for a run that never started")
print("ok")
