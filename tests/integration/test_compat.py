# SPDX-License-Identifier: MIT
"""Today's programs with those of a fixed earlier commit, both ways round: a coordinator
and agents of BASE (built here from the repository's history) run tests/campaigns/e2e.yaml
with today's agents and today's coordinator. The coordinator and the agent were
rebuilt as state machines after BASE without a byte changing on the wire: each run must
complete with every drive's every point ok, its samples and histograms stored.

BASE is the last commit before that redesign (protocol 1.3). The build is kept in
BUILD/compat/ and reused."""
import glob
import os
import shutil
import subprocess
import sys

import rbtest
from rbtest import COORD, PROTO, SRC, Tmp, check, file_agents, free_port, h5, run, skip

BASE = "6bfd7d45fea20f6bc408e0f262bf76f1b4d5e972"
SHORT = BASE[:12]
BUILD = os.environ.get("RB_BUILD", os.path.join(SRC, "build"))
h5py = h5()
sys.path.insert(0, os.path.join(SRC, "python"))
import rackbench_h5 as rb  # noqa: E402


def build_base():
    """rackbench and rackbench-agent of BASE: (coordinator, agent) paths."""
    if subprocess.run(["git", "-C", SRC, "cat-file", "-e", BASE + "^{commit}"],
                      capture_output=True).returncode:
        skip(f"needs the repository's history to build commit {SHORT} (a full clone)")
    top = os.path.join(BUILD, "compat", SHORT)
    tree, out = os.path.join(top, "src"), os.path.join(top, "build")
    coord = os.path.join(out, "coordinator", "rackbench")
    agent = os.path.join(out, "agent", "rackbench-agent")
    if os.path.exists(coord) and os.path.exists(agent):
        return coord, agent
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(tree)
    archive = subprocess.run(["git", "-C", SRC, "archive", BASE], capture_output=True)
    check(archive.returncode == 0, f"git archive {SHORT}: {archive.stderr.decode()}")
    r = subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, capture_output=True)
    check(r.returncode == 0, f"unpacking {SHORT}: {r.stderr.decode()}")
    for cmd in (["cmake", "-S", tree, "-B", out, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                ["cmake", "--build", out, "-j", str(os.cpu_count() or 2),
                 "--target", "rackbench", "rackbench-agent"]):
        r = run(cmd, timeout=900)
        check(r.returncode == 0, f"building {SHORT}: {' '.join(cmd)}:\n{r.stdout[-3000:]}"
              f"{r.stderr[-3000:]}")
    return coord, agent


def campaign_run(coord, agent, tag, protocol):
    """e2e.yaml with the given coordinator and agents; checks what the file holds."""
    campaign = os.path.join(SRC, "tests", "campaigns", "e2e.yaml")
    saved = rbtest.AGENT
    rbtest.AGENT = agent
    with Tmp() as tmp:
        ep = f"tcp://127.0.0.1:{free_port()}"
        agents = file_agents(ep, tmp, "e2e")
        rbtest.AGENT = saved
        try:
            r = run([coord, "run", campaign, "--listen", ep, "--results",
                     os.path.join(tmp, "out")])
        finally:
            logs = "".join(a.output() for a in agents if a.stop() is not None)
        print(f"--- {tag}\n{r.stdout}{r.stderr}")
        check(r.returncode == 0, f"{tag}: rackbench run exited {r.returncode}:\n{r.stderr}\n"
              f"{logs}")
        files = glob.glob(os.path.join(tmp, "out", "e2e-*.h5"))
        check(len(files) == 1, f"{tag}: one results file, found {files}")
        with h5py.File(files[0], "r") as f:
            check(f.attrs["status"] == "complete", f"{tag}: status {f.attrs['status']}")
            res = f["results"][:]
            check(len(res) == 4 * 5, f"{tag}: {len(res)} result rows, want 20")
            bad = [(r["drive"], r["point"], r["status"]) for r in res if r["status"] != b"ok"]
            check(not bad, f"{tag}: results not ok: {bad}")
            check(all(r["read_ios"] + r["write_ios"] > 0 for r in res), f"{tag}: a row with no IO")
            # a file of either schema: histograms (7) or hist_bins (8 on)
            hist = "hist_bins" if "hist_bins" in f else "histograms"
            check(len(f["samples"]) > 0 and len(f[hist]) > 0, f"{tag}: no samples")
            agents_rows = f["agents"][:]
            # what each agent spoke: its own version (the coordinator takes any 1.x)
            check(all(a["protocol"] == protocol for a in agents_rows),
                  f"{tag}: protocols {[a['protocol'] for a in agents_rows]}")
        # today's readers take either schema: the report, and the Python helper's
        # buckets adding up to every result row's IOs
        r = run([COORD, "report", files[0]])
        check(r.returncode == 0, f"{tag}: today's report of the file: {r.stderr}")
        f = rb.open(files[0])
        b = f.buckets()
        for _, row in f.table("results").iterrows():
            for d, col in ((0, "read_ios"), (1, "write_ios")):
                m = ((b["drive"] == row["drive"]) & (b["point"] == row["point"]) &
                     (b["attempt"] == row["attempt"]) & (b["direction"] == d))
                check(int(b["count"][m].sum()) == int(row[col]),
                      f"{tag}: drive {row['drive']} point {row['point']} direction {d}: "
                      f"buckets add up to {int(b['count'][m].sum())}, not {row[col]}")
        print(f"{tag}: schema {f.schema}, {len(b)} buckets read back")
        f.h5.close()


old_coord, old_agent = build_base()
campaign_run(old_coord, os.path.abspath(rbtest.AGENT), f"coordinator of {SHORT}, today's agents",
             PROTO.encode())
campaign_run(os.path.abspath(COORD), old_agent, f"today's coordinator, agents of {SHORT}", b"1.3")
print("ok")
