# SPDX-License-Identifier: MIT
"""fio's terse output (version 3, fio's HOWTO "Terse output"): `rackbench-agent run
--output-format terse` and its alias `--minimal` print a line a target with the fields of
fio 3.33's own --minimal line of the same job, in its places and shapes (whole numbers,
decimals, percentages, percentile=value pairs), the disk under the file last; the line's
figures agree with one another (KiB, bandwidth, IOPS and runtime; latency ranges adding up
to 100%; a ring of 4 kept full)."""
import os
import re
import shutil

from rbtest import AGENT, Tmp, check, run, skip

if not shutil.which("fio"):
    skip("needs fio (Debian's fio package)")

SHAPES = (("int", r"\d+"), ("dec", r"-?\d+\.\d+"), ("pct", r"-?\d+\.\d+%"),
          ("pctl", r"\d+\.\d+%=\d+"), ("zero-pctl", r"0%=0"))


def shape(field):
    for name, rx in SHAPES:
        if re.fullmatch(rx, field):
            return name
    return "text"


def lines(out):
    return [line.split(";") for line in out.splitlines() if line.strip()]


with Tmp() as tmp:
    data = os.path.join(tmp, "data.bin")
    with open(data, "wb") as f:
        f.write(os.urandom(16 << 20))
    r = run(["fio", "--name=j", f"--filename={data}", "--rw=randrw", "--bs=4k", "--iodepth=4",
             "--ioengine=io_uring", "--direct=1", "--runtime=1", "--time_based", "--minimal"])
    check(r.returncode == 0, f"fio: {r.stderr}")
    fio = lines(r.stdout)[-1]
    check(fio[0] == "3" and len(fio) >= 121, f"fio's own line: {len(fio)} fields")
    common = ["run", "--target", data, "--allow", data, "--destructive", "--rw", "randrw", "--bs",
              "4k", "--iodepth", "4", "--runtime", "1s", "--state-dir", os.path.join(tmp, "st")]
    for fmt in (["--output-format", "terse"], ["--minimal"]):
        r = run([AGENT] + common + fmt)
        check(r.returncode == 0, f"{fmt}: {r.returncode} {r.stderr}")
        got = lines(r.stdout)
        check(len(got) == 1, f"{fmt}: {len(got)} lines")
        ours = got[0]
        check(len(ours) == len(fio), f"{fmt}: {len(ours)} fields, fio's line {len(fio)}")
        check(ours[0] == "3" and ours[1].startswith("rackbench-") and ours[2] == data,
              f"{fmt}: head {ours[:5]}")
        # every field in fio's place and shape (the names aside: version, job, disk)
        for i, (a, b) in enumerate(zip(fio, ours)):
            if i in (1, 2) or (shape(a) == "text" and shape(b) == "text"):
                continue
            check(shape(a) == shape(b), f"{fmt}: field {i + 1} is '{b}', fio's '{a}'")
        # the line's figures agree: per direction KiB, KiB/s, IOPS, runtime (ms)
        for base in (5, 46):
            kib, bw, iops, ms = (int(x) for x in ours[base:base + 4])
            check(ms > 0 and abs(kib * 1000 / ms - bw) <= 1 and abs(kib / 4 * 1000 / ms - iops) <= 1,
                  f"{fmt}: {kib} KiB, {bw} KiB/s, {iops} IOPS in {ms} ms")
            pmin, pmax = int(ours[base + 8]), int(ours[base + 9])
            p50 = int(ours[base + 12 + 6].split("=")[1])  # the 7th percentile field, 50%
            check(pmin <= p50 <= pmax, f"{fmt}: p50 {p50} us outside {pmin}..{pmax}")
        depth = [float(x.rstrip("%")) for x in ours[92:99]]
        check(depth[2] == 100.0, f"{fmt}: IO depths {depth}")
        ranges = [float(x.rstrip("%")) for x in ours[99:121]]
        check(abs(sum(ranges) - 100) < 0.3, f"{fmt}: latency ranges add up to {sum(ranges)}")
    r = run([AGENT] + common + ["--minimal", "--output-format", "json"])
    check(r.returncode == 2 and "--minimal" in r.stderr, f"--minimal with json: {r.stderr}")
print("ok")
