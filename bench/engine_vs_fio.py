#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""rackbench's engine against fio (the one on PATH, or --fio), side by side, in one run.

Each case runs both tools alternately, N pairs (default 5), and prints the median of
each figure and the ratio rackbench/fio. CPU per IO is system-wide busy time from
/proc/stat divided by the IOs, the same way for both tools; each tool's IO count is
checked against the device's own counters (/sys/block/*/stat). These are benchmarks,
not tests: the machine is shared and noisy, so read the ratios. For 4K random reads a
third row runs bench/bare_uring.c (build/bare_uring), the smallest liburing loop there is:
a gap to fio that it shares is not rackbench's per-IO cost. QD1 runs twice: as is, and
with a lowest-priority busy loop on every CPU so that no vCPU ever halts (a VM's idle
wake-up costs tens of us per IO at QD1, and decides that case on an idle VM). "dev mean" is the block
layer's own mean time per request (ms ticks / requests, /sys/block/*/stat) while that tool
ran: a witness for the tools' mean latencies, which include what each adds around it.

The io_uring limit: with --t-io-uring PATH (fio's t/io_uring, built from a fio source
tree: `./configure && make t/io_uring`; nothing of it is kept here) a NOP case runs
rackbench's nop engine (IORING_OP_NOP through its own ring, submit and reap path, every
latency recorded) against `t/io_uring -N1` at QD128: the ceiling of any io_uring engine.

Rate-limited latency on a loop device depends on where the device's kernel worker runs
against the tool; a second rate-limited case puts both tools and the kernel's unbound
workers on CPU 0 for 10 rounds: it writes /sys/devices/virtual/workqueue/cpumask (a
system-wide setting) and puts its old value back after each run. Both rate-limited cases
run rackbench as it is (completion auto: spin at a set rate, as fio does) beside its two
other completion modes (wait, poll) in the same rounds, and hold the default to fio:
IOPS within 5%, p50 and p99 within 10%, and its round-to-round p50 spread no wider.

