# SPDX-License-Identifier: MIT
"""Steady state end to end: a steady-state phase over a two-point matrix, rate-limited so
its tracking IOPS are the same every round, on two drives of one agent. The phase stops at
the first round that closes a steady window (round 3 with window 3), not at max_rounds;
the points table has only the rounds run; every drive's verdict is in steady_state and
every result row of the phase says it was measured in steady state. The phase's idle time
separates its points. `plan` prints the phase's range of rounds. A rolling steady state
stops a 20 s point once every drive's last 5 intervals are steady, and says so."""
import glob
import os

from rbtest import COORD, Tmp, check, file_agents, free_port, h5, run

h5py = h5()

CAMPAIGN = """name: steady
insecure: true
destructive: true
wait: 20s
defaults: {size: 16m, runtime: 700ms, interval: 350ms}
targets:
  - agent: ss-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
phases:
  - name: ss
    workload: {rw: randread, bs: 4k, iodepth: 2, rate_iops: 400}
    matrix: {rwmixread: [100, 70]}
    steady_state: {max_rounds: 6, window: 3, track: {rwmixread: 100}, metric: iops}
    idle: 500ms
  - name: roll
    workload: {rw: randread, bs: 4k, rate_iops: 500, runtime: 20s, interval: 200ms}
    steady_state: {rolling: true, window: 5}
"""

with Tmp() as tmp:
    camp = os.path.join(tmp, "steady.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    r = run([COORD, "plan", camp])
    check(r.returncode == 0, f"plan: {r.returncode} {r.stderr}")
    check("phase ss: steady state over 2 point(s) per round, 3 to 6 rounds: 6 to 12 points"
          in r.stdout, r.stdout)
    os.mkdir(os.path.join(tmp, "a1"))
    ep = f"tcp://127.0.0.1:{free_port()}"
    (a,) = file_agents(ep, tmp, "ss", ("a1",))
    try:
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        a.stop()
    print(r.stderr)
    check(r.returncode == 0, f"run: {r.returncode}")
    check("steady at round 3 (window 1-3" in r.stderr, "the verdict is reported")
    path = glob.glob(os.path.join(tmp, "out", "steady-*.h5"))[0]
    with h5py.File(path, "r") as h:
        allpts = h["points"][:]
        allres = h["results"][:]
        allss = h["steady_state"][:]
    roll_pt = [int(p["point"]) for p in allpts if p["phase"] == b"roll"]
    check(len(roll_pt) == 1, f"one rolling point, got {roll_pt}")
    pts = allpts[allpts["phase"] == b"ss"]
    res = allres[allres["point"] != roll_pt[0]]
    ss = allss[allss["rolling"] == 0]
    roll_res = allres[allres["point"] == roll_pt[0]]
    roll_ss = allss[allss["rolling"] == 1]
    check(len(roll_ss) == 2 and all(x["steady"] == 1 and x["point"] == roll_pt[0] and
                                    x["window"] == 5 and x["steady_round"] >= 5 for x in roll_ss),
          f"rolling verdicts {roll_ss}")
    check(len(roll_res) == 2 and all(x["steady"] == 1 and x["elapsed_ns"] < 8e9 for x in roll_res),
          f"the rolling point stopped early: {roll_res['elapsed_ns']}")
    check("every drive is steady; stopping it" in r.stderr, "the stop is reported")
    check(sorted({int(p["round"]) for p in pts}) == [1, 2, 3], f"rounds {set(pts['round'])}")
    check(len(pts) == 6, f"{len(pts)} point rows, want 2 per round x 3 rounds")
    check(sum(int(p["track"]) for p in pts) == 3, "one tracking point per round")
    for p in pts:
        check(p["name"].endswith(b"round=%d" % p["round"]), f"name of {p['name']}")
        check((b"rwmixread=100" in p["name"]) == bool(p["track"]), f"track flag of {p['name']}")
    check(len(ss) == 2, f"{len(ss)} verdict rows, want one per drive")
    for s in ss:
        check(s["steady"] == 1 and s["steady_round"] == 3 and s["rounds"] == 3 and
              s["window"] == 3 and s["metric"] == b"iops", f"verdict {s}")
        # the verdict's average is the tracking points' rows added up (the window's rounds),
        # and near the rate they were held to (a loaded host starts a short point late)
        track = {int(p["point"]) for p in pts if p["track"] and 1 <= p["round"] <= 3}
        rows = [x for x in res if int(x["point"]) in track and x["drive"] == s["drive"]]
        mean = sum(float(x["read_iops"]) + float(x["write_iops"]) for x in rows) / len(rows)
        check(len(rows) == 3 and abs(s["avg"] - mean) <= 1e-6 * mean,
              f"window average {s['avg']} is the rows' {mean}")
        check(abs(s["avg"] - 400) < 40 and s["range_ok"] and s["slope_ok"], f"window {s}")
    check(len(res) == 12 and all(x["steady"] == 1 for x in res), f"steady flags {res['steady']}")
    check(all(x["rate_iops"] == 400 for x in res), "rate_iops recorded")
    # idle: 500 ms between one point's end and the next one's start
    order = sorted(res, key=lambda x: x["start_ns"])
    starts = sorted({int(x["start_ns"]) // 10**6 for x in order})
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    check(len(gaps) == 5 and min(gaps) >= 700 + 500, f"gaps between points {gaps} ms")
print("ok")
