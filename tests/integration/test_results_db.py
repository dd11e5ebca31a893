# SPDX-License-Identifier: MIT
"""The fleet's results database: `rackbench export --db`, `drives --failed --db` and
`history --db` against a real PostgreSQL 15 of the test's own (pgserver.py).

Two runs of one campaign on an agent's two file drives; in the second, a phase's verdict
fails d0 (its p99 bound is 1 ns). Both files are exported: every table holds what the
files say (each drive's figures at each point, its histograms merged over the point's
intervals bucket by bucket, every verdict row and reason, the file's SHA-256), and a
percentile summed in SQL from the bucket arrays is the one the files give. Exporting them
again adds no row (counted); other bytes of the same run replace its rows. `drives
--failed --db` lists exactly d0 with its reason, `history --db` its two runs in order.
The URL's password is in no output; a database that cannot be reached is exit 4 naming
it; a URL libpq does not read is exit 2; a database of a newer schema is refused.
"""
import glob
import json
import os
import shutil
import sys

from pgserver import PgServer
from rbtest import COORD, SRC, Agent, Tmp, check, free_port, h5, run, sha256

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

CAMPAIGN = """name: {name}
insecure: true
destructive: true
wait: 20s
defaults: {{size: 8m, runtime: 500ms, interval: 100ms}}
targets:
  - agent: ix
    drives: [d0.dat, d1.dat]
verdict: {{critical_warning: true}}
phases:
  - name: read-d0
    drives: [d0.dat]
    workload: {{rw: randread, bs: 4k}}
{bound}
  - name: mixed
    workload: {{rw: randrw, bs: 4k, rwmixread: 70}}
"""
TABLES = ("runs", "drives", "placements", "points", "results", "verdicts", "health", "files")


def counts(pg):
    return {t: int(pg.sql(None, f"SELECT count(*) FROM rackbench.{t}")[0][0]) for t in TABLES}


def export(pg, files, want_rc=0, url=None):
    r = run([COORD, "export", *files, "--db", url or pg.url()])
    print(r.stdout, r.stderr)
    check(r.returncode == want_rc, f"export: exit {r.returncode}, want {want_rc}")
    check(pg.password not in r.stdout + r.stderr, "the password was printed")
    return r


def file_checks(pg, path):
    """The database's rows of one file against what the file says."""
    with h5py.File(path, "r") as h:
        campaign = h.attrs["campaign_name"]
        campaign = campaign.decode() if isinstance(campaign, bytes) else campaign
        start = int(h.attrs["start_ns"])
        res = h["results"][:]
        vd = h["verdicts"][:]
    run_id = pg.sql(None, f"SELECT run_id FROM rackbench.runs WHERE campaign = '{campaign}' "
                    f"AND start_ns = {start}")
    check(len(run_id) == 1, f"{path}: one run row: {run_id}")
    run_id = run_id[0][0]
    f = pg.sql(None, f"SELECT sha256, kind FROM rackbench.files WHERE run_id = {run_id}")
    check(f == [[sha256(path), "results"]], f"{path}: its file row: {f}")
    got = pg.sql(None, "SELECT drive, seq, rule, verdict, reason FROM rackbench.verdicts WHERE "
                 f"run_id = {run_id} ORDER BY drive, seq")
    want, seq = [], {}
    for v in sorted(vd, key=lambda v: int(v["drive"])):
        d = int(v["drive"])
        want.append([str(d), str(seq.get(d, 0)), v["rule"].decode(), v["verdict"].decode(),
                     v["reason"].decode()])
        seq[d] = seq.get(d, 0) + 1
    check(got == want, f"{path}: verdicts\n{got}\n{want}")
    x = rb.open(path)
    latest = {}
    for r in res:
        k = (int(r["drive"]), int(r["point"]))
        if k not in latest or int(r["attempt"]) >= int(latest[k]["attempt"]):
            latest[k] = r
    rows = pg.sql(None, "SELECT drive, point, attempt, read_ios, read_p99_ns, write_ios, "
                  "write_p99_9_ns, read_hist_buckets, read_hist_counts, write_hist_buckets, "
                  f"write_hist_counts FROM rackbench.results WHERE run_id = {run_id}")
    check(len(rows) == len(latest), f"{path}: a row per drive and point: {len(rows)}, "
          f"want {len(latest)}")
    hists = 0
    for row in rows:
        d, p, a = int(row[0]), int(row[1]), int(row[2])
        r = latest[(d, p)]
        check(a == int(r["attempt"]) and int(row[3]) == int(r["read_ios"]) and
              (row[4] == "" if not r["read_ios"] else int(row[4]) == int(r["read_lat_p99_ns"]))
              and int(row[5]) == int(r["write_ios"]) and
              (row[6] == "" if not r["write_ios"] else
               int(row[6]) == int(r["write_lat_p99_9_ns"])),
              f"{path}: drive {d} point {p}: {row[:7]} against {r}")
        for direction, (b, c) in enumerate(((row[7], row[8]), (row[9], row[10]))):
            dense = x.histogram(drive=d, point=p, attempt=a, direction=direction)
            nz = [i for i in range(len(dense)) if dense[i]]
            got_b = [int(v) for v in b.strip("{}").split(",") if v]
            got_c = [int(v) for v in c.strip("{}").split(",") if v]
            check(got_b == nz and got_c == [int(dense[i]) for i in nz],
                  f"{path}: drive {d} point {p} direction {direction}: the merged histogram")
            hists += bool(nz)
    check(hists >= len(rows), f"{path}: histograms stored: {hists}")
    return run_id, x


