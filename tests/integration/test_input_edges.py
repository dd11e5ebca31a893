# SPDX-License-Identifier: MIT
"""Files of outside input that are not regular files are refused at once, never waited
on: a FIFO as an fio job's `include` (`rackbench import-fio`, `rackbench-agent run
--fio`), as a job file, as a `--replay` trace, as a campaign (`plan`), as a vendor's spec
(`report --spec`) and as a results file (`report`). Each exits 2 (or 1 where the command
says a file could not be read) within seconds, naming the file and "not a regular file";
nothing is written into the FIFO, so a reader that opened it would block for ever."""
import os

from rbtest import AGENT, COORD, Tmp, check, run

with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    fifo = os.path.join(tmp, "p3fifo")
    os.mkfifo(fifo)
    job = os.path.join(tmp, "ff.fio")
    with open(job, "w") as f:
        f.write(f"include {fifo}\n[j]\nrw=read\nsize=1m\n")
    target = os.path.join(state, "t.bin")
    cases = [
        ("import-fio, an include", [COORD, "import-fio", job, "--target", target]),
        ("import-fio, the job file", [COORD, "import-fio", fifo, "--target", target]),
        ("agent run --fio, an include", [AGENT, "run", "--fio", job, "--state-dir", state,
                                         "--target", target]),
        ("agent run --replay", [AGENT, "run", "--state-dir", state, "--target", target,
                                "--size", "1m", "--rw", "replay", "--replay", fifo]),
        ("plan", [COORD, "plan", fifo]),
        ("report", [COORD, "report", fifo]),
    ]
    for what, args in cases:
        r = run(args, timeout=30)
        print(what, r.returncode, r.stderr.strip())
        check(r.returncode in (1, 2), f"{what}: exit {r.returncode}, want 2 (or 1)")
        check("p3fifo" in r.stderr and "not a regular file" in r.stderr,
              f"{what}: the refusal names the FIFO and why: {r.stderr}")
print("ok")
