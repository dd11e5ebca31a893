# SPDX-License-Identifier: MIT
"""Presets: `rackbench presets` lists every documented preset; `rackbench plan` of each
against a sample target list gives the point counts and durations of the documented
methodology (one snia-pts-iops round is 56 points, the cdn matrix 18 points per
direction, ...); overrides shorten a preset and a bad one is exit 2 at FILE:LINE:COLUMN."""
import os
import re

from rbtest import COORD, SRC, Tmp, check, run

NAMES = ["storagereview-fio", "cdn", "vdbench-4corners", "database", "snia-pts-iops",
         "snia-pts-throughput", "snia-pts-latency", "crystaldiskmark", "atto", "burnin",
         "dlio-checkpoint", "gdsio", "sysbench-oltp", "vdi-boot", "vdi-login"]

# (preset, phase line fragment) pairs the documented methodology fixes
WANT = {
    "storagereview-fio": ["phase precondition-128k: 1 point(s), 36m39s; size-based: 2.00 TiB per drive",
                          "phase seq-write-128k: 1 point(s), 2m00s",
                          "phase seq-read-128k: 1 point(s), 2m00s",
                          "phase random-64k: 24 point(s), 48m00s",
                          "phase random-16k: 24 point(s)", "phase random-4k: 24 point(s)"],
    "cdn": ["phase precondition-fill: 1 point(s)", "phase saturation: 1 point(s), 1h00m",
            "phase cdn-write: 18 point(s), 1h48m", "phase cdn-read: 18 point(s), 1h48m"],
    "vdbench-4corners": [f"phase {c}: 13 point(s) (1 curve(s): an unthrottled run, then 12 "
                         "rate(s) each), 1h05m" for c in ("4k-random-read", "4k-random-write",
                                                          "64k-seq-read", "64k-seq-write")],
    "database": [f"phase {c}: 39 point(s) (3 curve(s): an unthrottled run, then 12 rate(s) each)"
                 for c in ("sql", "oracle")],
    "snia-pts-iops": ["phase iops: steady state over 56 point(s) per round, 5 to 25 rounds: "
                      "280 to 1400 points, 4h40m to 23h20m"],
    "snia-pts-throughput": ["phase throughput-write: steady state over 2 point(s) per round, 5 to "
                            "25 rounds: 10 to 50 points"],
    "snia-pts-latency": ["phase latency: steady state over 9 point(s) per round, 5 to 25 rounds: "
                         "45 to 225 points"],
    "crystaldiskmark": ["phase prepare: 1 point(s)", "phase seq1m-q8t1: 2 point(s), 10s",
                        "phase rnd4k-q32t16: 2 point(s), 10s"],
    "atto": ["phase atto: 36 point(s), 3m00s"],
    "burnin": ["phase write: 1 point(s), 36m39s; size-based: 2.00 TiB per drive",
               "phase verify: 1 point(s), 18m19s; size-based: 1.00 TiB per drive"],
    # 12 written and 3 restored, 1,636 GiB each, per pass
    "dlio-checkpoint": ["phase checkpoint: 3 point(s)", "size-based: 71.9 TiB per drive",
                        "checkpoint repeat=3"],
    "gdsio": ["phase gds-read: 24 point(s), 12m00s", "phase gds-write: 24 point(s), 12m00s"],
    "sysbench-oltp": ["phase oltp-warmup: the agents' command 'sysbench-mariadb' on each drive "
                      "(threads=32 time=7200 tables=100 rows=10000000 fresh=yes)",
                      "phase oltp: the agents' command 'sysbench-mariadb' on each drive "
                      "(threads=32 time=3600 tables=100 rows=10000000 fresh=no)"],
    "vdi-boot": ["phase boot-storm: 2 point(s), 10m00s",
                 "boot-storm replay_speed=1", "boot-storm replay_speed=0"],
    "vdi-login": ["phase login-storm: 2 point(s), 10m00s", "login-storm replay_speed=0"],
}

r = run([COORD, "presets"])
check(r.returncode == 0, f"presets: {r.returncode}")
listed = re.findall(r"^(\S+)\s+\d+ points", r.stdout, re.M)
check(listed == NAMES, f"listed {listed}")
doc = open(os.path.join(SRC, "docs", "presets.md")).read()
with Tmp() as tmp:
    for name in NAMES:
        check(f"## `{name}`" in doc, f"docs/presets.md has no section for {name}")
        r = run([COORD, "presets", name])
        check(r.returncode == 0 and "phases:" in r.stdout, f"presets {name}")
        path = os.path.join(tmp, f"{name}.yaml")
        with open(path, "w") as f:
            # checkpoints are written on a filesystem of the drive's
            fs = "filesystem: xfs, " if name == "dlio-checkpoint" else ""
            f.write(f"name: {name}\ninsecure: true\ntargets:\n"
                    f"  - {{agent: a1, {fs}drives: [/dev/nvme0n1, /dev/nvme1n1]}}\n"
                    f"preset: {name}\n")
        r = run([COORD, "plan", path, "--assume-capacity", "1t", "--assume-mbps", "1000"])
        check(r.returncode == 0, f"plan {name}: {r.returncode} {r.stderr}")
        for w in WANT[name]:
            check(w in r.stdout, f"plan {name}: no '{w}' in\n{r.stdout}")
        print(f"{name}: " + "; ".join(x for x in r.stdout.splitlines() if x.startswith("time")))

    # overrides shorten a preset
    path = os.path.join(tmp, "short.yaml")
    with open(path, "w") as f:
        f.write("name: short\ninsecure: true\ntargets: [{agent: a1, drives: [/dev/x]}]\n"
                "preset: cdn\noverrides: {runtime: 2s, idle: 0s}\n")
    r = run([COORD, "plan", path])
    check(r.returncode == 0 and "phase cdn-read: 18 point(s), 36s" in r.stdout and
          "time: 1m14s (idle included)" in r.stdout, r.stdout)
    with open(path, "w") as f:
        f.write("name: short\ninsecure: true\ntargets: [{agent: a1, drives: [/dev/x]}]\n"
                "preset: cdn\noverrides: {iodepth: 4, colour: red}\n")
    r = run([COORD, "plan", path])
    check(r.returncode == 2, f"bad overrides: {r.returncode}")
    check(f"{path}:5:13: the preset's phase 'cdn-write' varies 'iodepth'" in r.stderr, r.stderr)
    check(f"{path}:5:25: 'overrides' takes workload keys, idle and exec; 'colour'" in r.stderr, r.stderr)
print("ok")
