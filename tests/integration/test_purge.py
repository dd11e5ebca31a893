# SPDX-License-Identifier: MIT
"""rackbench-agent purge.
NVMe (recorded tree + pages, --dry-run): with a controller whose Format applies to all
namespaces and a mounted sibling, a Format of the allowed namespace is refused naming the
sibling; a Sanitize too (the whole subsystem); a Deallocate of the namespace alone is not.
Where the controller formats one namespace at a time, the Format is not refused either.
A loop device (root): refused without both keys, checksum unchanged; discarded with
both, reads zeros, and the purge is in the history."""
import json
import os
import subprocess

from rbtest import AGENT, Tmp, check, make_nvme_tree, run, sha256

with Tmp() as tree:
    pages = make_nvme_tree(tree, fna=1)
    base = [AGENT, "purge", "/dev/nvme0n1", "--destructive", "--allow", "/dev/nvme0n1",
            "--root", tree, "--nvme-pages", pages, "--dry-run", "--state-dir", tree]
    for method in ("format", "sanitize", "sanitize-crypto"):
        r = run(base + ["--method", method])
        print(r.stdout, r.stderr)
        check(r.returncode == 3, f"{method}: exit {r.returncode}, want 3")
        check("/dev/nvme0n2 (touched by the" in r.stderr and "mounted at /data" in r.stderr,
              f"{method}: the mounted sibling is named")
        check("nvme0n1, nvme0n2" in r.stdout or "nvme0n2, nvme0n1" in r.stdout,
              f"{method}: the namespaces it touches are listed")
    r = run(base + ["--method", "deallocate"])
    check(r.returncode == 0 and "would deallocate /dev/nvme0n1" in r.stdout,
          f"deallocate: {r.returncode} {r.stdout} {r.stderr}")
with Tmp() as tree:
    pages = make_nvme_tree(tree, fna=0)
    r = run([AGENT, "purge", "/dev/nvme0n1", "--method", "format", "--destructive", "--allow",
             "/dev/nvme0n1", "--root", tree, "--nvme-pages", pages, "--dry-run"])
    check(r.returncode == 0, f"per-namespace format: {r.returncode} {r.stderr}")
    # the keys, for NVMe too
    r = run([AGENT, "purge", "/dev/nvme0n1", "--method", "deallocate", "--root", tree,
             "--nvme-pages", pages, "--dry-run"])
    check(r.returncode == 3 and "--destructive is not given" in r.stderr and
          "not on the agent's --allow list" in r.stderr, f"keys: {r.stderr}")
    r = run([AGENT, "purge", "/dev/nvme0n1", "--method", "sideways"])
    check(r.returncode == 2 and "'--method' must be" in r.stderr, "bad method")

if os.geteuid() == 0:
    with Tmp() as tmp:
        img = os.path.join(tmp, "d.img")
        with open(img, "wb") as f:
            f.write(os.urandom(8 << 20))
        dev = subprocess.run(["losetup", "--find", "--show", img], capture_output=True,
                             text=True).stdout.strip()
        try:
            before = sha256(dev)
            r = run([AGENT, "purge", dev, "--method", "discard", "--state-dir", tmp])
            check(r.returncode == 3 and sha256(dev) == before, f"no keys: {r.returncode}")
            r = run([AGENT, "purge", dev, "--method", "zero", "--destructive", "--allow", dev,
                     "--state-dir", tmp])
            check(r.returncode == 0, f"zero: {r.returncode} {r.stderr}")
            with open(dev, "rb") as f:
                check(f.read(8 << 20) == bytes(8 << 20), "the device reads zeros")
            hist = [json.loads(l) for l in open(os.path.join(tmp, "history.jsonl"))]
            check(hist[-1]["method"] == "zero" and hist[-1]["device"] == dev and
                  hist[-1]["result"] == 0, f"history {hist}")
        finally:
            subprocess.run(["losetup", "-d", dev])
else:
    print("loop-device part not run: not root (the root stage runs it)")
print("ok")
