# SPDX-License-Identifier: MIT
"""`rackbench fleet run` of a campaign with `fleet_verdict:`: the fleet's verdicts judged
over its `results_db` once every rack has ended, in a real PostgreSQL 15 of the test's own
(pgserver.py).

Two rack services on loopback (keyed, each with an admin endpoint and the fleet client's
key on its admin list), each with a keyed agent of its own (labels role=disk, rack=r1 or
r2) offering two files. The database already holds an earlier run of the campaign on a
third rack, r9, whose two drives FAILed there.

1. `fleet run` of a campaign with `fleet_verdict: {cluster: 2}` and no rules of its own:
   both racks COMPLETE (exit 0), each service exports its run; the fleet client finds both
   runs in the database and judges the campaign: rack r9 on HOLD (its two failed drives),
   printed after the fleet table under its heading, stored in fleet_verdicts, counted in
   the fleet summary; exit 4, the judge's.
2. A campaign whose rule fails every drive (`max_p99: 1ns`), with r2's export refused by
   the database (a trigger): both racks exit 5; the client waits `fleet_verdict.wait` (3 s)
   for r2's run, names r2 as judged without, and puts r1 on HOLD; exit 5, the most severe.
3. The database stopped: the racks complete as before (their exports owed), the fleet
   verdict is not judged, said; exit 4.
Also: `rackbench run` of such a campaign says once that the fleet verdict is `fleet run`'s
or `judge`'s, and goes on."""
import json
import os
import re
import signal
import subprocess
import time

from pgserver import PgServer
from rbtest import AGENT, Agent, COORD, Tmp, check, free_port, pub, rack_service, run, wait_for

CAMPAIGN = """name: {name}
destructive: true
wait: 15s
results_db: '{db}'
fleet_verdict: {{cluster: 2, wait: {wait}}}
{verdict}defaults: {{size: 8m, interval: 200ms, runtime: 1s}}
targets:
  - agents: {{labels: {{role: disk}}, count: all}}
    select: {{count: all}}
phases:
  - workload: {{rw: randread, bs: 4k}}
"""

# an earlier run of fv-pass on rack r9: two file drives its service FAILed
SEED = """
INSERT INTO rackbench.runs (run_id, campaign, methodology, start_ns, end_ns, started, ended,
  status, verdict, rackbench_version, file_schema) VALUES (100000, 'fv-pass', 'm',
  1760000000000000000, 1760000060000000000, to_timestamp(1760000000),
  to_timestamp(1760000060), 'complete', 'FAIL', 'test', 13);
""" + "".join(f"""
INSERT INTO rackbench.drives VALUES ('r9-a1:d{d}.dat', NULL, NULL, NULL, 8388608, 'file',
  to_timestamp(1760000000), to_timestamp(1760000000));
INSERT INTO rackbench.placements VALUES (100000, {d}, 'r9-a1:d{d}.dat', 'r9-a1', 'h9', 'r9',
  NULL, 'd{d}.dat', NULL, 'rack=r9', NULL, NULL, 8388608, 0, 60, 1000);
INSERT INTO rackbench.verdicts VALUES (100000, {d}, 0, 'drive', 'FAIL', NULL, NULL, NULL,
  NULL, NULL, '3 IO error(s), from point 1');
""" for d in (0, 1))

# rack r2's export of fv-fail refused by the database: its run never reaches it
KEEP_R2_OUT = """
CREATE FUNCTION rackbench.keep_r2_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.path LIKE '%/r2/out/fv-fail-%' THEN RAISE EXCEPTION 'rack r2 kept out'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER keep_r2_out BEFORE INSERT ON rackbench.files FOR EACH ROW
  EXECUTE FUNCTION rackbench.keep_r2_out();
"""



def fleet_run(camp, base, summary, want):
    t0 = time.monotonic()
    r = run([COORD, "fleet", "run", camp, "--start-in", "1s", "--summary", summary] + base,
            timeout=120)
    print(f"--- fleet run {os.path.basename(camp)}: exit {r.returncode} in "
          f"{time.monotonic() - t0:.1f} s\n{r.stdout}{r.stderr}")
    check(r.returncode == want, f"fleet run {camp}: exit {r.returncode}, want {want}")
    return r, json.load(open(summary))


