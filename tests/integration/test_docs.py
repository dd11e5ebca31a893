# SPDX-License-Identifier: MIT
"""The manual holds: every runnable block of README.md and docs/*.md is run against the
built programs, and every relative link of those pages leads to a file that exists (and,
for a link to a heading, to that heading).

A runnable block is a fenced block whose opening fence has the line `<!-- runnable -->`
right before it (docs/HACKING.md, "How to add"). Each runs on its own:

- in a fresh temporary folder, which holds links to the checkout's schemas/ and python/
  so that a block reads as if run from the source root without writing into it;
- `sh` and `bash` blocks under `bash -e -o pipefail`, `python` blocks under this Python;
- with the folders of RB_COORD and RB_AGENT first on PATH (a block says `rackbench` and
  `rackbench-agent`), TMPDIR and RACKBENCH_CONTROL inside its folder (no service of the
  machine is used), stdin from /dev/null;
- for at most BLOCK_TIMEOUT seconds; then its whole process group is stopped, so a block
  may leave nothing behind that it started in the background.

A block that exits non-zero fails the test with its file, the line of its fence and its
output. README.md is also held to its shape as the front door: under 8 KB, its first
block ./scripts/demo.sh and ./scripts/test.sh (what .ci/run runs), and at least one
runnable block (the tour).

Every other command block (sh, bash, console) says why it cannot run here with the line
`<!-- needs: REASON -->` before its fence (real NVMe drives, racks, Slurm, Kubernetes,
systemd, a fleet of hosts...), so that nothing a page tells a reader to type goes
untested by accident.

Every YAML example is read by what would read it: a campaign (a fragment is completed
around it: a name, a target, a phase) by `rackbench plan`, an agent.yaml by the agent's
configuration check (`rackbench-agent inventory --config`), a spec by `report --spec`'s
loader, a Kubernetes manifest by scripts/check-k8s.py, a Prometheus configuration by
promtool; the kind is told from its keys, or named by a line `<!-- yaml: KIND -->`
before its fence (KIND one of those, or `none, REASON` for YAML no program of this
tree reads). So is YAML in prose: an inline `key: value` whose key is a campaign's or an
agent.yaml's, read in each place it could stand (the campaign's root, a phase, a
workload, a target, agent.yaml) and refused only when no place takes it; one with a
placeholder (NAME, N, ..., a|b) is a template, not an example."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import yaml

from rbtest import AGENT, COORD, SRC

MARK = "<!-- runnable -->"
RUNNERS = {"sh": ["bash", "-e", "-o", "pipefail"], "bash": ["bash", "-e", "-o", "pipefail"],
           "python": [sys.executable]}
BLOCK_TIMEOUT = 60
LINKS = ("schemas", "python")  # the checkout's folders a block may read
README_LIMIT = 8 * 1024
TAIL = 60  # lines of a failed block's output shown

problems = []


def pages():
    return [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "docs", "*.md")))


def rel(path):
    return os.path.relpath(path, SRC)


def fences(lines):
    """(start line index, end line index, info string) of every fenced block; end is the
    closing fence's index (len(lines) when it is missing)."""
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})\s*(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).strip()
        j = i + 1
        while j < len(lines) and not re.match(r"^ {0,3}" + re.escape(fence[0]) + "{%d,}\\s*$"
                                               % len(fence), lines[j]):
            j += 1
        out.append((i, j, info))
        i = j + 1
    return out


def blocks(path, lines):
    """Runnable blocks of a page: (line number of the fence, language, code)."""
    out = []
    found = fences(lines)
    starts = {s: (e, info) for s, e, info in found}
    inside = set()
    for s, e, _ in found:
        inside.update(range(s, e + 1))
    for i, line in enumerate(lines):
        if line.strip() != MARK or i in inside:
            continue
        where = f"{rel(path)}:{i + 1}"
        if i + 1 not in starts:
            problems.append(f"{where}: '{MARK}' is not right before a fenced block")
            continue
        end, info = starts[i + 1]
        lang = info.split()[0] if info else ""
        if lang not in RUNNERS:
            problems.append(f"{where}: a runnable block must be one of {sorted(RUNNERS)}, "
                            f"not '{lang or 'no language'}'")
            continue
        if end >= len(lines):
            problems.append(f"{where}: the runnable block is never closed")
            continue
        out.append((i + 2, lang, "\n".join(lines[i + 2:end]) + "\n"))
    return out


