#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Line coverage of the daemons by the unit tests alone (cmocka, no processes).

Builds BUILD_DIR (default build-cov) with -DRB_COVERAGE=ON, runs `ctest -L unit` there,
and reads gcov's counts for the coordinator's production files and the agent daemon's
(the session, its configuration, delivery, pre-flight and a point's life: not the engine,
the guard or the one-shot commands, which have tests of their own). Prints each file and
each group's total, and fails if a group falls below its floor: a ratchet, raised as tests
are added, never lowered.

Usage: scripts/coverage.py [BUILD_DIR] [--no-build]"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# group: (target %, which production files); each group's floor is in FLOORS
GROUPS = {
    "coordinator": (60, lambda f: f.startswith("coordinator/") and f.endswith(".c")
                    and f not in NEEDS_SERVER),
    "coordinator run": (60, lambda f: f in RUN),
    "agent daemon": (50, lambda f: f in AGENT_DAEMON),
}
# a campaign run: coordinator/run/coord_priv.h's modules
RUN = {f"coordinator/run/{n}.c" for n in ("coord", "loop", "registry", "delivery", "ingest", "ingest_result",
                                       "orders", "steady_run", "resume", "resolve")}
AGENT_DAEMON = {"agent/session/agent.c", "agent/session/agent_cfg.c", "agent/session/delivery.c", "agent/session/preflight.c",
                "agent/session/point.c", "agent/session/point_result.c"}
# code that runs only against an outside server -- PostgreSQL (the files that speak libpq,
# and the commands over them) or rack services' admin endpoints -- is measured by the
# integration tests that start one (integration.results_db*, fleet, serve_admin), not here
NEEDS_SERVER = {"coordinator/results/results_db.c", "coordinator/results/results_db_export.c",
                "coordinator/results/results_db_fleet.c", "coordinator/report/report_db.c",
                "coordinator/results/results_db_owed.c", "coordinator/service/serve_db.c",
                "coordinator/cli/cmd_export.c", "coordinator/cli/cmd_judge.c",
                "coordinator/cli/cmd_fleet.c", "coordinator/fleet/fleet_ask.c",
                "coordinator/fleet/fleet_plan.c", "coordinator/fleet/fleet_run.c",
                "coordinator/fleet/fleet_view.c", "coordinator/service/admin.c",
                "coordinator/results/fleet_judge.c", "coordinator/fleet/fleet_db.c"}
FLOORS = {"coordinator": 79.5, "coordinator run": 65.0, "agent daemon": 83.0}


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = os.path.abspath(args[0] if args else os.path.join(ROOT, "build-cov"))
    if "--no-build" not in sys.argv:
        if run(["cmake", "-S", ROOT, "-B", build, "-DRB_COVERAGE=ON", "-DRB_WERROR=ON",
                "-DCMAKE_BUILD_TYPE=Debug"], stdout=subprocess.DEVNULL).returncode:
            return 1
        if run(["cmake", "--build", build, "-j2"], stdout=subprocess.DEVNULL).returncode:
            return 1
        for g in glob.glob(os.path.join(build, "**", "*.gcda"), recursive=True):
            os.unlink(g)
        r = run(["ctest", "-L", "unit", "--output-on-failure"], cwd=build,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            print(r.stdout[-4000:])
            return 1
    files = {}
    for room in ("coordinator", "agent"):
        objdir = os.path.join(build, room, "CMakeFiles")
        for gcno in glob.glob(os.path.join(objdir, "*.dir", "**", "*.c.gcno"), recursive=True):
            # CMakeFiles/rb_agent.dir/engine/engine.c.gcno: agent/engine/engine.c
            src = gcno.split(".dir/", 1)[1][: -len(".gcno")]
            rel = f"{room}/{src}"
            if not os.path.exists(os.path.join(ROOT, rel)):
                continue
            lines = covered = 0
            # no .gcda (never run): gcov counts its lines as not executed
            out = subprocess.run(["gcov", "-n", "-o", gcno, os.path.join(ROOT, rel)],
                                 capture_output=True, text=True, cwd=build).stdout
            m = re.search(r"File '[^']*%s'\nLines executed:([\d.]+)%% of (\d+)"
                          % re.escape(rel), out)
            if m:
                lines = int(m.group(2))
                covered = round(float(m.group(1)) * lines / 100)
            files[rel] = (covered, lines)
    rc = 0
    for name, (target, pick) in GROUPS.items():
        picked = sorted(f for f in files if pick(f))
        cov = sum(files[f][0] for f in picked)
        tot = sum(files[f][1] for f in picked)
        pct = 100.0 * cov / tot if tot else 0.0
        print(f"\n{name}: {pct:.1f}% of {tot} lines by unit tests "
              f"(floor {FLOORS[name]:.0f}%, target {target}%)")
        for f in picked:
            c, t = files[f]
            print(f"  {f:34} {100.0 * c / t if t else 0:5.1f}% of {t}")
        if pct < FLOORS[name]:
            print(f"coverage: {name} fell below its floor of {FLOORS[name]:.0f}%")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
