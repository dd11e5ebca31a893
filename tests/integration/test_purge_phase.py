# SPDX-License-Identifier: MIT
"""A campaign's purge phase: the agents purge their drives (here: zero files) through the
same guarded path as rackbench-agent purge, on a thread while heartbeats go on; the purge
point's rows say what happened, the drive really is zeroed, and the next point's rows
carry the purge in their history. An agent of protocol 1.0 (which would ignore the
purge) is refused, named."""
import glob
import os
import subprocess
import tempfile

from rbtest import AGENT, COORD, Tmp, check, file_agents, free_port, h5, run

h5py = h5()

CAMPAIGN = """name: purged
insecure: true
destructive: true
wait: {wait}
defaults: {{size: 8m}}
targets:
  - agent: pg-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
phases:
  - name: fill
    workload: {{rw: write, bs: 1m, passes: 1}}
  - name: clean
    purge: {{method: zero}}
  - name: read
    # zeroed files are holes, as a purged drive reads deallocated blocks: said so
    workload: {{rw: randread, bs: 4k, runtime: 300ms, allow_holes: true}}
"""

with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "a1"))
    c = os.path.join(tmp, "c.yaml")
    with open(c, "w") as f:
        f.write(CAMPAIGN.format(wait="20s"))
    r = run([COORD, "plan", c])
    check(r.returncode == 0 and "phase clean: purge (zero)" in r.stdout, r.stdout)
    ep = f"tcp://127.0.0.1:{free_port()}"
    t = ["a1/disk0.dat", "a1/disk1.dat"]
    (a,) = file_agents(ep, tmp, "pg", ("a1",))
    try:
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        a.stop()
    print(r.stderr)
    check(r.returncode == 0, f"run: {r.returncode}")
    with h5py.File(glob.glob(os.path.join(tmp, "out", "purged-*.h5"))[0], "r") as h:
        pts = {int(p["point"]): p for p in h["points"][:]}
        res = {(int(x["drive"]), int(x["point"])): x for x in h["results"][:]}
    check(pts[1]["rw"] == b"purge" and pts[1]["settings"] == b"purge=zero ses=0", f"{pts[1]}")
    for d in (0, 1):
        pr, rd = res[(d, 1)], res[(d, 2)]
        check(pr["status"] == b"ok" and pr["read_ios"] == 0 and pr["write_ios"] == 0, f"{pr}")
        check(rd["purge_method"] == b"zero" and rd["purge_ns"] > 0 and
              rd["written_since_purge_bytes"] == 0, f"history after the purge: {rd}")
        data = open(os.path.join(tmp, t[d]), "rb").read()
        check(len(data) == 8 << 20 and data.count(0) == len(data), f"{t[d]} is not zeroed")

    # an agent that speaks 1.0 would ignore the purge: refused, named
    log = tempfile.TemporaryFile()
    ep = f"tcp://127.0.0.1:{free_port()}"
    with open(c, "w") as f:
        f.write(CAMPAIGN.format(wait="10s"))
    p = subprocess.Popen([AGENT, "--coordinator", ep, "--name", "pg-a1", "--insecure",
                          "--state-dir", os.path.join(tmp, "a1"), "--target", t[0], "--target",
                          t[1], "--allow", t[0], "--allow", t[1]], cwd=tmp, stdout=log,
                         stderr=subprocess.STDOUT,
                         env=dict(os.environ, RB_TEST_PROTO_MINOR="0"))
    try:
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out2")])
    finally:
        p.terminate()
        p.wait(10)
    check(r.returncode == 2 and "agent 'pg-a1' speaks protocol 1.0" in r.stderr, r.stderr)
print("ok")
