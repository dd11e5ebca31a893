# SPDX-License-Identifier: MIT
"""`rackbench-agent run --status-interval N` prints the output so far while the run goes, as
fio's --status-interval does: a 3 s run with 500 ms intervals and N = 1 s prints fio's
JSON at 1 s and 2 s of measured time, whole documents (every member of the final one)
whose IOs and samples grow, then the final one; fio's terse line arrives while the run
still goes (the process has not ended when it is read); the text output says each
snapshot's time; rackbench's own --json (one document a run) refuses it."""
import json
import os
import subprocess

from rbtest import AGENT, Tmp, check, run


def documents(text):
    dec, i, docs = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


with Tmp() as tmp:
    data = os.path.join(tmp, "data.bin")
    with open(data, "wb") as f:
        f.write(os.urandom(16 << 20))
    common = [AGENT, "run", "--target", data, "--rw", "randread", "--bs", "4k", "--runtime", "3s",
              "--interval", "500ms", "--status-interval", "1"]
    r = run(common + ["--output-format", "fio-json"])
    check(r.returncode == 0, f"fio-json: {r.returncode} {r.stderr}")
    docs = documents(r.stdout)
    check(len(docs) == 3, f"{len(docs)} documents: want snapshots at 1 s and 2 s, then the end")
    final = docs[-1]["jobs"][0]
    for n, doc in enumerate(docs[:2], 1):
        job = doc["jobs"][0]
        check(job["read"]["runtime"] == 1000 * n, f"snapshot {n}: {job['read']['runtime']} ms")
        check(job["read"]["iops_samples"] == 2 * n, f"snapshot {n}: {job['read']['iops_samples']}")
        check(set(doc) == set(docs[-1]) and set(job) == set(final),
              f"snapshot {n} lacks {sorted(set(final) - set(job))}")
        check(job["iodepth_level"]["1"] == 100.0 and job["ctx"] > 0, f"snapshot {n}: usage")
    ios = [d["jobs"][0]["read"]["total_ios"] for d in docs]
    check(0 < ios[0] < ios[1] < ios[2], f"IOs so far {ios}")
    check(final["read"]["iops_samples"] == 6, f"final: {final['read']['iops_samples']} samples")

    # terse: a line a snapshot, printed while the run goes
    p = subprocess.Popen(common + ["--minimal"], stdout=subprocess.PIPE, text=True)
    try:
        first = p.stdout.readline()
        running = p.poll() is None
        rest = p.stdout.read().splitlines()
    finally:
        p.wait(timeout=60)
    check(first.startswith("3;") and running, f"first line {first[:40]!r}, running {running}")
    lines = [first.rstrip("\n")] + rest
    check(p.returncode == 0 and len(lines) == 3, f"{len(lines)} terse lines, rc {p.returncode}")
    check([int(x.split(";")[8]) for x in lines[:2]] == [1000, 2000], "terse runtimes")

    r = run(common)
    check(r.returncode == 0, f"text: {r.stderr}")
    heads = [x for x in r.stdout.splitlines() if x.startswith("rackbench-agent run: status")]
    check(heads == ["rackbench-agent run: status after 1.00s measured",
                    "rackbench-agent run: status after 2.00s measured"], f"text: {heads}")
    check(r.stdout.count("io_uring:") == 1, "the ring's features once, at the end")

    r = run(common + ["--json"])
    check(r.returncode == 2 and "--status-interval" in r.stderr, f"--json: {r.stderr}")
    # longer than the run: only the end
    r = run(common[:-1] + ["10s", "--output-format", "fio-json"])
    check(r.returncode == 0 and len(documents(r.stdout)) == 1, "a status interval past the end")
print("ok")
