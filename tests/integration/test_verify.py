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

# striping: three files as one volume in 128k units. Verified through the volume it is
# clean; read member by member, the headers name volume offsets: only member 0's first
# unit sits at the same offset in both, every other chunk is "wrong_offset".
with Tmp() as tmp:
    members = [os.path.join(tmp, n) for n in ("a", "b", "c")]
    vol = sum((["--target", m] for m in members), [])
    r = run([AGENT, "run"] + vol + ["--state-dir", tmp, "--size", "8m", "--stripe", "128k",
                                    "--rw", "write", "--bs", "64k", "--passes", "1", "--verify",
                                    "true", "--destructive", "--json"])
    doc = json.loads(r.stdout)
    check(r.returncode == 0 and len(doc["targets"]) == 1 and doc["target"].startswith("stripe("),
          f"striped write: {r.returncode} {doc.get('target')}")
    check(doc["write"]["bytes"] == 3 * (8 << 20), f"one pass over the 24 MiB volume: {doc['write']['bytes']}")
    r = run([AGENT, "run"] + vol + ["--state-dir", tmp, "--stripe", "128k", "--rw", "randread",
                                    "--bs", "16k", "--runtime", "500ms", "--verify", "true", "--json"])
    v = json.loads(r.stdout)["verify"]
    check(r.returncode == 0 and v["checked"] > 0 and v["mismatches"] == 0, f"striped verify: {v}")
    r = run([AGENT, "run", "--target", members[0], "--state-dir", tmp, "--rw", "read", "--bs", "128k",
             "--passes", "1", "--verify", "true", "--json"])
    v = json.loads(r.stdout)["verify"]
    check(v["checked"] == (8 << 20) // 512 and v["mismatches"] == v["checked"] - 256,
          f"member 0 alone: {v['checked']} checked, {v['mismatches']} mismatches")
    check(all(m["kind"] == "wrong_offset" for m in v["list"]), "member read: misdirected, not corrupt")
print("ok (stripe)")
