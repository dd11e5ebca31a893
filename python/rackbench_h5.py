# SPDX-License-Identifier: MIT
"""Read rackbench results files with h5py and pandas (Debian: python3-h5py python3-pandas;
run with /usr/bin/python3).

    import rackbench_h5 as rb
    f = rb.open("demo-20261130T050158Z.h5")
    res = f.table("results")                 # a DataFrame, strings decoded, res.attrs["units"]
    f.percentiles(["point"], [50, 99])       # fleet percentiles per point, from merged histograms
    f.tidy()                                 # results + points + drives, newest attempts
    f.rates()                                # MB/s and IOPS per interval, as the charts draw them
    rb.compare(["a.h5", "b.h5"], "MODEL B")  # per point and model: value, baseline, %, sentence

Installable with pip (`python3 -m pip install ./python`, python/pyproject.toml) or as the
Debian package python3-rackbench.

Percentiles are recomputed from the stored histograms with exactly the C code's rule
(common/workload/hist.h): merge by adding counts, never average percentiles.

Like `rackbench report`, the module reads only what it checked: every attribute it uses is
one value of the expected kind, every table a rank-1 dataset of compound rows. A file that
is not raises ValueError naming what is wrong; a newer schema_version is warned about.
"""
import json
import math
import os
import re
import warnings

import h5py
import numpy as np
import pandas as pd

SUB_BITS = 7
SUB = 1 << SUB_BITS
MAX_POW = 42
BUCKETS = SUB + (MAX_POW - SUB_BITS + 1) * SUB
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
SCHEMA_VERSION = 14  # coordinator/results/results.h RB_RESULTS_SCHEMA_VERSION
READ_LIMIT_BYTES = 4 << 30  # the most one table may take in memory, as rackbench report
# An interval shorter than this share of its point's nominal one is merged into the one
# before it (a fill's last, ended by its last IO): coordinator/report/report_model.h's
# RP_SHORT_INTERVAL, the same rule (docs/report.md, "Throughput over time").
SHORT_INTERVAL = 0.1


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


