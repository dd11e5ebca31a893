# SPDX-License-Identifier: MIT
"""The manual pages in man/ are what scripts/gen_man.py makes from the programs' own tables
today (each command's --help, the campaign key table, the workload option table), so a new
flag or key without a page update fails here; each renders with `man --warnings -l`
without one warning, and says what its table says (a flag, a key, an exit code)."""
import os
import shutil
import subprocess
import sys

from rbtest import AGENT, COORD, SRC, Tmp, check, skip

if not shutil.which("man"):
    skip("man is not installed (Debian: man-db)")

with Tmp() as tmp:
    r = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "gen_man.py"), COORD, AGENT,
                        tmp], capture_output=True, text=True)
    check(r.returncode == 0, f"gen_man.py: {r.stderr}")
    for name in ("rackbench.1", "rackbench-agent.1", "rackbench-campaign.5"):
        committed = os.path.join(SRC, "man", name)
        with open(os.path.join(tmp, name)) as f, open(committed) as g:
            check(f.read() == g.read(),
                  f"man/{name} is stale: run scripts/gen_man.py build/coordinator/rackbench "
                  "build/agent/rackbench-agent man/")
        env = dict(os.environ, MANWIDTH="100", LC_ALL="C.UTF-8")
        m = subprocess.run(["man", "--warnings", "-l", committed], capture_output=True,
                           text=True, env=env)
        check(m.returncode == 0 and not m.stderr.strip(),
              f"man -l {name}: exit {m.returncode}, warnings: {m.stderr[:2000]}")
        text = m.stdout
        if name == "rackbench.1":
            check("rackbench plan CAMPAIGN.yaml" in text and "--assume-mbps" in text,
                  "plan and its flags are in rackbench(1)")
            check("refused by the safety guard" in text, "the exit codes are in rackbench(1)")
        elif name == "rackbench-agent.1":
            check("--spool-max SIZE" in text and "rackbench-agent run" in text,
                  "the daemon's flags and run are in rackbench-agent(1)")
        else:
            check("on_agent_lost" in text and "rate_iops" in text and "steady_state" in text,
                  "campaign and workload keys are in rackbench-campaign(5)")
# the README's exit-code table lists the codes in common/util/exitcode.h's order of precedence
sys.path.insert(0, os.path.join(SRC, "scripts"))
import gen_man  # noqa: E402

with open(os.path.join(SRC, "README.md")) as f:
    readme = f.read()
section = readme[readme.index("## Exit codes"):]
section = section[:section.index("\n## ", 4)]
rows = [line.split("|")[1].strip() for line in section.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().isdigit()]
check(rows == gen_man.precedence(),
      f"README's exit codes {rows}, common/util/exitcode.h's order {gen_man.precedence()}")
print("ok: three pages current and clean; the README's exit codes in exitcode.h's order")
