# SPDX-License-Identifier: MIT
"""A campaign key is one row of the key table (coordinator/campaign/campaign_keys.c). A build of the
table with one row more (test_folder, RB_CKEY_TEST_ROW; tests/tools/campaign_key_row.c)
and nothing else changed: its loader takes the key and stores it, its unknown-key error
lists it, the schema generator gives it a property with the row's help, and the generated
reference page has its line; today's coordinator refuses it, naming the keys it knows."""
import json
import os
import subprocess
import sys

from rbtest import COORD, SRC, Tmp, check, run

ROW = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "campaign_key_row")
GEN = os.path.join(SRC, "scripts", "gen_campaign_schema.py")

BASE = """name: row
insecure: true
targets:
  - agent: a1
    drives: [/dev/x]
phases:
  - name: p
    workload: {rw: randread, bs: 4k, runtime: 1s}
"""

with Tmp() as tmp:
    good = os.path.join(tmp, "good.yaml")
    with open(good, "w") as f:
        f.write(BASE + "test_folder: /srv/results-x\n")
    r = run([ROW, "load", good])
    check(r.returncode == 0 and r.stdout.strip() == "results /srv/results-x",
          f"the test build stores the key: {r.returncode} {r.stdout} {r.stderr}")
    # today's coordinator has no such row: refused, with the keys it knows
    r = run([COORD, "plan", good])
    check(r.returncode == 2 and "unknown key 'test_folder'" in r.stderr,
          f"today's loader refuses the key: {r.returncode} {r.stderr}")
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write(BASE + "frobnicate: 1\n")
    r = run([ROW, "load", bad])
    check(r.returncode == 2 and "known:" in r.stderr and "test_folder" in r.stderr,
          f"the error lists the new key: {r.stderr}")
    check("test_folder" not in run([COORD, "plan", bad]).stderr, "and only the test build's")

    schema = subprocess.run([sys.executable, GEN, ROW], capture_output=True, text=True)
    check(schema.returncode == 0, f"schema from the test build: {schema.stderr}")
    prop = json.loads(schema.stdout)["properties"].get("test_folder")
    check(prop is not None and prop.get("type") == "string" and
          prop.get("description") == "a test build's key: the results folder",
          f"the schema has the key from its row: {prop}")
    page = subprocess.run([sys.executable, GEN, "--markdown", ROW], capture_output=True,
                          text=True)
    check(page.returncode == 0 and
          "| `test_folder` | string | - | a test build's key: the results folder |" in page.stdout,
          "the reference page has the key's line")
print("ok: one table row makes a key known to the loader, its errors, the schema and the page")
