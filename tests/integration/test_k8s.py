# SPDX-License-Identifier: MIT
"""deploy/k8s: every kustomization (the agent's and the coordinator's bases, each rack's
overlay, the site) renders with kubectl's kustomize, and what it renders, with the
campaign Job, validates against the Kubernetes API's types (scripts/check-k8s.py, from
Debian's python3-kubernetes); the validator refuses a misspelled field, a wrongly typed
value and a missing required one. The DaemonSet gives the agent what its safety guard
needs (the host's PID namespace for pid 1's mount table, /dev, /sys read-only, its state
folder on the node), each rack's DaemonSet owns its pods only, each agent.yaml holds
only keys the agent knows and reaches the Service, the flags the pods pass exist, and
the Job and the CronJob reach the service's control socket on its node."""
import atexit
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

from rbtest import AGENT, COORD, SRC, check, run, skip

if not shutil.which("kubectl"):
    skip("needs kubectl for kustomize (package kubernetes-client)")
try:
    import kubernetes  # noqa: F401
except ImportError:
    skip("needs python3-kubernetes")

K8S = os.path.join(SRC, "deploy", "k8s")
CHECK = [sys.executable, os.path.join(SRC, "scripts", "check-k8s.py")]


def render(rel):
    r = run(["kubectl", "kustomize", os.path.join(K8S, rel)])
    check(r.returncode == 0, f"kubectl kustomize {rel}: {r.stderr}")
    return r.stdout


def validate(text, what):
    r = subprocess.run(CHECK, input=text, capture_output=True, text=True)
    print(r.stdout)
    return r


tmp = tempfile.mkdtemp(prefix="rbk8s-")
atexit.register(shutil.rmtree, tmp, True)
os.mkdir(os.path.join(tmp, "state"), 0o700)
docs = {}
for rel in ("agent", "coordinator", "overlays/rack-r12", "overlays/rack-r13", "overlays/site"):
    text = render(rel)
    r = validate(text, rel)
    check(r.returncode == 0 and "INVALID" not in r.stdout, f"{rel} does not validate")
    docs[rel] = [d for d in yaml.safe_load_all(text) if d]
job_text = open(os.path.join(K8S, "campaign-job.yaml")).read()
r = validate(job_text, "campaign-job.yaml")
check(r.returncode == 0, "campaign-job.yaml does not validate")
job = yaml.safe_load(job_text)

site = docs["overlays/site"]
by = {}
for d in site:
    by.setdefault(d["kind"], []).append(d)
check(sorted(by) == ["ConfigMap", "CronJob", "DaemonSet", "Namespace", "Service", "StatefulSet"],
      f"the site holds {sorted(by)}")
check(all(d["metadata"].get("namespace") == "rackbench" for d in site if d["kind"] != "Namespace"),
      "everything in the rackbench namespace")

# the validator can fail: a misspelled field, a bool where a string is due, no containers
ds = by["DaemonSet"][0]
for label, mutate, want in (
        ("misspelled", lambda p: p.__setitem__("hostPid", p.pop("hostPID")), "hostPid: no such field"),
        ("typed", lambda p: p["nodeSelector"].__setitem__("rack", True), "str is due, not bool"),
        ("required", lambda p: p.pop("containers"), "containers")):
    bad = copy.deepcopy(ds)
    mutate(bad["spec"]["template"]["spec"])
    r = validate(yaml.safe_dump(bad), label)
    check(r.returncode == 1 and want in r.stdout, f"the validator took a {label} DaemonSet")

svc = by["Service"][0]
sts = by["StatefulSet"][0]
agents_port = [p["port"] for p in svc["spec"]["ports"] if p["name"] == "agents"][0]
check(svc["spec"]["selector"].items() <= sts["spec"]["template"]["metadata"]["labels"].items(),
      "the Service selects the coordinator's pod")
