# SPDX-License-Identifier: MIT
"""NVMe passthrough (engine uring_cmd) on QEMU's emulated NVMe, from the VM's one boot
(qemu.qemu_nvme runs it and keeps its console): the same 4K random read through
/dev/ng0n1 and through /dev/nvme0n1 both complete, and each run's read count equals the
controller's own SMART host read commands counted around it (less one inventory's own
reads, counted alone; the block queue set to merge nothing); a verified write sent as
NVMe commands reads back verified through the block layer (the LBAs are the block
layer's); IOPOLL, Dataset Management (deallocate) and Write Zeroes go as commands (the
zeroed range reads zeros); a block engine on the passthrough node, writes without the
keys, an IO beyond the controller's largest transfer, a file, and FDP placement on a
namespace without FDP (passthrough) or write streams (block layer) are each refused with
the reason."""
import base64
import gzip
import json
import os
import re

from rbtest import COORD, VM_CONSOLE, Tmp, check, h5, run, skip

if not os.path.exists(VM_CONSOLE):
    skip("no console of the QEMU VM's boot: qemu.qemu_nvme did not run or skipped (it "
         "needs qemu-system-x86, linux-image-amd64 and busybox-static)")
console = open(VM_CONSOLE, errors="replace").read()
got = {}
for m in re.finditer(r"=== BEGIN (\w+)\r?\n(.*?)=== END \1 rc=(\d+)", console, re.S):
    got[m.group(1)] = (int(m.group(3)), m.group(2).replace("\r", ""))
if "pt_read" not in got:
    skip("the VM's boot ran no passthrough steps (an older qemu.qemu_nvme)")


def doc(step):
    rc, out = got[step]
    check(rc == 0, f"{step}: exit {rc}\n{out}")
    return json.loads(out[out.index("{"):])


def host_reads(step):
    inv = doc(step)
    d = [x for x in inv["devices"] if x["name"] == "nvme0n1"][0]
    return d["health"]["host_reads"]


pt, blk = doc("pt_read"), doc("blk_read")
check(pt["settings"]["engine"] == "uring_cmd" and blk["settings"]["engine"] == "uring",
      f"engines: {pt['settings']['engine']}, {blk['settings']['engine']}")
check("fixed_buffers" in pt["uring_features"] and "fixed_files" in pt["uring_features"],
      f"passthrough's ring: {pt['uring_features']}")
# the witness: the controller counted what each run says it read, no more, no less. Each
# window also holds one inventory's own reads (its signature probe), counted alone first;
# the VM's block queue merges nothing, so one read is one command on either path
sa, s0, s1, s2 = (host_reads(x) for x in ("pt_smart_a", "pt_smart0", "pt_smart1", "pt_smart2"))
own = s0 - sa
print(f"inventory alone: {own} reads; passthrough: {pt['read']['ios']} reads, the "
      f"controller {s1 - s0 - own}; block: {blk['read']['ios']} reads, the controller "
      f"{s2 - s1 - own}")
print(f"IOPS: passthrough {pt['read']['iops']:.0f}, block {blk['read']['iops']:.0f} "
      "(TCG emulation: no figure for real drives)")
check(pt["read"]["ios"] > 0 and s1 - s0 - own == pt["read"]["ios"],
      f"passthrough read {pt['read']['ios']}, the controller counted {s1 - s0 - own}")
check(blk["read"]["ios"] > 0 and s2 - s1 - own == blk["read"]["ios"],
      f"block read {blk['read']['ios']}, the controller counted {s2 - s1 - own}")

rc, out = got["pt_wrong_engine"]
check(rc != 0 and "NVMe passthrough device of /dev/nvme0n1" in out and "uring_cmd" in out,
      f"a block engine on /dev/ng0n1: {rc}\n{out}")
rc, out = got["pt_refused"]
check(rc == 3 and "/dev/ng0n1" in out and "--destructive" in out and "--allow" in out,
      f"passthrough writes without keys: {rc}\n{out}")

w, v = doc("pt_write"), doc("pt_check")
check(w["write"]["bytes"] == 16 << 20 and not w["errors"], f"passthrough write: {w['write']}")
check(v["verify"]["checked"] > 0 and v["verify"]["mismatches"] == 0,
      f"what passthrough wrote, read through the block layer: {v['verify']}")

io = doc("pt_iopoll")
check(io["read"]["ios"] > 0 and "iopoll" in io["uring_features"],
      f"passthrough IOPOLL: {io['uring_features']}")
t = doc("pt_trim")
check(t["trim_method"] == "nvme_dsm" and t["trim"]["bytes"] == 16 << 20 and not t["errors"],
      f"Dataset Management: {t['trim_method']} {t['trim']}")
z = doc("pt_zeroes")
check(z["trim_method"] == "write_zeroes" and z["trim"]["bytes"] == 16 << 20,
      f"Write Zeroes: {z['trim_method']} {z['trim']}")
rc, out = got["pt_zeroed"]
lines = [x.split() for x in out.splitlines() if x.strip() and x.strip() != "*"]
check(lines and all(set(x) == {"00"} for x in lines), f"the zeroed range reads {out[:300]!r}")

