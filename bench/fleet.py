#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fleet against one coordinator (or --racks N: N rack services and `fleet run`):
`rackbench serve` with real CURVE and an allow-list, and fleet_sim (build/fleet_sim:
many simulated agents in one process, each a real DEALER socket with its own key)
connecting N agents x D drives, then `rackbench run` of one point sending a sample per
drive every interval (counters + a sparse histogram of B buckets). Journal and HDF5 go
to --dir, which must not be tmpfs.

Prints: how long the fleet took to connect (all agents registered), the time from
`rackbench run` to the first IO instant of the last of the N x D drives, every 10 s the
samples/s acknowledged (journaled + fsynced) and the coordinator's RSS, at the end the
sample rows in the HDF5 file per second of the point, and whether RSS stayed flat (the
second half's peak within 5% of the first half's).

    /usr/bin/python3 bench/fleet.py [--agents 1000] [--drives 24] [--buckets 64]
                                    [--interval 100ms] [--duration 300] [--dir /var/tmp/...]
                                    [--nice-sim 19] [--keep]

docs/performance.md's figures: --duration 300 --nice-sim 19 (and 60 after the house's
redesign), --agents 1500 / 2000 --duration 120, and with --racks 10 --agents 200 --duration
30 a fleet of rack services.

Targets (issue 15): all that 1,000 x 24 at 100 ms offers (240k samples/s) acknowledged
and stored, <= 6 us of coordinator CPU per sample, RSS < 600 MiB, <= 2 s to start. The
disk needed is about 390 B per sample at 64 buckets (HDF5 rows + journal): 1000 x 24 at
100 ms for 90 s is ~8.3 GB; --duration sets the point's length.

A fleet of racks (--racks N, issue 37): N `rackbench serve` on this machine, each with its
own agents' port, control socket, results folder (--dir/racks/rNN/), admin endpoint and
admin allow-list holding the one admin key the bench makes (`rackbench keygen`); the
--agents split across them, one fleet_sim a rack (agents rNN-0000 on); a FLEET.yaml of
the N racks (labels {bench: fleet}); and, once every service has its agents registered
and `fleet plan` sees them all, `rackbench fleet run` of one point of --duration seconds
over every drive (an agent group by the racks' label), timed:

    /usr/bin/python3 bench/fleet.py --racks 10 --agents 200 [--drives 24] [--interval 100ms]
                                    [--duration 30] [--nice-sim 19] [--start-in 3s] [--keep]

Prints the fleet table, then: from `fleet run` to its planned UTC start instant and to
the last rack's first IO instant (the latest start of any simulated agent, CLOCK_MONOTONIC
as every process here reads it), how long before the instant the last Assign came, the
services' own start skew (the summary's), and what the HDF5 files say (the first
interval's batches as the sims stamped them, less one interval; their send lag over the
whole point beside it, the scale of that check); the `fleet run` client's CPU (wait4's
rusage: the fleet view's cost) and wall; each service's CPU; and nothing lost: per rack
the sample rows in its HDF5 file against agents x drives x (runtime / interval) and the
samples its sim counts acknowledged, its status in the fleet summary COMPLETE, and fleet
run's exit 0 (exit 1 otherwise). docs/performance.md's figure: --racks 10 --agents 200
--duration 30 --nice-sim 19.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
COORD = os.path.join(ROOT, "build", "coordinator", "rackbench")
SIM = os.path.join(ROOT, "build", "fleet_sim")

sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
from rbtest import free_port  # noqa: E402  (one port helper for tests and benches)


