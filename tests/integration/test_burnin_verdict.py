# SPDX-License-Identifier: MIT
"""A burn-in's verdicts against a known answer: four loop devices across two agents.

- a1's first drive is a faultfs (FUSE) file that, once its 4 KiB block at 4 MiB has been
  written, reads it back inverted with no error: FAIL, a mismatch at offset 4194304;
- a1's second fails every IO from 8 MiB on with EIO: FAIL, IO errors at offset 8388608;
- a2's first is a healthy faultfs file: PASS;
- a2's second holds a mounted ext4: the guard refuses it, `on_refusal: skip` leaves it
  out: INCOMPLETE, its reason naming the mount.

The run exits 5; the verdicts are in the file's `verdicts` table (and the mismatch's
offsets in `io_errors`), printed at the end of the run, and are the first table of
`rackbench report` and of its HTML page.
"""
import glob
import os
import subprocess

import layout
from rbtest import (COORD, Agent, Faulty, LoopDevices, Tmp, check, free_port, h5, need_faultfs,
                    run)

h5py = h5()
need_faultfs()

# the preset's rules; its model rule is off: three FUSE-backed loop devices sharing two
# cores are not drives of one model's speed
CAMPAIGN = """name: burnin-known
insecure: true
destructive: true
on_refusal: skip
wait: 20s
targets:
  - agent: a1
    drives: [{corrupt}, {eio}]
  - agent: a2
    drives: [{ok}, {mounted}]
preset: burnin
defaults: {{size: 16m}}
overrides: {{interval: 1s}}
verdict: {{min_model_pct: 0}}
"""