def verdict_lines(out):
    """The fleet verdict's lines after its heading: (state, subject, rule)."""
    tail = out[out.index("\nfleet verdict ("):]
    return [tuple(l.split()[:3]) for l in tail.splitlines()
            if l.split(None, 1)[:1] in (["HOLD"], ["FAIL"], ["QUARANTINE"], ["NOTE"])]


with Tmp() as tmp, PgServer() as pg:
    bare = pg.url().replace(f":{pg.password}@", "@")  # the campaigns': no password

    def campaign(name, verdict="", wait="20s"):
        path = os.path.join(tmp, f"{name}.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(name=name, db=bare, wait=wait, verdict=verdict))
        return path

    # the schema made by the program itself (nothing to judge yet: exit 2), then r9's run
    r = run([COORD, "judge", "--db", pg.url(), "--campaign", "fv-pass"])
    check(r.returncode == 2, f"an empty database: {r.returncode} {r.stderr}")
    seed = os.path.join(tmp, "seed.sql")
    with open(seed, "w") as f:
        f.write(SEED)
    pg.script(None, seed)

    # `rackbench run` of it alone: said once, and the run goes on (here to its agents'
    # wait, which nothing answers)
    solo = os.path.join(tmp, "solo.yaml")
    with open(solo, "w") as f:
        f.write(CAMPAIGN.format(name="fv-solo", db=bare, wait="5s", verdict="")
                .replace("wait: 15s", "wait: 1s"))
    r = run([COORD, "run", solo, "--no-service", "--insecure", "--listen",
             f"tcp://127.0.0.1:{free_port()}", "--results", os.path.join(tmp, "solo")],
            timeout=60)
    check(r.returncode != 2 and r.stderr.count("judged by 'rackbench fleet run'") == 1 and
          "rackbench judge --db URL --campaign fv-solo" in r.stderr,
          f"rackbench run of a fleet_verdict campaign: {r.returncode}\n{r.stderr}")

    keys = os.path.join(tmp, "keys")
    racks = {"r1": "r1-a1", "r2": "r2-a1"}
    for who, tool in ([("coordinator", COORD), ("ops", COORD)] +
                      [(a, AGENT) for a in racks.values()]):
        r = run([tool, "keygen", keys, who])
        check(r.returncode == 0, f"keygen {who}: {r.stderr}")
    with open(os.path.join(keys, "admins"), "w") as f:
        f.write(f"ops {pub(os.path.join(keys, 'ops.pub'))}\n")
    services, agents, aports, logs = {}, [], {}, {}
    try:
        for rack, agent in racks.items():
            services[rack], port, aports[rack], logs[rack] = rack_service(tmp, keys, rack,
                                                                          [agent])
            os.makedirs(os.path.join(tmp, agent))
            t = [f"{agent}/d0.dat", f"{agent}/d1.dat"]
            agents.append(Agent(f"tcp://127.0.0.1:{port}", agent, t, allow=t, cwd=tmp,
                                state_dir=os.path.join(tmp, agent), insecure=False,
                                extra=["--key", f"{keys}/{agent}.key", "--coordinator-key",
                                       f"{keys}/coordinator.pub", "--label", "role=disk",
                                       "--label", f"rack={rack}"]))
        fleet = os.path.join(tmp, "fleet.yaml")
        with open(fleet, "w") as f:
            f.write("racks:\n" + "".join(
                f"  - name: {rack}\n    endpoint: tcp://127.0.0.1:{aports[rack]}\n"
                f"    public_key_file: keys/coordinator.pub\n" for rack in racks))
        base = ["--fleet", fleet, "--key", f"{keys}/ops.key", "--deadline", "3s"]
        passing = campaign("fv-pass")

        def registered():
            r = run([COORD, "fleet", "plan", passing] + base, timeout=30)
            return r if r.returncode == 0 and "2 agent(s), 4 drive(s)" in r.stdout else None

        wait_for(registered, "both agents on their racks", timeout=60, every=0.5,
                 show=lambda: run([COORD, "fleet", "plan", passing] + base, timeout=30).stdout)

        # 1. both racks complete; the earlier run's rack r9 on HOLD: exit 4, the judge's
        summary = os.path.join(tmp, "pass.json")
        r, s = fleet_run(passing, base, summary, 4)
        check(re.search(r"^r1 .* COMPLETE +0 ", r.stdout, re.M) and
              re.search(r"^r2 .* COMPLETE +0 ", r.stdout, re.M), "both racks COMPLETE")
        check(r.stdout.index("start skew across racks") <
              r.stdout.index("\nfleet verdict (margin 2, min_points 2, cluster 2, domain rack)\n"),
              "the fleet verdict after the fleet table, under its heading")
        check(verdict_lines(r.stdout) == [("HOLD", "rack=r9", "cluster_hold")],
              f"the verdicts: {verdict_lines(r.stdout)}")
        check("6 drive(s)" in r.stdout and "0 FAIL, 0 QUARANTINE, 1 on HOLD" in r.stdout,
              "six drives judged (r9's two, r1's and r2's four), one hold")
        check("waiting up to" not in r.stderr and "judged without" not in r.stdout + r.stderr,
              "the racks' runs were in the database: nothing waited for, nothing missing")
        rows = pg.sql(None, "SELECT verdict, drive, rule FROM rackbench.fleet_verdicts "
                            "WHERE campaign = 'fv-pass'")
        check(rows == [["HOLD", "rack=r9", "cluster_hold"]], f"stored: {rows}")
        fv = s.get("fleet_verdict", {})
        check(s["exit"] == 4 and fv.get("judged") is True and fv.get("hold") == 1 and
              fv.get("fail") == 0 and fv.get("drives") == 6 and fv.get("exit") == 4 and
              fv.get("racks_missing") == [], f"the summary's fleet_verdict: {fv}")
        check(pg.password not in r.stdout + r.stderr, "the password was printed")

        # 2. every drive FAILs on its rack, and r2's run never reaches the database
        fails = campaign("fv-fail", verdict="verdict: {max_p99: 1ns}\n", wait="3s")
        pg.sql(None, KEEP_R2_OUT)
        summary = os.path.join(tmp, "fail.json")
        r, s = fleet_run(fails, base, summary, 5)
        check(re.search(r"^r1 .* FAILED +5 ", r.stdout, re.M) and
              re.search(r"^r2 .* FAILED +5 ", r.stdout, re.M), "both racks FAILED, exit 5")
        check(re.search(r"rack r2's run \(fv-fail-\S+\.h5\) is not in .* after 3 s: the fleet "
                        r"is judged without it", r.stderr) and "waiting up to 3 s" in r.stderr,
              "r2's missing run waited for, then named")
        check("domain rack): judged without rack(s) r2\n" in r.stdout, "the heading names r2")
        check(verdict_lines(r.stdout) == [("HOLD", "rack=r1", "cluster_hold")],
              f"r1 on HOLD, r2 not judged: {verdict_lines(r.stdout)}")
        fv = s.get("fleet_verdict", {})
        check(s["exit"] == 5 and fv.get("judged") is True and fv.get("hold") == 1 and
              fv.get("exit") == 4 and fv.get("racks_missing") == ["r2"],
              f"the summary's fleet_verdict: {fv}")
        rows = pg.sql(None, "SELECT verdict, drive FROM rackbench.fleet_verdicts "
                            "WHERE campaign = 'fv-fail'")
        check(rows == [["HOLD", "rack=r1"]], f"stored: {rows}")

        # 3. the database away: the racks' runs complete, the fleet verdict is not judged
        pg.stop()
        summary = os.path.join(tmp, "away.json")
        r, s = fleet_run(passing, base, summary, 4)
        check(re.search(r"^r1 .* COMPLETE +0 ", r.stdout, re.M) and
              re.search(r"^r2 .* COMPLETE +0 ", r.stdout, re.M), "both racks COMPLETE")
        check("fleet verdict: not judged: " in r.stderr and "\nfleet verdict (" not in r.stdout,
              "an unreachable database said, nothing judged")
        fv = s.get("fleet_verdict", {})
        check(fv.get("judged") is False and "cannot be reached" in fv.get("why", "") and
              s["exit"] == 4, f"the summary's fleet_verdict: {fv}")
        for rack in racks:
            logs[rack].flush()
            check("owed" in open(logs[rack].name).read(), f"{rack}'s export owed")
    finally:
        for a in agents:
            a.stop()
        for p in services.values():
            p.send_signal(signal.SIGTERM)
        for p in services.values():
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
print("ok")
