# SPDX-License-Identifier: MIT
"""Evidence for the RMA: a drive that fails IO from 8 MiB on (a faultfs file under a
loop device) whose NVMe pages the agent reads from a folder (--nvme-pages: a telemetry
log of 2 KiB, an error log, a SMART log, a persistent event log whose header says 1,536
bytes). The point that hit the errors leaves its telemetry, error log, SMART and event
log (as long as its header says) in the agent's state folder, byte for byte what the drive
gave, each named in the results file's evidence table with its size and sha256, and
`rackbench report` lists them after the verdicts, `rackbench history` under the drive's run.
The agent also sends each file to the coordinator, which keeps it beside the results file,
gzip-compressed (RESULTS.evidence/a1/CAPTURE/FILE.gz), named in the row's `stored` column:
the copy decompresses to the bytes of the row's sha256, and survives the agent's folder.
A drive without errors keeps nothing; one whose verdict FAILs (p99 over 1 us) has its
evidence captured after the verdicts, on the coordinator's order, the same four files
beside the results and in the file's evidence table, named at the run's end; one whose
verdict PASSes keeps nothing."""
import gzip
import hashlib
import os
import struct

import pgserver
from rbtest import COORD, Faulty, Tmp, check, h5, need_faultfs, paged_run, run

h5py = h5()
need_faultfs()

CAMPAIGN = """name: evidence
insecure: true
destructive: true
wait: 20s
targets:
  - agent: a1
    drives: [{dev}]
defaults: {{size: 16m, bs: 64k, iodepth: 4}}
phases:
  - name: {phase}
    workload: {{rw: {rw}, passes: 1}}
{verdict}"""


