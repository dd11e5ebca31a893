# SPDX-License-Identifier: MIT
"""A1g-1, A1g-6, A1g-7: an agent that lies (tests/tools/rogue_agent.c), in a two-point run.

Each point it sends its first sample batch again under 20 made-up epochs, samples for a
point (999999) and an attempt (77) it was never given, and answers every clock probe with
absurd instants (t1 = 2^63-1, t2 = -2^63). Checked: every (drive, point, attempt,
interval, direction) is stored once; nothing of the point or attempt never given is in the
file; the flood of epochs does not push out the agent's real one (both points finish, exit
0, status complete); the coordinator survives the clock replies; no process is left."""
import os
import subprocess
from collections import Counter

from faults import read_file
from rbtest import COORD, Tmp, check, free_port, run

ROGUE = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "rogue_agent")

CAMPAIGN = """name: replays
insecure: true
wait: 30s
defaults: {size: 8m, interval: 200ms, runtime: 1s}
targets:
  - agent: rogue
    drives: [r/d0]
phases:
  - name: one
    workload: {rw: randread, bs: 4k}
  - name: two
    workload: {rw: randread, bs: 4k}
"""

with Tmp() as tmp:
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    rogue = subprocess.Popen([ROGUE, ep, "rogue", "r/d0"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        r = run([COORD, "run", camp, "--no-service", "--listen", ep, "--results",
                 os.path.join(tmp, "out")], timeout=120)
        print(r.stderr[-2500:])
        check(r.returncode == 0, f"exit {r.returncode}")
        check("did not finish" not in r.stderr and "is lost" not in r.stderr,
              "the agent's real epoch was kept")
        path = r.stdout.split("results: ")[1].split(" (")[0]
        status, rows, results = read_file(path)
        check(status == "complete", f"status {status}")
        dup = [k for k, n in Counter(rows).items() if n > 1]
        check(not dup, f"stored more than once: {dup}")
        check(not [k for k in rows if k[1] == 999999 or k[2] == 77],
              "samples of a point or attempt never given are not stored")
        want = {("r/d0", p, 0, i, 0) for p in (0, 1) for i in range(5)}
        check(set(rows) == want, f"rows {sorted(rows)}")
        check(sorted((x[1], x[3]) for x in results) == [(0, "ok"), (1, "ok")],
              f"results {results}")
        rogue.wait(20)
        check(rogue.returncode == 0, f"rogue agent exit {rogue.returncode}")
    finally:
        if rogue.poll() is None:
            rogue.kill()
            rogue.wait()
print("ok")
