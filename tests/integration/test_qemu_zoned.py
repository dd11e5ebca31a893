# SPDX-License-Identifier: MIT
"""Writes on a zoned namespace (the key zns), from the QEMU VM's one boot (qemu.qemu_nvme
runs it and keeps its console): QEMU's namespace 3 is zoned, 8 MiB zones, at most 4 open
and 4 active. In-order writes (zns write, two jobs, each its own zones) and NVMe Zone Append
through passthrough at queue depth 1, 4 and 16 (zns append) complete; util-linux's zone
report afterwards shows every zone the runs wrote full and every other one empty, its write
pointers adding up to the bytes the runs say they wrote. A workload that would keep 6 zones
open is refused naming the namespace's limits; in-order writes at depth 4, a size that is
not whole zones and a namespace that is not zoned are refused with the reason. A campaign's
zns point through the coordinator stores the namespace's zone report after it in the
results file's zones table, zone for zone what blkzone reports afterwards; its second point,
limited by rate and max_runtime, leaves a zone a job written in part: its table keeps their write
pointers, then they are finished (timed, counted in its row) and blkzone shows them full."""
import base64
import gzip
import json
import os
import re

from rbtest import VM_CONSOLE, Tmp, check, h5, skip

if not os.path.exists(VM_CONSOLE):
    skip("no console of the QEMU VM's boot: qemu.qemu_nvme did not run or skipped (it "
         "needs qemu-system-x86, linux-image-amd64 and busybox-static)")
console = open(VM_CONSOLE, errors="replace").read()
got = {}
for m in re.finditer(r"=== BEGIN (\w+)\r?\n(.*?)=== END \1 rc=(\d+)", console, re.S):
    got[m.group(1)] = (int(m.group(3)), m.group(2).replace("\r", ""))
if "zn_write" not in got:
    skip("the VM's boot ran no zoned steps (an older qemu.qemu_nvme)")
if got.get("zn_report0", (127, ""))[0] == 127:
    skip("no blkzone (util-linux) copied into the VM: the zone report is the witness")

ZONE = 8 << 20


def doc(step):
    rc, out = got[step]
    check(rc == 0, f"{step}: exit {rc}\n{out}")
    return json.loads(out[out.index("{"):])


rc, out = got["zn_geometry"]
geo = out.split()
check(rc == 0 and geo[0] == "host-managed" and int(geo[1]) * 512 == ZONE and
      int(geo[3]) == 4 and int(geo[4]) == 4, f"the namespace's zones: {out!r}")
nzones = int(geo[2])


def zones(step):
    """(start, write pointer, condition) of every zone, in bytes, from blkzone's report."""
    rc, out = got[step]
    check(rc == 0, f"{step}: exit {rc}\n{out}")
    z = []
    for m in re.finditer(r"start: 0x([0-9a-f]+), len 0x([0-9a-f]+), cap 0x([0-9a-f]+), "
                         r"wptr 0x([0-9a-f]+).*?zcond:\s*\d+\((\w+)\)", out):
        z.append((int(m.group(1), 16) * 512, int(m.group(4), 16) * 512, m.group(5)))
    check(len(z) == nzones, f"{step}: {len(z)} zones reported, want {nzones}")
    return z


before = zones("zn_report0")
w = doc("zn_write")
check(w["write"]["bytes"] == 32 << 20 and not w["errors"], f"zns write: {w['write']}")
written = {0: 32 << 20}
for q, off in ((1, 32), (4, 48), (16, 112)):
    a = doc(f"zn_append_{q}")
    print(f"zone append QD {q}: {a['write']['iops']:.0f} IOPS, p50 "
          f"{a['write']['lat_ns']['p50'] / 1e3:.0f} us, p99 {a['write']['lat_ns']['p99'] / 1e3:.0f} us")
    check(a["write"]["bytes"] == 16 << 20 and not a["errors"] and
          a["settings"]["zns"] == "append" and a["settings"]["iodepth"] == str(q),
          f"zone append at QD {q}: {a['write']} {a['errors']}")
    written[off << 20] = 16 << 20
after = zones("zn_report1")
full = {s for o, n in written.items() for s in range(o, o + n, ZONE)}
for start, wp, cond in after:
    if start in full:
        check(wp == ZONE and cond == "fu", f"zone at {start >> 20} MiB: wptr {wp}, {cond}")
    else:
        check(wp == 0 and cond == "em", f"zone at {start >> 20} MiB: wptr {wp}, {cond}, "
              "written by no run")
check(sum(wp for _, wp, _ in after) == sum(written.values()),
      "the write pointers add up to what the runs wrote")

rc, out = got["zn_too_open"]
check(rc != 0 and "keeps 6 zones open" in out and "max_open 4" in out and "max_active 4" in out,
      f"6 open zones on a namespace of 4: {rc}\n{out}")
rc, out = got["zn_write_qd"]
check(rc == 2 and "iodepth 1" in out, f"in-order writes at depth 4: {rc}\n{out}")
rc, out = got["zn_unaligned"]
check(rc != 0 and "whole zones" in out, f"12 MiB over 8 MiB zones: {rc}\n{out}")
rc, out = got["zn_notzoned"]
check(rc != 0 and "not a zoned block device" in out, f"zns on a conventional one: {rc}\n{out}")
# zone management timed, a zone an IO: finish (the kernel's ioctl), then reset (NVMe Zone
# Management Send at depth 4) of the 4 zones from 64 MiB, which no write touched
mgmt = range(64 << 20, 96 << 20, ZONE)
check(all(wp == 0 and c == "em" for s, wp, c in zones("zn_report2") if s in mgmt),
      "the zones to manage are empty first")
