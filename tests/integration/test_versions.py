# SPDX-License-Identifier: MIT
"""Protocol versions (proto/README.md): an agent of another major version gets a clear
error naming both versions, and so does the coordinator, and the campaign fails naming
the agent; an agent of a newer minor version that sends a field this version does not
know works. (Test hooks: RB_TEST_PROTO_MAJOR/MINOR, RB_TEST_WIRE_EXTRA_FIELD.)"""
import os
import subprocess
import tempfile

from rbtest import AGENT, COORD, PROTO, Tmp, check, free_port, run

CAMPAIGN = """name: versions
insecure: true
wait: {wait}
defaults: {{size: 4m, runtime: 300ms, interval: 100ms}}
targets:
  - agent: v1
    drives: [v/d.dat]
phases:
  - workload: {{rw: randread}}
"""


def agent(ep, tmp, env):
    log = tempfile.TemporaryFile()
    p = subprocess.Popen([AGENT, "--coordinator", ep, "--name", "v1", "--insecure",
                          "--state-dir", os.path.join(tmp, "v"), "--target", "v/d.dat"],
                         cwd=tmp, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, **env))
    return p, log


with Tmp() as tmp:
    os.mkdir(os.path.join(tmp, "v"))
    for wait, env, want_rc in (("3s", {"RB_TEST_PROTO_MAJOR": "2", "RB_TEST_PROTO_MINOR": "3"}, 1),
                               ("15s", {"RB_TEST_PROTO_MINOR": "7", "RB_TEST_WIRE_EXTRA_FIELD": "1"}, 0)):
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(wait=wait))
        ep = f"tcp://127.0.0.1:{free_port()}"
        p, log = agent(ep, tmp, env)
        try:
            r = run([COORD, "run", path, "--listen", ep, "--results", os.path.join(tmp, "out")])
        finally:
            p.terminate()
            p.wait(10)
        log.seek(0)
        alog = log.read().decode()
        print(r.stderr, alog)
        check(r.returncode == want_rc, f"{env}: exit {r.returncode}, want {want_rc}")
        if want_rc:
            check(f"protocol version 2.3 is not compatible with this side's {PROTO}" in r.stderr,
                  "the coordinator names both versions")
            check("is not compatible" in alog, "the agent is told too")
            check("agent 'v1' did not connect" in r.stderr, "the campaign names the agent")
print("ok")
