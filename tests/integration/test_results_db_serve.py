# SPDX-License-Identifier: MIT
"""Two rack services writing into one fleet database of the test's own (pgserver.py).

Rack r1's service exports by its own `serve --results-db URL` (a password in the URL);
rack r2's has none, and its campaigns say `results_db:` (a URL without one). Agent a1 (rack
r1) offers a faultfs (FUSE) drive whose reads fail from 8 MiB on; agent a2 (rack r2) one
whose every read waits 60 ms, beyond the campaign's `max_p99: 30ms`, and a healthy loop
device. A fourth, healthy loop device is offered by both agents with one serial from each
agent's agent.yaml (`serials:`): the drive that moves from rack r1 to rack r2.

1. r1 runs the failing drive and the mover, r2 the slow drive and its healthy one: each
   run's file is exported when it ends, the service's log naming it.
2. The database is stopped (pg_ctl stop) while a run goes on in each rack (the mover now
   in r2): both runs complete, and each service says the export is owed, naming the file.
3. The database back: r1's service restarted catches up its owed file at its start; r2's
   next run catches up its owed one at its end; each message names the file.
4. `drives --failed --db` lists exactly the failing and the slow drive, across both racks;
   `history SERIAL --db` follows the mover from r1 to r2; exporting every file of both
   racks again adds no row; no owed list is left; the password is in no output.
"""
import glob
import json
import os
import signal
import subprocess

from pgserver import PgServer
from rbtest import (COORD, Agent, Faulty, LoopDevices, Tmp, check, free_port, need_faultfs, run,
                    wait_for)

need_faultfs()

CAMPAIGN = """name: {name}
insecure: true
wait: 20s
{db}defaults: {{size: 16m, runtime: {runtime}, interval: 250ms}}
targets:
  - agent: {agent}
    drives: [{drives}]
verdict: {{max_p99: 30ms}}
phases:
  - workload: {{rw: randread, bs: 4k}}
"""
TABLES = ("runs", "drives", "placements", "points", "results", "verdicts", "health", "files")
MOVER = "LAB-MOVER-0001"


def campaign(tmp, name, agent, drives, db="", runtime="1s"):
    """tmp/NAME.yaml: one point of the agent's drives; results_db: db when given."""
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(name=name, agent=agent, drives=", ".join(drives),
                                db=f"results_db: '{db}'\n" if db else "", runtime=runtime))
    return path


class Service:
    """A rack's `rackbench serve` (insecure, on loopback), its log in tmp/RACK.log."""

    def __init__(self, tmp, rack, extra=()):
        self.tmp, self.rack, self.extra = tmp, rack, list(extra)
        self.port = free_port()
        self.out = os.path.join(tmp, rack, "out")
        self.env = dict(os.environ, RACKBENCH_CONTROL=os.path.join(tmp, rack, "ctl", "control"))
        self.logs = []
        os.makedirs(self.out)
        self.start()

    def start(self):
        path = os.path.join(self.tmp, f"{self.rack}-{len(self.logs)}.log")
        self.logs.append(path)
        self.log = open(path, "w")
        self.proc = subprocess.Popen(
            [COORD, "serve", "--insecure", "--listen", f"tcp://127.0.0.1:{self.port}",
             "--results", self.out] + self.extra,
            stdout=self.log, stderr=subprocess.STDOUT, env=self.env)
        wait_for(lambda: "serving agents on" in self.text(), f"{self.rack}'s service to serve",
                 show=self.text)

    def text(self, all_logs=False):
        return "".join(open(p).read() for p in (self.logs if all_logs else self.logs[-1:]))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(30)
        self.log.close()

    def campaign(self, name, agent, drives, db="", runtime="1s"):
        return campaign(self.tmp, name, agent, drives, db, runtime)

    def run(self, path, want):
        r = run([COORD, "run", path], env=self.env, timeout=120)
        print(r.stdout, r.stderr)
        check(r.returncode == want, f"{self.rack} {path}: exit {r.returncode}, want {want}")
        return r

    def detach(self, path):
        r = run([COORD, "run", "--detach", path], env=self.env)
        check(r.returncode == 0, f"{self.rack}: --detach: {r.returncode} {r.stderr}")
        return r.stdout.strip()

    def status(self, run_id):
        r = run([COORD, "status", "--json", run_id], env=self.env)
        return json.loads(r.stdout) if r.stdout.strip() else {}


def counts(pg):
    return {t: int(pg.sql(None, f"SELECT count(*) FROM rackbench.{t}")[0][0]) for t in TABLES}


def said(svc, words, what):
    wait_for(lambda: all(w in svc.text() for w in words), what, timeout=60, show=svc.text)


