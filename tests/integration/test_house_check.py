# SPDX-License-Identifier: MIT
"""scripts/check-house.py measures what it claims, on a small tree made here (--root):
a file in a subsystem folder is measured and mapped; a long function is found whatever
it returns (a struct, an enum) and however it is declared (static inline, in a header);
an include across folders the wrong way, a cli/ header included from outside, a comment
naming a file that does not exist, a folder without a README, a folder of 26 files and a
file standing in a room itself are each refused by name -- and the same tree put right
passes. On the real tree, the functions it measures are as many as Universal Ctags
lists."""
import os
import re
import shutil
import subprocess
import sys

from rbtest import SRC, Tmp, check, skip

if not shutil.which("ctags"):
    skip("needs Universal Ctags (scripts/install-deps.sh installs universal-ctags)")
SCRIPT = os.path.join(SRC, "scripts", "check-house.py")


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def body(n):
    return "{\n" + "\tx++;\n" * (n - 2) + "}\n"


def house(root):
    r = subprocess.run([sys.executable, SCRIPT, "--root", root, "--no-circles"],
                       capture_output=True, text=True)
    print(r.stdout)
    return r.returncode, r.stdout


with Tmp() as root:
    os.mkdir(os.path.join(root, "bench"))
    files = {
        "agent/engine/loop.c": "static int x;\n\nint short_one(void)\n" + body(10)
        + "struct big grown(void)\n" + body(130)
        + "enum e chosen(int a,\n\t     int b)\n" + body(125),
        "agent/engine/hot.h": "static inline void hot(void)\n" + body(122),
        "agent/session/session.h": "struct s;\n",
        "agent/cli/cmds.h": "int cmd(void);\n",
        "agent/engine/uses.c": '#include "session.h"\n#include "cmds.h"\n'
        "/* see agent/engine/gone.c and docs/HACKING.md */\nint y;\n",
        # an agent's state has one writer, agent_enter(): a second one is refused
        "coordinator/run/orders.c": "void agent_enter(struct ragent *a, int st)\n{\n"
        "\ta->state = st;\n}\n\nvoid order(struct ragent *a)\n{\n\ta->state = 3;\n}\n",
    }
    for rel, text in files.items():
        write(root, rel, text)
    for d in ("agent/engine", "agent/session", "coordinator/run"):
        write(root, f"{d}/README.md", "what it owns\n")
    write(root, "agent/stray.c", "int z;\n")
    for i in range(26):
        write(root, f"coordinator/big/f{i}.h", "int v;\n")
    mapped = list(files) + ["agent/stray.c"] + [f"coordinator/big/f{i}.h" for i in range(26)]
    write(root, "docs/HACKING.md", "".join(f"| `{f}` | x |\n" for f in mapped
                                          if f != "agent/engine/uses.c"))
    rc, out = house(root)
    check(rc == 1, f"the check passed a broken tree: {out}")
    # a function is its signature to its closing brace: 1 + 130 lines
    for want in ("agent/engine/loop.c:grown (line 14) has 131 lines",
                 "agent/engine/loop.c:chosen", "agent/engine/hot.h:hot",
                 "agent/engine/uses.c is not in docs/HACKING.md's module map",
                 "agent/engine/uses.c includes agent/session/session.h: agent/engine/ never "
                 "includes agent/session/",
                 "agent/engine/uses.c includes agent/cli/cmds.h: nothing outside a cli/",
                 "agent/engine/uses.c:3 names agent/engine/gone.c, which does not exist",
                 "agent/cli/ has no README.md", "coordinator/big/ holds 26 .c/.h files",
                 "agent/stray.c stands in agent/ itself",
                 "coordinator/run/orders.c:8 sets ->state outside agent_enter()"):
        check(want in out, f"the check does not say {want!r}")
    check("docs/HACKING.md, which" not in out, "a file that exists was called missing")
    check("short_one" not in out, "a short function was refused")
    check("orders.c:3 " not in out, "the setter itself was refused")
    # put right: it passes, every function still measured
    write(root, "agent/engine/loop.c", "int short_one(void)\n" + body(10)
          + "struct big grown(void)\n" + body(60) + "enum e chosen(void)\n" + body(60))
    write(root, "agent/engine/hot.h", "static inline void hot(void)\n" + body(20))
    write(root, "agent/engine/uses.c", "/* see docs/HACKING.md */\nint y;\n")
    write(root, "agent/cli/README.md", "x\n")
    os.unlink(os.path.join(root, "agent/stray.c"))
    shutil.rmtree(os.path.join(root, "coordinator"))
    del files["coordinator/run/orders.c"]
    write(root, "docs/HACKING.md", "".join(f"| `{f}` | x |\n" for f in files))
    rc, out = house(root)
    check(rc == 0, f"the tree put right still fails: {out}")
    check("4 functions measured" in out, f"short_one, grown, chosen, hot: {out}")

# the real tree: as many functions measured as Universal Ctags lists
rc, out = house(SRC)
m = re.search(r"(\d+) functions measured", out)
paths = [os.path.join(d, n) for room in ("agent", "common", "coordinator")
         for d, _, ns in os.walk(os.path.join(SRC, room)) for n in ns if n.endswith((".c", ".h"))]
listed = subprocess.run(["ctags", "--languages=C", "--language-force=C", "--kinds-C=f", "-x",
                         "-f", "-"] + paths, capture_output=True, text=True).stdout
count = len([line for line in listed.splitlines() if line.strip()])
check(m and int(m.group(1)) == count, f"measured {m and m.group(1)}, ctags lists {count}")
print("ok")
