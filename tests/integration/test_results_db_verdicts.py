# SPDX-License-Identifier: MIT
"""`rackbench judge --db`: the fleet's verdicts on a synthetic fleet of known answers, in a
real PostgreSQL 15 of the test's own (pgserver.py).

A generator inserts a campaign straight into the schema's tables: 500 drives of two models
(300 and 200) in ten racks, one run a rack, four points each at equal load (every drive of
a model within 4% of its IOPS, its p99 within 10%). Five drives (in five racks) have three
times their peers' p99 at the same load; rack r4 has four drives its own verdicts FAILed,
rack r7 two; three drives of model B run a firmware the rest of their model does not.
Judged: exactly the five are QUARANTINE (fail_slow, each reason naming its points, its p99
and its peers'), rack r4 alone is on HOLD naming its four drives, the three are named for
their firmware, nothing else is said; exit 4; judging again changes no row. Then a retest
run of the five: the three still slow FAIL (quarantined before), the two healed have no
verdict; exit 5. Bad flags are exit 2. The Grafana dashboard's fleet page, every query of
it run on this fleet, counts the six failed drives by rack, model and firmware and lists
the hold first, then the five quarantined (grafana_sql.py).
"""
import os
import random

import grafana_sql
from pgserver import PgServer
from rbtest import COORD, Tmp, check, run

CAMPAIGN = "fleet-q3"
RACKS = 10
MODELS = {"ACME A1": ("A1", 300), "BOLT B7": ("B1", 200)}
# point name, rw, reads?, IOPS of model A, of model B, p99 ns of A, of B
POINTS = [("randread-4k-qd1", "randread", 1, 12000, 9000, 95000, 120000),
          ("randread-4k-qd32", "randread", 1, 300000, 250000, 900000, 1100000),
          ("randwrite-4k-qd8", "randwrite", 0, 80000, 60000, 400000, 520000),
          ("mixed-70", "randrw", 1, 150000, 120000, 700000, 800000)]
SLOW = {"A0007": "r1", "A0113": "r2", "A0251": "r3", "B0042": "r5", "B0150": "r6"}
FAILED = {"r4": 4, "r7": 2}
MINORITY = ["B0190", "B0191", "B0192"]
rng = random.Random(38)


def q(s):
    return "NULL" if s is None else "'" + str(s).replace("'", "''") + "'"


def fleet():
    """Every drive: key, model, firmware, rack."""
    drives, i = [], 0
    for model, (fw, n) in MODELS.items():
        for k in range(n):
            key = f"{model[0]}{k:04d}"
            drives.append({"key": key, "model": model,
                           "firmware": "B2" if key in MINORITY else fw,
                           "rack": SLOW.get(key, f"r{i % RACKS + 1}")})
            i += 1
    return drives


