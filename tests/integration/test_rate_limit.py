# SPDX-License-Identifier: MIT
"""A rate limit on a real target never exceeds its target by more than 1%, and it is the
total across jobs: 4 jobs at --rate_iops 4000 do 4000 IOPS together, not 16000.
(Exactness to the IO is proven with the fake clock in tests/unit/test_engine.c.)
Timing-sensitive: not registered in sanitizer builds (tests/CMakeLists.txt)."""
import json
import os

from rbtest import AGENT, Tmp, check, run

with Tmp() as tmp:
    t = os.path.join(tmp, "d.dat")
    for jobs, rate in (("1", 5000), ("4", 4000)):
        r = run([AGENT, "run", "--target", t, "--state-dir", tmp, "--size", "16m",
                 "--rw", "randread", "--iodepth", "4", "--numjobs", jobs,
                 "--rate_iops", str(rate), "--runtime", "2s", "--json"])
        check(r.returncode == 0, f"exit {r.returncode} {r.stderr}")
        doc = json.loads(r.stdout)
        ios, iops = doc["read"]["ios"], doc["read"]["iops"]
        print(f"{jobs} job(s) at {rate} IOPS: {ios} IOs, {iops:.1f} IOPS")
        check(ios <= rate * 2 * 1.01, f"{ios} IOs exceed {rate} x 2 s by more than 1%")
        check(iops <= rate * 1.01, f"{iops:.1f} IOPS over the {rate} target by more than 1%")
        # no lower bound: a loaded machine may fall short, which is not the limiter's doing
        check(ios > 0, "the run did IO")
print("ok")
