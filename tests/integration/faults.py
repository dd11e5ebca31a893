# SPDX-License-Identifier: MIT
"""Helpers of the fault matrix (tests/integration/test_fault_*.py): a small tmpfs for a
full disk, the sample keys a journal or a spool holds, and the invariants every case
checks -- the file opens, every acknowledged sample is in it exactly once, no process is
left behind."""
import glob
import json
import os
import subprocess
from collections import Counter

from rbtest import AGENT, COORD, check, h5, run, skip

h5py = h5()


def need_root(why):
    if os.geteuid() != 0:
        skip(f"not root: {why}")


class SmallFs:
    """A tmpfs of `size` (mount -t tmpfs -o size=...) at path: a folder that fills up."""

    def __init__(self, path, size):
        os.makedirs(path, exist_ok=True)
        r = run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path])
        if r.returncode:
            skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
        self.path = path

    def grow(self, size):
        r = run(["mount", "-o", f"remount,size={size}", self.path])
        check(r.returncode == 0, f"cannot grow the tmpfs: {r.stderr}")

    def __enter__(self):
        return self

    def __exit__(self, *a):
        subprocess.run(["umount", "-l", self.path], capture_output=True)


def sample_keys(lines):
    """(drive, point, attempt, interval, direction) of every sample in dump lines."""
    return [(s["drive"], s["point"], s["attempt"], s["interval"], s["direction"])
            for r in lines if r.get("body") == "samples" for s in r["samples"]]


def journal_keys(path):
    r = run([COORD, "journal", path])
    check(r.returncode == 0, f"rackbench journal {path}: exit {r.returncode} {r.stderr}")
    return sample_keys([json.loads(x) for x in r.stdout.splitlines()]), r.stderr


def spool_keys(folder):
    """The sample keys of every spool file under folder/spool."""
    keys = []
    for sp in glob.glob(os.path.join(folder, "spool", "*.spool")):
        r = run([AGENT, "spool", sp])
        check(r.returncode == 0, f"spool reader on {sp}: exit {r.returncode} {r.stderr}")
        keys += sample_keys([json.loads(x) for x in r.stdout.splitlines()])
    return keys


def read_file(path):
    """status, sample keys (drive by path), results keys (drive, point, attempt, status)."""
    with h5py.File(path, "r") as h:
        status = h.attrs["status"]
        status = status.decode() if isinstance(status, bytes) else str(status)
        drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
        rows = [(drives[int(s["drive"])], int(s["point"]), int(s["attempt"]),
                 int(s["interval"]), int(s["direction"])) for s in h["samples"][:]]
        results = [(drives[int(x["drive"])], int(x["point"]), int(x["attempt"]),
                    x["status"].decode()) for x in h["results"][:]]
    return status, rows, results


def check_once(rows, expected, what):
    """Every key of expected is in rows exactly once, and no key of rows twice."""
    count = Counter(rows)
    dup = [k for k, n in count.items() if n > 1]
    check(not dup, f"sample keys stored twice: {dup[:5]}")
    missing = [k for k in set(expected) if count[k] != 1]
    check(not missing, f"{len(missing)} {what} samples not in the file once: {missing[:5]}")


def check_whole(rows, results, npoints):
    """Every drive has an ok result per point, and its samples of that attempt have no
    hole in their intervals (from 0 to the last)."""
    drives = {r[0] for r in results}
    for d in drives:
        for p in range(npoints):
            ok = [r for r in results if r[0] == d and r[1] == p and r[3] == "ok"]
            check(len(ok) == 1, f"drive {d} point {p}: {len(ok)} ok results ({results})")
            att = ok[0][2]
            for di in {k[4] for k in rows if k[0] == d and k[1] == p and k[2] == att}:
                iv = sorted(k[3] for k in rows
                            if k[0] == d and k[1] == p and k[2] == att and k[4] == di)
                check(iv == list(range(len(iv))),
                      f"drive {d} point {p} attempt {att} direction {di}: intervals {iv}")


def stop_all(agents):
    """Stops the agents (SIGTERM) and checks each ended by itself, none left behind."""
    for a in agents:
        rc = a.stop()
        check(a.proc.poll() is not None, f"agent pid {a.proc.pid} left behind")
        check(rc == 0, f"agent pid {a.proc.pid} exited {rc}:\n{a.output()[-2000:]}")
