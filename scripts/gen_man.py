#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the manual pages from the programs' own tables: rackbench(1) and
rackbench-agent(1) from each command's --help (made by the option parser from its table)
and its agent.yaml keys from the agent's key table (`rackbench-agent options --json`),
rackbench-campaign(5) from the campaign key table and the workload option table
(`rackbench options --json`), each with a few hand-written sections kept here. The pages
are committed in man/; tests/integration/test_man.py regenerates them, compares, and has
`man --warnings -l` render each without a warning.

    scripts/gen_man.py build/coordinator/rackbench build/agent/rackbench-agent man/
"""
import json
import os
import re
import subprocess
import sys

DATE = "2026-12"
EXIT = [("0", "ok"), ("1", "failed: the run could not be done (agents, named or of an agent "
                          "group, that did not connect in time; results that could not be "
                          "written)"),
        ("2", "bad input: a flag, a campaign, a job file, a results file; a campaign the "
              "connected agents cannot meet (a selector short of drives, a drive not offered, "
              "a point past a drive's end)"),
        ("3", "refused by the safety guard"), ("4", "a run that did not complete (partial results), a drive INCOMPLETE, or a spec "
              "check not judged"),
        ("5", "a drive's verdict FAIL, or a spec check below its requirement (report --spec "
              "--require)"),
        ("6", "IO errors during the run"),
        ("7", "the service is busy: a run going on (run --queue waits its turn) or its queue "
              "full; nothing was started")]


def esc(text):
    """Text as roff: backslashes, a leading dot or quote, and hyphens as minus signs."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line[:1] in (".", "'") else line
                     for line in text.split("\n"))


def helptext(prog, *args):
    r = subprocess.run([prog, *args, "--help"], capture_output=True, text=True)
    return r.stdout


OPTION = re.compile(r"^  (-\S.*?)(?:\s{2,}(.*))?$")


def help_to_roff(text):
    """A command's --help: its usage line, its paragraphs, its options as tagged items."""
    out, para, opt = [], [], None
    lines = text.rstrip("\n").split("\n")

    def flush():
        nonlocal para
        if para:
            out.append(".PP")
            out.append(esc(" ".join(x.strip() for x in para)))
            para = []

    for line in lines[1:]:
        m = OPTION.match(line)
        if m:
            flush()
            opt = [m.group(1).strip(), m.group(2) or ""]
            out.append(".TP")
            out.append(".B " + esc(opt[0]))
            out.append(esc(opt[1]))
            continue
        if opt and line.startswith("    ") and line.strip():
            out[-1] += " " + esc(line.strip())
            continue
        opt = None
        if not line.strip():
            flush()
        else:
            para.append(line)
    flush()
    return lines[0].replace("usage: ", ""), out


def header(name, section, title):
    return [f'.TH {name.upper()} {section} "{DATE}" "rackbench" "{title}"', ".SH NAME",
            f"{esc(name)} \\- " + esc(title)]


