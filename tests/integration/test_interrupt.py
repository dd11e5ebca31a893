# SPDX-License-Identifier: MIT
"""Ctrl-C on `rackbench run`: IO stops on every agent's drive within 2 s, checked from the
devices' own IO counters, the run exits non-zero and its results say 'aborted'."""
import glob
import os
import signal
import subprocess
import time

from rbtest import LoopDevices, COORD, Agent, Tmp, check, free_port, h5, skip, wait_for

h5py = h5()
if os.geteuid() != 0:
    skip("needs root for loop devices (their IO counters are the witness)")

CAMPAIGN = """name: interrupt
insecure: true
wait: 20s
defaults: {{runtime: 60s, size: 16m}}
targets:
  - agent: i1
    drives: [{d0}]
  - agent: i2
    drives: [{d1}]
phases:
  - workload: {{rw: randread, iodepth: 4}}
"""


def ios(dev):
    v = open(f"/sys/block/{os.path.basename(dev)}/stat").read().split()
    return int(v[0]) + int(v[4])


with Tmp() as tmp:
    with LoopDevices(tmp, 2) as devs:
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(d0=devs[0], d1=devs[1]))
        ep = f"tcp://127.0.0.1:{free_port()}"
        agents = [Agent(ep, "i1", [devs[0]]), Agent(ep, "i2", [devs[1]])]
        try:
            c = subprocess.Popen([COORD, "run", path, "--listen", ep, "--results",
                                  os.path.join(tmp, "out")], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            # wait for IO on both drives
            start = [ios(d) for d in devs]
            wait_for(lambda: all(ios(d) > s + 1000 for d, s in zip(devs, start)),
                     "IO to start on both drives")
            c.send_signal(signal.SIGINT)
            # the claim is "within 2 s": the counters are read when those 2 s are up
            time.sleep(2)
            at2 = [ios(d) for d in devs]
            # and 1 s later: a span without IO is the witness that it stopped
            time.sleep(1)
            at3 = [ios(d) for d in devs]
            out, err = c.communicate(timeout=30)
            print(err)
            if at2 != at3:
                for a in agents:
                    print(a.output())
            check(at2 == at3, f"IO still running 2 s after Ctrl-C: {at2} -> {at3}")
            check(c.returncode == 1, f"exit {c.returncode}")
            with h5py.File(glob.glob(os.path.join(tmp, "out", "*.h5"))[0], "r") as f:
                check(f.attrs["status"] == "aborted", f"status {f.attrs['status']}")
            for a in agents:
                check(a.proc.poll() is None, "agents stay up for the next campaign")
        finally:
            for a in agents:
                a.stop()
print("ok")
