# SPDX-License-Identifier: MIT
"""Every command of both programs against its option table, from one table of cases: an
unknown option close to a real one (the suggestion), a missing value, a single-valued
flag given twice, --a=b and --a b, --, and both spellings of a multi-word flag. A mistake
exits 2 with one line on stderr naming the flag; the two forms of one flag give the same
result. And rackbench-agent run with --rate-iops and --rate_iops runs the same settings."""
import glob
import json
import os

from rbtest import AGENT, COORD, Tmp, check, run

CAMPAIGN = """name: cli
insecure: true
targets: [{agent: a, drives: [d]}]
phases:
  - name: p
    workload: {rw: randread, runtime: 1s, size: 1g, passes: 1}
"""
JOB = """[global]
bs=4k
[one]
rw=randread
filename=/dev/nvme0n1
runtime=5
"""


def said(r):
    """The lines a command said on stderr."""
    return [line for line in r.stderr.splitlines() if line.strip()]


def mistake(args, flag, text):
    """args must exit 2 with one line naming flag and holding text."""
    r = run(args)
    lines = said(r)
    check(r.returncode == 2 and len(lines) == 1 and flag in lines[0] and text in lines[0],
          f"{' '.join(args[1:])}: exit {r.returncode}, said {lines}; want 2 and one line "
          f"with {flag!r} and {text!r}")


def same(a, b, rc, what):
    """Two forms of one command give one result: exit code, stdout and stderr."""
    ra, rb = run(a), run(b)
    check(ra.returncode == rb.returncode == rc,
          f"{what}: exit {ra.returncode} and {rb.returncode}, want {rc}: {ra.stderr} {rb.stderr}")
    check(ra.stdout == rb.stdout, f"{what}: stdout differs:\n{ra.stdout}\n---\n{rb.stdout}")
    check(ra.stderr == rb.stderr, f"{what}: stderr differs:\n{ra.stderr}\n---\n{rb.stderr}")
    check("unknown option" not in ra.stderr and "needs a value" not in ra.stderr,
          f"{what}: a usage error: {ra.stderr}")
    return ra


