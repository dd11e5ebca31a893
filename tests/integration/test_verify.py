# SPDX-License-Identifier: MIT
"""Data verification: a written pass carries headers and checksums; one byte changed
behind the engine's back is reported at exactly its chunk's offset by the verify pass,
in text and JSON, with exit 6. A mixed random run verifying on read finds nothing."""
import json
import os

from rbtest import AGENT, Tmp, check, run

with Tmp() as tmp:
    t = os.path.join(tmp, "d.dat")
    base = [AGENT, "run", "--target", t, "--state-dir", tmp, "--verify", "true"]
    r = run(base + ["--size", "8m", "--rw", "write", "--bs", "64k", "--iodepth", "4",
                    "--passes", "1", "--destructive"])
    check(r.returncode == 0, f"write pass: {r.returncode} {r.stderr}")
    r = run(base + ["--rw", "read", "--bs", "16k", "--passes", "1", "--json"])
    doc = json.loads(r.stdout)
    check(r.returncode == 0 and doc["verify"]["checked"] == (8 << 20) // 512 and
          doc["verify"]["mismatches"] == 0, f"clean verify pass: {r.returncode} {doc['verify']}")
    # one byte of one chunk, changed behind the engine's back
    where = 3 * 1048576 + 1000
    with open(t, "r+b") as f:
        f.seek(where)
        b = f.read(1)
        f.seek(where)
        f.write(bytes([b[0] ^ 0xff]))
    chunk = where - where % 512
    for bs in ("16k", "128k"):
        r = run(base + ["--rw", "read", "--bs", bs, "--passes", "1", "--json"])
        doc = json.loads(r.stdout)
        v = doc["verify"]
        check(r.returncode == 6, f"bs {bs}: exit {r.returncode}, want 6")
        check(v["mismatches"] == 1 and len(v["list"]) == 1, f"bs {bs}: {v}")
        check(v["list"][0]["offset"] == chunk and v["list"][0]["kind"] == "bad_crc",
              f"bs {bs}: reported {v['list'][0]}, want offset {chunk}")
    r = run(base + ["--rw", "read", "--bs", "64k", "--passes", "1"])
    check(f"mismatch at offset {chunk}: checksum mismatch" in r.stdout, f"text: {r.stdout}")
    # a fresh file, mixed random IO verifying on read with 4 jobs at QD8: no false alarm
    t2 = os.path.join(tmp, "m.dat")
    r = run([AGENT, "run", "--target", t2, "--state-dir", tmp, "--verify", "true", "--size", "4m",
             "--rw", "randrw", "--bs", "4k", "--iodepth", "8", "--numjobs", "4", "--runtime", "1s",
             "--destructive", "--json"])
    doc = json.loads(r.stdout)
    check(r.returncode == 0 and doc["verify"]["mismatches"] == 0,
          f"mixed verify: {r.returncode} {doc['verify']}")
    check(doc["verify"]["checked"] > 0, "mixed run read back some written chunks")
print("ok")
