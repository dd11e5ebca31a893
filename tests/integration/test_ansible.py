# SPDX-License-Identifier: MIT
"""deploy/ansible, run for real with ansible-playbook against this machine (connection:
local; one coordinator host and one agent host, both here): the playbook installs the
built packages, the agent's key goes into the coordinator's allow-list, its agent.yaml
carries the inventory's rack and slot labels and drives; a second run changes nothing;
ansible-lint and yamllint pass. The service and the agent then run as their installed
units say (ExecStart, since this machine has no systemd to start them), the agent
connects with its key and `rackbench agents` lists it with its labels. remove-agent.yml
refuses to run without --limit, takes the agent's key out of the allow-list and purges
its package, and a second removal changes nothing.

It installs and purges the packages on this machine: it skips where they are installed
already."""
import glob
import json
import os
import re
import shlex
import shutil
import subprocess

import yaml

from rbtest import PKG_DIR, SRC, Tmp, check, fail, free_port, need, skip, wait_for

need("installing the packages on this machine",
     ("ansible-playbook", "ansible-lint", "yamllint", "dpkg"))
PKGS = ("rackbench", "rackbench-agent", "python3-rackbench")


def installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
    return "install ok installed" in r.stdout


if any(installed(p) for p in PKGS):
    skip("rackbench packages are installed on this machine: this test installs and purges them")

ANSIBLE = os.path.join(SRC, "deploy", "ansible")
DEBS = PKG_DIR
ENV = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
           ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_RETRY_FILES_ENABLED="False")


def sh(*args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, **kw)
    if r.returncode:
        print(r.stdout[-4000:], r.stderr[-3000:])
    return r


