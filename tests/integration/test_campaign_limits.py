# SPDX-License-Identifier: MIT
"""Campaign input that used to hang or eat memory is refused with exit 2 and a message
naming the limit at FILE:LINE:COL: a 2 MB file of '[' (libyaml's time grows with the
square of the depth: about an hour), a mapping nested 200 000 deep, a 16 KB matrix of
10^9 points (memory grew until killed), a repeat past the point limit (one line, not
900 000), a second document; the agent's --config and a report's spec file load through
the same YAML loader. No time is asserted: the subprocess timeout fails a hang, and the
times are printed."""
import os
import time

from rbtest import AGENT, COORD, Tmp, check, run

HEAD = "name: limits\ntargets:\n  - agent: a1\n    drives: [/dev/null]\nphases:\n"
VALUES = ", ".join(str(i) for i in range(1, 1001))


def refused(cmd, path, pos, text):
    t0 = time.monotonic()
    r = run(cmd, timeout=120)
    dt = time.monotonic() - t0
    lines = [l for l in r.stderr.splitlines() if l.startswith(path + ":")]
    print(f"{os.path.basename(path)}: exit {r.returncode} in {dt:.3f}s: {r.stderr.strip()[:200]}")
    check(r.returncode == 2, f"{path}: exit {r.returncode}, want 2")
    check(len(lines) == 1, f"{path}: {len(lines)} error lines, want 1")
    check(lines[0].startswith(f"{path}:{pos}: "), f"'{lines[0][:120]}' is not at {pos}")
    check(text in lines[0], f"'{lines[0][:160]}' does not say '{text}'")


with Tmp() as tmp:
    def put(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    n = 10**6
    p = put("deep.yaml", HEAD + "  - workload: " + "[" * n + "]" * n + "\n")
    check(os.path.getsize(p) > 2 * 10**6, "deep.yaml is 2 MB")
    refused([COORD, "plan", p], p, "6:76", "nesting limit")

    n = 200000
    p = put("deep_map.yaml", HEAD + "  - workload: " + "{a: " * n + "1" + "}" * n + "\n")
    refused([COORD, "plan", p], p, "6:259", "nesting limit")

    p = put("huge.yaml", HEAD + "  - name: p\n    workload: {rw: randread}\n"
            f"    matrix: {{iodepth: &v [{VALUES}], seed: *v, rate_iops: *v}}\n")
    refused([COORD, "plan", p], p, "6:5", "point limit: phase 'p' would make 1000000000 points")
    refused([COORD, "run", p, "--no-service"], p, "6:5", "point limit")

    p = put("repeat.yaml", HEAD + "  - name: p\n    workload: {rw: randread}\n"
            f"    repeat: 1000\n    matrix: {{iodepth: [{VALUES}]}}\n")
    refused([COORD, "plan", p], p, "6:5", "would make 1000000 points")

    p = put("two.yaml", HEAD + "  - workload: {rw: randread}\n---\nname: other\n")
    refused([COORD, "plan", p], p, "7:1", "a second YAML document")

    n = 500000
    p = put("agent.yaml", "labels: " + "[" * n + "]" * n + "\n")
    refused([AGENT, "--config", p], p, "1:72", "nesting limit")

    # a spec file loads before any results file is opened
    p = put("spec.yaml", "claims: " + "[" * n + "]" * n + "\n")
    refused([COORD, "report", os.path.join(tmp, "none.h5"), "--spec", p], p, "1:72",
            "nesting limit")
print("ok")
