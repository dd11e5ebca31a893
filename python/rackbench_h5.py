# SPDX-License-Identifier: MIT
"""Read rackbench results files with h5py and pandas (Debian: python3-h5py python3-pandas;
run with /usr/bin/python3).

    import rackbench_h5 as rb
    f = rb.open("demo-20261130T050158Z.h5")
    res = f.table("results")                 # a DataFrame, strings decoded
    f.percentiles(["point"], [50, 99])       # fleet percentiles per point, from merged histograms

Percentiles are recomputed from the stored histograms with exactly the C code's rule
(common/hist.h): merge by adding counts, never average percentiles.
"""
import json
import math

import h5py
import numpy as np
import pandas as pd

SUB_BITS = 7
SUB = 1 << SUB_BITS
MAX_POW = 42
BUCKETS = SUB + (MAX_POW - SUB_BITS + 1) * SUB
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}


def bucket_lower(i):
    """Lowest latency (ns) bucket i holds."""
    if i < SUB:
        return i
    g, s = divmod(i - SUB, SUB)
    return (SUB + s) << g


def bucket_upper(i):
    """One past the highest latency bucket i holds."""
    if i < SUB:
        return i + 1
    return bucket_lower(i) + (1 << ((i - SUB) // SUB))


def bucket_value(i):
    """The value bucket i reports: its midpoint, exact for width-1 buckets."""
    lo, hi = bucket_lower(i), bucket_upper(i)
    return lo + (hi - 1 - lo) // 2


def bucket_index(v):
    """Bucket of a latency in ns."""
    if v < SUB:
        return int(v)
    m = int(v).bit_length() - 1
    if m > MAX_POW:
        return BUCKETS - 1
    return SUB + (m - SUB_BITS) * SUB + ((int(v) >> (m - SUB_BITS)) - SUB)


def percentile(counts, p):
    """Value at percentile p (0 < p <= 100) of a dense count array, as the C code does:
    the reported value of the bucket holding the value of rank ceil(p/100 * total)."""
    counts = np.asarray(counts, dtype=np.uint64)
    total = int(counts.sum())
    if total == 0:
        return 0
    rank = math.ceil(p / 100.0 * total)
    rank = min(max(rank, 1), total)
    i = int(np.searchsorted(np.cumsum(counts, dtype=np.uint64), rank))
    return bucket_value(i)


def _decode(df):
    for c in df.columns:
        if df[c].dtype == object and len(df) and isinstance(df[c].iloc[0], bytes):
            df[c] = df[c].str.decode("utf-8")
    return df


class Results:
    def __init__(self, path):
        self.h5 = h5py.File(path, "r")
        a = self.h5.attrs
        if int(a["hist_buckets"]) != BUCKETS or int(a["hist_sub_bucket_bits"]) != SUB_BITS:
            raise ValueError(f"{path}: histogram layout differs from this module's")

    def tables(self):
        return [k for k in self.h5 if isinstance(self.h5[k], h5py.Dataset) and self.h5[k].dtype.names]

    def table(self, name):
        """A table as a DataFrame, fixed-length strings decoded."""
        return _decode(pd.DataFrame(self.h5[name][:]))

    def units(self, name):
        return json.loads(self.h5[name].attrs["units"])

    def histogram(self, **where):
        """Dense counts of every histogram row matching where (drive=, point=, attempt=,
        interval=, direction=), merged by adding."""
        h = self.h5["histograms"][:]
        m = np.ones(len(h), dtype=bool)
        for k, v in where.items():
            m &= h[k] == v
        counts = np.zeros(BUCKETS, dtype=np.uint64)
        np.add.at(counts, h["bucket"][m].astype(np.int64), h["count"][m])
        return counts

    def percentiles(self, by, ps=(50, 90, 99, 99.9)):
        """Percentiles of the merged histograms of each group of `by` columns of the
        histograms table (e.g. ["point"], ["drive", "point", "direction"])."""
        h = pd.DataFrame(self.h5["histograms"][:])
        rows = []
        for key, g in h.groupby(list(by)):
            counts = np.zeros(BUCKETS, dtype=np.uint64)
            np.add.at(counts, g["bucket"].to_numpy().astype(np.int64), g["count"].to_numpy())
            key = key if isinstance(key, tuple) else (key,)
            row = dict(zip(by, key))
            row["ios"] = int(counts.sum())
            for p in ps:
                row[f"p{p}".replace(".", "_")] = percentile(counts, p)
            rows.append(row)
        return pd.DataFrame(rows)


def open(path):  # noqa: A001 - the module's entry point reads like h5py.File
    return Results(path)
