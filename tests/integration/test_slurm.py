# SPDX-License-Identifier: MIT
"""deploy/slurm, statically (no Slurm controller is started here): both batch scripts
pass `bash -n` and shellcheck (when present); their #SBATCH lines parse as name=value,
the array's has --array, --job-name and one output file per task (%A and %a); the
summary's its own job name. Run with a stand-in rackbench ($RACKBENCH), array task 1
picks the second rack of a FLEET.yaml as docs/fleet.md writes one, runs `run --no-service`
of that rack's campaign into its folder with the keys and endpoint $RACKBENCH_ETC and
$RACKBENCH_LISTEN name, and keeps its exit (5); the summary names each rack's exit and
files, reports them --by rack and exits with the worst (5). root.slurm runs them under a
real Slurm controller and node (tests/integration/test_slurm_real.py)."""
import os
import shutil
import stat

from rbtest import SRC, Tmp, check, run

D = os.path.join(SRC, "deploy", "slurm")


def sbatch_lines(path):
    out = {}
    for line in open(path):
        if line.startswith("#SBATCH "):
            k, _, v = line[len("#SBATCH "):].strip().partition("=")
            check(k.startswith("--") and v, f"{path}: {line!r} is --name=value")
            out[k] = v
    return out


for name in ("fleet-burnin.sbatch", "fleet-summary.sbatch"):
    path = os.path.join(D, name)
    r = run(["bash", "-n", path])
    check(r.returncode == 0, f"bash -n {name}: {r.stderr}")
    if shutil.which("shellcheck"):
        r = run(["shellcheck", path])
        check(r.returncode == 0, f"shellcheck {name}: {r.stdout}")
arr = sbatch_lines(os.path.join(D, "fleet-burnin.sbatch"))
check(arr.get("--job-name") == "rackbench-fleet-burnin" and arr.get("--array"), f"{arr}")
check("%A" in arr["--output"] and "%a" in arr["--output"], "one output file per array task")
summ = sbatch_lines(os.path.join(D, "fleet-summary.sbatch"))
check(summ.get("--job-name") == "rackbench-fleet-summary" and "--array" not in summ, f"{summ}")

with Tmp() as tmp:
    stub = os.path.join(tmp, "rackbench")
    with open(stub, "w") as f:
        f.write('#!/bin/bash\necho "$@" >> "$STUB_LOG"\n'
                'if [ "$1" = run ]; then d=${@: -2:1}; touch "$d/run-1.h5"; exit 5; fi\n')
    os.chmod(stub, stat.S_IRWXU)
    with open(os.path.join(tmp, "fleet.yaml"), "w") as f:
        f.write("racks:\n  - name: r01\n    endpoint: tcp://10.1.0.5:7471\n"
                "    public_key_file: keys/r01.pub\n  - name: r02\n"
                "    endpoint: tcp://10.1.0.6:7471\n    public_key_file: keys/r02.pub\n")
    log = os.path.join(tmp, "log")
    env = dict(os.environ, SLURM_ARRAY_TASK_ID="1", STUB_LOG=log, RACKBENCH=stub,
               RACKBENCH_ETC=os.path.join(tmp, "etc"), RACKBENCH_LISTEN="tcp://127.0.0.1:7490")
    res = os.path.join(tmp, "results")
    r = run(["bash", os.path.join(D, "fleet-burnin.sbatch"), os.path.join(tmp, "fleet.yaml"),
             os.path.join(tmp, "campaigns"), res], env=env)
    print(r.stdout, r.stderr)
    args = open(log).read().split()
    check(r.returncode == 5 and args[:2] == ["run", "--no-service"] and
          args[-1] == os.path.join(tmp, "campaigns", "r02.yaml") and
          args[args.index("--results") + 1] == os.path.join(res, "r02"),
          f"task 1 runs rack r02's shard: exit {r.returncode}, {args}")
    check(args[args.index("--key") + 1] == os.path.join(tmp, "etc", "coordinator.key") and
          args[args.index("--agent-keys") + 1] == os.path.join(tmp, "etc", "agents.allow") and
          args[args.index("--listen") + 1] == "tcp://127.0.0.1:7490",
          f"RACKBENCH_ETC and RACKBENCH_LISTEN say where the keys are and where to listen: {args}")
    check(open(os.path.join(res, "r02", "exit")).read().strip() == "5", "its exit kept")
    os.remove(log)
    r = run(["bash", os.path.join(D, "fleet-summary.sbatch"), res], env=env)
    print(r.stdout, r.stderr)
    args = open(log).read().split()
    check(r.returncode == 5 and "r02\t5\t" in r.stdout, f"the summary: exit {r.returncode}")
    check(args[:3] == ["report", "--by", "rack"] and args[3].endswith("r02/run-1.h5"),
          f"one report over the racks' files: {args}")
print("ok")
