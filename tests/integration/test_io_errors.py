# SPDX-License-Identifier: MIT
"""IO errors and latency against a known answer: a loop device over a faultfs (FUSE) file.

1. Reads of [1 MiB, 2 MiB) fail with EIO and every other read waits 1 ms: the failures
   are reported with offset 1048576 in text and JSON, the run exits 6 (0 with
   --errors-ok), and the histogram holds only the successful IOs.
2. Every read waits 1 ms: at QD1 rackbench's p50 is within 10% of fio's on the same
   device, and both are above the 1 ms the filesystem adds.
"""
import json
import shutil

from rbtest import AGENT, Faulty, Tmp, check, need_faultfs, run, skip

need_faultfs()


with Tmp() as tmp:
    f = Faulty(tmp, "errors", "--size=8m", "--fail-start=1048576", "--fail-end=2097152",
               "--delay-us=1000", "--delay-every=2")
    try:
        base = [AGENT, "run", "--target", f.dev, "--rw", "read", "--bs", "64k", "--size", "4m",
                "--runtime", "1s"]
        r = run(base)
        print(r.stdout, r.stderr)
        check(r.returncode == 6, f"exit {r.returncode}, want 6 for IO errors")
        check("error read at offset 1048576 (65536 bytes)" in r.stdout, "text names offset 1048576")
        check("Input/output error" in r.stdout, "text names the error")
        r = run(base + ["--json"])
        check(r.returncode == 6, f"--json: exit {r.returncode}")
        doc = json.loads(r.stdout)
        errs = doc["errors"]
        check(any(e["offset"] == 1048576 and e["errno"] == 5 and e["direction"] == "read"
                  for e in errs), f"JSON errors lack offset 1048576: {errs[:3]}")
        check(all(1048576 <= e["offset"] < 2097152 for e in errs), "only the failing range fails")
        rd = doc["read"]
        check(rd["errors"] == sum(e["count"] for e in errs), "error counts add up")
        check(rd["errors"] > 0 and rd["ios"] > 0, "both failures and successes")
        check(rd["hist_ios"] == rd["ios"], f"histogram {rd['hist_ios']} != successful IOs {rd['ios']}")
        # the 16 failing blocks of each pass, against 48 good ones: failures are not IOs
        passes = rd["errors"] / 16
        check(abs(rd["ios"] / passes - 48) <= 48 * 0.1 + 1, f"{rd['ios']} good IOs for {passes} passes")
        r = run(base + ["--errors-ok"])
        check(r.returncode == 0, f"--errors-ok: exit {r.returncode}")
    finally:
        f.close()

    if not shutil.which("fio"):
        skip("fio is missing (apt-get install fio)")
    f = Faulty(tmp, "slow", "--size=8m", "--delay-us=1000", "--delay-every=1")
    try:
        r = run([AGENT, "run", "--target", f.dev, "--rw", "randread", "--bs", "4k",
                 "--iodepth", "1", "--runtime", "2s", "--json"])
        check(r.returncode == 0, f"slow device: exit {r.returncode} {r.stderr}")
        rb_p50 = json.loads(r.stdout)["read"]["lat_ns"]["p50"]
        r = run(["fio", "--name=x", f"--filename={f.dev}", "--rw=randread", "--bs=4k",
                 "--iodepth=1", "--ioengine=io_uring", "--direct=1", "--runtime=2", "--time_based",
                 "--lat_percentiles=1", "--output-format=json"])
        fio_p50 = json.loads(r.stdout[r.stdout.index("{"):])["jobs"][0]["read"]["lat_ns"]["percentile"]["50.000000"]
        print(f"p50 at QD1 with 1 ms added: rackbench {rb_p50} ns, fio {fio_p50} ns")
        check(rb_p50 > 1000000 and fio_p50 > 1000000, "both see the 1 ms delay")
        check(abs(rb_p50 / fio_p50 - 1) <= 0.10, f"p50 differs by {rb_p50 / fio_p50 - 1:.1%}")
    finally:
        f.close()
print("ok")
