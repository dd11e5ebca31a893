# SPDX-License-Identifier: MIT
"""rackbench import-fio on a table of fio job files of the shapes people keep: the
seeds' fio suite, QD sweeps, bssplit mixes, rate-limited jobs, stonewall chains,
includes and $ncpus expressions. Each converts to a campaign that `rackbench plan`
accepts, with the expected phases and settings; every option that does not convert is
named with FILE:LINE, on stderr and in the campaign; differences in meaning (rate per
job, jobs fio runs at once) are said; bad files exit 2."""
import os

import yaml

from rbtest import COORD, Tmp, check, run

DEV = "/dev/nvme0n1"
G = f"[global]\nioengine=io_uring\ndirect=1\nfilename={DEV}\nruntime=10\ntime_based\n"

# (name, job file, {phase index: {key: value}}, [stderr substrings], phases)
CASES = [
    ("seq-read", G + "[r]\nrw=read\nbs=128k\niodepth=32\n",
     {0: {"rw": "read", "bs": "128k", "iodepth": 32, "runtime": "10s"}}, [], 1),
    ("rand-read-4k", G + "[r]\nrw=randread\nbs=4k\niodepth=128\n",
     {0: {"rw": "randread", "iodepth": 128, "visit_once": True}}, [], 1),
    ("norandommap", G + "[r]\nrw=randread\nnorandommap\n", {0: {"rw": "randread"}}, [], 1),
    ("randwrite", G + "[w]\nrw=randwrite\nbs=4k\niodepth=32\nnumjobs=4\n",
     {0: {"rw": "randwrite", "numjobs": 4}}, [], 1),
    ("mix-70-30", G + "[m]\nrw=randrw\nrwmixread=70\n", {0: {"rwmixread": 70}}, [], 1),
    ("rwmixwrite", G + "[m]\nrw=randrw\nrwmixwrite=20\n", {0: {"rwmixread": 80}}, [], 1),
    ("readwrite-alias", G + "[m]\nreadwrite=readwrite\n", {0: {"rw": "rw"}}, [], 1),
    ("bssplit", G + "[c]\nrw=randwrite\nbssplit=4k/10:64k/50:128k/40\n",
     {0: {"bssplit": "4k/10:64k/50:128k/40"}}, [], 1),
    # sizes per direction: the direction the job does (a value not ended by a comma
    # goes on to the next direction, an empty one is fio's default)
    ("bs-write-part", G + "[w]\nrw=randwrite\nbs=4k,64k\n", {0: {"bs": "64k"}}, [], 1),
    ("bs-read-part", G + "[r]\nrw=read\nbs=4k,64k\n", {0: {"bs": "4k"}}, [], 1),
    ("bs-default-part", G + "[w]\nrw=write\nbs=16k,,\n", {0: {"bs": "4k"}}, [], 1),
    ("bs-same-parts", G + "[m]\nrw=randrw\nbs=8k,8k\n", {0: {"bs": "8k"}}, [], 1),
    ("bssplit-write-part", G + "[c]\nrw=randwrite\nbssplit=4k/50:64k/50,128k/100\n",
     {0: {"bssplit": "128k/100"}}, [], 1),
    # bsrange: each multiple of the minimum equally likely, the maximum taking the rest
    ("bsrange", G + "[r]\nrw=randread\nbsrange=4k-16k\n",
     {0: {"bssplit": "4096/25:8192/25:12288/25:16384/25"}}, [], 1),
    ("bsrange-uneven", G + "[r]\nrw=randread\nbsrange=4k-10k\n",
     {0: {"bssplit": "4096/40:8192/40:10240/20"}}, [], 1),
    # rate in bytes: IOs of the job's one size; per job as rate_iops
    ("rate-bytes", G + "[r]\nrw=randread\nbs=4k\nnumjobs=2\nrate=4m\n",
     {0: {"rate_iops": 2048}}, ["rate is per job"], 1),
    ("rate-write-part", G + "[w]\nrw=randwrite\nrate_iops=,300\n", {0: {"rate_iops": 300}},
     [], 1),
    ("rate-per-job", G + "[r]\nrw=randread\nnumjobs=4\nrate_iops=500\n",
     {0: {"rate_iops": 2000}}, [":10:1:", "rate_iops is per job", "rate_iops: 2000"], 1),
    ("rate-one-job", G + "[r]\nrw=randread\nrate_iops=20000\niodepth=4\n",
     {0: {"rate_iops": 20000, "iodepth": 4}}, [], 1),
    ("ramp", G + "ramp_time=5\n[r]\nrw=read\n", {0: {"ramp": "5s"}}, [], 1),
    ("runtime-units", G.replace("runtime=10", "runtime=2m") + "[r]\nrw=read\n",
     {0: {"runtime": "2m"}}, [], 1),
    ("size-based", f"[global]\nfilename={DEV}\ndirect=1\n[fill]\nrw=write\nbs=1m\nsize=8g\n",
     {0: {"rw": "write", "size": "8g", "passes": 1}}, [], 1),
    ("loops", f"[global]\nfilename={DEV}\n[fill]\nrw=write\nbs=1m\nsize=1g\nloops=2\n",
     {0: {"passes": 2, "direct": False}}, [], 1),
    ("io-size", f"[global]\nfilename={DEV}\n[r]\nrw=read\nio_size=10g\n",
     {0: {"io_size": "10g"}}, [], 1),
    ("offset-size", G + "[r]\nrw=randread\noffset=1g\nsize=4g\n",
     {0: {"offset": "1g", "size": "4g"}}, [], 1),
    ("size-percent", G + "[r]\nrw=randread\nsize=25%\n", {0: {"size_pct": 25}}, [], 1),
    ("zipf", G + "[r]\nrw=randread\nrandom_distribution=zipf:1.2\n",
     {0: {"random_distribution": "zipf:1.2"}}, [], 1),
    ("zoned", G + "[r]\nrw=randread\nrandom_distribution=zoned:60/10:30/20:10/70\n",
     {0: {"random_distribution": "zoned:60/10:30/20:10/70"}}, [], 1),
    # a write with verify, then fio's verify phase: the range read back, checked
    ("verify", G + "[v]\nrw=write\nverify=crc32c\n",
     {0: {"verify": True, "rw": "write"}, 1: {"verify": True, "rw": "read", "passes": 1}}, [], 2),
    ("verify-off", G + "[v]\nrw=write\nverify=crc32c\ndo_verify=0\n", {0: {"verify": True}},
     [], 1),
    ("verify-md5", G + "[v]\nrw=randwrite\nverify=md5\n", {0: {"verify": True}},
     ["verify=md5: rackbench checks a crc32c"], 2),
    ("batches", G + "[b]\nrw=randread\niodepth=64\niodepth_batch_submit=16\n"
     "iodepth_batch_complete_min=8\n", {0: {"submit_batch": 16, "complete_batch": 8}}, [], 1),
    ("stonewall-chain", G + "[a]\nrw=write\nbs=128k\n[b]\nstonewall\nrw=randread\n[c]\n"
     "stonewall\nrw=randwrite\n", {0: {"rw": "write"}, 1: {"rw": "randread"},
                                   2: {"rw": "randwrite"}}, [], 3),
    ("concurrent-jobs", G + "[a]\nrw=read\n[b]\nrw=randread\n", {1: {"rw": "randread"}},
     [], 2),
    ("qd-sweep", G + "".join(f"[qd{q}]\nstonewall\nrw=randread\niodepth={q}\n"
                             for q in (1, 2, 4, 8, 16, 32, 64, 128)),
     {0: {"iodepth": 1}, 7: {"iodepth": 128}}, [], 8),
    ("ncpus", G + "[r]\nrw=randread\nnumjobs=$ncpus\niodepth=($ncpus*8)\n",
     {0: {"numjobs": os.cpu_count(), "iodepth": os.cpu_count() * 8}}, [], 1),
    ("env", G + "[r]\nrw=randread\niodepth=${RB_TEST_QD}\n", {0: {"iodepth": 12}}, [], 1),
    ("inline-comments", G + "[r]\nrw=randread ; random reads\nnumjobs=2\t; two\n",
     {0: {"numjobs": 2}}, [], 1),
    ("libaio", G.replace("io_uring", "libaio") + "[r]\nrw=randread\n", {0: {"rw": "randread"}},
     [":2:1:", "ioengine=libaio runs on rackbench's io_uring engine"], 1),
    ("null-engine", "[n]\nioengine=null\nsize=1g\nrw=randread\ntime_based\nruntime=5\n",
     {0: {"engine": "null"}}, [], 1),
    ("unsupported", G + "[z]\nrw=randwrite\nzonemode=zbd\nstartdelay=5\n",
     {0: {"rw": "randwrite"}}, [":9:1:", "'zonemode' is not supported", ":10:1:",
                                "'startdelay' is not supported"], 1),
    ("filename-list", "[global]\nruntime=5\ntime_based\n[r]\nrw=randread\n"
     "filename=/dev/nvme0n1:/dev/nvme1n1\n", {0: {"rw": "randread"}}, [], 1),
    ("per-job-files", "[global]\nruntime=5\ntime_based\n[a]\nrw=read\nfilename=/dev/nvme0n1\n"
     "[b]\nstonewall\nrw=read\nfilename=/dev/nvme1n1\n", {0: {"rw": "read"}}, [], 2),
]

