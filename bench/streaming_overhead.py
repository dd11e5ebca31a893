#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What streaming to a coordinator costs an agent: the same job run standalone
(`rackbench-agent run`) and as a campaign point (an agent sending its samples every
interval to `rackbench run` over loopback), median of N rounds, IOPS ratio printed.
Target: within 1% either way (faster is a finding too: the two runs then did not measure
the same thing).

Each round runs the standalone job twice and the streaming one once, in one of the six
orders of the three (each order once in six rounds). What the machine can resolve is the
larger of two figures: the A/A control (the two standalone sets' ratio of medians: what
identical runs differ by) and twice the ratio's standard error (from both sides'
spreads). Verdicts: within 1% either way; NOT within 1% (a finding); not resolved
(the resolution is wider than 1% and the ratio inside it); or outside even that
resolution (a finding). Exit 0: every job within 1%; 1: a finding; 2: no finding, and at
least one job not resolved.

Jobs: the null engine (no IO: the engine's own rate, where any overhead shows most), 4K
random reads of a file in /dev/shm written in full first (a truncated file reads holes,
which measure nothing and which rackbench now refuses), and, as root, the same reads of
a loop device over that file.

    /usr/bin/python3 bench/streaming_overhead.py [--pairs 6] [--runtime 5] [--interval 100ms]
                                                 [--pin]

--pin runs the job on CPU 0 and everything else (this script, the agent's main thread,
the coordinator) on CPU 1: on a 2-core machine the coordinator and the job otherwise
compete for the CPUs, which is not what an agent on its own host pays for streaming.
Figures: run it; docs/performance.md quotes what it printed, with the command.
"""
import argparse
import glob
import itertools
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import h5py

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
AGENT = os.path.join(ROOT, "build", "agent", "rackbench-agent")
COORD = os.path.join(ROOT, "build", "coordinator", "rackbench")

sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from rbtest import free_port  # noqa: E402  (one port helper for tests and benches)


def standalone(job, target, runtime, interval):
    import json
    args = [AGENT, "run", "--json", f"--runtime={runtime}s", f"--interval={interval}"] + job
    args += [f"--target={target}"] if target else []
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["read"]["iops"]


def campaign(job, target, runtime, interval, tmp):
    ep = f"tcp://127.0.0.1:{free_port()}"
    wl = ", ".join(a[2:].replace("=", ": ", 1) for a in job)
    drives = f"[{target}]" if target else "[null0]"
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(f"name: so\ninsecure: true\nwait: 20s\ntargets:\n  - agent: so\n"
                f"    drives: {drives}\nphases:\n  - workload: {{{wl}, runtime: {runtime}s, "
                f"interval: {interval}}}\n")
    agent = subprocess.Popen([AGENT, "--coordinator", ep, "--name", "so", "--insecure",
                              "--state-dir", os.path.join(tmp, "st"),
                              "--target", target or "null0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        out = os.path.join(tmp, f"r{time.monotonic_ns()}")
        subprocess.run([COORD, "run", camp, "--listen", ep, "--results", out],
                       capture_output=True, text=True, check=True)
    finally:
        agent.terminate()
        agent.wait(10)
    with h5py.File(glob.glob(os.path.join(out, "so-*.h5"))[0], "r") as h:
        return float(h["results"][0]["read_iops"])


def rel_var(v):
    """The squared relative standard error of v's mean (0 for fewer than 2 values)."""
    if len(v) < 2:
        return 0
    return (statistics.stdev(v) / statistics.mean(v)) ** 2 / len(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=6,
                    help="rounds, each a standalone run, a streaming one and a second standalone "
                         "one (6: every order of the three once)")
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--interval", default="100ms")
    ap.add_argument("--pin", action="store_true", help="job on CPU 0, the rest on CPU 1")
    a = ap.parse_args()
    pin = []
    if a.pin:
        os.sched_setaffinity(0, {1})  # inherited by the agent and coordinator started here
        pin = ["--cpus=0"]
    loop = None
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        target = os.path.join(tmp, "t.dat")
        block = os.urandom(1 << 20)
        with open(target, "wb") as f:  # every byte written: no holes
            for _ in range(256):
                f.write(block)
        jobs = [("null engine, 4K random, QD32", ["--engine=null", "--size=1g", "--rw=randread",
                                                   "--bs=4k", "--iodepth=32"] + pin, None),
                ("file in /dev/shm, 4K random read, QD8", ["--rw=randread", "--bs=4k",
                                                           "--iodepth=8"] + pin, target)]
        if os.geteuid() == 0:
            r = subprocess.run(["losetup", "--find", "--show", target], capture_output=True,
                               text=True)
            if r.returncode == 0:
                loop = r.stdout.strip()
                jobs.append((f"loop device over it ({loop}), 4K random read, QD8",
                             ["--rw=randread", "--bs=4k", "--iodepth=8"] + pin, loop))
        print(f"{a.pairs} rounds of 3 runs of {a.runtime} s (standalone twice, streaming once, "
              f"the order turning), samples every {a.interval}; medians"
              f"{'; pinned' if a.pin else ''}")
        findings = unresolved = 0
        orders = list(itertools.permutations("abc"))
        try:
            for name, job, tgt in jobs:
                runs = {"a": [], "b": [], "c": []}
                for i in range(a.pairs):
                    for k in orders[i % len(orders)]:
                        runs[k].append(campaign(job, tgt, a.runtime, a.interval, tmp) if k == "c"
                                       else standalone(job, tgt, a.runtime, a.interval))
                solo, streamed = runs["a"] + runs["b"], runs["c"]
                s, c = statistics.median(solo), statistics.median(streamed)
                off = abs(c / s - 1)
                aa = statistics.median(runs["b"]) / statistics.median(runs["a"])
                # a median's standard error is ~1.25 sigma/sqrt(n); a ratio's adds both
                # sides' relative errors in quadrature
                se = 1.2533 * math.sqrt(rel_var(solo) + rel_var(streamed))
                res = max(abs(aa - 1), 2 * se)
                if res <= 0.01:
                    verdict = "within 1% either way" if off <= 0.01 else "NOT within 1% either way"
                    findings += off > 0.01
                elif off > res:
                    verdict = f"outside 1% and outside this machine's resolution (+-{res:.1%})"
                    findings += 1
                else:
                    verdict = f"not resolved: this machine resolves +-{res:.1%} here"
                    unresolved += 1
                print(f"{name}: standalone {s:,.0f} IOPS (min {min(solo):,.0f}, max "
                      f"{max(solo):,.0f}), streaming {c:,.0f} IOPS (min {min(streamed):,.0f}, "
                      f"max {max(streamed):,.0f}); ratio {c / s:.4f}; A/A control {aa:.4f}, "
                      f"the ratio's standard error {se:.1%}: {verdict}")
        finally:
            if loop:
                subprocess.run(["losetup", "-d", loop])
        return 1 if findings else 2 if unresolved else 0


if __name__ == "__main__":
    sys.exit(main())
