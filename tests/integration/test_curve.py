# SPDX-License-Identifier: MIT
"""CURVE on every connection, with real processes over loopback:
(a) agents whose keys are on the allow-list run a keyed campaign (results: insecure=false);
(d) an agent whose key is not on the list is refused, logged with its key, and nothing of
    it is stored (the campaign fails naming it);
(g) agent A's valid key claiming agent B's name is refused and logged;
(h) the list is reread on SIGHUP: a key added while the coordinator waits gets in;
(f) the ZAP handler killed through a test hook: the coordinator stops, non-zero, before
    taking the next connection."""
import glob
import os
import signal
import subprocess

from rbtest import AGENT, Agent, COORD, Tmp, check, free_port, h5, pub, run, wait_for

h5py = h5()

CAMPAIGN = """name: keyed
key: {keys}/coordinator.key
agent_keys: {keys}/allowed
wait: {wait}
defaults: {{size: 4m, runtime: 300ms, interval: 100ms}}
targets:
{targets}
phases:
  - workload: {{rw: randread}}
"""



def keyed_agent(ep, tmp, name, keyname=None):
    d = os.path.join(tmp, "st-" + name)
    os.makedirs(d, exist_ok=True)
    keyname = keyname or name
    return Agent(ep, name, [f"st-{name}/d.dat"], cwd=tmp, state_dir=d,
                 extra=["--key", f"{tmp}/keys/{keyname}.key",
                        "--coordinator-key", f"{tmp}/keys/coordinator.pub"],
                 insecure=False)


def campaign(tmp, names, wait="15s", allowed=("a1", "a2")):
    keys = os.path.join(tmp, "keys")
    with open(os.path.join(keys, "allowed"), "w") as f:
        for n in allowed:
            f.write(f"{n} {pub(os.path.join(keys, n + '.pub'))}\n")
    t = "".join(f"  - agent: {n}\n    drives: [st-{n}/d.dat]\n" for n in names)
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(keys=keys, wait=wait, targets=t))
    return path


with Tmp() as tmp:
    keys = os.path.join(tmp, "keys")
    r = run([COORD, "keygen", keys])
    check(r.returncode == 0 and os.stat(f"{keys}/coordinator.key").st_mode & 0o077 == 0,
          "coordinator keygen, secret mode 0600")
    for n in ("a1", "a2", "rogue"):
        check(run([AGENT, "keygen", keys, n]).returncode == 0, f"keygen {n}")
    check(run([AGENT, "keygen", keys, "a1"]).returncode == 1, "keygen never overwrites")
    r = run([AGENT, "--coordinator", "tcp://127.0.0.1:1", "--name", "x"])
    check(r.returncode == 2 and "--key FILE" in r.stderr, "keys or --insecure are required")

    # (a) keyed campaign
    ep = f"tcp://127.0.0.1:{free_port()}"
    path = campaign(tmp, ["a1", "a2"])
    agents = [keyed_agent(ep, tmp, "a1"), keyed_agent(ep, tmp, "a2")]
    try:
        r = run([COORD, "run", path, "--listen", ep, "--results", f"{tmp}/out"])
    finally:
        for a in agents:
            a.stop()
    print(r.stderr)
    check(r.returncode == 0, f"keyed run: {r.returncode}")
    check("insecure" not in r.stderr.split("listening")[0], "no insecure warning")
    with h5py.File(glob.glob(f"{tmp}/out/*.h5")[0], "r") as f:
        check(f.attrs["insecure"] == "false", "results say the run was keyed")

    # (d) a key not on the list, and (g) a1's key claiming a2's name
    ep = f"tcp://127.0.0.1:{free_port()}"
    path = campaign(tmp, ["a1", "a2"], wait="6s", allowed=("a1", "a2"))
    agents = [keyed_agent(ep, tmp, "a2", keyname="rogue"), keyed_agent(ep, tmp, "a1")]
    impostor = Agent(ep, "a2", ["st-a2/d.dat"], cwd=tmp, insecure=False,
                     extra=["--key", f"{keys}/a1.key", "--coordinator-key", f"{keys}/coordinator.pub"])
    try:
        r = run([COORD, "run", path, "--listen", ep, "--results", f"{tmp}/out2"])
    finally:
        for a in agents + [impostor]:
            a.stop()
    print(r.stderr)
    check(r.returncode == 1 and "agent 'a2' did not connect" in r.stderr, "a2 never got in")
    check(f"key {pub(keys + '/rogue.pub')} is not on the agent allow-list" in r.stderr,
          "the refused key is logged")
    check("the key of agent 'a1' claims to be agent 'a2'" in r.stderr, "the impostor is logged")
    check(not os.path.exists(f"{tmp}/out2"), "nothing stored")

    # (h) SIGHUP rereads the list: a2 added while the coordinator waits
    ep = f"tcp://127.0.0.1:{free_port()}"
    path = campaign(tmp, ["a1", "a2"], wait="20s", allowed=("a1",))
    agents = [keyed_agent(ep, tmp, "a1"), keyed_agent(ep, tmp, "a2")]
    errf = open(os.path.join(tmp, "hup.err"), "w+")
    try:
        c = subprocess.Popen([COORD, "run", path, "--listen", ep, "--results", f"{tmp}/out3"],
                             stdout=subprocess.PIPE, stderr=errf, text=True)
        # while it waits: a2 tried, and its key was refused
        wait_for(lambda: f"key {pub(keys + '/a2.pub')} is not on the agent allow-list"
                 in open(errf.name).read(), "a2's key to be refused")
        with open(f"{keys}/allowed", "a") as f:
            f.write(f"a2 {pub(keys + '/a2.pub')}\n")
        c.send_signal(signal.SIGHUP)
        c.communicate(timeout=60)
    finally:
        for a in agents:
            a.stop()
    err = open(errf.name).read()
    print(err)
    check(c.returncode == 0 and "allow-list reloaded: 2 key(s)" in err, f"SIGHUP: {c.returncode}")

    # (f) the ZAP handler dies: the coordinator stops before taking the next connection
    ep = f"tcp://127.0.0.1:{free_port()}"
    path = campaign(tmp, ["a1", "a2"], wait="20s")
    a1 = keyed_agent(ep, tmp, "a1")
    errf = open(os.path.join(tmp, "zap.err"), "w+")
    try:
        c = subprocess.Popen([COORD, "run", path, "--listen", ep, "--results", f"{tmp}/out4"],
                             stdout=subprocess.DEVNULL, stderr=errf, text=True,
                             env=dict(os.environ, RB_TEST_ZAP_DIE_AFTER="1"))
        # a1 is the handler's one request; only then comes a2
        wait_for(lambda: "agent 'a1' connected" in open(errf.name).read(), "a1 to connect")
        a2 = keyed_agent(ep, tmp, "a2")
        c.wait(timeout=30)
        a2.stop()
    finally:
        a1.stop()
    err = open(errf.name).read()
    print(err)
    check("agent 'a1' connected" in err, "a1 got in first")
    check(c.returncode != 0 and "ZAP authentication handler died" in err, f"ZAP death: {c.returncode}")
    check("agent 'a2' connected" not in err, "no connection taken after the handler died")
print("ok")
