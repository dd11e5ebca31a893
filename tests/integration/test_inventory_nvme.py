# SPDX-License-Identifier: MIT
"""inventory --json with NVMe fields from recorded pages (laid out as the NVMe
specification defines them) under a recorded sysfs tree: identity, LBA formats, SMART
values, and a critical warning reported as a health alert. The tree has the namespace's
sibling mounted, and the guard's verdict comes through the same root prefix."""
import json
import os
import struct

from rbtest import AGENT, Tmp, check, run


def put(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


with Tmp() as tree:
    ctrl = os.path.join(tree, "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0")
    for ns, dev in (("nvme0n1", "259:0"), ("nvme0n2", "259:1")):
        d = os.path.join(ctrl, ns)
        put(f"{d}/dev", dev + "\n")
        put(f"{d}/size", "2097152\n")
        put(f"{d}/queue/logical_block_size", "4096\n")
        put(f"{d}/queue/physical_block_size", "4096\n")
        put(f"{d}/queue/rotational", "0\n")
        put(f"{d}/queue/scheduler", "[none] mq-deadline\n")
        os.makedirs(f"{d}/holders")
        os.makedirs(os.path.join(tree, "sys/class/block"), exist_ok=True)
        os.makedirs(os.path.join(tree, "sys/dev/block"), exist_ok=True)
        os.symlink(d, os.path.join(tree, "sys/class/block", ns))
        os.symlink(d, os.path.join(tree, "sys/dev/block", dev))
    put(os.path.join(tree, "proc/self/mountinfo"), "40 1 259:1 / /data rw - xfs /dev/nvme0n2 rw\n")
    put(os.path.join(tree, "proc/swaps"), "Filename Type Size Used Priority\n")
    # pages, by NVMe specification offsets
    idc = bytearray(4096)
    struct.pack_into("<H", idc, 0, 0x1b36)
    idc[4:24] = b"RB-QEMU-SERIAL-42".ljust(20)
    idc[24:64] = b"QEMU NVMe Ctrl".ljust(40)
    idc[64:72] = b"8.0.0".ljust(8)
    struct.pack_into("<I", idc, 516, 2)
    idc[524] = 1  # a Format applies to every namespace
    idn = bytearray(4096)
    struct.pack_into("<QQQ", idn, 0, 262144, 262144, 100)
    idn[25], idn[26] = 1, 1
    struct.pack_into("<II", idn, 128, 9 << 16, 12 << 16)
    idn[120:128] = bytes(range(0x10, 0x18))
    sm = bytearray(512)
    sm[0] = 0x04  # reliability degraded
    struct.pack_into("<H", sm, 1, 318)
    sm[3], sm[4], sm[5] = 88, 10, 12
    struct.pack_into("<Q", sm, 48, 987654)
    struct.pack_into("<Q", sm, 128, 1234)
    struct.pack_into("<Q", sm, 160, 3)
    pages = os.path.join(tree, "pages")
    for ns in ("nvme0n1", "nvme0n2"):
        put(f"{pages}/{ns}.id-ctrl", bytes(idc), "wb")
        put(f"{pages}/{ns}.id-ns", bytes(idn), "wb")
        put(f"{pages}/{ns}.smart", bytes(sm), "wb")
    r = run([AGENT, "inventory", "--json", "--root", tree, "--nvme-pages", pages,
             "--allow", "/dev/nvme0n1"])
    check(r.returncode == 0, f"inventory: {r.returncode} {r.stderr}")
    devs = {d["name"]: d for d in json.loads(r.stdout)["devices"]}
    d = devs["nvme0n1"]
    check(d["model"] == "QEMU NVMe Ctrl" and d["serial"] == "RB-QEMU-SERIAL-42" and
          d["firmware"] == "8.0.0", f"identity {d['model']} {d['serial']} {d['firmware']}")
    n = d["nvme"]
    check(n["nsid"] == 1 and n["size_blocks"] == 262144 and n["lba_format"] == 1 and
          n["lba_formats"][1]["data_bytes"] == 4096 and n["eui64"] == "1011121314151617",
          f"nvme fields {n}")
    check(n["format_all_namespaces"], "FNA bit 0")
    h = d["health"]
    check(h["temperature_c"] == 45 and h["available_spare_pct"] == 88 and h["percentage_used"] == 12
          and h["data_units_written"] == 987654 and h["power_on_hours"] == 1234 and
          h["media_errors"] == 3, f"health {h}")
    check(h["critical_warning"] == 4 and "reliability degraded" in h["alerts"], "health alert")
    check(d["write_allowed"], f"nvme0n1 itself is clean: {d['reasons']}")
    check(not devs["nvme0n2"]["write_allowed"] and
          "device is mounted at /data" in devs["nvme0n2"]["reasons"], "the sibling is mounted")
    r = run([AGENT, "inventory", "--root", tree, "--nvme-pages", pages])
    check("HEALTH ALERT: reliability degraded" in r.stdout, f"text: {r.stdout}")
print("ok")
