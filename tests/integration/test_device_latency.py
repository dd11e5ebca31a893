# SPDX-License-Identifier: MIT
"""The drive's own latency beside the host's, end to end through the admin seam's recorded
pages: a faultfs drive that answers each read after 6 ms, whose OCP Latency Monitor log
(C3h: the OCP GUID, thresholds 5, 10, 20 and 40 ms, four active buckets of read, write and
trim counters) the agent reads from a folder (--nvme-pages) when the point's targets open
(NAME.log-c3.1) and when it ends (.2). The results file's device_latency table holds, for
each of the four buckets, exactly the counters' rise the two pages encode, and beside them
the host's reads in the same range: every read of the point took 6 ms or more, so the host's
counts add up to the point's reads. `rackbench report` prints the table (text and page). A
page whose GUID is not the OCP one gives no rows. Its OCP SMART extended log (C0h) too, read
at each point's start and end: the write point's media wrote 16 MiB for the 8 MiB written
to the drive (its kernel counters), a WAF of 2.00 in the row and the report's table; the
read point's media wrote nothing and the host nothing, no WAF."""
import math
import os
import struct

from rbtest import COORD, Faulty, Tmp, check, h5, need_faultfs, paged_run, run

h5py = h5()
need_faultfs()

GUID = bytes([0x92, 0x7a, 0xc0, 0x8c, 0xd0, 0x84, 0x6c, 0x9c,
              0x70, 0x43, 0xe6, 0xd4, 0x58, 0x5e, 0xd4, 0x85])

CAMPAIGN = """name: devlat
insecure: true
destructive: true
wait: 20s
targets:
  - agent: a1
    drives: [{dev}]
phases:
  - name: slow-reads
    workload: {{rw: randread, bs: 4k, iodepth: 1, size: 8m, runtime: 1s}}
  - name: write
    workload: {{rw: write, bs: 64k, iodepth: 4, size: 8m, passes: 1}}
"""


C0_GUID = bytes([0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4,
                 0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5, 0xaf])


def c0(media_written):
    """An OCP SMART extended page: physical media units written (bytes, 16) at 0."""
    b = bytearray(512)
    struct.pack_into("<Q", b, 0, media_written)
    b[496:512] = C0_GUID
    return bytes(b)


def c3(reads, guid=GUID):
    """A latency monitor page: thresholds 5, 10, 20, 40 ms (5 ms units from 5 ms), the
    active buckets' read counters as given, writes 0, trims 1 each."""
    b = bytearray(512)
    b[0] = 1
    struct.pack_into("<H", b, 2, 1)
    b[6:10] = bytes([0, 1, 3, 7])
    for i, n in enumerate(reads):
        struct.pack_into("<III", b, 32 + 16 * i + 4, 1, 0, n)  # trim, write, read
    b[496:512] = guid
    return bytes(b)


def one_run(tmp, dev, pages, out):
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(dev=dev))
    r, agent, f = paged_run(path, dev, pages, os.path.join(tmp, out),
                            os.path.join(tmp, out + "-s"))
    check(r.returncode == 0 and f, f"the campaign: exit {r.returncode}\n{agent.output()[-2000:]}")
    return f


with Tmp() as tmp:
    slow = Faulty(tmp, "slow", "--size=16m", "--base-delay-us=6000")
    try:
        dev, name = slow.dev, os.path.basename(slow.dev)
        pages = os.path.join(tmp, "pages")
        os.mkdir(pages)
        for k, reads in ((1, [10, 2, 1, 0]), (2, [110, 7, 1, 3])):
            with open(os.path.join(pages, f"{name}.log-c3.{k}"), "wb") as f:
                f.write(c3(reads))
        # C0h at each point's start and end: the write point's media writes 16 MiB
        for k, media in enumerate((1000, 1000, 5 << 20, (5 << 20) + (16 << 20)), 1):
            with open(os.path.join(pages, f"{name}.log-c0.{k}"), "wb") as f:
                f.write(c0(media))
        f = one_run(tmp, dev, pages, "out")
        with h5py.File(f, "r") as h:
            rows = sorted(h["device_latency"][:], key=lambda x: int(x["bucket"]))
            both = sorted(h["results"][:], key=lambda x: int(x["point"]))
        res = both[0]
        check(all(int(x["point"]) == 0 for x in rows), "the write point's C3h pages: none")
        wr = both[1]
        print("OCP C0h:", [(float(x["ocp_media_bytes"]), int(x["health_write_bytes"]),
                            float(x["ocp_waf"])) for x in both])
        check(float(res["ocp_media_bytes"]) == 0 and math.isnan(float(res["ocp_waf"])),
              f"the read point: media {res['ocp_media_bytes']}, WAF {res['ocp_waf']}")
        check(float(wr["ocp_media_bytes"]) == 16 << 20 and int(wr["health_write_bytes"]) == 8 << 20
              and float(wr["ocp_waf"]) == 2.0,
              f"the write point: media {wr['ocp_media_bytes']}, written {wr['health_write_bytes']}, "
              f"WAF {wr['ocp_waf']}")
        got = [(int(x["from_ms"]), int(x["to_ms"]), int(x["reads"]), int(x["writes"]),
                int(x["trims"])) for x in rows]
        check(got == [(5, 10, 100, 0, 0), (10, 20, 5, 0, 0), (20, 40, 0, 0, 0),
                      (40, 0, 3, 0, 0)], f"the drive's buckets over the point: {got}")
        host = [int(x["host_reads"]) for x in rows]
        check(int(res["read_ios"]) > 0 and sum(host) == int(res["read_ios"]) and host[0] > 0,
              f"the host's reads by the drive's ranges {host}, of {int(res['read_ios'])}")
        text = run([COORD, "report", f]).stdout
        sec = text[text.find("The drive's own latency"):]
        print(sec[:600])
        line = [x.split() for x in sec.splitlines() if "5-10 ms" in x]
        check(line and line[0][-4:] == ["100", str(host[0]), "0", "0"],
              f"report: {sec[:600]}")
        waf = text[text.find("Write amplification"):]
        line = [x.split() for x in waf.splitlines() if x.startswith("write ")]
        check(line and line[0][-3:] == ["2.00", "OCP", "C0h"] and line[0][-5] == "8.4",
              f"report's WAF: {waf[:500]}")
        page = os.path.join(tmp, "p.html")
        run([COORD, "report", f, "--html", page])
        check('data-section="device-latency"' in open(page).read(), "the page has the table")
        # another log's GUID: not the latency monitor, no rows
        for k in (1, 2):
            with open(os.path.join(pages, f"{name}.log-c3.{k}"), "wb") as f2:
                f2.write(c3([1, 1, 1, 1], guid=bytes(16)))
        f = one_run(tmp, dev, pages, "out2")
        with h5py.File(f, "r") as h:
            check(len(h["device_latency"]) == 0, "a page of another GUID gives no rows")
    finally:
        slow.close()
print("ok")
