#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What a trace replay costs and how closely it keeps the trace's time (rw: replay).

1. The issue lag in the trace's own timing (replay_speed 1): p50 and p99 of the submission
   instant minus the one the trace gives the IO, from the run's JSON.
2. The wall time of the same trace at speed 1 and at speed 2: expect about half.
3. The agent's peak RSS replaying a generated trace of --big-gb GB (2 by default) as fast
   as it goes: the reader streams it, so expect far under 64 MB.
4. With --old-agent PATH: the NOP engine's IOPS of a random-read job (not a replay) with
   that binary and this one, alternating, --pairs times each: min/median/max of each, to
   show the replay left every other workload's hot path as it was.

    /usr/bin/python3 bench/replay.py [--ios 5000] [--seconds 5] [--big-gb 2]
                                     [--target PATH] [--old-agent PATH] [--pairs 5]

The target is the NOP engine (IORING_OP_NOP through the agent's ring: no device, so the
figures are the agent's own) unless --target names a block device or file to read (the
timed trace only reads). The big trace is written to a temporary folder and removed.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
AGENT = os.path.join(ROOT, "build", "agent", "rackbench-agent")


def agent_run(args, agent=AGENT):
    """Runs the agent; returns (its JSON document, wall seconds)."""
    t0 = time.monotonic()
    p = subprocess.run([agent, "run", "--json", *args], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode:
        sys.exit(f"rackbench-agent run {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout), wall


def peak_rss(args, out):
    """The agent's JSON, wall seconds and peak resident set (KiB, getrusage of the child)."""
    with open(out, "w") as f:
        p = subprocess.Popen([AGENT, "run", "--json", *args], stdout=f,
                             stderr=subprocess.PIPE)
        t0 = time.monotonic()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"rackbench-agent run: exit {os.waitstatus_to_exitcode(status)}: "
                 f"{p.stderr.read().decode()}")
    return json.load(open(out)), wall, ru.ru_maxrss


def timed_trace(path, ios, seconds, span):
    """An iolog v3 of random 4k reads at random (Poisson) instants over seconds."""
    rnd = random.Random(1)
    rate = ios / seconds
    t = 0.0
    with open(path, "w") as f:
        f.write("fio version 3 iolog\n0 dev add\n0 dev open\n")
        for _ in range(ios):
            t += rnd.expovariate(rate)
            f.write(f"{int(t * 1e6)} dev read {rnd.randrange(span // 4096) * 4096} 4096\n")


def big_trace(path, gb, span):
    """A blkparse-text trace of gb GB: a block of queue events written again and again."""
    rnd = random.Random(2)
    lines = []
    for i in range(16384):
        sector = rnd.randrange(span // 4096) * 8
        lines.append(f"  8,0    1 {i + 1:8d} {i / 1e4:14.9f}  4162  Q  RS {sector} + 8 [app]\n")
    block = "".join(lines).encode()
    with open(path, "wb") as f:
        for _ in range(-(-(gb << 30) // len(block))):  # whole blocks: whole lines
            f.write(block)


def target_args(a, span):
    if a.target:
        return ["--target", a.target]
    return ["--engine", "nop", "--size", str(span)]


def nop_iops(agent):
    doc, _ = agent_run(["--engine", "nop", "--size", "1g", "--rw", "randread",
                           "--iodepth", "32", "--runtime", "3s"], agent)
    return doc["read"]["iops"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ios", type=int, default=5000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--big-gb", type=int, default=2)
    ap.add_argument("--target")
    ap.add_argument("--old-agent")
    ap.add_argument("--pairs", type=int, default=5)
    a = ap.parse_args()
    span = 1 << 30
    with tempfile.TemporaryDirectory(prefix="rb-bench-replay-") as tmp:
        tr = os.path.join(tmp, "timed.iolog")
        timed_trace(tr, a.ios, a.seconds, span)
        base = ["--rw", "replay", "--replay", tr, "--runtime", "1h", *target_args(a, span)]
        print(f"trace: {a.ios} random 4k reads over {a.seconds:g} s (iolog v3); target: "
              f"{a.target or 'NOP engine'}")
        walls = {}
        for speed in ("1", "2"):
            doc, wall = agent_run(base + ["--replay-speed", speed])
            rp = doc["targets"][0]["replay"]
            walls[speed] = doc["elapsed_ns"] / 1e9
            print(f"speed {speed}: {rp['ios']} IOs, replay {walls[speed]:.3f} s "
                  f"(process {wall:.3f} s), issue lag p50 {rp['lag_ns']['p50'] / 1e3:.1f} us, "
                  f"p99 {rp['lag_ns']['p99'] / 1e3:.1f} us, max {rp['lag_ns']['max'] / 1e3:.1f} us")
        print(f"speed 2 / speed 1 wall time: {walls['2'] / walls['1']:.3f} (expect about 0.5)")

        big = os.path.join(tmp, "big.blkparse.txt")
        t0 = time.monotonic()
        big_trace(big, a.big_gb, span)
        size = os.path.getsize(big)
        print(f"big trace: {size / (1 << 30):.2f} GiB of blkparse text written in "
              f"{time.monotonic() - t0:.1f} s")
        doc, wall, rss = peak_rss(["--rw", "replay", "--replay", big, "--replay-speed", "0",
                                   "--replay-format", "blkparse", "--runtime", "1h",
                                   "--engine", "nop", "--size", str(span), "--iodepth", "4"],
                                  os.path.join(tmp, "big.json"))
        rp = doc["targets"][0]["replay"]
        print(f"big trace replayed at speed 0: {rp['ios'] / 1e6:.1f} M IOs in {wall:.1f} s "
              f"(its scan and its replay), complete {rp['complete']}, peak RSS "
              f"{rss / 1024:.1f} MiB (expect far under 64 MiB)")

    if a.old_agent:
        got = {"old": [], "new": []}
        for _ in range(a.pairs):
            got["old"].append(nop_iops(a.old_agent))
            got["new"].append(nop_iops(AGENT))
        for k, v in got.items():
            print(f"NOP randread iodepth 32, {k}: min {min(v) / 1e6:.2f} median "
                  f"{statistics.median(v) / 1e6:.2f} max {max(v) / 1e6:.2f} M IOPS")


if __name__ == "__main__":
    main()