def run_sql(run_id, start_s, drives, slow, failed):
    """A run's rows: its drives' placements (each in its rack), points, results, the rack
    service's verdicts."""
    start = start_s * 10**9
    out = [f"INSERT INTO rackbench.runs (run_id, campaign, methodology, start_ns, end_ns, "
           f"started, ended, status, verdict, rackbench_version, file_schema) VALUES "
           f"({run_id}, {q(CAMPAIGN)}, 'm1', {start}, {start + 3600 * 10**9}, "
           f"to_timestamp({start_s}), to_timestamp({start_s + 3600}), 'complete', 'PASS', "
           f"'test', 13);"]
    for p, (name, rw, *_rest) in enumerate(POINTS):
        out.append(f"INSERT INTO rackbench.points VALUES ({run_id}, {p}, 'fleet', {q(name)}, "
                   f"{q(rw)}, 4096, 8, 1, 70, 60000000000, 0, '');")
    for d, dr in enumerate(drives):
        out.append(f"INSERT INTO rackbench.drives VALUES ({q(dr['key'])}, {q(dr['key'])}, "
                   f"{q(dr['model'])}, {q(dr['firmware'])}, 3840000000000, 'block', "
                   f"to_timestamp({start_s}), to_timestamp({start_s})) ON CONFLICT DO NOTHING;")
        rack = dr["rack"]
        out.append(f"INSERT INTO rackbench.placements VALUES ({run_id}, {d}, {q(dr['key'])}, "
                   f"'agent-{rack}', 'host-{rack}', {q(rack)}, NULL, '/dev/nvme{d}n1', NULL, "
                   f"'rack={rack}', {q(dr['model'])}, {q(dr['firmware'])}, 3840000000000, 0, "
                   f"240, 1000000);")
        a = dr["model"].startswith("A")
        for p, (name, rw, reads, ia, ib, la, lb) in enumerate(POINTS):
            iops = (ia if a else ib) * rng.uniform(0.96, 1.04)
            p99 = (la if a else lb) * rng.uniform(0.9, 1.1) * (3 if dr["key"] in slow else 1)
            rd, wr = (iops * 0.7, iops * 0.3) if rw == "randrw" else \
                ((iops, 0) if reads else (0, iops))
            rp = int(p99) if reads else None
            wp = int(p99) if not reads or rw == "randrw" else None
            out.append(
                "INSERT INTO rackbench.results (run_id, drive, point, attempt, status, "
                "start_ns, elapsed_ns, read_ios, read_errors, read_iops, read_p99_ns, "
                "write_ios, write_errors, write_iops, write_p99_ns, read_hist_buckets, "
                "read_hist_counts, write_hist_buckets, write_hist_counts, trim_iops) VALUES "
                f"({run_id}, {d}, {p}, 0, 'ok', {start}, 60000000000, {int(rd * 60)}, 0, "
                f"{rd}, {q(rp)}, {int(wr * 60)}, 0, {wr}, {q(wp)}, '{{}}', '{{}}', '{{}}', "
                "'{}', 0);")
        verdict = "FAIL" if dr["key"] in failed else "PASS"
        reason = "3 IO error(s), from point 1" if verdict == "FAIL" else "every rule held"
        out.append(f"INSERT INTO rackbench.verdicts VALUES ({run_id}, {d}, 0, 'drive', "
                   f"{q(verdict)}, NULL, NULL, NULL, NULL, NULL, {q(reason)});")
    return out


def judge(pg, *extra, want):
    r = run([COORD, "judge", "--db", pg.url(), "--campaign", CAMPAIGN, *extra])
    print(r.stdout, r.stderr)
    check(r.returncode == want, f"judge: exit {r.returncode}, want {want}\n{r.stderr}")
    check(pg.password not in r.stdout + r.stderr, "the password was printed")
    return r


def stored(pg):
    return sorted(tuple(x) for x in pg.sql(None, "SELECT verdict, rule, drive, run_start_ns "
                                                 "FROM rackbench.fleet_verdicts"))


