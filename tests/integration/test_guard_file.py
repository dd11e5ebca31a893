# SPDX-License-Identifier: MIT
"""The first safety rule on files: a write to a file rackbench did not create needs both
keys; a refusal exits 3, names every missing key, and leaves the file unchanged."""
import os

from rbtest import AGENT, Tmp, check, run, sha256, wait_for

with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state)
    target = os.path.join(tmp, "user-data.bin")
    with open(target, "wb") as f:
        f.write(os.urandom(4 << 20))
    before = sha256(target)
    base = [AGENT, "run", "--target", target, "--runtime", "300ms", "--state-dir", state]
    cases = [
        (["--rw", "write"], ["--destructive is not given", "not on the agent's --allow list"]),
        (["--rw", "randwrite", "--destructive"], ["not on the agent's --allow list"]),
        (["--rw", "randrw", "--allow", target], ["--destructive is not given"]),
        (["--rw", "rw", "--rwmixread", "90"], ["--destructive", "--allow"]),
    ]
    for extra, reasons in cases:
        r = run(base + extra)
        print(" ".join(extra), "->", r.returncode, r.stderr)
        check(r.returncode == 3, f"{extra}: exit {r.returncode}, want 3")
        check(target in r.stderr, f"{extra}: refusal does not name the target")
        for reason in reasons:
            check(reason in r.stderr, f"{extra}: refusal does not say '{reason}'")
        check("nothing was written" in r.stderr, "refusal says nothing was written")
        check(sha256(target) == before, f"{extra}: the file changed")
    # a symlink in the state folder to the user's file is still the user's file
    link = os.path.join(state, "innocent.dat")
    os.symlink(target, link)
    r = run([AGENT, "run", "--target", link, "--rw", "write", "--destructive",
             "--runtime", "300ms", "--state-dir", state])
    check(r.returncode == 3, f"symlink: exit {r.returncode}")
    check(sha256(target) == before, "symlink: the file changed")
    # reads need no key
    r = run(base + ["--rw", "randread"])
    check(r.returncode == 0, f"read: exit {r.returncode} {r.stderr}")
    check(sha256(target) == before, "a read changed the file")
    # both keys: written (the control that shows the refusals above were the guard's)
    r = run(base + ["--rw", "write", "--destructive", "--allow", target])
    check(r.returncode == 0, f"both keys: exit {r.returncode} {r.stderr}")
    check(sha256(target) != before, "both keys: the file was not written")
    # a file rackbench creates in its state folder needs only the run's key
    own = os.path.join(state, "own.dat")
    r = run([AGENT, "run", "--target", own, "--size", "4m", "--rw", "write",
             "--runtime", "300ms", "--state-dir", state])
    check(r.returncode == 3 and "--destructive" in r.stderr, "own file without --destructive")
    r = run([AGENT, "run", "--target", own, "--size", "4m", "--rw", "write", "--destructive",
             "--runtime", "300ms", "--state-dir", state])
    check(r.returncode == 0, f"own file: exit {r.returncode} {r.stderr}")
print("ok")

# ---- a file is rackbench's only if rackbench created it (the probe's G5-G7, G11b, G13) ----
import subprocess


def size(path):
    return os.path.getsize(path)


