# SPDX-License-Identifier: MIT
"""fio's terse output (version 3, fio's HOWTO "Terse output"): `rackbench-agent run
--output-format terse` and its alias `--minimal` print a line a target with the fields of
fio 3.33's own --minimal line of the same job, in its places and shapes (whole numbers,
decimals, percentages, percentile=value pairs), the disk under the file last; the line's
figures agree with one another (KiB, bandwidth, IOPS and runtime; latency ranges adding up
to 100%; a ring of 4 kept full). `rackbench report --format terse` (and `--minimal`)
prints a line per point and drive whose every field is the figure of its job in
`--format fio-json`, in fio's units; what a results file does not keep (ctx, majf, minf,
IO depths) is an empty field, and there is no disk."""
import glob
import json
import os
import re
import shutil

from rbtest import AGENT, COORD, Tmp, check, run, skip

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

    # a campaign's results: a line per point and drive, each field the fio-json job's figure
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    path = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    r = run([COORD, "report", path, "--format", "fio-json"])
    check(r.returncode == 0, f"fio-json: {r.stderr}")
    jobs = json.loads(r.stdout)["jobs"]
    r = run([COORD, "report", path, "--format", "terse"])
    check(r.returncode == 0, f"terse: {r.stderr}")
    terse = lines(r.stdout)
    r = run([COORD, "report", path, "--minimal"])
    check(r.returncode == 0 and lines(r.stdout) == terse, f"--minimal: {r.stderr}")
    check(len(terse) == len(jobs), f"{len(terse)} lines for {len(jobs)} jobs")
    for t, j in zip(terse, jobs):
        name = j["jobname"]
        # no disk counters in a results file: fio's line without a disk
        check(len(t) == 121 and t[:5] == ["3", t[1], name, "0", str(j["error"])],
              f"{name}: {len(t)} fields, head {t[:5]}")
        for base, d in ((5, j["read"]), (46, j["write"])):
            ms = d["runtime"]
            want = [d["io_kbytes"], ms and d["io_bytes"] * 1000 // ms // 1024,
                    ms and d["total_ios"] * 1000 // ms, ms]
            check([int(x) for x in t[base:base + 4]] == want, f"{name}: {t[base:base + 4]} {want}")
            c = d["clat_ns"]
            check(int(t[base + 8]) == c["min"] // 1000 and int(t[base + 9]) == c["max"] // 1000 and
                  abs(float(t[base + 10]) - c["mean"] / 1000) < 1e-5 and
                  abs(float(t[base + 11]) - c["stddev"] / 1000) < 1e-5, f"{name}: clat")
            pct = c.get("percentile", {})
            for i, (k, v) in enumerate(pct.items()):
                check(t[base + 12 + i] == f"{k}%={v // 1000}", f"{name}: {t[base + 12 + i]} {k} {v}")
            check(t[base + 29:base + 32] == ["0%=0"] * 3, f"{name}: the 3 unused places")
            check(t[base + 32:base + 36] == t[base + 8:base + 12], f"{name}: lat is clat")
            check(abs(float(t[base + 36]) - d["bw_min"]) < 1 and
                  abs(float(t[base + 38].rstrip("%")) - d["bw_agg"]) < 1e-5 and
                  abs(float(t[base + 39]) - d["bw_mean"]) < 1e-5, f"{name}: bw samples")
        check(abs(float(t[87].rstrip("%")) - j["usr_cpu"]) < 1e-5, f"{name}: usr_cpu")
        # what the results file does not keep: empty, not 0
        check(t[89:92] == ["", "", ""] and t[92:99] == [""] * 7, f"{name}: {t[89:99]}")
        us = [float(x.rstrip("%")) for x in t[99:109]]
        msr = [float(x.rstrip("%")) for x in t[109:121]]
        want_us = list(j["latency_us"].values())
        want_us[0] += sum(j["latency_ns"].values())  # fio's terse folds ns into the first
        check(all(abs(a - b) <= 0.1 for a, b in zip(us, want_us)), f"{name}: us {us} {want_us}")
        check(all(abs(a - b) <= 0.0051 for a, b in zip(msr, j["latency_ms"].values())),
              f"{name}: ms {msr}")
    r = run([COORD, "report", path, "--minimal", "--format", "csv"])
    check(r.returncode == 2 and "--minimal" in r.stderr, f"--minimal with csv: {r.stderr}")
print("ok")
