# SPDX-License-Identifier: MIT
"""The bash completion scripts of both programs, made from their tables, driven through
bash: commands at the first word, each command's flags (every one its --help lists),
preset names for `rackbench presets`, the agent's flags of agent.yaml's key table, files
where a flag's value goes."""
import json
import os
import re
import shlex
import shutil

from rbtest import AGENT, COORD, Tmp, check, run, skip

if not shutil.which("bash"):
    skip("no bash")


def script(prog):
    r = run([prog, "completion", "bash"])
    check(r.returncode == 0 and "complete -F" in r.stdout, f"{prog} completion bash: {r.stderr}")
    return r.stdout


def complete(path, name, words, cwd=None):
    """What the script at path completes for the command line words (the last is the word
    being completed), as bash's completion function leaves COMPREPLY."""
    fn = "_" + name.replace("-", "_")
    line = " ".join(shlex.quote(w) for w in words)
    r = run(["bash", "--norc", "-c", f"source {shlex.quote(path)}\n"
             f"complete -p {name}\n"
             f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}\n"
             f"{fn}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n"], cwd=cwd)
    check(r.returncode == 0, f"{words}: {r.stderr}")
    out = r.stdout.splitlines()
    check(out and f"-F {fn} {name}" in out[0], f"complete -p {name}: {out[:1]}")
    return set(x for x in out[1:] if x)


def help_flags(args):
    r = run(args + ["--help"])
    check(r.returncode == 0, f"{args} --help: {r.stderr}")
    return set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", r.stdout, re.M))


with Tmp() as tmp:
    for prog in (COORD, AGENT):
        name = os.path.basename(prog)
        path = os.path.join(tmp, name + ".bash")
        with open(path, "w") as f:
            f.write(script(prog))
        cmds = complete(path, name, [name, ""])
        check("keygen" in cmds and "completion" in cmds, f"{name} commands: {cmds}")
        # every command: the flags its --help lists, all of them and no others
        for cmd in sorted(cmds - {"help"}):
            got = complete(path, name, [name, cmd, "--"]) | complete(path, name, [name, cmd, "-"])
            want = help_flags([prog, cmd])
            check(got == want, f"{name} {cmd}: completes {sorted(got ^ want)} apart from --help")
        check(complete(path, name, [name, "completion", ""]) == {"bash"}, "completion's shell")

    coord = os.path.join(tmp, "rackbench.bash")
    agent = os.path.join(tmp, "rackbench-agent.bash")
    check(complete(coord, "rackbench", ["rackbench", "pl"]) == {"plan"}, "a command's start")
    check(complete(coord, "rackbench", ["rackbench", "re"]) == {"resume", "report"}, "two commands")
    check(complete(coord, "rackbench", ["rackbench", "plan", "x.yaml", "--assume-"]) ==
          {"--assume-capacity", "--assume-mbps"}, "plan's flags")
    check(complete(coord, "rackbench", ["rackbench", "--v"]) == {"--version"}, "the program's flag")
    # preset names, as `rackbench options --json` lists them
    presets = json.loads(run([COORD, "options", "--json"]).stdout)["presets"]
    check(len(presets) > 1, f"presets {presets}")
    check(complete(coord, "rackbench", ["rackbench", "presets", ""]) == set(presets), "preset names")
    first = presets[0][:3]
    check(complete(coord, "rackbench", ["rackbench", "presets", first]) ==
          {p for p in presets if p.startswith(first)}, f"preset names starting {first}")
    # the workload keys, hyphenated, for rackbench-agent run; the daemon's flags
    check(complete(agent, "rackbench-agent", ["rackbench-agent", "run", "--rate"]) == {"--rate-iops"},
          "run's workload flags")
    check(complete(agent, "rackbench-agent", ["rackbench-agent", "--coordinator"]) ==
          {"--coordinator", "--coordinator-key"}, "the daemon's flags")
    check(complete(agent, "rackbench-agent", ["rackbench-agent", "inv"]) == {"inventory"},
          "the agent's commands")
    # the daemon's flags that set agent.yaml's keys: one for each row of its key table that
    # has one, as `rackbench-agent options --json` lists them
    rows = json.loads(run([AGENT, "options", "--json"]).stdout)["agent_keys"]
    flags = {"--" + k["flag"] for k in rows if k["flag"]}
    check(len(flags) >= 10, f"agent key flags {flags}")
    check(flags <= complete(agent, "rackbench-agent", ["rackbench-agent", "--"]),
          "the agent's key flags")
    check(complete(agent, "rackbench-agent", ["rackbench-agent", "--spool"]) == {"--spool-max"},
          "a key's flag")
    check(complete(agent, "rackbench-agent", ["rackbench-agent", "options", "--"]) ==
          {"--json", "--help"}, "options' flags")
    # a flag's value: files
    os.makedirs(os.path.join(tmp, "w"))
    open(os.path.join(tmp, "w", "job.fio"), "w").close()
    check(complete(agent, "rackbench-agent", ["rackbench-agent", "run", "--fio", "jo"],
                   cwd=os.path.join(tmp, "w")) == {"job.fio"}, "a value is a file")
    check(complete(coord, "rackbench", ["rackbench", "plan", "jo"], cwd=os.path.join(tmp, "w")) ==
          {"job.fio"}, "plan's campaign is a file")
    check(complete(coord, "rackbench", ["rackbench", "demo", "x"]) == set(), "demo takes no file")
print("ok")