def precedence():
    """The exit codes in the order that decides between them, as common/util/exitcode.h has it."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "common", "util", "exitcode.h")) as f:
        text = f.read()
    codes = dict(re.findall(r"(RB_EXIT_[A-Z_]+) = (\d+)", text))
    order = re.search(r"#define RB_EXIT_PRECEDENCE\s*\\?\s*\{([^}]*)\}", text, re.S).group(1)
    return [codes[n] for n in re.findall(r"RB_EXIT_[A-Z_]+", order)]


def exit_status():
    out = [".SH EXIT STATUS", "Both programs use the same codes:"]
    for code, what in EXIT:
        out += [".TP", f".B {code}", esc(what)]
    out += [".PP", esc("When a run ends in several of them, its code is the first in this "
                       "order: " + ", ".join(precedence()) + ".")]
    return out


def commands_of(prog, listing):
    """The commands a program lists in its help: (name, summary)."""
    return re.findall(r"^  ([a-z][a-z-]*)\b[^\n]*\n      ([^\n]+)", listing, re.M)


def coordinator_page(coord):
    listing = subprocess.run([coord, "help"], capture_output=True, text=True).stdout
    out = header("rackbench", 1, "the coordinator of a storage benchmark fleet")
    out += [".SH SYNOPSIS", ".B rackbench", ".I COMMAND", "[\\fIARGS\\fR]",
            ".SH DESCRIPTION",
            esc("rackbench splits a benchmark campaign (a YAML file, rackbench-campaign(5)) "
                "across rackbench-agent(1) processes on many hosts, checks every drive with "
                "the safety guard before anything is written, runs the campaign's points on "
                "all agents together, and stores every sample in one HDF5 file per run, with "
                "a journal that lets a crashed run be resumed. It runs in-process or as a "
                "service (rackbench serve) that campaigns are submitted to."),
            ".SH COMMANDS"]
    for name, summary in commands_of(coord, listing):
        if name in ("help",):
            continue
        usage, body = help_to_roff(helptext(coord, name))
        out += [".SS " + esc(usage), esc(summary[:1].upper() + summary[1:] + ".")] + body
        # a command of commands (fleet): each of its own, from its own --help
        text = helptext(coord, name)
        if "\ncommands:\n" in text:
            for sub, ssum in commands_of(coord, text.split("\ncommands:\n", 1)[1]):
                usage, body = help_to_roff(helptext(coord, name, sub))
                out += [".SS " + esc(usage), esc(ssum[:1].upper() + ssum[1:] + ".")] + body
    out += exit_status()
    out += [".SH ENVIRONMENT", ".TP", ".B RACKBENCH_CONTROL",
            esc("the service's control socket (default /run/rackbench/control as root, else "
                "/tmp/rackbench-UID/control)"),
            ".SH FILES", ".TP", ".I RESULTS.h5",
            esc("a run's results (HDF5), with RESULTS.h5.journal beside it while it runs"),
            ".SH SEE ALSO", "rackbench-agent(1), rackbench-campaign(5)"]
    return "\n".join(out) + "\n"


def agent_page(agent):
    text = helptext(agent)
    usage, body = help_to_roff(text)
    out = header("rackbench-agent", 1, "the per-host agent of a storage benchmark fleet")
    out += [".SH SYNOPSIS", ".B rackbench-agent", "[\\fIoptions\\fR]", ".br",
            ".B rackbench-agent", ".I COMMAND", "[\\fIARGS\\fR]", ".SH DESCRIPTION"] + body
    out.append(".SH COMMANDS")
    cmds = re.findall(r"\b(run|inventory|purge|keygen|spool|options|completion)\b",
                      text.split("Commands:")[1]) if "Commands:" in text else []
    seen = []
    for name in cmds:
        if name in seen:
            continue
        seen.append(name)
        usage, cbody = help_to_roff(helptext(agent, name))
        out += [".SS " + esc(usage)] + cbody
    out += exit_status()
    out += [".SH ENVIRONMENT", ".TP", ".B RB_STATE_DIR",
            esc("rackbench's own files (default ~/.local/state/rackbench, as root "
                "/var/lib/rackbench)"),
            ".SH FILES", ".TP", ".I /etc/rackbench/agent.yaml",
            esc("the packaged daemon's configuration (--config): a YAML mapping of the keys "
                "below")]
    # agent.yaml's keys, from the agent's key table (`rackbench-agent options --json`)
    rows = json.loads(subprocess.run([agent, "options", "--json"], capture_output=True,
                                     text=True, check=True).stdout)["agent_keys"]
    out.append(".SH AGENT.YAML KEYS")
    out.append(esc("A key with a flag can be given as that flag too; the flag's value wins "
                   "over the file's, a list's flag adds to the file's list."))
    for k in rows:
        d = f" (default: {k['default']})" if k["default"] else ""
        flag = f" Flag: --{k['flag']} {k['argname']}".rstrip() + "." if k["flag"] else ""
        out += [".TP", f".B {esc(k['name'])}", esc(f"{k['type']}. {k['help']}{d}.{flag}")]
    out += [".SH SEE ALSO", "rackbench(1), rackbench-campaign(5)"]
    return "\n".join(out) + "\n"


PLACES = [("root", "THE CAMPAIGN"), ("target", "A TARGET (AN ENTRY OF targets)"),
          ("agents", "A TARGET'S agents"), ("select", "A TARGET'S select"),
          ("drive", "A DRIVE WRITTEN AS A MAPPING"), ("volume", "A STRIPED VOLUME"),
          ("phase", "A PHASE (AN ENTRY OF phases)"), ("purge", "A PHASE'S purge"),
          ("steady_state", "A PHASE'S steady_state"),
          ("fleet_verdict", "THE CAMPAIGN'S fleet_verdict (rackbench judge's flags)")]


def key_item(name, kind, default, helptext_):
    d = f" (default: {default})" if default else ""
    return [".TP", f".B {esc(name)}", esc(f"{kind}. {helptext_}{d}")]


def campaign_page(coord):
    table = json.loads(subprocess.run([coord, "options", "--json"], capture_output=True,
                                      text=True, check=True).stdout)
    out = header("rackbench-campaign", 5, "a rackbench campaign file")
    out += [".SH DESCRIPTION",
            esc("A campaign is a YAML mapping: the run's settings, its targets (agents and "
                "their drives) and its phases (what is measured, in order), or a preset "
                "instead of phases. rackbench plan FILE checks one without any agent; every "
                "error names FILE:LINE:COLUMN. The JSON schema is "
                "schemas/campaign.schema.json in the source.")]
    for where, title in PLACES:
        out.append(".SH " + esc(title))
        for k in table["campaign_key_table"]:
            if k["where"] == where:
                kind = " | ".join(k["choices"]) if k["type"] == "enum" else k["type"]
                out += key_item(k["name"], kind, k["default"], k["help"])
    out.append(".SH WORKLOAD KEYS")
    out.append(esc("Keys of defaults, workload, matrix (lists of values) and overrides; the "
                   "same keys are rackbench-agent run flags."))
    for o in table["options"]:
        kind = " | ".join(o["choices"]) if o["type"] == "enum" else o["type"]
        out += key_item(o["key"], kind, o["default"], o["help"])
    out += [".SH PRESETS", esc("preset: NAME takes one of: " + ", ".join(table["presets"]) +
                               " (rackbench presets NAME prints it)."),
            ".SH SEE ALSO", "rackbench(1), rackbench-agent(1)"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    coord, agent, folder = sys.argv[1:]
    os.makedirs(folder, exist_ok=True)
    pages = {"rackbench.1": coordinator_page(coord), "rackbench-agent.1": agent_page(agent),
             "rackbench-campaign.5": campaign_page(coord)}
    for name, text in pages.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
