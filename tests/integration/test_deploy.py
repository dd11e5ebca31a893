# SPDX-License-Identifier: MIT
"""deploy/: systemd-analyze verify accepts the agent unit (its ExecStart pointed at the
built program, since nothing is installed here)."""
import os
import shutil

from rbtest import AGENT, SRC, Tmp, check, run, skip

if not shutil.which("systemd-analyze"):
    skip("needs systemd-analyze (package systemd)")

with Tmp() as tmp:
    unit = open(os.path.join(SRC, "deploy", "rackbench-agent.service")).read()
    check("ExecStart=/usr/bin/rackbench-agent " in unit, "unit starts the installed agent")
    path = os.path.join(tmp, "rackbench-agent.service")
    with open(path, "w") as f:
        f.write(unit.replace("/usr/bin/rackbench-agent", os.path.abspath(AGENT)))
    r = run(["systemd-analyze", "verify", path])
    print(r.stdout, r.stderr)
    # lines about other units on this machine are not ours
    ours = [l for l in r.stderr.splitlines() if "rackbench-agent.service" in l]
    check(r.returncode == 0 and not ours, f"systemd-analyze verify: {r.returncode} {ours}")
    # the flags the unit passes exist
    r = run([AGENT, "--help"])
    check("--config FILE" in r.stdout and "--state-dir DIR" in r.stdout, "agent --help")
print("ok")
