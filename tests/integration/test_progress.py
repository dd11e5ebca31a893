# SPDX-License-Identifier: MIT
"""rackbench run's progress. Without a terminal: a line per point start and end and every
5 s, and --events FILE as JSON Lines whose samples add up to exactly the IOs of the HDF5
file's samples table. On a terminal (a real one: tmux): a view redrawn in place -- phase,
point k of n, ETA, a line per drive -- that capture-pane sees change, in bold unless
NO_COLOR is set."""
import glob
import json
import os
import shutil
import subprocess

from rbtest import COORD, Tmp, check, file_agents, free_port, h5, run, skip, wait_for

h5py = h5()

CAMPAIGN = """name: progress
insecure: true
destructive: true
wait: 20s
defaults: {size: 16m, interval: 500ms}
targets:
  - agent: prog-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
phases:
  - name: long
    workload: {rw: randread, bs: 4k, iodepth: 4, runtime: 6s}
  - name: short
    workload: {rw: write, bs: 64k, iodepth: 2, runtime: 1s}
"""


def campaign(tmp):
    path = os.path.join(tmp, "progress.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN)
    os.makedirs(os.path.join(tmp, "a1"), exist_ok=True)
    return path


def agent(tmp, ep):
    return file_agents(ep, tmp, "prog", ("a1",))[0]


with Tmp() as tmp:
    ep = f"tcp://127.0.0.1:{free_port()}"
    a = agent(tmp, ep)
    events = os.path.join(tmp, "events.jsonl")
    try:
        r = run([COORD, "run", campaign(tmp), "--listen", ep, "--results",
                 os.path.join(tmp, "out"), "--events", events])
    finally:
        a.stop()
    check(r.returncode == 0, f"run: {r.returncode}\n{r.stderr}")
    err = r.stderr
    check("[1/2] long (6s on 2 drive(s))" in err and "[2/2] short" in err, err)
    check("[1/2] long: done (ok)" in err and "[2/2] short: done (ok)" in err, err)
    periodic = [x for x in err.splitlines() if x.startswith("rackbench: [1/2] long:") and " of 6s, " in x]
    check(len(periodic) >= 1, f"no periodic line during the 6 s point:\n{err}")
    check("\033[" not in err, "escape sequences without a terminal")
    ev = [json.loads(x) for x in open(events)]
    kinds = [e["event"] for e in ev]
    check(kinds[0] == "point_start" and kinds[-1] == "run_done", f"events {kinds[:3]}..{kinds[-2:]}")
    check(kinds.count("point_start") == 2 and kinds.count("point_done") == 2, "point events")
    check(ev[-1]["exit_code"] == 0 and ev[-1]["status"] == "complete", f"run_done {ev[-1]}")
    samples = [e for e in ev if e["event"] == "sample"]
    check({e["drive"] for e in samples} == {"prog-a1:a1/disk0.dat", "prog-a1:a1/disk1.dat"},
          "sample drives")
    f = glob.glob(os.path.join(tmp, "out", "progress-*.h5"))[0]
    with h5py.File(f, "r") as h:
        s = h["samples"][:]
        ios = int(s["ios"].sum())
    # the events carry rates: IOs = iops x interval
    ev_ios = sum(round(e["iops"] * 0.5) for e in samples)
    check(len(samples) == len(s), f"{len(samples)} sample events, {len(s)} sample rows")
    check(ev_ios == ios, f"events add up to {ev_ios} IOs, the file holds {ios}")

    # on a terminal
    if not shutil.which("tmux"):
        skip("the terminal half needs tmux (apt-get install tmux); the plain half passed")
    for nocolor in (False, True):
        ep = f"tcp://127.0.0.1:{free_port()}"
        a = agent(tmp, ep)
        sock = os.path.join(tmp, "tmux.sock")
        env = "NO_COLOR=1 " if nocolor else ""
        cmd = (f"cd {tmp} && {env}{os.path.abspath(COORD)} run {campaign(tmp)} --listen {ep} "
               f"--results {os.path.join(tmp, 'out')}; echo EXIT=$?; sleep 30")
        try:
            subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "160", "-y", "40",
                            "sh", "-c", cmd], check=True)
            shots = []

            def ended():
                """A capture of the live view; true once the run has ended."""
                c = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-e"],
                                   capture_output=True, text=True).stdout
                if "point 1/2" in c and "EXIT=" not in c:
                    shots.append(c)
                return "EXIT=" in c

            # a capture every 0.7 s until the run ends: enough to see the view redrawn
            wait_for(ended, "the run under tmux to end", every=0.7)
            final = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"],
                                   capture_output=True, text=True).stdout
        finally:
            subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
            a.stop()
        check("EXIT=0" in final, f"run under tmux:\n{final}")
        check(len(shots) >= 3, f"{len(shots)} captures of the live view:\n{final}")
        v = shots[-1]
        check("long \u00b7 point 1/2 randread" in v or "long \u00b7 point 1/2" in v, v)
        check("ETA" in v and "prog-a1:a1/disk0.dat" in v and "prog-a1:a1/disk1.dat" in v, v)
        check(len(set(shots)) >= 2, "the view never changed")
        # redrawn in place: one header on screen however many redraws
        check(v.count("point 1/2") == 1, f"the view was not redrawn in place:\n{v}")
        bold = any("\033[1m" in x for x in shots)
        check(bold != nocolor, f"bold {'with' if bold else 'without'} NO_COLOR={nocolor}")
        # after the run the view is gone; the per-point lines stay
        check("done (ok)" in final and "point 2/2" not in final, final)
print("ok")
