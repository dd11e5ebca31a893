# SPDX-License-Identifier: MIT
"""A spec's `steady: true` claim judges every drive or names it NOT JUDGED: a known answer.

Two loop devices on one agent run a steady-state phase (4K random reads, rounds until a
window of 3 is steady, at most 5). The agent is in a block cgroup of its own (cgroup v1
blkio.throttle.read_iops_device, or v2 io.max where that is what the machine has) that
holds the first loop device at 400 read IOPS, and whose limit on the second keeps falling
while the phase runs: the first drive reaches steady state, the second never does (a
campaign's rate_iops would not do: a rate-limited point measures the limit, and no claim
judges it). `rackbench report
--spec` with a steady-state claim then PASSes the first at its steady window and names
the second NOT JUDGED ("it never reached steady state in phase 'ss'"), says the
qualification is incomplete, and exits 4: no drive it should judge is left out."""
import glob
import os
import subprocess
import threading
import time

from rbtest import COORD, Agent, LoopDevices, Tmp, check, free_port, h5, need, run, skip

need(root_for="loop devices and a block cgroup", tools=("losetup",))
h5py = h5()

CAMPAIGN = """name: qualsteady
insecure: true
wait: 20s
defaults: {{runtime: 600ms, interval: 300ms}}
targets:
  - agent: qs-a1
    drives: [{a}, {b}]
phases:
  - name: ss
    workload: {{rw: randread, bs: 4k, iodepth: 2}}
    steady_state: {{max_rounds: 5, window: 3, metric: iops}}
"""
SPEC = """claims:
  - {name: steady 4k read, rw: randread, bs: 4k, steady: true, iops: 100}
"""


class Throttle:
    """A block cgroup of the test's own, with read-IOPS limits on devices."""

    def __init__(self, name):
        v1 = "/sys/fs/cgroup/blkio"
        v2 = next((p for p in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
                   if os.path.exists(os.path.join(p, "cgroup.subtree_control"))), None)
        if os.path.exists(os.path.join(v1, "blkio.throttle.read_iops_device")):
            self.path = os.path.join(v1, name)
            self.file, self.fmt = "blkio.throttle.read_iops_device", "{dev} {iops}"
        elif v2:
            try:
                with open(os.path.join(v2, "cgroup.subtree_control"), "w") as f:
                    f.write("+io")
            except OSError as e:
                skip(f"needs a block cgroup: cgroup v1 blkio is absent and v2 io is not "
                     f"available ({e})")
            self.path = os.path.join(v2, name)
            self.file, self.fmt = "io.max", "{dev} riops={iops}"
        else:
            skip("needs a block cgroup (cgroup v1 blkio or v2 io)")
        os.makedirs(self.path, exist_ok=True)

    def limit(self, dev, iops):
        st = os.stat(dev)
        with open(os.path.join(self.path, self.file), "w") as f:
            f.write(self.fmt.format(dev=f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}",
                                    iops=iops))

    def add(self, pid):
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write(str(pid))

    def remove(self):
        parent = os.path.dirname(self.path)
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                pids = f.read().split()
            for p in pids:
                with open(os.path.join(parent, "cgroup.procs"), "w") as f:
                    f.write(p)
            os.rmdir(self.path)
        except OSError:
            pass


with Tmp() as tmp, LoopDevices(tmp, 2, size=64 << 20) as (a, b):
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN.format(a=a, b=b))
    spec = os.path.join(tmp, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    th = Throttle(f"rbtest-{os.getpid()}")
    th.limit(a, 400)
    th.limit(b, 380)
    ep = f"tcp://127.0.0.1:{free_port()}"
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    agent = Agent(ep, "qs-a1", [a, b], state_dir=state)
    stop = threading.Event()

    def falling():
        """The second drive's limit falls by a fifth every half second: its IOPS never
        hold within a steady window."""
        iops = 380
        while not stop.wait(0.5):
            iops = max(10, int(iops * 0.8))
            th.limit(b, iops)

    try:
        th.add(agent.proc.pid)
        t = threading.Thread(target=falling, daemon=True)
        t.start()
        r = run([COORD, "run", camp, "--listen", ep, "--no-service", "--results",
                 os.path.join(tmp, "out")])
        stop.set()
        t.join()
        print(r.stderr[-3000:])
        check(r.returncode == 0, f"the run: exit {r.returncode}")
        res = glob.glob(os.path.join(tmp, "out", "qualsteady-*.h5"))[0]
        with h5py.File(res, "r") as h:
            drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
            ss = {drives[int(x["drive"])]: int(x["steady"]) for x in h["steady_state"][:]}
        print("steady:", ss)
        check(ss == {a: 1, b: 0}, f"the first drive steady, the second not: {ss}")
        r = run([COORD, "report", res, "--spec", spec])
        print(r.stdout[r.stdout.find("against spec"):])
        lines = [x for x in r.stdout.splitlines() if "steady 4k read" in x]
        check(len(lines) == 2, f"one check per drive: {lines}")
        pa = [x for x in lines if f"qs-a1:{a} " in x]
        pb = [x for x in lines if f"qs-a1:{b} " in x]
        check(pa and pa[0].startswith("PASS ") and "round=" in pa[0],
              f"the steady drive is judged at its window: {pa}")
        check(pb and pb[0].startswith("NOT JUDGED ") and
              "it never reached steady state in phase 'ss'" in pb[0],
              f"the other is named, with why: {pb}")
        check("0 of 2 checks below 90%; 1 not judged: the qualification is incomplete"
              in r.stdout, "the summary says it is incomplete")
        check(r.returncode == 4, f"report --spec: exit {r.returncode}, want 4")
    finally:
        stop.set()
        agent.stop()
        th.remove()
print("ok")