def _duration_s(text):
    """A duration as rackbench writes it in a point's settings ("250ms", "1s", "2m") in
    seconds; None when it is not one."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ns|us|ms|s|m|h)?", text or "")
    if not m:
        return None
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, None: 1}
    return float(m.group(1)) * scale[m.group(2)]


def interval_groups(ends, nominal_s):
    """Which intervals make each drawn one: ends are the intervals' ends in order (seconds
    from the start of measurement); an interval shorter than SHORT_INTERVAL x nominal_s
    joins the one before it (the first, the one after it). nominal_s None or <= 0: the
    longest interval's length. Returns a list of (first, last) index pairs, as the C
    report's rp_interval_rates() merges them."""
    lens = [e - (ends[i - 1] if i else 0.0) for i, e in enumerate(ends)]
    if not nominal_s or nominal_s <= 0:
        nominal_s = max(lens, default=0.0)
    groups, carry = [], None
    for i, dt in enumerate(lens):
        short = dt < SHORT_INTERVAL * nominal_s
        if short and groups:
            groups[-1] = (groups[-1][0], i)
        elif short and i + 1 < len(lens):
            carry = i if carry is None else carry
        else:
            groups.append((i if carry is None else carry, i))
            carry = None
    return groups


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

    def close(self):
        self.h5.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def table(self, name):
        """A table as a DataFrame, fixed-length strings decoded, the columns as stored;
        df.attrs["units"] is the table's units ({column: unit}, "" for identifiers and
        text; {} for a table that has no 'units' attribute)."""
        d = self._dataset(name)
        df = _decode(pd.DataFrame(d[:]))
        units = self.units(name) if "units" in d.attrs else {}
        df.attrs["units"] = {c: units[c] for c in df.columns if c in units}
        return df

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

    def tidy(self):
        """The results as one frame: a row per (point, drive) of the results table, its
        newest attempt only (the highest `attempt`; of equal attempts the last row, as
        `rackbench report` takes), joined with its point and its drive.

        Columns, in order: `file` (this file's path); the points table's (point, phase,
        point_name -- the table's `name` --, rw, bs_bytes, iodepth, numjobs,
        rwmixread_pct, ..., settings, round, track, curve_pct; a column the results
        table also has is prefixed `point_`: point_rate_iops is the workload's limit,
        rate_iops the drive's own); the drives table's (drive, agent, host, path, kind,
        model, serial, firmware, capacity_bytes, ...); every other column of the results
        table (attempt, status, read_iops, read_lat_p99_ns, ...) under its own name; and
        two sums over the directions, as `rackbench report` shows them: `iops` (read +
        write + trim IOPS) and `mb_s` (read + write + trim bandwidth, MB/s = 10^6 B/s).
        Rows in (point, drive) order; every status is kept (filter on `status == "ok"`
        for measured rows). df.attrs["units"] gives each column's unit."""
        res, pts, drv = self.table("results"), self.table("points"), self.table("drives")
        for name, t, key in (("results", res, "point"), ("results", res, "drive"),
                             ("results", res, "attempt"), ("points", pts, "point"),
                             ("drives", drv, "drive")):
            if key not in t.columns or t[key].dtype.kind not in "iu":
                raise ValueError(f"{self.path}: table '{name}' has no integer '{key}'")
        units = {"file": ""}
        units.update(res.attrs["units"])
        res = res.assign(_row=np.arange(len(res)))
        res = res.sort_values(["point", "drive", "attempt", "_row"], kind="stable")
        res = res.drop_duplicates(["point", "drive"], keep="last").drop(columns="_row")
        # a point or drive written twice (a resumed run): its last row
        pts = pts.drop_duplicates("point", keep="last")
        drv = drv.drop_duplicates("drive", keep="last")
        ren = {c: "point_" + c for c in pts.columns if c != "point" and c in res.columns}
        ren["name"] = "point_name"
        units.update({ren.get(c, c): u for c, u in pts.attrs["units"].items()})
        pts = pts.rename(columns=ren)
        ren = {c: "drive_" + c for c in drv.columns
               if c != "drive" and (c in res.columns or c in pts.columns)}
        units.update({ren.get(c, c): u for c, u in drv.attrs["units"].items()})
        drv = drv.rename(columns=ren)
        out = res.merge(pts, on="point", how="left").merge(drv, on="drive", how="left")
        zero = pd.Series(0.0, index=out.index)
        out["iops"] = sum(out.get(f"{d}_iops", zero) for d in DIRECTIONS.values())
        out["mb_s"] = sum(out.get(f"{d}_bw_bytes_per_s", zero)
                          for d in DIRECTIONS.values()) / 1e6
        units.update(iops="1/s", mb_s="MB/s")
        out.insert(0, "file", self.path)
        cols = (["file"] + list(pts.columns) + list(drv.columns) +
                [c for c in res.columns if c not in ("point", "drive")] + ["iops", "mb_s"])
        out = out[cols].reset_index(drop=True)
        out.attrs["units"] = {c: units[c] for c in out.columns if c in units}
        return out

    def rates(self):
        """Throughput per interval of each (point, drive)'s newest attempt (as tidy() picks
        it), from the samples, as `rackbench report --html` draws it over time: the
        directions of an interval added, each interval over its own length (the first from
        the start of measurement), and an interval shorter than SHORT_INTERVAL (a tenth)
        of the point's nominal one -- a fill's last, ended by its last IO -- merged into
        the one before it (interval_groups()).

        Columns: point, drive, attempt, interval (the last sample interval it holds), t_s
        (its end, seconds from the start of measurement), seconds (its length), ios,
        bytes, iops, mb_s (10^6 B/s). Rows in (point, drive, t_s) order."""
        res, pts = self.table("results"), self.table("points")
        sm = self._dataset("samples")[:]
        self._integers("samples", sm, ("drive", "point", "attempt", "interval", "t_ns"))
        res = res.assign(_row=np.arange(len(res)))
        res = res.sort_values(["point", "drive", "attempt", "_row"], kind="stable")
        res = res.drop_duplicates(["point", "drive"], keep="last")
        nominal = {int(p["point"]): _duration_s(_setting(p.get("settings", ""), "interval"))
                   for _, p in pts.drop_duplicates("point", keep="last").iterrows()}
        sm = pd.DataFrame({k: sm[k] for k in ("drive", "point", "attempt", "interval", "t_ns",
                                              "ios", "bytes")})
        # the directions of an interval: one row, its end the latest of theirs
        per = sm.groupby(["point", "drive", "attempt", "interval"], as_index=False).agg(
            t_ns=("t_ns", "max"), ios=("ios", "sum"), bytes=("bytes", "sum"))
        per = per.merge(res[["point", "drive", "attempt", "start_ns"]],
                        on=["point", "drive", "attempt"])
        rows = []
        for (point, drive), g in per.groupby(["point", "drive"], sort=True):
            g = g.sort_values(["t_ns", "interval"], kind="stable")
            ends = ((g["t_ns"] - g["start_ns"]) / 1e9).tolist()
            ios, nbytes, ivs = g["ios"].tolist(), g["bytes"].tolist(), g["interval"].tolist()
            for a, b in interval_groups(ends, nominal.get(int(point))):
                dt = ends[b] - (ends[a - 1] if a else 0.0)
                n, m = int(sum(ios[a:b + 1])), int(sum(nbytes[a:b + 1]))
                rows.append({"point": int(point), "drive": int(drive),
                             "attempt": int(g["attempt"].iloc[0]), "interval": int(ivs[b]),
                             "t_s": ends[b], "seconds": dt, "ios": n, "bytes": m,
                             "iops": n / dt if dt > 0 else float("nan"),
                             "mb_s": m / dt / 1e6 if dt > 0 else float("nan")})
        cols = ["point", "drive", "attempt", "interval", "t_s", "seconds", "ios", "bytes",
                "iops", "mb_s"]
        out = pd.DataFrame(rows, columns=cols)
        out.attrs["units"] = {"point": "", "drive": "", "attempt": "", "interval": "",
                              "t_s": "s", "seconds": "s", "ios": "1", "bytes": "B",
                              "iops": "1/s", "mb_s": "MB/s"}
        return out


