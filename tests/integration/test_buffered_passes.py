# SPDX-License-Identifier: MIT
"""Buffered IO reads the drive on every pass, as fio's does: `--direct false` over three
passes of a loop device moves three passes' worth of the device's own read sectors
(/sys/block/loopN/stat), with `invalidate` (the default: the range's page cache dropped
before each pass, a block device's buffers flushed, BLKFLSBUF); with `--invalidate false`
the passes after the first come from the page cache and the device reads about one.
Random reads are advised as random (no readahead): a 4k random pass reads exactly the
pass from the device; a sequential one at most its readahead past it, as fio does."""
import json
import os

from rbtest import AGENT, LoopDevices, Tmp, check, need, run

need(root_for="a loop device and its page cache", tools=("losetup",))
MIB = 1 << 20


def device_reads(dev):
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        return int(f.read().split()[2]) * 512


def passes(dev, state, rw, bs, *flags):
    """(bytes the run read, bytes the device read) for 3 passes of 16 MiB, buffered."""
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    before = device_reads(dev)
    r = run([AGENT, "run", "--target", dev, "--size", "16m", "--bs", bs, "--rw", rw,
             "--passes", "3", "--direct", "false", "--state-dir", state, "--json", *flags])
    check(r.returncode == 0, f"{rw} {flags}: exit {r.returncode} {r.stderr}")
    return json.loads(r.stdout)["read"]["bytes"], device_reads(dev) - before


with Tmp() as tmp, LoopDevices(tmp, 1, size=64 * MIB) as (dev,):
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    # random: every block once a pass (fio's randommap), so no pass reads a block twice
    for rw, bs, more in (("read", "128k", ()), ("randread", "4k", ("--visit_once", "true"))):
        said, dev_read = passes(dev, state, rw, bs, *more)
        print(rw, "invalidate:", said, dev_read)
        check(said == 48 * MIB, f"{rw}: the run read {said}, want 3 passes of 16 MiB")
        # every pass from the drive; a sequential pass's readahead (up to two windows of
        # twice the device's, advised sequential) may read past its end, as under fio
        with open(f"/sys/block/{os.path.basename(dev)}/queue/read_ahead_kb") as f:
            ahead = 3 * 4 * int(f.read()) * 1024 if rw == "read" else 0
        check(48 * MIB <= dev_read <= 48 * MIB + ahead,
              f"{rw}: the device read {dev_read / MIB:.1f} MiB for 3 passes of 16 MiB "
              f"(readahead allowed {ahead / MIB:.1f} MiB)")
        said, kept = passes(dev, state, rw, bs, "--invalidate", "false", *more)
        print(rw, "kept:", said, kept)
        check(kept < 24 * MIB, f"{rw} --invalidate false: the device read {kept / MIB:.1f} MiB"
                               ": the cache should have served the passes after the first")
print("ok")
