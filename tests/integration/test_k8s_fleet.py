# SPDX-License-Identifier: MIT
"""deploy/k8s/fleet: the fleet burn-in's CronJob and the Indexed Job validate against the
Kubernetes API's types (scripts/check-k8s.py, Debian's python3-kubernetes), the Job's
fields newer than those types (backoffLimitPerIndex, podFailurePolicy: Kubernetes 1.28+)
against the batch/v1 Job schema of Kubernetes 1.29 kept in tests/fixtures/k8s; without
that schema the validator refuses them, and with it a misspelled action or a string
where an int32 is due. The CronJob runs `fleet run` with its fleet.yaml and campaign from
the ConfigMap and its admin key from the Secret, and what it is given reads (fleet plan:
the racks unreachable from here, exit 1, not a bad file's 2). The Indexed Job: one index
a rack (completions = parallelism = the shards in its ConfigMap), each pod `rackbench run
--no-service` of its rack's campaign (each plans) into a folder of its own, retried per
index, the verdict FAIL exit code (RB_EXIT_BELOW_SPEC of common/util/exitcode.h) failing
its index at once, and the agents' address its pod's name under the headless Service."""
import copy
import os
import re
import shutil
import subprocess
import sys

import yaml

from rbtest import COORD, SRC, Tmp, check, run, skip

try:
    import kubernetes  # noqa: F401
    import jsonschema  # noqa: F401
except ImportError:
    skip("needs python3-kubernetes and python3-jsonschema")

FLEET = os.path.join(SRC, "deploy", "k8s", "fleet")
SCHEMA = os.path.join(SRC, "tests", "fixtures", "k8s", "batch-v1-job-1.29.json")
CHECK = [sys.executable, os.path.join(SRC, "scripts", "check-k8s.py")]


