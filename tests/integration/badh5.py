# SPDX-License-Identifier: MIT
"""Crafted results files, made from a real one with h5py: each case changes one thing a
reader might trust (an attribute's shape or type, a table's rank, type class, columns
or row count). Used by test_report_crafted.py and to make the fuzz_results seed corpus.
Run with /usr/bin/python3 (h5py).

Each case is (name, change, want): want is "ok" when the file must still report (exit 0),
else the text the refusal must contain (exit 1 or 2)."""
import shutil

import numpy as np


def _replace(f, name, data):
    attrs = dict(f[name].attrs)
    del f[name]
    f[name] = data
    for k, v in attrs.items():
        f[name].attrs[k] = v


def _retype_column(f, table, column, dtype):
    old = f[table][:]
    descr = [(n, dtype if n == column else old.dtype[n]) for n in old.dtype.names]
    new = np.zeros(old.shape, dtype=descr)
    for n in old.dtype.names:
        if n != column:
            new[n] = old[n]
        elif new.dtype[n] == object:
            new[n] = ["/dev/x"] * len(new)
    _replace(f, table, new)


def _methodology_array(h5py, f):
    f.attrs["methodology"] = np.array(["x" * 8] * 256, dtype=h5py.string_dtype())


def _results_rank2(h5py, f):
    _replace(f, "results", np.tile(f["results"][:1], (4, 8)))


def _points_rank8(h5py, f):
    _replace(f, "points", f["points"][:1].repeat(2).reshape((2, 1, 1, 1, 1, 1, 1, 1)))


def _schema_99(h5py, f):
    f.attrs["schema_version"] = "99"


def _schema_text(h5py, f):
    f.attrs["schema_version"] = "six"


def _schema_int(h5py, f):
    f.attrs["schema_version"] = np.int64(6)


def _status_int(h5py, f):
    f.attrs["status"] = np.int32(1)


def _campaign_name_fixed(h5py, f):
    f.attrs["campaign_name"] = np.bytes_(b"fixed-length-name")


def _results_ints(h5py, f):
    _replace(f, "results", np.arange(16, dtype=np.int64))


def _results_null(h5py, f):
    _replace(f, "results", h5py.Empty(f["results"].dtype))


def _results_zero_rows(h5py, f):
    _replace(f, "results", f["results"][:0])


def _points_scalar(h5py, f):
    _replace(f, "points", f["points"][0])


def _drives_missing(h5py, f):
    del f["drives"]


def _drives_group(h5py, f):
    del f["drives"]
    f.create_group("drives")


def _status_column_int(h5py, f):
    _retype_column(f, "results", "status", np.int32)


def _path_column_vlen(h5py, f):
    _retype_column(f, "drives", "path", h5py.string_dtype())


def _iops_column_array(h5py, f):
    _retype_column(f, "results", "read_iops", (np.float64, (3,)))


def _path_without_nul(h5py, f):
    d = f["drives"][:]
    t = np.dtype([(n, "S1024" if n == "path" else d.dtype[n]) for n in d.dtype.names])
    new = np.zeros(d.shape, dtype=t)
    for n in d.dtype.names:
        new[n] = d[n]
    new["path"] = b"p" * 1024
    _replace(f, "drives", new)


def _steady_rank2(h5py, f):
    st = f["steady_state"]
    _replace(f, "steady_state", np.zeros((2, 2), dtype=st.dtype))


def _samples_huge(h5py, f):
    dt = f["samples"].dtype
    del f["samples"]
    # 10^9 rows, none stored: chunked, so the file stays small
    f.create_dataset("samples", shape=(10**9,), dtype=dt, chunks=(1024,))


def _hist_bucket_max(h5py, f):
    h = f["hist_bins"][:]
    h["bucket"][:] = 2**32 - 1
    _replace(f, "hist_bins", h)


def _hist_bins_missing(h5py, f):
    del f["hist_bins"]


def _hist_past_end(h5py, f):
    s = f["samples"][:]
    s["hist_first"][-1] = len(f["hist_bins"])
    s["hist_n"][-1] = 1
    _replace(f, "samples", s)


def _no_columns_of_ours(h5py, f):
    _replace(f, "results", np.zeros(4, dtype=[("other", np.int32)]))


CASES = [
    ("methodology_array", _methodology_array, "attribute 'methodology' is a list of 256"),
    ("results_rank2", _results_rank2, "table 'results' is of rank 2 (4 x 8)"),
    ("points_rank8", _points_rank8, "table 'points' is of rank 8"),
    ("schema_99", _schema_99, "ok"),
    ("schema_text", _schema_text, "schema_version is 'six'"),
    ("schema_int", _schema_int, "attribute 'schema_version' holds integers"),
    ("status_int", _status_int, "attribute 'status' holds integers"),
    ("campaign_name_fixed", _campaign_name_fixed, "ok"),
    ("results_ints", _results_ints, "table 'results' holds integers"),
    ("results_null", _results_null, "table 'results' is empty"),
    ("results_zero_rows", _results_zero_rows, "ok"),
    ("points_scalar", _points_scalar, "table 'points' is one value"),
    ("drives_missing", _drives_missing, "no table 'drives'"),
    ("drives_group", _drives_group, "'drives' is not a table"),
    ("status_column_int", _status_column_int, "column 'status' of table 'results' holds integers"),
    ("path_column_vlen", _path_column_vlen, "column 'path' of table 'drives' holds variable-length"),
    ("iops_column_array", _iops_column_array, "column 'read_iops' of table 'results' holds arrays"),
    ("path_without_nul", _path_without_nul, "ok"),
    ("steady_rank2", _steady_rank2, "table 'steady_state' is of rank 2"),
    ("samples_huge", _samples_huge, "table 'samples' has 1000000000 rows"),
    ("hist_bucket_max", _hist_bucket_max, "ok"),
    ("hist_past_end", _hist_past_end, "is past the end of hist_bins"),
    ("hist_bins_missing", _hist_bins_missing, "no table 'hist_bins'"),
    ("no_columns_of_ours", _no_columns_of_ours, "ok"),
]


def _superblock_checksum(b):
    # the superblock's status flags (byte 11 of a version 2 or 3 superblock) changed
    # under its checksum: plain open fails, and the SWMR open that follows used to retry
    # with a doubling sleep for ever
    assert b[8] in (2, 3), "the writer's files have a version 2 or 3 superblock"
    b[11] ^= 0x04
    return b


def _truncated(b):
    return b[: len(b) // 2]


# changes to the file's bytes, not through h5py
RAW_CASES = [
    ("superblock_checksum", _superblock_checksum, "is not a rackbench results file"),
    ("truncated", _truncated, "is not a rackbench results file"),
]


def make(h5py, src, dst, change):
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        change(h5py, f)


def make_raw(src, dst, change):
    with open(src, "rb") as f:
        b = bytearray(f.read())
    with open(dst, "wb") as f:
        f.write(change(b))
