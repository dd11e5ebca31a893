# SPDX-License-Identifier: MIT
"""Exec phases' holes, closed:

- a command outlives no agent: a real allow-listed command that forks children (one in
  its process group, one in a session of its own) is running when the agent is killed
  with -9; then (within 2 s) no process of the command's group, and none of its
  children, is alive (checked by the group with kill(-PGID, 0) and by /proc/*/stat). The
  agent's supervisor per command (agent/workload/proc.c, docs/campaigns.md) does it;
- the SysBench command (deploy/exec/sysbench-mariadb.sh) asked to run the database an
  earlier run left (fresh: no) when there is none -- its warm-up failed -- exits 3 at
  once, naming why, rather than making the database cold and passing for the warm run;
- a command's output is not read into the agent's memory: 160 MB of it parsed as fio's
  JSON leaves the agent's peak RSS far below that, and the drive's result says that no
  figure was read and why."""
import glob
import os
import re
import signal
import subprocess
import time

from rbtest import COORD, SRC, Agent, Tmp, check, free_port, h5, run, wait_for

AGENT_YAML = """commands:
  chatty:
    argv: [/bin/sh, -c, 'head -c 160000000 /dev/zero | tr "\\\\0" x; echo', "{{tag}}"]
    params: {{tag: x}}
    timeout: 60s
    output: fio-json
  forks:
    argv: [/bin/sh, -c, 'echo $$ > {pids}; sleep 300 & echo $! >> {pids};
           setsid sleep 301 & echo $! >> {pids}; wait', "{{tag}}"]
    params: {{tag: x}}
    timeout: 60s
"""
CAMPAIGN = """name: exec-kill
insecure: true
destructive: true
wait: 20s
targets:
  - agent: k1
    drives: [{drive}]
phases:
  - exec: {{command: {command}}}
"""


def pgid_members(pgid):
    """Pids whose process group is pgid, from /proc/*/stat."""
    found = []
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(st) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(st.split("/")[2]))
    return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


with Tmp() as tmp:
    pids = os.path.join(tmp, "pids")
    conf = os.path.join(tmp, "agent.yaml")
    with open(conf, "w") as f:
        f.write(AGENT_YAML.format(pids=pids))
    drive = os.path.join(tmp, "drive.dat")
    with open(drive, "wb") as f:
        f.truncate(16 << 20)
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN.format(drive=drive, command="forks"))
    ep = f"tcp://127.0.0.1:{free_port()}"
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    agent = Agent(ep, "k1", [drive], allow=[drive], state_dir=state, extra=["--config", conf])
    coord = subprocess.Popen([COORD, "run", camp, "--listen", ep, "--no-service",
                              "--results", os.path.join(tmp, "out")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        def three():
            try:
                with open(pids) as f:
                    v = [int(x) for x in f.read().split()]
            except (OSError, ValueError):
                return None
            return v if len(v) == 3 else None

        sh, child, escaped = wait_for(three, "the command to start its children",
                                      show=agent.output)
        check(pgid_members(sh), "the command's group is not running")
        check(alive(child) and alive(escaped), "the command's children are not running")
        agent.proc.send_signal(signal.SIGKILL)
        agent.proc.wait()
        def gone():
            try:
                os.kill(-sh, 0)
                return False
            except ProcessLookupError:
                pass
            return not pgid_members(sh) and not alive(child) and not alive(escaped)

        # the supervisor hears of the agent's death from the kernel at once; the
        # generous bound is for a loaded machine, the poll ends when all is gone
        t0 = time.monotonic()
        wait_for(gone, "the command's group and children to end with the agent", timeout=10,
                 show=lambda: f"group {sh}: {pgid_members(sh)}; children alive: "
                              f"{[p for p in (child, escaped) if alive(p)]}")
        print(f"gone {time.monotonic() - t0:.2f} s after the agent")
        print("the command, its group and its escaped child ended with the agent")
    finally:
        coord.send_signal(signal.SIGTERM)
        try:
            coord.wait(30)
        except subprocess.TimeoutExpired:
            coord.kill()
            coord.wait()
        agent.stop()

    # the output bound: 160 MB of output, the agent's peak RSS, the drive's message
    with open(camp, "w") as f:
        f.write(CAMPAIGN.format(drive=drive, command="chatty"))
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "k1", [drive], allow=[drive], state_dir=state, extra=["--config", conf])
    try:
        out = os.path.join(tmp, "out2")
        r = run([COORD, "run", camp, "--listen", ep, "--no-service", "--results", out])
        print(r.stdout, r.stderr)
        with open(f"/proc/{agent.proc.pid}/status") as f:
            hwm = int(re.search(r"VmHWM:\s+(\d+) kB", f.read())[1]) << 10
        print(f"agent's peak RSS {hwm >> 20} MiB after 160 MB of its command's output")
        check(hwm < 96 << 20, f"the agent's peak RSS is {hwm >> 20} MiB: it read the output")
        h5py = h5()
        with h5py.File(glob.glob(os.path.join(out, "*.h5"))[0], "r") as h:
            row = h["results"][0]
        msg = row["message"].decode()
        check(row["status"] == b"error" and "over the 2 MiB the agent reads for figures" in msg,
              f"the drive's result: {row['status']} '{msg}'")
    finally:
        agent.stop()

# a measured OLTP run whose warm-up left no database is an error, not a cold run
with Tmp() as tmp:
    r = run(["sh", os.path.join(SRC, "deploy", "exec", "sysbench-mariadb.sh"), tmp, "1", "1",
             "1", "10", "32M", "no"])
    check(r.returncode == 3 and "no database from an earlier run" in r.stderr and
          "would be cold" in r.stderr, f"fresh=no without a database: {r.returncode} {r.stderr}")
    check(not os.listdir(tmp), f"it made nothing: {os.listdir(tmp)}")
