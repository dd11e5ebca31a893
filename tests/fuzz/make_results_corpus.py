# SPDX-License-Identifier: MIT
"""Makes the seed corpus of fuzz_results from a real results file (rackbench demo --out
DIR makes one): the file trimmed to one drive's first points (same layout, chunking and
compression as the writer's), every crafted case of tests/integration/badh5.py made from
it, and edit-mode inputs that rebuild the three shapes that crashed the report. Each
seed is a mode byte (tests/fuzz/fuzz_results.c) and its payload.

    /usr/bin/python3 tests/fuzz/make_results_corpus.py RESULTS.h5 tests/fuzz/corpus/fuzz_results
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import badh5  # noqa: E402

TABLES = ("agents", "drives", "points", "results", "samples", "hist_bins", "bs_counts",
          "health", "steady_state", "members")


def trim(src, dst, points=1):
    """src with the rows of its first drive and first points only."""
    with h5py.File(src, "r") as s, h5py.File(dst, "w", libver=("v110", "v110")) as d:
        for k, v in s.attrs.items():
            d.attrs[k] = v
        d.create_dataset("campaign", data=s["campaign"][()])
        d0 = int(s["drives"][0]["drive"])
        for name in TABLES:
            t = s[name][:]
            if "drive" in t.dtype.names:
                t = t[t["drive"] == d0]
            if "point" in t.dtype.names:
                t = t[t["point"] < points]
            if name == "agents":
                t = t[:1]
            chunk = s[name].chunks[0] if s[name].chunks else 64
            x = d.create_dataset(name, data=t, maxshape=(None,), chunks=(chunk,),
                                 shuffle=True, compression="gzip", compression_opts=1)
            for k, v in s[name].attrs.items():
                x.attrs[k] = v


def put(folder, name, mode, payload):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(bytes([mode]) + payload)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    small = os.path.join(out, "real.tmp")
    trim(src, small)
    with open(small, "rb") as f:
        put(out, "real", 0, f.read())
    for name, change, _ in badh5.CASES:
        tmp = os.path.join(out, name + ".tmp")
        badh5.make(h5py, small, tmp, change)
        with open(tmp, "rb") as f:
            put(out, name, 0, f.read())
        os.unlink(tmp)
    os.unlink(small)
    # edit mode (odd mode byte): pairs (op, which) then the op's bytes; which odd: an
    # attribute, (which >> 1) % 4 of schema_version, methodology, campaign_name, status;
    # even: a table, (which >> 1) % 8 of drives, points, results, samples, hist_bins,
    # steady_state, members, agents
    put(out, "edit-methodology-array", 1, bytes([1, 3, 1, 4, 3]))   # B13: 4 vlen strings
    put(out, "edit-results-rank2", 1, bytes([1, 4, 2, 4, 3]))       # B14: rank 2, 4 x 3
    put(out, "edit-points-rank8", 1, bytes([1, 2, 8, 2, 1, 1, 1, 1, 1, 1, 2]))  # B15
    put(out, "edit-schema-99", 1, bytes([1, 1, 0, 2, 2]) + b"99")   # a fixed string "99"
    put(out, "edit-rows", 1, bytes([5, 8, 16]) + np.arange(64, dtype=np.uint32).tobytes())
    put(out, "edit-huge", 1, bytes([4, 6]) + (10**12).to_bytes(8, "big") + bytes([0]))
    put(out, "edit-column", 1, bytes([3, 4, 3, 3, 4]))             # results: a vlen column


main()