def campaign(tmp, dev, pages, out, rw, phase, verdict=""):
    path = os.path.join(tmp, f"{phase}.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(dev=dev, rw=rw, phase=phase, verdict=verdict))
    r, _, f = paged_run(path, dev, pages, out, os.path.join(tmp, "s"))
    return r, f


with Tmp() as tmp:
    bad = Faulty(tmp, "eio", "--size=16m", "--fail-start=8m", "--fail-end=16m")
    ok = Faulty(tmp, "ok", "--size=16m")
    try:
        dev, name = bad.dev, os.path.basename(bad.dev)
        pages = os.path.join(tmp, "pages")
        os.mkdir(pages)
        tel = bytearray(os.urandom(2048))
        tel[0] = 0x07
        struct.pack_into("<HHH", tel, 8, 1, 3, 3)  # data areas 1..3 end at block 3: 2 KiB
        # a persistent event log of 1,536 bytes (its header's Total Log Length), a page of
        # 2 KiB: what follows the length is not the log's
        pel = bytearray(os.urandom(2048))
        pel[0] = 0x0D
        struct.pack_into("<Q", pel, 8, 1536)
        logs = {"log-07": bytes(tel), "log-01": os.urandom(4096), "log-02": os.urandom(512),
                "log-0d": bytes(pel), "id-ctrl": bytes(4096), "id-ns": bytes(4096)}
        for k, v in logs.items():
            for n in (name, os.path.basename(ok.dev)):
                with open(os.path.join(pages, f"{n}.{k}"), "wb") as f:
                    f.write(v)
        # a healthy drive with the same pages keeps nothing
        r, f = campaign(tmp, ok.dev, pages, os.path.join(tmp, "out-ok"), "write", "fill")
        check(r.returncode == 0, f"the healthy drive: exit {r.returncode}")
        with h5py.File(f, "r") as h:
            check(len(h["evidence"]) == 0, "a drive without errors keeps no evidence")
        # a verdict that PASSes orders no capture
        r, f = campaign(tmp, ok.dev, pages, os.path.join(tmp, "out-pass"), "read", "pass",
                        "verdict: {max_p99: 10s}\n")
        check(r.returncode == 0, f"the passing drive: exit {r.returncode}")
        with h5py.File(f, "r") as h:
            check(len(h["evidence"]) == 0, "a drive that PASSes keeps no evidence")
        # a verdict that FAILs (no IO error) captures after the verdicts, on order
        r, f = campaign(tmp, ok.dev, pages, os.path.join(tmp, "out-slow"), "read", "slow",
                        "verdict: {max_p99: 1us}\n")
        check(r.returncode == 5, f"a FAIL by max_p99: exit {r.returncode}, want 5")
        check("evidence captured for the vendor after the verdicts" in r.stdout,
              f"the capture said at the end: {r.stdout[-800:]}")
        with h5py.File(f, "r") as h:
            ev = h["evidence"][:]
            verdicts = [(x["rule"].decode(), x["verdict"].decode()) for x in h["verdicts"][:]]
        check(("drive", "FAIL") in verdicts, f"verdicts {verdicts}")
        kinds = sorted(x["kind"].decode() for x in ev)
        check(kinds == ["error-log", "event-log", "smart", "telemetry"],
              f"captured after the verdict: {kinds}")
        okname = os.path.basename(ok.dev)
        for x in ev:
            check(int(x["point"]) == 0 and x["stored"].decode().endswith(".gz"),
                  f"{x['kind']}: point {x['point']}, stored {x['stored']!r}")
            copy = gzip.decompress(open(os.path.join(os.path.dirname(f), x["stored"].decode()),
                                        "rb").read())
            check(hashlib.sha256(copy).hexdigest() == x["sha256"].decode() and
                  os.path.basename(os.path.dirname(x["path"].decode())).startswith(okname + "-"),
                  f"{x['kind']}: the copy beside the results has the row's digest")
        # the fleet's database knows where each file is (when postgresql-15 is here)
        if os.path.exists(os.path.join(pgserver.BIN, "initdb")):
            with pgserver.PgServer() as pg:
                x = run([COORD, "export", f, "--db", pg.url()])
                check(x.returncode == 0, f"export: {x.stdout} {x.stderr}")
                rows = pg.sql(None, "SELECT kind, sha256, size_bytes, stored FROM "
                              "rackbench.evidence ORDER BY kind")
                want = sorted([e["kind"].decode(), e["sha256"].decode(), str(int(e["bytes"])),
                               os.path.join(os.path.dirname(os.path.realpath(f)),
                                            e["stored"].decode())] for e in ev)
                print("evidence in the database:", rows)
                check(rows == want, f"the database's evidence rows {rows}, want {want}")
        r, f = campaign(tmp, dev, pages, os.path.join(tmp, "out-bad"), "write", "fill")
        check(r.returncode == 6, f"IO errors no verdict judged: exit {r.returncode}, want 6")
        with h5py.File(f, "r") as h:
            ev = h["evidence"][:]
        kept = {x["kind"].decode(): x for x in ev}
        check(sorted(kept) == ["error-log", "event-log", "smart", "telemetry"],
              f"kinds {sorted(kept)}")
        for kind, log in (("telemetry", "log-07"), ("error-log", "log-01"), ("smart", "log-02"),
                          ("event-log", "log-0d")):
            x = kept[kind]
            data = open(x["path"].decode(), "rb").read()
            want = logs[log][:1536] if kind == "event-log" else logs[log]
            check(data == want and int(x["bytes"]) == len(data) and
                  x["sha256"].decode() == hashlib.sha256(data).hexdigest(),
                  f"{kind}: {x['path']} holds what the drive gave, its size and digest")
            check(x["path"].decode().startswith(os.path.join(tmp, "s", "evidence", name + "-")),
                  f"{kind} kept in the agent's state folder: {x['path']}")
            # the coordinator's copy, beside the results file
            stored = x["stored"].decode()
            capture = os.path.basename(os.path.dirname(x["path"].decode()))
            want_rel = os.path.join(os.path.basename(f)[:-3] + ".evidence", "a1", capture,
                                    os.path.basename(x["path"].decode()) + ".gz")
            check(stored == want_rel, f"{kind} stored as {stored!r}, want {want_rel!r}")
            copy = gzip.decompress(open(os.path.join(os.path.dirname(f), stored), "rb").read())
            check(copy == want, f"{kind}: the coordinator's copy holds the drive's bytes")
        # nothing half-written is left beside the results
        left = [os.path.join(d, x) for d, _, xs in os.walk(os.path.join(tmp, "out-bad"))
                for x in xs if x.endswith((".part", ".tmp"))]
        check(not left, f"pieces left: {left}")
        # the vendor's copy outlives the agent's host: its state folder gone
        run(["rm", "-rf", os.path.join(tmp, "s", "evidence")])
        # the drive's history lists what each of its runs kept
        hist = run([COORD, "history", "a1:" + dev, "--results", os.path.join(tmp, "out-bad")])
        check(hist.returncode == 0 and all(f"evidence: {k}" in hist.stdout and
                                           kept[k]["sha256"].decode() in hist.stdout and
                                           "kept beside the results: " +
                                           os.path.join(os.path.dirname(f),
                                                        kept[k]["stored"].decode())
                                           in hist.stdout
                                           for k in kept),
              f"history: {hist.returncode} {hist.stdout} {hist.stderr}")
        rep = run([COORD, "report", f])
        check("evidence kept for the vendor" in rep.stdout and
              all(kept[k]["sha256"].decode() in rep.stdout and
                  "beside the results: " + kept[k]["stored"].decode() in rep.stdout
                  for k in kept),
              f"report: {rep.stdout[:1500]}")
    finally:
        bad.close()
        ok.close()
print("ok")
