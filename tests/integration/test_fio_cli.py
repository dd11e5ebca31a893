# SPDX-License-Identifier: MIT
"""fio's one-liners run unchanged as `rackbench-agent run ARGS`: each command line below
is given to fio 3.33 (Debian's) on a file of 16 MiB and to rackbench-agent run on a file
of its own (plus rackbench's own --destructive, --allow and --state-dir), and the two are held to
each other -- bytes moved per direction, the IO sizes, the stop rule:

- --rw=readwrite with --rwmixwrite and --size: one pass of 8 MiB in all, the mix fio's;
- --bs=4k,64k on a write job and --size=50%: 64 KiB writes, half the file;
- --bsrange=4k-16k with --norandommap, --randrepeat=0, --group_reporting: the bytes (fio
  past them by its last IO at most), and an average IO size within a tenth of fio's;
- --time_based --runtime --ramp_time --rate (bytes) --iodepth_batch_submit: a second's
  bytes at the rate, as fio;
- --output=FILE --output-format=json: fio's JSON in FILE, the job named as --name said.

What rackbench cannot do the same way is refused with exit 2 naming what to use
(--rw=randrw:8, --ioengine=libaoi), and a fio option without --name says how a fio line
is written."""
import json
import os
import shutil

from rbtest import AGENT, Tmp, check, run, skip

FIO = shutil.which("fio")
if not FIO:
    skip("needs fio (scripts/install-deps.sh installs it)")
MIB = 1 << 20


def data(path):
    with open(path, "wb") as f:  # a file with data, as a drive has
        f.write(os.urandom(16 * MIB))
    return path


def fio(args, tmp):
    """fio's JSON for args on a file of 16 MiB: per direction bytes and IOs, summed."""
    target = data(os.path.join(tmp, "fio.dat"))
    r = run([FIO, "--output-format=json", f"--filename={target}", *args], timeout=120)
    check(r.returncode == 0, f"fio {args}: {r.returncode} {r.stderr[-500:]}")
    doc = json.loads(r.stdout[r.stdout.index("{"):])
    return {d: (sum(j[d]["io_bytes"] for j in doc["jobs"]),
                sum(j[d]["total_ios"] for j in doc["jobs"])) for d in ("read", "write")}


def rackbench(args, tmp, *extra, want=0):
    """rackbench-agent run with fio's args on a file of its own: (exit, stdout, stderr)."""
    state = os.path.join(tmp, "state")
    os.makedirs(state, mode=0o700, exist_ok=True)
    target = os.path.join(state, "rb.dat")
    if not os.path.exists(target):
        data(target)
    r = run([AGENT, "run", *args, f"--filename={target}", "--destructive", "--allow", target,
             "--state-dir", state, *extra], timeout=120)
    print(args, r.returncode, r.stderr.strip()[-600:])
    check(r.returncode == want, f"rackbench {args}: exit {r.returncode}, want {want}: "
                                f"{r.stderr[-600:]}")
    return r


def moved(r):
    """rackbench's JSON (fio's format) as fio() gives it."""
    doc = json.loads(r.stdout)
    return {d: (sum(j[d]["io_bytes"] for j in doc["jobs"]),
                sum(j[d]["total_ios"] for j in doc["jobs"])) for d in ("read", "write")}


