# SPDX-License-Identifier: MIT
"""The guard follows loop devices both ways (the probe's G8a, G8b, G9, and siblings), and a
campaign's pre-flight claims every device before any agent writes (G3d, G11c), and an agent
in a container's namespaces sees the host's mounts or writes nothing (G3e, G3f):

- a target that a mounted loop device sits on (at an offset, ext4, mounted ro): refused;
- a target that is itself a loop over a mounted device at an offset (no signature at the
  loop's start): refused, through the loop;
- a file in the state folder (rackbench's own) that backs a mounted loop: refused;
- a loop whose backing file another loop also uses: refused;
- a two-agent campaign where one agent's drive is mounted in another mount namespace: the
  pre-flight refuses it (exit 3) and the other agent's drive is not written at all;
- one device under two names in a campaign: refused at pre-flight, nothing written;
- the agent in a mount namespace of its own that hides a mount of the host's (G3e): the
  refusal names the host's mount point; in a PID namespace of its own, where the host's
  mount table is out of sight (G3f): every block device is refused, a clean one too.
Every target's and every stacked device's checksum is the same afterwards, and the mounted
filesystems still pass e2fsck. The control: a clean loop with both keys is written."""
import os
import shutil
import subprocess
import time

from rbtest import AGENT, COORD, Agent, Tmp, check, free_port, run, skip

if os.geteuid() != 0:
    skip("needs root for loop devices and mounts (run the root stage as root)")
for tool in ("losetup", "mkfs.ext4", "e2fsck", "unshare"):
    if not shutil.which(tool):
        skip(f"needs {tool}")

loops = []
mounts = []


