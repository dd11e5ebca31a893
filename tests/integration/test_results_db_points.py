# SPDX-License-Identifier: MIT
"""The run so far in the fleet's database: exported at each point's end, not only the run's.

A campaign with `results_db:` over an agent's two file drives: two short points, then a
long one. While the long one runs, the database holds the run with status `running`, the
two ended points' rows and no file row (the file is not the record yet) -- without the
test exporting anything. The run interrupted then (SIGINT), its end's export replaces the
run so far with the run as its file has it: the rows of the two points unchanged, the
third added, status `aborted`, the file's SHA-256; the export says "added", not "updated".

A second run killed (SIGKILL) during its long point leaves the run so far in the database.
Its file, still saying `running`, is skipped by a plain `export` (exit 4); `export
--running --db -` (the URL on standard input) writes it as the run so far again, changing
no row; the first run's file exported with --running is "already there"; `judge` finds no
run of a campaign whose run did not end. Once the run is marked ended in the database (as
its resumed run's export leaves it), its file (other bytes, still `running`) exported with
--running replaces nothing. `--db -` with nothing on standard input is exit 2.
"""
import glob
import os
import signal
import subprocess

from pgserver import PgServer
from rbtest import COORD, Agent, Tmp, check, free_port, run, sha256, wait_for

CAMPAIGN = """name: {name}
insecure: true
wait: 20s
results_db: '{db}'
defaults: {{size: 8m, interval: 100ms}}
targets:
  - agent: sf
    drives: [d0.dat, d1.dat]
phases:
  - name: first
    workload: {{rw: randread, bs: 4k, runtime: 500ms}}
  - name: second
    workload: {{rw: randread, bs: 4k, runtime: 500ms}}
  - name: long
    workload: {{rw: randread, bs: 4k, runtime: 10m}}
"""
ROWS = ("SELECT p.name, x.drive, x.attempt, x.status, x.read_ios, x.read_p99_ns, "
        "cardinality(x.read_hist_buckets) FROM rackbench.results x JOIN rackbench.points p "
        "USING (run_id, point) JOIN rackbench.runs r USING (run_id) WHERE r.campaign = '{c}' "
        "ORDER BY 1, 2")


def run_row(pg, name):
    return pg.sql(None, "SELECT run_id, status, end_ns, (SELECT count(*) FROM rackbench.files f "
                  f"WHERE f.run_id = r.run_id) FROM rackbench.runs r WHERE campaign = '{name}'")


def rows(pg, name):
    return pg.sql(None, ROWS.format(c=name))


def so_far(pg, name):
    """The run so far, once it holds the two short points of both drives."""
    if pg.sql(None, "SELECT to_regclass('rackbench.runs') IS NULL") == [["t"]]:
        return None  # the first export creates the schema
    r = run_row(pg, name)
    got = rows(pg, name)
    if len(r) == 1 and r[0][1] == "running" and {x[0] for x in got} == {"first", "second"} \
            and len(got) == 4:
        return r[0], got
    return None


def start(tmp, out, ep, name, url):
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(name=name, db=url))
    log = open(os.path.join(tmp, f"{name}.log"), "w")
    proc = subprocess.Popen([COORD, "run", path, "--listen", ep, "--no-service", "--results",
                             out], stdout=log, stderr=subprocess.STDOUT)
    return proc, log


