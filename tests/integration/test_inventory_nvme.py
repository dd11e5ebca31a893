# SPDX-License-Identifier: MIT
"""inventory --json with NVMe fields from recorded pages (laid out as the NVMe
specification defines them) under a recorded sysfs tree: identity, LBA formats, SMART
values, and a critical warning reported as a health alert. The tree has the namespace's
sibling mounted, and the guard's verdict comes through the same root prefix."""
import json

from rbtest import AGENT, Tmp, check, make_nvme_tree, run


with Tmp() as tree:
    pages = make_nvme_tree(tree, fna=1)
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
