# SPDX-License-Identifier: MIT
"""Targets chosen by identity: `select: {model, serial, firmware, count}` takes the drives
an agent offers that match, when it connects; exactly `count` must match (or, with
`all` or `">= N"`, every match is taken and at least one or N must be), or the campaign
stops before any IO naming the agent, the selection and what is missing (exit 2). The
chosen drives run like listed ones and are pinned to the serial they were chosen by."""
import glob
import os

from rbtest import COORD, Agent, Tmp, check, free_port, h5, run

h5py = h5()


def campaign(tmp, select):
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(f"""name: sel
insecure: true
wait: 20s
defaults: {{size: 8m, runtime: 300ms}}
targets:
  - agent: sel-a1
    select: {select}
phases:
  - workload: {{rw: randread, bs: 4k}}
""")
    return path


with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "a1"))
    have = [f"a1/m{i}.dat" for i in range(3)]
    for p in have:
        with open(os.path.join(tmp, p), "wb") as f:  # data: reads of holes are refused
            f.write(os.urandom(8 << 20))
    # a fourth target does not exist yet: no model to match
    offered = have + ["a1/new.dat"]
    ep = f"tcp://127.0.0.1:{free_port()}"
    a = Agent(ep, "sel-a1", offered, allow=offered, cwd=tmp, state_dir=os.path.join(tmp, "a1"))
    try:
        c = campaign(tmp, "{model: file, count: 3}")
        r = run([COORD, "plan", c])
        check(r.returncode == 0 and "+ 3 chosen by identity" in r.stdout, r.stdout)
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out")])
        check(r.returncode == 0, f"select 3: {r.returncode}\n{r.stderr}")
        check("agent 'sel-a1': 3 drive(s) with model ~ file selected" in r.stderr, r.stderr)
        with h5py.File(glob.glob(os.path.join(tmp, "out", "sel-*.h5"))[0], "r") as h:
            paths = sorted(d["path"].decode() for d in h["drives"][:])
            res = h["results"][:]
        check(paths == have, f"selected {paths}")
        check(len(res) == 3 and all(x["status"] == b"ok" for x in res), "three results")

        c = campaign(tmp, "{model: file, count: 4}")
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out2")])
        check(r.returncode == 2, f"count 4: exit {r.returncode}")
        check(f"{c}:7:13: agent 'sel-a1' offers 3 drive(s) with model ~ file; the campaign "
              "expects 4: missing drives" in r.stderr, r.stderr)
        check(not os.path.exists(os.path.join(tmp, "out2")) or
              not glob.glob(os.path.join(tmp, "out2", "*.h5")), "no results file")

        # every match, or at least N of them: all three taken either way
        for count in ("all", '">= 2"'):
            c = campaign(tmp, f"{{model: file, count: {count}}}")
            out = os.path.join(tmp, f"out-{count[:3]}")
            r = run([COORD, "run", c, "--listen", ep, "--results", out])
            check(r.returncode == 0 and "3 drive(s) with model ~ file selected" in r.stderr,
                  f"count {count}: {r.returncode}\n{r.stderr}")
            with h5py.File(glob.glob(os.path.join(out, "sel-*.h5"))[0], "r") as h:
                check(sorted(d["path"].decode() for d in h["drives"][:]) == have,
                      f"count {count}: every match")
        c = campaign(tmp, '{model: file, count: ">= 4"}')
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out4")])
        check(r.returncode == 2 and "offers 3 drive(s) with model ~ file; the campaign expects "
              "at least 4: missing drives" in r.stderr, r.stderr)
        # every drive the agent offers needs nothing to choose by
        c = campaign(tmp, "{count: all}")
        r = run([COORD, "plan", c])
        check(r.returncode == 0 and "+ at least 1 chosen by identity" in r.stdout, r.stdout)
        c = campaign(tmp, "{model: file, count: most}")
        r = run([COORD, "plan", c])
        check(r.returncode == 2 and "'count' must be the number of drives expected (from 1), "
              "'all' or '>= N', not 'most'" in r.stderr, r.stderr)

        c = campaign(tmp, "{serial: NOPE-1, count: 1}")
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out3")])
        check(r.returncode == 2 and "offers 0 drive(s) with serial = NOPE-1" in r.stderr,
              r.stderr)
        c = campaign(tmp, "{count: 2}")
        r = run([COORD, "plan", c])
        check(r.returncode == 2 and "needs model, serial or firmware" in r.stderr, r.stderr)
    finally:
        a.stop()
print("ok")
