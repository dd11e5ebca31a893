# SPDX-License-Identifier: MIT
"""agent.yaml's key table (agent/session/agent_keys.c) and what is made from it or must
agree with it:
- docs/agent-keys.md is exactly what scripts/gen_agent_keys.py makes from
  `rackbench-agent options --json` (a key added without regenerating it fails here), and
  docs/deploy.md links it;
- the daemon's --help has each key's flag with the row's help, and --config names every key;
- an unknown key is refused at its FILE:LINE:COLUMN with every key of the table;
- the agent.yaml files this tree ships (the package's deploy/agent.yaml, with its commented
  examples too, the Kubernetes ConfigMaps and Ansible's template) hold only the table's keys,
  and the package's loads."""
import glob
import json
import os
import re
import subprocess
import sys

from rbtest import AGENT, SRC, Tmp, check, run

try:
    import yaml
except ImportError as e:
    from rbtest import fail
    fail(f"{e}: install python3-yaml")

GEN = os.path.join(SRC, "scripts", "gen_agent_keys.py")

r = run([AGENT, "options", "--json"])
check(r.returncode == 0, f"options --json: {r.stderr}")
rows = json.loads(r.stdout)["agent_keys"]
keys = [k["name"] for k in rows]
check(len(keys) == len(set(keys)) and {"coordinator", "targets", "commands"} <= set(keys),
      f"the table's keys: {keys}")

# the reference page, made from the table
page = subprocess.run([sys.executable, GEN, AGENT], capture_output=True, text=True)
check(page.returncode == 0, f"generator: {page.stderr}")
check(page.stdout == open(os.path.join(SRC, "docs", "agent-keys.md")).read(),
      "docs/agent-keys.md is stale: run scripts/gen_agent_keys.py "
      "build/agent/rackbench-agent > docs/agent-keys.md")
for k in keys:
    check(f"| `{k}` |" in page.stdout, f"the page lacks {k}")
check("(agent-keys.md)" in open(os.path.join(SRC, "docs", "deploy.md")).read(),
      "docs/deploy.md links agent-keys.md")
# the text form lists the same keys
text = run([AGENT, "options"]).stdout
check([line.split()[0] for line in text.splitlines() if line[:1] not in (" ", "")] == keys,
      f"options: {text}")

# the daemon's flags come from the rows: name, value name, help
helptext = run([AGENT, "--help"]).stdout
flat = " ".join(helptext.split())
config = flat.split("--config FILE", 1)[1].split(" --coordinator ", 1)[0]
for k in rows:
    check(re.search(rf"[ (]{k['name']}[,)]", config), f"--config's help lacks {k['name']}")
    if not k["flag"]:
        check(f"--{k['name'].replace('_', '-')} " not in helptext, f"{k['name']}: a flag?")
        continue
    left = f"--{k['flag']}" + (f" {k['argname']}" if k["argname"] else "")
    check(f"  {left} " in helptext, f"--help lacks {left}")
    check(f"{left} {' '.join(k['help'].split())}" in flat, f"{left}: not the row's help")

with Tmp() as tmp:
    # an unknown key: where it stands, and every key the table knows
    path = os.path.join(tmp, "agent.yaml")
    with open(path, "w") as f:
        f.write("coordinator: tcp://127.0.0.1:7470\ninsecure: true\ntarget: [/dev/a]\n")
    r = run([AGENT, "--config", path])
    check(r.returncode == 2 and r.stderr.startswith(f"{path}:3:1: unknown key 'target'"),
          f"unknown key: exit {r.returncode}, {r.stderr}")
    check("(known: " + ", ".join(keys) + ")" in r.stderr, f"known keys: {r.stderr}")

    # the package's agent.yaml: its keys and its commented examples' keys are the table's,
    # and with the examples uncommented it still loads (the inventory reads only the file)
    shipped = open(os.path.join(SRC, "deploy", "agent.yaml")).read().splitlines()
    full, example = [], False
    for line in shipped:
        m = re.match(r"^# ([a-z_]+:.*)$", line)
        cont = re.match(r"^#(  +\S.*)$", line)
        if m:
            full.append(m.group(1))
        elif cont and example:
            full.append(cont.group(1))
        elif not line.startswith("#"):
            full.append(line)
        example = bool(m or (cont and example))
    doc = yaml.safe_load("\n".join(full))
    check(set(doc) <= set(keys), f"deploy/agent.yaml: keys the table lacks: {set(doc) - set(keys)}")
    check({"coordinator", "coordinator_key", "targets", "allow", "commands"} <= set(doc),
          f"deploy/agent.yaml's examples: {sorted(doc)}")
    with open(path, "w") as f:
        f.write("\n".join(full) + "\n")
    r = run([AGENT, "inventory", "--config", path])
    check(r.returncode != 2 and f"{path}:" not in r.stderr,
          f"deploy/agent.yaml with its examples: exit {r.returncode}, {r.stderr}")

# the other agent.yaml files the tree ships
for cm in glob.glob(os.path.join(SRC, "deploy", "k8s", "**", "*.yaml"), recursive=True):
    for d in yaml.safe_load_all(open(cm)):
        conf = ((d or {}).get("data") or {}).get("agent.yaml")
        if conf:
            extra = set(yaml.safe_load(conf)) - set(keys)
            check(not extra, f"{cm}: agent.yaml keys the table lacks: {extra}")
tpl = os.path.join(SRC, "deploy", "ansible", "roles", "rackbench_agent", "templates",
                   "agent.yaml.j2")
extra = set(re.findall(r"^([a-z_]+):", open(tpl).read(), re.M)) - set(keys)
check(not extra, f"{tpl}: keys the table lacks: {extra}")
print(f"ok: {len(keys)} keys")
