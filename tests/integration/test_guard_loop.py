# SPDX-License-Identifier: MIT
"""The first safety rule on a real block device (a loop device): without both keys a write
exits 3 and names every missing key; a mounted or swap device is refused even with both
keys; the device's checksum is unchanged after every refusal."""
import os
import shutil
import subprocess

from rbtest import AGENT, Tmp, check, fail, run, sha256, skip, wait_for

if os.geteuid() != 0:
    skip("needs root for loop devices (run the root stage as root)")
if not shutil.which("losetup"):
    skip("needs losetup (util-linux)")


def sh(*args):
    return subprocess.run(args, capture_output=True, text=True)


def writes(dev):
    """Writes the device has completed (its /sys/block stat)."""
    return int(open(f"/sys/block/{os.path.basename(dev)}/stat").read().split()[4])


with Tmp() as tmp:
    backing = os.path.join(tmp, "disk.img")
    with open(backing, "wb") as f:
        f.write(os.urandom(32 << 20))
    r = sh("losetup", "--find", "--show", backing)
    if r.returncode != 0:
        skip(f"cannot create a loop device: {r.stderr.strip()}")
    dev = r.stdout.strip()
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    try:
        base = [AGENT, "run", "--target", dev, "--runtime", "300ms", "--state-dir", tmp]
        before = sha256(dev)
        for extra, reasons in (
                (["--rw", "write"], ["--destructive is not given", "not on the agent's --allow list"]),
                (["--rw", "randwrite", "--destructive"], ["not on the agent's --allow list"]),
                (["--rw", "write", "--allow", dev], ["--destructive is not given"])):
            r = run(base + extra)
            print(extra, r.returncode, r.stderr)
            check(r.returncode == 3, f"{extra}: exit {r.returncode}, want 3")
            check(dev in r.stderr, "refusal names the device")
            for reason in reasons:
                check(reason in r.stderr, f"{extra}: refusal lacks '{reason}'")
            check(sha256(dev) == before, f"{extra}: the device changed")
        # reads need no key
        r = run(base + ["--rw", "randread"])
        check(r.returncode == 0, f"read: {r.returncode} {r.stderr}")
        # both keys on a clean device: written
        r = run(base + ["--rw", "write", "--destructive", "--allow", dev])
        check(r.returncode == 0, f"both keys: {r.returncode} {r.stderr}")
        check(sha256(dev) != before, "both keys: the device was not written")
        # while a write runs, the guard's O_EXCL hold keeps anyone from mounting it
        if sh("mkfs.ext4", "-q", "-F", dev).returncode == 0:
            w0 = writes(dev)
            w = subprocess.Popen(base[:2] + ["--target", dev, "--rw", "randwrite", "--offset", "16m",
                                             "--size", "16m", "--runtime", "3s", "--state-dir", tmp,
                                             "--destructive", "--allow", dev, "--wipe-signatures"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # the run holds the device once it writes it: the device's own counter says so
            wait_for(lambda: writes(dev) > w0 + 100 or w.poll() is not None,
                     "the write run to write the device")
            m = sh("mount", dev, mnt)
            out, err = w.communicate(timeout=30)
            check(w.returncode == 0, f"the write run: {w.returncode} {err}")
            check(m.returncode != 0 and "busy" in m.stderr, f"mount during the run: {m.returncode} {m.stderr}")
            # the claim ends with the run (the data under it is the run's now)
            fd = os.open(dev, os.O_RDONLY | os.O_EXCL)
            os.close(fd)
        # mounted: refused even with both keys, every reason listed
        # a filesystem that writes nothing of its own while mounted (no inode tables
        # zeroed later by the kernel's lazy init), so a changed checksum is ours
        mk = sh("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev)
        mo = sh("mount", "-o", "noinit_itable", dev, mnt) if mk.returncode == 0 else mk
        if mo.returncode == 0:
            try:
                os.sync()
                before = sha256(dev)
                r = run(base + ["--rw", "write"])
                check(r.returncode == 3 and f"device is mounted at {mnt}" in r.stderr
                      and "--destructive is not given" in r.stderr,
                      f"mounted without keys: {r.returncode} {r.stderr}")
                r = run(base + ["--rw", "write", "--destructive", "--allow", dev])
                print(r.stderr)
                check(r.returncode == 3 and "mounted" in r.stderr, f"mounted: {r.returncode}")
                check(sha256(dev) == before, "mounted: the device changed")
            finally:
                sh("umount", mnt)
        else:
            fail(f"cannot make and mount ext4 on {dev}: {mk.stderr} {mo.stderr}")
        # a filesystem signature, not mounted: refused unless signatures may be wiped
        check(sh("mkfs.ext4", "-q", "-F", dev).returncode == 0, "mkfs")
        before = sha256(dev)
        r = run(base + ["--rw", "write", "--destructive", "--allow", dev])
        check(r.returncode == 3 and "carries a ext4 signature" in r.stderr,
              f"signature: {r.returncode} {r.stderr}")
        check(sha256(dev) == before, "signature: the device changed")
        r = run(base + ["--rw", "write", "--destructive", "--allow", dev, "--wipe-signatures"])
        check(r.returncode == 0, f"--wipe-signatures: {r.returncode} {r.stderr}")
        check(sha256(dev) != before, "--wipe-signatures: written")
        # a partition mounted (the kernel parses no tables here: sfdisk, then partx -a)
        if sh("sh", "-c", f"echo 'start=2048, size=20480, type=83' | sfdisk -q {dev}").returncode == 0 \
                and sh("partx", "-a", dev).returncode == 0 and os.path.exists(dev + "p1"):
            part = dev + "p1"
            try:
                check(sh("mkfs.ext4", "-q", "-F", part).returncode == 0, "mkfs partition")
                # read-only: a mounted filesystem would change the device by itself
                check(sh("mount", "-o", "ro", part, mnt).returncode == 0, "mount partition")
                before = sha256(dev)
                r = run(base + ["--rw", "write", "--destructive", "--allow", dev, "--wipe-signatures"])
                print(r.stderr)
                check(r.returncode == 3 and f"partition {os.path.basename(part)} is mounted at {mnt}"
                      in r.stderr, f"mounted partition: {r.returncode}")
                r = run(base + ["--rw", "write"])
                for reason in ("--destructive is not given", "not on the agent's --allow list",
                               "is mounted at", "partition table"):
                    check(reason in r.stderr, f"every reason listed: lacks '{reason}'")
                check(sha256(dev) == before, "mounted partition: the device changed")
            finally:
                sh("umount", mnt)
                sh("partx", "-d", dev)
        else:
            fail("cannot write a partition table and add its partitions with partx")
        # swap: refused
        if sh("mkswap", dev).returncode == 0 and sh("swapon", dev).returncode == 0:
            try:
                r = run(base + ["--rw", "write", "--destructive", "--allow", dev])
                print(r.stderr)
                check(r.returncode == 3 and "swap" in r.stderr, f"swap: {r.returncode}")
            finally:
                sh("swapoff", dev)
        else:
            print("note: swapon on a loop device is not possible here; swap case not run")
    finally:
        sh("umount", mnt)
        sh("losetup", "-d", dev)
print("ok")
