# SPDX-License-Identifier: MIT
"""rackbench report over three racks' results files (docs/report.md, "The fleet summary"):
the demo's file cloned into one file per rack, the drives' agents labelled rack=r1, r2, r3
(the third file also holding one drive of r1), r1's and r2's drives judged (one FAIL in
r2), r3's not judged and its latencies made slower. The fleet section comes before the
rows; each rack's files, drives and verdicts are what the files' drives and verdicts
tables hold, its verdict counts add up to its drives; the slowest rack named first is
r3; the fleet-wide p50 and p99 at every point equal those of the files' histograms added
in Python (every drive's latest attempt); Markdown and the page say the same; one rack's
file shows the section only with --by rack."""
import glob
import os
import re
import sys

import layout  # noqa: F401 -- synth's
import synth
from rbtest import COORD, SRC, Tmp, check, h5, run

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402

# per file: (rack, shift of its latency buckets, verdict) of each drive
FILES = {
    "r1": [("r1", 0, "PASS")] * 4,
    "r2": [("r2", 1, "PASS"), ("r2", 2, "FAIL"), ("r2", 1, "PASS"), ("r2", 0, "PASS")],
    "r3": [("r3", 60, None)] * 3 + [("r1", 0, None)],
}


def section(text, start, end):
    """The lines of text from the one starting with start to the next blank line."""
    lines = text.splitlines()
    i = next(k for k, x in enumerate(lines) if x.startswith(start))
    out = []
    for x in lines[i + 1:]:
        if not x.strip() or (end and x.startswith(end)):
            break
        out.append(x)
    return out


def latest_hists(path):
    """Per point name and direction, the dense counts of every drive's latest attempt."""
    res = rb.open(path)
    pts = res.table("points")
    results = res.table("results")
    out = {}
    for _, p in pts.iterrows():
        if not rb.comparable(p.to_dict()):
            continue
        for d in sorted(set(results.drive)):
            att = results[(results.drive == d) & (results.point == p["point"])].attempt.max()
            for direction in (0, 1):
                c = res.histogram(drive=d, point=p["point"], attempt=att, direction=direction)
                key = (p["name"], direction)
                out[key] = out[key] + c if key in out else c
    return out