with Tmp() as tmp, PgServer() as pg:
    url = pg.url()
    bare = url.replace(f":{pg.password}@", "@")  # the campaigns': no password
    check(bare != url and pg.password not in bare, f"a URL without the password: {bare}")

    # a campaign's results_db holding a password is refused, the password unsaid
    r = run([COORD, "plan", campaign(tmp, "pw", "a1", ["x"], db=url)])
    check(r.returncode == 2 and "holds a password" in r.stderr and pg.password not in
          r.stdout + r.stderr, f"a password in results_db: {r.returncode} {r.stderr}")

    fs = [Faulty(tmp, "eio", "--size=16m", "--fail-start=8m", "--fail-end=16m"),
          Faulty(tmp, "slow", "--size=16m", "--base-delay-us=60000")]
    services, agents = [], []
    try:
        with LoopDevices(tmp, 2, size=16 << 20) as (mover, ok2):
            eio, slow = fs[0].dev, fs[1].dev
            r1 = Service(tmp, "r1", ["--results-db", url])
            r2 = Service(tmp, "r2")
            services = [r1, r2]
            for name, svc, targets in (("a1", r1, [eio, mover]), ("a2", r2, [slow, ok2, mover])):
                cfg = os.path.join(tmp, f"{name}.yaml")
                with open(cfg, "w") as f:
                    f.write(f"serials: {{{mover}: {MOVER}}}\n")
                agents.append(Agent(f"tcp://127.0.0.1:{svc.port}", name, targets,
                                    state_dir=os.path.join(tmp, name),
                                    extra=["--config", cfg, "--label", f"rack={svc.rack}"]))
                said(svc, [f"agent '{name}' registered"], f"{name} to register")

            # 1. a run in each rack, each file exported as its run ends
            r1.run(r1.campaign("burnin-r1", "a1", [eio, mover]), 5)
            r2.run(r2.campaign("burnin-r2", "a2", [slow, ok2], db=bare), 5)
            for svc in services:
                said(svc, ["exported into database 'rbtest'", ": added"],
                     f"{svc.rack}'s export")
            first = counts(pg)
            check(first["runs"] == 2 and first["placements"] == 4, f"two runs: {first}")

            # 2. the database stopped while a run goes on in each rack: the mover now in r2
            ids = {r1: r1.detach(r1.campaign("again-r1", "a1", [eio], runtime="2s")),
                   r2: r2.detach(r2.campaign("moved-r2", "a2", [mover, ok2], db=bare,
                                             runtime="2s"))}
            for svc, rid in ids.items():
                wait_for(lambda: svc.status(rid).get("phase") == "point",
                         f"{svc.rack}'s run to measure")
            pg.stop()
            owed = {}
            for svc, rid in ids.items():
                wait_for(lambda: svc.status(rid).get("state") == "done", f"{svc.rack}'s run")
                st = svc.status(rid)
                owed[svc] = st["results"]
                check(os.path.exists(owed[svc]), f"{svc.rack}: its file {st}")
                said(svc, [f"the export of '{owed[svc]}' is owed", "cannot connect to database "
                           "'rbtest'", "at a later run's end or the service's start"],
                     f"{svc.rack} to say the export is owed")
                listed = open(os.path.join(svc.out, "rackbench-db-owed")).read()
                check(os.path.basename(owed[svc]) in listed and pg.password not in listed,
                      f"{svc.rack}'s owed list: {listed!r}")
            pg.start()
            check(counts(pg) == first, "nothing written while it was away")

            # 3. caught up: r1 at its service's start, r2 at its next run's end
            r1.stop()
            r1.start()
            said(r1, [f"caught up: results '{owed[r1]}' exported into database 'rbtest'"],
                 "r1's start to catch up")
            said(r1, ["agent 'a1' registered"], "a1 to register again")
            r2.run(r2.campaign("later-r2", "a2", [ok2], db=bare), 0)
            said(r2, [f"caught up: results '{owed[r2]}' exported into database 'rbtest'"],
                 "r2's next run to catch up")
            for svc in services:
                check(not os.path.exists(os.path.join(svc.out, "rackbench-db-owed")),
                      f"{svc.rack}: the owed list is gone")
    finally:
        for a in agents:
            a.stop()
        for svc in services:
            svc.stop()
        for f in fs:
            f.close()
    for svc in services:
        print(f"--- {svc.rack}'s service\n{svc.text(True)}")
        check(pg.password not in svc.text(True), f"{svc.rack}: the password in its log")

    # 4. the fleet's answers across both racks
    r = run([COORD, "drives", "--failed", "--json", "--db", url])
    check(r.returncode == 0, f"drives --failed: {r.returncode} {r.stderr}")
    failed = sorted((x["drive"], x["rack"]) for x in json.loads(r.stdout))
    check(failed == sorted([(f"a1:{eio}", "r1"), (f"a2:{slow}", "r2")]),
          f"the failed drives: {failed}")
    r = run([COORD, "history", MOVER, "--json", "--db", url])
    check(r.returncode == 0, f"history: {r.returncode} {r.stderr}")
    h = [(x["campaign"], x["rack"], x["agent"], x["verdict"]) for x in json.loads(r.stdout)]
    check(h == [("burnin-r1", "r1", "a1", "PASS"), ("moved-r2", "r2", "a2", "PASS")],
          f"the mover's history: {h}")
    files = sorted(glob.glob(os.path.join(tmp, "r*", "out", "*.h5")))
    check(len(files) == 5, f"five results files: {files}")
    before = counts(pg)
    check(before["runs"] == 5, f"every run in the database: {before}")
    r = run([COORD, "export", *files, "--db", url])
    print(r.stdout, r.stderr)
    check(r.returncode == 0 and "0 added, 0 updated, 5 already there" in r.stdout and
          pg.password not in r.stdout + r.stderr, f"exported again: {r.stdout}")
    check(counts(pg) == before, f"no row added: {counts(pg)} against {before}")
print("ok")
