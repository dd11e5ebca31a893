# SPDX-License-Identifier: MIT
"""The burn-in timer's command, run as systemd would, against a real service.

A `rackbench serve` with two file agents runs campaign `first` (submitted with --queue,
nothing before it, so it starts at once). The ExecStart of
deploy/rackbench-burnin@.service, with its instance `nightly` and paths pointed here, then
hands /etc/rackbench/campaigns/nightly.yaml over: it exits 0 at once with the run's id,
`status` lists it queued behind `first`, and it runs when `first` ends (its results file
starts after `first`'s ends). Two `run --queue` submitted at the same instant both run,
one after the other, each client getting its own run's exit code. The service indexed
each run's file as it ended (the folder's rackbench-index.sqlite).
"""
import os
import re
import shlex
import subprocess
import time

from rbtest import COORD, SRC, Tmp, check, file_agents, free_port, h5, run, wait_for

h5py = h5()

CAMPAIGN = """name: {name}
insecure: true
destructive: true
wait: 20s
defaults: {{size: 8m, interval: 200ms, runtime: {runtime}}}
targets:
  - agent: tm-a1
    drives: [a1/disk0.dat]
  - agent: tm-a2
    drives: [a2/disk0.dat]
phases:
  - workload: {{rw: randwrite, bs: 4k}}
"""


def times(path):
    with h5py.File(path, "r") as h:
        return int(h.attrs["start_ns"]), int(h.attrs["end_ns"])


with Tmp() as tmp:
    ctl = os.path.join(tmp, "ctl", "control")
    logs = os.path.join(tmp, "logs")
    out = os.path.join(tmp, "out")
    for d in (logs, out, os.path.join(tmp, "campaigns")):
        os.makedirs(d)
    ep = f"tcp://127.0.0.1:{free_port()}"
    env = dict(os.environ, RACKBENCH_CONTROL=ctl)
    svc = subprocess.Popen([COORD, "serve", "--insecure", "--listen", ep, "--control", ctl,
                            "--log-dir", logs, "--results", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    agents = []
    try:
        wait_for(lambda: os.path.exists(ctl), "the service's control socket", timeout=20)
        agents = file_agents(ep, tmp, "tm")
        wait_for(lambda: run([COORD, "agents", "--control", ctl]).stdout.count("tm-a") == 2,
                 "both agents registered", timeout=20)
        for name, runtime in (("first", "4s"), ("nightly", "1s"), ("twin1", "1s"),
                              ("twin2", "1s")):
            with open(os.path.join(tmp, "campaigns", name + ".yaml"), "w") as f:
                f.write(CAMPAIGN.format(name=name, runtime=runtime))

        first = subprocess.Popen([COORD, "run", "--queue", "--control", ctl,
                                  os.path.join(tmp, "campaigns", "first.yaml")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: "running: " in run([COORD, "status", "--control", ctl]).stdout,
                 "the first run to start", timeout=20)

        # the timer's service, as systemd would start it for instance 'nightly'
        unit = open(os.path.join(SRC, "deploy", "rackbench-burnin@.service")).read()
        cmd = re.search(r"^ExecStart=(.+)$", unit, re.M).group(1)
        cmd = (cmd.replace("%i", "nightly").replace("/usr/bin/rackbench", os.path.abspath(COORD))
               .replace("/etc/rackbench/campaigns", os.path.join(tmp, "campaigns"))
               .replace("/run/rackbench/control", ctl))
        t0 = time.monotonic()
        r = subprocess.run(shlex.split(cmd), capture_output=True, text=True, timeout=30)
        print(cmd, r.returncode, r.stdout, r.stderr)
        check(r.returncode == 0, f"the timer's command: exit {r.returncode}")
        check(time.monotonic() - t0 < 10, "it returns once the service took the run")
        nid = r.stdout.strip()
        check(re.fullmatch(r"\d{8}T\d{6}Z-\d+", nid), f"it prints the run's id: {nid!r}")
        s = run([COORD, "status", "--control", ctl])
        print(s.stdout)
        check(f"1. run {nid}, campaign 'nightly'" in s.stdout, "status lists it queued")
        s = run([COORD, "status", nid, "--control", ctl])
        check(s.stdout.startswith(f"queued: run {nid}"), f"status {nid}: {s.stdout}")

        fo, fe = first.communicate(timeout=120)
        print(fe)
        check(first.returncode == 0, f"the first run: exit {first.returncode}")
        wait_for(lambda: run([COORD, "status", nid, "--control", ctl]).stdout.startswith("done:"),
                 "the queued run to end", timeout=60)
        s = run([COORD, "status", nid, "--control", ctl])
        print(s.stdout)
        check(s.returncode == 0 and "ended with exit 0" in s.stdout, f"nightly: {s.stdout}")
        fres = re.search(r"results: (\S+\.h5)", fo + fe).group(1)
        nres = re.search(r"results (\S+\.h5)", s.stdout).group(1)
        check(times(nres)[0] >= times(fres)[1], "nightly started after the first run ended")

        # two submissions at one instant: both run, in turn
        twins = [subprocess.Popen([COORD, "run", "--queue", "--control", ctl,
                                   os.path.join(tmp, "campaigns", n + ".yaml")],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for n in ("twin1", "twin2")]
        outs = [p.communicate(timeout=120) for p in twins]
        for p, (o, e) in zip(twins, outs):
            print(e)
            check(p.returncode == 0, f"a twin: exit {p.returncode}")
        spans = sorted(times(re.search(r"results: (\S+\.h5)", o + e).group(1)) for o, e in outs)
        check(spans[1][0] >= spans[0][1], f"one ran after the other: {spans}")

        # the service indexed each run's file as it ended (rackbench history reads it)
        import sqlite3
        db = sqlite3.connect(os.path.join(out, "rackbench-index.sqlite"))
        names = sorted(r[0] for r in db.execute("SELECT campaign FROM files"))
        db.close()
        check(names == ["first", "nightly", "twin1", "twin2"], f"the index holds {names}")
    finally:
        for a in agents:
            a.stop()
        svc.terminate()
        print(svc.communicate(timeout=30)[0].decode(errors="replace")[-3000:])
print("ok")
