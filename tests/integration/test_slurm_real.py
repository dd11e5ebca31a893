# SPDX-License-Identifier: MIT
"""deploy/slurm under a real Slurm: a controller and a node on this machine, no systemd.

munged runs as the munge user with a private key and socket in a temp folder;
`slurmctld -D` and `slurmd -D -N HOST` read a slurm.conf written there (this host the
one node with its real CPUs and 100 MB of RealMemory, select/linear, proctrack/linuxproc,
task/none, free ports, state and spool in the folder, no accounting). Once sinfo shows
the node idle, six agents (two a rack, each a file drive, CURVE keys, label rack=rI)
dial the node, and the real deploy/slurm/fleet-burnin.sbatch is submitted as an array
of three tasks against a FLEET.yaml of three racks, then fleet-summary.sbatch with
--dependency=afterany on the array, as docs/fleet.md submits them. select/linear gives
a task the whole node, so the three coordinators take the node, and its port, one after
another, as tasks on nodes of their own would; --cpus-per-task is the node's CPUs where
it has fewer than the recipe's 4. When the queue is empty: each task COMPLETED with exit
0, each rack's folder holds its exit (0) and one results file whose run is complete and
whose drives are that rack's agents; fleet-summary.tsv names each rack with exit 0 and
its file; the summary's report names every rack, and `rackbench report --by rack` of the
three files does too. Everything is stopped on the way out (scancel, then the daemons).
Without Slurm's or munge's programs, or when a daemon cannot run here, the test skips
(77) naming the missing package or the daemon's own error line; integration.slurm checks
the recipe statically either way."""
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time

from rbtest import AGENT, Agent, COORD, SRC, Tmp, check, free_port, h5, pub, run, skip, wait_for

if os.geteuid() != 0:
    skip("needs root: slurmd runs the jobs, munged runs as the munge user")
SBIN = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
TOOLS = {}
for tool, pkg in (("munged", "munge"), ("slurmctld", "slurmctld"), ("slurmd", "slurmd"),
                  ("sbatch", "slurm-client"), ("squeue", "slurm-client"),
                  ("sinfo", "slurm-client"), ("scontrol", "slurm-client"),
                  ("scancel", "slurm-client")):
    TOOLS[tool] = shutil.which(tool, path=SBIN)
    if not TOOLS[tool]:
        skip(f"no {tool} here: install {pkg} (scripts/install-deps.sh installs slurm-wlm "
             f"and munge)")

RACKS = ["r0", "r1", "r2"]
D = os.path.join(SRC, "deploy", "slurm")
HOST = socket.gethostname().split(".")[0]
T0 = time.monotonic()


def stamp():
    return f"{time.monotonic() - T0:5.1f} s"


def last_error(path):
    """A daemon's own reason: its last error or fatal line (not the MPI plugins' it
    loads and needs not), else its last line."""
    try:
        lines = [x.strip() for x in open(path, errors="replace") if x.strip()]
    except FileNotFoundError:
        lines = []
    bad = [x for x in lines if re.search(r"\b(fatal|error)\b", x, re.I) and
           "pmix" not in x.lower() and "MPI:" not in x]
    return (bad or lines or ["no output"])[-1]


