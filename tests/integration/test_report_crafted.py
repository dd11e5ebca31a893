# SPDX-License-Identifier: MIT
"""Crafted results files (tests/integration/badh5.py, made from a real run's file): a
damaged superblock (its SWMR open used to retry for ever), half a file, an attribute as
an array, a table of rank 2, 8 or 0, a null dataspace, integers for rows,
a column of the wrong class, a vlen string column, a billion unstored rows, a newer
schema, strings without a NUL. `rackbench report` gives exit 1 or 2 with a message
naming what is wrong, or reports (exit 0), and never crashes; a newer schema_version
is warned about. The Python helper raises ValueError for what it cannot read (OSError
from h5py for a file that does not open), never another exception."""
import glob
import os
import sys
import warnings

from rbtest import COORD, SRC, Tmp, check, h5, run

import badh5

h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
try:
    import pandas  # noqa: F401
except ImportError:
    from rbtest import fail
    fail("pandas is missing: install python3-pandas")
import rackbench_h5 as rb  # noqa: E402

# what the Python helper must refuse (it does not read the report's attributes)
PY_REFUSES = {"superblock_checksum", "truncated", "results_rank2", "points_rank8", "schema_text", "schema_int", "results_ints",
              "results_null", "points_scalar", "drives_missing", "drives_group",
              "iops_column_array", "steady_rank2", "samples_huge", "hist_bucket_max",
              "hist_past_end", "hist_bins_missing"}

with Tmp() as tmp:
    r = run([COORD, "demo", "--out", tmp])
    check(r.returncode == 0, f"demo: {r.returncode} {r.stderr}")
    src = glob.glob(os.path.join(tmp, "demo-*.h5"))[0]
    for name, change, want in badh5.RAW_CASES + badh5.CASES:
        path = os.path.join(tmp, f"{name}.h5")
        if (name, change, want) in badh5.RAW_CASES:
            badh5.make_raw(src, path, change)
        else:
            badh5.make(h5py, src, path, change)
        r = run([COORD, "report", path], timeout=120)
        print(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        check(r.returncode >= 0, f"{name}: killed by signal {-r.returncode}")
        check("Sanitizer" not in r.stderr, f"{name}: sanitizer report")
        if want == "ok":
            check(r.returncode == 0, f"{name}: exit {r.returncode}, want 0")
        else:
            check(r.returncode in (1, 2), f"{name}: exit {r.returncode}, want 1 or 2")
            check(want in r.stderr, f"{name}: the message does not say '{want}'")
            check(path in r.stderr, f"{name}: the message does not name the file")
        if name == "schema_99":
            check("warning" in r.stderr and "schema_version 99" in r.stderr,
                  "schema 99: no warning")
        if name == "path_without_nul":
            check("p" * 15 in r.stdout, "a string without a NUL: not read back")

        refused = None
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                f = rb.open(path)
                for t in ("drives", "points", "results", "samples", "steady_state"):
                    f.table(t)
                f.units("results")
                f.percentiles(["point"])
                f.h5.close()
            except ValueError as e:
                refused = str(e)
            except OSError as e:  # h5py: the file does not open at all
                refused = f"{path}: {e}"
        print(f"  python: {refused or 'read'}")
        if name in PY_REFUSES:
            check(refused is not None, f"{name}: the Python helper read it")
            check(refused.startswith(path), f"{name}: the Python message does not name the file")
        else:
            check(refused is None, f"{name}: the Python helper refused it: {refused}")
        if name == "schema_99":
            check(any("schema_version 99" in str(x.message) for x in w), "python: no warning")
print("ok")
