# SPDX-License-Identifier: MIT
"""deploy/: systemd-analyze verify accepts the agent's and the coordinator service's units
and the burn-in timer with its service, and the fleet burn-in's timer and service (their
ExecStart pointed at the built programs, since nothing is installed here), their exposure
scores stay where docs/deploy.md says, and the flags they pass exist. The fleet burn-in's
command, its files pointed here, reads its campaign, its FLEET.yaml and its admin key and
names the one rack that does not answer: exit 4."""
import os
import re
import shlex
import shutil

from rbtest import AGENT, COORD, SRC, Tmp, check, run, skip

if not shutil.which("systemd-analyze"):
    skip("needs systemd-analyze (package systemd)")

with Tmp() as tmp:
    for name, prog in (("rackbench-agent", AGENT), ("rackbench", COORD)):
        unit = open(os.path.join(SRC, "deploy", name + ".service")).read()
        check(f"ExecStart=/usr/bin/{name} " in unit, f"{name}.service starts the installed program")
        path = os.path.join(tmp, name + ".service")
        with open(path, "w") as f:
            f.write(unit.replace(f"/usr/bin/{name} ", os.path.abspath(prog) + " "))
        r = run(["systemd-analyze", "verify", path])
        print(r.stdout, r.stderr)
        # lines about other units on this machine are not ours
        ours = [l for l in r.stderr.splitlines() if f"{name}.service" in l]
        check(r.returncode == 0 and not ours, f"systemd-analyze verify {name}: {r.returncode} {ours}")
    # the burn-in timer and its service, which hands a campaign to rackbench.service
    for name in ("rackbench.service", "rackbench-burnin@.service", "rackbench-burnin@.timer"):
        unit = open(os.path.join(SRC, "deploy", name)).read()
        with open(os.path.join(tmp, name), "w") as f:
            f.write(unit.replace("/usr/bin/rackbench ", os.path.abspath(COORD) + " "))
    r = run(["systemd-analyze", "verify", os.path.join(tmp, "rackbench-burnin@nightly.service"),
             os.path.join(tmp, "rackbench-burnin@nightly.timer")], cwd=tmp)
    print(r.stdout, r.stderr)
    ours = [l for l in r.stderr.splitlines() if "rackbench" in l]
    check(r.returncode == 0 and not ours, f"systemd-analyze verify burn-in units: {ours}")
    timer = open(os.path.join(SRC, "deploy", "rackbench-burnin@.timer")).read()
    check("Persistent=true" in timer and "RandomizedDelaySec=" in timer,
          "the timer catches up a missed start and spreads a fleet's")
    # the fleet burn-in: one host runs `rackbench fleet run` on schedule, to the run's end
    for name in ("rackbench-fleet-burnin@.service", "rackbench-fleet-burnin@.timer"):
        unit = open(os.path.join(SRC, "deploy", name)).read()
        with open(os.path.join(tmp, name), "w") as f:
            f.write(unit.replace("/usr/bin/rackbench ", os.path.abspath(COORD) + " "))
    r = run(["systemd-analyze", "verify", os.path.join(tmp, "rackbench-fleet-burnin@nightly.service"),
             os.path.join(tmp, "rackbench-fleet-burnin@nightly.timer")], cwd=tmp)
    print(r.stdout, r.stderr)
    ours = [l for l in r.stderr.splitlines() if "rackbench" in l]
    check(r.returncode == 0 and not ours, f"systemd-analyze verify fleet burn-in units: {ours}")
    unit = open(os.path.join(SRC, "deploy", "rackbench-fleet-burnin@.service")).read()
    timer = open(os.path.join(SRC, "deploy", "rackbench-fleet-burnin@.timer")).read()
    check("Persistent=true" in timer.splitlines() and
          not any(l.startswith("RandomizedDelaySec=") for l in timer.splitlines()),
          "the fleet timer catches up a missed start; the racks start at one instant anyway")
    for line in ("Type=exec", "TimeoutStartSec=infinity", "WorkingDirectory=/var/lib/rackbench-fleet",
                 "StateDirectory=rackbench-fleet",
                 "LoadCredential=admin.key:/etc/rackbench/fleet/admin.key"):
        check(line in unit.splitlines(), f"the fleet burn-in's service has {line}")
    cmd = shlex.split(re.search(r"^ExecStart=(.+)$", unit, re.M).group(1))
    check(cmd[:3] == ["/usr/bin/rackbench", "fleet", "run"] and "--summary" not in cmd,
          f"it runs fleet run, its summary into its working folder: {cmd}")
    fhelp = run([COORD, "fleet", "run", "--help"]).stdout
    for flag in (a for a in cmd if a.startswith("--")):
        check(f"{flag} " in fhelp, f"fleet run --help names {flag}")
    # run it as systemd would (%i nightly, %d the credentials folder) against a fleet of
    # one rack nobody serves: it reads every file it is given and names that rack
    cred = os.path.join(tmp, "cred")
    os.makedirs(os.path.join(tmp, "etc", "fleet"))
    r = run([COORD, "keygen", cred, "admin"])
    check(r.returncode == 0, f"keygen: {r.stderr}")
    os.rename(os.path.join(cred, "admin.pub"), os.path.join(tmp, "etc", "fleet", "r01.pub"))
    etc = os.path.join(tmp, "etc", "fleet")
    with open(os.path.join(etc, "fleet.yaml"), "w") as f:
        f.write("racks:\n  - name: r01\n    endpoint: tcp://127.0.0.1:9\n"
                "    public_key_file: r01.pub\n")
    with open(os.path.join(etc, "nightly.yaml"), "w") as f:
        f.write("name: nightly\ninsecure: true\ntargets:\n"
                "  - agents: {labels: {rack: r01}, count: all}\n    drives: [/dev/nvme0n1]\n"
                "phases:\n  - workload: {rw: randread, bs: 4k}\n")
    cmd = [a.replace("%i", "nightly").replace("%d", cred).replace("/etc/rackbench/fleet", etc)
           for a in cmd]
    cmd[0] = COORD
    r = run(cmd + ["--deadline", "1s"], cwd=tmp)
    print(r.stdout, r.stderr)
    check(r.returncode == 4, f"the fleet burn-in's command, no rack answering: exit {r.returncode}")
    # the Kubernetes CronJob runs the timer's command, and its campaign loads
    import yaml
    docs = list(yaml.safe_load_all(open(os.path.join(SRC, "deploy", "k8s", "coordinator",
                                                     "burnin-cronjob.yaml"))))
    kinds = {d["kind"]: d for d in docs}
    check(set(kinds) == {"ConfigMap", "CronJob"}, f"the manifest holds {sorted(kinds)}")
    job = kinds["CronJob"]["spec"]
    cmd = job["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["command"]
    unit = open(os.path.join(SRC, "deploy", "rackbench-burnin@.service")).read()
    execstart = [l for l in unit.splitlines() if l.startswith("ExecStart=")][0]
    check(" ".join(cmd) == execstart[len("ExecStart="):].replace("%i", "nightly"),
          f"the CronJob runs the timer's command: {cmd}")
    check(job["concurrencyPolicy"] == "Forbid" and job["startingDeadlineSeconds"] > 0,
          "one at a time, and a missed start still runs")
    camp = os.path.join(tmp, "nightly.yaml")
    with open(camp, "w") as f:
        f.write(kinds["ConfigMap"]["data"]["nightly.yaml"])
    r = run([COORD, "plan", camp])
    check(r.returncode == 0, f"the CronJob's campaign plans: {r.stderr}")
    # systemd's exposure score of each unit: no worse than docs/deploy.md says
    for name, most in (("rackbench-agent", 3.1), ("rackbench", 4.1), ("rackbench-burnin@", 3.3),
                       ("rackbench-fleet-burnin@", 1.2)):
        r = run(["systemd-analyze", "security", "--offline=true",
                 os.path.join(SRC, "deploy", name + ".service")])
        m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout + r.stderr)
        check(m, f"systemd-analyze security {name}: {r.stdout[-300:]} {r.stderr[-300:]}")
        print(f"{name}.service exposure {m.group(1)} (at most {most})")
        check(float(m.group(1)) <= most, f"{name}.service exposure {m.group(1)} > {most}")
    # the flags the units pass exist
    r = run([AGENT, "--help"])
    check("--config FILE" in r.stdout and "--state-dir DIR" in r.stdout, "agent --help")
    r = run([COORD, "serve", "--help"])
    for flag in ("--listen", "--key", "--agent-keys", "--control", "--results"):
        check(flag in r.stdout, f"serve --help names {flag}")
    r = run([COORD, "run", "--help"])
    for flag in ("--queue", "--detach", "--control"):
        check(flag in r.stdout, f"run --help names {flag}")
print("ok")
