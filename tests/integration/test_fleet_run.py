# SPDX-License-Identifier: MIT
"""`rackbench fleet run`: three racks, one campaign, one start instant.

Three rack services, each in a network namespace of its own, each with two agents in
namespaces of their own (one bridge joins them, and the fleet client in the root
namespace), two loop devices per agent (files when loop devices run short: the test says
which), CURVE everywhere. Each service's wall clock is faked off by a different amount
through the clock seam (RB_TEST_WALL_OFFSET_NS: +2.5 s, -1.7 s, 0), so the racks do not
share a kernel clock's idea of UTC. `fleet plan` prints three shards. `fleet run` of a
write-then-verify-read campaign completes on all three: the table has one row a rack,
each rack's measured offset is the faked one, and the start skew across the racks is
printed and under 10 ms; `rackbench report --by rack` of the three racks' files has the
fleet summary's row a rack, each with its file and four drives. A second run, whose rack r1's service is killed (-9) in its
second point, ends with r1 INCOMPLETE (exit 4, r1 named) while r0 and r2 complete; a new
service on r1 and `rackbench resume` of r1's results file complete r1's run.
An unknown admin key and an agent's key used as an admin key are refused while the
service runs on: tests/integration/test_serve_admin.py shows both."""
import glob
import json
import os
import re
import signal
import subprocess
import threading
import time

from rbtest import AGENT, Agent, COORD, Tmp, check, pub, run, skip, spool_done, wait_for

if os.geteuid() != 0:
    skip("needs root for network namespaces and loop devices")
if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode:
    skip("no 'ip netns' here (iproute2)")

TAG = f"rf{os.getpid() % 10000}"
RACKS = ["r0", "r1", "r2"]
OFFSETS = [2_500_000_000, -1_700_000_000, 0]  # each service's wall clock, off by this
BR = f"{TAG}br"


def sh(*args):
    return subprocess.run(args, capture_output=True, text=True)


def nsname(who):
    return f"{TAG}{who}"


def addr(k):
    return f"10.79.0.{k}"


# namespaces: the services (10..12) and the agents (20..25), on one bridge with the root
NODES = [(r, 10 + i) for i, r in enumerate(RACKS)] + \
    [(f"{r}a{j}", 20 + 2 * i + j) for i, r in enumerate(RACKS) for j in (0, 1)]


def teardown():
    for who, _ in NODES:
        sh("ip", "netns", "del", nsname(who))
    sh("ip", "link", "del", BR)


def setup():
    cmds = [["ip", "link", "add", BR, "type", "bridge"],
            ["ip", "addr", "add", f"{addr(1)}/24", "dev", BR],
            ["ip", "link", "set", BR, "up"]]
    for n, (who, k) in enumerate(NODES):
        ns, host, peer = nsname(who), f"{TAG}h{n}", f"{TAG}p{n}"
        cmds += [["ip", "netns", "add", ns],
                 ["ip", "link", "add", host, "type", "veth", "peer", "name", peer],
                 ["ip", "link", "set", peer, "netns", ns],
                 ["ip", "link", "set", host, "master", BR],
                 ["ip", "link", "set", host, "up"],
                 ["ip", "netns", "exec", ns, "ip", "addr", "add", f"{addr(k)}/24", "dev", peer],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", peer, "up"],
                 ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"]]
    for cmd in cmds:
        r = sh(*cmd)
        if r.returncode:
            teardown()
            skip(f"cannot build the namespaces: {' '.join(cmd)}: {r.stderr.strip()}")



CAMPAIGN = """name: {name}
destructive: true
wait: 20s
defaults: {{size: 16m, interval: 250ms, verify: true}}
targets:
  - agents: {{labels: {{role: disk}}, count: all}}
    select: {{count: all}}
phases:
  - name: write
    workload: {{rw: write, bs: 128k, iodepth: 4, runtime: 1s}}
  - name: read
    workload: {{rw: randread, bs: 4k, iodepth: 8, runtime: {read}}}
"""


class Rack:
    def __init__(self, tmp, i, keys):
        self.i, self.name, self.tmp, self.keys = i, RACKS[i], tmp, keys
        self.ctl = os.path.join(tmp, self.name, "ctl", "control")
        self.results = os.path.join(tmp, self.name, "out")
        self.log = os.path.join(tmp, f"{self.name}.log")
        self.proc = None

    def start(self):
        os.makedirs(os.path.dirname(self.ctl), exist_ok=True)
        env = dict(os.environ, RACKBENCH_CONTROL=self.ctl,
                   RB_TEST_WALL_OFFSET_NS=str(OFFSETS[self.i]))
        k = self.keys
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", nsname(self.name), os.path.abspath(COORD), "serve",
             "--listen", "tcp://0.0.0.0:7470", "--key", f"{k}/coordinator.key",
             "--agent-keys", f"{k}/{self.name}.allow", "--admin-listen", "tcp://0.0.0.0:7471",
             "--admin-keys", f"{k}/admins", "--results", self.results],
            env=env, stdout=open(self.log, "a"), stderr=subprocess.STDOUT)

    def env(self):
        return dict(os.environ, RACKBENCH_CONTROL=self.ctl)


