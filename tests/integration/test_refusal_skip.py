# SPDX-License-Identifier: MIT
"""`on_refusal: skip`: a drive the guard refuses is left out, the others run.

An agent offers two file drives for a write campaign but allows writes to one only.
Without on_refusal the campaign stops before anything is written (exit 3, the refused
drive and the reason named). With `on_refusal: skip` the allowed drive is written and
measured, the refused one is never written (its file stays as it was), its rows say
'refused' with the guard's reason, its verdict is INCOMPLETE naming it, and the run
exits 4 (partial).
"""
import glob
import os

from rbtest import COORD, Agent, Tmp, check, free_port, h5, run, sha256

h5py = h5()

CAMPAIGN = """name: skip
insecure: true
destructive: true
wait: 20s
{skip}
defaults: {{size: 8m, runtime: 500ms}}
targets:
  - agent: sk
    drives: [ok.dat, held.dat]
phases:
  - workload: {{rw: randwrite, bs: 4k}}
"""

with Tmp() as tmp:
    held = os.path.join(tmp, "held.dat")
    with open(held, "wb") as f:
        f.write(os.urandom(8 << 20))
    before = sha256(held)
    for skip in ("", "on_refusal: skip"):
        out = os.path.join(tmp, "out" + str(bool(skip)))
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(skip=skip))
        ep = f"tcp://127.0.0.1:{free_port()}"
        # writes allowed to ok.dat only: the guard refuses held.dat
        agent = Agent(ep, "sk", ["ok.dat", "held.dat"], allow=["ok.dat"], cwd=tmp,
                      state_dir=tmp)
        try:
            r = run([COORD, "run", path, "--listen", ep, "--no-service", "--results", out])
        finally:
            agent.stop()
        print(r.stdout[-2000:], r.stderr[-2000:])
        check(sha256(held) == before, f"{skip or 'stop'}: the refused drive was never written")
        if not skip:
            check(r.returncode == 3, f"without skip: exit {r.returncode}, want 3")
            check("held.dat" in r.stderr and "--allow" in r.stderr, "the refusal names it")
            continue
        check(r.returncode == 4, f"with skip: exit {r.returncode}, want 4 (partial)")
        check("left out" in r.stderr, "the run says what it left out")
        with h5py.File(glob.glob(os.path.join(out, "*.h5"))[0], "r") as h:
            drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
            res = {drives[int(x["drive"])]: x for x in h["results"][:]}
            verdict = {drives[int(v["drive"])]: (v["verdict"].decode(), v["reason"].decode())
                       for v in h["verdicts"][:] if v["rule"] == b"drive"}
        check(res["ok.dat"]["status"] == b"ok" and res["ok.dat"]["write_ios"] > 0,
              "the allowed drive ran")
        check(res["held.dat"]["status"] == b"refused" and res["held.dat"]["write_ios"] == 0,
              "the refused one has a 'refused' row")
        check("--allow" in res["held.dat"]["message"].decode(), "with the guard's reason")
        check(verdict["ok.dat"][0] == "PASS", f"ok.dat: {verdict['ok.dat']}")
        check(verdict["held.dat"][0] == "INCOMPLETE" and "--allow" in verdict["held.dat"][1],
              f"held.dat: {verdict['held.dat']}")
print("ok")