with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    base = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    paths = []
    for name, drives in FILES.items():
        f = os.path.join(tmp, f"rack-{name}.h5")
        spec = []
        for i, (rack, shift, verdict) in enumerate(drives):
            d = {"model": "ACME X1", "scale": 1.0 - 0.01 * i, "shift": shift + i,
                 "labels": f"zone=z1,rack={rack}"}
            if verdict:
                d["verdict"] = verdict
            spec.append(d)
        synth.widen(h5py, base, f, spec)
        paths.append(f)

    # what the files hold: each rack's drives, files and verdicts
    want = {}
    for fi, f in enumerate(paths):
        with h5py.File(f, "r") as h:
            verdicts = {}
            if "verdicts" in h:
                verdicts = {int(v["drive"]): v["verdict"].decode() for v in h["verdicts"][:]
                            if v["rule"] == b"drive"}
            for dr in h["drives"][:]:
                rack = "rack=" + dict(kv.split("=") for kv in
                                      dr["labels"].decode().split(","))["rack"]
                w = want.setdefault(rack, {"files": set(), "drives": 0, "verdicts": {}})
                w["files"].add(fi)
                w["drives"] += 1
                v = verdicts.get(int(dr["drive"]), "no verdict")
                w["verdicts"][v] = w["verdicts"].get(v, 0) + 1

    def words(counts):
        if not any(k != "no verdict" for k in counts):
            return "no verdicts"
        order = ["FAIL", "INCOMPLETE", "PASS", "no verdict"]
        return ", ".join(f"{counts[k]} {k}" for k in order if counts.get(k))

    r = run([COORD, "report", *paths])
    check(r.returncode == 5, f"report: exit {r.returncode}, want 5 (a FAIL)\n{r.stderr}")
    out = r.stdout
    check("fleet: 3 rack(s) by the agents' label rack, 3 file(s), 12 drive(s)" in out,
          f"the section's heading:\n{out[:2000]}")
    check(out.index("fleet: 3 rack(s)") < out.index("rd mean"),
          "the fleet section comes before the rows")
    rows = section(out, "fleet: ", None)[1:]  # past the column heads
    got = {}
    for line in rows:
        m = re.match(r"(\S.*?)\s+(\d+)\s+(\d+)  (.*)$", line)
        check(m, f"a rack row: {line!r}")
        got[m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4))
    check(set(got) == set(want) | {"fleet"}, f"racks {sorted(got)}, want {sorted(want)}")
    for rack, w in want.items():
        check(got[rack] == (len(w["files"]), w["drives"], words(w["verdicts"])),
              f"{rack}: {got[rack]}, want {len(w['files'])} files, {w['drives']} drives, "
              f"{words(w['verdicts'])}")
    total = {}
    for w in want.values():
        for k, n in w["verdicts"].items():
            total[k] = total.get(k, 0) + n
    check(got["fleet"] == (3, 12, words(total)), f"the fleet row: {got['fleet']}")
    check(sum(n for _, n, _ in (got[k] for k in want)) == 12, "the racks' drives add up")

    # the slowest rack named first
    slow = section(out, "slowest racks", None)
    check(slow and slow[0].startswith("  1. rack=r3: +"), f"slowest first: {slow}")
    check(len(slow) == 3, f"three racks ranked: {slow}")

    # the fleet's percentiles: the files' histograms added in Python
    merged = {}
    for f in paths:
        for k, c in latest_hists(f).items():
            merged[k] = merged[k] + c if k in merged else c
    names = sorted({k[0] for k in merged})
    check(len(names) == 4, f"the demo's four points: {names}")
    table = section(out, "racks per point", None)[1:]
    for name in names:
        line = [x for x in table if x.startswith(f"{name:<34.34} {'fleet':<20.20} ")]
        check(len(line) == 1, f"{name}: one fleet row in {table}")
        cells = line[0][56:].split()
        check(cells[0] == "12", f"{name}: the fleet's drives {cells[0]}")
        for direction, col in ((0, 3), (1, 5)):
            c = merged[(name, direction)]
            for pct, off in ((50, 0), (99, 1)):
                w = f"{rb.percentile(c, pct) / 1e3:.1f}" if c.sum() else "-"
                check(cells[col + off] == w, f"{name} dir {direction} p{pct}: report "
                      f"{cells[col + off]}, the histograms added {w}")

    # Markdown: the same rows
    r = run([COORD, "report", *paths, "--format", "markdown"])
    check(r.returncode == 5, f"markdown: exit {r.returncode}")
    check("### fleet: 3 rack(s)" in r.stdout, "the Markdown heading")
    for rack, w in want.items():
        row = f"| {rack} | {len(w['files'])} | {w['drives']} | {words(w['verdicts'])} |"
        check(row in r.stdout, f"Markdown row {row}")
    check("\n1. rack=r3: +" in r.stdout, "Markdown: the slowest rack first")

    # the page: the racks above the verdicts, r3 first among the slowest
    page = os.path.join(tmp, "fleet.html")
    r = run([COORD, "report", *paths, "--html", page])
    check(r.returncode == 5, f"html: exit {r.returncode} {r.stderr}")
    text = open(page).read()
    check(">Racks</h2>" in text and text.index(">Racks</h2>") < text.index(">Verdicts</h2>"),
          "the page's racks above its verdicts")
    for rack, w in want.items():
        m = re.search(r'<tr data-rack="%s"><td>[^<]*</td><td class="n">(\d+)</td>'
                      r'<td class="n">(\d+)</td>(.*?)</tr>' % re.escape(rack), text)
        check(m and (int(m.group(1)), int(m.group(2))) == (len(w["files"]), w["drives"]),
              f"the page's row of {rack}")
        cells = dict(re.findall(r'data-verdict="([^"]+)">(\d+)<', m.group(3)))
        check(sum(int(n) for n in cells.values()) == w["drives"],
              f"{rack}: the page's verdicts add up to its drives: {cells}")
    check('<ol class="slowest">\n<li data-rack="rack=r3">' in text, "the page: r3 first")

    # one rack's file: no section unless --by rack
    r = run([COORD, "report", paths[0]])
    check("fleet: " not in r.stdout, "one rack: no fleet section")
    r = run([COORD, "report", paths[0], "--by", "rack"])
    check("fleet: 1 rack(s)" in r.stdout, f"--by rack: the section\n{r.stdout[:1500]}")
print("ok")
