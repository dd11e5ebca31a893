# SPDX-License-Identifier: MIT
"""A1l: a coordinator whose Welcome names the run "../../ESCAPED" (or another id that is a
path, a hidden or option-like name, or carries a control character) must not make an agent
write outside its state folder (tests/tools/rogue_coord.c). Checked for each: the agent
refuses the Welcome and says so, keeps saying hello (it never registered), creates no file
outside its state folder and no spool at all, and exits 0 on SIGTERM."""
import glob
import os
import subprocess

from faults import stop_all
from rbtest import Agent, Tmp, check, free_port

ROGUE = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "rogue_coord")

with Tmp() as tmp:
    for i, run_id in enumerate(("../../ESCAPED", "a/b", ".hidden", "-rf", "x\x01y")):
        base = os.path.join(tmp, f"case{i}")
        state = os.path.join(base, "one", "two", "state")
        os.makedirs(state)
        ep = f"tcp://127.0.0.1:{free_port()}"
        c = subprocess.Popen([ROGUE, ep, run_id, "4"], stdout=subprocess.PIPE, text=True)
        agents = [Agent(ep, "victim", [], cwd=base, state_dir=state)]
        try:
            out, _ = c.communicate(timeout=30)
        finally:
            stop_all(agents)
        log = agents[0].output()
        check("refused the coordinator's welcome" in log, f"{run_id!r}: refused:\n{log[-800:]}")
        check("registered with the coordinator" not in log, f"{run_id!r}: never registered")
        check(int(out.strip()) >= 2, f"{run_id!r}: it kept saying hello ({out.strip()})")
        outside = [p for p in glob.glob(os.path.join(base, "**"), recursive=True)
                   if not p.startswith(state) and os.path.isfile(p)]
        check(not outside, f"{run_id!r}: files outside the state folder: {outside}")
        check(not glob.glob(os.path.join(state, "spool", "*")), f"{run_id!r}: no spool")
print("ok")
