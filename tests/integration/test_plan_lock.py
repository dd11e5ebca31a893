# SPDX-License-Identifier: MIT
"""rackbench plan --resolve and --lock, against a real agent: --resolve prints each drive
as its agent sees it and the guard's verdict, writing nothing; --lock records the drives'
identities; a campaign with 'lock:' runs on them, is refused (exit 3, naming the drive)
when a drive no longer reports the locked serial, and does not load when the lock misses
one of its drives. A refused drive makes --resolve exit 3 and --lock write no file."""
import os

from rbtest import COORD, Agent, Tmp, check, free_port, run

CAMPAIGN = """name: locked
insecure: true
destructive: true
wait: 20s
defaults: {{size: 8m, runtime: 300ms}}
targets:
  - agent: lk-a1
    drives: [{drives}]
{lock}phases:
  - workload: {{rw: randwrite, bs: 4k}}
"""


def campaign(tmp, drives, lock=""):
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(drives=", ".join(drives),
                                lock=f"lock: {lock}\n" if lock else ""))
    return path


with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "a1"))
    t = ["a1/disk0.dat", "a1/disk1.dat"]
    ep = f"tcp://127.0.0.1:{free_port()}"
    # other/disk2.dat is offered, outside the state folder and not allowed: the guard
    # refuses writes to it
    os.mkdir(os.path.join(tmp, "other"))
    a = Agent(ep, "lk-a1", t + ["other/disk2.dat"], allow=t, cwd=tmp,
              state_dir=os.path.join(tmp, "a1"))
    try:
        c = campaign(tmp, t)
        r = run([COORD, "plan", c, "--resolve", "--listen", ep])
        print(r.stdout, r.stderr)
        check(r.returncode == 0, f"--resolve: {r.returncode}")
        rows = [x for x in r.stdout.splitlines() if x.startswith("lk-a1")]
        # files are laid out on first use: not there yet, and --resolve writes nothing
        check(len(rows) == 2 and all("writes allowed" in x and " missing " in x for x in rows),
              rows)
        check(not os.path.exists(os.path.join(tmp, "a1", "disk0.dat")), "--resolve wrote")
        lock = os.path.join(tmp, "lock.yaml")
        r = run([COORD, "plan", c, "--lock", lock, "--listen", ep])
        check(r.returncode == 0 and os.path.exists(lock), f"--lock: {r.returncode} {r.stderr}")
        check("2 without a serial" in r.stdout, r.stdout)
        text = open(lock).read()
        check("campaign: locked" in text and text.count("agent: \"lk-a1\"") == 2, text)
        r = run([COORD, "plan", c, "--lock", lock, "--listen", ep])
        check(r.returncode == 2 and "cannot create lock file" in r.stderr, "lock not overwritten")

        # the lock, as recorded, lets the campaign run
        c = campaign(tmp, t, "lock.yaml")
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out")])
        check(r.returncode == 0, f"locked run: {r.returncode}\n{r.stderr}")
        # a drive that no longer reports the locked serial is refused before any write
        with open(lock, "w") as f:
            f.write(text.replace('path: "a1/disk1.dat", serial: ""',
                                 'path: "a1/disk1.dat", serial: "S-BOGUS"'))
        r = run([COORD, "run", c, "--listen", ep, "--results", os.path.join(tmp, "out")])
        check(r.returncode == 3, f"swapped drive: exit {r.returncode}, want 3\n{r.stderr}")
        check("a1/disk1.dat" in r.stderr and "'S-BOGUS'" in r.stderr, r.stderr)
        # a lock that misses a drive: the campaign does not load
        with open(lock, "w") as f:
            f.write("\n".join(x for x in text.splitlines() if "disk1" not in x) + "\n")
        r = run([COORD, "plan", c])
        check(r.returncode == 2 and f"{c}:9:7:" in r.stderr and "not in the lock" in r.stderr,
              r.stderr)

        # a refused drive: --resolve says so, exit 3, and --lock writes nothing
        c = campaign(tmp, t + ["other/disk2.dat"])
        lock2 = os.path.join(tmp, "lock2.yaml")
        r = run([COORD, "plan", c, "--lock", lock2, "--listen", ep])
        print(r.stdout, r.stderr)
        check(r.returncode == 3, f"refused: exit {r.returncode}")
        check(any("other/disk2.dat" in x and "REFUSED" in x for x in r.stdout.splitlines()),
              r.stdout)
        check(not os.path.exists(lock2), "a lock was written despite a refusal")
    finally:
        a.stop()
print("ok")
