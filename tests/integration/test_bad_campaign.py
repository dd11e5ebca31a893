# SPDX-License-Identifier: MIT
"""A bad campaign file gives FILE:LINE:COLUMN: message lines naming the key, and exit 2.

The expected lines are in the .expect file beside the campaign: one per error, in
order, each "LINE:COLUMN: text the message must contain".
"""
import os
import sys

from rbtest import COORD, check, run

yaml = sys.argv[1]
expect = os.path.splitext(yaml)[0] + ".expect"
with open(expect) as f:
    want = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]

r = run([COORD, "run", yaml])
print(r.stderr)
check(r.returncode == 2, f"exit code {r.returncode}, want 2")
got = [l for l in r.stderr.splitlines() if l.startswith(yaml + ":")]
check(len(got) == len(want), f"{len(got)} error lines, want {len(want)}")
for g, w in zip(got, want):
    pos, text = w.split(": ", 1)
    prefix = f"{yaml}:{pos}: "
    check(g.startswith(prefix), f"'{g}' does not start with '{prefix}'")
    check(text in g, f"'{g}' does not contain '{text}'")
print("ok")
