# SPDX-License-Identifier: MIT
"""The first safety rule on files: a write to a file rackbench did not create needs both
keys; a refusal exits 3, names every missing key, and leaves the file unchanged."""
import os

from rbtest import AGENT, Tmp, check, run, sha256

with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state)
    target = os.path.join(tmp, "user-data.bin")
    with open(target, "wb") as f:
        f.write(os.urandom(4 << 20))
    before = sha256(target)
    base = [AGENT, "run", "--target", target, "--runtime", "300ms", "--state-dir", state]
    cases = [
        (["--rw", "write"], ["--destructive is not given", "not on the agent's --allow list"]),
        (["--rw", "randwrite", "--destructive"], ["not on the agent's --allow list"]),
        (["--rw", "randrw", "--allow", target], ["--destructive is not given"]),
        (["--rw", "rw", "--rwmixread", "90"], ["--destructive", "--allow"]),
    ]
    for extra, reasons in cases:
        r = run(base + extra)
        print(" ".join(extra), "->", r.returncode, r.stderr)
        check(r.returncode == 3, f"{extra}: exit {r.returncode}, want 3")
        check(target in r.stderr, f"{extra}: refusal does not name the target")
        for reason in reasons:
            check(reason in r.stderr, f"{extra}: refusal does not say '{reason}'")
        check("nothing was written" in r.stderr, "refusal says nothing was written")
        check(sha256(target) == before, f"{extra}: the file changed")
    # a symlink in the state folder to the user's file is still the user's file
    link = os.path.join(state, "innocent.dat")
    os.symlink(target, link)
    r = run([AGENT, "run", "--target", link, "--rw", "write", "--destructive",
             "--runtime", "300ms", "--state-dir", state])
    check(r.returncode == 3, f"symlink: exit {r.returncode}")
    check(sha256(target) == before, "symlink: the file changed")
    # reads need no key
    r = run(base + ["--rw", "randread"])
    check(r.returncode == 0, f"read: exit {r.returncode} {r.stderr}")
    check(sha256(target) == before, "a read changed the file")
    # both keys: written (the control that shows the refusals above were the guard's)
    r = run(base + ["--rw", "write", "--destructive", "--allow", target])
    check(r.returncode == 0, f"both keys: exit {r.returncode} {r.stderr}")
    check(sha256(target) != before, "both keys: the file was not written")
    # a file rackbench creates in its state folder needs only the run's key
    own = os.path.join(state, "own.dat")
    r = run([AGENT, "run", "--target", own, "--size", "4m", "--rw", "write",
             "--runtime", "300ms", "--state-dir", state])
    check(r.returncode == 3 and "--destructive" in r.stderr, "own file without --destructive")
    r = run([AGENT, "run", "--target", own, "--size", "4m", "--rw", "write", "--destructive",
             "--runtime", "300ms", "--state-dir", state])
    check(r.returncode == 0, f"own file: exit {r.returncode} {r.stderr}")
print("ok")
