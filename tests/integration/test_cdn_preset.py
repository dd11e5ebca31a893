# SPDX-License-Identifier: MIT
"""The cdn preset end to end, shortened: two agents, each with two loop devices, run the
whole procedure (fill, saturation, CDN write and CDN read over numjobs x iodepth) with
1 s points and no idle. The IO counts per block size (bs_counts) of the CDN read point
with the most IOs match the preset's 125-size split: no size's count in a tail below 1e-7, a
chi-squared goodness of fit (sizes expecting fewer than 5 IOs pooled) with p-value above
1e-3, and no size expecting 20 or more IOs left undrawn.

One point, not the sum of all: every drive and point draws from the same seed (the same
IO stream on every drive, for comparisons), so their counts are not independent samples;
the jobs of one point have streams of their own."""
import glob
import math
import os
import re

from rbtest import COORD, Agent, LoopDevices, Tmp, check, free_port, h5, run, skip

h5py = h5()
if os.geteuid() != 0:
    skip("needs root for loop devices")


def q_gamma(a, x):
    """Regularized upper incomplete gamma Q(a, x) (Numerical Recipes: series or
    continued fraction)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, s, d = a, 1.0 / a, 1.0 / a
        for _ in range(10000):
            ap += 1
            d *= x / ap
            s += d
            if abs(d) < abs(s) * 1e-15:
                break
        return 1.0 - s * math.exp(-x + a * math.log(x) - gln)
    b, c, d = x + 1 - a, 1e300, 1.0 / (x + 1 - a)
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


with Tmp() as tmp:
    text = run([COORD, "presets", "cdn"]).stdout
    split = re.search(r'name: cdn-read\n    workload: \{rw: randread, bssplit: "([^"]+)"', text)
    check(split, "the cdn preset's read split")
    sizes = []
    for part in split.group(1).split(":"):
        s, w = part.split("/")
        s = 131072 if s == "128k" else int(s)
        sizes.append((s, float(w)))
    check(len(sizes) == 125, f"{len(sizes)} sizes in the CDN read split")
    total_w = sum(w for _, w in sizes)
    with LoopDevices(tmp, 4, size=64 << 20) as devs:
        ep = f"tcp://127.0.0.1:{free_port()}"
        camp = os.path.join(tmp, "cdn.yaml")
        with open(camp, "w") as f:
            f.write(f"""name: cdn-short
insecure: true
destructive: true
wait: 20s
targets:
  - {{agent: cdn-a1, drives: [{devs[0]}, {devs[1]}]}}
  - {{agent: cdn-a2, drives: [{devs[2]}, {devs[3]}]}}
preset: cdn
overrides: {{runtime: 1s, idle: 0s, interval: 500ms}}
""")
        agents = [Agent(ep, "cdn-a1", devs[:2], allow=devs[:2], state_dir=os.path.join(tmp, "s1")),
                  Agent(ep, "cdn-a2", devs[2:], allow=devs[2:], state_dir=os.path.join(tmp, "s2"))]
        try:
            r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out")])
        finally:
            for a in agents:
                a.stop()
        print(r.stdout[-1500:], r.stderr[-1500:])
        check(r.returncode == 0, f"run: {r.returncode}")
    with h5py.File(glob.glob(os.path.join(tmp, "out", "cdn-short-*.h5"))[0], "r") as h:
        pts = h["points"][:]
        bsc = h["bs_counts"][:]
        res = h["results"][:]
    check(len(pts) == 38 and len(res) == 38 * 4, f"{len(pts)} points, {len(res)} results")
    check(all(x["status"] == b"ok" for x in res), "every point ok")
    read_pts = {int(p["point"]) for p in pts if p["phase"] == b"cdn-read"}
    check(len(read_pts) == 18, f"{len(read_pts)} CDN read points")
    # a split has no one block size: 0, not bs's 4k default, and settings says the split
    for p in pts:
        split = b"bssplit=" in p["settings"] and b"bssplit= " not in p["settings"]
        check((p["bs_bytes"] == 0) == split,
              f"point {p['name']}: bs_bytes {p['bs_bytes']} with split {split}")
    per = {}
    for b in bsc:
        if int(b["point"]) in read_pts and b["direction"] == 0 and b["drive"] == 0:
            c = per.setdefault(int(b["point"]), {})
            c[int(b["bs_bytes"])] = c.get(int(b["bs_bytes"]), 0) + int(b["ios"])
    counts = max(per.values(), key=lambda c: sum(c.values()))
    n = sum(counts.values())
    # enough IOs for the test to mean something (the 124 small sizes share 16.8%: ~10 IOs
    # each at 8,000), not a speed: a loaded CI machine drew 15,000 in its busiest 1 s
    check(n > 8000, f"only {n} IOs in the busiest CDN read point")
    check(set(counts) <= {s for s, _ in sizes},
          f"sizes outside the split: {set(counts) - {s for s, _ in sizes}}")
    chi2, df, pool_k, pool_e = 0.0, 0, 0, 0.0
    for s, w in sizes:
        p = w / total_w
        k = counts.get(s, 0)
        # each size's own count, two-sided with its Poisson tail (a size's count is
        # Binomial(n, p), Poisson's tail the wider one): below 1e-7, or about 1 in 40,000
        # runs over the 125 sizes -- 4 sigma, with a tail that small counts make heavy,
        # failed one run in a hundred (43 IOs drawn where 22.2 were expected)
        tail = 2 * min(1 - q_gamma(k, n * p) if k else 1.0, q_gamma(k + 1, n * p))
        check(tail > 1e-7, f"size {s}: {k} IOs, expected {n * p:.1f} (tail {tail:.1e})")
        if n * p >= 20:
            check(k > 0, f"size {s} (expecting {n * p:.0f} IOs) never drawn")
        if n * p < 5:
            pool_k, pool_e = pool_k + k, pool_e + n * p
            continue
        chi2 += (k - n * p) ** 2 / (n * p)
        df += 1
    if pool_e > 0:
        chi2 += (pool_k - pool_e) ** 2 / pool_e
        df += 1
    pval = q_gamma((df - 1) / 2, chi2 / 2)
    print(f"{n} IOs of one CDN read point over 125 sizes: chi2 {chi2:.1f} ({df - 1} df), "
          f"p = {pval:.3f}")
    check(pval > 1e-3, f"chi-squared p-value {pval}")
print("ok")