with Tmp() as tmp, PgServer() as pg:
    url = pg.url()
    bare = url.replace(f":{pg.password}@", "@")  # a campaign's URL holds no password
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "sf", ["d0.dat", "d1.dat"], allow=["d0.dat", "d1.dat"], cwd=tmp,
                  state_dir=tmp)
    try:
        # 1. the run so far while the long point runs; the run's end replaces it
        proc, log = start(tmp, out, ep, "sofar", bare)
        run1, during = wait_for(lambda: so_far(pg, "sofar"), "the run so far in the database",
                                timeout=120, show=lambda: open(log.name).read())
        check(proc.poll() is None, "the run still goes on")
        check(run1[2] == "0" and run1[3] == "0", f"no end, no file row yet: {run1}")
        check(all(int(x[4]) > 0 and x[3] == "ok" and int(x[6]) > 0 for x in during),
              f"the ended points' rows, with their histograms: {during}")
        proc.send_signal(signal.SIGINT)
        check(proc.wait(60) == 3 or proc.returncode != 0, f"interrupted: {proc.returncode}")
        log.close()
        text = open(log.name).read()
        print(text)
        f1 = glob.glob(os.path.join(out, "sofar-*.h5"))
        check(len(f1) == 1, f"one file: {f1}")
        f1 = f1[0]
        check("did not reach" not in text, "the run's end stopping a child is no failure")
        check(f"results '{f1}' exported into database 'rbtest'" in text and
              "user 'postgres': added (2 drive(s), 6 result row(s))" in text,
              "the run's end adds the run (its run so far replaced, not an update)")
        end = run_row(pg, "sofar")
        check(len(end) == 1 and end[0][1] == "aborted" and end[0][2] != "0" and end[0][3] == "1",
              f"the run as its file has it: {end}")
        check(pg.sql(None, "SELECT sha256 FROM rackbench.files") == [[sha256(f1)]],
              "the file's SHA-256")
        after = rows(pg, "sofar")
        check([x for x in after if x[0] != "long"] == during,
              f"the ended points as the run so far had them\n{after}\n{during}")
        check(len([x for x in after if x[0] == "long"]) == 2, f"the long point added: {after}")

        # 2. a run killed: the run so far stays, and is exported again by hand
        proc, log = start(tmp, out, ep, "killed", bare)
        run2, during2 = wait_for(lambda: so_far(pg, "killed"), "the killed run so far",
                                 timeout=120, show=lambda: open(log.name).read())
        proc.kill()
        proc.wait(30)
        log.close()
        f2 = glob.glob(os.path.join(out, "killed-*.h5"))
        check(len(f2) == 1, f"the killed run's file: {f2}")
        f2 = f2[0]
        r = run([COORD, "export", f2, "--db", url])
        print(r.stdout, r.stderr)
        check(r.returncode == 4 and "its run is still going on" in r.stdout,
              "skipped unless --running")
        r = subprocess.run([COORD, "export", "--running", "--db", "-", f2, f1],
                           input=url + "\n", capture_output=True, text=True, timeout=120)
        print(r.stdout, r.stderr)
        check(r.returncode == 0 and f"so far '{f2}': 2 drive(s), 2 ended point(s), 4 result "
              "row(s)" in r.stdout and f"already there '{f1}'" in r.stdout and
              "0 added, 0 updated, 1 already there, 1 so far" in r.stdout,
              f"--running: {r.returncode}")
        check(pg.password not in r.stdout + r.stderr, "the password was printed")
        again = run_row(pg, "killed")
        check(len(again) == 1 and again[0][1:] == ["running", "0", "0"] and
              rows(pg, "killed") == during2, f"the same run so far: {again}")
        r = run([COORD, "judge", "--db", url, "--campaign", "killed"])
        print(r.stdout, r.stderr)
        check(r.returncode != 0 and "no run of campaign 'killed'" in r.stderr,
              f"a run that did not end is not judged: {r.returncode}")

        # 3. the run ended in the database (as its resumed run's end would leave it): the
        # killed file, other bytes of the same run still saying "running", replaces nothing
        pg.sql(None, "UPDATE rackbench.runs SET status = 'aborted' WHERE campaign = 'killed'")
        ended = run_row(pg, "killed")
        r = subprocess.run([COORD, "export", "--running", "--db", "-", f2], input=url + "\n",
                           capture_output=True, text=True, timeout=120)
        print(r.stdout, r.stderr)
        check(r.returncode == 0 and f"not exported '{f2}': its run ended" in r.stdout and
              "1 ended already" in r.stdout and
              run_row(pg, "killed") == ended and rows(pg, "killed") == during2,
              f"the ended run stays: {r.stdout}")
    finally:
        agent.stop()
    r = subprocess.run([COORD, "export", "--db", "-", f1], input="", capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 2 and "no URL on standard input" in r.stderr,
          f"--db - without a URL: {r.returncode} {r.stderr}")
print("ok")