with Tmp() as tmp, PgServer() as pg:
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "ix", ["d0.dat", "d1.dat"], allow=["d0.dat", "d1.dat"], cwd=tmp,
                  state_dir=tmp, extra=["--label", "rack=r7"])
    try:
        for name in ("week1", "week2"):
            bound = "    verdict: {max_p99: 1ns}" if name == "week2" else ""
            path = os.path.join(tmp, name + ".yaml")
            with open(path, "w") as f:
                f.write(CAMPAIGN.format(name=name, bound=bound))
            r = run([COORD, "run", path, "--listen", ep, "--no-service", "--results", out])
            want = 5 if name == "week2" else 0
            check(r.returncode == want, f"{name}: exit {r.returncode}, want {want}\n{r.stderr}")
    finally:
        agent.stop()
    files = sorted(glob.glob(os.path.join(out, "week*.h5")))
    check(len(files) == 2, f"two results files: {files}")

    r = export(pg, files)
    check("2 added, 0 updated, 0 already there" in r.stdout, f"both added: {r.stdout}")
    check("database 'rbtest'" in r.stdout, "the database named")
    first = counts(pg)
    print(first)
    check(first["runs"] == 2 and first["drives"] == 2 and first["placements"] == 4 and
          first["files"] == 2, f"rows: {first}")
    check(pg.sql(None, "SELECT version FROM rackbench.schema_version ORDER BY 1") ==
          [["1"], ["2"], ["3"], ["4"], ["5"]], "schema versions 1 to 5 recorded")
    for path in files:
        file_checks(pg, path)
    racks = pg.sql(None, "SELECT DISTINCT rack, host FROM rackbench.placements")
    check(len(racks) == 1 and racks[0][0] == "r7" and racks[0][1], f"the rack label: {racks}")

    # the same files again, and a copy elsewhere: nothing added
    copy = os.path.join(tmp, "copy.h5")
    shutil.copy(files[0], copy)
    r = export(pg, files + [copy])
    check("0 added, 0 updated, 3 already there" in r.stdout, f"all there: {r.stdout}")
    check(counts(pg) == first, f"no row added: {counts(pg)}")

    # percentiles summed in SQL from the bucket arrays: the files' merged histograms'
    got = pg.sql(None, """
        WITH b AS (SELECT pf.point_name, u.bucket, sum(u.count) AS count
                   FROM rackbench.point_figures pf, unnest(pf.read_hist_buckets,
                        pf.read_hist_counts) AS u(bucket, count)
                   WHERE pf.campaign = 'week2' GROUP BY pf.point_name, u.bucket),
             c AS (SELECT point_name, bucket, sum(count) OVER (PARTITION BY point_name
                   ORDER BY bucket) AS cum, sum(count) OVER (PARTITION BY point_name) AS total
                   FROM b)
        SELECT point_name, min(bucket) FROM c WHERE cum >= ceil(0.99 * total)
        GROUP BY point_name ORDER BY point_name""")
    x = rb.open(files[1])
    pts = {int(p["point"]): p["name"].decode() for p in x.h5["points"][:]}
    want = []
    for p, name in sorted(pts.items(), key=lambda kv: kv[1]):
        dense = sum(x.histogram(drive=d, point=p, direction=0) for d in (0, 1))
        if dense.sum():
            want.append([name, str(rb.bucket_index(rb.percentile(dense, 99)))])
    check(got == want, f"read p99 bucket per point from SQL {got}, from the file {want}")

    # other bytes of a run exported before (an attribute added): its rows replaced
    with h5py.File(copy, "a") as h:
        h.attrs["note"] = "touched"
    r = export(pg, [copy])
    check("updated" in r.stdout and "0 added, 1 updated, 0 already there" in r.stdout,
          f"replaced: {r.stdout}")
    c = counts(pg)
    check(c == first, f"the same rows after a replacement: {c}")

    d0 = "ix:d0.dat"
    r = run([COORD, "drives", "--failed", "--db", pg.url()])
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"drives --failed: exit {r.returncode}")
    lines = [x for x in r.stdout.splitlines()[1:] if x.strip()]
    check(len(lines) == 1 and lines[0].startswith(d0) and "week2" in lines[0] and
          "r7/" in lines[0] and "FAIL" in lines[0], f"the failed drives: {lines}")
    j = json.loads(run([COORD, "drives", "--failed", "--json", "--db", pg.url()]).stdout)
    with h5py.File(files[1], "r") as h:
        reason = [v["reason"].decode() for v in h["verdicts"][:]
                  if int(v["drive"]) == 0 and v["rule"] == b"drive"]
    check([x["drive"] for x in j] == [d0] and j[0]["verdict"] == "FAIL" and
          [j[0]["reason"]] == reason and j[0]["rack"] == "r7", f"--json: {j} against {reason}")
    for flag, value, n in (("--model", "no-such-model", 0), ("--rack", "r7", 1),
                           ("--rack", "r8", 0), ("--since", "1h", 1),
                           ("--firmware", j[0]["firmware"], 1)):
        r = run([COORD, "drives", "--failed", "--json", flag, value, "--db", pg.url()])
        check(r.returncode == 0 and len(json.loads(r.stdout)) == n,
              f"{flag} {value}: {r.returncode} {r.stdout}")
    j = json.loads(run([COORD, "drives", "--json", "--db", pg.url()]).stdout)
    check(sorted((x["drive"], x["campaign"]) for x in j) ==
          [(d0, "week2"), ("ix:d1.dat", "week2")], f"each drive's latest: {j}")

    r = run([COORD, "history", d0, "--json", "--db", pg.url()])
    check(r.returncode == 0, f"history: exit {r.returncode} {r.stderr}")
    h = json.loads(r.stdout)
    check([(x["campaign"], x["verdict"], x["rack"]) for x in h] ==
          [("week1", "PASS", "r7"), ("week2", "FAIL", "r7")], f"history: {h}")
    check(all(x["hours"] > 0 and x["bytes"] > 0 and x["file"] for x in h), f"history: {h}")
    r = run([COORD, "history", d0, "--db", pg.url()])
    check(r.returncode == 0 and "2 run(s)" in r.stdout and pg.password not in r.stdout,
          f"history in text: {r.stdout}")
    r = run([COORD, "history", "no-such-serial", "--db", pg.url()])
    check(r.returncode == 1 and "no run in database 'rbtest'" in r.stderr, f"unknown: {r.stderr}")

    # a database that cannot be reached: exit 4, named, no password; a URL libpq does not
    # read: exit 2
    gone = pg.url().replace("rbpg-", "rbpg-gone-")
    for cmd in (["export", files[0]], ["drives", "--failed"], ["history", d0]):
        r = run([COORD, *cmd, "--db", gone])
        check(r.returncode == 4 and "cannot connect to database 'rbtest'" in r.stderr and
              "rbpg-gone-" in r.stderr and pg.password not in r.stdout + r.stderr,
              f"{cmd[0]} unreachable: {r.returncode} {r.stderr}")
    r = run([COORD, "export", files[0], "--db", f"postgresql://u:{pg.password}@%zz/x"])
    check(r.returncode == 2 and pg.password not in r.stderr and "***" in r.stderr,
          f"a bad URL: {r.returncode} {r.stderr}")
    r = run([COORD, "export", files[0]])
    check(r.returncode == 2 and "--db" in r.stderr, f"no --db: {r.returncode} {r.stderr}")

    # a schema newer than this program's is refused, the database left as it was
    pg.sql(None, "INSERT INTO rackbench.schema_version (version) VALUES (99)")
    r = run([COORD, "export", files[0], "--db", pg.url()])
    check(r.returncode == 4 and "newer" in r.stderr, f"a newer schema: {r.returncode} {r.stderr}")
    check(counts(pg) == first, "nothing written into a newer schema")
print("ok")
