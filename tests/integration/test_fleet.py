# SPDX-License-Identifier: MIT
"""`rackbench fleet plan`, `status` and `abort` against rack services on this machine.

Two rack services (keyed, each with an admin endpoint and the fleet client's key on its
admin list), with keyed agents of their own labelled by role, and a third rack in
FLEET.yaml that nothing serves. `fleet plan` asks the racks together: the campaign's group
(`agents: {labels: ...}, count: all` with `select: {count: all}`) and a named agent give
each live rack its shard (agents, drives, points, time), matched also by the rack's own
labels from FLEET.yaml; the dead rack is named within the deadline (exit 1). A shard
submitted with a fleet id is found by `fleet status ID` and stopped by `fleet abort ID`
on its rack; the rack without it is INCOMPLETE (exit 4). FLEET.yaml's mistakes are
FILE:LINE:COLUMN errors (exit 2); a client key not on a rack's admin list is not
answered."""
import os
import re
import signal
import subprocess
import time

from rbtest import AGENT, Agent, COORD, Tmp, check, free_port, pub, rack_service, run, wait_for

ASK = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "control_ask")



CAMPAIGN = """name: fleetplan
destructive: true
wait: 15s
defaults: {size: 8m, interval: 200ms, runtime: 2s}
targets:
  - agents: {labels: {role: disk, row: a}, count: all}
    select: {count: all}
  - agent: r2-x
    drives: [r2-x/d0.dat]
phases:
  - workload: {rw: randread, bs: 4k}
    matrix: {iodepth: [1, 4]}
"""

SHARD = """name: shard
destructive: true
wait: 15s
defaults: {{size: 8m, interval: 200ms, runtime: {runtime}}}
targets:
  - agent: {agent}
    drives: [{agent}/d0.dat]
phases:
  - workload: {{rw: randread, bs: 4k}}
"""