with Tmp() as tmp:
    fs = [Faulty(tmp, "corrupt", "--size=16m", "--corrupt-at=4m"),
          Faulty(tmp, "eio", "--size=16m", "--fail-start=8m", "--fail-end=16m"),
          Faulty(tmp, "ok", "--size=16m")]
    try:
        with LoopDevices(tmp, 1, size=16 << 20) as (mounted,):
            mnt = os.path.join(tmp, "mnt")
            os.mkdir(mnt)
            subprocess.run(["mkfs.ext4", "-q", "-F", mounted], check=True)
            subprocess.run(["mount", mounted, mnt], check=True)
            try:
                corrupt, eio, ok = (f.dev for f in fs)
                path = os.path.join(tmp, "c.yaml")
                with open(path, "w") as f:
                    f.write(CAMPAIGN.format(corrupt=corrupt, eio=eio, ok=ok, mounted=mounted))
                ep = f"tcp://127.0.0.1:{free_port()}"
                agents = [Agent(ep, "a1", [corrupt, eio], allow=[corrupt, eio],
                                state_dir=os.path.join(tmp, "s1")),
                          Agent(ep, "a2", [ok, mounted], allow=[ok, mounted],
                                state_dir=os.path.join(tmp, "s2"))]
                try:
                    r = run([COORD, "run", path, "--listen", ep, "--no-service",
                             "--results", os.path.join(tmp, "out")], timeout=300)
                finally:
                    for a in agents:
                        a.stop()
            finally:
                subprocess.run(["umount", mnt])
        print(r.stdout, r.stderr)
        check(r.returncode == 5, f"exit {r.returncode}, want 5: a drive failed")
        check("verdicts: 4 drive(s): 2 FAIL, 1 INCOMPLETE, 1 PASS" in r.stdout,
              "the run prints the verdicts")
        # the terminal says each failing drive's errors once per point, not once per IO
        said = [x for x in r.stderr.splitlines() if "each is in the results' io_errors" in x]
        check(said and all(x.count("IO error(s)") + x.count("mismatch(es)") >= 1 for x in said)
              and len(said) == len(set(said)) and len(said) <= 4,
              f"IO errors said per drive and point: {said}")
        check(any("IO error(s) (Input/output error), the first at offset 8388608" in x
                  for x in said), f"the EIO drive's line: {said}")

        res = glob.glob(os.path.join(tmp, "out", "*.h5"))[0]
        with h5py.File(res, "r") as h:
            diffs = layout.check_file(h)
            check(not diffs, "layout: " + "; ".join(diffs))
            check(h.attrs["verdict"] in (b"FAIL", "FAIL"), f"run verdict {h.attrs['verdict']}")
            drives = {int(d["drive"]): d["path"].decode() for d in h["drives"][:]}
            rows = [(drives[int(v["drive"])], v["rule"].decode(), v["verdict"].decode(),
                     v["reason"].decode(), int(v["point"]), float(v["measured"]))
                    for v in h["verdicts"][:]]
            ioerr = h["io_errors"][:]
            points = {int(p["point"]): p["name"].decode() for p in h["points"][:]}
            results = h["results"][:]
        # a row with IO errors or mismatches says error, never ok, and what
        for x in results:
            errs = int(x["read_errors"] + x["write_errors"] + x["verify_mismatches"])
            if errs:
                check(x["status"] == b"error" and b"IO error(s)" in x["message"],
                      f"drive {x['drive']} point {x['point']}: {errs} errors, status "
                      f"{x['status']} '{x['message']}'")
        check(any(x["verify_mismatches"] for x in results), "no row with mismatches")
        for row in rows:
            print(row)
        verdict = {p: v for p, rule, v, _, _, _ in rows if rule == "drive"}
        check(verdict == {corrupt: "FAIL", eio: "FAIL", ok: "PASS", mounted: "INCOMPLETE"},
              f"verdicts {verdict}")
        why = {(p, rule): (reason, point, m) for p, rule, _, reason, point, m in rows}

        # the silent corruption: one block, eight chunks, found by the verifying read
        check((corrupt, "mismatch") in why, "the corrupt drive's mismatch rule")
        reason, point, m = why[(corrupt, "mismatch")]
        check(m == 8 and "at offset 4194304 (4096 bytes)" in reason,
              f"mismatch: {m} chunks, {reason}")
        check(points[point] == "verify", f"found in point {points[point]}")
        check((corrupt, "io_errors") not in why, "the corruption raised no IO error")
        mis = ioerr[(ioerr["errno"] == 84)]
        check(sorted(int(x) for x in mis["offset"]) == [4194304 + 512 * i for i in range(8)],
              f"io_errors holds the mismatched chunks: {sorted(mis['offset'])}")

        # the failing drive: IO errors from 8 MiB on, nothing before
        check((eio, "io_errors") in why, "the failing drive's IO-error rule")
        reason, point, m = why[(eio, "io_errors")]
        check(m > 0 and "at offset 8388608" in reason, f"IO errors: {reason}")
        check(all(int(x) >= 8 << 20 for x in ioerr[ioerr["errno"] == 5]["offset"]),
              "every IO error is past 8 MiB")

        # the healthy drive: no rule tripped, and the mounted one left out with its reason
        check([rule for p, rule, *_ in rows if p == ok] == ["drive"], "the healthy drive")
        reason = why[(mounted, "drive")][0]
        check("mounted" in reason and mnt in reason, f"the skipped drive's reason: {reason}")

        # the report leads with the verdicts, failed drives first
        r = run([COORD, "report", res, "--html", os.path.join(tmp, "r.html")])
        print(r.stdout)
        check(r.returncode == 5, f"report exit {r.returncode}, want 5")
        lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
        check(lines[0].startswith("verdicts: 4 drive(s)"), f"report starts with {lines[0]!r}")
        order = [ln.split()[0] for ln in lines[2:6]]
        check(order == ["FAIL", "FAIL", "INCOMPLETE", "PASS"], f"report order {order}")
        check(any("mismatch" in ln and "4194304" in ln for ln in lines[2:4]),
              "the report says why in words")
        page = open(os.path.join(tmp, "r.html")).read()
        first = page.find("<h2 ")
        check(page[first:].startswith('<h2 id="s1">Verdicts</h2>'),
              "the page's first section: verdicts")
    finally:
        for f in fs:
            f.close()
print("ok")
