# SPDX-License-Identifier: MIT
"""schemas/campaign.schema.json and the C loader hold each other:
- the committed schema is exactly what scripts/gen_campaign_schema.py makes from the
  option table and the campaign key table (so a new option or key without a schema update
  fails here), and so is docs/campaign-keys.md;
- every example in schemas/examples/ validates with jsonschema and loads in C
  (`rackbench plan` exits 0); every one in schemas/examples/invalid/ is rejected by both,
  the C loader with FILE:LINE:COLUMN and exit 2."""
import glob
import json
import os
import subprocess
import sys

from rbtest import COORD, SRC, check, run

try:
    import jsonschema
    import yaml
except ImportError as e:
    from rbtest import fail
    fail(f"{e}: install python3-jsonschema and python3-yaml")

committed = json.load(open(os.path.join(SRC, "schemas", "campaign.schema.json")))
gen = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "gen_campaign_schema.py"), COORD],
                     capture_output=True, text=True)
check(gen.returncode == 0, f"generator: {gen.stderr}")
check(json.loads(gen.stdout) == committed,
      "schemas/campaign.schema.json is stale: run scripts/gen_campaign_schema.py "
      "build/coordinator/rackbench > schemas/campaign.schema.json")
# the reference page is made from the same tables
page = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "gen_campaign_schema.py"),
                       "--markdown", COORD], capture_output=True, text=True)
check(page.returncode == 0, f"generator --markdown: {page.stderr}")
check(page.stdout == open(os.path.join(SRC, "docs", "campaign-keys.md")).read(),
      "docs/campaign-keys.md is stale: run scripts/gen_campaign_schema.py --markdown "
      "build/coordinator/rackbench > docs/campaign-keys.md")
jsonschema.Draft7Validator.check_schema(committed)
validator = jsonschema.Draft7Validator(committed)

good = sorted(glob.glob(os.path.join(SRC, "schemas", "examples", "*.yaml")))
bad = sorted(glob.glob(os.path.join(SRC, "schemas", "examples", "invalid", "*.yaml")))
check(len(good) >= 3 and len(bad) >= 5, "examples present")
for f in good:
    doc = yaml.safe_load(open(f))
    errs = list(validator.iter_errors(doc))
    check(not errs, f"{f}: schema rejects a valid example: {errs[:1]}")
    r = run([COORD, "plan", f])
    check(r.returncode == 0, f"{f}: C loader rejects a valid example: {r.stderr}")
for f in bad:
    try:
        doc = yaml.safe_load(open(f))
        schema_ok = validator.is_valid(doc)
    except yaml.YAMLError:
        schema_ok = False
    check(not schema_ok, f"{f}: the schema accepts an invalid example")
    r = run([COORD, "plan", f])
    check(r.returncode == 2 and r.stderr.startswith(f + ":"),
          f"{f}: C loader: exit {r.returncode}, '{r.stderr.strip()}'")
print(f"ok: {len(good)} valid and {len(bad)} invalid examples agree")