def validate(text, schema=True):
    r = subprocess.run(CHECK + (["--schema", SCHEMA] if schema else []), input=text,
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    return r


def load(name):
    text = open(os.path.join(FLEET, name)).read()
    r = validate(text)
    check(r.returncode == 0 and "INVALID" not in r.stdout, f"{name} does not validate")
    docs = [d for d in yaml.safe_load_all(text) if d]
    check(all(d["metadata"].get("namespace") == "rackbench" for d in docs),
          f"{name}: everything in the rackbench namespace")
    by = {}
    for d in docs:
        by.setdefault(d["kind"], []).append(d)
    return by


exitcode = open(os.path.join(SRC, "common", "util", "exitcode.h")).read()
FAIL = int(re.search(r"RB_EXIT_BELOW_SPEC = (\d+)", exitcode).group(1))

with Tmp() as tmp:
    # the CronJob: fleet run, its files from the ConfigMap and the Secret
    cron = load("fleet-cronjob.yaml")
    check(sorted(cron) == ["ConfigMap", "CronJob", "PersistentVolumeClaim"], f"{sorted(cron)}")
    cj = cron["CronJob"][0]["spec"]
    check(cj["concurrencyPolicy"] == "Forbid" and cj["startingDeadlineSeconds"] > 0,
          "one at a time, and a missed start still runs")
    job = cj["jobTemplate"]["spec"]
    check(job["backoffLimit"] == 0, "a failed fleet run is not started again")
    pod = job["template"]["spec"]
    c = pod["containers"][0]
    cmd = c["command"]
    check(cmd[:3] == ["/usr/bin/rackbench", "fleet", "run"], f"the CronJob runs fleet run: {cmd}")
    fhelp = run([COORD, "fleet", "run", "--help"]).stdout
    for flag in (a for a in cmd if a.startswith("--")):
        check(f"{flag} " in fhelp, f"fleet run --help names {flag}")
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}

    def source(path):
        """The volume and the key a file of the command comes from."""
        d, f = os.path.split(path)
        return vols[mounts[d]["name"]], f

    cm = {d["metadata"]["name"]: d for d in cron["ConfigMap"]}
    files = {}
    for path in (cmd[3], cmd[cmd.index("--fleet") + 1]):
        v, f = source(path)
        files[path] = cm[v["configMap"]["name"]]["data"][f]
    v, f = source(cmd[cmd.index("--key") + 1])
    check(v["secret"]["secretName"] == "rackbench-fleet-admin" and f == "admin.key",
          "the admin key from its Secret")
    check(mounts[c["workingDir"]]["name"] == "summaries" and
          "persistentVolumeClaim" in vols["summaries"], "the fleet summary on the claim")
    check(cron["PersistentVolumeClaim"][0]["metadata"]["name"] ==
          vols["summaries"]["persistentVolumeClaim"]["claimName"], "the claim is the manifest's")
    local = {}
    for path, text in files.items():
        local[path] = os.path.join(tmp, os.path.basename(path))
        with open(local[path], "w") as f:
            f.write(text)
    r = run([COORD, "keygen", tmp, "admin"])
    check(r.returncode == 0, f"keygen: {r.stderr}")
    r = run([COORD, "fleet", "plan", local[cmd[3]], "--fleet", local[cmd[cmd.index("--fleet") + 1]],
             "--key", os.path.join(tmp, "admin.key"), "--deadline", "1s"])
    print(r.stdout, r.stderr)
    check(r.returncode == 1 and r.stdout.count("UNREACHABLE") == 2,
          f"the CronJob's campaign and fleet.yaml read, its racks named: exit {r.returncode}")

    # the Indexed Job: one pod a rack's coordinator
    ix = load("fleet-indexed-job.yaml")
    check(sorted(ix) == ["ConfigMap", "Job", "PersistentVolumeClaim", "Service"], f"{sorted(ix)}")
    jdoc = ix["Job"][0]
    js = jdoc["spec"]
    pod = js["template"]["spec"]
    shards = ix["ConfigMap"][0]["data"]
    check(sorted(shards) == [f"rack-{i}.yaml" for i in range(len(shards))], f"shards {sorted(shards)}")
    check(js["completionMode"] == "Indexed" and js["completions"] == len(shards) ==
          js["parallelism"], "one index a rack, every rack at once")
    check(js["backoffLimitPerIndex"] >= 1 and "backoffLimit" not in js,
          "a crashed rack is retried on its own")
    check(pod["restartPolicy"] == "Never", "podFailurePolicy needs restartPolicy Never")
    c = pod["containers"][0]
    fail_index = [r for r in js["podFailurePolicy"]["rules"] if r["action"] == "FailIndex"]
    check(any(r["onExitCodes"]["containerName"] == c["name"] and r["onExitCodes"]["operator"] == "In"
              and FAIL in r["onExitCodes"]["values"] for r in fail_index),
          f"exit {FAIL} (verdict FAIL) fails its index, not retried as a crash")
    check(not any(v in (0, 1, 4) for r in fail_index for v in r["onExitCodes"]["values"]),
          "a crash (1) or a lost agent (4) is retried")
    env = {e["name"]: e for e in c["env"]}
    check(env["RACK_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"] ==
          "metadata.annotations['batch.kubernetes.io/job-completion-index']", "the index, as RACK_INDEX")
    cmd = c["command"]
    rhelp = run([COORD, "run", "--help"]).stdout
    check(cmd[:3] == ["/usr/bin/rackbench", "run", "--no-service"], f"each pod a coordinator: {cmd}")
    for flag in (a for a in cmd if a.startswith("--")):
        check(f"{flag} " in rhelp, f"run --help names {flag}")
    check(cmd[cmd.index("--results") + 1].endswith("/rack-$(RACK_INDEX)") and
          cmd[-1].endswith("/rack-$(RACK_INDEX).yaml"), "each index its campaign and folder")
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    check(vols[mounts[os.path.dirname(cmd[-1])]["name"]]["configMap"]["name"] ==
          ix["ConfigMap"][0]["metadata"]["name"], "the campaigns from the shards' ConfigMap")
    check(vols[mounts[os.path.dirname(cmd[cmd.index("--key") + 1])]["name"]]["secret"]["secretName"]
          == "rackbench-coordinator", "the coordinator's keys from its Secret")
    for i in range(len(shards)):
        path = os.path.join(tmp, f"rack-{i}.yaml")
        with open(path, "w") as f:
            f.write(shards[f"rack-{i}.yaml"])
        r = run([COORD, "plan", path])
        check(r.returncode == 0, f"rack-{i}.yaml plans: {r.stderr}")
    svc = ix["Service"][0]
    check(svc["spec"]["clusterIP"] == "None" and pod["subdomain"] == svc["metadata"]["name"] and
          svc["spec"]["selector"].items() <= js["template"]["metadata"]["labels"].items(),
          "each pod named under the headless Service, which selects it")
    check(f"{jdoc['metadata']['name']}-I.{svc['metadata']['name']}.rackbench.svc:"
          f"{svc['spec']['ports'][0]['port']}" in open(os.path.join(FLEET, "fleet-indexed-job.yaml")).read(),
          "the comment names the address the agents dial")

    # the newer fields: refused without the schema, checked with it
    text = open(os.path.join(FLEET, "fleet-indexed-job.yaml")).read()
    r = validate(yaml.safe_dump(jdoc), schema=False)
    check(r.returncode == 1 and "backoffLimitPerIndex: no such field" in r.stdout and
          "podFailurePolicy: no such field" in r.stdout, "the 1.22 types lack the fields")
    for label, mutate, want in (
            ("action", lambda s: s["podFailurePolicy"]["rules"][0].__setitem__("action", "FailIdx"),
             "'FailIdx' is not one of"),
            ("typed", lambda s: s.__setitem__("backoffLimitPerIndex", "1"), "'1' is not of type 'integer'"),
            ("required", lambda s: s["podFailurePolicy"]["rules"][0]["onExitCodes"].pop("operator"),
             "'operator' is a required property"),
            ("misspelled", lambda s: s.__setitem__("backoffLimitPerIdx", 1), "backoffLimitPerIdx: no such field")):
        bad = copy.deepcopy(jdoc)
        mutate(bad["spec"])
        r = validate(yaml.safe_dump(bad))
        check(r.returncode == 1 and want in r.stdout, f"the validator took a Job with a bad {label}")
print("ok")