def sh(*args, check_rc=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if check_rc and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def loop(backing, *opts):
    dev = sh("losetup", "--find", "--show", *opts, backing)
    loops.insert(0, dev)
    return dev


def image(path, mib):
    with open(path, "wb") as f:
        f.write(os.urandom(mib << 20))
    return path


def dsha(path):
    """sha256 of what is on the device or file, read with O_DIRECT (no page cache)."""
    import hashlib
    import mmap
    h = hashlib.sha256()
    buf = mmap.mmap(-1, 1 << 20)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        while True:
            n = os.readv(fd, [buf])
            if n <= 0:
                break
            h.update(buf[:n])
    finally:
        os.close(fd)
    return h.hexdigest()


def sums(*paths):
    return {p: dsha(p) for p in paths}


def write_args(tmp, target, *extra):
    return [AGENT, "run", "--target", target, "--rw", "write", "--bs", "64k", "--iodepth", "4",
            "--runtime", "500ms", "--destructive", "--allow", target, "--wipe-signatures",
            "--state-dir", os.path.join(tmp, "state")] + list(extra)


def write(tmp, target, *extra):
    return run(write_args(tmp, target, *extra))


def refused(r, what, *reasons):
    print(what, "->", r.returncode, r.stderr)
    check(r.returncode == 3, f"{what}: exit {r.returncode}, want 3")
    for reason in reasons:
        check(reason in r.stderr, f"{what}: the refusal lacks '{reason}'")


def fsck(dev):
    r = subprocess.run(["e2fsck", "-fn", dev], capture_output=True, text=True)
    return r.returncode


with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    try:
        try:
            l3 = loop(image(os.path.join(tmp, "g8a.img"), 64))
        except RuntimeError as e:
            skip(f"cannot create a loop device: {e}")
        # G8a: the target is UNDER a mounted loop (loop over it at 1 MiB, ext4, mounted ro)
        l4 = loop(l3, "-o", "1M")
        sh("mkfs.ext4", "-q", "-F", l4)
        sh("mount", "-o", "ro", l4, mnt)
        mounts.append(mnt)
        before = sums(l3, l4)
        refused(write(tmp, l3), "G8a", f"is the backing device of loop device {os.path.basename(l4)}",
                f"mounted at {mnt}")
        sh("umount", mnt)
        mounts.remove(mnt)
        check(sums(l3, l4) == before, "G8a: bytes changed")
        check(fsck(l4) == 0, "G8a: the stacked filesystem is damaged")

        # G8b: the target is OVER a mounted device (a loop at 20 MiB: no signature there)
        l5 = loop(image(os.path.join(tmp, "g8b.img"), 64))
        sh("mkfs.ext4", "-q", "-F", l5)
        sh("mount", "-o", "ro", l5, mnt)
        mounts.append(mnt)
        l6 = loop(l5, "-o", "20M", "--sizelimit", "8M")
        before = sums(l5, l6)
        refused(write(tmp, l6), "G8b", f"through loop device {os.path.basename(l6)}",
                f"mounted at {mnt}")
        # the same shape two loops deep
        l6b = loop(l6, "-o", "1M")
        refused(write(tmp, l6b), "G8b, two deep", f"through loop device {os.path.basename(l6b)}",
                f"mounted at {mnt}")
        sh("umount", mnt)
        mounts.remove(mnt)
        check(sums(l5, l6) == before, "G8b: bytes changed")
        check(fsck(l5) == 0, "G8b: the filesystem under the loop is damaged")

        # G9: a file of rackbench's own in the state folder that backs a mounted loop
        disk = os.path.join(state, "disk.img")
        r = run([AGENT, "run", "--target", disk, "--rw", "read", "--size", "64m", "--runtime",
                 "100ms", "--state-dir", state])
        check(r.returncode == 0, f"laying out {disk}: {r.stderr}")
        l7 = loop(disk)
        sh("mkfs.ext4", "-q", "-F", l7)
        sh("mount", "-o", "ro", l7, mnt)
        mounts.append(mnt)
        before = sums(disk)
        refused(run([AGENT, "run", "--target", disk, "--rw", "write", "--destructive",
                     "--direct", "false", "--runtime", "500ms", "--state-dir", state, "--bs", "64k"]),
                "G9", f"the file is the backing file of loop device {os.path.basename(l7)}",
                f"mounted at {mnt}")
        sh("umount", mnt)
        mounts.remove(mnt)
        check(sums(disk) == before, "G9: the file changed")
        check(fsck(l7) == 0, "G9: the filesystem in the file is damaged")

        # a swap file of rackbench's own: refused (not left to the kernel's ETXTBSY)
        if shutil.which("swapon") and shutil.which("mkswap"):
            fsimg = loop(image(os.path.join(tmp, "swapfs.img"), 32))
            sh("mkfs.ext4", "-q", "-F", fsimg)
            sh("mount", fsimg, mnt)
            mounts.append(mnt)
            sstate = os.path.join(mnt, "state")
            os.mkdir(sstate, 0o700)
            swf = os.path.join(sstate, "swap.bin")
            r = run([AGENT, "run", "--target", swf, "--rw", "read", "--size", "4m",
                     "--runtime", "100ms", "--state-dir", sstate])
            check(r.returncode == 0, f"laying out the swap file: {r.stderr}")
            sh("mkswap", swf)
            if subprocess.run(["swapon", swf], capture_output=True).returncode == 0:
                try:
                    refused(run([AGENT, "run", "--target", swf, "--rw", "write", "--destructive",
                                 "--runtime", "300ms", "--state-dir", sstate]),
                            "swap file", "the file is in use as swap")
                finally:
                    subprocess.run(["swapoff", swf])
            sh("umount", mnt)
            mounts.remove(mnt)

        # two loops over one backing file: either one is two devices over the same bytes
        sib = image(os.path.join(tmp, "sib.img"), 16)
        s1 = loop(sib)
        s2 = loop(sib)
        before = sums(s1)
        refused(write(tmp, s1), "siblings",
                f"loop device {os.path.basename(s2)} sits on the same backing file")
        check(sums(s1) == before, "siblings: bytes changed")

        # a loop over a device node that is gone since: the kernel's own account of the
        # backing (not its path) finds the device it sits on
        dn = loop(image(os.path.join(tmp, "deleted.img"), 32))
        st = os.stat(dn)
        node = os.path.join(tmp, "node")
        os.mknod(node, 0o600 | 0o060000, st.st_rdev)
        over = loop(node, "-o", "1M")
        sh("mkfs.ext4", "-q", "-F", over)
        sh("mount", "-o", "ro", over, mnt)
        mounts.append(mnt)
        os.unlink(node)
        before = sums(dn, over)
        refused(write(tmp, dn), "a loop over a deleted node",
                f"backing device of loop device {os.path.basename(over)}", f"mounted at {mnt}")
        sh("umount", mnt)
        mounts.remove(mnt)
        check(sums(dn, over) == before, "the loop over a deleted node: bytes changed")

        # the agent's key is the claimed device's, not whatever the path names later
        import threading
        ka = loop(image(os.path.join(tmp, "ka.img"), 16))
        kb = loop(image(os.path.join(tmp, "kb.img"), 16))
        before = sums(kb)
        ln_t, ln_alt = os.path.join(tmp, "t"), os.path.join(tmp, "alt")
        os.symlink(kb, ln_t)
        os.symlink(ka, ln_alt)
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        stop = []

        def swap():
            while not stop:
                libc.renameat2(-100, ln_t.encode(), -100, ln_alt.encode(), 2)

        th = threading.Thread(target=swap)
        th.start()
        try:
            for _ in range(20):
                run([AGENT, "run", "--target", ln_t, "--rw", "write", "--bs", "64k", "--runtime",
                     "50ms", "--destructive", "--allow", ka, "--state-dir", state])
        finally:
            stop.append(1)
            th.join()
        check(sums(kb) == before, "a device not on --allow was written through a swapped link")

        # the control: a clean loop with both keys is written
        clean = loop(image(os.path.join(tmp, "clean.img"), 16))
        before = sums(clean)
        r = write(tmp, clean)
        check(r.returncode == 0, f"control: {r.returncode} {r.stderr}")
        check(sums(clean) != before, "control: the clean loop was not written")

        # G3d: one agent's drive mounted only in another mount namespace; the other
        # agent's drive is clean. The pre-flight claims both: refused before any write.
        gx = loop(image(os.path.join(tmp, "gx.img"), 32))
        gy = loop(image(os.path.join(tmp, "gy.img"), 32))
        sh("mkfs.ext4", "-q", "-F", gx)
        other_ns = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                     f"mount -o ro {gx} {mnt} && echo mounted && exec sleep 120"],
                                    stdout=subprocess.PIPE, text=True)
        try:
            check(other_ns.stdout.readline().strip() == "mounted", "mount in another namespace")
            # inventory sees it too: the claim fails
            inv = run([AGENT, "inventory", "--json"])
            import json
            rows = {d["path"]: d for d in json.loads(inv.stdout)["devices"]}
            check(gx in rows and not rows[gx]["write_allowed"] and
                  any("cannot claim the device exclusively" in w for w in rows[gx]["reasons"]),
                  f"inventory of a device mounted in another namespace: {rows.get(gx)}")
            before = sums(gx, gy)
            camp = os.path.join(tmp, "g3d.yaml")
            with open(camp, "w") as f:
                f.write(f"""name: g3d
insecure: true
destructive: true
wipe_signatures: true
wait: 20s
defaults: {{size: 8m, runtime: 1s, bs: 64k}}
targets:
  - agent: gx
    drives: [{gx}]
  - agent: gy
    drives: [{gy}]
phases:
  - workload: {{rw: write}}
""")
            ep = f"tcp://127.0.0.1:{free_port()}"
            agents = [Agent(ep, n, [d], allow=[d], state_dir=os.path.join(tmp, f"st-{n}"))
                      for n, d in (("gx", gx), ("gy", gy))]
            for n in ("gx", "gy"):
                os.makedirs(os.path.join(tmp, f"st-{n}"), mode=0o700, exist_ok=True)
            try:
                r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out")],
                        timeout=120)
            finally:
                for a in agents:
                    a.stop()
            refused(r, "G3d", f"agent 'gx' drive '{gx}'", "cannot claim the device exclusively",
                    "nothing was written to any drive")
            check(sums(gx, gy) == before, "G3d: a drive was written")
        finally:
            other_ns.kill()
            other_ns.wait()

        # G11c: one device under two names in one campaign: refused at pre-flight
        alias = os.path.join(tmp, "alias-of-gy")
        os.symlink(gy, alias)
        before = sums(gy)
        camp = os.path.join(tmp, "g11c.yaml")
        with open(camp, "w") as f:
            f.write(f"""name: g11c
insecure: true
destructive: true
wipe_signatures: true
wait: 20s
defaults: {{size: 8m, runtime: 500ms, bs: 64k}}
targets:
  - agent: gz
    drives: [{gy}, {alias}]
phases:
  - workload: {{rw: randread}}
  - workload: {{rw: write}}
""")
        ep = f"tcp://127.0.0.1:{free_port()}"
        os.makedirs(os.path.join(tmp, "st-gz"), mode=0o700, exist_ok=True)
        a = Agent(ep, "gz", [gy, alias], allow=[gy, alias], state_dir=os.path.join(tmp, "st-gz"))
        try:
            r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out2")],
                    timeout=120)
        finally:
            a.stop()
        refused(r, "G11c", "is the same device as", gy)
        check(sums(gy) == before, "G11c: the device was written")
        check(not os.path.exists(os.path.join(tmp, "out2")), "G11c: a read phase ran")

        # G3e: the agent in a mount namespace of its own (as in a container) that does not
        # show a mount of the host's: the refusal names the host's mount point (pid 1's
        # table), not only the failed claim
        ge = loop(image(os.path.join(tmp, "ge.img"), 32))
        sh("mkfs.ext4", "-q", "-F", ge)
        gmnt = os.path.join(tmp, "gmnt")
        os.mkdir(gmnt)
        sh("mount", "-o", "ro", ge, gmnt)
        mounts.append(gmnt)
        before = sums(ge)
        r = run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                 f"umount {gmnt} && exec \"$@\"", "sh"] + write_args(tmp, ge))
        refused(r, "G3e", f"{ge}: device is mounted at {gmnt} on the host",
                "cannot claim the device exclusively")
        check(sums(ge) == before, "G3e: the device was written")
        # G3f: the agent in a PID namespace of its own, where pid 1 is not the host's init:
        # no write to any block device, even a clean one with both keys (the control's)
        before = sums(clean)
        r = run(["unshare", "-p", "-f", "--mount-proc"] + write_args(tmp, clean))
        refused(r, "G3f", f"{clean}: the agent runs in a PID namespace of its own",
                "hostPID: true")
        check(sums(clean) == before, "G3f: the device was written")
    finally:
        for m in mounts:
            subprocess.run(["umount", "-l", m])
        for dev in loops:
            subprocess.run(["losetup", "-d", dev])
print("ok")
