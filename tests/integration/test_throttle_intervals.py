# SPDX-License-Identifier: MIT
"""Thermal throttling on the interval timeline, end to end through the admin seam's recorded
pages: a loop device whose SMART log the agent reads from a folder (--nvme-pages), a page
per reading in turn (NAME.smart.1, .2, ...), its thermal-throttling counters (TMT1
transitions and seconds) rising once, from the 6th reading on. The point reads health
every sample interval (health_interval = interval). The results file's health table holds
the rise; `rackbench report` names the drive and point under "Thermal throttling within
points" with exactly the intervals the rule gives from the file's own rows (an interval at
least half of which lies between the two readings that saw the rise), and its page has the
same table. A drive whose counters never move has no such row.

Its OCP SMART extended log (C0h) too, read when the point's targets open (NAME.log-c0.1)
and when it ends (.2): 2 throttle events, throttle level 1 at the end, 3 PCIe correctable
errors, no link retrain, 2 power state changes. The results row holds those rises; the
report's C0h table prints them beside SMART's throttling ("rose": the two witnesses
agree). In the run whose SMART counters never move, the same C0h pages make the table say
"SMART's throttling counters did not rise"."""
import os
import struct

from rbtest import COORD, LoopDevices, Tmp, check, h5, paged_run, run

h5py = h5()

CAMPAIGN = """name: throttle
insecure: true
destructive: true
wait: 20s
targets:
  - agent: a1
    drives: [{dev}]
phases:
  - name: hot
    workload: {{rw: randread, bs: 4k, iodepth: 4, size: 8m, runtime: 3s, interval: 250ms,
               health_interval: 250ms}}
"""


def smart(transitions, seconds):
    """A SMART log of 512 bytes: 40 C, TMT1 transitions at 216, its seconds at 224."""
    b = bytearray(512)
    struct.pack_into("<H", b, 1, 313)
    struct.pack_into("<I", b, 216, transitions)
    struct.pack_into("<I", b, 224, seconds)
    return bytes(b)


C0_GUID = bytes([0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4,
                 0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5, 0xaf])


def c0(throttle, level, pcie, retrains, pstates):
    """An OCP SMART extended page: thermal throttle count (96) and status (97), PCIe
    correctable errors (104), link retrains (192), power state changes (200)."""
    b = bytearray(512)
    b[96], b[97] = throttle, level
    struct.pack_into("<Q", b, 104, pcie)
    struct.pack_into("<Q", b, 192, retrains)
    struct.pack_into("<Q", b, 200, pstates)
    b[496:512] = C0_GUID
    return bytes(b)


def c0_line(text):
    sec = text[text.find("The drive's own counters over each point (OCP C0h)"):]
    print(sec[:400])
    return next((x for x in sec.splitlines() if x.startswith("hot ")), "")


def marked(health, samples, start_ns, point=0, attempt=0):
    """The rule, from the file's rows: interval i spans (end[i-1], end[i]]; a rise between
    two consecutive readings marks the intervals at least half of which lie between them."""
    ends = {}
    for s in samples:
        if int(s["point"]) == point and int(s["attempt"]) == attempt:
            i = int(s["interval"])
            ends[i] = max(ends.get(i, 0), int(s["t_ns"]))
    n = max(ends) + 1
    hs = [h for h in health if int(h["point"]) == point and int(h["attempt"]) == attempt and
          int(h["member"]) == 0 and int(h["nvme"])]
    mark = set()
    for a, b in zip(hs, hs[1:]):
        if (b["throttle_transitions"] > a["throttle_transitions"] or
                b["throttle_seconds"] > a["throttle_seconds"]):
            for i in range(n):
                lo = max(ends[i - 1] if i else start_ns, int(a["t_ns"]))
                hi = min(ends[i], int(b["t_ns"]))
                if hi > lo and 2 * (hi - lo) >= ends[i] - (ends[i - 1] if i else start_ns):
                    mark.add(i)
    return sorted(mark), n


def ranges(v):
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(f"{v[i]}-{v[j]}" if j > i else f"{v[i]}")
        i = j + 1
    return ", ".join(out)


with Tmp() as tmp, LoopDevices(tmp, 1, size=16 << 20) as (dev,):
    pages = os.path.join(tmp, "pages")
    os.mkdir(pages)
    name = os.path.basename(dev)
    for k in range(1, 60):
        hot = k >= 6
        with open(os.path.join(pages, f"{name}.smart.{k}"), "wb") as f:
            f.write(smart(1 if hot else 0, 2 if hot else 0))
    with open(os.path.join(pages, f"{name}.smart"), "wb") as f:
        f.write(smart(1, 2))
    for k, page in ((1, c0(4, 0, 10, 2, 7)), (2, c0(6, 1, 13, 2, 9))):
        with open(os.path.join(pages, f"{name}.log-c0.{k}"), "wb") as f:
            f.write(page)
    for what in ("id-ctrl", "id-ns"):
        with open(os.path.join(pages, f"{name}.{what}"), "wb") as f:
            f.write(bytes(4096))
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(dev=dev))
    def campaign(out):
        """The campaign run once by an agent reading the pages; its results file."""
        r, agent, f = paged_run(path, dev, pages, os.path.join(tmp, out),
                                os.path.join(tmp, out + "-s"))
        check(r.returncode == 0 and f, f"{out}: exit {r.returncode}\n{agent.output()[-2000:]}")
        return f

    f = campaign("out")
    with h5py.File(f, "r") as h:
        health, samples = h["health"][:], h["samples"][:]
        start = int(h["results"][0]["start_ns"])
    during = [h for h in health if int(h["when"]) == 1]
    check(len(during) >= 4, f"health read during the point: {len(during)} reading(s)")
    want, n = marked(health, samples, start)
    check(want, f"the rise marks some interval: {[float(x['throttle_transitions']) for x in health]}")
    text = run([COORD, "report", f]).stdout
    sec = text[text.find("Thermal throttling within points"):]
    print(sec[:500])
    check(sec and "hot" in sec and f"{len(want)} of {n}" in sec and
          sec.splitlines()[2].rstrip().endswith(ranges(want)),
          f"report names intervals {ranges(want)} of {n}: {sec[:600]}")
    with h5py.File(f, "r") as h:
        row = h["results"][0]
    got = [float(row[c]) for c in ("ocp_throttle_events", "ocp_throttle_status",
                                   "ocp_pcie_correctable", "ocp_link_retrains",
                                   "ocp_power_state_changes")]
    check(got == [2, 1, 3, 0, 2], f"C0h's rises over the point: {got}")
    line = c0_line(text).split()
    check(line[-8:] == ["2", "rose", "1", "3", "-", "0", "2", "agree"],
          f"the report's C0h row: {line}")
    page = os.path.join(tmp, "p.html")
    run([COORD, "report", f, "--html", page])
    html = open(page).read()
    check('data-section="throttling"' in html and f"<td>{ranges(want)}</td>" in html,
          "the page has the table")
    check('data-section="ocp-counters"' in html, "the page has the C0h table")
    # counters that never move: no row
    for k in range(1, 60):
        os.remove(os.path.join(pages, f"{name}.smart.{k}"))
    f = campaign("out2")
    text = run([COORD, "report", f]).stdout
    check("Thermal throttling within points" not in text, "a drive that never throttled")
    check(c0_line(text).endswith("SMART's throttling counters did not rise"),
          "C0h's throttle events without SMART's: the witnesses disagree")
print("ok")
