# SPDX-License-Identifier: MIT
"""rackbench report --html, rendered by a real browser: a fixture campaign with a
preconditioning phase, a queue-depth matrix, a curve and a steady state runs on four drives
of two agents; the page renders in headless Chromium with no console messages, every expected
chart is in the DOM as an SVG with one series per drive, and a screenshot of the page and
one of each kind of chart are kept (artifacts/report-KIND.png). A fill whose last interval
is 9 ms long is drawn with that interval merged into the one before it, as the Python
helper's rates() gives it. The Python helper's compare() is at the points --wide has rows
for. A synthetic file of 500 drives renders too, and the page's size is printed."""
import csv
import glob
import io
import os
import re
import shutil
import statistics
import sys

import numpy as np

import synth
from htmlpage import CHROMIUM, Charts, keep, keep_charts, render
from rbtest import COORD, SRC, Tmp, check, file_agents, free_port, h5, run, skip

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

if not CHROMIUM:
    skip("no chromium here (apt-get install chromium; scripts/install-deps.sh does)")


with Tmp() as tmp:
    port = free_port()
    ep = f"tcp://127.0.0.1:{port}"
    agents = file_agents(ep, tmp, "rep")
    try:
        r = run([COORD, "run", os.path.join(SRC, "tests", "campaigns", "report.yaml"),
                 "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        for a in agents:
            a.stop()
    check(r.returncode == 0, f"campaign: {r.returncode}\n{r.stderr}")
    f = glob.glob(os.path.join(tmp, "out", "report-fixture-*.h5"))[0]
    with h5py.File(f, "r") as h:
        drives = [f"{d['agent'].decode()}:{d['path'].decode()}" for d in h["drives"][:]]
        npoints = len(h["points"])
        steady = h["steady_state"][:]
    page = os.path.join(tmp, "report.html")
    r = run([COORD, "report", f, "--html", page, "--baseline", drives[0]])
    check(r.returncode == 0 and os.path.exists(page), f"report --html: {r.returncode} {r.stderr}")
    text = open(page).read()
    for bad in ("<script", "http://", "https://", "src="):
        check(bad not in text, f"the page is not self-contained: it has '{bad}'")

    r, console = render(page, tmp)
    check(r.returncode == 0, f"chromium: {r.returncode}\n{r.stderr[-2000:]}")
    check(not console, "console messages:\n" + "\n".join(console))
    p = Charts()
    p.feed(r.stdout)
    kinds = {}
    for c in p.charts:
        kinds.setdefault(c["kind"], []).append(c)
        # a curve's unthrottled run is a series of its own, marked apart
        names = sorted({x.replace(" (unthrottled)", "") for x in c["series"]})
        check(names == sorted(drives),
              f"a {c['kind']} chart has series {c['series']}, want one per drive {drives}")
    # one colour per drive on every chart, and no two drives alike (four drives here)
    for d in drives:
        check(len(p.colours.get(d, ())) == 1, f"{d} drawn in {p.colours.get(d)}")
    check(len({next(iter(p.colours[d])) for d in drives}) == len(drives), "a colour each")
    # randread over QD 1/4/16: throughput and latency; the curve; the precondition phase;
    # the steady state's tracking metric; and a bar chart per point
    want = {"qd-throughput": 1, "qd-latency": 1, "qd-p99": 1, "curve": 1, "timeseries": 1,
            "steady": 1, "bars": npoints}
    for k, n in want.items():
        check(len(kinds.get(k, [])) == n, f"{len(kinds.get(k, []))} '{k}' charts, want {n}")
    check(p.drive_rows == 1 + len(drives), f"drive table rows {p.drive_rows}")
    # a verdict per drive, the file's: steady at its round, or not steady (which round the
    # rate-limited reads settle in depends on the machine's load, not on the page)
    check(len(steady) == len(drives), f"{len(steady)} steady-state rows for {len(drives)} drives")
    for row in steady:
        verdict = (f"steady at round {int(row['steady_round'])}" if row["steady"]
                   else "not steady")
        check(re.search(re.escape(drives[int(row["drive"])]) + r"</td><td>steady</td><td>\w+"
                        r"</td><td class=\"(pass|bad)\">" + re.escape(verdict), text),
              f"the page's verdict for {drives[int(row['drive'])]}: want '{verdict}'")
    keep(page, tmp, "report")
    # each kind of chart alone, as a person sees it: a screenshot each among the artifacts
    shots = keep_charts(page, tmp, "report")
    check(sorted(shots) == sorted(want), f"screenshots of {sorted(shots)}, want {sorted(want)}")

    # the points compared, one selection for --wide and the Python helper: not the steady
    # state's rate-limited rounds, not the curve's throttled points
    r = run([COORD, "report", f, "--wide", "--by", "drive", "--format", "csv"])
    check(r.returncode == 0, f"--wide: {r.returncode} {r.stderr}")
    wide = {row[0] for row in list(csv.reader(io.StringIO(r.stdout)))[1:]}
    c = rb.compare(f, "rep-a1", by="agent")
    check(set(c["point"]) == wide and len(wide) >= 4, f"compare() at {sorted(set(c['point']))}, "
          f"--wide at {sorted(wide)}")

    # a fill's last interval 9 ms long, moving what the drive moves in 180 ms: drawn merged
    # into the interval before it, not as a spike twenty times the drive's rate; the
    # Python helper's rates() draws the same
    spike = os.path.join(tmp, "spike.h5")
    shutil.copy(f, spike)
    with h5py.File(spike, "r+") as h:
        pt = [p for p in h["points"][:] if p["phase"] == b"precondition"][0]
        res = [x for x in h["results"][:] if x["point"] == pt["point"] and x["drive"] == 0]
        res = max(res, key=lambda x: int(x["attempt"]))
        sm = h["samples"]
        rows = sm[:]
        mine = rows[(rows["point"] == pt["point"]) & (rows["drive"] == 0) &
                    (rows["attempt"] == res["attempt"])]
        ends = sorted({int(x["t_ns"]) for x in mine})
        last = mine[mine["t_ns"] == ends[-1]][0].copy()
        rate = statistics.median(
            sum(int(x["bytes"]) for x in mine if x["t_ns"] == e) / ((e - b) / 1e9)
            for b, e in zip([int(res["start_ns"])] + ends, ends))
        last["interval"] += 1
        last["t_ns"] = ends[-1] + 9_000_000
        last["bytes"] = int(rate * 0.18)
        last["ios"] = int(last["bytes"]) // (128 << 10)
        last["hist_n"] = 0
        sm.resize((len(rows) + 1,))
        sm[len(rows)] = last
        mine = np.concatenate([mine, [last]])
    # the rule, from the rows: directions added per interval, each over its own length, one
    # shorter than a tenth of the nominal 250 ms joined to the one before it
    per = {}
    for x in mine:
        e, b = per.get(int(x["interval"]), (0, 0))
        per[int(x["interval"])] = (max(e, int(x["t_ns"])), b + int(x["bytes"]))
    want, start = [], int(res["start_ns"])
    for e, b in sorted(per.values()):
        if want and e - want[-1][1] < 25_000_000:
            want[-1] = (want[-1][0], e, want[-1][2] + b)
        else:
            want.append((want[-1][1] if want else start, e, b))
    want = [b / ((e - s0) / 1e9) / 1e6 for s0, e, b in want]
    check(len(want) == len(per) - 1, f"{len(per)} intervals, {len(want)} drawn")
    page = os.path.join(tmp, "spike.html")
    r = run([COORD, "report", spike, "--html", page])
    check(r.returncode == 0, f"report: {r.returncode} {r.stderr}")
    chart = open(page).read().split('data-chart="timeseries"')[1].split("</svg>")[0]
    series = chart.split(f'data-series="{drives[0]}"')[1].split("</g>")[0]
    drawn = [float(v) for v in re.findall(r", MB/s ([\d.e+-]+)</title>", series)]
    check(len(drawn) == len(want) and all(abs(a - b) <= 5e-4 * b for a, b in zip(drawn, want)),
          f"the fill drawn as {drawn}, want {want}")
    # the 9 ms interval's own rate (twenty times the drive's) is nowhere on the chart; a
    # loaded machine's fill is uneven enough that "no value far above the median" is no test
    spike_mb_s = int(last["bytes"]) / 0.009 / 1e6
    check(all(abs(d - spike_mb_s) > 0.01 * spike_mb_s for d in drawn),
          f"the 9 ms interval drawn alone at {spike_mb_s:.1f} MB/s: {drawn}")
    got = rb.open(spike).rates()
    got = got[(got["point"] == pt["point"]) & (got["drive"] == 0)]
    check(len(got) == len(want) and all(abs(a - b) <= 1e-9 * b for a, b in zip(got["mb_s"], want)),
          f"rates(): {got['mb_s'].tolist()}, want {want}")

    # 500 drives of three models
    big = os.path.join(tmp, "big.h5")
    synth.widen(h5py, f, big, [{"model": f"MODEL-{i % 3}", "scale": 1 + (i % 7) / 100,
                                "shift": i % 5} for i in range(500)])
    page = os.path.join(tmp, "big.html")
    r = run([COORD, "report", big, "--html", page])
    check(r.returncode == 0, f"500 drives: {r.returncode} {r.stderr}")
    r, console = render(page, tmp)
    check(r.returncode == 0 and not console, f"500 drives render: {r.returncode} {console}")
    p = Charts()
    p.feed(r.stdout)
    check(p.drive_rows == 501, f"500-drive table has {p.drive_rows - 1} rows")
    qd = [c for c in p.charts if c["kind"] == "qd-throughput"]
    check(qd and len(qd[0]["series"]) == 500, "500 series in the QD chart")
    print(f"500 drives x {npoints} points: page {os.path.getsize(page) / 1e6:.1f} MB")
print("ok")