Scaling: the null engine (and with --t-io-uring the NOP engine) at numjobs 2 against
numjobs 1, beside the other tool doing the same (fio's null engine; t/io_uring -n2) and
two independent rackbench processes of one job (nothing shared but the machine: what
two jobs can reach here), at least 9 alternating rounds, IOs per CPU second beside IOPS.
Targets: 2 jobs >= 1.9x one, and 2 jobs >= 0.95x two processes (the rounds' median,
printed with its interquartile range and range).

Run as root (it makes a loop device over a tmpfs file):
    /usr/bin/python3 bench/engine_vs_fio.py [--pairs 5] [--runtime 5] [--quick]
                                           [--t-io-uring PATH] [--fio PATH]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
AGENT = os.environ.get("RB_AGENT", os.path.join(ROOT, "build", "agent", "rackbench-agent"))
BARE = os.path.join(ROOT, "build", "bare_uring")


def cpu_busy():
    """Busy jiffies, all CPUs. Niced time is left out: neither tool runs niced, and the
    busy loops of the "idle CPUs kept busy" case run at nice 19."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle - v[1]


def spinners():
    """A busy loop on every CPU at the lowest priority there is (SCHED_IDLE, nice 19):
    any runnable task preempts it, and no CPU ever enters its idle state. On a VM an idle
    vCPU halts (here: the haltpoll cpuidle driver) and waking it costs tens of us, which
    at QD1 decides the IOPS of whichever tool the scheduler places badly."""
    return [subprocess.Popen(["taskset", "-c", str(c), "nice", "-n", "19", "chrt", "--idle", "0",
                              "sh", "-c", "while :; do :; done"])
            for c in sorted(os.sched_getaffinity(0))]


def dev_stat(dev):
    """(IOs the tools submitted, ms the device's requests took in all): the block layer's
    own account, a witness apart from both tools."""
    if not dev:
        return 0, 0
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        v = [int(x) for x in f.read().split()]
    # requests completed plus IOs merged into them; read and write ticks (ms)
    return v[0] + v[1] + v[4] + v[5], v[3] + v[7]


FIO = "fio"  # --fio PATH: a newer fio built from its source tree


def run_fio(dev, case, runtime):
    args = [FIO, "--name=b", "--output-format=json", "--lat_percentiles=1",
            f"--runtime={runtime}", "--time_based", "--group_reporting",
            f"--rw={case['rw']}", f"--bs={case['bs']}", f"--iodepth={case['qd']}",
            f"--numjobs={case.get('jobs', 1)}"]
    if case.get("null"):
        args += ["--ioengine=null", "--size=1g"]
    else:
        args += ["--ioengine=io_uring", "--direct=1", f"--filename={dev}"]
    if case.get("rate"):
        args += [f"--rate_iops={case['rate']}"]  # per job in fio; one job here
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    j = json.loads(out[out.index("{"):])["jobs"][0]["read"]
    pct = j["lat_ns"].get("percentile", {})
    return {"iops": j["iops"], "ios": j["total_ios"], "p50": pct.get("50.000000", 0),
            "p99": pct.get("99.000000", 0), "mean": j["lat_ns"]["mean"]}


def run_rb(dev, case, runtime):
    args = [AGENT, "run", "--json", f"--runtime={runtime}s", f"--rw={case['rw']}",
            f"--bs={case['bs']}", f"--iodepth={case['qd']}", f"--numjobs={case.get('jobs', 1)}"]
    if case.get("nop"):
        args += ["--engine=nop", "--size=1g"]
    elif case.get("null"):
        args += ["--engine=null", "--size=1g"]
    else:
        args += [f"--target={dev}"]
    if case.get("rate"):
        args += [f"--rate_iops={case['rate']}"]
    if case.get("completion"):
        args += [f"--completion={case['completion']}"]
    r = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["read"]
    return {"iops": r["iops"], "ios": r["ios"], "p50": r["lat_ns"]["p50"], "p99": r["lat_ns"]["p99"],
            "mean": r["lat_ns"]["mean"]}


T_IO_URING = None


def run_tio(dev, case, runtime):
    """fio's t/io_uring in NOP mode (it wants a file even then: a tmpfs one)."""
    with tempfile.NamedTemporaryFile(dir="/dev/shm") as f:
        f.truncate(1 << 20)
        f.flush()
        out = subprocess.run([T_IO_URING, "-N1", f"-d{case['qd']}", f"-r{runtime}",
                              f"-n{case.get('jobs', 1)}", f.name],
                             capture_output=True, text=True, check=True).stdout
    # per-second lines "IOPS=14.88M, IOS/call=32/32": the median second
    vals = []
    for line in out.splitlines():
        if line.startswith("IOPS="):
            v = line.split("=")[1].split(",")[0]
            mult = {"M": 1e6, "K": 1e3}.get(v[-1], 1)
            vals.append(float(v.rstrip("MK")) * mult)
    iops = statistics.median(vals) if vals else 0
    return {"iops": iops, "ios": int(iops * runtime), "p50": 0, "p99": 0, "mean": 0}


def run_bare(dev, case, runtime):
    """The smallest liburing loop (bench/bare_uring.c): the floor for any engine."""
    ios, iops = subprocess.run([BARE, dev, str(case["qd"]), str(runtime)], capture_output=True,
                               text=True, check=True).stdout.split()
    return {"iops": float(iops), "ios": int(ios), "p50": 0, "p99": 0, "mean": 0}


def run_rb_twice(dev, case, runtime):
    """Two rackbench processes of one job each, at once: what two jobs can reach on this
    machine when they share nothing in user space (the witness for numjobs 2)."""
    procs = [subprocess.Popen([AGENT, "run", "--json", f"--runtime={runtime}s", f"--rw={case['rw']}",
                               f"--bs={case['bs']}", f"--iodepth={case['qd']}", "--numjobs=1",
                               f"--engine={'nop' if case.get('nop') else 'null'}", "--size=1g"],
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise RuntimeError("rackbench-agent run failed")
    rs = [json.loads(o)["read"] for o in outs]
    return {"iops": sum(r["iops"] for r in rs), "ios": sum(r["ios"] for r in rs),
            "p50": 0, "p99": 0, "mean": 0}


def scaling(pairs, runtime, only):
    """numjobs 2 against numjobs 1 on the null and NOP engines, rackbench beside the other
    tool (fio's null engine; t/io_uring's NOP with -n2) and two independent rackbench
    processes, alternating, at least 9 rounds: the ratio of the medians, each round's
    numjobs 2 over two processes with their median and spread, and IOs per CPU second
    (system-wide busy time, /proc/stat) beside IOPS. Targets: numjobs 2 >= 1.9x one, and
    numjobs 2 >= 0.95x two processes (the median of the rounds). Returns the cases that
    missed either."""
    cases = [{"name": "null engine QD32, numjobs 2 against 1", "rw": "randread", "bs": "4k",
              "qd": 32, "null": True, "other": run_fio, "other_name": "fio null"}]
    if T_IO_URING:
        cases.append({"name": "io_uring NOP QD128, numjobs 2 against 1", "rw": "randread",
                      "bs": "4k", "qd": 128, "null": True, "nop": True, "other": run_tio,
                      "other_name": "t/io_uring"})
    failed = []
    rounds = max(pairs, 9)
    tick = os.sysconf("SC_CLK_TCK")
    for c in cases:
        if only and only not in c["name"]:
            continue
        runs = {k: [] for k in ("rb1", "rb2", "two", "o1", "o2")}
        per_cpu = {k: [] for k in runs}
        for _ in range(rounds):
            for k, tool, jobs in (("rb1", run_rb, 1), ("rb2", run_rb, 2), ("two", run_rb_twice, 1),
                                  ("o1", c["other"], 1), ("o2", c["other"], 2)):
                b0 = cpu_busy()
                r = tool(None, dict(c, jobs=jobs), runtime)
                busy = (cpu_busy() - b0) / tick
                runs[k].append(r["iops"])
                per_cpu[k].append(r["ios"] / busy if busy > 0 else float("nan"))
        m = {k: statistics.median(v) for k, v in runs.items()}
        mc = {k: statistics.median(v) for k, v in per_cpu.items()}
        print(f"\n{c['name']} ({rounds} rounds of {runtime} s, alternating, medians)")
        print(f"  {'':32} {'1 job IOPS':>12} {'2 jobs IOPS':>12} {'scaling':>8} "
              f"{'IOs/CPU-s 1':>12} {'IOs/CPU-s 2':>12}")
        for name, k1, k2 in (("rackbench numjobs", "rb1", "rb2"),
                             ("two rackbench processes", "rb1", "two"),
                             (c["other_name"], "o1", "o2")):
            print(f"  {name:32} {m[k1]:12.0f} {m[k2]:12.0f} {m[k2] / m[k1]:8.3f} "
                  f"{mc[k1]:12.0f} {mc[k2]:12.0f}")
        ok = m["rb2"] / m["rb1"] >= 1.9
        # the question: what two jobs in one agent lose against two agents, round by round
        # (each round's pair ran back to back, so a host's drift cancels)
        shared = sorted(b / a for a, b in zip(runs["two"], runs["rb2"]))
        med = statistics.median(shared)
        q1, q3 = shared[len(shared) // 4], shared[(3 * len(shared)) // 4]
        print("  each round's scaling: rackbench "
              + " ".join(f"{b / a:.2f}" for a, b in zip(runs["rb1"], runs["rb2"]))
              + "; two processes " + " ".join(f"{b / a:.2f}" for a, b in zip(runs["rb1"], runs["two"])))
        print(f"  numjobs 2 / two processes, each round: "
              + " ".join(f"{x:.3f}" for x in shared)
              + f"\n  median {med:.3f}, interquartile {q1:.3f}-{q3:.3f}, range "
              f"{shared[0]:.3f}-{shared[-1]:.3f} (target >= 0.95: "
              f"{'met' if med >= 0.95 else 'NOT met'}; below 1: a cost the jobs share inside "
              "rackbench)")
        print(f"  target: numjobs 2 >= 1.90x numjobs 1: {'met' if ok else 'NOT met'}")
        ok = ok and med >= 0.95
        if not ok:
            failed.append(c["name"])
    return failed


WQ_CPUMASK = "/sys/devices/virtual/workqueue/cpumask"


class Placed:
    """With: the tools (this process's children) and the kernel's unbound workers, the
    loop device's among them, on one CPU; afterwards the workers' mask and this
    process's CPUs as they were, whatever happened meanwhile."""

    def __init__(self, cpu):
        self.cpu = cpu

    def __enter__(self):
        self.cpus = os.sched_getaffinity(0)
        with open(WQ_CPUMASK) as f:
            self.was = f.read().strip()
        try:
            with open(WQ_CPUMASK, "w") as f:
                f.write(format(1 << self.cpu, "x"))
            os.sched_setaffinity(0, {self.cpu})
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        with open(WQ_CPUMASK, "w") as f:
            f.write(self.was)
        os.sched_setaffinity(0, self.cpus)


def measure(tool, dev, case, runtime):
    if case.get("pin") is not None:
        with Placed(case["pin"]):
            return measure(tool, dev, dict(case, pin=None), runtime)
    spin = spinners() if case.get("spin") else []
    c0, (d0, t0) = cpu_busy(), dev_stat(None if case.get("null") else dev)
    try:
        res = tool(dev, case, runtime)
    finally:
        c1, (d1, t1) = cpu_busy(), dev_stat(None if case.get("null") else dev)
        for p in spin:
            p.kill()
            p.wait()
    hz = os.sysconf("SC_CLK_TCK")
    res["cpu_ns_per_io"] = (c1 - c0) / hz * 1e9 / max(res["ios"], 1)
    res["dev_ios"] = d1 - d0
    # the mean time a request spent in the block layer, by the kernel's clock
    res["dev_mean"] = (t1 - t0) * 1e6 / max(d1 - d0, 1)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="3 pairs of 2 s")
    ap.add_argument("--only", help="run the cases whose name contains this")
    ap.add_argument("--t-io-uring", help="fio's t/io_uring, built: adds the NOP case")
    ap.add_argument("--fio", default="fio",
                    help="the fio to compare with (default Debian's; a newer one built from "
                         "fio's source tree: ./configure && make); its version is printed")
    a = ap.parse_args()
    global T_IO_URING
    T_IO_URING = a.t_io_uring
    if a.quick:
        a.pairs, a.runtime = 3, 2
    if os.geteuid() != 0:
        sys.exit("run as root: the bench makes a loop device over a tmpfs file")
    cases = [
        {"name": "4k randread QD32", "rw": "randread", "bs": "4k", "qd": 32, "want": 1.00},
        {"name": "4k randread QD1", "rw": "randread", "bs": "4k", "qd": 1, "want": 0.97},
        # the same with no vCPU ever idle: neither tool pays the VM's wake-up latency
        {"name": "4k randread QD1, idle CPUs kept busy", "rw": "randread", "bs": "4k", "qd": 1,
         "want": 0.97, "spin": True},
        {"name": "128k read QD8", "rw": "read", "bs": "128k", "qd": 8, "want": 0.97},
        # completion auto (spin at a rate, as fio), with rackbench's other two modes beside
        {"name": "4k randread QD4 at 20k IOPS", "rw": "randread", "bs": "4k", "qd": 4,
         "rate": 20000, "agree": True, "rounds": 7, "modes": ("wait", "poll")},
        # the same with the tool and the loop device's worker on one CPU: each IO's hand-over
        # to the worker is then no wake-up of another vCPU, the mode the case above flips
        # between from run to run; 10 rounds, each tool's p50 within 5% of its median
        {"name": "4k randread QD4 at 20k IOPS, tool and loop worker on CPU 0", "rw": "randread",
         "bs": "4k", "qd": 4, "rate": 20000, "agree": True, "pin": 0, "rounds": 10,
         "needs": WQ_CPUMASK, "modes": ("wait", "poll")},
        {"name": "null engine QD32", "rw": "randread", "bs": "4k", "qd": 32, "null": True,
         "want": 2.0},
    ]
    if T_IO_URING:
        # the other tool here is t/io_uring, not fio: rackbench records every latency
        cases.append({"name": "io_uring NOP QD128 (against t/io_uring -N1)", "rw": "randread",
                      "bs": "4k", "qd": 128, "nop": True, "null": True, "want": 0.9,
                      "other": run_tio})
    cases = [c for c in cases if os.path.exists(c.get("needs", "/"))]
    if a.only:
        cases = [c for c in cases if a.only in c["name"]]
    img = tempfile.NamedTemporaryFile(dir="/dev/shm", delete=False)
    img.truncate(1 << 30)
    img.close()
    subprocess.run(["dd", "if=/dev/urandom", f"of={img.name}", "bs=1M", "count=1024",
                    "conv=notrunc", "status=none"], check=True)
    dev = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", img.name],
                         capture_output=True, text=True, check=True).stdout.strip()
    global FIO
    FIO = a.fio
    fio_ver = subprocess.run([FIO, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"target {dev} (loop, O_DIRECT, over tmpfs); {fio_ver}; {a.pairs} pairs of "
          f"{a.runtime} s, alternating; medians")
    failed = []
    try:
        for c in cases:
            rb, fio, bare = [], [], []
            # the bare loop only where it does the same IO (random 4k reads, no limit)
            with_bare = (os.path.exists(BARE) and c["rw"] == "randread" and c["bs"] == "4k"
                         and not c.get("rate") and not c.get("null"))
            modes = {m: [] for m in c.get("modes", ())}
            for _ in range(max(a.pairs, c.get("rounds", 0))):
                rb.append(measure(run_rb, dev, c, a.runtime))
                fio.append(measure(c.get("other", run_fio), dev, c, a.runtime))
                if with_bare:
                    bare.append(measure(run_bare, dev, c, a.runtime))
                # rackbench's other completion modes, in the same rounds
                for m, xs in modes.items():
                    xs.append(measure(run_rb, dev, dict(c, completion=m), a.runtime))
            med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
            r_iops, f_iops = med(rb, "iops"), med(fio, "iops")
            r_cpu, f_cpu = med(rb, "cpu_ns_per_io"), med(fio, "cpu_ns_per_io")
            print(f"\n{c['name']}")
            print(f"  {'':10} {'IOPS':>12} {'CPU ns/IO':>10} {'p50 ns':>9} {'p99 ns':>9} "
                  f"{'mean ns':>9} {'dev mean ns':>11} {'dev IOs / tool IOs':>19}")
            other = "t/io_uring" if c.get("other") else "fio"
            rows = (("rackbench", rb), (other, fio)) + ((("bare loop", bare),) if bare else ())
            rows += tuple((f"rb {m}", xs) for m, xs in modes.items())
            for name, xs in rows:
                agree = statistics.median(x["dev_ios"] / max(x["ios"], 1) for x in xs)
                cpu = "-" if c.get("spin") else f"{med(xs, 'cpu_ns_per_io'):.0f}"
                print(f"  {name:10} {med(xs, 'iops'):12.0f} {cpu:>10} "
                      f"{med(xs, 'p50'):9.0f} {med(xs, 'p99'):9.0f} {med(xs, 'mean'):9.0f} "
                      f"{med(xs, 'dev_mean') if not c.get('null') else 0:11.0f} "
                      f"{('%.4f' % agree) if not c.get('null') else '-':>19}")
            ratio = r_iops / f_iops
            if c.get("spin"):
                # /proc/stat samples who runs at each tick; with every CPU busy that
                # charges ticks, not work: CPU per IO is the case without the loops
                print(f"  ratio rackbench/fio: IOPS {ratio:.3f} (CPU per IO: see the case "
                      f"without busy loops)")
            else:
                print(f"  ratio rackbench/{other}: IOPS {ratio:.3f}, CPU per IO {r_cpu / f_cpu:.3f}")
            if bare:
                b_iops = med(bare, "iops")
                print(f"  ratio rackbench/bare liburing loop: IOPS {r_iops / b_iops:.3f}; "
                      f"bare loop/fio {b_iops / f_iops:.3f}")
            if c.get("agree"):
                p50 = med(rb, "p50") / med(fio, "p50")
                p99 = med(rb, "p99") / med(fio, "p99")
                ok = abs(ratio - 1) <= 0.05 and abs(p50 - 1) <= 0.10 and abs(p99 - 1) <= 0.10
                print(f"  agreement: IOPS {ratio:.3f} (within 5%), p50 {p50:.3f}, p99 {p99:.3f} "
                      f"(within 10%): {'yes' if ok else 'NO'}")
                if c.get("rounds"):
                    # stable: rackbench's p50 from round to round no wider than fio's
                    spread = {}
                    for name, xs in (("rackbench", rb), (other, fio)) + tuple(
                            (f"rb {m}", xs) for m, xs in modes.items()):
                        m50 = med(xs, "p50")
                        spread[name] = (max(x["p50"] for x in xs)
                                        - min(x["p50"] for x in xs)) / m50
                        print(f"  {name} p50 by round (us): "
                              + " ".join(f"{x['p50'] / 1000:.1f}" for x in xs)
                              + f"; spread (max - min) / median {spread[name]:.1%}")
                    stable = spread["rackbench"] <= spread[other]
                    print(f"  stable (rackbench's spread no wider than {other}'s): "
                          f"{'yes' if stable else 'NO'}")
                    ok = ok and stable
            else:
                cpu_too = not c.get("null") and not c.get("spin")
                ok = ratio >= c["want"] and (not cpu_too or r_cpu <= f_cpu * 1.0)
                print(f"  target: IOPS >= {c['want']:.2f}x {other}"
                      f"{' with no more CPU per IO' if cpu_too else ''}: {'met' if ok else 'NOT met'}")
            if not ok:
                failed.append(c["name"])
        failed += scaling(a.pairs, a.runtime, a.only)
    finally:
        subprocess.run(["losetup", "-d", dev])
        os.unlink(img.name)
    print("\ntargets not met: " + (", ".join(failed) if failed else "none"))


if __name__ == "__main__":
    main()
