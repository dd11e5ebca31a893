# SPDX-License-Identifier: MIT
"""`rackbench serve --admin-listen`: the control socket's requests over TCP with CURVE.

A keyed service with an admin endpoint and its own allow-list of admin keys, one keyed
agent. A client holding an admin key asks `status` and `agents`, submits a run and queues
a second behind it (both complete, in the service's results folder), and is refused a
field naming a file on the service's host. A key on no list and the agent's own key are
refused (no reply; the service logs the refusal as the admin list's) and the service runs
on and answers the admin again. Every admin request is in the service's log with the
key's name. The flags that must go together are refused apart (exit 2)."""
import os
import re
import signal
import subprocess
import time

from rbtest import AGENT, Agent, COORD, Tmp, check, free_port, pub, run, wait_for

ASK = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "control_ask")



CAMPAIGN = """name: {name}
destructive: true
wait: 15s
defaults: {{size: 8m, interval: 200ms, runtime: {runtime}}}
targets:
  - agent: ad-a1
    drives: [a1/d.dat]
phases:
  - workload: {{rw: randwrite, bs: 4k}}
"""


def field(rep, key):
    m = re.search(rf"^{key}=(.*)$", rep, re.M)
    return m.group(1) if m else None


with Tmp() as tmp:
    keys = os.path.join(tmp, "keys")
    for who, tool in (("coordinator", COORD), ("ad-a1", AGENT), ("ops", COORD),
                      ("intruder", COORD)):
        r = run([tool, "keygen", keys, who])
        check(r.returncode == 0, f"keygen {who}: {r.stderr}")
    with open(os.path.join(keys, "allowed"), "w") as f:
        f.write(f"ad-a1 {pub(os.path.join(keys, 'ad-a1.pub'))}\n")
    with open(os.path.join(keys, "admins"), "w") as f:
        f.write(f"# the people who may drive this rack from elsewhere\n"
                f"ops {pub(os.path.join(keys, 'ops.pub'))}\n")
    ctl = os.path.join(tmp, "ctl", "control")
    env = dict(os.environ, RACKBENCH_CONTROL=ctl)
    port, aport = free_port(), free_port()
    admin_ep = f"tcp://127.0.0.1:{aport}"
    base = [COORD, "serve", "--listen", f"tcp://127.0.0.1:{port}",
            "--key", f"{keys}/coordinator.key", "--agent-keys", f"{keys}/allowed"]

    # the flags that go together, apart: bad input, no service
    for extra, says in ((["--admin-listen", admin_ep], "go together"),
                        (["--admin-listen", admin_ep, "--admin-keys", f"{keys}/admins"],
                         "needs --results"),
                        (["--admin-listen", "tcp://127.0.0.1:99999", "--admin-keys",
                          f"{keys}/admins", "--results", "out"], "bad --admin-listen")):
        r = run(base + extra, cwd=tmp, env=env, timeout=20)
        check(r.returncode == 2 and says in r.stderr, f"serve {extra}: {r.returncode} {r.stderr}")
    r = run([COORD, "serve", "--insecure", "--admin-listen", admin_ep, "--admin-keys",
             f"{keys}/admins", "--results", "out"], cwd=tmp, env=env, timeout=20)
    check(r.returncode == 2 and "not --insecure" in r.stderr, f"insecure admin: {r.stderr}")
    with open(os.path.join(keys, "bad-admins"), "w") as f:
        f.write("ops not-a-key\n")
    r = run(base + ["--admin-listen", admin_ep, "--admin-keys", f"{keys}/bad-admins",
                    "--results", "out"], cwd=tmp, env=env, timeout=20)
    check(r.returncode == 2 and "bad-admins:1: expected 'ADMIN-NAME PUBLIC-KEY'" in r.stderr,
          f"a bad admin list: {r.returncode} {r.stderr}")

    log = open(os.path.join(tmp, "serve.log"), "w+")
    serve = subprocess.Popen(base + ["--admin-listen", admin_ep, "--admin-keys",
                                     f"{keys}/admins", "--results", os.path.join(tmp, "out")],
                             cwd=tmp, stdout=log, stderr=subprocess.STDOUT, env=env)
    agent = None

    def service_log():
        log.flush()
        with open(log.name) as f:
            return f.read()

    def ask(req, key="ops"):
        return run([ASK, admin_ep, req, f"{keys}/{key}.key", f"{keys}/coordinator.pub"],
                   timeout=30)

    try:
        wait_for(lambda: "admin endpoint on tcp://127.0.0.1:" in service_log(),
                 "the admin endpoint", show=service_log)
        os.makedirs(os.path.join(tmp, "a1"))
        agent = Agent(f"tcp://127.0.0.1:{port}", "ad-a1", ["a1/d.dat"], allow=["a1/d.dat"],
                      cwd=tmp, state_dir=os.path.join(tmp, "a1"), insecure=False,
                      extra=["--key", f"{keys}/ad-a1.key",
                             "--coordinator-key", f"{keys}/coordinator.pub"])

        # an admin key: status and agents, as the control socket answers them
        r = ask("status\\n")
        check(r.returncode == 0 and r.stdout.startswith("ok\n") and
              field(r.stdout, "state") == "idle", f"status over admin: {r.returncode} {r.stdout}"
              f"{r.stderr}")
        wait_for(lambda: "\nad-a1\t" in "\n" + ask("agents\\ndrives=1\\n").stdout,
                 "the agent listed over the admin endpoint")
        listing = ask("agents\\ndrives=1\\n").stdout
        check("+\ta1/d.dat\t" in listing, f"its drive listed: {listing!r}")

        # a run submitted, a second queued behind it
        first = ask("run\nfile=first.yaml\n\n" + CAMPAIGN.format(name="first", runtime="3s"))
        check(first.returncode == 0 and first.stdout.startswith("ok\n"), f"run: {first.stdout}"
              f"{first.stderr}")
        a = field(first.stdout, "id")
        second = ask("run\nfile=second.yaml\nqueue=1\n\n" +
                     CAMPAIGN.format(name="second", runtime="1s"))
        check(second.returncode == 0 and field(second.stdout, "queued") == "1",
              f"queued run: {second.stdout}{second.stderr}")
        b = field(second.stdout, "id")
        st = ask(f"status\\nid={b}\\n").stdout
        check(field(st, "state") == "queued" and field(st, "position") == "1",
              f"the queued run's status: {st}")
        # a field naming a file on the service's host: refused, the service goes on
        r = ask(f"run\nfile=x.yaml\nqueue=1\nevents={tmp}/ev.json\n\n" +
                CAMPAIGN.format(name="x", runtime="1s"))
        check(r.returncode == 0 and r.stdout.startswith("error\n") and
              "'events' names a file on the service's host" in r.stdout, f"events: {r.stdout}")
        r = ask("resume\npath=/etc/passwd\n")
        check(r.stdout.startswith("error\n") and "not a file in the service's results folder"
              in r.stdout, f"resume elsewhere: {r.stdout}")

        # a key on no list, and the agent's own key: no answer, a line in the log each
        t0 = time.monotonic()
        r = ask("status\\n", key="intruder")
        check(r.returncode == 3 and "timed out" in r.stderr, f"unknown key: {r.returncode} "
              f"{r.stdout}{r.stderr}")
        check(time.monotonic() - t0 < 10, "the refused client waited past its deadline")
        r = ask("status\\n", key="ad-a1")
        check(r.returncode == 3, f"the agent's key as an admin's: {r.returncode} {r.stdout}")
        agent_pub = pub(os.path.join(keys, "ad-a1.pub"))
        intruder_pub = pub(os.path.join(keys, "intruder.pub"))
        text = service_log()
        check(f"key {intruder_pub} is not on the admin allow-list" in text and
              f"key {agent_pub} is not on the admin allow-list" in text,
              f"the refusals in the service's log:\n{text[-2000:]}")
        check(serve.poll() is None, "the service ended after refusing a key")

        # both runs complete, in the service's results folder; the service answered on
        for rid in (a, b):
            done = wait_for(lambda: (lambda s: s if field(s, "state") == "done" else None)(
                ask(f"status\\nid={rid}\\n").stdout), f"run {rid} to end", timeout=120,
                every=0.5, show=service_log)
            check(field(done, "exit") == "0" and
                  field(done, "results").startswith(os.path.join(tmp, "out") + "/"),
                  f"run {rid}: {done}")
        check(agent.proc.poll() is None and serve.poll() is None, "agent and service run on")
        text = service_log()
        check("admin 'ops': status" in text and "admin 'ops': run" in text and
              f"admin 'ops': status {b}" in text and "admin 'ops': refused: 'events'" in text,
              f"the admin's requests in the log:\n{text[-3000:]}")
        check("admin 'intruder'" not in text and "admin 'ad-a1'" not in text,
              "a refused key's request was served")
    finally:
        if agent:
            agent.stop()
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
    print(service_log()[-1500:])
    check(serve.returncode == 0, f"service exit {serve.returncode}")
print("ok")
