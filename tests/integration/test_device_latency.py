# SPDX-License-Identifier: MIT
"""The drive's own latency beside the host's, end to end through the admin seam's recorded
pages: a faultfs drive that answers each read after 6 ms, whose OCP Latency Monitor log
(C3h: the OCP GUID, thresholds 5, 10, 20 and 40 ms, four active buckets of read, write and
trim counters) the agent reads from a folder (--nvme-pages) when the point's targets open
(NAME.log-c3.1) and when it ends (.2). The results file's device_latency table holds, for
each of the four buckets, exactly the counters' rise the two pages encode, and beside them
the host's reads in the same range: every read of the point took 6 ms or more, so the host's
counts add up to the point's reads. `rackbench report` prints the table (text and page). A
page whose GUID is not the OCP one gives no rows."""
import os
import struct

from rbtest import COORD, Agent, Faulty, Tmp, check, free_port, h5, need_faultfs, run

h5py = h5()
need_faultfs()

GUID = bytes([0x92, 0x7a, 0xc0, 0x8c, 0xd0, 0x84, 0x6c, 0x9c,
              0x70, 0x43, 0xe6, 0xd4, 0x58, 0x5e, 0xd4, 0x85])

CAMPAIGN = """name: devlat
insecure: true
wait: 20s
targets:
  - agent: a1
    drives: [{dev}]
phases:
  - name: slow-reads
    workload: {{rw: randread, bs: 4k, iodepth: 1, size: 8m, runtime: 1s}}
"""


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
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "a1", [dev], state_dir=os.path.join(tmp, out + "-s"),
                  extra=["--nvme-pages", pages])
    try:
        r = run([COORD, "run", path, "--listen", ep, "--no-service",
                 "--results", os.path.join(tmp, out)], timeout=120)
    finally:
        agent.stop()
    print(r.stdout[-1200:], r.stderr[-1200:])
    check(r.returncode == 0, f"the campaign: exit {r.returncode}\n{agent.output()[-2000:]}")
    d = os.path.join(tmp, out)
    return [os.path.join(d, x) for x in os.listdir(d) if x.endswith(".h5")][0]


with Tmp() as tmp:
    slow = Faulty(tmp, "slow", "--size=16m", "--base-delay-us=6000")
    try:
        dev, name = slow.dev, os.path.basename(slow.dev)
        pages = os.path.join(tmp, "pages")
        os.mkdir(pages)
        for k, reads in ((1, [10, 2, 1, 0]), (2, [110, 7, 1, 3])):
            with open(os.path.join(pages, f"{name}.log-c3.{k}"), "wb") as f:
                f.write(c3(reads))
        f = one_run(tmp, dev, pages, "out")
        with h5py.File(f, "r") as h:
            rows = sorted(h["device_latency"][:], key=lambda x: int(x["bucket"]))
            res = h["results"][0]
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