# files that must be refused, exit 2, with the place named
BAD = [
    ("no-section", "rw=read\n", ":1:", "before any [section]"),
    ("bad-bs", G + "[r]\nbs=3q\n", ":8:", "'bs=3q'"),
    # a pattern rackbench cannot check: refused by name, not dropped
    ("verify-pattern", G + "[v]\nrw=write\nverify=pattern\n", ":9:", "'verify=pattern' is not "
     "supported"),
    ("forever", f"[r]\nfilename={DEV}\ntime_based\n", ":1:", "runs for ever"),
    ("only-global", G, "", "no job in the file"),
    ("unset-env", G + "[r]\niodepth=${RB_TEST_UNSET_VAR}\n", ":8:", "is not set"),
    ("bad-expr", G + "[r]\niodepth=(2*)\n", ":8:", "cannot evaluate"),
    ("bad-section", "[r\nrw=read\n", ":1:", "a section is '[name]'"),
    # what rackbench cannot do the same way is refused, saying what to use
    ("bs-mixed-parts", G + "[m]\nrw=randrw\nbs=4k,64k\n", ":9:", "two jobs"),
    ("rw-runs", G + "[r]\nrw=randread:8\n", ":8:", "use 'randread'"),
    ("rw-holes", G + "[r]\nrw=read:4k\n", ":8:", "a hole of 4k"),
    ("rate-mixed", G + "[m]\nrw=randrw\nrate_iops=1000\n", ":9:",
     "fio limits each direction"),
    ("engine-typo", G.replace("io_uring", "io_urnig") + "[r]\nrw=read\n", ":2:",
     "did you mean 'io_uring'"),
    ("engine-other", G.replace("io_uring", "rbd") + "[r]\nrw=read\n", ":2:",
     "ioengine=io_uring"),
    ("trimwrite", G + "[t]\nrw=trimwrite\n", ":8:", "two jobs"),
]