def open(path):  # noqa: A001 - the module's entry point reads like h5py.File
    return Results(path)


# ---- comparing models: the metric each workload is judged by, as the reviews do ----

METRICS = {  # name: (unit, higher is better, words in a sentence)
    "iops": ("IOPS", True, "IOPS"),
    "mbps": ("MB/s", True, "MB/s"),
    "mean_us": ("us", False, "mean latency"),
    "p99_us": ("us", False, "p99 latency"),
    "p99_9_us": ("us", False, "p99.9 latency"),
}
_METRIC_NAMES = {"iops": "iops", "mbps": "mbps", "mb/s": "mbps", "mb_s": "mbps",
                 "mean_us": "mean_us", "mean": "mean_us", "p99_us": "p99_us", "p99": "p99_us",
                 "p99_9_us": "p99_9_us", "p99.9": "p99_9_us", "p99_9": "p99_9_us"}
_RW_WORDS = {"read": "sequential read", "write": "sequential write", "randread": "random read",
             "randwrite": "random write", "rw": "sequential mixed", "randrw": "random mixed",
             "trim": "sequential trim", "randtrim": "random trim", "replay": "trace replay"}


def _setting(settings, key):
    """A value of a point's `settings` text (key=value, space separated); "" when absent."""
    m = re.search(r"(?:^|\s)" + re.escape(key) + r"=(\S*)", settings or "")
    return m.group(1) if m else ""


def _size(n):
    n = int(n)
    for unit, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return f"{n}B"


def judged_metric(point):
    """The metric a point's workload is judged by in the reviews: "mbps" (MB/s) for
    sequential patterns, block-size splits (CDN mixes: bs_bytes 0 or a `bssplit`
    setting) and blocks of 64 KiB and more; "iops" for random patterns with blocks
    under 64 KiB and for trace replays. point: a row of points or of tidy() (rw,
    bs_bytes, settings)."""
    rw, bs = str(point["rw"]), int(point["bs_bytes"])
    if bs == 0 or _setting(point.get("settings", ""), "bssplit"):
        return "mbps"
    if rw == "replay":
        return "iops"
    if not rw.startswith("rand") or bs >= 64 << 10:
        return "mbps"
    return "iops"


def comparable(point):
    """Whether models are compared at a point: the rule of `rackbench report --wide`'s rows
    (report_model.c's rp_point_comparable(); docs/report.md, "Comparable points"), which
    compare() keeps to. Not a rate-limited point, not a curve's throttled one (its
    unthrottled run is compared), not a size-based point (`io_size` or `passes`: a fill,
    whose figure is its own drive's time over changing states; a checkpoint, an exec),
    not a steady-state round, not a point without a workload. point: a row of points or
    of tidy()."""
    rw = point.get("rw", "")
    rw = rw if isinstance(rw, str) else ""
    rate = point.get("point_rate_iops", point.get("rate_iops", 0))
    curve = point.get("curve_pct", float("nan"))
    settings = point.get("settings", "")
    sized = any(_setting(settings, k) not in ("", "0") for k in ("io_size", "passes"))
    return not (int(rate or 0) > 0 or (curve == curve and curve > 0) or
                int(point.get("round", 0) or 0) > 0 or sized or
                rw in ("checkpoint", "exec") or not rw)


