#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The C of the house is formatted as .clang-format says (kernel style, 100 columns).

Checks every production file (agent/, coordinator/, common/) and the benches' C; prints
each file clang-format would change and the first lines it would change, and exits 1. To
format a file: clang-format -i FILE. Exit 77 (a skip) when clang-format is not installed.

Usage: scripts/check-format.py [--fix]"""
import difflib
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ROOMS = ("agent", "coordinator", "common", "bench")


def files():
    out = []
    for room in ROOMS:
        for ext in ("c", "h"):
            out += glob.glob(os.path.join(ROOT, room, "**", f"*.{ext}"), recursive=True)
    return sorted(out)


def main():
    tool = shutil.which("clang-format")
    if not tool:
        print("skip: clang-format is not installed (Debian: apt-get install clang-format)")
        return 77
    fix = "--fix" in sys.argv
    bad = 0
    for f in files():
        with open(f) as fh:
            text = fh.read()
        r = subprocess.run([tool, "--style=file", f],
                           capture_output=True, text=True)
        if r.returncode:
            print(f"{os.path.relpath(f, ROOT)}: clang-format failed: {r.stderr.strip()}")
            bad += 1
            continue
        if r.stdout == text:
            continue
        bad += 1
        rel = os.path.relpath(f, ROOT)
        if fix:
            with open(f, "w") as fh:
                fh.write(r.stdout)
            print(f"formatted {rel}")
            continue
        diff = list(difflib.unified_diff(text.splitlines(), r.stdout.splitlines(), rel,
                                         rel + " (formatted)", n=0, lineterm=""))
        print(f"{rel} is not formatted (clang-format -i {rel}):")
        print("\n".join(diff[2:14]))
    if bad and not fix:
        print(f"format: {bad} file(s) differ from .clang-format")
        return 1
    print(f"format: {len(files())} files as .clang-format says" if not fix else "format: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