def parse_ms(d):
    m = re.fullmatch(r"(\d+)(ms|s)", d)
    return int(m.group(1)) * (1 if m.group(2) == "ms" else 1000)


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_s(pid):
    """User + system CPU seconds of a process, all its threads."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def pub(path):
    with open(path) as f:
        return [l.split("=", 1)[1].strip() for l in f if l.startswith("public-key")][0]


def last_field(lines, key):
    got = [int(l.split()[1]) for l in lines if l.startswith(key + " ")]
    return got[-1] if got else None


class Rack:
    """One rack: its service, its simulator of its share of the agents, under DIR/racks/."""

    def __init__(self, top, i, name, agents):
        self.i, self.name, self.agents = i, name, agents
        self.dir = os.path.join(top, name)
        self.keys = os.path.join(self.dir, "keys")
        self.ctl = os.path.join(self.dir, "control")
        self.out = os.path.join(self.dir, "out")
        self.allow = os.path.join(self.dir, "admins.allow")
        self.ep = self.admin_ep = None
        self.serve = self.sim = None
        self.lines = []

    def registered(self):
        r = subprocess.run([COORD, "agents", "--json"], capture_output=True, text=True,
                           env=dict(os.environ, RACKBENCH_CONTROL=self.ctl))
        return len(json.loads(r.stdout)) if r.returncode == 0 else 0


def racks_main(a, fstype):
    """--racks N: N services, the agents split across them, one `rackbench fleet run`."""
    n = a.racks
    if a.agents < n:
        sys.exit("--agents must be at least --racks (an agent a rack at least)")
    top = os.path.join(a.dir, "racks")
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    width = max(2, len(str(n - 1)))
    racks = [Rack(top, i, f"r{i:0{width}d}", a.agents // n + (i < a.agents % n))
             for i in range(n)]
    interval_ms = parse_ms(a.interval)
    nbatches = a.duration * 1000 // interval_ms  # a simulated agent's batches in the point
    admin = os.path.join(top, "admin")
    subprocess.run([COORD, "keygen", admin, "admin"], check=True, capture_output=True)
    admin_key = os.path.join(admin, "admin.key")
    ports = set()

    def port():
        while True:
            p = free_port()
            if p not in ports:
                ports.add(p)
                return p

    t = time.monotonic()
    for rk in racks:
        os.makedirs(rk.dir)
        subprocess.run([COORD, "keygen", rk.keys, "coordinator"], check=True,
                       capture_output=True)
        subprocess.run([SIM, "keys", rk.keys, str(rk.agents), rk.name], check=True)
        with open(rk.allow, "w") as f:
            f.write(f"admin {pub(os.path.join(admin, 'admin.pub'))}\n")
        rk.ep, rk.admin_ep = f"tcp://127.0.0.1:{port()}", f"tcp://127.0.0.1:{port()}"
    print(f"{n} racks, {a.agents} agents ({min(r.agents for r in racks)}-"
          f"{max(r.agents for r in racks)} a rack) x {a.drives} drives: keys in "
          f"{time.monotonic() - t:.1f} s; journals and HDF5 on {fstype} ({top})")
    fleet = os.path.join(top, "fleet.yaml")
    with open(fleet, "w") as f:
        f.write("racks:\n" + "".join(
            f"  - name: {rk.name}\n    endpoint: {rk.admin_ep}\n"
            f"    public_key_file: {rk.keys}/coordinator.pub\n    labels: {{bench: fleet}}\n"
            for rk in racks))
    camp = os.path.join(top, "campaign.yaml")
    with open(camp, "w") as f:
        f.write(f"name: fleet\nwait: 60s\ndefaults: {{interval: {a.interval}, runtime: "
                f"{a.duration}s}}\ntargets:\n  - agents: {{labels: {{bench: fleet}}, count: all}}"
                "\n    select: {count: all}\n"
                "phases:\n  - workload: {rw: randread, bs: 4k, iodepth: 32}\n")
    base = ["--fleet", fleet, "--key", admin_key]
    try:
        for rk in racks:
            rk.serve = subprocess.Popen(
                [COORD, "serve", "--listen", rk.ep, "--key", f"{rk.keys}/coordinator.key",
                 "--agent-keys", f"{rk.keys}/allowed", "--control", rk.ctl, "--results", rk.out,
                 "--admin-listen", rk.admin_ep, "--admin-keys", rk.allow],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(rk.dir, "serve.log"), "w"))
        t = time.monotonic()
        while not all(os.path.exists(rk.ctl) for rk in racks):
            dead = [rk.name for rk in racks if rk.serve.poll() is not None]
            if dead or time.monotonic() - t > 30:
                sys.exit(f"services not up: {dead or 'no control socket after 30 s'} "
                         f"(their serve.log in {top})")
            time.sleep(0.05)
        t = time.monotonic()
        for rk in racks:
            rk.sim = subprocess.Popen([SIM, "run", rk.ep, rk.keys, str(rk.agents), str(a.drives),
                                       str(a.buckets), rk.name], stdout=subprocess.PIPE,
                                      text=True, preexec_fn=lambda: os.nice(a.nice_sim))
            threading.Thread(target=lambda rk=rk: [rk.lines.append(l) for l in rk.sim.stdout],
                             daemon=True).start()
        counts = [0] * n
        while sum(counts) < a.agents and time.monotonic() - t < 120:
            time.sleep(0.5)
            counts = [c if c >= rk.agents else rk.registered() for c, rk in zip(counts, racks)]
        print(f"{sum(counts)} of {a.agents} agents registered with their {n} services "
              f"{time.monotonic() - t:.1f} s after they started connecting")
        # the fleet as `fleet run` will see it: every rack, agent and drive in a shard
        r = subprocess.run([COORD, "fleet", "plan", camp] + base, capture_output=True,
                           text=True)
        got = [l for l in r.stdout.splitlines() if l.startswith("fleet:")]
        want = (f"fleet: {n} of {n} rack(s) with a shard, {a.agents} agent(s), "
                f"{a.agents * a.drives} drive(s)")
        print(f"fleet plan: {got[0] if got else r.stderr.strip()}")
        if r.returncode or not got or not got[0].startswith(want):
            sys.exit(f"fleet plan (exit {r.returncode}) is not '{want}'")
        time.sleep(3)  # a Hello from each since, for the run to start with
        summary = os.path.join(top, "summary.json")
        table, view = os.path.join(top, "fleet-run.out"), os.path.join(top, "fleet-run.err")
        cpu0 = [cpu_s(rk.serve.pid) for rk in racks]
        sim_cpu0 = sum(cpu_s(rk.sim.pid) for rk in racks)
        m0 = time.monotonic_ns()
        wall_mono = time.clock_gettime_ns(time.CLOCK_REALTIME) - (m0 + time.monotonic_ns()) // 2
        t0 = time.monotonic_ns()
        run = subprocess.Popen([COORD, "fleet", "run", camp, "--start-in", a.start_in,
                                "--summary", summary] + base, cwd=top,
                               stdout=open(table, "w"), stderr=open(view, "w"))
        # reaped here with its rusage: the client's CPU, all its threads, to its exit
        seen, next_report = 0.0, t0 + 10_000_000_000
        while True:
            pid, st, ru = os.wait4(run.pid, os.WNOHANG)
            if pid:
                break
            seen = max(seen, cpu_s(run.pid))
            time.sleep(0.1)
            if time.monotonic_ns() >= next_report:
                next_report += 10_000_000_000
                acked = 0.0
                for rk in racks:
                    w = [l for l in rk.lines if l.startswith("sim: welcomed")]
                    acked += float(w[-1].split("sent/s")[1].split()[0]) if w else 0
                print(f"t={(time.monotonic_ns() - t0) / 1e9:5.0f} s  acknowledged {acked:,.0f} "
                      f"samples/s (the sims' last 10 s)  fleet client CPU {seen:.2f} s  services "
                      f"{sum(cpu_s(rk.serve.pid) for rk in racks) - sum(cpu0):.1f} s")
                sys.stdout.flush()
        t1 = time.monotonic_ns()
        run.returncode = os.waitstatus_to_exitcode(st)
        wall = (t1 - t0) / 1e9
        client_cpu = ru.ru_utime + ru.ru_stime
        serve_cpu = [cpu_s(rk.serve.pid) - c for rk, c in zip(racks, cpu0)]
        sim_cpu = sum(cpu_s(rk.sim.pid) for rk in racks) - sim_cpu0
        for rk in racks:
            rk.sim.send_signal(signal.SIGTERM)
        for rk in racks:
            rk.sim.wait(30)
        time.sleep(0.5)  # the readers' last lines
        with open(table) as f:
            print(f.read().rstrip())
        doc = json.load(open(summary)) if os.path.exists(summary) else {"racks": []}
        by = {x["rack"]: x for x in doc["racks"]}
        planned = doc.get("start_utc_ns", 0) - wall_mono  # the instant, in CLOCK_MONOTONIC
        print(f"fleet run: exit {run.returncode} after {wall:.2f} s; its CPU {client_cpu:.2f} s "
              f"({client_cpu / wall:.3f} CPUs; wait4's rusage, the last /proc read in the run "
              f"{seen:.2f} s)")
        if "start_utc_ns" not in doc:
            print(f"no fleet summary ({summary}): fleet run's stderr in {view}")
            return 1
        starts = [last_field(rk.lines, "last_start_mono_ns") or 0 for rk in racks]
        assigns = [last_field(rk.lines, "last_assign_mono_ns") or 0 for rk in racks]
        last = max(starts)
        print(f"planned start instant: {(planned - t0) / 1e9:+.3f} s after `fleet run` began "
              f"(--start-in {a.start_in}, from when it had measured the racks' clocks)")
        print(f"the last Assign came {(max(assigns) - t0) / 1e9:+.3f} s after `fleet run` began, "
              f"{(planned - max(assigns)) / 1e6:.0f} ms before the instant")
        print(f"from `fleet run` to the last rack's first IO instant (the sims' latest start, "
              f"over {n} racks): {(last - t0) / 1e9:.3f} s; {(last - planned) / 1e6:+.3f} ms "
              f"from the planned instant (racks' latest starts "
              f"{(min(starts) - planned) / 1e6:+.3f} .. {(last - planned) / 1e6:+.3f} ms)")
        skew = doc.get("start_skew_across_racks_ns")
        los = [x.get("start_skew_lo_ns") for x in by.values() if "start_skew_lo_ns" in x]
        his = [x.get("start_skew_hi_ns") for x in by.values() if "start_skew_hi_ns" in x]
        if skew is not None and los:
            print(f"the services' own start skew (summary): across racks {skew / 1e6:.3f} ms, "
                  f"drives {min(los) / 1e6:+.3f} .. {max(his) / 1e6:+.3f} ms from the instant")
        # a simulated agent starts at the very instant it is given (no rings to ready) unless
        # its Assign comes after it: its start says the Assigns came in time, and its skew is
        # the services' clock estimates moving between the Assign and the result; the first
        # batches' own stamps in the files below say when the sims sent them
        if skew == 0 or last == planned:
            print("  note: exactly 0: by construction, not measured (see the files' stamps)")
        rows_all, bad, first_io, lag = 0, [], [], []
        import h5py
        for rk, cpu in zip(racks, serve_cpu):
            x = by.get(rk.name, {})
            path = x.get("results") or ""
            if path and not os.path.isabs(path):
                path = os.path.join(rk.out, path)
            files = [path] if os.path.exists(path) else glob.glob(os.path.join(rk.out, "*.h5"))
            rows, io0, why = -1, None, "no HDF5 file"
            try:
                h = h5py.File(files[0], "r") if files else None
            except OSError as e:  # a service killed mid-run leaves its file open for write
                h, why = None, f"{files[0]}: {e}"
            if h:
                with h:
                    s = h["samples"]
                    rows = len(s)
                    if rows:
                        iv, tn = s["interval"], s["t_ns"]
                        first = tn[iv == 0]
                        # interval 0 ends one interval after the start: its batch is sent then
                        io0 = (int(first.min()), int(first.max())) if len(first) else None
                        # every batch: how long after it was due the sim sent it
                        lag.append((tn - doc["start_utc_ns"]) / 1e6 -
                                   (iv.astype("int64") + 1) * interval_ms)
            else:
                print(f"{rk.name}: {why}")
            fin = [l.split() for l in rk.lines if l.startswith("final:")]
            acked = int(fin[-1][5]) if fin else -1
            want = rk.agents * a.drives * nbatches
            ok = rows == want == acked and x.get("status") == "COMPLETE"
            rows_all += max(rows, 0)
            if not ok:
                bad.append(rk.name)
            if io0:
                first_io.append(io0)
            late = (f"{(io0[1] - interval_ms * 1_000_000 - doc['start_utc_ns']) / 1e6:+.1f} ms"
                    if io0 else "-")
            print(f"{rk.name}: {x.get('status', 'NO SUMMARY'):<10} {rk.agents:4d} agents  rows "
                  f"{rows:,} of {want:,} (agents x drives x {nbatches} intervals), sims acked "
                  f"{acked:,}  {'ok' if ok else 'LOST'}  service CPU {cpu:.2f} s  latest start "
                  f"{(starts[rk.i] - planned) / 1e6:+.3f} ms, first batch sent "
                  f"{late} after instant + one interval"
                  + (f"  LATE by {x['start_late_ns'] / 1e6:.0f} ms" if "start_late_ns" in x
                     else ""))
        if first_io:
            lo = min(f[0] for f in first_io) - interval_ms * 1_000_000 - doc["start_utc_ns"]
            hi = max(f[1] for f in first_io) - interval_ms * 1_000_000 - doc["start_utc_ns"]
            print(f"from the HDF5 files (the first interval's t_ns, where the sims stamped its "
                  f"batch, less one interval): the fleet's first IO {lo / 1e6:+.1f} .. "
                  f"{hi / 1e6:+.1f} ms from the instant, the last rack's first IO "
                  f"{(hi + doc['start_utc_ns'] - wall_mono - t0) / 1e9:.3f} s after `fleet run`")
        if lag:
            import numpy
            lag = numpy.concatenate(lag)
            print(f"the sims' sends (at nice {a.nice_sim}), every batch against when it was "
                  f"due: median {numpy.median(lag):+.1f} ms, p99 {numpy.percentile(lag, 99):+.1f}"
                  f" ms, max {lag.max():+.1f} ms: the scale of the first batches' lag above")
        tot = sum(serve_cpu)
        print(f"services' CPU over the run: {tot:.1f} s in all ({tot / wall:.2f} CPUs), "
              f"{min(serve_cpu):.2f}-{max(serve_cpu):.2f} s a rack"
              + (f", {tot / rows_all * 1e6:.2f} us per stored sample" if rows_all else "")
              + f"; the sims {sim_cpu:.1f} s")
        print(f"the point: {a.duration} s; fleet run ended "
              f"{(t1 - planned) / 1e9 - a.duration:.2f} s after its planned end")
        print(f"nothing lost: {'yes' if not bad and run.returncode == 0 else 'NO'}: "
              f"{rows_all:,} sample rows in {n} files, {a.agents * a.drives * nbatches:,} "
              f"expected; the rule: each rack's rows = its agents x drives x runtime/interval "
              f"= what its sim counts acknowledged, its status COMPLETE in the fleet summary, "
              f"and fleet run's exit 0 (it was {run.returncode})"
              + (f"; failing: {', '.join(bad)}" if bad else ""))
        return 0 if not bad and run.returncode == 0 else 1
    finally:
        for rk in racks:
            if rk.sim and rk.sim.poll() is None:
                rk.sim.kill()
                rk.sim.wait()
        for rk in racks:
            if rk.serve and rk.serve.poll() is None:
                rk.serve.send_signal(signal.SIGTERM)
        for rk in racks:
            if rk.serve:
                try:
                    rk.serve.wait(30)
                except subprocess.TimeoutExpired:
                    rk.serve.kill()
                    rk.serve.wait()
            if not a.keep:
                shutil.rmtree(rk.out, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", type=int, default=1000)
    ap.add_argument("--drives", type=int, default=24)
    ap.add_argument("--buckets", type=int, default=64)
    ap.add_argument("--interval", default="100ms")
    ap.add_argument("--duration", type=int, default=300, help="seconds of the point")
    ap.add_argument("--dir", default="/var/tmp/rackbench-fleet")
    ap.add_argument("--keep", action="store_true", help="keep --dir afterwards")
    ap.add_argument("--nice-sim", type=int, default=0,
                    help="run the simulator at this nice level: on a small machine it shares "
                         "the coordinator's CPUs, and 19 shows what the coordinator can take")
    ap.add_argument("--racks", type=int, default=0,
                    help="N rack services with admin endpoints, the agents split across them "
                         "(a simulator each), and `rackbench fleet run` of the campaign; 0: "
                         "one service and `rackbench run`")
    ap.add_argument("--start-in", default="3s", help="with --racks: fleet run's --start-in")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    fstype = subprocess.run(["stat", "-f", "-c", "%T", a.dir], capture_output=True,
                            text=True).stdout.strip()
    if fstype in ("tmpfs", "ramfs"):
        sys.exit(f"{a.dir} is on {fstype}: the journal and HDF5 must be on a disk")
    if a.racks:
        return racks_main(a, fstype)
    keys = os.path.join(a.dir, "keys")
    shutil.rmtree(keys, ignore_errors=True)
    subprocess.run([COORD, "keygen", keys, "coordinator"], check=True, capture_output=True)
    t = time.monotonic()
    subprocess.run([SIM, "keys", keys, str(a.agents)], check=True)
    print(f"{a.agents} agent key pairs in {time.monotonic() - t:.1f} s; journal and HDF5 on "
          f"{fstype} ({a.dir})")
    camp = os.path.join(a.dir, "fleet.yaml")
    with open(camp, "w") as f:
        f.write("name: fleet\nwait: 60s\ndefaults: {interval: %s, runtime: %ds}\ntargets:\n"
                % (a.interval, a.duration))
        drives = ", ".join(f"/dev/nvme{i}n1" for i in range(a.drives))
        for i in range(a.agents):
            f.write(f"  - agent: sim-{i:04d}\n    drives: [{drives}]\n")
        f.write("phases:\n  - workload: {rw: randread, bs: 4k, iodepth: 32}\n")
    ctl = os.path.join(a.dir, "control")
    out = os.path.join(a.dir, "out")
    shutil.rmtree(out, ignore_errors=True)
    ep = f"tcp://127.0.0.1:{free_port()}"
    env = dict(os.environ, RACKBENCH_CONTROL=ctl)
    serve = subprocess.Popen([COORD, "serve", "--listen", ep, "--key", f"{keys}/coordinator.key",
                              "--agent-keys", f"{keys}/allowed", "--control", ctl,
                              "--results", out],
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(a.dir, "serve.log"),
                                                                    "w"))
    sim = None
    try:
        while not os.path.exists(ctl):
            time.sleep(0.05)
        t = time.monotonic()
        sim = subprocess.Popen([SIM, "run", ep, keys, str(a.agents), str(a.drives),
                                str(a.buckets)], stdout=subprocess.PIPE, text=True,
                               preexec_fn=lambda: os.nice(a.nice_sim))
        lines = []
        threading.Thread(target=lambda: [lines.append(l) for l in sim.stdout], daemon=True).start()
        n = 0
        while n < a.agents and time.monotonic() - t < 120:
            time.sleep(0.5)
            r = subprocess.run([COORD, "agents", "--json"], env=env, capture_output=True,
                               text=True)
            n = len(json.loads(r.stdout)) if r.returncode == 0 else 0
        print(f"{n} agents registered with the service {time.monotonic() - t:.1f} s after "
              "they started connecting")
        time.sleep(3)  # a Hello from each since, for the run to start with
        t0 = time.monotonic_ns()
        cpu0 = cpu_s(serve.pid)
        sim_cpu0 = cpu_s(sim.pid)
        run = subprocess.Popen([COORD, "run", camp, "--results", out], env=env, stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(a.dir, "run.log"), "w"))
        rss = []
        start = time.monotonic()
        next_report = start + 10
        # the wall is the run's own to 0.2 s, not the 10 s of the reports
        while run.poll() is None:
            try:
                run.wait(0.2)
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() < next_report:
                continue
            next_report += 10
            rss.append(rss_kib(serve.pid))
            sims = [l for l in lines if l.startswith("sim: welcomed")]
            print(f"t={time.monotonic() - start:5.0f} s  coordinator RSS {rss[-1] / 1024:7.1f} MiB"
                  f"  {sims[-1].strip() if sims else ''}")
            sys.stdout.flush()
        wall = time.monotonic() - start
        cpu = cpu_s(serve.pid) - cpu0
        sim_cpu = cpu_s(sim.pid) - sim_cpu0
        print(f"run exit {run.returncode} after {wall:.0f} s")
        sim.send_signal(signal.SIGTERM)
        sim.wait(30)
        time.sleep(0.5)
        last = [int(l.split()[1]) for l in lines if l.startswith("last_start_mono_ns")]
        if last:
            print(f"from `rackbench run` to the first IO instant of the last of "
                  f"{a.agents * a.drives} drives: {(last[0] - t0) / 1e9:.2f} s (target <= 2 s)")
        offered = a.agents * a.drives / (parse_ms(a.interval) / 1000)
        files = glob.glob(os.path.join(out, "fleet-*.h5"))
        if files:
            import h5py
            with h5py.File(files[0], "r") as h:
                rows = len(h["samples"])
                hist = len(h["hist_bins"] if "hist_bins" in h else h["histograms"])
                t = h["samples"]["t_ns"] if rows else []
            size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(out, "fleet-*")))
            # the drives' own span: the samples' interval ends, first to last, plus the
            # first interval (t_ns is where an interval ends)
            span = ((int(t.max()) - int(t.min())) / 1e9 + parse_ms(a.interval) / 1000
                    if rows else 0)
            print(f"HDF5: {rows:,} sample rows, {hist:,} histogram rows, {size / 1e9:.1f} GB "
                  f"with the journal; offered {offered:,.0f}/s for {a.duration} s")
            if span:
                print(f"stored: {rows / span:,.0f} samples/s over the {span:.1f} s the samples "
                      f"span; {rows / wall:,.0f}/s over the run's {wall:.1f} s wall (set-up "
                      "and drain included)")
            if rows:
                print(f"coordinator CPU: {cpu:.1f} s over the run ({cpu / wall:.2f} CPUs), "
                      f"{cpu / rows * 1e6:.2f} us per stored sample (target <= 6); the "
                      f"simulator beside it {sim_cpu:.1f} s ({sim_cpu / wall:.2f} CPUs, "
                      f"{sim_cpu / rows * 1e6:.2f} us per sample)")
                h5size = sum(os.path.getsize(p) for p in files)
                print(f"HDF5 file alone: {h5size / 1e6:,.1f} MB, {h5size / rows:,.0f} B per "
                      f"sample, {h5size / rows * 3600e3 / parse_ms(a.interval) / 1e6:,.2f} MB "
                      f"per drive-hour at {a.interval} intervals")
        # acknowledged, from the simulator's own counters: its 10 s windows while running
        acked = [float(l.split("sent/s")[1].split()[0]) for l in lines
                 if l.startswith("sim: welcomed") and "acked/s" in l]
        busy = [x for x in acked if x > 0]
        if busy:
            print(f"acknowledged: median {statistics.median(busy):,.0f} samples/s over "
                  f"{len(busy)} windows of 10 s (min {min(busy):,.0f}, max {max(busy):,.0f})")
        # ... and from the first to the last window in which the simulator sent all that
        # was due (the first and the last windows are partial; a slow one between counts):
        # acknowledged against sent, from its running totals, so that the ack lag at a
        # window's edge does not read as a shortfall
        tot = [(int(l.split()[7]), int(l.split()[9])) for l in lines
               if l.startswith("sim: welcomed") and "acked/s" in l]
        full = [i for i in range(1, len(tot))
                if tot[i][0] - tot[i - 1][0] >= 0.95 * offered * 10]
        if len(full) >= 2:
            i0, i1 = full[0] - 1, full[-1]
            secs = 10 * (i1 - i0)
            sent_r = (tot[i1][0] - tot[i0][0]) / secs
            acked_r = (tot[i1][1] - tot[i0][1]) / secs
            print(f"acknowledged over {i1 - i0} windows (first to last full): {acked_r:,.0f} "
                  f"samples/s, {acked_r / sent_r:.2%} of the {sent_r:,.0f}/s sent in them "
                  f"({offered:,.0f}/s offered)")
        if len(rss) >= 4:
            h = len(rss) // 2
            first, second = max(rss[:h]), max(rss[h:])
            print(f"RSS peak: first half {first / 1024:.1f} MiB, second half {second / 1024:.1f} "
                  f"MiB: {'flat' if second <= first * 1.05 else 'GROWING'} (within 5%)")
    finally:
        if sim and sim.poll() is None:
            sim.kill()
        serve.send_signal(signal.SIGTERM)
        serve.wait(30)
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
