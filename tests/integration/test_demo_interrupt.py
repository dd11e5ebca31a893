# SPDX-License-Identifier: MIT
"""Ctrl-C on `rackbench demo` stops its agents (no child left behind), removes its
temporary folder, and exits non-zero with a results file marked aborted."""
import glob
import os
import signal
import subprocess

from rbtest import COORD, Tmp, check, h5, wait_for

h5py = h5()


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


with Tmp() as tmp:
    errf = open(os.path.join(tmp, "demo.err"), "w+")
    p = subprocess.Popen([COORD, "demo", "--out", tmp], stdout=subprocess.PIPE,
                         stderr=errf, text=True)
    # wait until the first point runs: its results file is there and it says so
    wait_for(lambda: glob.glob(os.path.join(tmp, "demo-*.h5")) and
             "rackbench: [1/" in open(errf.name).read(), "the demo's first point to start")
    kids = children(p.pid)
    check(len(kids) == 2, f"demo has {len(kids)} agent children, want 2")
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    err = open(errf.name).read()
    print(out, err)
    check(p.returncode != 0, "an interrupted demo exits non-zero")
    for k in kids:
        check(not os.path.exists(f"/proc/{k}") or
              open(f"/proc/{k}/stat").read().split()[2] == "Z", f"agent {k} still running")
    tmpdirs = [l for l in err.splitlines() if "file targets in" in l]
    check(tmpdirs, "demo names its temporary folder")
    folder = tmpdirs[0].split("file targets in ")[1].split(",")[0]
    check(not os.path.exists(folder), f"temporary folder {folder} left behind")
    files = glob.glob(os.path.join(tmp, "demo-*.h5"))
    with h5py.File(files[0], "r") as f:
        check(f.attrs["status"] == "aborted", f"status {f.attrs['status']}")
print("ok")
