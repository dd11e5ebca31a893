# SPDX-License-Identifier: MIT
"""No name leaves its folder (the probe's B8): a campaign named '../../escaped' writes its
results file and journal inside --results, under the sanitised name, and nothing above it."""
import glob
import os

from rbtest import COORD, Tmp, check, file_agents, free_port, run

with Tmp() as tmp:
    deep = os.path.join(tmp, "a", "b")
    os.makedirs(deep)
    camp = os.path.join(deep, "c.yaml")
    with open(camp, "w") as f:
        f.write("name: ../../escaped\ninsecure: true\nwait: 20s\n"
                "defaults: {size: 4m, runtime: 300ms}\ntargets:\n"
                "  - agent: nm-a1\n    drives: [a1/disk0.dat]\n"
                "phases:\n  - workload: {rw: randread}\n")
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = file_agents(ep, tmp, "nm", ("a1",))
    out = os.path.join(deep, "out")
    try:
        r = run([COORD, "run", camp, "--no-service", "--listen", ep, "--results", out])
    finally:
        for a in agents:
            a.stop()
    print(r.stderr[-800:])
    check(r.returncode == 0, f"run: {r.returncode}")
    inside = glob.glob(os.path.join(out, "*.h5")) + glob.glob(os.path.join(out, "*.journal"))
    check(len(inside) == 2 and all("escaped" in os.path.basename(p) for p in inside),
          f"results inside the folder: {inside}")
    above = [p for p in glob.glob(os.path.join(tmp, "**", "*escaped*"), recursive=True)
             if not p.startswith(out + "/")]
    check(not above, f"a name left its folder: {above}")
print("ok")
