# SPDX-License-Identifier: MIT
"""Read rackbench results files with h5py and pandas (Debian: python3-h5py python3-pandas;
run with /usr/bin/python3).

    import rackbench_h5 as rb
    f = rb.open("demo-20261130T050158Z.h5")
    res = f.table("results")                 # a DataFrame, strings decoded
    f.percentiles(["point"], [50, 99])       # fleet percentiles per point, from merged histograms

Percentiles are recomputed from the stored histograms with exactly the C code's rule
(common/hist.h): merge by adding counts, never average percentiles.

Like `rackbench report`, the module reads only what it checked: every attribute it uses is
one value of the expected kind, every table a rank-1 dataset of compound rows. A file that
is not raises ValueError naming what is wrong; a newer schema_version is warned about.
"""
import json
import math
import warnings

import h5py
import numpy as np
import pandas as pd

SUB_BITS = 7
SUB = 1 << SUB_BITS
MAX_POW = 42
BUCKETS = SUB + (MAX_POW - SUB_BITS + 1) * SUB
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
SCHEMA_VERSION = 8  # coordinator/results.h RB_RESULTS_SCHEMA_VERSION
READ_LIMIT_BYTES = 4 << 30  # the most one table may take in memory, as rackbench report


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


def _scalar(h5, path, name, kind):
    """Root attribute name as one value of kind (str or int); ValueError otherwise."""
    if name not in h5.attrs:
        raise ValueError(f"{path}: no attribute '{name}': not a rackbench results file")
    v = h5.attrs[name]
    if isinstance(v, np.ndarray):
        raise ValueError(f"{path}: attribute '{name}' is an array of shape {v.shape}, "
                         "not one value")
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if kind is str and not isinstance(v, str):
        raise ValueError(f"{path}: attribute '{name}' is {type(v).__name__}, not a string")
    if kind is int:
        if not isinstance(v, (int, np.integer)):
            raise ValueError(f"{path}: attribute '{name}' is {type(v).__name__}, "
                             "not an integer")
        v = int(v)
    return v


