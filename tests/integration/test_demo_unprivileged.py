# SPDX-License-Identifier: MIT
"""rackbench demo as an unprivileged user (uid 65534): no root, no drives, no config.
The HDF5 file has a results row for each of the 4 demo drives at every point, each with
non-zero IOPS."""
import glob
import os
import shutil
import stat

from rbtest import AGENT, COORD, Tmp, check, h5, run, skip

h5py = h5()
if os.geteuid() != 0:
    skip("needs root to switch to uid 65534 with setpriv")
if not shutil.which("setpriv"):
    skip("needs setpriv (util-linux)")

with Tmp() as tmp:
    os.chmod(tmp, 0o755)
    # the build tree may sit in a folder nobody cannot enter: copy the two programs
    bindir = os.path.join(tmp, "bin")
    os.mkdir(bindir)
    for exe in (COORD, AGENT):
        dst = os.path.join(bindir, os.path.basename(exe))
        shutil.copy(exe, dst)
        os.chmod(dst, 0o755)
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    os.chmod(out, 0o777 | stat.S_ISVTX)
    r = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
             os.path.join(bindir, "rackbench"), "demo", "--out", out],
            env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "TMPDIR": "/tmp"}, cwd="/")
    print(r.stdout, r.stderr)
    check(r.returncode == 0, f"demo as uid 65534 exited {r.returncode}")
    files = glob.glob(os.path.join(out, "demo-*.h5"))
    check(len(files) == 1, f"one HDF5 file, found {files}")
    check(os.stat(files[0]).st_uid == 65534, "file written by the unprivileged user")
    with h5py.File(files[0], "r") as f:
        res = f["results"][:]
        npoints, ndrives = len(f["points"]), len(f["drives"])
        check(ndrives == 4, f"{ndrives} drives, want 4")
        check(npoints >= 2, "points")
        check(len(res) == ndrives * npoints, f"{len(res)} rows, want {ndrives * npoints}")
        seen = {(int(x["drive"]), int(x["point"])) for x in res}
        check(len(seen) == ndrives * npoints, "a row for every drive at every point")
        for x in res:
            check(x["read_iops"] + x["write_iops"] > 0, f"zero IOPS: {x}")
    check("results:" in r.stdout and "IOPS" in r.stdout, "summary table printed")
    leftovers = glob.glob("/tmp/rackbench-demo.*")
    check(not [d for d in leftovers if os.stat(d).st_uid == 65534], f"temporary folder left: {leftovers}")
print("ok")
