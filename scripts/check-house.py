#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the house rules of docs/HACKING.md against the tree (and, for calls between
files, against the object files of a build):

- docs/HACKING.md maps every production file, and every file it maps exists;
- agent/ and coordinator/ never include each other's headers, common/ neither;
- generated protobuf types appear only in the codec (common/wire.c and the files it is
  split into, WIRE_CODEC) and the files in PB_USERS, each
  at most as often as today;
- no production file over 1,000 lines and no function over 120
  lines, except those in OVER_FILES / OVER_FUNCS, which may not grow;
- no two files that call each other in a circle, except the circles in CIRCLES, which
  may shrink but not grow;
- no command line parsed by hand: argv compared (strcmp(argv[...]), options matched
  over argv[i]) only in common/parseopt.c, the one parser every command's table goes to.

Usage: scripts/check-house.py [BUILD_DIR]   (exit 0: every rule holds; 1: it prints why)
A limit that is met again (a file split, a function shortened) is reported so its entry
can go: the lists only ever shrink."""
import os
import re
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ROOMS = ("common", "agent", "coordinator")
FILE_LIMIT = 1000
FILE_LIMITS = {}  # file: a limit of its own (none today)
FUNC_LIMIT = 120
WIRE_CODEC = ("common/wire.c", "common/wire_result.c", "common/wire_base.c", "common/wire_samples.c",
              "common/wire_priv.h")

# Today's exceptions, each with its present size: a ratchet. Shrink them; never add.
PB_USERS = {  # file: uses of Rb__* / rb__* generated names (only ever fewer)
}
OVER_FILES = {
}
OVER_FUNCS = {  # "file:function": lines
}
CIRCLES = [
]

problems = []
notes = []


def production_files():
    out = []
    for room in ROOMS:
        for name in sorted(os.listdir(os.path.join(ROOT, room))):
            if name.endswith((".c", ".h")):
                out.append(f"{room}/{name}")
    return out


def read(rel):
    with open(os.path.join(ROOT, rel), errors="replace") as f:
        return f.read()


def check_map(files):
    text = read("docs/HACKING.md")
    mapped = set()
    for m in re.finditer(r"`((?:common|agent|coordinator)/[A-Za-z0-9_]+)(\.\[ch\]|\.c|\.h)`", text):
        base, ext = m.group(1), m.group(2)
        for e in ((".c", ".h") if ext == ".[ch]" else (ext,)):
            mapped.add(base + e)
    for f in sorted(mapped):
        if not os.path.exists(os.path.join(ROOT, f)):
            problems.append(f"docs/HACKING.md maps {f}, which does not exist")
    for f in files:
        if f not in mapped:
            problems.append(f"{f} is not in docs/HACKING.md's module map")


def check_includes(files):
    headers = {room: {n for n in os.listdir(os.path.join(ROOT, room)) if n.endswith(".h")}
               for room in ROOMS}
    never = {"common": ("agent", "coordinator"), "agent": ("coordinator",),
             "coordinator": ("agent",)}
    for f in files:
        room = f.split("/")[0]
        for m in re.finditer(r'^#include "([^"]+)"', read(f), re.M):
            h = m.group(1)
            if h in headers[room] or h in headers["common"] and room != "common":
                continue
            for other in never[room]:
                if h in headers[other]:
                    problems.append(f"{f} includes {h} from {other}/ ({room}/ never does)")


def check_pb(files):
    for f in files + [f"bench/{n}" for n in os.listdir(os.path.join(ROOT, "bench")) if n.endswith(".c")]:
        # the codec's own files: common/wire.c and those it is split into
        if f in WIRE_CODEC or f.startswith("common/wire.h"):
            continue
        text = read(f)
        n = len(re.findall(r"\b(?:Rb__|rb__)\w+", text)) + text.count("pb-c.h")
        cap = PB_USERS.get(f)
        if n and cap is None:
            problems.append(f"{f} uses generated protobuf types ({n} times): only the codec (WIRE_CODEC) may")
        elif cap is not None and n > cap:
            problems.append(f"{f} uses generated protobuf types {n} times, more than its {cap}")
        elif cap is not None and n < cap:
            notes.append(f"{f}: {n} uses of generated types (ceiling {cap}: lower it)")


ARGV_PARSER = "common/parseopt.c"
ARGV_MATCH = re.compile(r"\bstrn?cmp\s*\(\s*argv\s*\[|\bargv\s*\[\s*i\s*\]|\bargv\s*\[\s*\d+\s*\]\s*\[")


def check_argv(files):
    for f in files:
        if f == ARGV_PARSER or not f.endswith(".c"):
            continue
        for n, line in enumerate(read(f).split("\n"), 1):
            if ARGV_MATCH.search(line):
                problems.append(f"{f}:{n} parses argv by hand ({line.strip()}): give the "
                                f"command a table for {ARGV_PARSER}")


FUNC_START = re.compile(r"^(?!static inline)(?:[A-Za-z_][\w \*]*?[\s\*])?([A-Za-z_]\w*)\s*\([^;]*$")


def functions(text):
    """(name, first line, lines) of each function defined at the file's top level."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FUNC_START.match(lines[i])
        if m and not lines[i].startswith(("#", " ", "\t", "typedef", "struct", "enum", "union")):
            # the body opens on a line that is exactly "{" before any ';'
            j = i
            while j < len(lines) and lines[j] != "{" and ";" not in lines[j]:
                j += 1
            if j < len(lines) and lines[j] == "{":
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                out.append((m.group(1), i + 1, k - i + 1))
                i = k
        i += 1
    return out