rc, out = got["pt_big"]
check(rc != 0 and "largest transfer" in out, f"bs beyond the controller's MDTS: {rc}\n{out}")
rc, out = got["pt_notnvme"]
check(rc != 0 and "needs an NVMe namespace" in out, f"a file: {rc}\n{out}")
rc, out = got["pt_placement"]
check(rc != 0 and "placement: /dev/nvme0n1 has no Flexible Data Placement" in out and
      "22h" in out, f"placement without FDP: {rc}\n{out}")
rc, out = got["blk_placement"]
check(rc != 0 and "placement:" in out and "write stream" in out and "uring_cmd" in out,
      f"placement through the block layer without write streams: {rc}\n{out}")

# power states: QEMU 7.2 describes PS0 alone (NPSS 0) and refuses Set Features 02h; a
# state past NPSS is refused before the drive is asked, and no record of a state before is
# left in the state folder either way (the set and put back run against the recorded pages
# backend in unit.nvme)
rc, out = got["ps1"]
check(rc == 2 and "power states 0 to 0 only" in out, f"power_state 1 on QEMU: {rc}\n{out}")
rc, out = got["ps0"]
check(rc == 0 or "refused Set Features 02h (Power Management)" in out and "NVMe status 0x" in out,
      f"power_state 0 on QEMU: {rc}\n{out}")
rc, out = got["ps_records"]
check(rc == 0 and not out.strip(), f"records of states before left behind: {out!r}")

# the same two paths as phases of one campaign through the coordinator: its results file
# records each point's engine, each point's reads equal the controller's own count between
# the health snapshots the agent took before and after it, and the report sets the two
# side by side with their CPU per IO
rc, out = got["paths"]
check(rc == 0, f"the two-path campaign: {rc}\n{out[-2000:]}")
rc, out = got["paths_file"]
check(rc == 0, f"the results file out of the VM: {rc}")
h5py = h5()
with Tmp() as tmp:
    f = os.path.join(tmp, "paths.h5")
    with open(f, "wb") as fh:
        fh.write(gzip.decompress(base64.b64decode("".join(out.split()))))
    with h5py.File(f, "r") as h:
        pts = {int(p["point"]): p for p in h["points"][:]}
        res = h["results"][:]
        hl = h["health"][:]
    engines = {pts[p]["phase"].decode(): pts[p]["engine"].decode() for p in pts}
    check(engines == {"block": "uring", "passthrough": "uring_cmd"}, f"engines {engines}")
    for x in res:
        p = int(x["point"])
        snaps = {int(y["when"]): float(y["host_reads"]) for y in hl
                 if int(y["point"]) == p and int(y["drive"]) == int(x["drive"])
                 and int(y["member"]) == 0 and int(y["when"]) in (0, 2)}
        seen = snaps.get(2, 0) - snaps.get(0, 0)
        print(f"{pts[p]['phase'].decode()}: {int(x['read_ios'])} reads, the controller "
              f"{seen:.0f}, {float(x['read_iops']):.0f} IOPS, CPU "
              f"{float(x['cpu_usr_pct']) + float(x['cpu_sys_pct']):.0f}%")
        check(x["status"] == b"ok" and int(x["read_ios"]) > 0 and len(snaps) == 2 and
              seen == int(x["read_ios"]),
              f"point {p}: {int(x['read_ios'])} reads, the controller counted {seen}")
    # the power state on the timeline: QEMU 7.2 describes PS0 alone, so every snapshot
    # of the drive reads 0, or NaN in each if it answers no Get Features 02h; APST it lacks
    ps = [float(y["power_state"]) for y in hl if int(y["member"]) == 0]
    apst = [float(y["apst"]) for y in hl if int(y["member"]) == 0]
    print(f"power_state {sorted(set(map(str, ps)))}, apst {sorted(set(map(str, apst)))}")
    check(ps and (all(v == 0 for v in ps) or all(v != v for v in ps)) and
          all(v != v or v == 0 for v in apst), f"power state {ps}, apst {apst}")
    r = run([COORD, "report", f])
    print(r.stdout[-1500:])
    check(r.returncode == 0 and "IO paths: the block layer against NVMe passthrough" in r.stdout,
          f"report: {r.returncode} {r.stderr}")
    table = r.stdout[r.stdout.index("IO paths"):]
    rows = [x for x in table.splitlines() if re.search(r"\b(block|passthrough)\s+\d", x)]
    check(len(rows) == 2 and "passthrough:" in table and "IOs per CPU-second" in table,
          f"the side-by-side rows: {table}")
    iops = {x.split()[2]: float(x.split()[3]) for x in rows}
    want = {("block" if e == "uring" else "passthrough"): float(y["read_iops"])
            for y in res for e in [pts[int(y["point"])]["engine"].decode()]}
    check(all(abs(iops[k] - want[k]) <= 0.5 for k in want), f"IOPS {iops}, rows {want}")
print("ok")
