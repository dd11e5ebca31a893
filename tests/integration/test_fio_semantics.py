# SPDX-License-Identifier: MIT
"""fio's job files do in rackbench what they do in fio: each fixture of
tests/fixtures/fio/ (written from fio's documented semantics) run by fio 3.33 itself
(Debian's) on a small file and by `rackbench-agent run --fio` on a file of its own,
and the two held to each other:

- verify.fio: a random write with verify=crc32c, then fio's verify phase: the bytes
  written are the same, and rackbench checked every 512-byte chunk of them (fio read
  them all back), nothing bad;
- numjobs.fio: numjobs=4 with size=8m: every job does the whole 8m, 32 MiB in all, as
  fio moved;
- cap.fio and timeout.fio: runtime (and its old name timeout) without time_based stops
  a job that its size would keep for 160 s after a second, with the bytes of a second
  at its rate, as fio;
- zones.fio: a zoned distribution whose last zone has no range is taken, and io_size's
  bytes move.

`rackbench import-fio` of the same files says the same in the campaign: a verify phase
after the write, job_region: whole for numjobs, max_runtime for the cap."""
import json
import os
import shutil

from rbtest import AGENT, COORD, SRC, Tmp, check, run, skip

FIO = shutil.which("fio")
if not FIO:
    skip("needs fio (scripts/install-deps.sh installs it)")
JOBS = os.path.join(SRC, "tests", "fixtures", "fio")
MIB = 1 << 20


def fio(job, tmp):
    """fio's JSON for job run on a file in tmp: {read,write}_bytes and the runtime (ms),
    summed over its jobs."""
    data = os.path.join(tmp, "fio.dat")
    with open(data, "wb") as f:  # a file with data, as rackbench lays its own out
        f.write(os.urandom(64 * MIB))
    r = run([FIO, "--output-format=json", f"--filename={data}", os.path.join(JOBS, job)],
            timeout=120)
    check(r.returncode == 0, f"fio {job}: {r.returncode} {r.stderr[-500:]}")
    doc = json.loads(r.stdout[r.stdout.index("{"):])
    out = {"read": 0, "write": 0, "runtime_ms": 0}
    for j in doc["jobs"]:
        for d in ("read", "write"):
            out[d] += j[d]["io_bytes"]
        out["runtime_ms"] = max(out["runtime_ms"], j["job_runtime"])
    return out


def rackbench(job, tmp):
    """rackbench-agent run --fio's JSON for job on a file of its own in tmp."""
    state = os.path.join(tmp, "state")
    os.makedirs(state, exist_ok=True)
    r = run([AGENT, "run", "--fio", os.path.join(JOBS, job), "--state-dir", state, "--target",
             os.path.join(state, "rb.dat"), "--destructive", "--json"], timeout=120)
    print(job, r.stderr.strip())
    check(r.returncode == 0, f"rackbench {job}: {r.returncode} {r.stderr[-500:]}")
    return json.loads(r.stdout)


def imported(job):
    r = run([COORD, "import-fio", os.path.join(JOBS, job), "--target", "/dev/nvme0n1"])
    check(r.returncode == 0, f"import-fio {job}: {r.returncode} {r.stderr}")
    return r.stdout


with Tmp() as tmp:
    # verification: the same bytes written; every chunk of them checked after
    f, rb = fio("verify.fio", tmp), rackbench("verify.fio", tmp)
    print("verify:", f, rb["write"]["bytes"], rb["verify"])
    check(f["write"] == 4 * MIB and f["read"] == 4 * MIB, f"fio writes and reads back: {f}")
    check(rb["write"]["bytes"] == f["write"], f"rackbench wrote {rb['write']['bytes']}")
    check(rb["verify"]["checked"] * 512 == f["read"] and rb["verify"]["mismatches"] == 0,
          f"rackbench checked {rb['verify']} of what fio read back ({f['read']})")
    c = imported("verify.fio")
    after = c.split('name: "1-write-and-verify-verify"')
    check(len(after) == 2 and "workload: {rw: read," in after[1] and "verify: true" in after[1],
          f"import-fio: a verifying read phase after the write:\n{c}")

    # numjobs: every job the whole size
    f, rb = fio("numjobs.fio", tmp), rackbench("numjobs.fio", tmp)
    print("numjobs:", f, rb["write"]["bytes"])
    check(f["write"] == 32 * MIB, f"fio moved {f['write']}")
    check(rb["write"]["bytes"] == f["write"], f"rackbench moved {rb['write']['bytes']}, fio "
                                             f"{f['write']}")
    check("job_region: whole" in imported("numjobs.fio"), "import-fio says job_region: whole")

    # the runtime cap, by either name: a second at 100 IOPS, as fio
    for job in ("cap.fio", "timeout.fio"):
        f, rb = fio(job, tmp), rackbench(job, tmp)
        secs = rb["elapsed_ns"] / 1e9 if "elapsed_ns" in rb else None
        print(job, f, rb["read"]["bytes"], secs)
        check(f["runtime_ms"] < 3000 and f["read"] < 4 * MIB, f"fio stops at its runtime: {f}")
        check(rb["read"]["bytes"] < 4 * MIB, f"rackbench read {rb['read']['bytes']}: past its cap")
        check(abs(rb["read"]["bytes"] - f["read"]) <= 0.5 * f["read"],
              f"a second at 100 IOPS: rackbench {rb['read']['bytes']}, fio {f['read']}")
        check("max_runtime: 1s" in imported(job), f"import-fio of {job}: max_runtime")

    # a zone without a range, and io_size's bytes
    f, rb = fio("zones.fio", tmp), rackbench("zones.fio", tmp)
    print("zones:", f, rb["read"]["bytes"])
    check(rb["read"]["bytes"] == f["read"] == 2 * MIB, f"io_size: rackbench "
                                                       f"{rb['read']['bytes']}, fio {f['read']}")
print("ok")