for step, method, cond, wp_want in (("zn_finish", "zone_finish", "fu", ZONE),
                                     ("zn_reset", "zone_reset", "em", 0)):
    m = doc(step)
    t = m["trim"]
    print(f"{method}: {t['ios']} zones, p50 {t['lat_ns']['p50'] / 1e3:.0f} us, "
          f"max {t['lat_ns']['max'] / 1e3:.0f} us ({m['settings']['engine']})")
    check(m["trim_method"] == method and t["ios"] == 4 and t["bytes"] == 32 << 20 and
          not m["errors"] and t["lat_ns"]["p50"] > 0,
          f"{step}: {m['trim_method']} {t} {m['errors']}")
    report = zones("zn_report3" if step == "zn_finish" else "zn_report4")
    got_z = [(wp, c) for s, wp, c in report if s in mgmt]
    check(got_z == [(wp_want, cond)] * 4, f"after {step}: {got_z}")
rc, out = got["zn_mgmt_bs"]
check(rc != 0 and "must be the zone size" in out, f"zns reset with bs 64k: {rc}\n{out}")

# the zone report in the results file: a campaign wrote 32 MiB from 192 MiB by two jobs;
# its zones table, read when the point ended, is blkzone's report taken after it
if "zn_campaign" in got:
    rc, out = got["zn_campaign"]
    check(rc == 0, f"the zns campaign: {rc}\n{out[-2000:]}")
    rc, out = got["zn_campaign_file"]
    check(rc == 0, f"its results file out of the VM: {rc}")
    h5py = h5()
    words = {"em": "empty", "fu": "full", "oi": "implicit-open", "oe": "explicit-open",
             "cl": "closed", "ro": "read-only", "ol": "offline"}
    with Tmp() as tmp:
        f = os.path.join(tmp, "zones.h5")
        with open(f, "wb") as fh:
            fh.write(gzip.decompress(base64.b64decode("".join(out.split()))))
        with h5py.File(f, "r") as h:
            zall = h["zones"][:]
            res = sorted(h["results"][:], key=lambda x: int(x["point"]))
    zt = [z for z in zall if int(z["point"]) == 0]
    check(len(res) == 2 and res[0]["status"] == b"ok" and int(res[0]["write_bytes"]) == 32 << 20,
          f"the zns point: {res}")
    check(int(res[0]["zones_finished"]) == 0, "zones written full: none to finish")
    reset = int(res[0]["zone_reset_ns"])
    print(f"resetting the point's 4 zones before it: {reset / 1e3:.0f} us")
    check(0 < reset < 10 * 10**9, f"the zone reset's time: {reset} ns")
    report = zones("zn_report2")
    stored = [(int(z["start_bytes"]), int(z["wp_bytes"]) - int(z["start_bytes"]),
               z["cond"].decode()) for z in zt]
    # the second point's zones (224 MiB on) moved after the first's report was read
    want = [(st, wp, words.get(c, c)) for st, wp, c in report]
    check([x for x in stored if x[0] < 224 << 20] == [x for x in want if x[0] < 224 << 20],
          f"zones table {stored[:30]}... against blkzone {want[:30]}...")
    # the second point wrote part of a zone a job by rate and time: its report keeps the
    # write pointers it left, then those zones were finished, timed, and blkzone shows them full
    part = [(int(z["start_bytes"]), int(z["wp_bytes"]) - int(z["start_bytes"]),
             z["cond"].decode()) for z in zall if int(z["point"]) == 1 and
            224 << 20 <= int(z["start_bytes"]) < 256 << 20]
    opened = [x for x in part if 0 < x[1] < ZONE]
    fin, fin_ns = int(res[1]["zones_finished"]), int(res[1]["zone_finish_ns"])
    print(f"finishing the {fin} zone(s) the second point left open: {fin_ns / 1e3:.0f} us")
    check(len(opened) == 2 and all(c == "implicit-open" for _, _, c in opened) and
          sum(wp for _, wp, _ in part) == int(res[1]["write_bytes"]),
          f"the part-written zones as the point left them: {part}, {int(res[1]['write_bytes'])}")
    check(fin == 2 and 0 < fin_ns < 10 * 10**9, f"finished {fin} zone(s) in {fin_ns} ns")
    after2 = {st: c for st, _, c in report}
    check(all(after2[st] == "fu" for st, _, _ in opened),
          f"blkzone after: the finished zones full: {[(st, after2[st]) for st, _, _ in opened]}")
    check(all(int(z["len_bytes"]) == ZONE and z["type"] == b"seq-required" for z in zt),
          "every zone 8 MiB, sequential write required")
    mine = [z for z in stored if 192 << 20 <= z[0] < 224 << 20]
    check(len(mine) == 4 and all(wp == ZONE and c == "full" for _, wp, c in mine),
          f"the four zones the campaign wrote, full: {mine}")
    print(f"zones table: {len(zt)} zones, {sum(1 for z in stored if z[2] == 'full')} full, "
          "each as blkzone reports it")
print("ok")
