# SPDX-License-Identifier: MIT
"""A results folder remembers its drives: `rackbench history` and `drives --failed`.

Three runs of one campaign on an agent's two file drives go into one folder; in the
second, a phase's verdict fails d0 (its p99 bound is 1 ns), so d0 FAILs and d1 PASSes.
`drives --failed` then lists exactly d0 with its reason (text, --json, --csv), `history`
lists d0's three runs in order with their verdicts, hours and bytes, and both give the
same answers after the index is deleted (built again from the files) and after it is
overwritten with garbage (set aside as damaged, built again), and when the index's name
is a link to another program's SQLite database or a copy of one (that database never
written, the index set aside and built again). A drive no run measured
is exit 1; a bad --since is exit 2.
"""
import csv
import io
import json
import os
import shutil
import sqlite3

from rbtest import AGENT, COORD, Agent, Tmp, check, free_port, h5, run, sha256

h5py = h5()

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
  - name: read-d1
    drives: [d1.dat]
    workload: {{rw: randread, bs: 4k}}
"""

with Tmp() as tmp:
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "ix", ["d0.dat", "d1.dat"], allow=["d0.dat", "d1.dat"], cwd=tmp,
                  state_dir=tmp)
    try:
        for i, name in enumerate(("week1", "week2", "week3")):
            bound = "    verdict: {max_p99: 1ns}" if name == "week2" else ""
            path = os.path.join(tmp, name + ".yaml")
            with open(path, "w") as f:
                f.write(CAMPAIGN.format(name=name, bound=bound))
            r = run([COORD, "run", path, "--listen", ep, "--no-service", "--results", out])
            print(r.stdout[-1500:], r.stderr[-1500:])
            want = 5 if name == "week2" else 0
            check(r.returncode == want, f"{name}: exit {r.returncode}, want {want}")
    finally:
        agent.stop()

    d0 = "ix:d0.dat"

    def answers():
        r = run([COORD, "drives", "--failed", "--results", out])
        print(r.stdout, r.stderr)
        check(r.returncode == 0, f"drives --failed: exit {r.returncode}")
        lines = [l for l in r.stdout.splitlines()[1:] if l.strip()]
        check(len(lines) == 1 and lines[0].startswith(d0), f"the failed drives: {lines}")
        check("week2" in lines[0] and "p99" in lines[0] and "FAIL" in lines[0],
              f"with its run and reason: {lines[0]}")
        j = json.loads(run([COORD, "drives", "--failed", "--json", "--results", out]).stdout)
        check([x["drive"] for x in j] == [d0] and j[0]["verdict"] == "FAIL", f"--json: {j}")
        rows = list(csv.DictReader(io.StringIO(
            run([COORD, "drives", "--failed", "--csv", "--results", out]).stdout)))
        check([x["drive"] for x in rows] == [d0] and "p99" in rows[0]["reason"], f"--csv: {rows}")
        r = run([COORD, "history", d0, "--json", "--results", out])
        check(r.returncode == 0, f"history: exit {r.returncode} {r.stderr}")
        h = json.loads(r.stdout)
        check([(x["campaign"], x["verdict"]) for x in h] ==
              [("week1", "PASS"), ("week2", "FAIL"), ("week3", "PASS")], f"history: {h}")
        check(all(x["hours"] > 0 and x["bytes"] > 0 for x in h), "hours and bytes burned in")
        check("p99" in h[1]["reason"], f"the failed run's reason: {h[1]['reason']}")
        # every drive's latest: d0 and d1, both PASS in week3
        j = json.loads(run([COORD, "drives", "--json", "--results", out]).stdout)
        check(sorted((x["drive"], x["campaign"], x["verdict"]) for x in j) ==
              [(d0, "week3", "PASS"), ("ix:d1.dat", "week3", "PASS")], f"drives: {j}")
        return h

    first = answers()
    r = run([COORD, "history", d0, "--results", out])
    print(r.stdout)
    check(r.stdout.startswith(f"drive {d0}:") and "3 run(s)" in r.stdout, "history in text")
    index = os.path.join(out, "rackbench-index.sqlite")
    check(os.path.exists(index), "the index is beside the results")
    os.remove(index)
    check(answers() == first, "the same after the index was deleted")
    with open(index, "wb") as f:
        f.write(b"not a database, not at all" * 100)
    r = run([COORD, "drives", "--failed", "--results", out])
    check("damaged" in r.stderr and os.path.exists(index + ".damaged"),
          f"a damaged index is set aside: {r.stderr}")
    check(answers() == first, "the same after the index was damaged")

    # another program's SQLite database, linked in as the index or copied in its place:
    # never written (no table of ours in it), set aside, the index built again
    other = os.path.join(tmp, "outside", "other.db")
    os.makedirs(os.path.dirname(other))
    with sqlite3.connect(other) as db:
        db.execute("create table accounts(name text, balance int)")
        db.execute("insert into accounts values ('ada', 42)")
    before = sha256(other)
    for how in ("link", "copy"):
        for f in (index, index + ".damaged"):
            if os.path.lexists(f):
                os.remove(f)
        if how == "link":
            os.symlink(other, index)
        else:
            shutil.copy(other, index)
        r = run([COORD, "drives", "--failed", "--results", out])
        print(how, r.stderr)
        check(r.returncode == 0, f"{how}: exit {r.returncode}")
        check(sha256(other) == before, f"{how}: the other program's database was written")
        with sqlite3.connect(other) as db:
            tables = [x[0] for x in db.execute("select name from sqlite_master")]
        check(tables == ["accounts"], f"{how}: tables in the other database: {tables}")
        check(os.path.lexists(index + ".damaged") and os.path.isfile(index) and
              not os.path.islink(index), f"{how}: set aside and built again")
        check(answers() == first, f"{how}: the same answers")

    r = run([COORD, "history", "no-such-serial", "--results", out])
    check(r.returncode == 1 and "no run in" in r.stderr, f"unknown drive: {r.returncode} {r.stderr}")
    r = run([COORD, "drives", "--since", "soon", "--results", out])
    check(r.returncode == 2 and "--since" in r.stderr, f"bad --since: {r.returncode} {r.stderr}")
    r = run([COORD, "drives", "--failed", "--since", "0s", "--results", out])
    check(r.returncode == 0, "--since 0s")
print("ok")
