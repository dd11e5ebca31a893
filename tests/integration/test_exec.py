# SPDX-License-Identifier: MIT
"""Exec phases: the sysbench-oltp preset -- SysBench OLTP on MariaDB
(deploy/exec/sysbench-mariadb.sh) whose data folder is on a loop device's ext4 made by
rackbench, a warm-up then a measured run on the same database -- on two agents, shrunk
by its overrides.

- each agent runs the command of its own allow-list (agent.yaml 'commands') with the
  campaign's parameters; TPS, QPS and the p95 latency in the results' exec table are
  what sysbench printed (its output's tail is stored too);
- the drive's samples during the phase show its IO: non-zero, and their bytes equal the
  /sys/block stat deltas the command itself read before and after (within 1%) and, to the
  byte, the result's: a drive's samples end when its command does, also while the other
  drive's command still runs (its filesystem's writeback after is no command's);
- `rackbench report` puts each command's figures beside the drive's, in words and on the
  page (its Applications table, in headless Chromium where it is installed);
- an agent refuses a command not on its allow-list, naming it and its list; nothing runs.
"""
import glob
import os
import re
import stat
import subprocess

from htmlpage import CHROMIUM, Charts, keep, render
from rbtest import COORD, SRC, Agent, LoopDevices, Tmp, check, free_port, h5, need, run

need(root_for="loop devices, mkfs, mounts and MariaDB",
     tools=("losetup", "mkfs.ext4", "mariadbd", "mariadb-install-db", "sysbench"))
h5py = h5()

# the command reads the drive's kernel counters around the deploy script, on stderr
WRAPPER = """#!/bin/sh
dev=$1; shift
s=/sys/dev/block/$(printf %d 0x$(stat -L -c %t "$dev")):$(printf %d 0x$(stat -L -c %T "$dev"))/stat
echo "stat-before: $(cat $s)" >&2
"{script}" "$@"
rc=$?
echo "stat-after: $(cat $s)" >&2
exit $rc
"""
AGENT_YAML = """commands:
  sysbench-mariadb:
    argv: [{wrapper}, "{{device}}", "{{dir}}", "{{threads}}", "{{time}}", "{{tables}}",
           "{{rows}}", "{{buffer_pool}}", "{{fresh}}"]
    params: {{threads: 2, time: 60, tables: 1, rows: 1000, buffer_pool: 32M, fresh: "yes"}}
    timeout: 5m
    output: sysbench
  fio-job:
    argv: [fio, --output-format=json, "--runtime={{time}}", {jobfile}]
    params: {{time: 2}}
    timeout: 2m
    output: fio-json
"""
# an existing fio job, run as a phase in the drive's filesystem (fio's cwd)
JOBFILE = """[randread]
filename=fio.dat
size=16m
rw=randread
bs=4k
iodepth=4
ioengine=io_uring
direct=1
time_based=1
"""
FIO = """phases:
  - name: fio
    exec: {command: fio-job}
    workload: {interval: 500ms}"""
CAMPAIGN = """name: oltp
insecure: true
destructive: true
wipe_signatures: true   # a run after the first finds its filesystems
wait: 20s
targets:
  - agent: x1
    filesystem: {{type: ext4, mkfs_options: "-E lazy_itable_init=1,lazy_journal_init=1"}}
    drives: [{d0}]
  - agent: x2
    filesystem: ext4
    drives: [{d1}]
{body}
"""
# the preset, shrunk: 3 s runs of 4 threads on 2 tables of 5,000 rows, sampled every 500 ms
PRESET = """preset: sysbench-oltp
overrides: {exec: {time: 3, tables: 2, rows: 5000, threads: 4, buffer_pool: 32M},
            interval: 500ms}"""
REFUSED = """phases:
  - exec: {command: rm-everything}"""


def sectors(line):
    v = [int(x) for x in line.split()]
    return v[2] + v[6]  # sectors read, written


