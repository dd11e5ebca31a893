#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes schemas/campaign.schema.json (JSON Schema draft-07) from the workload option table
and the campaign key table, as `rackbench options --json` prints them, so the schema and the
C loader cannot drift: tests/integration/test_campaign_schema.py regenerates both outputs and
compares. Each key's description and choices come from its table row
(coordinator/campaign/campaign_keys.c); the shapes of the keys with structure are written here, and a
table key the schema lacks (or a schema key the table lacks) is an error.

    scripts/gen_campaign_schema.py build/coordinator/rackbench > schemas/campaign.schema.json
    scripts/gen_campaign_schema.py --markdown build/coordinator/rackbench > docs/campaign-keys.md
"""
import json
import subprocess
import sys

# a drive: a path, or {path, serial}
# a filesystem the agent makes on a drive: its type alone, or a mapping (the table's keys)
FS = {"oneOf": [{"enum": ["ext4", "xfs"]},
                {"type": "object", "additionalProperties": False, "required": ["type"],
                 "properties": {"type": {"enum": ["ext4", "xfs"]},
                                "mkfs_options": {"type": "string", "maxLength": 255},
                                "mount_options": {"type": "string", "maxLength": 255}}}]}
DRIVE = {"oneOf": [{"type": "string", "minLength": 1},
                   {"type": "object", "additionalProperties": False, "required": ["path"],
                    "properties": {"path": {"type": "string", "minLength": 1},
                                   "serial": {"type": "string",
                                              "description": "identity pin: the drive must report this serial"},
                                   "filesystem": FS}}]}

SIZE = r"^[0-9]+(\.[0-9]+)?\s*([kKmMgGtTpP]([iI]?[bB])?|[bB])?$"
DURATION = r"^[0-9]+(\.[0-9]+)?(ns|us|ms|s|m|min|h|d)?$"


def value_schema(o):
    t = o["type"]
    if t == "enum":
        return {"enum": o["choices"]}
    if t == "bool":
        return {"type": "boolean"}
    if t == "uint":
        s = {"type": "integer", "minimum": o["min"]}
        if o["max"] < 2**64 - 1:
            s["maximum"] = o["max"]
        return s
    if t == "size":
        return {"$ref": "#/definitions/size"}
    if t == "duration":
        return {"$ref": "#/definitions/duration"}
    return {"type": "string"}


# where the table's places are in the schema
PLACES = {
    "root": lambda s: s["properties"],
    "target": lambda s: s["properties"]["targets"]["items"]["properties"],
    "agents": lambda s: s["properties"]["targets"]["items"]["properties"]["agents"]["properties"],
    "select": lambda s: s["properties"]["targets"]["items"]["properties"]["select"]["properties"],
    "drive": lambda s: DRIVE["oneOf"][1]["properties"],
    "volume": lambda s: (s["properties"]["targets"]["items"]["properties"]["drives"]["items"]
                         ["oneOf"][1]["properties"]),
    "phase": lambda s: s["properties"]["phases"]["items"]["properties"],
    "purge": lambda s: s["properties"]["phases"]["items"]["properties"]["purge"]["properties"],
    "steady_state": lambda s: (s["properties"]["phases"]["items"]["properties"]["steady_state"]
                               ["properties"]),
    "verdict": lambda s: s["definitions"]["verdict"]["properties"],
    "filesystem": lambda s: FS["oneOf"][1]["properties"],
    "exec": lambda s: s["properties"]["phases"]["items"]["properties"]["exec"]["properties"],
    "fleet_verdict": lambda s: s["properties"]["fleet_verdict"]["oneOf"][1]["properties"],
}


def describe(k):
    d = k["help"]
    return f"{d} (default: {k['default']})" if k["default"] else d


# a scalar key's schema follows from its type: a table row is all it needs
SCALARS = {"string": {"type": "string"}, "bool": {"type": "boolean"},
           "duration": {"$ref": "#/definitions/duration"}, "size": {"$ref": "#/definitions/size"},
           "uint": {"type": "integer", "minimum": 0}, "number": {"type": "number"}, "enum": {}}


def apply_table(schema, table):
    """Each table key's description (and choices) into its place; both sets must agree."""
    rows = table["campaign_key_table"]
    for k in rows:
        props = PLACES[k["where"]](schema) if k["where"] in PLACES else {}
        if k["name"] not in props and k["type"] in SCALARS:
            props[k["name"]] = dict(SCALARS[k["type"]])
    for where, place in PLACES.items():
        props = place(schema)
        names = [k["name"] for k in rows if k["where"] == where]
        if set(names) != set(props):
            sys.exit(f"campaign keys of {where} differ: schema {sorted(props)}, "
                     f"table {sorted(names)}")
    for k in rows:
        if k["where"] not in PLACES:
            sys.exit(f"table key {k['name']}: unknown place {k['where']}")
        node = PLACES[k["where"]](schema)[k["name"]]
        node["description"] = describe(k)
        if k["type"] == "enum":
            node.pop("type", None)
            node["enum"] = k["choices"]


