# SPDX-License-Identifier: MIT
"""FDP placement (`placement:`) where the drive cannot take it: every refusal names the
device and why, before anything is written.

The campaign's own checks first (`rackbench plan`, exit 2): an id past 127, a workload
that writes nothing, placement with zns, and an engine that sends no writes of data. Then
an agent offering a loop device and a file: a write point with `placement: 0,1` through
the block layer is refused on the loop device, whose queue gives no write streams
(queue/max_write_streams 0 here; the kernel gives them to NVMe namespaces with FDP
enabled), naming the id and the stream it needs; on the file, which has no placement at
all. Neither target is written: the loop device's first MiB and the file's bytes are what
they were, and the 4 MiB file is not laid out to the point's 8 MiB. A buffered point
(direct: false) is refused too: the block layer carries a stream on direct IO. (The passthrough path's refusal, a namespace without FDP, is qemu.nvme's.)"""
import hashlib
import os

from rbtest import COORD, Agent, LoopDevices, Tmp, check, free_port, run

CAMPAIGN = """name: placed
insecure: true
destructive: true
wait: 20s
targets:
  - agent: a1
    drives: [{drives}]
phases:
  - name: placed
    workload: {{{workload}}}
"""
WRITE = "rw: write, bs: 64k, size: 8m, passes: 1, placement: '0,1'"


def campaign(tmp, name, drives, workload):
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(drives=", ".join(drives), workload=workload))
    return path


def digest(path, n=1 << 20):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read(n)).hexdigest()


with Tmp() as tmp, LoopDevices(tmp, 1, size=16 << 20) as (dev,):
    for name, wl, words in (
            ("big", "rw: write, placement: '0,200'", "'placement' must be placement ids"),
            ("reads", "rw: randread, placement: '0'", "placement ids are carried by writes"),
            ("zoned", "rw: write, passes: 1, zns: write, placement: '1'",
             "placement does not go with zns"),
            ("null", "rw: write, engine: null, placement: '1'", "placement needs engine"),
            ("buffered", "rw: write, direct: false, placement: '1'", "needs direct: true")):
        r = run([COORD, "plan", campaign(tmp, name, [dev], wl)])
        check(r.returncode == 2 and words in r.stderr,
              f"{name}: exit {r.returncode}, want 2 naming {words!r}: {r.stderr}")

    data = os.path.join(tmp, "f.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(4 << 20))
    before = (digest(dev), digest(data))
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "a1", [dev, data], allow=[dev, data], state_dir=os.path.join(tmp, "s"))
    try:
        out = os.path.join(tmp, "out")
        r = run([COORD, "run", campaign(tmp, "loop", [dev], WRITE), "--listen", ep,
                 "--no-service", "--results", out], timeout=120)
        print(r.stdout[-1500:], r.stderr[-1500:])
        text = r.stdout + r.stderr
        # Linux 6.16 on: the queue says 0 streams; before, the kernel has none
        check(r.returncode != 0 and dev in text and "engine uring_cmd" in text and
              ("has 0 write stream(s)" in text and "placement id 1 needs stream 2" in text or
               "this kernel has no write streams" in text),
              f"the loop device refused, named with why: exit {r.returncode}")
        r = run([COORD, "run", campaign(tmp, "file", [data], WRITE), "--listen", ep,
                 "--no-service", "--results", out], timeout=120)
        print(r.stdout[-1500:], r.stderr[-1500:])
        check(r.returncode != 0 and "f.dat" in r.stdout + r.stderr and
              "a file has no placement" in r.stdout + r.stderr,
              f"the file refused: exit {r.returncode}")
    finally:
        agent.stop()
    check((digest(dev), digest(data)) == before and os.path.getsize(data) == 4 << 20,
          "nothing was written: the file not laid out to the point's 8 MiB either")
print("ok")
