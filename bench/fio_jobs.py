#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""fio's example jobs run both ways, side by side, with the device as the witness.

Each job of fio's examples/ (from a fio source tree, --fio-tree) runs alternately under fio
(`fio JOB`) and under rackbench (`rackbench-agent run --fio JOB`) on one loop device over
a tmpfs file, N pairs (default 3). The job files are copied with the loop device as their
filename, ioengine=io_uring (rackbench's engine; fio's libaio would be another tool's
cost), runtime and timeout cut to --runtime seconds and every size over --size cut to it
(both tools get the same copy). Before each run the page cache is dropped (buffered jobs
would otherwise read the last run's cache) and the device's own counters are read
(/sys/block/loopN/stat: IOs, merges, sectors, time, per direction) before and after.

Per job it prints the medians: each tool's IOPS and MiB moved as it reports them, and the
device's MiB read and written and requests while that tool ran. Then the verdict:
"agree" when the two tools did the same work at the device (its bytes per byte the tool
reports within 10% of each other: 1 where every read reaches the drive) and their IOPS
differ by less than the runs' spread; "DIFFER in speed" when the work is the same and
each figure is its device's; "DIFFER in work" otherwise. These are benchmarks, not tests.

Run as root:
    /usr/bin/python3 bench/fio_jobs.py --fio-tree FIO_TREE [--fio FIO_TREE/fio]
                                       [--pairs 3] [--runtime 3] [--size 256m] [--only NAME]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
AGENT = os.environ.get("RB_AGENT", os.path.join(ROOT, "build", "agent", "rackbench-agent"))
MIB = 1 << 20

# (examples/FILE, section or None): jobs without a mount point or engine of their own
JOBS = [
    ("fio-rand-read.fio", None),
    ("fio-rand-write.fio", None),
    ("fio-seq-read.fio", None),
    ("fio-seq-write.fio", None),
    ("fio-rand-RW.fio", None),
    ("fio-seq-RW.fio", None),
    ("iometer-file-access-server.fio", None),
    ("tiobench-example.fio", "f2"),
    ("ssd-test.fio", "rand-read"),
    ("basic-verify.fio", None),
]


def units(text):
    """A size of fio's ("10G", "512m") in bytes; None when it is not one."""
    m = re.fullmatch(r"(\d+)([kmgt]?)i?b?", text.strip().lower())
    if not m:
        return None
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}[m.group(2)]


def prepare(src, dev, runtime, size, out):
    """The job file as both tools run it: on dev, through io_uring, cut to runtime/size."""
    lines = []
    with open(src) as f:
        for line in f:
            key, eq, val = line.partition("=")
            k = key.strip().lower()
            v = val.split(";")[0].strip()
            if not eq or k.startswith((";", "#", "[")):
                lines.append(line)
            elif k in ("filename", "directory"):
                if k == "filename":
                    lines.append(f"filename={dev}\n")
            elif k == "ioengine":
                lines.append("ioengine=io_uring\n")
            elif k in ("runtime", "timeout"):
                lines.append(f"{k}={runtime}\n")
            elif k in ("size", "filesize") and (units(v) or 0) > size:
                lines.append(f"{k}={size}\n")
            else:
                lines.append(line)
    text = "".join(lines)
    if "filename=" not in text:  # the device for every job
        text = re.sub(r"^(\[[^\]]+\])$", rf"\1\nfilename={dev}", text, count=1, flags=re.M)
    with open(out, "w") as f:
        f.write(text)


def dev_stat(dev):
    """The device's counters: read IOs, merges, sectors, ms; the same for writes."""
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        return [int(x) for x in f.read().split()[:8]]


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run_fio(fio, job, section, dev):
    args = [fio, "--output-format=json", job] + ([f"--section={section}"] if section else [])
    # in the job's folder: fio leaves its verify state files where it runs
    r = subprocess.run(args, capture_output=True, text=True, timeout=600,
                       cwd=os.path.dirname(job))
    if r.returncode:
        raise RuntimeError(f"fio {job}: {r.stderr[-400:]}")
    doc = json.loads(r.stdout[r.stdout.index("{"):])
    by = {d: sum(j[d]["io_bytes"] for j in doc["jobs"]) for d in ("read", "write")}
    # a job that verifies: the write phase's IOPS, as rackbench's JSON gives them (the
    # verify phase's reads are counted in the bytes)
    dirs = ("write",) if "verify=" in open(job).read() else ("read", "write")
    iops = sum(j[d]["iops"] for j in doc["jobs"] for d in dirs)
    return {"iops": iops, "read": by["read"], "write": by["write"]}