def slug(heading):
    """A heading's anchor as GitHub makes it."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        lines = open(path).read().split("\n")
        inside = set()
        for s, e, _ in fences(lines):
            inside.update(range(s, e + 1))
        seen = {}
        names = set()
        for i, line in enumerate(lines):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m or i in inside:
                continue
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            names.add(base if n == 0 else f"{base}-{n}")
        cache[path] = names
    return cache[path]


def check_links(path, lines):
    inside = set()
    for s, e, _ in fences(lines):
        inside.update(range(s, e + 1))
    for i, line in enumerate(lines):
        if i in inside:
            continue
        text = re.sub(r"`[^`]*`", "", line)  # inline code is not a link
        for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            where = f"{rel(path)}:{i + 1}"
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                problems.append(f"{where}: link to '{target}': {rel(dest)} does not exist")
                continue
            if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{where}: link to '{target}': {rel(dest)} has no heading "
                                f"'#{anchor}'")


def check_readme(lines):
    size = os.path.getsize(os.path.join(SRC, "README.md"))
    if size >= README_LIMIT:
        problems.append(f"README.md is {size} bytes: the front door stays under "
                        f"{README_LIMIT}; move the detail into docs/")
    found = fences(lines)
    first = "\n".join(lines[found[0][0] + 1:found[0][1]]) if found else ""
    cmds = [ln.split("#")[0].strip() for ln in first.split("\n") if ln.strip()]
    if cmds[:2] != ["./scripts/demo.sh", "./scripts/test.sh"]:
        problems.append("README.md: the first block must be ./scripts/demo.sh and "
                        f"./scripts/test.sh, as .ci/run says; it is {cmds}")
    ci = open(os.path.join(SRC, ".ci", "run")).read()
    if "exec ./scripts/test.sh" not in ci:
        problems.append(".ci/run no longer runs ./scripts/test.sh: README.md's first block "
                        "says it does")


def indent(text):
    return "\n".join("    " + ln for ln in text.split("\n"))


def run_block(path, line, lang, code, env_base):
    where = f"{rel(path)}:{line}"
    tmp = tempfile.mkdtemp(prefix="rbdocs-")
    for name in LINKS:
        os.symlink(os.path.join(SRC, name), os.path.join(tmp, name))
    script = os.path.join(tmp, ".block." + ("py" if lang == "python" else "sh"))
    with open(script, "w") as f:
        f.write(code)
    env = dict(env_base, TMPDIR=tmp, RACKBENCH_CONTROL=os.path.join(tmp, "control"))
    log = os.path.join(tmp, ".block.out")
    start = time.monotonic()
    with open(log, "wb") as out:
        # a session of its own: what the block starts in the background goes with it
        p = subprocess.Popen(RUNNERS[lang] + [script], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            rc = p.wait(BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            timed_out, rc = True, None
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            # a grace period between SIGTERM and SIGKILL: the block's agents get to stop as
            # systemd would stop them (half a second is what it takes them here)
            time.sleep(0.5 if sig == signal.SIGTERM else 0)
        if timed_out:
            p.wait()
    took = time.monotonic() - start
    output = open(log, errors="replace").read()
    subprocess.run(["rm", "-rf", tmp])
    print(f"{where}: {lang} block, {took:.1f} s, " + ("timed out" if timed_out else f"exit {rc}"))
    if timed_out or rc != 0:
        tail = "\n".join(output.rstrip("\n").split("\n")[-TAIL:])
        why = f"ran past {BLOCK_TIMEOUT} s" if timed_out else f"exited {rc}"
        problems.append(f"{where}: the runnable block {why}; its output (last {TAIL} lines):\n"
                        + indent(tail) + "\n  the block:\n" + indent(code.rstrip()))


NEEDS = re.compile(r"^<!-- needs: (.+) -->$")
YAML_KIND = re.compile(r"^<!-- yaml: (campaign|agent|spec|k8s|prometheus|none)(?:, (.+))? -->$")
COMMAND_LANGS = ("sh", "bash", "console", "shell")
AGENT_KEYS = set()  # agent.yaml's keys: the agent's key table (main reads it)
SPEC_KEYS = {"model", "claims", "health"}
# a placeholder: a template, not an example
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]*\b|\.\.\.|\||\[percentages\]|\[values\]|"
                         r"\{[^:{}]*\}")


def command_blocks(path, lines):
    """Command blocks that are neither runnable nor say what they need."""
    for s, e, info in fences(lines):
        lang = info.split()[0] if info else ""
        if lang not in COMMAND_LANGS:
            continue
        prev = lines[s - 1].strip() if s else ""
        if prev == MARK or NEEDS.match(prev):
            continue
        problems.append(f"{rel(path)}:{s + 1}: a command block that is not runnable must say "
                        f"why with '<!-- needs: REASON -->' before its fence (or be made "
                        f"runnable with '{MARK}')")


def kind_of(doc):
    """What reads a YAML document, from its keys."""
    if not isinstance(doc, dict):
        return None
    keys = set(doc)
    if "apiVersion" in keys:
        return "k8s"
    if "scrape_configs" in keys:
        return "prometheus"
    if keys & {"claims", "health"} and keys <= SPEC_KEYS:
        return "spec"
    if keys <= AGENT_KEYS and keys & {"coordinator", "state_dir", "commands", "allow", "labels"}:
        return "agent"
    return "campaign"


def campaign_text(doc):
    """A campaign fragment made whole: a name, a target, a phase where it has none."""
    doc = dict(doc)
    doc.setdefault("name", "docs")
    if "targets" not in doc:
        doc["targets"] = [{"agent": "docs-a1", "drives": ["/dev/nvme0n1"]}]
    if "phases" not in doc and "preset" not in doc:
        doc["phases"] = [{"workload": {"rw": "randread", "runtime": "1s"}}]
    return yaml.safe_dump(doc, sort_keys=False)


def read_yaml(kind, text, tmp):
    """(exit code, what the reader said) of a YAML text of kind; None: no reader here."""
    path = os.path.join(tmp, "example.yaml")
    with open(path, "w") as f:
        f.write(text)
    if kind == "campaign":
        r = subprocess.run([COORD, "plan", path], capture_output=True, text=True)
    elif kind == "agent":
        r = subprocess.run([AGENT, "inventory", "--config", path], capture_output=True,
                           text=True)
    elif kind == "spec":
        r = subprocess.run([COORD, "report", os.path.join(tmp, "none.h5"), "--spec", path],
                           capture_output=True, text=True)
        # the loader speaks first; a results file that is not there is no fault of the spec
        return (1 if path + ":" in r.stderr else 0), r.stderr
    elif kind == "k8s":
        r = subprocess.run([sys.executable, os.path.join(SRC, "scripts", "check-k8s.py"), path],
                           capture_output=True, text=True)
    elif kind == "prometheus":
        if not shutil.which("promtool"):
            return None
        r = subprocess.run(["promtool", "check", "config", "--syntax-only", path],
                           capture_output=True, text=True)
    else:
        return None
    return r.returncode, r.stdout + r.stderr


def yaml_blocks(path, lines, tmp):
    for s, e, info in fences(lines):
        lang = info.split()[0] if info else ""
        if lang not in ("yaml", "yml"):
            continue
        where = f"{rel(path)}:{s + 1}"
        m = YAML_KIND.match(lines[s - 1].strip() if s else "")
        text = "\n".join(lines[s + 1:e]) + "\n"
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as err:
            problems.append(f"{where}: not YAML: {err}")
            continue
        kind = m.group(1) if m else kind_of(doc)
        if kind == "none":
            continue
        if kind == "campaign":
            text = campaign_text(doc)
        got = read_yaml(kind, text, tmp)
        if got is None:
            continue
        rc, said = got
        if rc not in (0, 5):
            problems.append(f"{where}: the {kind} example does not read: " + said.strip()[-800:])


def inline_yaml(path, lines, tmp):
    """Inline `key: value` examples in prose, read where such a key can stand."""
    inside = set()
    for s, e, _ in fences(lines):
        inside.update(range(s, e + 1))
    for i, line in enumerate(lines):
        if i in inside:
            continue
        for m in re.finditer(r"`([a-z_]+): ([^`]+)`", line):
            key, value = m.group(1), m.group(2)
            if PLACEHOLDER.search(value):
                continue
            try:
                yaml.safe_load(f"{key}: {value}")
            except yaml.YAMLError:
                problems.append(f"{rel(path)}:{i + 1}: `{key}: {value}` is not YAML")
                continue
            span = f"{key}: {value}"
            one = "targets: [{agent: a1, drives: [/dev/nvme0n1]}]\n"
            places = [
                # the root; a preset's
                ("campaign", f"name: docs\n{span}\n{one}phases:\n  - workload: "
                             "{runtime: 1s}\n", 2),
                ("campaign", f"name: docs\n{span}\n{one}preset: burnin\n", 2),
                # a phase with a workload, and one without (a purge)
                ("campaign", f"name: docs\n{one}phases:\n  - workload: {{runtime: 1s}}\n"
                             f"    {span}\n", 5),
                ("campaign", f"name: docs\n{one}phases:\n  - name: p\n    {span}\n", 5),
                # a workload (the defaults)
                ("campaign", f"name: docs\ndefaults:\n  {span}\n{one}phases:\n"
                             "  - name: p\n", 3),
                # a target: with an agent and drives, without drives, without an agent
                ("campaign", f"name: docs\ntargets:\n  - agent: a1\n    {span}\n"
                             f"    drives: [/dev/nvme0n1]\nphases:\n  - name: p\n", 4),
                ("campaign", f"name: docs\ntargets:\n  - agent: a1\n    {span}\n"
                             f"phases:\n  - name: p\n", 4),
                ("campaign", f"name: docs\ntargets:\n  - {span}\n"
                             f"    drives: [/dev/nvme0n1]\nphases:\n  - name: p\n", 3),
                ("agent", f"{span}\n", 1),
            ]
            # a place that does not know the key does not count; one that knows it takes
            # the span unless it says something of the key (what the place lacks besides
            # is the template's, not the example's)
            said, took = [], False
            for kind, text, at in places:
                rc, out = read_yaml(kind, text, tmp)
                here = [x for x in out.splitlines() if f"example.yaml:{at}:" in x]
                if any(f"unknown key '{key}'" in x for x in here):
                    continue
                about = [x for x in here if f"'{key}'" in x]
                if not about:
                    took = True
                    break
                said += about
            if not took and said:
                problems.append(f"{rel(path)}:{i + 1}: `{span}` is read nowhere it could stand: "
                                + "; ".join(x.split(": ", 1)[-1] for x in said[:3]))


def main():
    bins = [os.path.dirname(os.path.abspath(COORD)), os.path.dirname(os.path.abspath(AGENT))]
    for b, name in zip(bins, ("rackbench", "rackbench-agent")):
        if not os.access(os.path.join(b, name), os.X_OK):
            print(f"FAIL: {name} is not built in {b}")
            sys.exit(1)
    out = subprocess.run([AGENT, "options", "--json"], capture_output=True, text=True).stdout
    AGENT_KEYS.update(k["name"] for k in json.loads(out)["agent_keys"])
    env = dict(os.environ, PATH=os.pathsep.join(bins + [os.path.dirname(sys.executable),
                                                       os.environ.get("PATH", "")]))
    env.pop("RACKBENCH_CONTROL", None)
    todo = []
    tmp = tempfile.mkdtemp(prefix="rbdocs-yaml-")
    for path in pages():
        lines = open(path).read().split("\n")
        check_links(path, lines)
        command_blocks(path, lines)
        yaml_blocks(path, lines, tmp)
        inline_yaml(path, lines, tmp)
        found = blocks(path, lines)
        if rel(path) == "README.md":
            check_readme(lines)
            if not found:
                problems.append("README.md has no runnable block: the tour is not tested")
        todo += [(path,) + b for b in found]
    shutil.rmtree(tmp, ignore_errors=True)
    start = time.monotonic()
    for path, line, lang, code in todo:
        run_block(path, line, lang, code, env)
    print(f"{len(todo)} runnable block(s) in {time.monotonic() - start:.1f} s")
    if problems:
        print("FAIL:\n" + "\n".join(problems))
        sys.exit(1)
    print("ok")


main()