agent_help = run([AGENT, "--help"]).stdout
# agent.yaml's keys, from the agent's key table
yaml_keys = {k["name"] for k in json.loads(run([AGENT, "options", "--json"]).stdout)["agent_keys"]}
maps = {d["metadata"]["name"]: d for d in by["ConfigMap"]}
check(len(by["DaemonSet"]) == 2, "one DaemonSet per rack")
selectors = []
for ds in by["DaemonSet"]:
    name = ds["metadata"]["name"]
    spec = ds["spec"]["template"]["spec"]
    sel = ds["spec"]["selector"]["matchLabels"]
    check(sel.items() <= ds["spec"]["template"]["metadata"]["labels"].items(),
          f"{name}: its selector matches its pods")
    selectors.append(sel)
    check(spec.get("hostPID") is True, f"{name}: hostPID, for the host's mount table")
    c = spec["containers"][0]
    check(c["securityContext"].get("privileged") is True, f"{name}: privileged, for /dev")
    vols = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    for path, ro in (("/dev", False), ("/sys", True), ("/var/lib/rackbench", False)):
        m = mounts.get(path)
        check(m and vols[m["name"]].get("hostPath", {}).get("path") == path and
              bool(m.get("readOnly")) == ro, f"{name}: the host's {path} at {path} (read-only {ro})")
    # the command's flags exist, and the key it names is what keygen makes
    cmd = c["command"]
    check(cmd[0] == "/usr/bin/rackbench-agent", f"{name}: runs the agent: {cmd}")
    for flag in (a for a in cmd if a.startswith("--")):
        check(f"{flag} " in agent_help, f"{name}: rackbench-agent has no {flag}")
    keygen = " ".join(spec["initContainers"][0]["command"])
    check("keygen /var/lib/rackbench/keys $(NODE_NAME)" in keygen and
          cmd[cmd.index("--key") + 1] == "/var/lib/rackbench/keys/$(NODE_NAME).key",
          f"{name}: the key the agent uses is the one keygen makes")
    # its agent.yaml: keys the agent knows, drives it may write among those it offers,
    # the Service's address, the coordinator's key where the Secret is mounted
    cm = maps[vols["config"]["configMap"]["name"]]
    conf = yaml.safe_load(cm["data"]["agent.yaml"])
    check(set(conf) <= yaml_keys, f"{name}: agent.yaml keys the agent lacks: {set(conf) - yaml_keys}")
    check(conf["targets"] and set(conf.get("allow") or []) <= set(conf["targets"]),
          f"{name}: allow within targets")
    check(conf["coordinator"] == f"tcp://{svc['metadata']['name']}.rackbench.svc:{agents_port}",
          f"{name}: reaches the Service: {conf['coordinator']}")
    key_mount = [p for p, m in mounts.items() if m["name"] == "coordinator-key"][0]
    check(conf["coordinator_key"].startswith(key_mount + "/") and
          vols["coordinator-key"]["secret"]["secretName"] == "rackbench-coordinator-pub",
          f"{name}: the coordinator's public key from its Secret")
    rack = spec["nodeSelector"].get("rack")
    check(rack and conf.get("labels", {}).get("rack") == rack, f"{name}: labelled with its rack")
    # and the agent itself takes it: still running (connecting) after 1 s, where a
    # settings error exits at once (2)
    with open(os.path.join(tmp, "agent.yaml"), "w") as f:
        f.write(cm["data"]["agent.yaml"])
    r = run(["timeout", "1", AGENT, "--config", os.path.join(tmp, "agent.yaml"), "--name", "n",
             "--insecure", "--state-dir", os.path.join(tmp, "state")])
    check(r.returncode == 124, f"{name}: the agent refused its agent.yaml: {r.stderr}")
check(selectors[0] != selectors[1], "each rack's DaemonSet owns its pods only")

# the service's flags exist; the Job and the CronJob reach its control socket
serve_help = run([COORD, "serve", "--help"]).stdout
scmd = sts["spec"]["template"]["spec"]["containers"][0]["command"]
check(scmd[:2] == ["/usr/bin/rackbench", "serve"], f"the StatefulSet runs the service: {scmd}")
for flag in (a for a in scmd if a.startswith("--")):
    check(f"{flag} " in serve_help, f"rackbench serve has no {flag}")
control = scmd[scmd.index("--control") + 1]
run_help = run([COORD, "run", "--help"]).stdout


def control_of(pod, what):
    c = pod["containers"][0]
    cmd = c["command"]
    for flag in (a for a in cmd if a.startswith("--")):
        check(f"{flag} " in run_help, f"{what}: rackbench run has no {flag}")
    check(cmd[cmd.index("--control") + 1] == control, f"{what}: the service's control socket")
    vols = {v["name"]: v for v in pod["volumes"]}
    m = [m for m in c["volumeMounts"] if control.startswith(m["mountPath"] + "/")][0]
    return vols[m["name"]]["hostPath"]["path"], pod["nodeSelector"]


spod = sts["spec"]["template"]["spec"]
svols = {v["name"]: v for v in spod["volumes"]}
smount = [m for m in spod["containers"][0]["volumeMounts"] if control.startswith(m["mountPath"] + "/")][0]
want = (svols[smount["name"]]["hostPath"]["path"], spod["nodeSelector"])
cron = by["CronJob"][0]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
check(control_of(cron, "CronJob") == want, "the CronJob on the service's node and folder")
check(control_of(job["spec"]["template"]["spec"], "Job") == want,
      "the Job on the service's node and folder")
# the Job's campaign is a ConfigMap of its own: applying it must not replace one the
# kustomizations own (the burn-in's campaigns), nor they it
job_maps = {v["configMap"]["name"] for v in job["spec"]["template"]["spec"]["volumes"]
            if "configMap" in v}
check(job_maps and not job_maps & set(maps), f"the Job's ConfigMap {job_maps} is the site's too")
print("ok")
