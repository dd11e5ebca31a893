# SPDX-License-Identifier: MIT
"""The NVMe code paths on an NVMe controller: QEMU's emulated NVMe (serial RBQEMU0001)
in a small VM booted from Debian's kernel and an initramfs holding busybox and the real
rackbench-agent with its libraries. Inside, libnvme reads identity and SMART health
(inventory), Format and Deallocate run through the guarded purge path, a pass of
verified writes then a verifying random read go through io_uring on /dev/nvme0n1, and Sanitize -- which QEMU 7.2 does not
implement -- fails with a clear message. Last, the coordinator runs a burn-in campaign
against an agent in the VM: the controller's injected critical warning (bit 1, set with
smart_critical_warning=2) FAILs the drive by name, exit 5. Needs qemu-system-x86, linux-image-amd64 and
busybox-static (scripts/install-deps.sh); KVM when there is one, else TCG."""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess

from rbtest import AGENT, COORD, VM_CONSOLE, Tmp, check, fail, skip

# a stale boot's steps are never read as this one's
if os.path.exists(VM_CONSOLE):
    os.unlink(VM_CONSOLE)
QEMU = shutil.which("qemu-system-x86_64")
KERNELS = sorted(glob.glob("/boot/vmlinuz-*"))
BUSYBOX = shutil.which("busybox") if os.path.exists("/bin/busybox") else None
if not QEMU:
    skip("no qemu-system-x86_64 (apt-get install qemu-system-x86)")
if not KERNELS:
    skip("no kernel in /boot for the VM (apt-get install linux-image-amd64)")
if not BUSYBOX or "statically linked" not in subprocess.run(
        ["file", "-L", BUSYBOX], capture_output=True, text=True).stdout:
    BUSYBOX = "/bin/busybox" if os.path.exists("/bin/busybox") else None
if not BUSYBOX:
    skip("no busybox for the VM's initramfs (apt-get install busybox-static)")
KERNEL = KERNELS[-1]
KVER = os.path.basename(KERNEL)[len("vmlinuz-"):]
MODDIR = f"/lib/modules/{KVER}"
if not os.path.exists(f"{MODDIR}/modules.dep"):
    skip(f"no modules for kernel {KVER}")