with Tmp() as tmp:
    keys = os.path.join(tmp, "keys")
    racks = {"r1": ["r1-a1", "r1-a2"], "r2": ["r2-a1", "r2-x"]}
    for who, tool in ([("coordinator", COORD), ("ops", COORD), ("stranger", COORD)] +
                      [(a, AGENT) for names in racks.values() for a in names]):
        r = run([tool, "keygen", keys, who])
        check(r.returncode == 0, f"keygen {who}: {r.stderr}")
    with open(os.path.join(keys, "admins"), "w") as f:
        f.write(f"ops {pub(os.path.join(keys, 'ops.pub'))}\n")
    services, agents, aports = {}, [], {}
    logs = {}
    try:
        for rack, names in racks.items():
            services[rack], port, aports[rack], logs[rack] = rack_service(tmp, keys, rack,
                                                                          names)
            for n in names:
                os.makedirs(os.path.join(tmp, n), exist_ok=True)
                t = [f"{n}/d0.dat", f"{n}/d1.dat"]
                role = "spare" if n == "r2-x" else "disk"
                agents.append(Agent(f"tcp://127.0.0.1:{port}", n, t, allow=t, cwd=tmp,
                                    state_dir=os.path.join(tmp, n), insecure=False,
                                    extra=["--key", f"{keys}/{n}.key", "--coordinator-key",
                                           f"{keys}/coordinator.pub", "--label",
                                           f"role={role}"]))
        dead = free_port()
        fleet = os.path.join(tmp, "fleet.yaml")
        with open(fleet, "w") as f:
            f.write(f"""racks:
  - name: r1
    endpoint: tcp://127.0.0.1:{aports['r1']}
    public_key_file: keys/coordinator.pub
    labels: {{row: a, room: dc1}}
  - name: r2
    endpoint: tcp://127.0.0.1:{aports['r2']}
    public_key: "{pub(os.path.join(keys, 'coordinator.pub'))}"
    labels: {{row: a}}
  - name: r3
    endpoint: tcp://127.0.0.1:{dead}
    public_key_file: keys/coordinator.pub
    labels: {{row: b}}
""")
        camp = os.path.join(tmp, "plan.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN)
        base = ["--fleet", fleet, "--key", f"{keys}/ops.key", "--deadline", "2s"]

        def all_registered():
            r = run([COORD, "fleet", "plan", camp] + base, timeout=30)
            return r if r.stdout.count("drive(s)\n") >= 4 else None

        t0 = time.monotonic()
        r = wait_for(all_registered, "every agent on its rack", timeout=60, every=0.5,
                     show=lambda: (lambda r: r.stdout + r.stderr)(
                         run([COORD, "fleet", "plan", camp] + base, timeout=30)))
        print(r.stdout, r.stderr)
        check(r.returncode == 1 and re.search(r"^r3 .*UNREACHABLE: no answer within 2\.0 s",
                                               r.stdout, re.M),
              f"the dead rack named: {r.returncode}\n{r.stdout}{r.stderr}")
        check(re.search(r"^r1 +tcp://\S+ +2 +4 +2  4s", r.stdout, re.M) and
              re.search(r"^r2 +tcp://\S+ +2 +3 +2  4s", r.stdout, re.M),
              f"the shards (r1: two agents of the group, r2: one of it and r2-x's one drive):"
              f"\n{r.stdout}")
        check("fleet: 2 of 3 rack(s) with a shard, 4 agent(s), 7 drive(s)" in r.stdout,
              f"the fleet's line:\n{r.stdout}")
        check(re.search(r"^  r2-x +1 drive\(s\)", r.stdout, re.M), "the named agent's drive")

        # a campaign the fleet cannot meet: the agent is on no rack (exit 2, but the dead
        # rack's 1 comes first)
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(CAMPAIGN.replace("agent: r2-x", "agent: r9-nobody"))
        r = run([COORD, "fleet", "plan", bad] + base, timeout=30)
        check(r.returncode == 1 and "agent 'r9-nobody' is on no rack of the fleet" in r.stderr,
              f"an agent on no rack: {r.returncode} {r.stderr}")

        # a key on no admin list: no rack answers it
        r = run([COORD, "fleet", "plan", camp, "--fleet", fleet, "--key",
                 f"{keys}/stranger.key", "--deadline", "1s"], timeout=30)
        check(r.returncode == 1 and r.stdout.count("UNREACHABLE") == 3,
              f"a stranger's key: {r.returncode}\n{r.stdout}")

        # a shard with a fleet id on r1 only: status finds it, r2 and r3 are INCOMPLETE
        fid = "fleet-20261203-1"
        rep = run([ASK, f"tcp://127.0.0.1:{aports['r1']}",
                   f"run\nfile=shard.yaml\nqueue=1\nfleet={fid}\n\n" +
                   SHARD.format(agent="r1-a1", runtime="30s"),
                   f"{keys}/ops.key", f"{keys}/coordinator.pub"]).stdout
        check(rep.startswith("ok\n"), f"the shard submitted: {rep}")
        rid = re.search(r"^id=(.*)$", rep, re.M).group(1)
        st = wait_for(lambda: (lambda r: r if re.search(r"^r1 +running", r.stdout, re.M) else None)(
            run([COORD, "fleet", "status", fid] + base, timeout=30)), "r1's shard to run",
            every=0.5)
        print(st.stdout, st.stderr)
        check(st.returncode == 4 and re.search(rf"^r1 +running +{rid} ", st.stdout, re.M) and
              re.search(r"^r2 +NONE +no run of fleet 'fleet-20261203-1'", st.stdout, re.M) and
              re.search(r"^r3 +UNREACHABLE", st.stdout, re.M) and "INCOMPLETE" in st.stderr,
              f"fleet status: {st.returncode}\n{st.stdout}{st.stderr}")
        r = run([COORD, "fleet", "abort", fid] + base, timeout=30)
        check(r.returncode == 4 and re.search(rf"^r1 +run {rid} abort requested", r.stdout, re.M)
              and re.search(r"^r3 +UNREACHABLE", r.stdout, re.M),
              f"fleet abort: {r.returncode}\n{r.stdout}{r.stderr}")
        st = wait_for(lambda: (lambda r: r if re.search(r"^r1 +done", r.stdout, re.M) else None)(
            run([COORD, "fleet", "status", fid] + base, timeout=30)), "r1's shard to end",
            every=0.5)
        check(re.search(rf"^r1 +done +{rid} +- +1 ", st.stdout, re.M),
              f"the aborted shard: exit 1\n{st.stdout}")
        logs["r1"].flush()
        text = open(logs["r1"].name).read()
        check(f"admin 'ops': abort" in text and "admin 'ops': agents" in text,
              f"r1's log names the admin:\n{text[-2000:]}")

        # FLEET.yaml's mistakes: FILE:LINE:COLUMN, exit 2
        for body, says in (("racks: []\n", "fleet.yaml:1:8: a fleet has 1 to"),
                           ("racks:\n  - name: a b\n    endpoint: tcp://h:1\n    public_key: x\n",
                            "fleet.yaml:2:11: a rack's name is a word"),
                           ("racks:\n  - name: r\n    endpoint: tcp://h:99999\n"
                            "    public_key_file: keys/coordinator.pub\n",
                            "fleet.yaml:3:15: "),
                           ("racks:\n  - name: r\n    endpoint: tcp://h:1\n    publickey: x\n",
                            "fleet.yaml:4:5: unknown key 'publickey'"),
                           ("racks:\n  - name: r\n    endpoint: tcp://h:1\n"
                            "    public_key: \"abc\"\n",
                            "fleet.yaml:4:17: expected the service's "
                            "public key")):
            with open(os.path.join(tmp, "fleet.yaml"), "w") as f:
                f.write(body)
            r = run([COORD, "fleet", "status", "x"] + base, timeout=30)
            check(r.returncode == 2 and says in r.stderr.replace(tmp + "/", ""),
                  f"{body!r}: {r.returncode} {r.stderr}")
        print(f"done in {time.monotonic() - t0:.1f} s")
    finally:
        for a in agents:
            a.stop()
        for s in services.values():
            s.send_signal(signal.SIGTERM)
        for s in services.values():
            try:
                s.wait(timeout=15)
            except subprocess.TimeoutExpired:
                s.kill()
                s.wait()
    check(all(s.returncode == 0 for s in services.values()), "the services' exits")
print("ok")
