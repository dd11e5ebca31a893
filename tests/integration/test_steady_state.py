# SPDX-License-Identifier: MIT
"""Steady state end to end: a steady-state phase over a two-point matrix, rate-limited so
its tracking IOPS are the same every round, on two drives of one agent. The phase stops at
the first round that closes a steady window by the stored tracking rows (round 3 with window
3 when the rate holds), not at max_rounds;
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

def snia_steady(v):
    """SNIA PTS over a window: max - min <= 20% of the average, |slope| x (n - 1) <= 10%."""
    n, avg = len(v), sum(v) / len(v)
    xm = (n - 1) / 2
    slope = sum((i - xm) * (y - avg) for i, y in enumerate(v)) / sum((i - xm) ** 2 for i in range(n))
    return max(v) - min(v) <= 0.2 * avg and abs(slope) * (n - 1) <= 0.1 * avg


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
    # where the phase had to stop, from the tracking rows as stored: the first round that
    # closes a steady window on both drives (round 3 when the rate holds, as it does on a
    # quiet machine; a loaded one may settle later), else max_rounds
    tracking = {}
    for p in pts:
        if p["track"]:
            for x in res[res["point"] == p["point"]]:
                tracking.setdefault(int(x["drive"]), {})[int(p["round"])] = \
                    float(x["read_iops"]) + float(x["write_iops"])
    stop, steady = 6, False
    for last in range(3, 7):
        if all(last in v and snia_steady([v[i] for i in range(last - 2, last + 1)])
               for v in tracking.values()) and len(tracking) == 2:
            stop, steady = last, True
            break
    print(f"tracking IOPS {tracking}: the phase stops at round {stop}, steady {steady}")
    check(sorted({int(p["round"]) for p in pts}) == list(range(1, stop + 1)),
          f"rounds {set(pts['round'])}, want 1..{stop}")
    check(len(pts) == 2 * stop, f"{len(pts)} point rows, want 2 per round x {stop} rounds")
    check(sum(int(p["track"]) for p in pts) == stop, "one tracking point per round")
    if steady:
        check(f"steady at round {stop} (window {stop - 2}-{stop}" in r.stderr,
              "the verdict is reported")
    for p in pts:
        check(p["name"].endswith(b"round=%d" % p["round"]), f"name of {p['name']}")
        check((b"rwmixread=100" in p["name"]) == bool(p["track"]), f"track flag of {p['name']}")
    check(len(ss) == 2, f"{len(ss)} verdict rows, want one per drive")
    for s in ss:
        check(s["steady"] == steady and s["steady_round"] == (stop if steady else 0) and
              s["rounds"] == stop and s["window"] == 3 and s["metric"] == b"iops",
              f"verdict {s}")
        if not steady:
            continue
        # the verdict's average is the tracking points' rows added up (the window's rounds),
        # near the rate they were held to and never above it (a loaded host starts a short
        # point late, which lowers it)
        track = {int(p["point"]) for p in pts if p["track"] and stop - 2 <= p["round"] <= stop}
        rows = [x for x in res if int(x["point"]) in track and x["drive"] == s["drive"]]
        mean = sum(float(x["read_iops"]) + float(x["write_iops"]) for x in rows) / len(rows)
        check(len(rows) == 3 and abs(s["avg"] - mean) <= 1e-6 * mean,
              f"window average {s['avg']} is the rows' {mean}")
        check(300 <= s["avg"] <= 420 and s["range_ok"] and s["slope_ok"], f"window {s}")
    # a row is flagged steady (1) when its round is in the window that closed the phase,
    # not (2) otherwise: all of them when steady state came at round 3, round 1's not at 4
    rnd = {int(p["point"]): int(p["round"]) for p in pts}
    want = [1 if steady and stop - 2 <= rnd[int(x["point"])] <= stop else 2 for x in res]
    check(len(res) == 4 * stop and [int(x["steady"]) for x in res] == want,
          f"steady flags {res['steady']}, want {want}")
    check(all(x["rate_iops"] == 400 for x in res), "rate_iops recorded")
    # idle: 500 ms between one point's end and the next one's start
    order = sorted(res, key=lambda x: x["start_ns"])
    starts = sorted({int(x["start_ns"]) // 10**6 for x in order})
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    check(len(gaps) == 2 * stop - 1 and min(gaps) >= 700 + 500, f"gaps between points {gaps} ms")
print("ok")