def check_sizes(files):
    for f in files:
        text = read(f)
        n = text.count("\n")
        limit = max(FILE_LIMITS.get(f, FILE_LIMIT), OVER_FILES.get(f, 0))
        if n > limit:
            problems.append(f"{f} has {n} lines, over its limit of {limit}")
        elif f in OVER_FILES and n <= FILE_LIMITS.get(f, FILE_LIMIT):
            notes.append(f"{f} is within {FILE_LIMIT} lines now: drop it from OVER_FILES")
        if not f.endswith(".c"):
            continue
        for name, line, length in functions(text):
            key = f"{f}:{name}"
            limit = max(FUNC_LIMIT, OVER_FUNCS.get(key, 0))
            if length > limit:
                problems.append(f"{key} (line {line}) has {length} lines, over its limit of {limit}")
            elif key in OVER_FUNCS and length <= FUNC_LIMIT:
                notes.append(f"{key} is within {FUNC_LIMIT} lines now: drop it from OVER_FUNCS")


def objects(build):
    """source file -> its object file, for the production libraries and programs."""
    out = {}
    for dirpath, _, names in os.walk(build):
        if "/tests" in dirpath or "/proto" in dirpath or "CMakeFiles" not in dirpath:
            continue
        for n in names:
            if n.endswith(".c.o"):
                src = n[:-2]
                room = os.path.basename(os.path.dirname(os.path.dirname(dirpath)))
                if room in ROOMS:
                    out.setdefault(f"{room}/{src}", os.path.join(dirpath, n))
    return out


def check_circles(build):
    objs = objects(build)
    if not objs:
        problems.append(f"no object files under {build}: build first (the circle check reads them)")
        return
    defined, used = {}, defaultdict(set)
    for src, obj in objs.items():
        r = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = src
        r = subprocess.run(["nm", "-u", obj], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            if parts:
                used[src].add(parts[-1])
    edges = defaultdict(set)
    for src, syms in used.items():
        for s in syms:
            if s in defined and defined[s] != src:
                edges[src].add(defined[s])
    # strongly connected components (Tarjan)
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(frozenset(comp))

    sys.setrecursionlimit(10000)
    for v in list(objs):
        if v not in index:
            visit(v)
    known = [frozenset(c) for c in CIRCLES]
    for comp in comps:
        if not any(comp <= k for k in known):
            problems.append("files calling each other in a circle: " + ", ".join(sorted(comp)))
    for k in known:
        if not any(k == c for c in comps):
            notes.append("a listed circle is smaller or gone now: " + ", ".join(sorted(k)))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    files = production_files()
    check_map(files)
    check_includes(files)
    check_pb(files)
    check_sizes(files)
    check_argv(files)
    check_circles(build)
    for n in notes:
        print("note:", n)
    for p in problems:
        print("house rule broken:", p)
    print(f"house: {len(files)} production files, {len(problems)} rule(s) broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