with Tmp() as tmp:
    # readwrite with a mix: one pass of 8 MiB in all
    line = ["--name=mix", "--ioengine=io_uring", "--rw=readwrite", "--rwmixwrite=25",
            "--bs=16k", "--size=8m"]
    f, rb = fio(line, tmp), moved(rackbench(line, tmp, "--output-format=json"))
    print("readwrite:", f, rb)
    for got in (f, rb):
        check(got["read"][0] + got["write"][0] == 8 * MIB, f"8 MiB in all: {got}")
    share = rb["write"][0] / (8 * MIB)
    check(0.15 < share < 0.35, f"rackbench wrote {share:.0%} of the bytes; rwmixwrite=25")

    # sizes per direction on a write job; size in percent of the file
    line = ["--name=w", "--ioengine=psync", "--rw=write", "--bs=4k,64k", "--size=50%"]
    f, rb = fio(line, tmp), moved(rackbench(line, tmp, "--output-format=json"))
    print("bs per direction:", f, rb)
    check(f["write"] == (8 * MIB, 128), f"fio: 128 writes of 64k: {f}")
    check(rb["write"] == f["write"], f"rackbench {rb['write']}, fio {f['write']}")

    # a range of sizes, fio's own flags that change nothing measured
    line = ["--name=r", "--rw=randread", "--bsrange=4k-16k", "--norandommap",
            "--randrepeat=0", "--group_reporting", "--size=8m", "--iodepth=4",
            "--ioengine=io_uring"]
    f, rb = fio(line, tmp), moved(rackbench(line, tmp, "--output-format=json"))
    print("bsrange:", f, rb)
    # fio stops once it has moved size, its last IO of any size in the range
    check(rb["read"][0] == 8 * MIB and 8 * MIB <= f["read"][0] < 8 * MIB + 16384,
          f"8 MiB: rackbench {rb}, fio {f}")
    avg_f, avg_rb = f["read"][0] / f["read"][1], rb["read"][0] / rb["read"][1]
    check(abs(avg_rb - avg_f) <= 0.1 * avg_f, f"average IO {avg_rb:.0f} B, fio {avg_f:.0f} B")

    # time-based at a rate in bytes, after a ramp: a second's bytes
    line = ["--name=t", "--rw=randread", "--bs=4k", "--time_based", "--runtime=1",
            "--ramp_time=1", "--rate=400k", "--iodepth=2", "--iodepth_batch_submit=2"]
    f, rb = fio(line, tmp), moved(rackbench(line, tmp, "--output-format=json"))
    print("rate:", f, rb)
    check(abs(rb["read"][0] - f["read"][0]) <= 0.3 * f["read"][0],
          f"a second at 400k/s: rackbench {rb['read'][0]}, fio {f['read'][0]}")

    # --output: fio's JSON in the file, the job named
    out = os.path.join(tmp, "out.json")
    line = ["--name=named", "--rw=read", "--bs=64k", "--size=1m"]
    r = rackbench(line, tmp, "--output", out, "--output-format", "json")
    check(r.stdout == "", f"--output: stdout {r.stdout[:200]!r}")
    with open(out) as fh:
        doc = json.load(fh)
    check(doc["jobs"][0]["jobname"] == "named" and doc["jobs"][0]["read"]["io_bytes"] == MIB,
          f"--output's JSON: {json.dumps(doc['jobs'][0])[:300]}")
    # --output never opens a device or replaces a link
    r = rackbench(line, tmp, "--output", "/dev/null", want=2)
    check("not a regular file" in r.stderr, f"--output /dev/null: {r.stderr}")

    # refused, saying what to use
    for line, says in ((["--name=x", "--rw=randrw:8"], "use 'randrw'"),
                       (["--name=x", "--ioengine=libaoi"], "did you mean 'libaio'"),
                       (["--name=x", "--rw=randrw", "--bs=4k,64k"], "two jobs"),
                       (["--name=x", "--zonemode=zbd"], "'--zonemode' is not a fio option"),
                       (["--name=a", "--rw=read", "--name=b"], "several jobs")):
        r = rackbench(line, tmp, want=2)
        check(says in r.stderr, f"{line}: {r.stderr}")
    # a fio option on rackbench's own line: how a fio line is written
    r = run([AGENT, "run", "--target", os.path.join(tmp, "state", "rb.dat"), "--time_based"])
    check(r.returncode == 2 and "--name=JOB" in r.stderr, f"--time_based alone: {r.stderr}")
print("ok")
