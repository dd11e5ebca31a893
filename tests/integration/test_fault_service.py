# SPDX-License-Identifier: MIT
"""A1j and X1: the service's folder must be private, and `serve --results DIR` is where
runs submitted without a results folder go.

A1j: `rackbench serve` is refused, naming the folder and why, when its control folder is
open to others (mode 0777), a symbolic link, or (as root) made beforehand by another user;
nothing is created in it.
X1: with `serve --results R`, `rackbench run c.yaml` from another folder, with no
--results and no `results:` in the campaign, writes its file under R; with --results X it
writes under X."""
import glob
import os
import subprocess

from rbtest import COORD, Agent, Tmp, check, free_port, run, wait_for

COORD = os.path.abspath(COORD)

CAMPAIGN = """name: svc
insecure: true
wait: 20s
defaults: {size: 4m, runtime: 300ms, interval: 100ms}
targets:
  - agent: svc-a1
    drives: [a1/d.dat]
phases:
  - workload: {rw: randread}
"""


def refused(ctl, why):
    env = dict(os.environ, RACKBENCH_CONTROL=ctl)
    r = run([COORD, "serve", "--insecure", "--listen", f"tcp://127.0.0.1:{free_port()}"],
            env=env, timeout=20)
    folder = os.path.dirname(ctl)
    check(r.returncode == 1 and f"refusing the service folder '{folder}'" in r.stderr and
          why in r.stderr, f"serve in {folder}: exit {r.returncode} {r.stderr.strip()}")
    check(not os.path.exists(ctl), "nothing created in the refused folder")


with Tmp() as tmp:
    # A1j: folders the service must not use
    open_dir = os.path.join(tmp, "open")
    os.mkdir(open_dir)
    os.chmod(open_dir, 0o777)
    refused(os.path.join(open_dir, "control"), "others may write to it")
    real = os.path.join(tmp, "real")
    os.mkdir(real, 0o700)
    os.symlink(real, os.path.join(tmp, "link"))
    refused(os.path.join(tmp, "link", "control"), "symbolic link")
    if os.geteuid() == 0:
        other = os.path.join(tmp, "other")
        os.mkdir(other, 0o700)
        os.chown(other, 65534, 65534)
        refused(os.path.join(other, "control"), "belongs to uid 65534")
    print("squatted folders refused")

    # X1: serve --results
    ctl = os.path.join(tmp, "ctl", "control")
    env = dict(os.environ, RACKBENCH_CONTROL=ctl)
    port = free_port()
    res = os.path.join(tmp, "served")
    serve = subprocess.Popen([COORD, "serve", "--insecure", "--listen",
                              f"tcp://127.0.0.1:{port}", "--results", res],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    os.makedirs(os.path.join(tmp, "a1"))
    agent = Agent(f"tcp://127.0.0.1:{port}", "svc-a1", ["a1/d.dat"], cwd=tmp,
                  state_dir=os.path.join(tmp, "a1"))
    try:
        wait_for(lambda: os.path.exists(ctl), "the control socket to appear")
        client = os.path.join(tmp, "client")
        os.mkdir(client)
        camp = os.path.join(client, "c.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN)
        r = run([COORD, "run", camp], cwd=client, env=env, timeout=60)
        print(r.stderr[-600:])
        check(r.returncode == 0, f"run through the service: exit {r.returncode}")
        check(glob.glob(os.path.join(res, "svc-*.h5")), f"results under serve --results: "
              f"{os.listdir(tmp)}")
        check(not glob.glob(os.path.join(client, "svc-*.h5")), "not in the client's folder")
        r = run([COORD, "run", camp, "--results", "mine"], cwd=client, env=env, timeout=60)
        check(r.returncode == 0 and glob.glob(os.path.join(client, "mine", "svc-*.h5")),
              f"--results still wins: exit {r.returncode}")
    finally:
        agent.stop()
        serve.terminate()
        serve.wait(20)
    check(serve.returncode is not None, "the service exited")
print("ok")