def markdown(table):
    """docs/campaign-keys.md: every campaign key and every workload key, from the tables."""
    out = ["# Campaign keys", "",
           "Generated by `scripts/gen_campaign_schema.py --markdown` from the campaign key table",
           "(`coordinator/campaign/campaign_keys.c`) and the workload option table (`common/workload/options.c`);",
           "`integration.campaign_schema` fails when this page is stale. The JSON schema is",
           "`schemas/campaign.schema.json`; examples are in `schemas/examples/`.", ""]
    titles = {"root": "The campaign (top level)", "target": "A target (an entry of `targets`)",
              "agents": "A target's `agents` (a group)", "select": "A target's `select`",
              "drive": "A drive written as a mapping", "volume": "A striped volume among `drives`",
              "phase": "A phase (an entry of `phases`)", "purge": "A phase's `purge`",
              "steady_state": "A phase's `steady_state`",
              "filesystem": "A drive's or a target's `filesystem` (or just its type: `ext4`)",
              "exec": "A phase's `exec` (an application on each drive)",
              "fleet_verdict": "The campaign's `fleet_verdict` (`true`: every default; "
                               "`rackbench judge`'s flags of the same names)",
              "verdict": "A `verdict` (the campaign's; a phase's takes the performance rules: "
                         "`min_model_pct`, `max_p99`, `max_p99_9`, `cliff_pct`, `cliff_window`)"}
    rows = table["campaign_key_table"]
    for where, title in titles.items():
        out += [f"## {title}", "", "| key | type | default | what it does |", "|---|---|---|---|"]
        for k in rows:
            if k["where"] != where:
                continue
            t = " \\| ".join(k["choices"]) if k["type"] == "enum" else k["type"]
            out.append(f"| `{k['name']}` | {t} | {k['default'] or '-'} | {k['help']} |")
        out.append("")
    out += ["## Workload keys (`defaults`, `workload`, `matrix`, `overrides`)", "",
            "The same keys are `rackbench-agent run` flags (`--KEY VALUE`).", "",
            "| key | type | default | what it does |", "|---|---|---|---|"]
    for o in table["options"]:
        t = " \\| ".join(o["choices"]) if o["type"] == "enum" else o["type"]
        out.append(f"| `{o['key']}` | {t} | {o['default'] or '-'} | {o['help']} |")
    return "\n".join(out) + "\n"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    table = json.loads(subprocess.run([args[0], "options", "--json"], check=True,
                                      capture_output=True, text=True).stdout)
    if "--markdown" in sys.argv:
        sys.stdout.write(markdown(table))
        return
    props = {}
    for o in table["options"]:
        s = value_schema(o)
        s["description"] = f"{o['help']} (default: {o['default'] or 'none'})"
        props[o["key"]] = s
    matrix = {k: {"oneOf": [{k2: v for k2, v in s.items() if k2 != "description"},
                            {"type": "array", "minItems": 1,
                             "items": {k2: v for k2, v in s.items() if k2 != "description"}}]}
              for k, s in props.items()}
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://rackbench.invalid/schemas/campaign.schema.json",
        "title": "rackbench campaign",
        "description": "Generated from the workload option table and the campaign key table by scripts/gen_campaign_schema.py; "
                       "the C loader (coordinator/campaign/campaign_root.c and its pieces) enforces the same rules and reports "
                       "FILE:LINE:COLUMN for each break.",
        "type": "object",
        "additionalProperties": False,
        "required": ["targets"],
        "oneOf": [{"required": ["phases"], "not": {"required": ["preset"]}},
                  {"required": ["preset"], "not": {"required": ["phases"]}}],
        # the fleet's verdicts are judged in the database the racks export into
        "if": {"required": ["fleet_verdict"],
               "properties": {"fleet_verdict": {"not": {"const": False}}}},
        "then": {"required": ["results_db"]},
        "properties": {
            "name": {"type": "string", "description": "names the results file (default: the file name)"},
            "listen": {"type": "string", "pattern": "^(tcp|ipc)://",
                       "description": "endpoint the coordinator binds (default tcp://*:7470)"},
            "insecure": {"type": "boolean", "description": "run without keys (warned, recorded)"},
            "key": {"type": "string", "description": "the coordinator's CURVE key pair file (rackbench keygen)"},
            "agent_keys": {"type": "string",
                           "description": "the agents allowed: lines 'AGENT-NAME PUBLIC-KEY'; reloaded on SIGHUP"},
            "destructive": {"type": "boolean", "description": "the run's key for writes and trims"},
            "wipe_signatures": {"type": "boolean",
                                "description": "let writes overwrite filesystem/RAID/LVM/swap signatures and partition tables"},
            "results": {"type": "string", "description": "folder of the HDF5 file (default .)"},
            "results_db": {"type": "string", "minLength": 1,
                           "description": "the fleet's PostgreSQL database the run's file is exported into when "
                                          "it ends: a libpq URI or key=value string without a password "
                                          "(default: the service's --results-db)"},
            "on_agent_lost": {"enum": ["wait", "continue", "abort"],
                              "description": "an agent silent for 5 s mid-point: wait for it (up to lost_wait; a restarted agent runs the point again as a new attempt), continue without it (its drives' rows say 'lost', exit 4), or abort"},
            "lost_wait": {"$ref": "#/definitions/duration", "description": "how long to wait for a lost agent (default 60s)"},
            "wait": {"$ref": "#/definitions/duration", "description": "how long to wait for the agents (default 60s)"},
            "defaults": {"$ref": "#/definitions/workload"},
            "verdict": {"$ref": "#/definitions/verdict"},
            # true: the judge's defaults; the loader refuses it without results_db
            "fleet_verdict": {"oneOf": [
                {"type": "boolean"},
                {"type": "object", "additionalProperties": False,
                 "properties": {"margin": {"type": "number", "exclusiveMinimum": 1, "maximum": 1000},
                                "min_points": {"type": "integer", "minimum": 1, "maximum": 100000},
                                "cluster": {"type": "integer", "minimum": 1, "maximum": 100000},
                                "domain": {"enum": ["rack", "host"]},
                                "wait": {"$ref": "#/definitions/duration"}}}]},
            "lock": {"type": "string",
                     "description": "a file from 'rackbench plan --lock': each drive must report the serial recorded there"},
            "preset": {"enum": table["presets"],
                       "description": "a review's procedure as this campaign's phases (rackbench presets; docs/presets.md)"},
            "overrides": {"type": "object", "additionalProperties": False,
                          "description": "adjusts a preset: workload keys for every point (runtime: time-based "
                                         "points only; passes, io_size: size-based ones only), and idle",
                          "properties": dict(props, idle={"$ref": "#/definitions/duration"})},
            "targets": {
                "type": "array", "minItems": 1,
                "items": {"type": "object", "additionalProperties": False,
                          "allOf": [{"oneOf": [{"required": ["agent"]}, {"required": ["agents"]}]},
                                    {"oneOf": [{"required": ["drives"]}, {"required": ["select"]}]}],
                          "properties": {"agent": {"type": "string", "minLength": 1},
                                         "agents": {"type": "object", "additionalProperties": False,
                                                    "description": "a group of agents chosen when they "
                                                                   "connect: the first count (by name) whose "
                                                                   "name matches the glob and that carry every "
                                                                   "label; each with the target's drives "
                                                                   "(paths) or select",
                                                    "required": ["count"],
                                                    "anyOf": [{"required": ["name"]}, {"required": ["labels"]}],
                                                    "properties": {"name": {"type": "string", "minLength": 1,
                                                                            "description": "a glob: jbof-*"},
                                                                   "labels": {"type": "object",
                                                                              "additionalProperties": {"type": "string"}},
                                                                   "count": {"$ref": "#/definitions/count"}}},
                                         "select": {"type": "object", "additionalProperties": False,
                                                    "description": "the agent's drives matching model/firmware "
                                                                   "(substrings) and serial, chosen when it "
                                                                   "connects: exactly count of them",
                                                    "required": ["count"],
                                                    "anyOf": [{"required": ["model"]}, {"required": ["serial"]},
                                                              {"required": ["firmware"]}],
                                                    "properties": {"model": {"type": "string"},
                                                                   "serial": {"type": "string"},
                                                                   "firmware": {"type": "string"},
                                                                   "count": {"$ref": "#/definitions/count"}}},
                                         "filesystem": FS,
                                         "drives": {"type": "array", "minItems": 1,
                                                    "items": {"oneOf": [
                                                        DRIVE,
                                                        {"type": "object", "additionalProperties": False,
                                                         "required": ["volume", "members"],
                                                         "description": "a striped volume (RAID 0) of the agent's "
                                                                        "drives, measured as one drive named 'volume'",
                                                         "properties": {
                                                             "volume": {"type": "string", "pattern": "^[^/]+$",
                                                                        "description": "the volume's name (no '/')"},
                                                             "stripe": {"type": "string",
                                                                        "description": "the unit: unit c is unit c / n "
                                                                                       "of member c % n; a size, a "
                                                                                       "multiple of 512 (default 128k; "
                                                                                       "a workload's 'stripe' overrides "
                                                                                       "it); an IO across units goes "
                                                                                       "as parts"},
                                                             "members": {"type": "array", "minItems": 1,
                                                                         "items": DRIVE,
                                                                         "description": "in stripe order; each "
                                                                                        "checked by the guard"}}}]}}}},
            },
            "phases": {
                "type": "array", "minItems": 1,
                "items": {"type": "object", "additionalProperties": False,
                          "properties": {"name": {"type": "string"},
                                         "workload": {"$ref": "#/definitions/workload"},
                                         "matrix": {"type": "object", "additionalProperties": False,
                                                    "properties": matrix},
                                         "verdict": {"$ref": "#/definitions/verdict"},
                                         "idle": {"$ref": "#/definitions/duration",
                                                  "description": "idle time after each point of the phase"},
                                         "exec": {"type": "object", "additionalProperties": False,
                                                  "required": ["command"],
                                                  "properties": {
                                                      "command": {"type": "string",
                                                                  "pattern": "^[A-Za-z0-9._-]{1,63}$"},
                                                      "params": {"type": "object",
                                                                 "additionalProperties": {
                                                                     "type": ["string", "integer", "number"]}}}},
                                         "purge": {"type": "object", "additionalProperties": False,
                                                   "required": ["method"],
                                                   "description": "return the drives to a known state "
                                                                  "(rackbench-agent purge); nothing else in the phase",
                                                   "properties": {"method": {"enum": ["format", "sanitize",
                                                                                      "sanitize-crypto", "deallocate",
                                                                                      "discard", "zero"]},
                                                                  "ses": {"enum": ["user", "crypto"]}}},
                                         "repeat": {"type": "integer", "minimum": 1, "maximum": 1000,
                                                    "description": "run the phase's matrix this many times, as a block"},
                                         "drives": {"type": "array", "minItems": 1,
                                                    "items": {"type": "string", "minLength": 1},
                                                    "description": "the campaign drives this phase measures (paths "
                                                                   "or volume names, on every agent that has them); "
                                                                   "default: all. Volumes sharing a drive go in "
                                                                   "different phases"},
                                         "curve": {"type": "array", "minItems": 1, "maxItems": 64,
                                                   "description": "vdbench-style curve: an unthrottled run, then each "
                                                                  "percentage of each drive's own maximum IOPS",
                                                   "items": {"oneOf": [
                                                       {"type": "number", "exclusiveMinimum": 0, "maximum": 1000},
                                                       {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?%?$"}]}},
                                         "steady_state": {
                                             "type": "object", "additionalProperties": False,
                                             "description": "SNIA PTS steady state: rounds over the matrix until "
                                                            "the tracking point is steady over a window",
                                             "properties": {
                                                 "max_rounds": {"type": "integer", "minimum": 1, "maximum": 1000},
                                                 "window": {"type": "integer", "minimum": 2, "maximum": 1000},
                                                 "metric": {"enum": ["iops", "mbps", "mean_latency"]},
                                                 "rolling": {"type": "boolean",
                                                             "description": "judge each point over windows of its "
                                                                            "own intervals and stop it once steady"},
                                                 "track": {"type": "object",
                                                           "description": "matrix keys and the tracking point's values",
                                                           "additionalProperties": {"type": ["string", "number"]}}}}},
                          "not": {"required": ["curve", "steady_state"]}},
            },
        },
        "definitions": {
            "count": {"oneOf": [{"type": "integer", "minimum": 1},
                                {"type": "string", "pattern": "^(all|>= ?[1-9][0-9]*|[1-9][0-9]*)$"}]},
            "size": {"oneOf": [{"type": "integer", "minimum": 0},
                               {"type": "string", "pattern": SIZE}],
                     "description": "bytes; binary units: 4k = 4096, 1m, 2g"},
            "duration": {"oneOf": [{"type": "integer", "minimum": 0},
                                   {"type": "string", "pattern": DURATION}],
                         "description": "ns, us, ms, s, m, h, d; a bare number is seconds"},
            "workload": {"type": "object", "additionalProperties": False, "properties": props},
            "verdict": {"type": "object", "additionalProperties": False, "properties": {}},
        },
    }
    apply_table(schema, table)
    json.dump(schema, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
