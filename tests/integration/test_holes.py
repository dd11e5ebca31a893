# SPDX-License-Identifier: MIT
"""Reads of a file's holes measure no device (the kernel returns zeros from memory), so a
read whose range holds a hole is refused with exit 2, naming the file and the first hole;
--allow-holes reads it as it is; --layout writes the range first, which is a write and
needs the guard's keys for a file rackbench did not create. A trim run punches holes in
rackbench's own file; a later read is refused until the range is laid out again."""
import os

from rbtest import AGENT, Tmp, check, run


def first_hole(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_HOLE)
    finally:
        os.close(fd)


with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    A = [AGENT, "run", "--rw", "randread", "--bs", "4k", "--runtime", "200ms", "--state-dir", state]
    sparse = os.path.join(tmp, "sparse.bin")
    with open(sparse, "wb") as f:
        f.truncate(4 << 20)
    r = run(A + ["--target", sparse])
    print("sparse:", r.returncode, r.stderr)
    check(r.returncode == 2, f"a read of holes: exit {r.returncode}, want 2")
    check(sparse in r.stderr and "hole at byte 0" in r.stderr, "the refusal names file and hole")
    r = run(A + ["--target", sparse, "--allow-holes", "true"])
    check(r.returncode == 0, f"--allow-holes: {r.returncode} {r.stderr}")
    # the first hole, past data
    half = os.path.join(tmp, "half.bin")
    with open(half, "wb") as f:
        f.write(os.urandom(2 << 20))
        f.truncate(4 << 20)
    if first_hole(half) == 2 << 20:  # the filesystem reports holes (ext4, tmpfs, xfs)
        r = run(A + ["--target", half])
        check(r.returncode == 2 and f"hole at byte {2 << 20}" in r.stderr, r.stderr)
        # a range that stops before the hole reads
        r = run(A + ["--target", half, "--size", "2m"])
        check(r.returncode == 0, f"a range before the hole: {r.returncode} {r.stderr}")
    # --layout writes the file: both keys for a file rackbench did not create
    r = run(A + ["--target", sparse, "--layout", "true"])
    check(r.returncode == 3 and "--destructive" in r.stderr and "--allow" in r.stderr,
          f"--layout without keys: {r.returncode} {r.stderr}")
    check(first_hole(sparse) == 0, "a refused layout wrote the file")
    r = run(A + ["--target", sparse, "--layout", "true", "--destructive", "--allow", sparse])
    check(r.returncode == 0, f"--layout with both keys: {r.returncode} {r.stderr}")
    check(first_hole(sparse) == 4 << 20, f"after --layout the first hole is at {first_hole(sparse)}")
    r = run(A + ["--target", sparse])
    check(r.returncode == 0, f"a read after the layout: {r.returncode} {r.stderr}")
    # rackbench's own file: a trim run punches holes, the next read is refused
    own = os.path.join(state, "own.bin")
    r = run(A + ["--target", own, "--size", "4m"])
    check(r.returncode == 0, f"own file laid out and read: {r.returncode} {r.stderr}")
    r = run([AGENT, "run", "--target", own, "--rw", "trim", "--bs", "64k", "--runtime", "200ms",
             "--destructive", "--state-dir", state])
    check(r.returncode == 0, f"trim: {r.returncode} {r.stderr}")
    if first_hole(own) < 4 << 20:
        r = run(A + ["--target", own])
        check(r.returncode == 2 and "hole at byte" in r.stderr, f"read after trim: {r.stderr}")
        r = run(A + ["--target", own, "--layout", "true", "--destructive"])
        check(r.returncode == 0, f"own file, --layout with the run's key: {r.stderr}")
print("ok")
