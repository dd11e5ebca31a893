#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the house rules of docs/HACKING.md against the tree (and, for calls between
files, against the object files of a build):

- every production file stands in a subsystem folder (coordinator/run/, agent/engine/,
  common/wire/...), each with its README.md; no folder holds more than 25 .c/.h files or
  8,000 lines directly;
- docs/HACKING.md maps every production file, and every file it maps exists;
- includes: agent/ and coordinator/ never include each other's headers, common/ neither;
  inside a program, FOLDER_NEVER's folders never include the ones named (report never
  includes run; engine never session), and nothing includes a header of a cli/ folder
  but that cli/ folder;
- generated protobuf types appear only in the codec (common/wire/wire.c and the files
  it is split into, WIRE_CODEC) and the files in PB_USERS, each at most as often as
  today;
- no production file over 1,000 lines and no function over 120 lines (every function,
  measured by Universal Ctags' end lines: static inline ones and those returning a
  struct or an enum too), except those in OVER_FILES / OVER_FUNCS, which may not grow;
  a note at 850 lines a file and 90 a function, before the limit;
- no circle of files in different folders: calls (the object files' symbols), includes
  (a header counts as its .c file's) and calls of a header's static inline functions;
  a circle inside one folder is noted;
- a comment that names a file of the tree (agent/..., docs/....md) names one that exists;
- no command line parsed by hand: argv compared (strcmp(argv[...]), options matched
  over argv[i]) only in common/util/parseopt.c, the one parser every command's table
  goes to.

Usage: scripts/check-house.py [BUILD_DIR] [--root DIR] [--no-circles]
       scripts/check-house.py --writers FIELD   (every assignment to ->FIELD or .FIELD)
Exit 0: every rule holds; 1: it prints why. A limit that is met again (a file split, a
function shortened) is reported so its entry can go: the lists only ever shrink."""
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ROOMS = ("common", "agent", "coordinator")
FILE_LIMIT, FILE_NOTE = 1000, 850
FILE_LIMITS = {}  # file: a limit of its own (none today)
FUNC_LIMIT, FUNC_NOTE = 120, 90
FOLDER_FILES, FOLDER_LINES = 25, 8000
WIRE_CODEC = ("common/wire/wire.c", "common/wire/wire_result.c", "common/wire/wire_base.c",
              "common/wire/wire_samples.c", "common/wire/wire_priv.h")
# inside a program: a folder never includes (nor calls) the ones named
FOLDER_NEVER = {
    "coordinator/report": ("coordinator/run", "coordinator/service"),
    "coordinator/results": ("coordinator/run", "coordinator/report", "coordinator/service"),
    "coordinator/campaign": ("coordinator/run", "coordinator/report", "coordinator/service"),
    "agent/engine": ("agent/session",),
    "agent/guard": ("agent/session", "agent/engine"),
    "common/util": ("common/wire", "common/fio", "common/store"),
    "common/store": ("common/wire", "common/fio"),
}

# Today's exceptions, each with its present size: a ratchet. Shrink them; never add.
PB_USERS = {  # file: uses of Rb__* / rb__* generated names (only ever fewer)
}
OVER_FILES = {
}
OVER_FUNCS = {  # "file:function": lines
}
# state variables with one writer: (folder, field, the setter that alone assigns it)
ONE_WRITER = [
    ("coordinator/run/", "state", "agent_enter"),
    ("coordinator/run/", "phase", "coord_enter"),
    ("coordinator/run/", "apply", "ing_apply"),
]
CIRCLES = [  # circles across folders (none today)
]

problems = []
notes = []


def folder(f):
    return os.path.dirname(f)


def production_files():
    out = []
    for room in ROOMS:
        for dirpath, dirs, names in os.walk(os.path.join(ROOT, room)):
            dirs.sort()
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return out


def read(rel):
    with open(os.path.join(ROOT, rel), errors="replace") as f:
        return f.read()


def check_folders(files):
    by = defaultdict(list)
    for f in files:
        by[folder(f)].append(f)
    for d, fs in sorted(by.items()):
        if d in ROOMS:
            for f in fs:
                problems.append(f"{f} stands in {d}/ itself: put it in the subsystem folder "
                                "it belongs to (docs/HACKING.md)")
            continue
        lines = sum(read(f).count("\n") for f in fs)
        if len(fs) > FOLDER_FILES or lines > FOLDER_LINES:
            problems.append(f"{d}/ holds {len(fs)} .c/.h files and {lines} lines directly: at "
                            f"most {FOLDER_FILES} and {FOLDER_LINES}; split it")
        if not os.path.exists(os.path.join(ROOT, d, "README.md")):
            problems.append(f"{d}/ has no README.md saying what it owns and what it may call")


def check_map(files):
    text = read("docs/HACKING.md")
    mapped = set()
    for m in re.finditer(r"`((?:common|agent|coordinator)/[A-Za-z0-9_/]+)(\.\[ch\]|\.c|\.h)`",
                         text):
        base, ext = m.group(1), m.group(2)
        for e in ((".c", ".h") if ext == ".[ch]" else (ext,)):
            mapped.add(base + e)
    for f in sorted(mapped):
        if not os.path.exists(os.path.join(ROOT, f)):
            problems.append(f"docs/HACKING.md maps {f}, which does not exist")
    for f in files:
        if f not in mapped:
            problems.append(f"{f} is not in docs/HACKING.md's module map")


def header_index(files):
    """A header's name -> its file, per program (a room's own, then common's)."""
    idx = {room: {} for room in ROOMS}
    for f in files:
        if f.endswith(".h"):
            idx[f.split("/")[0]][os.path.basename(f)] = f
    return idx


def resolve(idx, f, h):
    room = f.split("/")[0]
    return idx[room].get(h) or idx["common"].get(h)


def includes(files):
    """file -> the production headers it includes (resolved)."""
    idx = header_index(files)
    out = {}
    for f in files:
        out[f] = []
        for m in re.finditer(r'^#include "([^"]+)"', read(f), re.M):
            h = resolve(idx, f, os.path.basename(m.group(1)))
            if h:
                out[f].append(h)
    return out


def check_includes(files, inc):
    idx = header_index(files)
    never = {"common": ("agent", "coordinator"), "agent": ("coordinator",),
             "coordinator": ("agent",)}
    for f in files:
        room = f.split("/")[0]
        for m in re.finditer(r'^#include "([^"]+)"', read(f), re.M):
            h = os.path.basename(m.group(1))
            for other in never[room]:
                if h in idx[other] and not resolve(idx, f, h):
                    problems.append(f"{f} includes {h} from {other}/ ({room}/ never does)")
        for h in inc[f]:
            hf = folder(h)
            if hf == folder(f):
                continue
            if hf.endswith("/cli"):
                problems.append(f"{f} includes {h}: nothing outside a cli/ folder includes it")
            for bad in FOLDER_NEVER.get(folder(f), ()):
                if hf == bad:
                    problems.append(f"{f} includes {h}: {folder(f)}/ never includes {bad}/")


def check_pb(files):
    bench = [f"bench/{n}" for n in os.listdir(os.path.join(ROOT, "bench")) if n.endswith(".c")]
    for f in files + bench:
        # the codec's own files: common/wire/wire.c and those it is split into
        if f in WIRE_CODEC or f.endswith("wire/wire.h"):
            continue
        text = read(f)
        n = len(re.findall(r"\b(?:Rb__|rb__)\w+", text)) + text.count("pb-c.h")
        cap = PB_USERS.get(f)
        if n and cap is None:
            problems.append(f"{f} uses generated protobuf types ({n} times): only the codec "
                            "(WIRE_CODEC) may")
        elif cap is not None and n > cap:
            problems.append(f"{f} uses generated protobuf types {n} times, more than its {cap}")
        elif cap is not None and n < cap:
            notes.append(f"{f}: {n} uses of generated types (ceiling {cap}: lower it)")


ARGV_PARSER = "common/util/parseopt.c"
ARGV_MATCH = re.compile(r"\bstrn?cmp\s*\(\s*argv\s*\[|\bargv\s*\[\s*i\s*\]|\bargv\s*\[\s*\d+\s*\]\s*\[")


def check_argv(files):
    for f in files:
        if f == ARGV_PARSER or not f.endswith(".c"):
            continue
        for n, line in enumerate(read(f).split("\n"), 1):
            if ARGV_MATCH.search(line):
                problems.append(f"{f}:{n} parses argv by hand ({line.strip()}): give the "
                                f"command a table for {ARGV_PARSER}")


def functions(files):
    """file -> [(name, first line, lines)] of every function it defines, by Universal
    Ctags' end lines (every definition: static inline ones, those returning structs)."""
    ctags = shutil.which("ctags")
    if not ctags or b"Universal" not in subprocess.run([ctags, "--version"],
                                                       capture_output=True).stdout:
        problems.append("Universal Ctags is needed to measure every function (Debian: "
                        "apt-get install universal-ctags)")
        return {}
    out = defaultdict(list)
    paths = [os.path.join(ROOT, f) for f in files]
    r = subprocess.run([ctags, "--languages=C", "--language-force=C", "--kinds-C=f",
                        "--fields=+ne", "-x", "--_xformat=%N %n %e %F", "-f", "-"] + paths,
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2].isdigit():
            name, start, end, path = parts[0], int(parts[1]), int(parts[2]), parts[3]
            out[os.path.relpath(path, ROOT)].append((name, start, end - start + 1))
    return out


_funcs = {}


def check_sizes(files):
    funcs = _funcs.setdefault("all", functions(files))
    measured = 0
    for f in files:
        text = read(f)
        n = text.count("\n")
        limit = max(FILE_LIMITS.get(f, FILE_LIMIT), OVER_FILES.get(f, 0))
        if n > limit:
            problems.append(f"{f} has {n} lines, over its limit of {limit}")
        elif f in OVER_FILES and n <= FILE_LIMITS.get(f, FILE_LIMIT):
            notes.append(f"{f} is within {FILE_LIMIT} lines now: drop it from OVER_FILES")
        elif n > FILE_NOTE:
            notes.append(f"{f} has {n} lines ({FILE_LIMIT} is the limit): choose its split")
        for name, line, length in funcs.get(f, ()):
            measured += 1
            key = f"{f}:{name}"
            limit = max(FUNC_LIMIT, OVER_FUNCS.get(key, 0))
            if length > limit:
                problems.append(f"{key} (line {line}) has {length} lines, over its limit of "
                                f"{limit}")
            elif key in OVER_FUNCS and length <= FUNC_LIMIT:
                notes.append(f"{key} is within {FUNC_LIMIT} lines now: drop it from OVER_FUNCS")
            elif length > FUNC_NOTE:
                notes.append(f"{key} has {length} lines ({FUNC_LIMIT} is the limit)")
    return measured


PATH_IN_COMMENT = re.compile(
    r"\b((?:agent|common|coordinator|docs|schemas|scripts|tests|bench|proto|python|deploy|"
    r"packaging)/[\w/.-]*\w\.(?:c|h|md|py|sh|proto|json|yaml))\b")


def comments(text):
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def check_comment_paths(files):
    for f in files:
        for line, c in comments(read(f)):
            for m in PATH_IN_COMMENT.finditer(c):
                p = m.group(1)
                if not os.path.exists(os.path.join(ROOT, p)):
                    problems.append(f"{f}:{line} names {p}, which does not exist")


def objects(build):
    """source file -> its object file, for the production libraries and programs."""
    out = {}
    for dirpath, _, names in os.walk(build):
        if "/tests" in dirpath or "/proto" in dirpath or "CMakeFiles" not in dirpath:
            continue
        for n in names:
            if not n.endswith(".c.o"):
                continue
            # BUILD/agent/CMakeFiles/rb_agent.dir/engine/engine.c.o: agent/engine/engine.c
            rel = os.path.relpath(os.path.join(dirpath, n[:-2]), build)
            room, _, rest = rel.partition("/CMakeFiles/")
            src = f"{room}/{rest.split('/', 1)[1]}" if "/" in rest else ""
            if room in ROOMS and os.path.exists(os.path.join(ROOT, src)):
                out.setdefault(src, os.path.join(dirpath, n))
    return out


def inline_calls(files, inc):
    """file -> the headers whose static inline functions it calls."""
    defs = {}
    for f in files:
        if f.endswith(".h"):
            for m in re.finditer(r"^static inline[^(;]*?\b(\w+)\s*\(", read(f), re.M):
                defs[m.group(1)] = f
    out = defaultdict(set)
    for f in files:
        text = read(f)
        for h in inc[f]:
            for name, where in defs.items():
                if where == h and re.search(rf"\b{name}\s*\(", text):
                    out[f].add(h)
    return out


def check_circles(build, files, inc):
    objs = objects(build)
    if not objs:
        problems.append(f"no object files under {build}: build first (the circle check reads "
                        "them)")
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

    def unit(f):  # a header counts as its .c file's, where it has one
        c = f[:-2] + ".c"
        return c if f.endswith(".h") and c in set(files) else f

    edges = defaultdict(set)
    for src, syms in used.items():
        for s in syms:
            if s in defined and defined[s] != src:
                edges[src].add(defined[s])
    for f, hs in inc.items():
        for h in hs:
            if unit(h) != unit(f):
                edges[unit(f)].add(unit(h))
    for f, hs in inline_calls(files, inc).items():
        for h in hs:
            if unit(h) != unit(f):
                edges[unit(f)].add(unit(h))
    comps = strong(edges, list(objs) + [unit(f) for f in files])
    known = [frozenset(c) for c in CIRCLES]
    for comp in comps:
        folders = {folder(f) for f in comp}
        if len(folders) > 1 and not any(comp <= k for k in known):
            problems.append("files of different folders calling each other in a circle: "
                            + ", ".join(sorted(comp)))
        elif len(folders) == 1:
            notes.append(f"a circle inside {folders.pop()}/: " + ", ".join(sorted(comp)))
    for k in known:
        if not any(k == c for c in comps):
            notes.append("a listed circle is smaller or gone now: " + ", ".join(sorted(k)))


def strong(edges, nodes):
    """The strongly connected components of more than one node (Tarjan)."""
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
    for v in nodes:
        if v not in index:
            visit(v)
    return comps


def check_one_writer(files):
    """A state variable is assigned in its setter only (systemd's *_set_state())."""
    funcs = _funcs.get("all") or functions(files)
    for room, field, setter in ONE_WRITER:
        pat = re.compile(rf"(?:->|\.){re.escape(field)}\s*(?:[-+|&]?=(?!=)|\+\+|--)")
        for f in files:
            if not f.startswith(room) or not f.endswith(".c"):
                continue
            for n, line in enumerate(read(f).split("\n"), 1):
                if not pat.search(line) or line.lstrip().startswith(("/*", "*")):
                    continue
                inside = [name for name, first, length in funcs.get(f, ())
                          if first <= n < first + length]
                if setter not in inside:
                    problems.append(f"{f}:{n} sets ->{field} outside {setter}(), its one "
                                    f"writer ({line.strip()})")


def writers(field):
    """Every assignment to ->field or .field in the production files."""
    pat = re.compile(rf"(?:->|\.){re.escape(field)}\s*(?:[-+|&]?=(?!=)|\+\+|--)")
    for f in production_files():
        for n, line in enumerate(read(f).split("\n"), 1):
            if pat.search(line):
                print(f"{f}:{n}: {line.strip()}")


def main():
    global ROOT
    args = sys.argv[1:]
    if "--writers" in args:
        writers(args[args.index("--writers") + 1])
        return 0
    if "--root" in args:
        i = args.index("--root")
        ROOT = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    circles = "--no-circles" not in args
    args = [a for a in args if a != "--no-circles"]
    build = args[0] if args else os.path.join(ROOT, "build")
    files = production_files()
    inc = includes(files)
    check_folders(files)
    check_map(files)
    check_includes(files, inc)
    check_pb(files)
    measured = check_sizes(files)
    check_comment_paths(files)
    check_argv(files)
    check_one_writer(files)
    if circles:
        check_circles(build, files, inc)
    for n in notes:
        print("note:", n)
    for p in problems:
        print("house rule broken:", p)
    print(f"house: {len(files)} production files, {measured} functions measured, "
          f"{len(problems)} rule(s) broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
