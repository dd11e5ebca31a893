# SPDX-License-Identifier: MIT
"""`rackbench judge --db` on real drives: one loop drive throttled among four identical ones
is the one fail_slow flags, in a real PostgreSQL 15 of the test's own (pgserver.py).

Four faultfs (FUSE) files with a loop device over each, one agent: three answer as fast as
the stack lets them (a p99 of 2-13 ms through FUSE on a busy 2-core VM), the fourth waits
40 ms before every read. One point of 4 KiB random reads at QD4, each drive held to 10
IOPS: all four run the same load (the slow one, whose FUSE daemon answers one read at a
time, has room for 25), so its latency, not its load, sets it apart: 3x its peers' p99
and more, past the default margin of 2 even when the host's load lifts theirs. The run
(no service) exports its file into the database by the campaign's `results_db:`; `judge
--min-points 1` (one point) says QUARANTINE for the slow drive, its reason naming the
point and its p99 against its peers', and nothing for the three others; exit 4.
"""
import os

from pgserver import PgServer
from rbtest import COORD, Agent, Faulty, Tmp, check, free_port, need_faultfs, run

need_faultfs()

CAMPAIGN = """name: fail-slow-loops
insecure: true
destructive: true
wait: 20s
results_db: '{db}'
targets:
  - agent: a1
    drives: [{drives}]
defaults: {{size: 16m, runtime: 5s, interval: 250ms}}
phases:
  - workload: {{rw: randread, bs: 4k, iodepth: 4, rate_iops: 10}}
"""

with Tmp() as tmp, PgServer() as pg:
    bare = pg.url().replace(f":{pg.password}@", "@")
    fs = [Faulty(tmp, f"d{i}", "--size=16m") for i in range(3)]
    fs.append(Faulty(tmp, "slow", "--size=16m", "--base-delay-us=40000"))
    try:
        devs = [f.dev for f in fs]
        slow = devs[-1]
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(db=bare, drives=", ".join(devs)))
        ep = f"tcp://127.0.0.1:{free_port()}"
        agent = Agent(ep, "a1", devs, allow=devs, state_dir=os.path.join(tmp, "s1"))
        try:
            r = run([COORD, "run", path, "--listen", ep, "--no-service", "--results",
                     os.path.join(tmp, "out")], timeout=120)
        finally:
            agent.stop()
    finally:
        for f in fs:
            f.close()
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"the run: exit {r.returncode}")
    check("exported into database" in r.stdout + r.stderr, "the run's file exported")
    rows = pg.sql(None, "SELECT drive_key, round(read_iops), read_p99_ns FROM "
                        "rackbench.point_figures ORDER BY 1")
    print(rows)
    check(len(rows) == 4, f"four drives' figures: {rows}")

    r = run([COORD, "judge", "--db", pg.url(), "--campaign", "fail-slow-loops",
             "--min-points", "1"])
    print(r.stdout, r.stderr)
    check(r.returncode == 4, f"judge: exit {r.returncode}, want 4 (a QUARANTINE)")
    lines = [x.split(None, 3) for x in r.stdout.splitlines()
             if x.split(None, 1)[:1] in (["QUARANTINE"], ["FAIL"], ["HOLD"], ["NOTE"])]
    check([(x[0], x[1], x[2]) for x in lines] == [("QUARANTINE", f"a1:{slow}", "fail_slow")],
          f"the slow drive alone, QUARANTINE: {lines}")
    check("against the peers'" in lines[0][3] and "in 1 of 1 points" in lines[0][3],
          f"its reason names the point and the peers' figure: {lines[0][3]}")
    stored = pg.sql(None, "SELECT verdict, drive, rule FROM rackbench.fleet_verdicts")
    check(stored == [["QUARANTINE", f"a1:{slow}", "fail_slow"]], f"stored: {stored}")
print("ok")
