# SPDX-License-Identifier: MIT
"""In a campaign with several drives where one is refused by its agent's guard, nothing is
written to any of them: rackbench run exits 3, names the drive and the reasons, creates no
results file, and every drive's checksum is unchanged (the allowed file is not even
created)."""
import hashlib
import os

from rbtest import COORD, Agent, Tmp, check, free_port, run, sha256

CAMPAIGN = """name: refusal
insecure: true
destructive: true
wait: 20s
defaults: {{size: 4m, runtime: 500ms}}
targets:
  - agent: r1
    drives: [{own}, {user}]
  - agent: r2
    drives: [{other}]
phases:
  - workload: {{rw: randwrite}}
"""

with Tmp() as tmp:
    for d in ("s1", "s2"):
        os.mkdir(os.path.join(tmp, d))
    own = os.path.join(tmp, "s1", "own.dat")          # rackbench's own: allowed
    user = os.path.join(tmp, "user.dat")              # a user's file, not allow-listed
    other = os.path.join(tmp, "s2", "other.dat")      # another agent's, allowed
    with open(user, "wb") as f:
        f.write(os.urandom(4 << 20))
    with open(other, "wb") as f:
        f.write(os.urandom(4 << 20))
    sums = {user: sha256(user), other: sha256(other)}
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(own=own, user=user, other=other))
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = [Agent(ep, "r1", [own, user], state_dir=os.path.join(tmp, "s1")),
              Agent(ep, "r2", [other], allow=[other], state_dir=os.path.join(tmp, "s2"))]
    try:
        r = run([COORD, "run", path, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        for a in agents:
            a.stop()
    print(r.stdout, r.stderr)
    check(r.returncode == 3, f"exit {r.returncode}, want 3")
    check(f"agent 'r1' drive '{user}'" in r.stderr and "not on the agent's --allow list" in r.stderr,
          "the refused drive and its reason are named")
    check("nothing was written to any drive" in r.stderr, "says nothing was written")
    for p, s in sums.items():
        check(sha256(p) == s, f"{p} changed")
    check(not os.path.exists(own), "the allowed file was not even created")
    check(not os.path.exists(os.path.join(tmp, "out")), "no results for a refused campaign")
print("ok")

# an identity pin that the drive does not match: refused before anything runs
PINNED = """name: pinned
insecure: true
wait: 20s
defaults: {{size: 4m, runtime: 300ms}}
targets:
  - agent: p1
    drives: [{{path: {own}, serial: S3R1AL-0042}}]
phases:
  - workload: {{rw: randread}}
"""
with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "s"))
    own = os.path.join(tmp, "s", "own.dat")
    path = os.path.join(tmp, "p.yaml")
    with open(path, "w") as f:
        f.write(PINNED.format(own=own))
    r = run([COORD, "plan", path])
    check(r.returncode == 0 and "1 drive(s)" in r.stdout, f"plan with a pin: {r.stderr}")
    ep = f"tcp://127.0.0.1:{free_port()}"
    a = Agent(ep, "p1", [own], state_dir=os.path.join(tmp, "s"))
    try:
        r = run([COORD, "run", path, "--listen", ep, "--results", os.path.join(tmp, "out")])
    finally:
        a.stop()
    print(r.stderr)
    check(r.returncode == 3, f"pin: exit {r.returncode}, want 3")
    check("the drive reports serial '', the campaign pins 'S3R1AL-0042'" in r.stderr,
          "the pin and what the drive says are named")
print("ok (pin)")
