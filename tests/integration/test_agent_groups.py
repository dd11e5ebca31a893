# SPDX-License-Identifier: MIT
"""Agent groups: a target naming agents by pattern and labels and how many it expects
(`agents: {name: GLOB, labels: {K: V}, count: N}`), chosen when they connect.

Four agents: g-a1, g-a2 (rack=r1), g-a3 (rack=r2), g-b1 (rack=r1). The group
{name: g-a*, labels: {rack: r1}, count: 2} takes g-a1 and g-a2 -- not g-a3 (another
rack) nor g-b1 (another name) -- each with its d0.dat; g-b1 is named on its own. The
run exits 0 and the file holds those three agents' drives. Asking for 3 such agents
fails after `wait`, exit 1, naming the group's line, what it expected and who came.
`count: all` takes every such agent (the same two); `">= 3"` fails as 3 does."""
import glob
import os
import subprocess

from rbtest import COORD, Agent, Tmp, check, free_port, h5, run

h5py = h5()

CAMPAIGN = """name: groups
insecure: true
destructive: true
wait: {wait}
defaults: {{size: 4m, runtime: 1s, interval: 200ms}}
targets:
  - agents: {{name: "g-a*", labels: {{rack: r1}}, count: {count}}}
    drives: [d0.dat]
  - agent: g-b1
    drives: [d0.dat]
phases:
  - workload: {{rw: randwrite, bs: 4k}}
"""

with Tmp() as tmp:
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = []
    for name, rack in (("g-a1", "r1"), ("g-a2", "r1"), ("g-a3", "r2"), ("g-b1", "r1")):
        d = os.path.join(tmp, name)
        os.makedirs(d)
        agents.append(Agent(ep, name, ["d0.dat"], cwd=d, state_dir=d,
                            extra=["--label", f"rack={rack}", "--label", "role=jbof"]))
    try:
        camp = os.path.join(tmp, "c.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(wait="20s", count=2))
        r = run([COORD, "plan", camp])
        check(r.returncode == 0, f"plan: {r.returncode} {r.stderr}")
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out")],
                timeout=90)
        print(r.stderr[-2000:])
        check(r.returncode == 0, f"run: exit {r.returncode}")
        check("agents named 'g-a*': chose g-a1, g-a2" in r.stderr, "the group's choice is logged")
        with h5py.File(glob.glob(os.path.join(tmp, "out", "groups-*.h5"))[0], "r") as h:
            got = sorted(f"{d['agent'].decode()}:{d['path'].decode()}" for d in h["drives"][:])
            agents_rows = sorted(a["name"].decode() for a in h["agents"][:])
            nres = len(h["results"])
        check(got == ["g-a1:d0.dat", "g-a2:d0.dat", "g-b1:d0.dat"], f"drives: {got}")
        check(agents_rows == ["g-a1", "g-a2", "g-b1"], f"agents: {agents_rows}")
        check(nres == 3, f"{nres} result rows")

        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(wait="3s", count=3))
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out2")],
                timeout=60)
        print(r.stderr[-1500:])
        check(r.returncode == 1, f"too few: exit {r.returncode}")
        check(f"{camp}:7:13: the campaign expects 3 agent(s) named 'g-a*' with labels rack=r1; "
              "2 connected: g-a1, g-a2: missing agents" in r.stderr, "names what is missing")
        check(not glob.glob(os.path.join(tmp, "out2", "*.h5")), "nothing ran")

        # count: all -- every matching agent that connected, the same two
        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(wait="20s", count="all"))
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out3")],
                timeout=90)
        check(r.returncode == 0 and "agents named 'g-a*': chose g-a1, g-a2" in r.stderr,
              f"count all: {r.returncode}\n{r.stderr[-1500:]}")
        with h5py.File(glob.glob(os.path.join(tmp, "out3", "groups-*.h5"))[0], "r") as h:
            got = sorted(d["agent"].decode() for d in h["drives"][:])
        check(got == ["g-a1", "g-a2", "g-b1"], f"count all: {got}")
        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(wait="3s", count='">= 3"'))
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out4")],
                timeout=60)
        check(r.returncode == 1 and "the campaign expects at least 3 agent(s) named 'g-a*'" in
              r.stderr, f"at least 3: {r.returncode}\n{r.stderr[-1500:]}")
    finally:
        for a in agents:
            a.stop()
print("ok")
