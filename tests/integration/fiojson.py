# SPDX-License-Identifier: MIT
"""What a fio-JSON reader takes from each job, shared by the fio output tests."""

# what a fio-JSON reader (fio-plot's shape) takes from each job: path -> type
FIELDS = {("jobname",): str, ("read", "iops"): float, ("read", "bw"): (int, float),
          ("read", "bw_bytes"): (int, float), ("read", "io_bytes"): int,
          ("read", "runtime"): (int, float), ("read", "total_ios"): int,
          ("read", "clat_ns", "mean"): float, ("read", "clat_ns", "stddev"): float,
          ("read", "clat_ns", "min"): int, ("read", "clat_ns", "max"): int,
          ("read", "clat_ns", "percentile", "99.000000"): int,
          ("read", "clat_ns", "percentile", "50.000000"): int,
          ("read", "lat_ns", "mean"): float, ("write", "iops"): (int, float),
          ("usr_cpu",): float, ("sys_cpu",): float, ("job options",): dict,
          ("read", "iops_stddev"): float, ("read", "lat_ns", "stddev"): float,
          ("latency_ns", "2"): float, ("latency_us", "100"): float,
          ("latency_ms", ">=2000"): float, ("latency_depth",): int}


def get(d, path):
    for k in path:
        d = d[k]
    return d


def kinds(t):
    return t if isinstance(t, tuple) else (t,)