with Tmp() as tmp:
    wrapper = os.path.join(tmp, "oltp.sh")
    with open(wrapper, "w") as f:
        f.write(WRAPPER.format(script=os.path.join(SRC, "deploy", "exec", "sysbench-mariadb.sh")))
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
    conf = os.path.join(tmp, "agent.yaml")
    jobfile = os.path.join(tmp, "randread.fio")
    with open(jobfile, "w") as f:
        f.write(JOBFILE)
    with open(conf, "w") as f:
        f.write(AGENT_YAML.format(wrapper=wrapper, jobfile=jobfile))
    with LoopDevices(tmp, 2, size=512 << 20) as devs:
        def campaign(body, out):
            path = os.path.join(tmp, "c.yaml")
            with open(path, "w") as f:
                f.write(CAMPAIGN.format(d0=devs[0], d1=devs[1], body=body))
            ep = f"tcp://127.0.0.1:{free_port()}"
            ags = [Agent(ep, n, [d], allow=[d], state_dir=os.path.join(tmp, n),
                         extra=["--config", conf]) for n, d in (("x1", devs[0]), ("x2", devs[1]))]
            try:
                return run([COORD, "run", path, "--listen", ep, "--no-service", "--results", out],
                           timeout=240)
            finally:
                for a in ags:
                    a.stop()

        for n in ("x1", "x2"):
            os.mkdir(os.path.join(tmp, n), 0o700)
        # a command no agent allows: refused before anything runs, named
        r = campaign(REFUSED, os.path.join(tmp, "refused"))
        print(r.stderr)
        check(r.returncode == 3, f"a command off the list: exit {r.returncode}, want 3")
        for n in ("x1", "x2"):
            check(f"command 'rm-everything' is not on agent '{n}''s allow-list (its agent.yaml "
                  "'commands': sysbench-mariadb, fio-job)" in r.stderr, f"{n}'s refusal")
        check(not glob.glob(os.path.join(tmp, "x*", "exec", "*")), "a refused command ran")

        out = os.path.join(tmp, "out")
        r = campaign(PRESET, out)
        print(r.stdout, r.stderr)
        if r.returncode:
            # what a failed command said (the deploy script copies MariaDB's log tail
            # there) before the test's folder goes
            for f in sorted(glob.glob(os.path.join(tmp, "x*", "exec", "*.err"))):
                with open(f, errors="replace") as fh:
                    print(f"--- {f}\n{fh.read()[-3000:]}")
        check(r.returncode == 0, f"exit {r.returncode}")
        res = glob.glob(os.path.join(out, "*.h5"))[0]
        with h5py.File(res, "r") as h:
            drives = {int(x["drive"]): x["path"].decode() for x in h["drives"][:]}
            ex = h["exec"][:]
            rows = h["results"][:]
            smp = h["samples"][:]
        check(len(ex) == 4 and sorted(int(x["point"]) for x in ex) == [0, 0, 1, 1],
              f"{len(ex)} exec rows: a warm-up and a run on each drive")
        for x in ex:
            d = int(x["drive"])
            dev = drives[d]
            out_tail, err_tail = x["stdout_tail"].decode(), x["stderr_tail"].decode()
            check(x["exit_code"] == 0 and x["command"] == b"sysbench-mariadb" and
                  x["parser"] == b"sysbench", f"{dev}: {x['command']} exit {x['exit_code']}")
            tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", out_tail)[1])
            qps = float(re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec", out_tail)[1])
            p95 = float(re.search(r"95th percentile:\s+([\d.]+)", out_tail)[1])
            check((x["tps"], x["qps"], x["lat_p95_ms"]) == (tps, qps, p95),
                  f"{dev}: table {x['tps']} {x['qps']} {x['lat_p95_ms']}, sysbench {tps} {qps} {p95}")
            check(tps > 0, f"{dev}: no transactions")
            # the drive's IO while the command ran: the samples against the kernel's counts
            before = re.search(r"stat-before: (.*)", err_tail)[1]
            after = re.search(r"stat-after: (.*)", err_tail)[1]
            kernel = (sectors(after) - sectors(before)) * 512
            s = smp[(smp["drive"] == d) & (smp["point"] == x["point"])]
            sampled = int(s["bytes"].sum())
            print(f"{dev} point {x['point']}: {tps} TPS, p95 {p95} ms; samples {sampled} B, "
                  f"kernel {kernel} B")
            # the warm-up made the database; the measured run used it as it was
            want = "the earlier run's" if x["point"] == 1 else "made anew"
            check(f"sysbench-mariadb: database {want}" in err_tail, f"{dev}: {err_tail}")
            check(kernel > 0 and sampled > 0 and abs(sampled - kernel) <= 0.01 * kernel,
                  f"{dev}: samples {sampled} B, the kernel's delta {kernel} B")
            check(set(int(v) for v in s["direction"]) == {0, 1}, f"{dev}: directions")
            row = [y for y in rows if y["drive"] == d and y["point"] == x["point"]][0]
            # its samples end when its command ends: they add up to its result exactly
            check(row["status"] == b"ok" and row["write_bytes"] + row["read_bytes"] == sampled,
                  f"{dev}: result {row['status']} {row['write_bytes'] + row['read_bytes']} B, "
                  f"samples {sampled} B")
        r = run([COORD, "report", res])
        print(r.stdout)
        for x in ex:
            want = (f"sysbench-mariadb exit 0 after {x['duration_ns'] / 1e9:.1f} s: "
                    f"{x['tps']:.2f} TPS, {x['qps']:.2f} QPS, latency avg {x['lat_avg_ms']:.2f} "
                    f"ms, p95 {x['lat_p95_ms']:.2f} ms; the drive:")
            check(want in r.stdout, f"report lacks '{want}'")
        page = os.path.join(tmp, "oltp.html")
        r = run([COORD, "report", res, "--html", page])
        check(r.returncode == 0, f"report --html: {r.returncode} {r.stderr}")
        text = open(page).read()
        if CHROMIUM:
            out, console = render(page, tmp)
            check(out.returncode == 0 and not console, f"chromium: {console}")
            text = out.stdout
        p = Charts()
        p.feed(text)
        check("applications" in p.sections, f"sections {p.sections}")
        for x in ex:
            check(f"<td>{x['tps']:.2f}</td>" in text and f"<td>{x['lat_p95_ms']:.2f} ms</td>" in
                  text, f"the page's row of {drives[int(x['drive'])]} point {x['point']}")
        if CHROMIUM:
            keep(page, tmp, "exec")

        # an existing fio job as a phase: fio's JSON read into the table
        out = os.path.join(tmp, "out-fio")
        r = campaign(FIO, out)
        check(r.returncode == 0, f"fio phase: exit {r.returncode} {r.stderr}")
        with h5py.File(glob.glob(os.path.join(out, "*.h5"))[0], "r") as h:
            ex = h["exec"][:]
            smp = h["samples"][:]
        for x in ex:
            print(x["metrics"])
            check(x["parser"] == b"fio-json" and x["exit_code"] == 0 and x["iops"] > 0 and
                  abs(x["mbps"] * 1e6 / x["iops"] - 4096) < 1 and x["lat_p99_ms"] > 0,
                  f"fio's figures: {x['metrics']}")
            s = smp[(smp["drive"] == x["drive"]) & (smp["direction"] == 0)]
            check(int(s["ios"].sum()) > 0, "the drive's reads while fio ran")
print("ok")
