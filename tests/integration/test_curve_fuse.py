# SPDX-License-Identifier: MIT
"""A vdbench-style curve against a known answer: a loop device over a faultfs (FUSE) file
whose every read waits 1 ms, served one at a time -- a device that cannot exceed about
1,000 IOPS. The curve first runs unthrottled and records the maximum, then each drive
runs at 10%, 50% and 80% of its own maximum: the rate sent (results.rate_iops) is that
percentage, and the achieved IOPS is within 2% of it."""
import glob
import os

from rbtest import COORD, Agent, Faulty, Tmp, check, free_port, h5, need_faultfs, run

h5py = h5()
need_faultfs()

with Tmp() as tmp:
    f = Faulty(tmp, "slow", "--size=16m", "--delay-us=1000", "--delay-every=1")
    ep = f"tcp://127.0.0.1:{free_port()}"
    camp = os.path.join(tmp, "curve.yaml")
    with open(camp, "w") as c:
        c.write(f"""name: curve
insecure: true
wait: 20s
targets:
  - agent: slow
    drives: [{f.dev}]
phases:
  - name: curve
    workload: {{rw: randread, bs: 4k, iodepth: 4, runtime: 3s, interval: 1s}}
    curve: [10, 50, 80]
""")
    a = Agent(ep, "slow", [f.dev], cwd=tmp, state_dir=os.path.join(tmp, "state"))
    try:
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        a.stop()
        f.close()
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"run: {r.returncode}")
    path = glob.glob(os.path.join(tmp, "out", "curve-*.h5"))[0]
    with h5py.File(path, "r") as h:
        pts = {int(p["point"]): p for p in h["points"][:]}
        res = {int(x["point"]): x for x in h["results"][:]}
    check(len(pts) == 4 and len(res) == 4, f"{len(pts)} points, {len(res)} results")
    mx = [p for p in pts.values() if p["curve_pct"] == 0]
    check(len(mx) == 1 and mx[0]["name"].endswith(b"curve=max"), "one unthrottled point")
    top = float(res[int(mx[0]["point"])]["read_iops"])
    # one read at a time, each at least 1 ms: the maximum is below 1,000 IOPS
    check(300 < top < 1000, f"maximum {top:.0f} IOPS; the device's floor allows < 1000")
    print(f"maximum: {top:.1f} IOPS")
    for p in pts.values():
        pct = float(p["curve_pct"])
        if pct == 0:
            continue
        x = res[int(p["point"])]
        want = round(top * pct / 100)
        check(x["rate_iops"] == want, f"{pct}%: rate {x['rate_iops']}, want {want}")
        got = float(x["read_iops"])
        print(f"{pct:.0f}%: target {want}, achieved {got:.1f} ({got / want:.4f})")
        check(abs(got / want - 1) <= 0.02, f"{pct}%: achieved {got:.1f}, target {want}")
print("ok")