def workload(point):
    """A point's workload as a review names it: "4K random read QD1", "128K sequential
    write QD8, 4 jobs", "mixed-size random write QD32" (a block-size split), "4K random
    mixed (70% read) QD16". point: a row of points or of tidy()."""
    rw = str(point["rw"])
    bs = int(point["bs_bytes"])
    words = _RW_WORDS.get(rw, rw)
    if rw == "replay":
        text = words
    elif bs == 0 or _setting(point.get("settings", ""), "bssplit"):
        text = f"mixed-size {words}"
    else:
        text = f"{_size(bs)} {words}"
    if rw in ("rw", "randrw"):
        text += f" ({int(point['rwmixread_pct'])}% read)"
    text += f" QD{int(point['iodepth'])}"
    if int(point.get("numjobs", 1)) > 1:
        text += f", {int(point['numjobs'])} jobs"
    curve = point.get("curve_pct", float("nan"))
    if curve == curve and curve > 0:
        text += f" at {curve:g}% of the maximum rate"
    elif int(point.get("point_rate_iops", point.get("rate_iops", 0)) or 0) > 0:
        text += f" limited to {int(point.get('point_rate_iops', point.get('rate_iops')))} IOPS"
    if int(point.get("round", 0) or 0) > 0:
        text += f" (round {int(point['round'])})"
    return text


def _metric_values(t, metric):
    """Each tidy() row's value of metric: the sums iops and mb_s, or the latency (us) of
    the direction the point does (its reads when it reads, as rackbench report's spec
    claims; NaN when it did neither)."""
    if metric == "iops":
        return t["iops"].astype(float)
    if metric == "mbps":
        return t["mb_s"].astype(float)
    col = {"mean_us": "lat_mean_ns", "p99_us": "lat_p99_ns", "p99_9_us": "lat_p99_9_ns"}[metric]
    rd = t["read_ios"].to_numpy() > 0
    wr = t["write_ios"].to_numpy() > 0
    v = np.where(rd, t[f"read_{col}"].to_numpy(dtype=float),
                 np.where(wr, t[f"write_{col}"].to_numpy(dtype=float), np.nan))
    return pd.Series(v / 1e3, index=t.index)


def _model_label(row):
    """What compare() groups drives by, as rackbench report does: the model, "(unknown
    model)" when the file has none, a striped volume's width and unit with its model."""
    model = row["model"] if isinstance(row["model"], str) else ""
    members = row.get("members", 0)
    if members == members and members > 0:  # not NaN: a drive the drives table has
        return (f"{int(row['members'])} x {model or '?'} (volume, "
                f"{int(row.get('stripe_bytes', 0)) >> 10} KiB unit)")
    return model or "(unknown model)"


def _label_value(labels, key):
    """A drive's group by its agent's label KEY, as `rackbench report --by label=KEY` names
    it: "KEY=VALUE", or "no KEY label" (labels: "k=v,k=v")."""
    for kv in (labels if isinstance(labels, str) else "").split(","):
        k, eq, v = kv.partition("=")
        if eq and k == key:
            return f"{key}={v}"
    return f"no {key} label"


def _group_value(row, by):
    """A drive's part of its group's name for one `by` entry: its model (_model_label()),
    its label KEY's value ("label=KEY"), or a tidy() column's value."""
    if by == "model":
        return _model_label(row)
    if by.startswith("label="):
        return _label_value(row.get("labels", ""), by[6:])
    return str(row[by])


def _pct_text(x):
    """|difference| as a review prints it: whole percent from 10 %, one decimal below;
    None when that rounds to zero."""
    t = f"{x:.0f}" if x >= 9.95 else f"{x:.1f}"
    return None if t in ("0", "0.0") else t


def sentence(name, base, metric, pct, where):
    """The review sentence for name against base at workload where: "A is 41% faster than
    B at 4K random read QD1" (IOPS, MB/s: pct = (value / baseline - 1) x 100, "slower"
    when negative), "A's p99 latency is 12% lower than B's at ..." (latencies: lower is
    better). "" when pct is not a number."""
    if pct != pct:
        return ""
    txt = _pct_text(abs(pct))
    if METRICS[metric][1]:
        if txt is None:
            return f"{name} is as fast as {base} at {where}"
        return f"{name} is {txt}% {'faster' if pct > 0 else 'slower'} than {base} at {where}"
    what = METRICS[metric][2]
    if txt is None:
        return f"{name}'s {what} is the same as {base}'s at {where}"
    return f"{name}'s {what} is {txt}% {'higher' if pct > 0 else 'lower'} than {base}'s at {where}"


