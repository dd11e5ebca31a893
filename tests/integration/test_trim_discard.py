# SPDX-License-Identifier: MIT
"""A trim is a discard, not a write of zeroes: `--rw trim` on a loop device moves the
device's own discard counters (/sys/block/loopN/stat: discards, their sectors) and not
its write counters, through each of its paths -- io_uring's block discard command
(trim_method uring_cmd, Linux 6.12 on) and the BLKDISCARD ioctl (forced with
--trim-method ioctl) -- each named in the run's JSON. `--rw writezeroes` is the other
operation: its IOs are writes to the block layer (Write Zeroes), no discard. On a file a
trim is a punched hole."""
import json
import os

from rbtest import AGENT, LoopDevices, Tmp, check, need, run

need(root_for="a loop device", tools=("losetup",))
MIB = 1 << 20


def counters(dev):
    """(write IOs, write sectors, discard IOs, discard sectors) of a block device."""
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        v = [int(x) for x in f.read().split()]
    check(len(v) >= 15, f"{dev}: the kernel's stat has no discard fields: {v}")
    return v[4], v[6], v[11], v[13]


def trimmed(dev, state, *flags):
    """The run's JSON and the counters' deltas of one pass of 16 MiB on dev."""
    before = counters(dev)
    r = run([AGENT, "run", "--target", dev, "--size", "16m", "--bs", "1m", "--passes", "1",
             "--destructive", "--allow", dev, "--state-dir", state, "--json", *flags])
    print(flags, r.returncode, r.stderr.strip())
    check(r.returncode == 0, f"{flags}: exit {r.returncode} {r.stderr}")
    after = counters(dev)
    return json.loads(r.stdout), [a - b for a, b in zip(after, before)]


with Tmp() as tmp, LoopDevices(tmp, 1, size=64 * MIB) as (dev,):
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    for how in ("uring_cmd", "ioctl"):
        doc, (w_ios, w_sec, d_ios, d_sec) = trimmed(dev, state, "--rw", "trim",
                                                    "--trim-method", how)
        print(how, doc["trim_method"], w_ios, w_sec, d_ios, d_sec)
        check(doc["trim_method"] == how, f"the run says {doc['trim_method']!r}, asked {how}")
        check(doc["trim"]["ios"] == 16, f"{how}: {doc['trim']['ios']} trims, want 16")
        check(d_sec == 16 * MIB // 512 and d_ios > 0,
              f"{how}: the device discarded {d_sec} sectors in {d_ios} IOs, want 32768")
        check(w_ios == 0 and w_sec == 0, f"{how}: the device counted {w_ios} writes: a trim "
                                         "went as a write")
    # auto: the command where the kernel has it, the ioctl else; said either way
    doc, (_, _, d_ios, d_sec) = trimmed(dev, state, "--rw", "randtrim")
    check(doc["trim_method"] in ("uring_cmd", "ioctl") and d_sec == 16 * MIB // 512,
          f"auto: {doc['trim_method']} {d_sec}")
    # write-zeroes: writes to the block layer, never a discard
    doc, (w_ios, w_sec, d_ios, d_sec) = trimmed(dev, state, "--rw", "writezeroes")
    print("writezeroes", doc["trim_method"], w_ios, w_sec, d_ios, d_sec)
    check(doc["trim_method"] == "write_zeroes" and doc["trim"]["ios"] == 16,
          f"writezeroes: {doc['trim_method']} {doc['trim']['ios']}")
    check(d_ios == 0 and w_sec == 16 * MIB // 512,
          f"writezeroes: {w_sec} sectors written, {d_ios} discards")
    # a file: a punched hole
    own = os.path.join(state, "own.bin")
    r = run([AGENT, "run", "--target", own, "--size", "4m", "--bs", "1m", "--passes", "1",
             "--rw", "trim", "--destructive", "--state-dir", state, "--json"])
    check(r.returncode == 0 and json.loads(r.stdout)["trim_method"] == "punch_hole",
          f"a file's trim: {r.returncode} {r.stdout[-300:]} {r.stderr}")
print("ok")
