# SPDX-License-Identifier: MIT
"""`rackbench judge --db` on real drives: one loop drive throttled among four identical ones
is the one fail_slow flags, in a real PostgreSQL 15 of the test's own (pgserver.py).

Four faultfs (FUSE) files with a loop device over each, one agent: three wait 10 ms before
every read, as a drive's own time, the fourth 50 ms, 40 ms more. One point of 4 KiB random
reads at QD4, each drive held to 10 IOPS: all four run the same load (the slow one, whose
FUSE daemon answers one read at a time, has room for 20), so its latency, not its load,
sets it apart: 5x its peers' p99 and more. Judged with a margin of 3: the host's own
hiccups (a healthy FUSE read's p99 was 0.35 ms in one run and 1.06 ms in another on the
same machine: 3x, past the default margin of 2, when the drives' own time is that
small) are a fraction of a 10 ms read, and the slow one stays past it even when the host
lifts its peers'. The run exports its file into the database by the campaign's
`results_db:`; `judge --min-points 1` (one point) says QUARANTINE for the slow drive, its
reason naming the point and its p99 against its peers', and nothing for the three
others; exit 4.

The run goes through a rack service (`serve --metrics --results-db URL`): its metrics page
shows the fleet's verdict once judge has stored it (read again while no run goes on) as
rackbench_fleet_verdict, on the slow drive alone with its labels, and a HOLD stored on the
agent's host as a domain's; a hold of a host of none of its drives is not its to show.
"""
import os
import re
import signal
import subprocess
import urllib.request

from pgserver import PgServer
from rbtest import COORD, Agent, Faulty, Tmp, check, free_port, need_faultfs, run, wait_for

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
    fs = [Faulty(tmp, f"d{i}", "--size=16m", "--base-delay-us=10000") for i in range(3)]
    fs.append(Faulty(tmp, "slow", "--size=16m", "--base-delay-us=50000"))
    try:
        devs = [f.dev for f in fs]
        slow = devs[-1]
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(db=bare, drives=", ".join(devs)))
        ep = f"tcp://127.0.0.1:{free_port()}"
        mport = free_port()
        env = dict(os.environ, RACKBENCH_CONTROL=os.path.join(tmp, "ctl", "control"))
        log = open(os.path.join(tmp, "serve.log"), "w+")
        svc = subprocess.Popen([COORD, "serve", "--insecure", "--listen", ep, "--results",
                                os.path.join(tmp, "out"), "--metrics", f"127.0.0.1:{mport}",
                                "--results-db", pg.url()],
                               stdout=log, stderr=subprocess.STDOUT, env=env)
        agent = Agent(ep, "a1", devs, allow=devs, state_dir=os.path.join(tmp, "s1"))
        try:
            wait_for(lambda: "serving agents on" in open(log.name).read(), "the service")
            r = run([COORD, "run", path], env=env, timeout=120)
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
             "--min-points", "1", "--margin", "3"])
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

    # the rack service's metrics page: the fleet's verdicts on its drives and their host
    host = pg.sql(None, "SELECT DISTINCT host FROM rackbench.placements")[0][0]
    for subject in (f"host={host}", "host=elsewhere"):
        pg.sql(None, "INSERT INTO rackbench.fleet_verdicts (campaign, drive, run_start_ns, "
                     "rule, verdict, reason) VALUES ('fail-slow-loops', "
                     f"'{subject}', 0, 'cluster_hold', 'HOLD', '4 drives')")

    def page():
        with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=5) as p:
            return p.read().decode()

    def fleet(text):
        return sorted(x for x in text.splitlines() if x.startswith("rackbench_fleet_verdict{"))

    try:
        # judge stored them after the run ended: the service reads them again while idle
        wait_for(lambda: len(fleet(page())) >= 2, "the fleet's verdicts on the metrics page",
                 timeout=60, show=page)
        text = page()
    finally:
        svc.send_signal(signal.SIGTERM)
        svc.wait(30)
        log.seek(0)
        said = log.read()
    lines = fleet(text)
    print("\n".join(lines))
    check("# TYPE rackbench_fleet_verdict gauge" in text, "the family's TYPE line")
    check(len(lines) == 2, f"the slow drive's verdict and its host's hold alone: {lines}")
    hold = [x for x in lines if 'rule="cluster_hold"' in x]
    check(hold == [f'rackbench_fleet_verdict{{campaign="fail-slow-loops",rule="cluster_hold",'
                   f'verdict="HOLD",domain="host={host}"}} 1'], f"the host's hold: {hold}")
    drive = [x for x in lines if 'rule="fail_slow"' in x]
    check(len(drive) == 1 and f'path="{slow}"' in drive[0] and 'agent="a1"' in drive[0] and
          'verdict="QUARANTINE"' in drive[0] and 'campaign="fail-slow-loops"' in drive[0] and
          re.search(r'run="[^"]+"', drive[0]) and drive[0].endswith(" 1"),
          f"the slow drive's QUARANTINE with its labels: {drive}")
    check(pg.password not in said, "the service's log holds the database's password")
    check(svc.returncode == 0, f"the service stopped: exit {svc.returncode}\n{said[-2000:]}")
print("ok")