def compare(files, baseline, metric=None, by="model"):
    """Models (or files) against a baseline, point by point, as a review writes it.

    files: paths of results files, or open Results (a single one is taken as a list).
    The drives of each file are grouped by model (a file of one model is one group):
    the group is named by its model, with the file's name added when two groups have
    the same model (two runs of one model, files of unnamed drives). Points are matched
    across files by their name (`points.name`).

    baseline: a group's name, a model (of one group only), or a file (its path or name,
    or a Results) of one model.

    metric: None for the metric each workload is judged by (judged_metric(): MB/s for
    sequential, block-size-split and >= 64 KiB points, IOPS for random points under
    64 KiB), or one of "iops", "mbps", "mean_us", "p99_us", "p99_9_us" for every
    point (latencies: of the direction the point does, reads when it reads; lower is
    better).

    by: what drives are grouped by instead of the model: a tidy() column or a list of
    them (e.g. "agent", ["model", "firmware"]), or "label=KEY", a label of the drives'
    agents, its groups named as `rackbench report --by label=KEY` names them ("rack=r12",
    "no rack label"); the group's name joins their values. "model" and "label=KEY" are
    the C report's rule: a file's groups are its columns in `report --wide --by ...`, and
    the per-model table's and the outliers' groups.

    A group's value at a point, from the newest attempt of each drive (status ok only),
    as `rackbench report --wide` computes it: IOPS and MB/s (summed over the
    directions, as tidy() does) the median over the drives (the mean of the middle two
    for an even count); mean latency over all the drives' IOs (each drive's mean
    weighted by its IOs); p99 and p99.9 from the drives' histograms added bucket by
    bucket -- never an average or median of percentiles.

    Points: those `rackbench report --wide` has rows for (comparable(): no fill,
    rate-limited point, curve's throttled point or steady-state round).

    Returns a DataFrame, one row per (point, group), in run order: point (name),
    workload (workload()), model (the group's name), file, drives (rows with a value),
    metric, unit, value, baseline (its name), baseline_value, pct ((value / baseline_value
    - 1) x 100; NaN without both values), and sentence (sentence(): "A is 41% faster
    than B at 4K random read QD1"; "" for the baseline's own rows and without a pct).
    ValueError when the baseline names nothing, or more than one group."""
    opened = []
    try:
        return _compare(files, baseline, metric, by, opened)
    finally:
        for r in opened:
            r.close()