with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    outside = os.path.join(tmp, "outside")
    os.mkdir(state, 0o700)
    os.mkdir(outside)
    A = [AGENT, "run", "--runtime", "300ms", "--state-dir", state]

    def victim(name, n=4 << 20):
        p = os.path.join(outside, name)
        with open(p, "wb") as f:
            f.write(os.urandom(n))
        return p

    # G5a: a hard link in the state folder names an outside inode: refused with one key
    v = victim("victim.bin")
    hl = os.path.join(state, "hl.bin")
    os.link(v, hl)
    before = sha256(v)
    r = run(A + ["--target", hl, "--rw", "write", "--destructive"])
    print("hard link, write:", r.returncode, r.stderr)
    check(r.returncode == 3, f"hard link write: exit {r.returncode}, want 3")
    check("2 links" in r.stderr and "rackbench did not create it" in r.stderr,
          "the refusal says the file has two links and is not rackbench's")
    check(sha256(v) == before, "hard link write: the outside file changed")
    # G5b: a read with no key must not lay out (grow, rewrite) a file that is not its own
    v2 = victim("v2.bin", 1 << 20)
    hl2 = os.path.join(state, "hl2.bin")
    os.link(v2, hl2)
    before2 = sha256(v2)
    r = run(A + ["--target", hl2, "--rw", "randread", "--size", "4m"])
    print("hard link, read with a size past it:", r.returncode, r.stderr)
    check(r.returncode not in (0, 3) and "lays out only files it created" in r.stderr,
          f"read of a short foreign file: exit {r.returncode} {r.stderr}")
    check(sha256(v2) == before2 and size(v2) == 1 << 20, "the read rewrote or grew the file")
    # G5c: purge --method zero of the hard link
    r = run([AGENT, "purge", hl, "--method", "zero", "--destructive", "--state-dir", state])
    print("hard link, purge zero:", r.returncode, r.stderr)
    check(r.returncode == 3, f"purge of a hard link: exit {r.returncode}, want 3")
    check(sha256(v) == before, "purge zeroed the outside file")
    # G6a/b: a dangling symlink: nothing is created outside, read or write
    new = os.path.join(outside, "new.bin")
    dl = os.path.join(state, "dangling.bin")
    os.symlink(new, dl)
    for extra in (["--rw", "randread", "--size", "4m"],
                  ["--rw", "write", "--size", "4m", "--destructive"]):
        r = run(A + ["--target", dl] + extra)
        print("dangling symlink", extra, r.returncode, r.stderr)
        check(r.returncode != 0, f"dangling symlink {extra}: exit 0")
        check(not os.path.exists(new), f"dangling symlink {extra}: the outside file was made")
        check("dangling symbolic link" in r.stderr, "the error says the link dangles")
    # a file rackbench made, then replaced by someone else's under the same name
    mine = os.path.join(state, "mine.bin")
    r = run(A + ["--target", mine, "--rw", "write", "--size", "1m", "--destructive"])
    check(r.returncode == 0, f"own file: {r.returncode} {r.stderr}")
    os.unlink(mine)
    with open(mine, "wb") as f:
        f.write(b"\0" * (1 << 20))
    r = run(A + ["--target", mine, "--rw", "write", "--size", "1m", "--destructive"])
    check(r.returncode == 3 and "not in the folder's index" in r.stderr,
          f"a replaced file is not rackbench's: {r.returncode} {r.stderr}")
    os.unlink(mine)
    # G7: b.bin swapped for a symlink to an outside file while a.bin is laid out. The
    # targets are opened and judged before any layout, and the run writes what it opened,
    # so the outside file is never written whenever the swap lands.
    b = os.path.join(state, "b.bin")
    r = run(A + ["--target", b, "--rw", "read", "--size", "16m"])
    check(r.returncode == 0, f"b.bin made by rackbench: {r.stderr}")
    v3 = victim("v3.bin", 16 << 20)
    before3 = sha256(v3)
    a = os.path.join(state, "a.bin")
    w = subprocess.Popen(A[:2] + ["--target", a, "--target", b, "--size", "16m", "--rw", "write",
                                  "--destructive", "--runtime", "1s", "--state-dir", state],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # looked for every 1 ms: the swap should land while a.bin is being laid out
    wait_for(lambda: os.path.exists(a) or w.poll() is not None, "a.bin to be made", every=0.001)
    tmpl = os.path.join(state, "t")
    os.symlink(v3, tmpl)
    os.replace(tmpl, b)
    out, err = w.communicate(timeout=60)
    print("swap during layout:", w.returncode, err[-400:])
    check(sha256(v3) == before3, "the swapped-in symlink was written through")
    os.unlink(b)
    # G11b: one file under two names in one run is measured twice at once: refused
    one = os.path.join(state, "one.bin")
    alias = os.path.join(state, "..", "state", "one.bin")
    r = run(A + ["--target", one, "--target", alias, "--rw", "randread", "--size", "1m"])
    print("one file, two names:", r.returncode, r.stderr)
    check(r.returncode != 0 and "is the same file as target" in r.stderr,
          f"two names of one file: {r.returncode} {r.stderr}")
    # another process has rackbench's own file open for writing: refused, naming it
    r = run(A + ["--target", one, "--rw", "read", "--size", "1m"])
    check(r.returncode == 0, f"one.bin: {r.stderr}")
    holder = subprocess.Popen(["/usr/bin/python3", "-c",
                               "import signal,sys; f=open(sys.argv[1],'r+b'); "
                               "print('open', flush=True); signal.pause()", one],
                              stdout=subprocess.PIPE, text=True)
    try:
        check(holder.stdout.readline().strip() == "open", "holder did not start")
        r = run(A + ["--target", one, "--rw", "write", "--size", "1m", "--destructive"])
        print("open for writing elsewhere:", r.returncode, r.stderr)
        check(r.returncode == 3 and f"open for writing by process {holder.pid}" in r.stderr,
              f"a file another process writes: {r.returncode} {r.stderr}")
    finally:
        holder.kill()
        holder.wait()
    # G13: a system folder or a folder anyone can write is no state folder
    v4 = victim("v4.bin", 1 << 20)
    before4 = sha256(v4)
    for sd, why in (("/", "is a system folder"), (outside, "writable by every user")):
        if sd == outside:
            os.chmod(outside, 0o777)
        r = run([AGENT, "run", "--target", v4 if sd == "/" else os.path.join(outside, "x.bin"),
                 "--rw", "write", "--size", "1m", "--destructive", "--runtime", "300ms",
                 "--state-dir", sd])
        print("state folder", sd, r.returncode, r.stderr)
        check(r.returncode == 3 and why in r.stderr, f"--state-dir {sd}: {r.returncode} {r.stderr}")
    check(sha256(v4) == before4, "a file changed through a state folder that is not one")
    check(not os.path.exists(os.path.join(outside, "x.bin")), "a file was made in a 0777 folder")
print("ok: file rules")

# ---- the second look: races, reserved names, the index, FIFOs ----
import ctypes
import threading

libc = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE = 2
AT_FDCWD = -100


def exchange(a, b):
    return libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE)


