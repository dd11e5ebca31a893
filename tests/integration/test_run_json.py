# SPDX-License-Identifier: MIT
"""rackbench-agent run --json prints the document schemas/run-output.schema.json describes;
text and --help are checked against the option table's keys."""
import json
import os

from rbtest import AGENT, SRC, Tmp, check, run

try:
    import jsonschema
except ImportError:
    jsonschema = None
    from rbtest import fail
    fail("python3-jsonschema is missing (apt-get install python3-jsonschema)")

schema = json.load(open(os.path.join(SRC, "schemas", "run-output.schema.json")))
with Tmp() as tmp:
    t = os.path.join(tmp, "d.dat")
    r = run([AGENT, "run", "--target", t, "--size", "8m", "--rw", "randrw", "--rwmixread", "75",
             "--iodepth", "4", "--runtime", "500ms", "--destructive", "--state-dir", tmp, "--json"])
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema)
    check(doc["read"]["ios"] > 0 and doc["write"]["ios"] > 0, "both directions ran")
    lat = doc["read"]["lat_ns"]
    check(lat["min"] <= lat["p50"] <= lat["p99"] <= lat["p99_99"], "percentiles ordered")
    check(lat["max"] >= lat["min"] > 0, "min/max")
    check(doc["settings"]["rwmixread"] == "75" and doc["settings"]["bs"] == "4k", "settings")
    check(doc["errors"] == [] and doc["exit_code"] == 0, "no errors")
    check(len(doc["targets"]) == 1, "per-target documents")
    ratio = doc["read"]["ios"] / (doc["read"]["ios"] + doc["write"]["ios"])
    check(0.7 < ratio < 0.8, f"read share {ratio} for rwmixread 75")
    # io_uring options: SQPOLL, batches and pinning are used and recorded
    r = run([AGENT, "run", "--target", t, "--state-dir", tmp, "--rw", "randread", "--iodepth", "8",
             "--numjobs", "2", "--runtime", "300ms", "--sqpoll", "true", "--submit_batch", "4",
             "--complete_batch", "2", "--cpus", "0", "--json"])
    check(r.returncode == 0, f"sqpoll: exit {r.returncode}: {r.stderr}")
    doc = json.loads(r.stdout)
    check("sqpoll" in doc["uring_features"] and "cpu0" in doc["uring_features"],
          f"features {doc['uring_features']}")
    check(doc["read"]["ios"] > 0, "sqpoll run did IO")
    r = run([AGENT, "run", "--target", t, "--cpus", "7-2"])
    check(r.returncode == 2 and "'cpus' must be a CPU list" in r.stderr, "bad cpu list")
    # trim punches holes; it needs the run's key like a write
    r = run([AGENT, "run", "--target", t, "--rw", "trim", "--bs", "1m", "--passes", "1",
             "--state-dir", tmp, "--json"])
    check(r.returncode == 3, f"trim without --destructive: exit {r.returncode}")
    blocks = os.stat(t).st_blocks
    r = run([AGENT, "run", "--target", t, "--rw", "trim", "--bs", "1m", "--passes", "1",
             "--destructive", "--state-dir", tmp, "--json"])
    check(r.returncode == 0, f"trim: exit {r.returncode}: {r.stderr}")
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema)
    check(doc["trim"]["ios"] == 8 and doc["trim"]["bytes"] == 8 << 20, f"trim counts {doc['trim']}")
    check(doc["read"]["ios"] == 0 and doc["write"]["ios"] == 0, "a trim run neither reads nor writes")
    check(os.stat(t).st_blocks < blocks, "trim freed the file's blocks")
    # null engine: no target needed
    r = run([AGENT, "run", "--engine", "null", "--size", "1g", "--runtime", "200ms", "--json"])
    check(r.returncode == 0, f"null: exit {r.returncode}: {r.stderr}")
    jsonschema.validate(json.loads(r.stdout), schema)
    # bad arguments: exit 2 with a message naming the flag
    for args, text in ((["--bs", "4q"], "'bs' must be a size"),
                       (["--iodepth", "0"], "'iodepth' is out of range"),
                       (["--colour", "blue"], "unknown option '--colour'"),
                       (["--rw"], "'--rw' needs a value")):
        r = run([AGENT, "run", "--target", t] + args)
        check(r.returncode == 2 and text in r.stderr, f"{args}: exit {r.returncode} {r.stderr}")
    # --help documents every option of the table
    r = run([AGENT, "run", "--help"])
    check(r.returncode == 0, "help")
    for key in doc["settings"]:
        flag = "--" + key.replace("_", "-")
        check(f"{flag} " in r.stdout, f"--help lacks {flag}")
print("ok")