INIT = r"""#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /run /state
while read m args; do insmod /mod/$m $args 2>/dev/null; done < /modules.order
i=0
while [ ! -b /dev/nvme0n3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
step() { name=$1; shift; echo "=== BEGIN $name"; "$@"; echo "=== END $name rc=$?"; }
A=/rackbench-agent
N1=/dev/nvme0n1
N2=/dev/nvme0n2
# a marker on namespace 2, which no purge below may touch
echo RBQEMU-MARKER-NS2 > /tmp/m; dd if=/tmp/m of=$N2 bs=512 count=1 conv=sync 2>/dev/null; sync
step inventory $A inventory --json
step refused $A run --target $N1 --rw write --bs 4k --runtime 200ms --state-dir /state
step sanitize_refused $A purge $N1 --method sanitize --destructive --allow $N1 --state-dir /state
step format $A purge $N1 --method format --destructive --allow $N1 --state-dir /state
step marker dd if=$N2 bs=512 count=1 2>/dev/null
step deallocate $A purge $N1 --method deallocate --destructive --allow $N1 --state-dir /state
step write $A run --json --target /dev/nvme0n1 --rw write --bs 64k --iodepth 8 --size 16m --passes 1 --verify true --destructive --allow /dev/nvme0n1 --state-dir /state
step verify $A run --json --target /dev/nvme0n1 --rw randread --bs 4k --iodepth 8 --size 16m --runtime 1s --verify true --state-dir /state
step iopoll $A run --json --target $N1 --rw randread --bs 4k --iodepth 4 --size 16m --runtime 500ms --iopoll true --state-dir /state
step sanitize $A purge $N1 --method sanitize --destructive --allow $N1 --allow $N2 --state-dir /state
step history cat /state/history.jsonl
# NVMe passthrough beside the block path (qemu.passthrough reads these): the same random
# read through each, the controller's own read count around each; a verified write
# through passthrough checked through the block layer; refusals
G1=/dev/ng0n1
R="--rw randread --bs 4k --iodepth 8 --size 16m --runtime 500ms --state-dir /state"
# no merging of adjacent requests: one read, one command, as the controller counts them
echo 2 > /sys/block/nvme0n1/queue/nomerges
step pt_smart_a $A inventory --json
step pt_smart0 $A inventory --json
step pt_read $A run --json --target $G1 --engine uring_cmd $R
step pt_smart1 $A inventory --json
step blk_read $A run --json --target $N1 $R
step pt_smart2 $A inventory --json
step pt_wrong_engine $A run --target $G1 $R
step pt_refused $A run --target $G1 --engine uring_cmd --rw write --bs 4k --size 16m --runtime 200ms --state-dir /state
step pt_write $A run --json --target $G1 --engine uring_cmd --rw write --bs 64k --iodepth 8 --size 16m --offset 32m --passes 1 --verify true --destructive --allow $G1 --state-dir /state
step pt_check $A run --json --target $N1 --rw read --bs 64k --iodepth 8 --size 16m --offset 32m --passes 1 --verify true --state-dir /state
step pt_iopoll $A run --json --target $G1 --engine uring_cmd --iopoll true $R
step pt_trim $A run --json --target $G1 --engine uring_cmd --rw trim --bs 1m --size 16m --offset 64m --passes 1 --destructive --allow $N1 --state-dir /state
step pt_zeroes $A run --json --target $G1 --engine uring_cmd --rw writezeroes --bs 64k --size 16m --offset 32m --passes 1 --destructive --allow $N1 --state-dir /state
step pt_zeroed sh -c "dd if=$N1 bs=1M skip=32 count=16 2>/dev/null | od -An -tx1 | sort -u"
step pt_big $A run --target $G1 --engine uring_cmd --rw read --bs 8m --size 16m --passes 1 --state-dir /state
step pt_notnvme $A run --target /tmp/m --engine uring_cmd --rw read --bs 512 --size 512 --passes 1 --state-dir /state
# FDP placement: QEMU 7.2 has no FDP (its statistics log does not read), and the block
# layer gives its namespace no write streams; both refused before any write
step pt_placement $A run --target $G1 --engine uring_cmd --rw write --bs 64k --size 16m --offset 96m --passes 1 --placement 0,1 --destructive --allow $G1 --state-dir /state
step blk_placement $A run --target $N1 --rw write --bs 64k --size 16m --offset 96m --passes 1 --placement 0 --destructive --allow $N1 --state-dir /state
# power states (qemu.passthrough reads these): QEMU 7.2 describes PS0 alone
step ps0 $A run --json --target $N1 --power-state 0 --rw randread --bs 4k --size 16m --runtime 200ms --state-dir /state
step ps1 $A run --target $N1 --power-state 1 --rw randread --bs 4k --size 16m --runtime 200ms --state-dir /state
step ps_records ls -A /state/power
# a zoned namespace (qemu.zoned reads these): 8 MiB zones, at most 4 open and 4 active
N3=/dev/nvme0n3
G3=/dev/ng0n3
step zn_geometry sh -c "cd /sys/block/nvme0n3/queue && cat zoned chunk_sectors nr_zones max_open_zones max_active_zones"
step zn_report0 /blkzone report $N3
step zn_write $A run --json --target $N3 --rw write --zns write --bs 64k --iodepth 1 --numjobs 2 --size 32m --passes 1 --destructive --allow $N3 --state-dir /state
for q in 1 4 16; do
  step zn_append_$q $A run --json --target $G3 --engine uring_cmd --rw write --zns append --bs 64k --iodepth $q --size 16m --offset $(( (32 + 16 * (q / 4 + (q / 16))) ))m --passes 1 --destructive --allow $G3 --state-dir /state
done
step zn_report1 /blkzone report $N3
step zn_too_open $A run --target $G3 --engine uring_cmd --rw write --zns append --bs 64k --iodepth 4 --numjobs 3 --size 48m --offset 128m --passes 1 --destructive --allow $G3 --state-dir /state
step zn_write_qd $A run --target $N3 --rw write --zns write --bs 64k --iodepth 4 --size 16m --passes 1 --destructive --allow $N3 --state-dir /state
step zn_unaligned $A run --target $N3 --rw write --zns write --bs 64k --iodepth 1 --size 12m --passes 1 --destructive --allow $N3 --state-dir /state
step zn_notzoned $A run --target $N1 --rw write --zns write --bs 64k --iodepth 1 --size 16m --passes 1 --destructive --allow $N1 --state-dir /state
# a burn-in campaign through the coordinator: the drive's critical warning fails it
ip link set lo up
# first, the same random read through the block layer and through passthrough as two phases
# of one campaign (qemu.passthrough reads its results file, sent out gzipped in base64)
cat > /paths.yaml <<'CAMPAIGN'
name: qemu-paths
insecure: true
listen: tcp://127.0.0.1:7470
wait: 30s
targets:
  - agent: vm
    drives: [/dev/nvme0n1]
defaults: {rw: randread, size: 16m, bs: 4k, iodepth: 8, runtime: 1s, interval: 250ms}
phases:
  - name: block
    workload: {engine: uring}
  - name: passthrough
    workload: {engine: uring_cmd}
CAMPAIGN
mkdir -p /tmp/paths
cat > /burnin.yaml <<'CAMPAIGN'
name: qemu-burnin
insecure: true
listen: tcp://127.0.0.1:7470
destructive: true
wait: 30s
targets:
  - agent: vm
    drives: [/dev/nvme0n1]
defaults: {size: 16m, bs: 64k, iodepth: 8, verify: true, interval: 1s}
verdict: {critical_warning: true, max_media_errors: 0}
phases:
  - name: write
    workload: {rw: write, passes: 1}
  - name: verify
    workload: {rw: read, passes: 1}
CAMPAIGN
# in-order writes on the zoned namespace through the coordinator: the zone report after
# the point is stored in the results file's zones table (qemu.zoned holds it to blkzone's)
cat > /zones.yaml <<'CAMPAIGN'
name: qemu-zones
insecure: true
listen: tcp://127.0.0.1:7470
destructive: true
wait: 30s
targets:
  - agent: vm
    drives: [/dev/nvme0n3]
phases:
  - name: zoned
    workload: {rw: write, zns: write, bs: 64k, iodepth: 1, numjobs: 2, offset: 192m, size: 32m, passes: 1}
  - name: zoned-part
    workload: {rw: write, zns: write, bs: 4k, iodepth: 1, numjobs: 2, offset: 224m, size: 32m, passes: 1, max_runtime: 1s, rate_iops: 100}
CAMPAIGN
mkdir -p /tmp/zones
$A --coordinator tcp://127.0.0.1:7470 --name vm --insecure --state-dir /state --target $N1 --allow $N1 --target $N3 --allow $N3 > /tmp/agent.log 2>&1 &
step paths /rackbench run /paths.yaml --no-service --results /tmp/paths
step paths_file sh -c "gzip -c /tmp/paths/*.h5 | base64"
step zn_campaign /rackbench run /zones.yaml --no-service --results /tmp/zones
step zn_campaign_file sh -c "gzip -c /tmp/zones/*.h5 | base64"
step zn_report2 /blkzone report $N3
# zone management as points of their own (qemu.zoned reads these): the 4 empty zones from
# 64 MiB finished through the block layer's ioctl, then reset as NVMe commands at depth 4
step zn_finish $A run --json --target $N3 --rw trim --zns finish --bs 8m --numjobs 2 --size 32m --offset 64m --passes 1 --destructive --allow $N3 --state-dir /state
step zn_report3 /blkzone report $N3
step zn_reset $A run --json --target $G3 --engine uring_cmd --rw trim --zns reset --bs 8m --iodepth 4 --size 32m --offset 64m --passes 1 --destructive --allow $G3 --state-dir /state
step zn_report4 /blkzone report $N3
step zn_mgmt_bs $A run --target $N3 --rw trim --zns reset --bs 64k --size 32m --offset 64m --passes 1 --destructive --allow $N3 --state-dir /state
step burnin /rackbench run /burnin.yaml --no-service --results /tmp
kill %1
echo "=== DONE"
poweroff -f
"""


