# SPDX-License-Identifier: MIT
"""Write amplification per point, end to end through the admin seam's recorded pages: a
loop device the agent reads NVMe pages for from a folder (--nvme-pages) -- Identify
Controller with FDP (CTRATT bit 19), Identify Namespace in endurance group 1, and the FDP
statistics log (22h) as it reads at each point's start and end -- runs a campaign of two
write points. Each point's row holds the host and media bytes its statistics moved by and
their ratio, the WAF the pages encode (2.4, then 1.0); `rackbench report` prints them per
point and its page charts them, a chart a point. A drive without FDP (no pages) has NaN there, not 0.

The FDP events logs (23h) too, the host's (LSP 1: NAME.log-23-1.N) and the controller's
(NAME.log-23.N), read at each point's start and end: the first point's writes carry an
invalid placement id (5), the second sees the media reallocate 8 and 16 blocks. The
results file's fdp_events table holds exactly the events logged during each point (not
the one logged before the run), and the report lists them by point and type."""
import math
import os
import struct

from rbtest import COORD, LoopDevices, Tmp, check, h5, paged_run, run

h5py = h5()

CAMPAIGN = """name: fdp-waf
insecure: true
destructive: true
wait: 20s
targets:
  - agent: a1
    drives: [{dev}]
defaults: {{rw: write, bs: 64k, size: 8m, passes: 1, iodepth: 4}}
phases:
  - name: first
    workload: {{}}
  - name: second
    workload: {{}}
"""


def page(size, fields):
    """A page of size bytes, each (offset, struct format, value) put in it."""
    b = bytearray(size)
    for off, fmt, v in fields:
        struct.pack_into(fmt, b, off, v)
    return bytes(b)


def events(*evs):
    """An FDP events log of 4 KiB: the count at 0, then 64 bytes an event: (type, flags,
    pid, timestamp ms, nlbam, lba) with the LBA valid when given."""
    b = bytearray(4096)
    struct.pack_into("<I", b, 0, len(evs))
    for i, (typ, flags, pid, ts, nlbam, lba) in enumerate(evs):
        o = 64 + 64 * i
        b[o], b[o + 1] = typ, flags
        struct.pack_into("<H", b, o + 2, pid)
        struct.pack_into("<Q", b, o + 4, ts)  # 6 bytes of it are the stamp
        b[o + 10] = 0
        if typ == 0x80:
            b[o + 16] = 1 if lba is not None else 0
            struct.pack_into("<HQ", b, o + 18, nlbam, lba or 0)
    return bytes(b)


def stats(host, media):
    """An FDP statistics log: host bytes at 0, media bytes at 16 (16-byte counters)."""
    return page(64, [(0, "<Q", host), (16, "<Q", media)])