class Results:
    def __init__(self, path):
        self.path = path
        self.h5 = h5py.File(path, "r")
        try:
            self._check()
        except Exception:
            self.h5.close()
            raise

    def _check(self):
        path = self.path
        ver = _scalar(self.h5, path, "schema_version", str)
        if not ver.isdigit():
            raise ValueError(f"{path}: schema_version is '{ver[:32]}', not a version number")
        self.schema = int(ver)
        if self.schema > SCHEMA_VERSION:
            warnings.warn(f"{path}: schema_version {self.schema} is newer than this module "
                          f"reads ({SCHEMA_VERSION}): what it added is not shown")
        if (_scalar(self.h5, path, "hist_buckets", int) != BUCKETS or
                _scalar(self.h5, path, "hist_sub_bucket_bits", int) != SUB_BITS):
            raise ValueError(f"{path}: histogram layout differs from this module's")

    def _dataset(self, name):
        """Table name, checked: a rank-1 dataset of compound rows."""
        if name not in self.h5:
            raise ValueError(f"{self.path}: no table '{name}'")
        d = self.h5[name]
        if not isinstance(d, h5py.Dataset):
            raise ValueError(f"{self.path}: '{name}' is not a table (a dataset)")
        if d.shape is None or len(d.shape) != 1:
            shape = "empty" if d.shape is None else f"of shape {d.shape}"
            raise ValueError(f"{self.path}: table '{name}' is {shape}, not a list of rows")
        if not d.dtype.names:
            raise ValueError(f"{self.path}: table '{name}' holds {d.dtype}, not rows of columns")
        for col in d.dtype.names:
            if d.dtype[col].shape or d.dtype[col].names:
                raise ValueError(f"{self.path}: column '{col}' of table '{name}' holds "
                                 f"{d.dtype[col]}, not one value per row")
        if d.shape[0] * d.dtype.itemsize > READ_LIMIT_BYTES:
            raise ValueError(f"{self.path}: table '{name}' has {d.shape[0]} rows, more than "
                             f"{READ_LIMIT_BYTES >> 20} MiB in memory")
        return d

    def tables(self):
        return [k for k in self.h5 if isinstance(self.h5[k], h5py.Dataset) and self.h5[k].dtype.names]

    def table(self, name):
        """A table as a DataFrame, fixed-length strings decoded."""
        return _decode(pd.DataFrame(self._dataset(name)[:]))

    def _integers(self, name, t, cols):
        for col in cols:
            if col not in t.dtype.names or t.dtype[col].kind not in "iu":
                raise ValueError(f"{self.path}: table '{name}' has no integer '{col}'")

    def _hist_rows(self):
        """Every non-zero bucket with its sample's key (drive, point, attempt, interval,
        direction, bucket, count): schema 8's samples over hist_bins, or an older file's
        histograms table."""
        if "hist_bins" not in self.h5 and self.schema < 8:
            h = self._dataset("histograms")[:]
            name = "histograms"
        else:
            s = self._dataset("samples")[:]
            b = self._dataset("hist_bins")[:]
            name = "hist_bins"
            self._integers("samples", s, ("hist_first", "hist_n"))
            first = s["hist_first"].astype(np.int64)
            n = s["hist_n"].astype(np.int64)
            if len(s) and (first.min() < 0 or (first + n).max() > len(b)):
                raise ValueError(f"{self.path}: a sample's histogram is past the end of "
                                 "table 'hist_bins'")
            if n.sum() * 40 > READ_LIMIT_BYTES:
                raise ValueError(f"{self.path}: the samples' histograms hold more than "
                                 f"{READ_LIMIT_BYTES >> 20} MiB in memory")
            # each bucket row's position in hist_bins, and its sample's row
            owner = np.repeat(np.arange(len(s)), n)
            pos = np.repeat(first - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
            keys = ("drive", "point", "attempt", "interval", "direction")
            h = np.zeros(len(pos), dtype=[(k, s.dtype[k]) for k in keys] +
                         [("bucket", b.dtype["bucket"]), ("count", np.uint64)])
            for k in keys:
                h[k] = s[k][owner]
            h["bucket"] = b["bucket"][pos]
            h["count"] = b["count"][pos]
        self._integers(name, h, ("bucket", "count"))
        if len(h) and (int(h["bucket"].max()) >= BUCKETS or int(h["bucket"].min()) < 0):
            raise ValueError(f"{self.path}: table '{name}' has a bucket outside "
                             f"0..{BUCKETS - 1}")
        return h

    def buckets(self):
        """Every stored histogram bucket with its sample's key, as a DataFrame (drive,
        point, attempt, interval, direction, bucket, count), whatever the schema."""
        return pd.DataFrame(self._hist_rows())

    def units(self, name):
        d = self._dataset(name)
        u = d.attrs.get("units")
        if not isinstance(u, (str, bytes)):
            raise ValueError(f"{self.path}: table '{name}' has no 'units' string")
        u = json.loads(u)
        if not isinstance(u, dict):
            raise ValueError(f"{self.path}: the 'units' of table '{name}' are not a mapping")
        return u

    def histogram(self, **where):
        """Dense counts of every histogram row matching where (drive=, point=, attempt=,
        interval=, direction=), merged by adding."""
        h = self._hist_rows()
        m = np.ones(len(h), dtype=bool)
        for k, v in where.items():
            m &= h[k] == v
        counts = np.zeros(BUCKETS, dtype=np.uint64)
        np.add.at(counts, h["bucket"][m].astype(np.int64), h["count"][m])
        return counts

    def percentiles(self, by, ps=(50, 90, 99, 99.9)):
        """Percentiles of the merged histograms of each group of `by` columns of the
        histograms table (e.g. ["point"], ["drive", "point", "direction"])."""
        h = pd.DataFrame(self._hist_rows())
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
