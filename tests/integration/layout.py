# SPDX-License-Identifier: MIT
"""Compares an HDF5 results file with schemas/results-layout.md."""
import json
import os
import re

import numpy as np

DOC = os.path.join(os.environ.get("RB_SRC", "."), "schemas", "results-layout.md")
TYPES = {"u8": np.dtype("u1"), "u32": np.dtype("<u4"), "u64": np.dtype("<u8"),
         "i64": np.dtype("<i8"), "f64": np.dtype("<f8")}


def parse(path):
    """Returns ({table: [(column, type, unit)]}, [root attribute names], schema version).
    An attribute whose meaning says "absent when" is optional: its name ends in '?'."""
    tables, attrs, cur, section = {}, [], None, None
    version = None
    with open(path) as f:
        for line in f:
            m = re.match(r"\*\*Schema version: (\d+)\*\*", line)
            if m:
                version = m.group(1)
            if line.startswith("## Root attributes"):
                section = "attrs"
                continue
            if line.startswith("## "):  # another part of the document: no table's columns
                section = None
                continue
            m = re.match(r"### `(\w+)`", line)
            if m:
                section, cur = "table", m.group(1)
                continue
            if not line.startswith("|") or line.startswith("|---"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] in ("column", "attribute"):
                continue
            if section == "attrs":
                attrs.append(cells[0] + ("?" if "absent when" in cells[-1] else ""))
            elif section == "table":
                tables.setdefault(cur, []).append((cells[0], cells[1], cells[2]))
    return tables, attrs, version


def check_file(f, doc=None):
    """Returns a list of differences between the open h5py file f and the document."""
    doc = doc or DOC
    tables, attrs, version = parse(doc)
    diffs = []
    if version != f.attrs.get("schema_version"):
        diffs.append(f"schema_version {f.attrs.get('schema_version')} != document {version}")
    for a in attrs:
        if not a.endswith("?") and a not in f.attrs:
            diffs.append(f"root attribute '{a}' missing")
    for a in f.attrs:
        if a not in attrs and a + "?" not in attrs:
            diffs.append(f"root attribute '{a}' not documented")
    names = set(tables) | {"campaign"}
    for k in f.keys():
        if k not in names:
            diffs.append(f"dataset '{k}' not documented")
    for name, cols in tables.items():
        if name not in f:
            diffs.append(f"dataset '{name}' missing")
            continue
        ds = f[name]
        dt = ds.dtype
        if list(dt.names) != [c[0] for c in cols]:
            diffs.append(f"{name}: columns {list(dt.names)} != document {[c[0] for c in cols]}")
            continue
        units = json.loads(ds.attrs["units"])
        for col, typ, unit in cols:
            got = dt.fields[col][0]
            m = re.match(r"str\[(\d+)\]", typ)
            if m:
                ok = got.kind == "S" and got.itemsize == int(m.group(1))
            else:
                ok = got == TYPES[typ]
            if not ok:
                diffs.append(f"{name}.{col}: type {got} != document {typ}")
            if units.get(col) != unit:
                diffs.append(f"{name}.{col}: unit '{units.get(col)}' != document '{unit}'")
    return diffs


def hist_rows(f):
    """Every stored histogram bucket with its sample's key, as one structured array
    (drive, point, attempt, interval, direction, bucket, count): schema 8's samples over
    hist_bins, or an older file's histograms table as it is."""
    if "hist_bins" not in f:
        return f["histograms"][:]
    s, b = f["samples"][:], f["hist_bins"][:]
    return expand(s, b)


def bin_positions(s):
    """The hist_bins rows of each sample of s, in order, and each one's sample row."""
    n = s["hist_n"].astype(np.int64)
    start = np.cumsum(n) - n
    owner = np.repeat(np.arange(len(s)), n)
    return np.repeat(s["hist_first"].astype(np.int64) - start, n) + np.arange(int(n.sum())), owner


def expand(s, b):
    pos, owner = bin_positions(s)
    keys = ("drive", "point", "attempt", "interval", "direction")
    h = np.zeros(len(pos), dtype=[(k, s.dtype[k]) for k in keys] +
                 [("bucket", b.dtype["bucket"]), ("count", np.uint64)])
    for k in keys:
        h[k] = s[k][owner]
    h["bucket"] = b["bucket"][pos]
    h["count"] = b["count"][pos]
    return h