def reader(proc, lines):
    for line in proc.stderr:
        lines.append(line)


with Tmp() as tmp:
    setup()
    keys = os.path.join(tmp, "keys")
    agent_names = {r: [f"{r}a0", f"{r}a1"] for r in RACKS}
    for who, tool in ([("coordinator", COORD), ("ops", COORD)] +
                      [(a, AGENT) for names in agent_names.values() for a in names]):
        r = run([tool, "keygen", keys, who])
        check(r.returncode == 0, f"keygen {who}: {r.stderr}")
    with open(os.path.join(keys, "admins"), "w") as f:
        f.write(f"ops {pub(os.path.join(keys, 'ops.pub'))}\n")
    for rack, names in agent_names.items():
        with open(os.path.join(keys, f"{rack}.allow"), "w") as f:
            for n in names:
                f.write(f"{n} {pub(os.path.join(keys, n + '.pub'))}\n")
    racks = [Rack(tmp, i, keys) for i in range(3)]
    agents, loops = [], []
    try:
        loops = []
        for i in range(12):
            img = os.path.join(tmp, f"loop{i}.img")
            with open(img, "wb") as f:
                f.truncate(32 << 20)
            r = sh("losetup", "--find", "--show", img)
            if r.returncode:
                break
            loops.append(r.stdout.strip())
        if len(loops) == 12:
            devs = loops
            print("drives: 12 loop devices")
        else:
            devs = [os.path.join(tmp, f"d{i}.dat") for i in range(12)]
            print(f"drives: 12 files (loop devices ran short: {len(loops)} made)")
        for rk in racks:
            rk.start()
        for i, rack in enumerate(RACKS):
            for j, n in enumerate(agent_names[rack]):
                d = devs[4 * i + 2 * j: 4 * i + 2 * j + 2]
                agents.append(Agent(f"tcp://{addr(10 + i)}:7470", n, d, allow=d, cwd=tmp,
                                    state_dir=os.path.join(tmp, n), insecure=False,
                                    netns=nsname(n),
                                    extra=["--key", f"{keys}/{n}.key", "--coordinator-key",
                                           f"{keys}/coordinator.pub", "--label", "role=disk",
                                           "--label", f"rack={rack}"]))
        fleet = os.path.join(tmp, "fleet.yaml")
        with open(fleet, "w") as f:
            f.write("racks:\n" + "".join(
                f"  - name: {r}\n    endpoint: tcp://{addr(10 + i)}:7471\n"
                f"    public_key_file: keys/coordinator.pub\n    labels: {{row: a}}\n"
                for i, r in enumerate(RACKS)))
        camp = os.path.join(tmp, "burnin.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(name="burnin", read="1s"))
        base = ["--fleet", fleet, "--key", f"{keys}/ops.key", "--deadline", "2s"]
        t0 = time.monotonic()

        def planned():
            r = run([COORD, "fleet", "plan", camp] + base, timeout=30)
            return r if r.returncode == 0 and len(re.findall(
                r"^r\d +tcp://\S+ +2 +4 +2 ", r.stdout, re.M)) == 3 else None

        r = wait_for(planned, "three racks with two agents each", timeout=60, every=0.3,
                     show=lambda: run([COORD, "fleet", "plan", camp] + base).stdout +
                     "".join(open(rk.log).read()[-1500:] for rk in racks))
        print(r.stdout)
        check("fleet: 3 of 3 rack(s) with a shard, 6 agent(s), 12 drive(s)" in r.stdout,
              f"three shards:\n{r.stdout}")

        # the fleet run: one instant, three racks whose wall clocks disagree
        summary = os.path.join(tmp, "one.json")
        t1 = time.monotonic()
        r = run([COORD, "fleet", "run", camp, "--start-in", "2s", "--summary", summary] + base,
                cwd=tmp, timeout=120)
        print(r.stdout, r.stderr[-3000:])
        check(r.returncode == 0, f"fleet run: exit {r.returncode}")
        check(len(re.findall(r"^r\d +\S+ +COMPLETE +0 ", r.stdout, re.M)) == 3 and
              r.stdout.count("start skew across racks:") == 1, f"one table, three rows")
        doc = json.load(open(summary))
        for x in doc["racks"]:
            i = RACKS.index(x["rack"])
            off = x["clock_offset_ns"]
            print(f"{x['rack']}: faked {OFFSETS[i] / 1e9:+.3f} s, measured {off / 1e9:+.6f} s "
                  f"(round trip {x['clock_delay_ns'] / 1e3:.0f} us), agents' start "
                  f"{x['start_skew_lo_ns'] / 1e3:+.0f} .. {x['start_skew_hi_ns'] / 1e3:+.0f} us")
            check(abs(off - OFFSETS[i]) < max(2e6, x["clock_delay_ns"]),
                  f"{x['rack']}: measured offset {off}, faked {OFFSETS[i]}")
            check(x["start_skew_drives"] == 4 and os.path.exists(x["results"]),
                  f"{x['rack']}: {x}")
        skew = doc["start_skew_across_racks_ns"]
        print(f"start skew across racks: {skew / 1e6:.3f} ms; fleet run took "
              f"{time.monotonic() - t1:.1f} s")
        # the agents report the instant they were given unless late, so the racks' skew alone
        # is 0 when none is late: the alignment's bound is it plus the clocks' uncertainty,
        # half the best round trip of each rack's measured offset
        bound = skew + max(x["clock_delay_ns"] for x in doc["racks"]) / 2
        check(bound < 10e6, f"start skew across racks {skew / 1e6:.3f} ms, "
              f"aligned to within {bound / 1e6:.3f} ms")

        # the fleet report from the racks' files: a row a rack with its file and four drives
        # (unit.report_fleet holds its percentiles to one histogram of every sample)
        files = [x["results"] for x in sorted(doc["racks"], key=lambda x: x["rack"])]
        r = run([COORD, "report", "--by", "rack"] + files, timeout=60)
        sec = r.stdout[r.stdout.find("fleet: 3 rack(s)"):]
        print(sec[:sec.find("racks per point")])
        check(r.returncode == 0 and "fleet: 3 rack(s) by the agents' label rack, 3 file(s), "
              "12 drive(s)" in r.stdout, f"report --by rack: {r.returncode} {r.stderr[-800:]}")
        for rk in RACKS:
            check(re.search(rf"^rack={rk} +1 +4  no verdicts$", r.stdout, re.M),
                  f"rack {rk}: 1 file, 4 drives, no verdict asked")
        check("slowest racks" in r.stdout, "the racks ranked")

        # r1's service killed in the second point: r1 INCOMPLETE, r0 and r2 complete
        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(name="burnin2", read="3s"))
        summary = os.path.join(tmp, "two.json")
        p = subprocess.Popen([COORD, "fleet", "run", camp, "--start-in", "1s", "--summary",
                              summary] + base, cwd=tmp, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        lines = []
        th = threading.Thread(target=reader, args=(p, lines), daemon=True)
        th.start()
        # measuring its second point: samples of it have come (IOPS above 0)
        wait_for(lambda: any(re.search(r"fleet: r1 +running +point 2/2 +point +[1-9]", l)
                             for l in lines) or
                 p.poll() is not None, "r1 in its second point", timeout=60,
                 show=lambda: "".join(lines))
        racks[1].proc.send_signal(signal.SIGKILL)
        racks[1].proc.wait()
        out = p.stdout.read()
        p.wait(timeout=60)
        th.join(5)
        err = "".join(lines)
        print(out, err[-3000:])
        check(p.returncode == 4 and re.search(r"INCOMPLETE on 1 rack\(s\): r1 ", err),
              f"r1 lost: exit {p.returncode}")
        check(re.search(r"^r1 +\S+ +INCOMPLETE", out, re.M) and
              len(re.findall(r"^r[02] +\S+ +COMPLETE +0 ", out, re.M)) == 2,
              f"r0 and r2 complete, r1 INCOMPLETE:\n{out}")
        doc = json.load(open(summary))
        path = [x for x in doc["racks"] if x["rack"] == "r1"][0]["results"]
        if not path:
            path = sorted(glob.glob(os.path.join(racks[1].results, "burnin2-*.h5")))[-1]

        # r1 alone: its agents end the point unheard, a new service, resume completes it
        wait_for(lambda: all(spool_done(os.path.join(tmp, n), 1) for n in agent_names["r1"]),
                 "r1's agents to end the read point alone", timeout=60)
        racks[1].start()
        wait_for(lambda: run([COORD, "status"], env=racks[1].env()).returncode == 0,
                 "r1's new service to answer")
        r = run([COORD, "resume", path], env=racks[1].env(), timeout=120)
        print(r.stderr[-2000:])
        if r.returncode:
            for a in agents[2:4]:
                print(a.output()[-2500:])
            print(open(racks[1].log).read()[-2500:])
        check(r.returncode == 0, f"resume of r1's run: exit {r.returncode}")
        print(f"done in {time.monotonic() - t0:.1f} s")
    finally:
        for a in agents:
            a.stop()
        for rk in racks:
            if rk.proc and rk.proc.poll() is None:
                rk.proc.send_signal(signal.SIGTERM)
                try:
                    rk.proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    rk.proc.kill()
                    rk.proc.wait()
        for d in loops:
            sh("losetup", "-d", d)
        teardown()
print("ok")
