# SPDX-License-Identifier: MIT
"""F8: an agent's state folder (its spool) fills up while the coordinator is paused.

Agent a1 keeps its state on a 48 KiB tmpfs (its targets elsewhere, --allow); the
coordinator is stopped (SIGSTOP) for 8 s in the second point, so a1's spool grows until
it is full. Checked: a1 says it cannot write the spool and stops the point's IO; the
messages it could not spool are still sent (no seq gap: a1 is never lost, no point is
"sent again"); the run ends with exit 4 and a1's rows of that point say "error" with the
reason; every (drive, point) has exactly one result; the samples of every drive, point and
attempt have no hole in their intervals; the file opens; no process is left behind."""
import os
import signal
import subprocess

from faults import SmallFs, need_root, read_file, stop_all
from rbtest import COORD, Agent, Tmp, check, events, file_agents, free_port, wait_for

need_root("mounts a 48 KiB tmpfs to fill an agent's state folder")

CAMPAIGN = """name: spoolfull
insecure: true
destructive: true
wait: 30s
defaults: {size: 8m, interval: 100ms, runtime: 12s}
targets:
  - agent: f8-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
  - agent: f8-a2
    drives: [a2/disk0.dat, a2/disk1.dat]
phases:
  - name: one
    workload: {rw: randwrite, bs: 4k, iodepth: 2, runtime: 2s}
  - name: two
    workload: {rw: randrw, bs: 4k, iodepth: 2}
  - name: three
    workload: {rw: randread, bs: 4k, iodepth: 2, runtime: 2s}
"""


with Tmp() as tmp:
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    out = os.path.join(tmp, "out")
    ev = os.path.join(tmp, "events.jsonl")
    ep = f"tcp://127.0.0.1:{free_port()}"
    with SmallFs(os.path.join(tmp, "st1"), "48k"):
        os.makedirs(os.path.join(tmp, "a1"))
        for n in ("disk0.dat", "disk1.dat"):
            # written whole: the read points must never meet a block the first
            # point's random writes happened to miss (a hole is refused, not read)
            with open(os.path.join(tmp, "a1", n), "wb") as f:
                f.write(os.urandom(8 << 20))
        t = ["a1/disk0.dat", "a1/disk1.dat"]
        agents = [Agent(ep, "f8-a1", t, allow=t, cwd=tmp, state_dir=os.path.join(tmp, "st1"))]
        agents += file_agents(ep, tmp, "f8", names=("a2",))
        c = None
        try:
            c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep,
                                  "--results", out, "--events", ev],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # 1 s into the second point: a2's 100 ms samples have reached interval 9 (a1's
            # may stop short, its spool full)
            wait_for(lambda: any(e["event"] == "sample" and e["point"] == 1 and
                                 e["drive"].startswith("f8-a2:") and e["interval"] >= 9
                                 for e in events(ev)),
                     "1 s of the second point", show=lambda: agents[0].output()[-2000:])
            c.send_signal(signal.SIGSTOP)
            # stopped until a1's spool is full: a1 says so and stops the point's IO
            wait_for(lambda: "stopping point 1" in agents[0].output(),
                     "a1 to stop the second point on a full spool",
                     show=lambda: agents[0].output()[-2000:])
            c.send_signal(signal.SIGCONT)
            so, se = c.communicate(timeout=120)
            print(se[-3000:])
            log = agents[0].output()
            print(log[-2000:])
            check(c.returncode == 4, f"a full spool: exit {c.returncode}, not 4")
            check("cannot write the spool" in log, "the agent says its spool is full")
            check("stopping point 1" in log, "the agent stops the point's IO")
            check("is lost" not in se and "sending it again" not in se,
                  "no gap: the agent is never lost and nothing is asked for again")
            path = so.split("results: ")[1].split(" (")[0]
            status, rows, results = read_file(path)
            check(status == "partial", f"status {status}")
            keys = [(r[0], r[1], r[2]) for r in results]
            check(len(keys) == len(set(keys)) == 12, f"one result per drive and point: {results}")
            bad = [r for r in results if r[3] != "ok"]
            check(bad and all(r[0].startswith("a1/") and r[1] == 1 and r[3] == "error"
                              for r in bad), f"a1's second point says error: {bad}")
            groups = {}
            for k in rows:
                groups.setdefault((k[0], k[1], k[2], k[4]), []).append(k[3])
            for g, iv in groups.items():
                check(sorted(iv) == list(range(len(iv))), f"{g}: intervals {sorted(iv)}")
            print(f"{len(rows)} sample rows, no hole; a1 point 1: {bad[0][3]}")
        finally:
            if c and c.poll() is None:
                c.send_signal(signal.SIGCONT)
                c.kill()
            stop_all(agents)
print("ok")