def run_rb(job, section, dev):
    args = [AGENT, "run", "--fio", job, "--json", "--destructive", "--allow", dev]
    if section:
        args += ["--section", section]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise RuntimeError(f"rackbench {job}: {r.stderr[-400:]}")
    doc = json.loads(r.stdout)
    # the verify phase's reads (fio counts them in its reads): every chunk checked
    checked = doc.get("verify", {}).get("checked", 0) * 512
    return {"iops": doc["read"]["iops"] + doc["write"]["iops"],
            "read": doc["read"]["bytes"] + checked, "write": doc["write"]["bytes"]}


def measure(tool, dev):
    drop_caches()
    before = dev_stat(dev)
    res = tool()
    after = dev_stat(dev)
    d = [a - b for a, b in zip(after, before)]
    res.update(dev_read=d[2] * 512, dev_write=d[6] * 512, dev_reqs=d[0] + d[4],
               dev_merges=d[1] + d[5])
    return res


def verdict(rb, fio):
    """Each tool's figure against its device's (device bytes per byte it reports: 1 for
    reads that reach the drive, less where the page cache took rewrites), then the two
    tools' IOPS against the runs' spread."""
    med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
    witness = {}
    for name, xs in (("rackbench", rb), ("fio", fio)):
        told = med(xs, "read") + med(xs, "write")
        witness[name] = (med(xs, "dev_read") + med(xs, "dev_write")) / max(told, 1)
    # the runs' spread: the wider of the two tools' own (max / min - 1 over its runs)
    spread = max(max(x["iops"] for x in xs) / max(min(x["iops"] for x in xs), 1e-9) - 1
                 for xs in (rb, fio))
    iops = med(rb, "iops") / max(med(fio, "iops"), 1e-9)
    same_work = abs(witness["rackbench"] / max(witness["fio"], 1e-9) - 1) <= 0.10
    said = (f"device bytes per reported byte: rackbench {witness['rackbench']:.2f}, "
            f"fio {witness['fio']:.2f}; IOPS {iops:.2f}x (runs' spread {spread:.0%})")
    if same_work and abs(iops - 1) <= spread:
        return "agree: " + said
    if same_work:
        return ("DIFFER in speed, the same work at the device (each figure is its "
                "device's): " + said)
    return "DIFFER in work at the device: " + said


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fio-tree", required=True, help="a fio source tree (its examples/)")
    ap.add_argument("--fio", help="the fio to run (default FIO_TREE/fio, else fio on PATH)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--size", default="256m")
    ap.add_argument("--only", help="run the jobs whose file name contains this")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the bench makes a loop device and drops the page cache")
    fio = a.fio or (os.path.join(a.fio_tree, "fio") if os.access(os.path.join(a.fio_tree, "fio"),
                                                                  os.X_OK) else "fio")
    size = units(a.size)
    img = tempfile.NamedTemporaryFile(dir="/dev/shm", delete=False)
    img.truncate(2 * size)
    img.close()
    subprocess.run(["dd", "if=/dev/urandom", f"of={img.name}", "bs=1M",
                    f"count={2 * size // MIB}", "conv=notrunc", "status=none"], check=True)
    dev = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", img.name],
                         capture_output=True, text=True, check=True).stdout.strip()
    version = subprocess.run([fio, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"target {dev} (loop over tmpfs, {2 * size // MIB} MiB); {version}; "
          f"{a.pairs} pairs, runtime {a.runtime} s, sizes cut to {a.size}; medians")
    tmp = tempfile.mkdtemp()
    try:
        for name, section in JOBS:
            if a.only and a.only not in name:
                continue
            job = os.path.join(tmp, name)
            prepare(os.path.join(a.fio_tree, "examples", name), dev, a.runtime, size, job)
            rb, fi = [], []
            try:
                for _ in range(a.pairs):
                    rb.append(measure(lambda: run_rb(job, section, dev), dev))
                    fi.append(measure(lambda: run_fio(fio, job, section, dev), dev))
            except RuntimeError as e:
                print(f"\n{name}{' [' + section + ']' if section else ''}: not run: {e}")
                continue
            med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
            print(f"\n{name}{' [' + section + ']' if section else ''}")
            print(f"  {'':10} {'IOPS':>10} {'MiB said':>9} {'dev MiB r':>10} {'dev MiB w':>10} "
                  f"{'dev reqs':>9} {'merges':>7}")
            for tname, xs in (("rackbench", rb), ("fio", fi)):
                print(f"  {tname:10} {med(xs, 'iops'):10.0f} "
                      f"{(med(xs, 'read') + med(xs, 'write')) / MIB:9.1f} "
                      f"{med(xs, 'dev_read') / MIB:10.1f} {med(xs, 'dev_write') / MIB:10.1f} "
                      f"{med(xs, 'dev_reqs'):9.0f} {med(xs, 'dev_merges'):7.0f}")
            print("  " + verdict(rb, fi))
    finally:
        subprocess.run(["losetup", "-d", dev])
        os.unlink(img.name)


if __name__ == "__main__":
    main()