def copy_with_libs(binary, root, name):
    """The binary (as /name) and every shared library ldd names, at the same paths."""
    shutil.copy(binary, os.path.join(root, name))
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    for lib in re.findall(r"(/\S+)", out):
        if not os.path.exists(lib):
            continue
        dst = os.path.join(root, lib.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(os.path.realpath(lib), dst)


def modules(root):
    """nvme.ko and what it needs, in load order, decompressed."""
    deps = {}
    for line in open(f"{MODDIR}/modules.dep"):
        mod, _, rest = line.partition(":")
        deps[mod] = rest.split()
    want = [m for m in deps if re.search(r"/nvme(\.ko)", m)]
    check(want, "no nvme module")
    order = list(reversed(deps[want[0]])) + [want[0]]
    extra = [m for m in deps if re.search(r"crc64_rocksoft_generic|crct10dif_generic", m)]
    order = extra + order
    os.makedirs(os.path.join(root, "mod"))
    names = []
    for m in order:
        src = os.path.join(MODDIR, m)
        name = os.path.basename(m)
        data = open(src, "rb").read()
        for ext, dec in ((".xz", "xz"), (".zst", "zstd")):
            if name.endswith(ext):
                data = subprocess.run([dec, "-dc", src], capture_output=True, check=True).stdout
                name = name[: -len(ext)]
        if name.endswith(".gz"):
            data = gzip.decompress(data)
            name = name[:-3]
        open(os.path.join(root, "mod", name), "wb").write(data)
        names.append(name)
    # a poll queue for the IOPOLL job
    lines = [n + (" poll_queues=1" if n == "nvme.ko" else "") for n in names]
    open(os.path.join(root, "modules.order"), "w").write("\n".join(lines) + "\n")


def steps(console):
    got = {}
    for m in re.finditer(r"=== BEGIN (\w+)\r?\n(.*?)=== END \1 rc=(\d+)", console, re.S):
        got[m.group(1)] = (int(m.group(3)), m.group(2).replace("\r", ""))
    return got


with Tmp() as tmp:
    root = os.path.join(tmp, "root")
    for d in ("bin", "proc", "sys", "dev", "tmp"):
        os.makedirs(os.path.join(root, d))
    shutil.copy(BUSYBOX, os.path.join(root, "bin", "busybox"))
    for tool in ("sh", "mount", "insmod", "mkdir", "sleep", "cat", "poweroff", "echo", "dd",
                 "sync", "ip", "kill", "od", "sort", "gzip", "base64"):
        os.symlink("busybox", os.path.join(root, "bin", tool))
    open(os.path.join(root, "init"), "w").write(INIT)
    os.chmod(os.path.join(root, "init"), 0o755)
    copy_with_libs(os.path.abspath(AGENT), root, "rackbench-agent")
    copy_with_libs(os.path.abspath(COORD), root, "rackbench")
    # util-linux's zone report, the witness of what the zoned runs wrote
    if shutil.which("blkzone"):
        copy_with_libs(shutil.which("blkzone"), root, "blkzone")
    modules(root)
    initrd = os.path.join(tmp, "initrd.gz")
    cpio = subprocess.run(f"cd {root} && find . | cpio -o -H newc 2>/dev/null | gzip -1 > {initrd}",
                          shell=True)
    check(cpio.returncode == 0, "cpio")
    disks = [os.path.join(tmp, f"ns{i}.img") for i in (1, 2, 3)]
    for disk in disks:
        with open(disk, "wb") as f:
            f.truncate(256 << 20)
    def boot(accel, limit):
        # q35 with the controller behind a PCIe root port (in slot 5): a PCIe link for
        # sysfs to show, as a rack's drives have
        args = [QEMU, "-M", "q35", "-m", "768", "-smp", "2", "-nographic", "-no-reboot",
                "-accel", accel,
                "-kernel", KERNEL, "-initrd", initrd,
                "-append", "console=ttyS0 panic=-1 quiet loglevel=3",
                "-drive", f"file={disks[0]},if=none,id=nv1,format=raw",
                "-drive", f"file={disks[1]},if=none,id=nv2,format=raw",
                "-device", "pcie-root-port,id=rp1,chassis=1,slot=5",
                "-device", "nvme,id=c0,bus=rp1,serial=RBQEMU0001,smart_critical_warning=2",
                "-device", "nvme-ns,bus=c0,drive=nv1,nsid=1",
                "-device", "nvme-ns,bus=c0,drive=nv2,nsid=2",
                "-drive", f"file={disks[2]},if=none,id=nv3,format=raw",
                "-device", "nvme-ns,bus=c0,drive=nv3,nsid=3,zoned=true,zoned.zone_size=8M,"
                "zoned.max_open=4,zoned.max_active=4"]
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=limit,
                               stdin=subprocess.DEVNULL)
            return r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            out = e.stdout or b""
            out = out.decode(errors="replace") if isinstance(out, bytes) else out
            print(f"the VM ({accel}) did not finish in {limit} s:\n{out[-2000:]}")
            return out

    # emulation: KVM inside this VM (nested) hangs the guest's boot here; TCG is slower
    # but gives the same answers from the same emulated controller
    console = boot("tcg", 240)
    open(os.path.join(tmp, "console.log"), "w").write(console)
    # kept for the tests that read this boot's other steps (qemu.passthrough)
    os.makedirs(os.path.dirname(VM_CONSOLE), exist_ok=True)
    open(VM_CONSOLE, "w").write(console)
    if "=== DONE" not in console:
        fail(f"the VM did not run its steps:\n{console[-3000:]}")
    got = steps(console)
    print({k: v[0] for k, v in got.items()})

    rc, out = got["inventory"]
    check(rc == 0, f"inventory: {rc}\n{out}")
    inv = json.loads(out[out.index("{"):])
    nv = [d for d in inv["devices"] if d["name"] == "nvme0n1"]
    check(len(nv) == 1, f"no nvme0n1 in {[d['name'] for d in inv['devices']]}")
    d = nv[0]
    print(json.dumps(d)[:1500])
    check("QEMU" in d["model"] and d["serial"] == "RBQEMU0001" and d["firmware"],
          f"identity: model {d['model']!r} serial {d['serial']!r} firmware {d['firmware']!r}")
    check(d["size_bytes"] == 256 << 20 and d["logical_block_size"] in (512, 4096), "size")
    check(d["pci"] and re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", d["pci"]["address"]),
          f"the PCI function: {d['pci']}")
    # its PCIe link behind the root port: trained to what both ends can do
    check(d["pci"].get("link_width", 0) >= 1 and d["pci"].get("link_speed_gts", 0) > 0 and
          d["pci"]["downtrained"] is False, f"the PCIe link: {d['pci']}")
    print(f"PCIe: {d['pci']}")
    check(not d["write_allowed"] and any("--allow" in x for x in d["reasons"]), "guard")
    h = d.get("health") or {}
    check(h and 0 < h.get("temperature_c", 0) < 100, f"SMART health: {h}")
    check(h["critical_warning"] == 2 and h["alerts"], f"the injected warning: {h}")
    check(d["nvme"]["format_all_namespaces"] is False, "QEMU formats per namespace")
    check(any(x["name"] == "nvme0n2" for x in inv["devices"]), "the second namespace")

    rc, out = got["refused"]
    check(rc == 3 and "nvme0n1" in out, f"write without keys: {rc}\n{out}")
    rc, out = got["sanitize_refused"]
    check(rc == 3 and "nvme0n2" in out, f"a Sanitize touches namespace 2: {rc}\n{out}")
    for step in ("format", "deallocate"):
        rc, out = got[step]
        check(rc == 0, f"purge {step}: {rc}\n{out}")
    rc, out = got["marker"]
    check("RBQEMU-MARKER-NS2" in out, f"namespace 2 was touched by the Format of 1: {out!r}")
    rc, out = got["iopoll"]
    check(rc == 0, f"IOPOLL job: {rc}\n{out}")
    io = json.loads(out[out.index("{"):])
    check(io["read"]["ios"] > 0 and "iopoll" in io["uring_features"], f"IOPOLL: {io['uring_features']}")
    rc, out = got["write"]
    check(rc == 0, f"verified write: {rc}\n{out}")
    w = json.loads(out[out.index("{"):])
    check(w["write"]["bytes"] == 16 << 20 and not w["errors"], f"write pass: {w['write']}")
    rc, out = got["verify"]
    check(rc == 0, f"verify read: {rc}\n{out}")
    v = json.loads(out[out.index("{"):])
    check(v["verify"]["checked"] > 0 and v["verify"]["mismatches"] == 0, f"verify: {v['verify']}")
    rc, out = got["sanitize"]
    check(rc != 0 and "anitize" in out, f"sanitize on QEMU 7.2: {rc}\n{out}")
    rc, out = got["history"]
    hist = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    purges = [x for x in hist if x["event"] == "purge" and x["result"] == 0]
    check({x["method"] for x in purges} >= {"format", "deallocate"} and
          all(x["serial"] == "RBQEMU0001" for x in purges), f"history: {hist}")
    rc, out = got["burnin"]
    print(out[-3000:])
    check(rc == 5, f"the burn-in of a drive with a critical warning: exit {rc}, want 5")
    check("verdicts: 1 drive(s): 1 FAIL" in out, "its verdict is FAIL")
    check("critical warning bit 1 (temperature beyond its threshold)" in out and "RBQEMU0001" in out,
          "naming the drive and the warning bit")
    alerts = [l for l in out.splitlines() if "health alert" in l]
    check(len(alerts) == 1, f"the alert said once, not with every snapshot: {alerts}")
print("ok")
