# SPDX-License-Identifier: MIT
"""deploy/: systemd-analyze verify accepts the agent's and the coordinator service's units
(their ExecStart pointed at the built programs, since nothing is installed here), and the
flags they pass exist."""
import os
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
    # systemd's exposure score of each unit: no worse than docs/deploy.md says
    import re
    for name, most in (("rackbench-agent", 3.1), ("rackbench", 4.1)):
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
print("ok")
