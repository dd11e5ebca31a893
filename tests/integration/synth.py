# SPDX-License-Identifier: MIT
"""Synthetic results files for report tests, made from a real one: the real file's layout,
attributes and points, with its first drive cloned into as many drives as a test needs,
each with its own model, IOPS scale and latency shift. Run with /usr/bin/python3 (h5py)."""
import numpy as np

import layout


def widen(h5py, src, dst, drives):
    """drives: a list of dicts with keys model, scale (IOPS and bandwidth factor) and
    shift (histogram buckets added to every latency bucket, so drives differ); labels
    (its agent's, "k=v,k=v") and verdict (its row of rule "drive" in the verdicts table,
    PASS, FAIL, ...: the file's verdict the worst of them), optional."""
    with h5py.File(src, "r") as s, h5py.File(dst, "w") as d:
        for k, v in s.attrs.items():
            d.attrs[k] = v
        d.create_dataset("campaign", data=s["campaign"][()])
        tables = {}
        for name in ("agents", "drives", "points", "results", "samples", "hist_bins",
                     "bs_counts", "health"):
            tables[name] = s[name][:]
        bins = tables["hist_bins"]
        d0 = tables["drives"][0]["drive"]
        out = {"agents": tables["agents"], "points": tables["points"]}
        rows = {n: [] for n in ("drives", "results", "samples", "hist_bins", "bs_counts",
                                "health")}
        nbins = 0
        for i, spec in enumerate(drives):
            dr = tables["drives"][0].copy()
            dr["drive"] = i
            dr["path"] = f"/dev/synth{i}".encode()
            dr["model"] = spec["model"].encode()
            dr["serial"] = f"SYN{i:05d}".encode()
            if "labels" in spec:
                dr["labels"] = spec["labels"].encode()
            rows["drives"].append(dr)
            for name in ("results", "samples", "bs_counts", "health"):
                t = tables[name]
                sel = t[t["drive"] == d0].copy()
                sel["drive"] = i
                if name == "results":
                    for col in sel.dtype.names:
                        if col.endswith("_iops") or col.endswith("_bw_bytes_per_s"):
                            sel[col] = sel[col] * spec["scale"]
                if name == "samples":
                    for col in ("ios", "bytes"):
                        sel[col] = (sel[col] * spec["scale"]).astype(sel[col].dtype)
                    # the clone's buckets, its own rows of hist_bins
                    pos, _ = layout.bin_positions(sel)
                    b = bins[pos].copy()
                    if spec.get("shift"):
                        b["bucket"] = b["bucket"] + spec["shift"]
                    n = sel["hist_n"].astype(np.int64)
                    sel["hist_first"] = nbins + np.cumsum(n) - n
                    nbins += len(b)
                    rows["hist_bins"].append(b)
                rows[name].append(sel)
        out["drives"] = np.array(rows["drives"], dtype=tables["drives"].dtype)
        for name in ("results", "samples", "hist_bins", "bs_counts", "health"):
            out[name] = np.concatenate(rows[name]) if rows[name] else tables[name]
        judged = [(i, x["verdict"]) for i, x in enumerate(drives) if "verdict" in x]
        if judged:
            v = np.zeros(len(judged), dtype=s["verdicts"].dtype)
            for row, (i, verdict) in zip(v, judged):
                row["drive"], row["rule"], row["verdict"] = i, b"drive", verdict.encode()
                row["measured"] = row["limit"] = np.nan
                row["point"] = row["interval"] = -1
                row["reason"] = f"synthetic: {verdict}".encode()
            out["verdicts"] = v
            states = [x for _, x in judged]
            d.attrs["verdict"] = next((w for w in ("FAIL", "INCOMPLETE") if w in states),
                                      "PASS")
        for name, data in out.items():
            ds = d.create_dataset(name, data=data, maxshape=(None,), chunks=True)
            for k, v in s[name].attrs.items():
                ds.attrs[k] = v