with Tmp() as tmp:
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    job = os.path.join(tmp, "j.fio")
    with open(job, "w") as f:
        f.write(JOB)
    target = os.path.join(tmp, "t.dat")
    with open(target, "wb") as f:
        f.write(os.urandom(4 << 20))
    nosock = os.path.join(tmp, "none", "control")
    empty = os.path.join(tmp, "root")
    os.makedirs(os.path.join(empty, "sys", "class", "block"))
    # results to report on and a journal to print: the demo's
    r = run([COORD, "demo", "--out", os.path.join(tmp, "demo")], timeout=240)
    check(r.returncode == 0, f"demo: exit {r.returncode}: {r.stderr[-2000:]}")
    h5 = glob.glob(os.path.join(tmp, "demo", "*.h5"))
    check(len(h5) == 1, f"demo results {h5}")
    h5 = h5[0]
    ar = [AGENT, "run", "--target", target, "--runtime", "100ms", "--state-dir", tmp]
    daemon = [AGENT, "--coordinator", "tcp://127.0.0.1:1", "--insecure"]

    # Each command: its argv before the flags; a value flag and a value; a typo of a flag
    # and the flag it means; a multi-word flag's two spellings with a value and the exit
    # code they give (the same result both ways); an argv with -- and the exit code and
    # text it gives.
    CASES = [
        dict(cmd=[COORD, "run", "/nonexistent.yaml"], value=("--events", "e.jsonl"),
             typo=("--agent-kyes", "--agent-keys"),
             multi=(["--agent-keys", "--agent_keys"], "/nonexistent.keys", 2),
             dashdash=([COORD, "run", "--", "/nonexistent.yaml"], 2, "/nonexistent.yaml")),
        dict(cmd=[COORD, "resume", "/nonexistent.h5"], value=("--listen", "tcp://x:1"),
             typo=("--no-servcie", "--no-service"),
             multi=(["--no-service", "--no_service"], None, 2),
             dashdash=([COORD, "resume", "--", "-x.h5"], 2, "-x.h5.journal")),
        dict(cmd=[COORD, "journal"], value=None, typo=("--hepl", "--help"),
             dashdash=([COORD, "journal", "--", h5 + ".journal"], 0, "record(s)")),
        dict(cmd=[COORD, "serve", "--key", "/nonexistent.key", "--control", nosock],
             value=("--results", "d"),
             typo=("--log-dri", "--log-dir"),
             multi=(["--agent-keys", "--agent_keys"], "/nonexistent.keys", 2),
             dashdash=([COORD, "serve", "--", "x"], 2, "unexpected argument 'x'")),
        dict(cmd=[COORD, "agents"], value=("--control", nosock), typo=("--jsn", "--json"),
             eq=("--control", nosock, 1),
             dashdash=([COORD, "agents", "--", "x"], 2, "unexpected argument 'x'")),
        dict(cmd=[COORD, "status"], value=("--control", nosock), typo=("--contrl", "--control"),
             eq=("--control", nosock, 1),
             dashdash=([COORD, "status", "--control", nosock, "--", "--run"], 1,
                       "no rackbench service")),
        dict(cmd=[COORD, "abort"], value=("--control", nosock), typo=("--contorl", "--control"),
             eq=("--control", nosock, 1),
             dashdash=([COORD, "abort", "--control", nosock, "--", "--run"], 1,
                       "no rackbench service")),
        dict(cmd=[COORD, "keygen"], value=None, typo=("--hlep", "--help"),
             dashdash=([COORD, "keygen", "--", tmp, "-k"], 0, "")),
        dict(cmd=[COORD, "plan", camp], value=("--assume-mbps", "1000"),
             typo=("--assume-mpbs", "--assume-mbps"),
             multi=(["--assume-capacity", "--assume_capacity"], "100g", 0),
             dashdash=([COORD, "plan", "--", camp], 0, "")),
        dict(cmd=[COORD, "options"], value=None, typo=("--jsno", "--json"),
             dashdash=([COORD, "options", "--", "--json"], 2, "unexpected argument '--json'")),
        dict(cmd=[COORD, "presets"], value=None, typo=("--hepl", "--help"),
             dashdash=([COORD, "presets", "--", "--x"], 2, "unknown preset '--x'")),
        dict(cmd=[COORD, "import-fio", job], value=("--agent", "host7"),
             typo=("--stirct", "--strict"), eq=("--target", "/dev/sdz", 0),
             dashdash=([COORD, "import-fio", "--", job], 0, "")),
        dict(cmd=[COORD, "report", h5], value=("--format", "csv"),
             typo=("--baselin", "--baseline"), eq=("--format", "csv", 0),
             dashdash=([COORD, "report", "--", h5], 0, "")),
        dict(cmd=[COORD, "demo"], value=("--out", "/proc/x/y"), typo=("--ou", "--out"),
             eq=("--out", "/proc/x/y", 2),
             dashdash=([COORD, "demo", "--", "x"], 2, "unexpected argument 'x'")),
        dict(cmd=daemon, value=("--name", "n"), typo=("--spool-mx", "--spool-max"),
             multi=(["--spool-max", "--spool_max"], "1k", 2),
             dashdash=(daemon + ["--", "x"], 2, "unexpected argument 'x'")),
        dict(cmd=ar, value=("--output-format", "json"), typo=("--rate-iop", "--rate-iops"),
             multi=(["--lat-log", "--lat_log"], target, 2),
             dashdash=(ar + ["--", "x"], 2, "unexpected argument 'x'")),
        dict(cmd=[AGENT, "inventory", "--root", empty], value=("--config", "/nonexistent"),
             typo=("--nvme-page", "--nvme-pages"),
             multi=(["--nvme-pages", "--nvme_pages"], tmp, 0),
             dashdash=([AGENT, "inventory", "--", "x"], 2, "unexpected argument 'x'")),
        dict(cmd=[AGENT, "purge", target, "--method", "zero", "--state-dir", tmp],
             value=("--ses", "user"), typo=("--dryrun", "--dry-run"),
             multi=(["--dry-run", "--dry_run"], None, 3),
             dashdash=([AGENT, "purge", "--method", "zero", "--state-dir", tmp, "--", target], 3,
                       "refused")),
        dict(cmd=[AGENT, "spool"], value=None, typo=("--hepl", "--help"),
             dashdash=([AGENT, "spool", "--", "/nonexistent"], 2, "cannot read '/nonexistent'")),
        dict(cmd=[AGENT, "keygen"], value=None, typo=("--hlp", "--help"),
             dashdash=([AGENT, "keygen", "--", tmp, "-a"], 0, "")),
    ]

    for c in CASES:
        cmd = c["cmd"]
        name = " ".join(os.path.basename(x) for x in c["cmd"][:2])
        bad, good = c["typo"]
        mistake(cmd + [bad], bad, f"did you mean '{good}'?")
        mistake(cmd + ["--frobnicate"], "--frobnicate", "unknown option")
        if c["value"]:
            flag, v = c["value"]
            mistake(cmd + [flag], flag, "needs a value")
            mistake(cmd + [flag, v, flag, v], flag, "given twice")
            mistake(cmd + [f"{flag}={v}", flag, v], flag, "given twice")
        if "eq" in c:
            flag, v, rc = c["eq"]
            same(cmd + [f"{flag}={v}"], cmd + [flag, v], rc, f"{name}: {flag}=V and {flag} V")
        if "multi" in c:
            (hyphen, under), v, rc = c["multi"]
            va = [v] if v is not None else []
            same(cmd + [hyphen] + va, cmd + [under] + va, rc, f"{name}: {hyphen} and {under}")
            if v is not None:
                same(cmd + [f"{under}={v}"], cmd + [hyphen, v], rc, f"{name}: {under}=V")
        argv, rc, text = c["dashdash"]
        r = run(argv)
        check(r.returncode == rc and text in r.stdout + r.stderr,
              f"{' '.join(argv[1:])}: exit {r.returncode} {r.stderr}; want {rc} and {text!r}")
        # --help shows the hyphen form, and only it
        r = run((c["cmd"][:1] if c["cmd"] is daemon else c["cmd"][:2]) + ["--help"])
        check(r.returncode == 0 and r.stdout.startswith("usage: "), f"{name} --help: {r.stderr}")
        if "multi" in c:
            hyphen, under = c["multi"][0]
            check(hyphen in r.stdout and under not in r.stdout, f"{name} --help spells {hyphen}")

    # a mistyped command: its suggestion
    mistake([COORD, "plna"], "plna", "did you mean 'plan'?")
    mistake([AGENT, "inventroy"], "inventroy", "did you mean 'inventory'?")

    # --rate-iops and --rate_iops: the same run, the same settings
    docs = []
    for spelling in (["--rate-iops", "20000", "--size-pct", "50"],
                     ["--rate_iops", "20000", "--size_pct=50"],
                     ["--rate_iops=20000", "--size-pct=50"]):
        r = run(ar + spelling + ["--rw", "read", "--json"])
        check(r.returncode == 0, f"{spelling}: exit {r.returncode}: {r.stderr}")
        docs.append(json.loads(r.stdout))
    check(docs[0]["settings"]["rate_iops"] == "20000" and docs[0]["settings"]["size_pct"] == "50",
          f"settings {docs[0]['settings']}")
    check(all(d["settings"] == docs[0]["settings"] for d in docs), "the same settings each way")
    check(all(d["effective"] == docs[0]["effective"] for d in docs), "the same effective line")
    r = run(ar + ["--rate-iops", "20000", "--rw", "read"])
    t = run(ar + ["--rate_iops", "20000", "--rw", "read"])
    check(r.stdout.splitlines()[0] == t.stdout.splitlines()[0] and
          "rate_iops=20000" in r.stdout.splitlines()[0], "the same settings echoed")
print("ok")