class Daemon:
    def __init__(self, tmp, name, args, env, **kw):
        self.name, self.out = name, os.path.join(tmp, f"{name}.log")
        self.proc = subprocess.Popen(args, env=env, stdout=open(self.out, "w"),
                                     stderr=subprocess.STDOUT, **kw)

    def check_up(self):
        """Skips (77) with the daemon's own error line when it has ended."""
        if self.proc.poll() is not None:
            skip(f"{self.name} cannot run here (exit {self.proc.returncode}): "
                 f"{last_error(self.out)}")

    def tail(self, n=2000):
        return f"--- {self.name}\n" + open(self.out, errors="replace").read()[-n:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def come_up(cond, what, daemons, timeout):
    """Polls cond() until it holds. A daemon that ends, or timeout seconds without it,
    is Slurm or munge that cannot run here: the test skips (77) naming the daemon's own
    last error line."""
    deadline = time.monotonic() + timeout
    while True:
        for d in daemons:
            d.check_up()
        got = cond()
        if got is True:
            return
        if time.monotonic() > deadline:
            skip(f"no {what} after {timeout} s ({got}); "
                 + "; ".join(f"{d.name}: {last_error(d.out)}" for d in daemons))
        time.sleep(0.2)



def strays(tmp):
    """The processes left working in tmp (a coordinator whose slurmstepd outlived slurmd)."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{p}/cwd")
            cmd = open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        if cwd == tmp or cwd.startswith(tmp + "/") or tmp + "/" in cmd:
            out.append(int(p))
    return out


CAMPAIGN = """name: burnin-{rack}
destructive: true
wait: 40s
defaults: {{size: 16m, interval: 250ms, verify: true}}
targets:
  - agents: {{labels: {{rack: {rack}}}, count: 2}}
    select: {{count: all}}
phases:
  - name: write
    workload: {{rw: write, bs: 128k, iodepth: 4, runtime: 1s}}
  - name: read
    workload: {{rw: randread, bs: 4k, iodepth: 8, runtime: 1s}}
"""

with Tmp() as tmp:
    os.chmod(tmp, 0o711)  # munged, as munge, reaches its folder through it
    daemons, agents, jobs = [], [], []
    env = None
    try:
        # munge: a private key and socket, munged as the munge user
        mdir = os.path.join(tmp, "munge")
        os.mkdir(mdir, 0o711)
        try:
            mu = pwd.getpwnam("munge")
            uid, gid = mu.pw_uid, mu.pw_gid
        except KeyError:
            uid, gid = 0, 0
        key = os.path.join(mdir, "munge.key")
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
            f.write(os.urandom(1024))
        os.chown(mdir, uid, gid)
        os.chown(key, uid, gid)
        sock = os.path.join(mdir, "munge.socket")
        munged = Daemon(tmp, "munged", [
            TOOLS["munged"], "-F", f"--key-file={key}", f"--socket={sock}",
            f"--log-file={mdir}/munged.log", f"--pid-file={mdir}/munged.pid",
            f"--seed-file={mdir}/munged.seed"], os.environ,
            **({"user": uid, "group": gid, "extra_groups": []} if uid else {}))
        daemons.append(munged)

        come_up(lambda: os.path.exists(sock) or "no socket", "munged socket", [munged], 20)

        # slurm.conf: this host the one node, everything else in tmp
        # the node as slurmd finds the hardware (`slurmd -C`), its memory made small
        r = run([TOOLS["slurmd"], "-C"])
        hw = dict(re.findall(r"\b(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)"
                             r"=(\d+)", r.stdout))
        cpus = int(hw.get("CPUs", 1))
        hw = " ".join(f"{k}={v}" for k, v in hw.items()) or "CPUs=1"
        for d in ("state", "spool"):
            os.mkdir(os.path.join(tmp, d))
        conf = os.path.join(tmp, "slurm.conf")
        with open(conf, "w") as f:
            f.write(f"""ClusterName=rbtest
SlurmctldHost={HOST}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
SchedulerType=sched/builtin
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName={HOST} NodeAddr=127.0.0.1 {hw} RealMemory=100 State=UNKNOWN
PartitionName=rb Nodes={HOST} Default=YES MaxTime=INFINITE State=UP
""")
        env = dict(os.environ, SLURM_CONF=conf)
        ctld = Daemon(tmp, "slurmctld", [TOOLS["slurmctld"], "-D", "-f", conf], env, cwd=tmp)
        daemons.append(ctld)
        slurmd = Daemon(tmp, "slurmd", [TOOLS["slurmd"], "-D", "-f", conf, "-N", HOST], env,
                        cwd=tmp)
        daemons.append(slurmd)

        def node_idle():
            r = run([TOOLS["sinfo"], "-h", "-n", HOST, "-o", "%t %E"], env=env, timeout=20)
            state = r.stdout.strip()
            return (r.returncode == 0 and state.split()[:1] == ["idle"] or
                    f"sinfo: {state or r.stderr.strip() or 'nothing'}")

        come_up(node_idle, f"idle node {HOST}", [munged, ctld, slurmd], 30)
        print(f"{stamp()}: slurmctld and slurmd up, node {HOST} idle ({cpus} CPUs)")

        # the racks: keys, six agents dialling the node, FLEET.yaml, a campaign a rack
        etc = os.path.join(tmp, "etc")
        port = free_port()
        names = {rk: [f"{rk}a0", f"{rk}a1"] for rk in RACKS}
        for who, tool in [("coordinator", COORD)] + [(n, AGENT) for rk in RACKS
                                                     for n in names[rk]]:
            r = run([tool, "keygen", etc, who])
            check(r.returncode == 0, f"keygen {who}: {r.stderr}")
        with open(os.path.join(etc, "agents.allow"), "w") as f:
            for rk in RACKS:
                for n in names[rk]:
                    f.write(f"{n} {pub(os.path.join(etc, n + '.pub'))}\n")
        for rk in RACKS:
            for n in names[rk]:
                drive = os.path.join(tmp, n, "d0.dat")
                agents.append(Agent(
                    f"tcp://127.0.0.1:{port}", n, [drive], allow=[drive], cwd=tmp,
                    state_dir=os.path.join(tmp, n), insecure=False,
                    extra=["--key", f"{etc}/{n}.key", "--coordinator-key",
                           f"{etc}/coordinator.pub", "--label", f"rack={rk}"]))
        fleet = os.path.join(tmp, "fleet.yaml")
        with open(fleet, "w") as f:
            f.write("racks:\n" + "".join(
                f"  - name: {rk}\n    endpoint: tcp://127.0.0.1:{7471 + i}\n"
                f"    public_key_file: etc/coordinator.pub\n    labels: {{row: a}}\n"
                for i, rk in enumerate(RACKS)))
        camps = os.path.join(tmp, "campaigns")
        os.mkdir(camps)
        for rk in RACKS:
            with open(os.path.join(camps, f"{rk}.yaml"), "w") as f:
                f.write(CAMPAIGN.format(rack=rk))
        res = os.path.join(tmp, "results")

        # the recipe, as docs/fleet.md submits it: the array, then the summary after it
        jenv = dict(env, RACKBENCH=os.path.abspath(COORD), RACKBENCH_ETC=etc,
                    RACKBENCH_LISTEN=f"tcp://127.0.0.1:{port}")
        n = len(re.findall(r"^ *- name:", open(fleet).read(), re.M))
        r = run([TOOLS["sbatch"], "--parsable", f"--array=0-{n - 1}",
                 f"--cpus-per-task={min(4, cpus)}", os.path.join(D, "fleet-burnin.sbatch"),
                 fleet, camps, res], env=jenv, cwd=tmp, timeout=30)
        check(r.returncode == 0, f"sbatch of the array: {r.stderr}")
        jid = r.stdout.strip().split(";")[0]
        jobs.append(jid)
        r = run([TOOLS["sbatch"], "--parsable", f"--dependency=afterany:{jid}",
                 os.path.join(D, "fleet-summary.sbatch"), res], env=jenv, cwd=tmp,
                timeout=30)
        check(r.returncode == 0, f"sbatch of the summary: {r.stderr}")
        sid = r.stdout.strip().split(";")[0]
        jobs.append(sid)
        print(f"{stamp()}: submitted array job {jid} (tasks 0-{n - 1}), summary job {sid}")

        def outputs():
            return "".join(f"--- {p}\n" + open(p, errors="replace").read()[-1500:]
                           for p in sorted(glob.glob(os.path.join(tmp, "*.out"))))

        seen = {}

        def queue_empty():
            for d in daemons:
                check(d.proc.poll() is None, f"{d.name} ended (exit {d.proc.returncode}) "
                      f"while the jobs ran: {last_error(d.out)}")
            r = run([TOOLS["squeue"], "-h", "-o", "%i %T"], env=env, timeout=20)
            for line in r.stdout.splitlines():
                job, state = line.split()
                if state == "RUNNING" and job not in seen:
                    seen[job] = stamp()
                    print(f"{seen[job]}: {job} running")
            return r.returncode == 0 and not r.stdout.strip()

        wait_for(queue_empty, "the array and the summary to end", timeout=120, every=0.2,
                 show=lambda: run([TOOLS["squeue"]], env=env).stdout + outputs() +
                 ctld.tail() + slurmd.tail() + "".join(a.output()[-800:] for a in agents))
        print(f"{stamp()}: the queue is empty")
        print(outputs())

        # each task: COMPLETED, exit 0, its rack's results
        r = run([TOOLS["scontrol"], "show", "job", jid], env=env)
        states = dict(re.findall(r"ArrayTaskId=(\d+)\b.*?JobState=(\S+)", r.stdout, re.S))
        codes = dict(re.findall(r"ArrayTaskId=(\d+)\b.*?\bExitCode=(\S+)", r.stdout, re.S))
        check(states == {str(i): "COMPLETED" for i in range(n)} and
              set(codes.values()) == {"0:0"}, f"three tasks completed, exit 0: {states} {codes}")
        files = []
        for i, rk in enumerate(RACKS):
            out = open(os.path.join(tmp, f"rackbench-fleet-{jid}-{i}.out")).read()
            check(f"task {i}: rack {rk}," in out, f"task {i} ran rack {rk}:\n{out}")
            d = os.path.join(res, rk)
            check(open(os.path.join(d, "exit")).read().strip() == "0", f"{rk}: exit 0")
            got = glob.glob(os.path.join(d, "*.h5"))
            check(len(got) == 1 and os.path.basename(got[0]).startswith(f"burnin-{rk}-"),
                  f"{rk}: one results file: {got}")
            files.append(got[0])
            with h5().File(got[0], "r") as f:
                status = f.attrs["status"]
                status = status.decode() if isinstance(status, bytes) else str(status)
                agent_names = sorted(x.decode() if isinstance(x, bytes) else str(x)
                                     for x in f["agents"]["name"])
            check(status == "complete" and agent_names == names[rk],
                  f"{rk}: run {status}, agents {agent_names}")

        # the summary: each rack's exit and file, one report over them by rack
        r = run([TOOLS["scontrol"], "show", "job", sid], env=env)
        check("JobState=COMPLETED" in r.stdout and "ExitCode=0:0" in r.stdout,
              f"the summary job completed, exit 0:\n{r.stdout}")
        rows = [x.split("\t") for x in
                open(os.path.join(res, "fleet-summary.tsv")).read().splitlines()]
        check(rows[0] == ["rack", "exit", "results"] and
              rows[1:] == [[rk, "0", f] for rk, f in zip(RACKS, files)],
              f"fleet-summary.tsv names each rack, its exit and file: {rows}")
        rep = open(os.path.join(res, "fleet-report.txt")).read()
        check(all(re.search(rf"\b{rk}\b", rep) for rk in RACKS),
              f"the summary's report names every rack:\n{rep}")
        r = run([COORD, "report", "--by", "rack"] + files)
        print(r.stdout[-2500:], r.stderr[-1000:])
        check(r.returncode == 0 and all(re.search(rf"\b{rk}\b", r.stdout) for rk in RACKS),
              f"rackbench report --by rack of the three files: exit {r.returncode}")
        print(f"{stamp()}: done; job start times {seen}")
    finally:
        if env and jobs:
            run([TOOLS["scancel"]] + jobs, env=env, timeout=20)
            try:
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline and any(d.proc.poll() is None
                                                          for d in daemons[1:]):
                    r = run([TOOLS["squeue"], "-h"], env=env, timeout=10)
                    if r.returncode or not r.stdout.strip():
                        break
                    time.sleep(0.2)
            except subprocess.TimeoutExpired:
                pass
        for a in agents:
            a.stop()
        for d in reversed(daemons):
            d.stop()
        for pid in strays(tmp):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
print("ok")
