# SPDX-License-Identifier: MIT
"""Filesystem targets (`rackbench-agent run --filesystem ext4`): making the filesystem is a
destructive write, guarded like any other (no keys: refused, the device unchanged; a
mounted device: refused); with both keys the agent makes it, mounts it in a mount
namespace of its own under the state folder, runs the workload on a file there and
unmounts; no other process ever sees the mount, and an agent killed with -9 leaves
nothing mounted."""
import glob
import os
import shutil
import signal
import subprocess

from rbtest import AGENT, Tmp, check, run, sha256, skip, wait_for

if os.geteuid() != 0:
    skip("needs root for loop devices, mkfs and mounts (run the root stage as root)")
for tool in ("losetup", "mkfs.ext4", "blkid"):
    if not shutil.which(tool):
        skip(f"needs {tool}")


def free(dev):
    """Nobody holds dev open exclusively (mounted or claimed)."""
    try:
        os.close(os.open(dev, os.O_RDONLY | os.O_EXCL))
        return True
    except OSError:
        return False


def mount_points(state):
    """The mount points the agent made under its state folder (STATE/fs/run-PID)."""
    return [n for n in glob.glob(os.path.join(state, "fs", "*")) if os.path.isdir(n)]


def mounted(dev):
    real = os.path.realpath(dev)
    st = os.stat(real).st_rdev
    want = f"{os.major(st)}:{os.minor(st)}"
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[2] == want for line in f)


with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    img = os.path.join(tmp, "fs.img")
    with open(img, "wb") as f:
        f.write(os.urandom(128 << 20))
    r = subprocess.run(["losetup", "--find", "--show", img], capture_output=True, text=True)
    if r.returncode:
        skip(f"cannot make a loop device: {r.stderr.strip()}")
    dev = r.stdout.strip()
    A = [AGENT, "run", "--target", dev, "--filesystem", "ext4", "--size", "32m", "--rw", "randwrite",
         "--bs", "4k", "--iodepth", "4", "--runtime", "1s", "--state-dir", state]
    try:
        before = sha256(dev)
        r = run(A)
        print("no keys:", r.returncode, r.stderr)
        check(r.returncode == 3 and "--destructive is not given" in r.stderr and
              "not on the agent's --allow list" in r.stderr, "refused without keys")
        check(sha256(dev) == before, "a refused mkfs changed the device")
        # a flag given twice is refused: btrfs in ext4's place
        B = [x if x != "ext4" else "btrfs" for x in A]
        r = run(B + ["--destructive", "--allow", dev])
        check(r.returncode == 2 and "ext4 or xfs" in r.stderr, f"btrfs: {r.stderr}")
        r = run(A[:2] + ["--target", img, "--filesystem", "ext4", "--size", "8m",
                         "--destructive", "--allow", img, "--state-dir", state])
        check(r.returncode == 2 and "on a block device" in r.stderr, f"a file: {r.stderr}")
        # mke2fs's file options in joined and clustered forms are refused before mkfs
        # runs (its undo file would land in the state folder), and an offset past the
        # drive's end at the pre-flight (mke2fs would spin for ever)
        for opts, why in (("-zundo", "-z (in '-zundo') reads or writes a file"),
                          ("-Fz undo", "-z (in '-Fz') reads or writes a file"),
                          ("-E offset=99999999999999", "is not inside the drive")):
            r = run(A + ["--destructive", "--allow", dev, "--mkfs-options", opts], timeout=60)
            check(r.returncode == 2 and why in r.stderr, f"'{opts}': {r.returncode} {r.stderr}")
        fsdir = os.path.join(state, "fs")
        left = os.listdir(fsdir) if os.path.isdir(fsdir) else []
        check(not left, f"mkfs left files in the state folder: {left}")
        check(sha256(dev) == before, "a refused mkfs changed the device")
        # both keys: made, mounted privately, written, unmounted
        r = run(A + ["--destructive", "--allow", dev, "--json"])
        print("both keys:", r.returncode, r.stderr)
        check(r.returncode == 0, f"both keys: {r.returncode} {r.stderr}")
        check("a new ext4" in r.stderr and "mounted privately" in r.stderr, "says what it made")
        import json
        out = json.loads(r.stdout)
        check(out["write"]["ios"] > 0 and out["target"].endswith("/rackbench.dat"),
              f"the workload ran on the file: {out['target']}")
        t = subprocess.run(["blkid", "-o", "value", "-s", "TYPE", dev], capture_output=True,
                           text=True).stdout.strip()
        check(t == "ext4", f"the device carries {t!r}")
        check(not mounted(dev), "the mount is visible after the run")
        check(not mount_points(state), "a mount point is left")
        # again, now over a filesystem: that is a signature, refused without --wipe-signatures
        r = run(A + ["--destructive", "--allow", dev])
        check(r.returncode == 3 and "ext4 signature" in r.stderr, f"over ext4: {r.stderr}")
        # killed with -9 mid-run: the private mount goes with it
        errf = open(os.path.join(tmp, "killed.err"), "w+")
        # (a flag given twice is refused: the run's 20 s in place of A's 1 s)
        long_run = [x if x != "1s" else "20s" for x in A]
        p = subprocess.Popen(long_run + ["--destructive", "--allow", dev, "--wipe-signatures"],
                             stdout=subprocess.DEVNULL, stderr=errf, text=True)
        # its mount point is made and the agent has mounted it there (it says so)
        wait_for(lambda: mount_points(state) and
                 "mounted privately" in open(errf.name).read(),
                 "the killed run's filesystem to be mounted",
                 show=lambda: open(errf.name).read()[-2000:] + f" (exit {p.poll()})")
        check(not mounted(dev), "the agent's mount is visible to another process")
        p.send_signal(signal.SIGKILL)
        p.wait()
        check(not mounted(dev), "a killed agent left its filesystem mounted")
        # the killed agent's namespace is released soon after; then the device is free
        wait_for(lambda: free(dev), "the device to be free after the kill")
        # mounted by someone else: refused, nothing written
        subprocess.run(["mkfs.ext4", "-q", "-F", dev], check=True)
        mnt = os.path.join(tmp, "mnt")
        os.mkdir(mnt)
        subprocess.run(["mount", "-o", "ro,noload", dev, mnt], check=True)  # ro: it writes nothing
        try:
            before = sha256(dev)
            r = run(A + ["--destructive", "--allow", dev, "--wipe-signatures"])
            print("mounted elsewhere:", r.returncode, r.stderr)
            check(r.returncode == 3 and f"mounted at {mnt}" in r.stderr, "a mounted device")
        finally:
            subprocess.run(["umount", mnt])
        check(sha256(dev) == before, "the mounted device changed")
    finally:
        subprocess.run(["losetup", "-d", dev])
print("ok")
