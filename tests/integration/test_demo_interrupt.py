# SPDX-License-Identifier: MIT
"""Ctrl-C on `rackbench demo` stops its agents (no child left behind), removes its
temporary folder, and exits non-zero with a results file marked aborted."""
import glob
import os
import signal
import subprocess
import time

from rbtest import COORD, Tmp, check, h5

h5py = h5()


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


with Tmp() as tmp:
    p = subprocess.Popen([COORD, "demo", "--out", tmp], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    # wait until the first point runs
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not glob.glob(os.path.join(tmp, "demo-*.h5")):
        time.sleep(0.1)
    time.sleep(1)
    kids = children(p.pid)
    check(len(kids) == 2, f"demo has {len(kids)} agent children, want 2")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
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
