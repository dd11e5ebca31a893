# SPDX-License-Identifier: MIT
"""A throughput cliff against a known answer: two faultfs (FUSE) loop devices read for
16 s at 1 s intervals, every read waiting 300 us. One makes every read wait 3 ms from 8 s
after its first IO on, and
writes down the instant its first delayed read came; the other stays as it was. The
`cliff_pct` rule (windows of 3 intervals, 50%) FAILs the first, naming the interval where
the drop began: the one holding that instant, or the next when the delays began too late
in it to halve it; that interval is below half the best window. The steady drive PASSes.
"""
import glob
import os

from rbtest import COORD, Agent, Faulty, Tmp, check, free_port, h5, need_faultfs, run

h5py = h5()
need_faultfs()

CAMPAIGN = """name: cliff
insecure: true
wait: 20s
targets:
  - agent: a1
    drives: [{slow}, {steady}]
verdict: {{cliff_pct: 50, cliff_window: 3}}
phases:
  - name: read
    workload: {{rw: read, bs: 64k, iodepth: 4, runtime: 16s, interval: 1s, size: 16m}}
"""

with Tmp() as tmp:
    # every read waits 300 us (throughput bound by waits, not by a busy CPU), the slow
    # drive's 3 ms from 8 s on
    fs = [Faulty(tmp, "slow", "--size=16m", "--base-delay-us=300", "--delay-us=3000",
                 "--delay-every=1", "--delay-after=8", "--delay-mark=" + os.path.join(tmp, "mark")),
          Faulty(tmp, "steady", "--size=16m", "--base-delay-us=300")]
    try:
        slow, steady = (f.dev for f in fs)
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(slow=slow, steady=steady))
        ep = f"tcp://127.0.0.1:{free_port()}"
        agent = Agent(ep, "a1", [slow, steady], state_dir=os.path.join(tmp, "s"))
        try:
            r = run([COORD, "run", path, "--listen", ep, "--no-service",
                     "--results", os.path.join(tmp, "out")], timeout=120)
        finally:
            agent.stop()
        print(r.stdout, r.stderr)
        check(r.returncode == 5, f"exit {r.returncode}, want 5: the slow drive failed")
        with h5py.File(glob.glob(os.path.join(tmp, "out", "*.h5"))[0], "r") as h:
            drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
            rows = [(drives[int(v["drive"])], v["rule"].decode(), v["verdict"].decode(),
                     int(v["interval"]), v["reason"].decode()) for v in h["verdicts"][:]]
            sm = h["samples"][:]
        for row in rows:
            print(row)
        verdict = {p: v for p, rule, v, _, _ in rows if rule == "drive"}
        check(verdict == {slow: "FAIL", steady: "PASS"}, f"verdicts {verdict}")
        cliff = [(iv, reason) for p, rule, _, iv, reason in rows if p == slow and rule == "cliff_pct"]
        check(len(cliff) == 1, f"one cliff row for the slow drive: {cliff}")
        iv, reason = cliff[0]
        check(f"from interval {iv} on" in reason, f"the reason names it: {reason}")
        # the interval holding the first delayed read: the first whose end is after it
        began = int(open(os.path.join(tmp, "mark")).read())
        d = [k for k, v in drives.items() if v == slow][0]
        per, ends = {}, {}
        for s in sm[sm["drive"] == d]:
            per[int(s["interval"])] = per.get(int(s["interval"]), 0) + int(s["bytes"])
            ends[int(s["interval"])] = int(s["t_ns"])
        want = min(i for i, t in ends.items() if t > began)
        print(f"delays began in interval {want}; bytes per interval:",
              [per[i] for i in sorted(per)])
        check(iv in (want, want + 1), f"the cliff began at interval {iv}, the delays in {want}")
        series = [per.get(i, 0) for i in range(max(per) + 1)]
        best = max(sum(series[i:i + 3]) / 3 for i in range(0, len(series) - 3, 3))
        check(series[iv] < best / 2, f"interval {iv}: {series[iv]} bytes, best window {best:.0f}")
    finally:
        for f in fs:
            f.close()
print("ok")