def _compare(files, baseline, metric, by, opened):
    """compare()'s work, with the files it opened listed in opened (closed by it)."""
    if metric is not None:
        key = _METRIC_NAMES.get(str(metric).lower())
        if key is None:
            raise ValueError(f"metric '{metric}': not one of {', '.join(METRICS)}")
        metric = key
    if isinstance(files, (str, bytes, os.PathLike, Results)):
        files = [files]
    by = [by] if isinstance(by, str) else list(by)
    if not by:
        raise ValueError("compare: by names no column")
    results = []
    for f in files:
        if isinstance(f, Results):
            results.append(f)
        else:
            r = Results(os.fsdecode(f))
            opened.append(r)
            results.append(r)
    # results rows of a point or drive its file does not list are left out, as
    # rackbench report leaves them
    frames = [t[t["point_name"].notna() & t["path"].notna()].copy()
              for t in (r.tidy() for r in results)]
    for r, t in zip(results, frames):
        for c in by:
            col = "labels" if c.startswith("label=") else c
            if col not in t.columns or (c.startswith("label=") and not c[6:]):
                raise ValueError(f"{r.path}: by '{c}': no such column of tidy()")
    if not frames:
        raise ValueError("compare: no files")

    # the groups: (file index, model), named by the model unless two share it
    groups = []
    for fi, t in enumerate(frames):
        drives = t.drop_duplicates("drive").sort_values("drive", kind="stable")
        label = {row["drive"]: " ".join(_group_value(row, c) for c in by)
                 for _, row in drives.iterrows()}
        t["_group"] = t["drive"].map(label) if len(t) else ""
        order = pd.unique(pd.Series([label[d] for d in drives["drive"]], dtype=object))
        groups += [{"fi": fi, "model": m, "name": m} for m in order]
    for naming in (lambda g: os.path.basename(results[g["fi"]].path),
                   lambda g: results[g["fi"]].path, lambda g: f"#{g['fi'] + 1}"):
        names = [g["name"] for g in groups]
        for g in groups:
            if names.count(g["name"]) > 1:
                g["name"] = f"{g['model']} ({naming(g)})"

    def same_file(r, b):
        if isinstance(b, Results):
            return r is b
        b = os.fsdecode(b)
        if os.path.abspath(r.path) == os.path.abspath(b):
            return True
        return os.path.basename(r.path) == b

    names = ", ".join(f"'{g['name']}'" for g in groups) or "none"
    base = [g for g in groups if not isinstance(baseline, Results) and g["name"] == baseline]
    base = base or [g for g in groups if not isinstance(baseline, Results) and
                    g["model"] == baseline]
    if not base:
        base = [g for g in groups if same_file(results[g["fi"]], baseline)]
        if len(base) > 1:
            raise ValueError(f"baseline '{baseline}': the file holds {len(base)} models "
                             f"({', '.join(g['name'] for g in base)}): name one")
    if not base:
        raise ValueError(f"baseline '{baseline}' names no model or file; the models: {names}")
    if len(base) > 1:
        raise ValueError(f"baseline '{baseline}' is {len(base)} groups "
                         f"({', '.join(g['name'] for g in base)}): name one")
    base = base[0]

    # the points compared (comparable(), as --wide's rows) in run order, the first file's
    # first
    points, seen = [], set()
    for t in frames:
        for _, p in t.drop_duplicates("point_name").iterrows():
            if comparable(p) and p["point_name"] not in seen:
                seen.add(p["point_name"])
                points.append(p)

    cells = [{k: c for k, c in t.groupby(["point_name", "_group"], sort=False)}
             for t in frames]

    def value(g, name, m):
        sel = cells[g["fi"]].get((name, g["model"]))
        if sel is None:
            return None, 0
        ok = sel[sel["status"] == "ok"]
        v = _metric_values(ok, m).dropna()
        if not len(v):
            return float("nan"), 0
        if m in ("iops", "mbps"):
            return float(np.median(v.to_numpy())), len(v)
        rd = ok["read_ios"].to_numpy() > 0
        if m == "mean_us":
            # over all the group's IOs, not a mean of means
            ios = np.where(rd, ok["read_ios"], ok["write_ios"]).astype(float)
            return float((v.to_numpy() * ios).sum() / ios.sum()), len(v)
        # a percentile of the drives' histograms added, never of their percentiles
        counts = np.zeros(BUCKETS, dtype=np.uint64)
        for (_, x), r in zip(ok.iterrows(), rd):
            counts += results[g["fi"]].histogram(drive=x["drive"], point=x["point"],
                                                 attempt=x["attempt"], direction=0 if r else 1)
        pct = 99.0 if m == "p99_us" else 99.9
        return percentile(counts, pct) / 1e3, len(v)

    rows = []
    for p in points:
        m = metric or judged_metric(p)
        where = workload(p)
        bv, _ = value(base, p["point_name"], m)
        bv = float("nan") if bv is None else bv
        for g in groups:
            v, n = value(g, p["point_name"], m)
            if v is None:
                continue
            pct = (v / bv - 1.0) * 100.0 if bv == bv and bv > 0 and v == v else float("nan")
            own = g is base
            rows.append({"point": p["point_name"], "workload": where, "model": g["name"],
                         "file": results[g["fi"]].path, "drives": n, "metric": m,
                         "unit": METRICS[m][0], "value": v, "baseline": base["name"],
                         "baseline_value": bv, "pct": pct,
                         "sentence": "" if own else sentence(g["name"], base["name"], m, pct,
                                                              where)})
    cols = ["point", "workload", "model", "file", "drives", "metric", "unit", "value",
            "baseline", "baseline_value", "pct", "sentence"]
    out = pd.DataFrame(rows, columns=cols)
    unit = METRICS[metric][0] if metric else "the row's unit"
    out.attrs["units"] = {"point": "", "workload": "", "model": "", "file": "", "drives": "1",
                          "metric": "", "unit": "", "value": unit, "baseline": "",
                          "baseline_value": unit, "pct": "%", "sentence": ""}
    return out