with Tmp() as tmp, LoopDevices(tmp, 1, size=32 << 20) as (dev,):
    pages = os.path.join(tmp, "pages")
    os.mkdir(pages)
    name = os.path.basename(dev)

    def put(what, data):
        with open(os.path.join(pages, f"{name}.{what}"), "wb") as f:
            f.write(data)

    put("id-ctrl", page(4096, [(96, "<I", 1 << 19), (263, "B", 0)]))
    put("id-ns", page(4096, [(0, "<Q", 65536), (8, "<Q", 65536), (102, "<H", 1),
                            (128, "<I", 9 << 16)]))
    # read at each point's start and end, in turn: point 1 host +0.5 GB, media +1.2 GB;
    # point 2 +2 GB each
    for i, (h, m) in enumerate([(1000000000, 2000000000), (1500000000, 3200000000),
                                (2000000000, 3500000000), (4000000000, 5500000000)]):
        put(f"log-22.{i + 1}", stats(h, m))
    # the host's events: one before the run, an invalid placement id in the first point;
    # the controller's: media reallocated twice in the second
    before, bad_pid = (0, 0, 0, 1000, 0, None), (3, 1, 5, 2000, 0, None)
    moved = [(0x80, 0, 0, 3000, 8, 4096), (0x80, 0, 0, 3001, 16, None)]
    for i, evs in enumerate([[before], [before, bad_pid], [before, bad_pid],
                             [before, bad_pid]]):
        put(f"log-23-1.{i + 1}", events(*evs))
    for i, evs in enumerate([[], [], [], moved]):
        put(f"log-23.{i + 1}", events(*evs))
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(dev=dev))
    r, agent, f = paged_run(path, dev, pages, os.path.join(tmp, "out"), os.path.join(tmp, "s"))
    check(r.returncode == 0 and f, f"the campaign: exit {r.returncode}\n{agent.output()[-2000:]}")
    with h5py.File(f, "r") as h:
        res = sorted(h["results"][:], key=lambda x: int(x["point"]))
    got = [(float(x["fdp_host_bytes"]), float(x["fdp_media_bytes"]), float(x["waf"]))
           for x in res]
    check(got == [(5e8, 1.2e9, 2.4), (2e9, 2e9, 1.0)], f"FDP per point: {got}")
    with h5py.File(f, "r") as h:
        ev = [(int(x["point"]), int(x["type"]), int(x["pid"]), int(x["flags"]),
               int(x["timestamp_ms"]), int(x["nlbam"]), int(x["lba_valid"]), int(x["lba"]))
              for x in h["fdp_events"][:]]
    check(sorted(ev) == [(0, 3, 5, 1, 2000, 0, 0, 0), (1, 0x80, 0, 0, 3000, 8, 1, 4096),
                         (1, 0x80, 0, 0, 3001, 16, 0, 0)], f"the events of each point: {ev}")
    r = run([COORD, "report", f])
    table = r.stdout[r.stdout.find("Write amplification"):]
    rows = [x.split() for x in table.split("\n\n")[0].splitlines()[2:] if x.strip()]
    check(r.returncode == 0 and len(rows) == 2 and [x[-2] for x in rows] == ["2.40", "1.00"]
          and [x[-4] for x in rows] == ["500.0", "2000.0"] and
          all(x[-1] == "FDP" for x in rows), f"report: {table[:800]}")
    sec = r.stdout[r.stdout.find("FDP events the drives logged"):]
    lines = [x.split() for x in sec.splitlines()[2:4]]
    check(len(lines) == 2 and lines[0][0] == "first" and lines[0][-6:] == [
        "invalid", "placement", "id", "1", "0", "5"] and lines[1][0] == "second" and
          lines[1][-5:] == ["media", "reallocated", "2", "24", "-"],
          f"the report's events: {sec[:600]}")
    # the page: a chart a point, its bar the WAF
    page = os.path.join(tmp, "p.html")
    r = run([COORD, "report", f, "--html", page])
    html = open(page).read() if r.returncode == 0 else ""
    charts = html.split('data-chart="waf"')[1:]
    check(len(charts) == 2 and "2.4" in charts[0].split("</svg>")[0] and
          "1" in charts[1].split("</svg>")[0], f"the WAF charts: {r.returncode} {len(charts)}")
    check('data-section="fdp-events"' in html, "the page lists the events")

    # no pages for the drive: no FDP, NaN in its rows
    for x in os.listdir(pages):
        os.unlink(os.path.join(pages, x))
    r, agent, f = paged_run(path, dev, pages, os.path.join(tmp, "out2"), os.path.join(tmp, "s"))
    check(r.returncode == 0 and f, f"the campaign without FDP: exit {r.returncode}")
    with h5py.File(f, "r") as h:
        res = h["results"][:]
    check(all(math.isnan(float(x["waf"])) and math.isnan(float(x["fdp_host_bytes"]))
              for x in res), f"no FDP: {[float(x['waf']) for x in res]}")
    check("Write amplification" not in run([COORD, "report", f]).stdout, "no FDP table")
print("ok")