with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    outside = os.path.join(tmp, "outside")
    os.mkdir(state, 0o700)
    os.mkdir(outside)
    victim = os.path.join(outside, "victim.bin")
    with open(victim, "wb") as f:
        f.write(os.urandom(1 << 20))
    before = sha256(victim)
    # a read with --layout and no key, while a name is swapped between a link to
    # /dev/null and a hard link to the victim: the run is judged on what it opened
    t_name, alt = os.path.join(state, "t.bin"), os.path.join(state, "alt")
    os.symlink("/dev/null", t_name)
    os.link(victim, alt)
    stop = False

    def swapper():
        while not stop:
            exchange(t_name, alt)

    th = threading.Thread(target=swapper)
    th.start()
    try:
        for _ in range(30):
            run([AGENT, "run", "--target", t_name, "--rw", "read", "--layout", "true",
                 "--size", "1m", "--runtime", "1ms", "--state-dir", state])
    finally:
        stop = True
        th.join()
    check(sha256(victim) == before, "a keyless --layout read wrote through a swapped name")
    # the index through a hard link to an outside file: never appended to, never trusted
    idx_victim = os.path.join(outside, "notes.txt")
    with open(idx_victim, "w") as f:
        f.write("precious\n")
    s2 = os.path.join(tmp, "state2")
    os.mkdir(s2, 0o700)
    os.link(idx_victim, os.path.join(s2, "created"))
    r = run([AGENT, "run", "--target", os.path.join(s2, "new.bin"), "--rw", "read", "--size", "1m",
             "--runtime", "100ms", "--state-dir", s2])
    check(r.returncode != 0, f"a file recorded through a linked index: {r.returncode}")
    check(open(idx_victim).read() == "precious\n", "the linked index's file was appended to")
    # rackbench's bookkeeping is not a target
    s3 = os.path.join(tmp, "state3")
    os.mkdir(s3, 0o700)
    for name in ("created", "history.jsonl"):
        r = run([AGENT, "run", "--target", os.path.join(s3, name), "--rw", "write", "--size", "1m",
                 "--destructive", "--runtime", "100ms", "--state-dir", s3])
        check(r.returncode == 3 and "bookkeeping" in r.stderr, f"target {name}: {r.stderr}")
    # a FIFO is refused before anything opens it (an open would block)
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    r = run([AGENT, "run", "--target", fifo, "--rw", "read", "--runtime", "100ms",
             "--state-dir", state], timeout=20)
    check(r.returncode == 2 and "neither a block device nor a regular file" in r.stderr,
          f"a FIFO: {r.returncode} {r.stderr}")
    # the history is never written through a link
    s4 = os.path.join(tmp, "state4")
    os.mkdir(s4, 0o700)
    hv = os.path.join(outside, "hist-victim.txt")
    with open(hv, "w") as f:
        f.write("x\n")
    os.symlink(hv, os.path.join(s4, "history.jsonl"))
    r = run([AGENT, "run", "--target", os.path.join(s4, "own.bin"), "--rw", "write", "--size", "1m",
             "--destructive", "--runtime", "100ms", "--state-dir", s4])
    check(open(hv).read() == "x\n", "the history was written through a symlink")
print("ok: races and bookkeeping")