def recap(out):
    """PLAY RECAP: {host: {ok: N, changed: N, failed: N, ...}}."""
    hosts = {}
    for m in re.finditer(r"^(\S+)\s+:\s+((?:\w+=\d+\s*)+)$", out, re.M):
        hosts[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
    return hosts


def exec_start(unit):
    """The installed unit's command line."""
    files = [f for f in (f"/usr/lib/systemd/system/{unit}", f"/lib/systemd/system/{unit}")
             if os.path.exists(f)]
    check(files, f"{unit} is installed")
    for line in open(files[0]):
        if line.startswith("ExecStart="):
            return shlex.split(line[len("ExecStart="):])
    fail(f"{unit} has no ExecStart")


if not glob.glob(os.path.join(DEBS, "rackbench-agent_*.deb")):
    r = sh(os.path.join(SRC, "scripts", "package.sh"), DEBS)
    check(r.returncode == 0, "package.sh")

procs = []
with Tmp() as tmp:
    try:
        port = free_port()
        disk = os.path.join(tmp, "disk0.dat")
        with open(disk, "wb") as f:
            f.truncate(64 << 20)
        inv = os.path.join(tmp, "inventory.yml")
        with open(inv, "w") as f:
            yaml.safe_dump({"all": {
                "vars": {"ansible_connection": "local",
                         "ansible_python_interpreter": "/usr/bin/python3"},
                "children": {
                    "rackbench_coordinator": {"hosts": {"coord": None}},
                    "rackbench_agents": {"children": {"rack_r12": {
                        "vars": {"rackbench_rack": "r12", "rackbench_targets": [disk],
                                 "rackbench_coordinator_endpoint": f"tcp://127.0.0.1:{port}"},
                        "hosts": {"node1": {"rackbench_slot": 7,
                                            "rackbench_labels": {"row": "b"}}}}}}}}}, f)
        play = ["ansible-playbook", "-i", inv, "-e", f"rackbench_deb_dir={DEBS}"]
        r = sh(*play, os.path.join(ANSIBLE, "site.yml"))
        print(r.stdout[-3000:])
        check(r.returncode == 0, f"site.yml: exit {r.returncode}")
        first = recap(r.stdout)
        check(set(first) == {"coord", "node1"} and all(h["failed"] == 0 for h in first.values())
              and first["node1"]["changed"] > 0, f"first run's recap: {first}")
        for p in PKGS[:2]:
            check(installed(p), f"{p} installed")
        # the agent's key in the allow-list, under its name
        pub = re.search(r"public-key = (\S+)", open("/etc/rackbench/agent.pub").read()).group(1)
        allow = open("/etc/rackbench/agents.allow").read().splitlines()
        check(allow == [f"node1 {pub}"], f"the allow-list: {allow}")
        conf = yaml.safe_load(open("/etc/rackbench/agent.yaml"))
        check(conf["name"] == "node1" and conf["labels"] == {"rack": "r12", "slot": "7", "row": "b"} and
              conf["targets"] == [disk] and conf["allow"] == [] and
              conf["coordinator"] == f"tcp://127.0.0.1:{port}", f"agent.yaml: {conf}")
        check(conf["coordinator_key"] == "/etc/rackbench/coordinator.pub" and
              "public-key = " in open(conf["coordinator_key"]).read(),
              "the coordinator's public key pinned")

        # the same playbook again: nothing to change
        r = sh(*play, os.path.join(ANSIBLE, "site.yml"))
        again = recap(r.stdout)
        print(r.stdout[-1500:])
        check(r.returncode == 0 and again and all(h["changed"] == 0 for h in again.values()),
              f"a second run changed something: {again}")

        r = sh("ansible-lint", cwd=ANSIBLE)
        print(r.stdout[-1500:], r.stderr[-800:])
        check(r.returncode == 0, "ansible-lint")
        r = sh("yamllint", ".", cwd=ANSIBLE)
        check(r.returncode == 0, "yamllint")

        # the service and the agent as their units run them
        ctl = os.path.join(tmp, "ctl")
        os.mkdir(ctl, 0o700)
        serve = exec_start("rackbench.service")
        for flag, value in (("--listen", f"tcp://127.0.0.1:{port}"),
                            ("--control", os.path.join(ctl, "control")),
                            ("--results", os.path.join(tmp, "results"))):
            serve[serve.index(flag) + 1] = value
        procs.append(subprocess.Popen(serve, stdout=subprocess.DEVNULL,
                                      stderr=open(os.path.join(tmp, "serve.log"), "w")))
        agent = exec_start("rackbench-agent.service")
        procs.append(subprocess.Popen(agent, stdout=subprocess.DEVNULL,
                                      stderr=open(os.path.join(tmp, "agent.log"), "w")))
        listed = {}

        def listed_node1():
            r = sh("/usr/bin/rackbench", "agents", "--control", os.path.join(ctl, "control"),
                   "--json")
            rows = json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else []
            listed.update({a["name"]: a for a in rows})
            return "node1" in listed

        wait_for(listed_node1, "the agent listed by the service", timeout=30,
                 show=lambda: open(os.path.join(tmp, "agent.log")).read()[-1500:] +
                 open(os.path.join(tmp, "serve.log")).read()[-1500:])
        check(listed["node1"]["labels"] == {"rack": "r12", "slot": "7", "row": "b"} and
              listed["node1"]["targets"] == 1, f"rackbench agents: {listed['node1']}")
        for p in procs:
            p.terminate()
            p.wait(timeout=30)

        # without --limit the removal would take every agent: it refuses, nothing changed
        r = sh(*play, os.path.join(ANSIBLE, "remove-agent.yml"))
        check(r.returncode != 0 and "--limit" in r.stdout and installed("rackbench-agent") and
              open("/etc/rackbench/agents.allow").read().strip(),
              f"remove-agent.yml without --limit: exit {r.returncode}")
        # taken out: its key gone from the allow-list, its package purged
        r = sh(*play, os.path.join(ANSIBLE, "remove-agent.yml"), "--limit", "node1")
        print(r.stdout[-1500:])
        check(r.returncode == 0, "remove-agent.yml")
        check(open("/etc/rackbench/agents.allow").read().strip() == "",
              "the agent's key is still in the allow-list")
        check(not installed("rackbench-agent"), "rackbench-agent still installed")
        for gone in ("/etc/rackbench/agent.key", "/etc/rackbench/agent.pub",
                     "/etc/rackbench/agent.yaml", "/usr/bin/rackbench-agent"):
            check(not os.path.exists(gone), f"{gone} left behind")
        # again: nothing left to do, and no error
        r = sh(*play, os.path.join(ANSIBLE, "remove-agent.yml"), "--limit", "node1")
        again = recap(r.stdout)
        check(r.returncode == 0 and again.get("node1", {}).get("changed") == 0,
              f"a second removal: exit {r.returncode}, {again}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.run(["apt-get", "purge", "-y", "-q"] + [p for p in PKGS if installed(p)],
                       capture_output=True)
        shutil.rmtree("/var/cache/rackbench", ignore_errors=True)
print("ok")