import json  # noqa: E402

DEFAULTS = {o["key"]: o["default"] for o in
            json.loads(run([COORD, "options", "--json"]).stdout)["options"]}


def same(got, want):
    return str(got).lower() == str(want).lower()


with Tmp() as tmp:
    env = dict(os.environ, RB_TEST_QD="12")
    table = []
    for name, text, want, notes, nphases in CASES:
        path = os.path.join(tmp, f"{name}.fio")
        with open(path, "w") as f:
            f.write(text)
        r = run([COORD, "import-fio", path], env=env)
        check(r.returncode == 0, f"{name}: exit {r.returncode}\n{r.stderr}")
        camp = yaml.safe_load(r.stdout)
        phases = camp["phases"]
        check(len(phases) == nphases, f"{name}: {len(phases)} phases, want {nphases}")
        for i, kv in want.items():
            wl = phases[i]["workload"]
            for k, v in kv.items():
                got = wl.get(k, DEFAULTS[k])  # a key left out is rackbench's default
                check(same(got, v), f"{name}: phase {i} {k} = {got!r}, want {v!r}\n{r.stdout}")
        for n in notes:
            check(n in r.stderr, f"{name}: stderr lacks {n!r}:\n{r.stderr}")
            if n.startswith(":"):
                check(f"{path}{n}".strip() in r.stderr, f"{name}: not placed as FILE{n}")
        # what stderr says is in the campaign too, as comments
        for line in r.stderr.splitlines():
            if "warning:" in line:
                msg = line.split("warning: ", 1)[1]
                check(msg in r.stdout, f"{name}: '{msg}' is not in the campaign's comments")
        out = os.path.join(tmp, f"{name}.yaml")
        with open(out, "w") as f:
            f.write(r.stdout)
        p = run([COORD, "plan", out])
        check(p.returncode == 0, f"{name}: plan refused the campaign: {p.stderr}\n{r.stdout}")
        table.append((name, nphases, len([x for x in r.stderr.splitlines() if "warning" in x])))
    # concurrent jobs are said to run one after the other
    r = run([COORD, "import-fio", os.path.join(tmp, "concurrent-jobs.fio")])
    check("at the same time as the one before" in r.stdout, "concurrency not said")
    # writes bring the run's key into the campaign; reads do not
    r = run([COORD, "import-fio", os.path.join(tmp, "randwrite.fio")])
    check(yaml.safe_load(r.stdout).get("destructive") is True, "a writing job: destructive")
    r = run([COORD, "import-fio", os.path.join(tmp, "seq-read.fio")])
    check("destructive" not in yaml.safe_load(r.stdout), "a read job is not destructive")
    # --strict: an unsupported option is an error
    r = run([COORD, "import-fio", "--strict", os.path.join(tmp, "unsupported.fio")])
    check(r.returncode == 2 and "'zonemode' is not supported" in r.stderr, f"--strict: {r.stderr}")
    # includes, relative to the including file
    inc = os.path.join(tmp, "inc")
    os.mkdir(inc)
    with open(os.path.join(inc, "common.fio"), "w") as f:
        f.write(G)
    with open(os.path.join(inc, "main.fio"), "w") as f:
        f.write("include common.fio\n[r]\nrw=randread\niodepth=7\n")
    r = run([COORD, "import-fio", os.path.join(inc, "main.fio")])
    camp = yaml.safe_load(r.stdout)
    check(r.returncode == 0 and camp["phases"][0]["workload"]["iodepth"] == 7 and
          camp["targets"][0]["drives"] == [DEV], f"include: {r.stderr}\n{r.stdout}")
    # a job without filename needs --target, which stands in for it
    nof = os.path.join(tmp, "nofile.fio")
    with open(nof, "w") as f:
        f.write("[r]\nrw=randread\nruntime=5\ntime_based\n")
    r = run([COORD, "import-fio", nof])
    check(r.returncode == 2 and "names no filename" in r.stderr, f"no filename: {r.stderr}")
    r = run([COORD, "import-fio", nof, "--target", "/tmp/t.dat", "--agent", "h1"])
    camp = yaml.safe_load(r.stdout)
    check(camp["targets"] == [{"agent": "h1", "drives": ["/tmp/t.dat"]}], f"{camp}")
    for name, text, where, why in BAD:
        path = os.path.join(tmp, f"{name}.fio")
        with open(path, "w") as f:
            f.write(text)
        r = run([COORD, "import-fio", path], env=env)
        check(r.returncode == 2, f"{name}: exit {r.returncode}, want 2")
        check(why in r.stderr and f"{path}{where}" in r.stderr, f"{name}: {r.stderr}")
    r = run([COORD, "import-fio", os.path.join(tmp, "missing.fio")])
    check(r.returncode == 2 and "cannot open" in r.stderr, "a missing file")
    # rackbench-agent run --fio: one job of the file, its filename= the target
    from rbtest import AGENT
    data = os.path.join(tmp, "data.bin")
    with open(data, "wb") as f:
        f.write(os.urandom(8 << 20))
    two = os.path.join(tmp, "two.fio")
    with open(two, "w") as f:
        f.write(f"[global]\nruntime=1\ntime_based\nfilename={data}\n[a]\nrw=randread\n"
                f"iodepth=4\n[b]\nrw=read\nbs=64k\nzonemode=zbd\n")
    r = run([AGENT, "run", "--fio", two, "--runtime", "200ms"])
    check(r.returncode == 2 and "several jobs" in r.stderr and "\n  b" in r.stderr,
          f"run --fio of two jobs: {r.returncode} {r.stderr}")
    r = run([AGENT, "run", "--fio", two, "--section", "b", "--runtime", "200ms", "--json"])
    out = json.loads(r.stdout) if r.returncode == 0 else {}
    check(r.returncode == 0 and out["read"]["ios"] > 0 and f"{two}:11:1: warning: 'zonemode'" in
          r.stderr, f"run --fio --section b: {r.returncode} {r.stderr}")
    check(out["settings"]["bs"] == "64k" and out["settings"]["rw"] == "read", f"{out['settings']}")
    # later flags override the job
    r = run([AGENT, "run", "--fio", two, "--section", "a", "--iodepth", "8", "--runtime", "200ms",
             "--json"])
    check(r.returncode == 0 and json.loads(r.stdout)["settings"]["iodepth"] in (8, "8"),
          f"run --fio with --iodepth: {r.stdout[:300]}")
    print(f"{'job file':20} {'phases':>6} {'notes':>5}")
    for name, n, w in table:
        print(f"{name:20} {n:6} {w:5}")
print(f"ok: {len(CASES)} job files converted, {len(BAD)} refused")