with Tmp() as tmp, PgServer() as pg:
    # the schema made by the program itself; no run yet: exit 2
    r = run([COORD, "judge", "--db", pg.url(), "--campaign", CAMPAIGN])
    check(r.returncode == 2 and f"no run of campaign '{CAMPAIGN}'" in r.stderr, r.stderr)
    drives = fleet()
    failed = set()
    for rack, n in FAILED.items():
        failed |= set(sorted(d["key"] for d in drives if d["rack"] == rack and
                             d["key"] not in SLOW and d["key"] not in MINORITY)[:n])
    sql = []
    t0 = 1760000000
    for k in range(RACKS):
        rack = f"r{k + 1}"
        sql += run_sql(k + 1, t0 + k, [d for d in drives if d["rack"] == rack],
                       set(SLOW), failed)
    path = os.path.join(tmp, "fleet.sql")
    with open(path, "w") as f:
        f.write("\n".join(sql))
    pg.script(None, path)
    n = pg.sql(None, "SELECT count(DISTINCT drive_key), count(DISTINCT rack) FROM "
                     "rackbench.placements")
    check(n == [["500", "10"]], f"the fleet: {n}")

    r = judge(pg, want=4)
    lines = [x.split(None, 3) for x in r.stdout.splitlines()[1:-1]]
    got = sorted((x[0], x[1], x[2]) for x in lines)
    r4 = sorted(k for k in failed if any(d["key"] == k and d["rack"] == "r4" for d in drives))
    want = sorted([("QUARANTINE", k, "fail_slow") for k in SLOW] +
                  [("HOLD", "rack=r4", "cluster_hold")] +
                  [("NOTE", k, "firmware") for k in MINORITY])
    check(got == want, f"the verdicts:\n{got}\nwant\n{want}")
    check(lines[0][0] == "HOLD", f"HOLD first: {lines[0]}")
    hold = [x for x in lines if x[0] == "HOLD"][0][3]
    in_r4 = len([d for d in drives if d["rack"] == "r4"])
    check(len(r4) == 4 and all(k in hold for k in r4) and
          f"4 of its {in_r4} drives failed" in hold,
          f"the hold names its drives {r4}: {hold}")
    for x in lines:
        if x[0] == "QUARANTINE":
            check("in 4 of 4 points" in x[3] and "against the peers'" in x[3] and
                  all(f"'{p[0]}' " in x[3] for p in POINTS) and "quarantine and retest" in x[3],
                  f"a fail_slow reason names its points and figures: {x[3]}")
    check("1 on HOLD" in r.stdout and "5 QUARANTINE" in r.stdout and "0 FAIL" in r.stdout,
          f"the summary: {r.stdout.splitlines()[-1]}")
    # the dashboard's fleet page on this fleet: every query runs; the failed drives by rack
    # are r4's four and r7's two, by model and firmware six in all, the fleet's verdicts
    # the hold first and the five quarantined
    page = grafana_sql.run_all(pg, [CAMPAIGN], POINTS[0][0])
    check(dict(map(tuple, page["Failed drives by rack"])) == {"r4": "4", "r7": "2"},
          f"failed drives by rack: {page['Failed drives by rack']}")
    for t in ("Failed drives by model", "Failed drives by firmware"):
        check(sum(int(x[1]) for x in page[t]) == 6, f"{t}: {page[t]}")
    check(len(page["Failed drives"]) == 6, f"failed drives: {page['Failed drives']}")
    fv = [x[1] for x in page["The fleet's verdicts (rackbench judge)"]]
    check(fv == ["HOLD"] + ["QUARANTINE"] * 5, f"the fleet's verdicts: {fv}")
    check([CAMPAIGN] in page["$campaign"], f"the campaigns: {page['$campaign']}")
    print(f"the dashboard's {len(page)} fleet queries ran")
    first = stored(pg)
    check(len(first) == 9 and sorted((v, d) for v, _, d, _ in first if v == "QUARANTINE") ==
          sorted(("QUARANTINE", k) for k in SLOW), f"stored: {first}")
    judge(pg, want=4)
    check(stored(pg) == first, "judging again changes no row")

    # a retest of the five: three still slow, two healed
    healed = {"A0113", "B0150"}
    still = set(SLOW) - healed
    retest = [d for d in drives if d["key"] in SLOW]
    sql = run_sql(11, t0 + 86400, retest, still, set())
    with open(path, "w") as f:
        f.write("\n".join(sql))
    pg.script(None, path)
    r = judge(pg, want=5)
    lines = [x.split(None, 3) for x in r.stdout.splitlines()[1:-1]]
    got = sorted((x[0], x[1], x[2]) for x in lines if x[2] == "fail_slow")
    check(got == sorted(("FAIL", k, "fail_slow") for k in still),
          f"the retest: {got}, want the three still slow to FAIL")
    check(all("it persists" in x[3] for x in lines if x[0] == "FAIL"), "FAIL says why")
    rows = stored(pg)
    check(len(rows) == 12 and len([x for x in rows if x[0] == "QUARANTINE"]) == 5,
          f"the first run's quarantines kept beside the FAILs: {rows}")

    # bad flags
    for extra in (["--margin", "0.5"], ["--margin", "x"], ["--min-points", "0"],
                  ["--domain", "row"]):
        r = run([COORD, "judge", "--db", pg.url(), "--campaign", CAMPAIGN, *extra])
        check(r.returncode == 2, f"{extra}: exit {r.returncode}")
    r = run([COORD, "judge", "--campaign", CAMPAIGN])
    check(r.returncode == 2 and "--db" in r.stderr, f"no --db: {r.stderr}")
print("ok")
