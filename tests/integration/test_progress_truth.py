# SPDX-License-Identifier: MIT
"""A printed figure equals what the rows add up to, even when the coordinator lags: the
coordinator is stopped (SIGSTOP) for 6 s in the middle of a 3 s point, so its samples
arrive late and its own wall time for the point is three times the drives'. The "done"
line's IOPS and MB/s must still equal the sum of the point's result rows within 1%, and
so must the point_done event."""
import glob
import json
import os
import re
import signal
import subprocess
import time

from rbtest import COORD, Tmp, check, file_agents, free_port, h5, wait_for

h5py = h5()

CAMPAIGN = """name: truth
insecure: true
destructive: true
wait: 20s
defaults: {size: 16m, interval: 200ms}
targets:
  - agent: truth-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
  - agent: truth-a2
    drives: [a2/disk0.dat, a2/disk1.dat]
phases:
  - name: lagged
    workload: {rw: randrw, bs: 4k, iodepth: 4, runtime: 3s}
"""

with Tmp() as tmp:
    camp = os.path.join(tmp, "truth.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = file_agents(ep, tmp, "truth")
    events = os.path.join(tmp, "events.jsonl")
    out = os.path.join(tmp, "out")
    c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep, "--results", out,
                          "--events", events], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        # stop it once the point has started (its first sample is in the events file)
        wait_for(lambda: c.poll() is not None or
                 (os.path.exists(events) and '"sample"' in open(events).read()),
                 "the point's first sample")
        check(c.poll() is None, "the run ended before the point started")
        c.send_signal(signal.SIGSTOP)
        # stopped 6 s in a 3 s point is the input: its wall time must take in the stop
        time.sleep(6)
        c.send_signal(signal.SIGCONT)
        _, err = c.communicate(timeout=120)
    finally:
        if c.poll() is None:
            c.kill()
        for a in agents:
            a.stop()
    print(err)
    check(c.returncode == 0, f"run: exit {c.returncode}")
    m = re.search(r"\[1/1\] lagged: done \(ok\) in ([0-9.]+) s, 4 drive\(s\): ([0-9]+) IOPS, "
                  r"([0-9.]+) MB/s", err)
    check(m, "no done line")
    wall, iops, mbps = float(m.group(1)), float(m.group(2)), float(m.group(3))
    check(wall > 6, f"the coordinator's wall time ({wall} s) should include the stop")
    with h5py.File(glob.glob(os.path.join(out, "*.h5"))[0], "r") as f:
        rows = [r for r in f["results"][:] if r["point"] == 0 and r["status"] == b"ok"]
        check(len(rows) == 4, f"{len(rows)} ok rows")
        want_iops = sum(r["read_iops"] + r["write_iops"] + r["trim_iops"] for r in rows)
        want_bw = sum(r["read_bw_bytes_per_s"] + r["write_bw_bytes_per_s"] +
                      r["trim_bw_bytes_per_s"] for r in rows) / 1e6
    print(f"printed {iops:.0f} IOPS {mbps:.1f} MB/s; rows {want_iops:.0f} IOPS {want_bw:.1f} MB/s")
    check(abs(iops - want_iops) <= 0.01 * want_iops, f"printed IOPS {iops} vs rows {want_iops}")
    check(abs(mbps - want_bw) <= 0.01 * want_bw + 0.1, f"printed MB/s {mbps} vs rows {want_bw}")
    done = [json.loads(x) for x in open(events) if '"point_done"' in x]
    check(len(done) == 1 and abs(done[0]["iops"] - want_iops) <= 0.01 * want_iops,
          f"point_done event: {done}")
print("ok")
