# SPDX-License-Identifier: MIT
"""Trace replay against witnesses rackbench did not write. fio (random 4k reads and writes,
iodepth 1) runs on a loop device under the kernel's block tracer, read out by blktrace and
blkparse; rackbench-agent replays blkparse's text on a second loop device, traced again, and
the replay's queue events (sector, size, direction) must be the original's, in order. The
same for the kernel's binary records of that run (blkparse -d's merged dump of blktrace's
files, or the blk tracer's records read through tracefs), the iolog v3 fio wrote of it, and for an MSR Cambridge and an Alibaba sample
made here (with other devices' lines the filter drops, and offsets past the end that
modulo wraps). Around it, the guard: a trace that writes, without the keys, exits 3
naming its first writing line and leaves the device as it was; a read-only trace needs
no key; a bad line exits 2 naming FILE:LINE.

Where a kernel lockdown keeps blktrace from the tracer's relay files, the same events are
read from the kernel's blk tracer through tracefs, in its classic layout (blkparse's
without the sequence column), which the reader also takes."""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import time

from rbtest import AGENT, SRC, LoopDevices, Tmp, check, fail, run, sha256, skip

if os.geteuid() != 0:
    skip("needs root for loop devices and the block tracer")
for tool in ("fio", "blktrace", "blkparse", "losetup"):
    if not shutil.which(tool):
        skip(f"needs {tool}")

SIZE = 32 << 20
TRACING = "/sys/kernel/tracing"
# a queue event: dev, cpu, [sequence], time, pid, Q, RWBS, sector + count [comm]
Q_RE = re.compile(r"^\s*(\d+),(\d+)\s+\d+\s+(?:\d+\s+)?\d+\.\d+\s+(\d+)\s+Q\s+([A-Z]+)\s+"
                  r"(\d+)\s+\+\s+(\d+)\s+\[(.*)\]")


def sh(*args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def direction(rwbs):
    return "trim" if "D" in rwbs else "write" if "W" in rwbs else "read" if "R" in rwbs else None


def queue_events(text, keep=lambda pid, comm: True):
    """(sector, count, direction) of every queue event with data, in order."""
    out = []
    for line in text.splitlines():
        m = Q_RE.match(line)
        if not m or not keep(int(m.group(3)), m.group(7)):
            continue
        d = direction(m.group(4))
        if d and int(m.group(6)):
            out.append((int(m.group(5)), int(m.group(6)), d))
    return out


def ftrace_bin_to_blktrace(raw):
    """The blk tracer's records in tracefs's binary output as a blktrace file: its '#' header
    lines and each record's 16-byte ftrace prefix dropped; the kernel's struct blk_io_trace
    (48 bytes, then pdu_len bytes) kept as they are."""
    while raw.startswith(b"#"):
        raw = raw[raw.index(b"\n") + 1:]
    out, at = bytearray(), 0
    while at + 16 + 48 <= len(raw):
        rec = raw[at + 16:at + 64]
        check(int.from_bytes(rec[:4], "little") >> 8 == 0x656174,
              f"tracefs's binary record at {at} is not a blk_io_trace")
        pdu = int.from_bytes(rec[46:48], "little")
        out += raw[at + 16:at + 64 + pdu]
        at += 64 + pdu
    return bytes(out)


class Tracer:
    """The queue events of one device while it runs: blktrace, then blkparse's default text;
    or the kernel's blk tracer through tracefs (classic layout) where blktrace is kept out."""

    def __init__(self, dev, folder, name):
        self.dev, self.folder, self.name = dev, folder, name
        self.proc = None
        self.bin = None  # the kernel's binary records (struct blk_io_trace)
        self.block = os.path.join("/sys/block", os.path.basename(dev), "trace")

    def __enter__(self):
        if not os.path.ismount("/sys/kernel/debug"):
            sh("mount", "-t", "debugfs", "none", "/sys/kernel/debug")
        self.proc = subprocess.Popen(["blktrace", "-d", self.dev, "-a", "queue", "-o", self.name,
                                      "-D", self.folder], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        # blktrace says nothing when it is ready: its relay channels are set up within the
        # first second, and where it cannot trace (lockdown) it has exited by then
        time.sleep(1.5)
        if self.proc.poll() is None:
            return self
        why = self.proc.stderr.read().strip().splitlines()
        self.proc = None
        print(f"blktrace cannot trace here ({why[:1]}): the kernel's blk tracer instead")
        if not os.path.isdir(os.path.join(TRACING, "options")):
            sh("mount", "-t", "tracefs", "nodev", TRACING)
        if not os.path.isdir(self.block) or "blk" not in self._get("available_tracers"):
            skip("neither blktrace nor the kernel's blk tracer can trace here")
        for f, v in (("tracing_on", "0"), ("current_tracer", "blk"), ("options/blk_classic", "1"),
                     ("trace", "")):
            self._put(f, v)
        with open(os.path.join(self.block, "act_mask"), "w") as f:
            f.write("queue")
        with open(os.path.join(self.block, "enable"), "w") as f:
            f.write("1")
        self._put("tracing_on", "1")
        return self

    def _get(self, f):
        with open(os.path.join(TRACING, f)) as x:
            return x.read()

    def _put(self, f, v):
        with open(os.path.join(TRACING, f), "w") as x:
            x.write(v)

    def __exit__(self, *a):
        # the last IOs' queue events reach the tracer's buffers after the IOs returned: a
        # moment to drain them before the trace is cut (nothing reports that they have)
        time.sleep(0.5)
        if self.proc:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=30)
            r = sh("blkparse", "-i", self.name, "-D", self.folder)
            check(r.returncode == 0, f"blkparse: {r.stderr}")
            self.text = r.stdout
            # and the CPUs' binary records merged in time, as blkparse dumps them
            self.bin = os.path.join(self.folder, self.name + ".bin")
            r = sh("blkparse", "-i", self.name, "-D", self.folder, "-d", self.bin, "-O")
            check(r.returncode == 0, f"blkparse -d: {r.stderr}")
        else:
            self._put("tracing_on", "0")
            with open(os.path.join(self.block, "enable"), "w") as f:
                f.write("0")
            self.text = self._get("trace")
            self._put("options/blk_classic", "0")
            # the same events as the kernel's binary records (ftrace's bin option): each
            # behind ftrace's own 16 bytes (pid, cpu, time), which a blktrace file has not
            self._put("options/bin", "1")
            with open(os.path.join(TRACING, "trace"), "rb") as f:
                raw = f.read()
            self._put("options/bin", "0")
            self.bin = os.path.join(self.folder, self.name + ".bin")
            with open(self.bin, "wb") as f:
                f.write(ftrace_bin_to_blktrace(raw))
            self._put("current_tracer", "nop")
        self.path = os.path.join(self.folder, self.name + ".txt")
        with open(self.path, "w") as f:
            f.write(self.text)


def replay(dev, tmp, trace, fmt, extra=(), keys=True, speed="0"):
    """The replay of trace on dev under the tracer: its exit, output and queue events."""
    cmd = [AGENT, "run", "--target", dev, "--rw", "replay", "--replay", trace,
           "--replay-format", fmt, "--replay-speed", speed, "--state-dir", tmp, "--json",
           *extra]
    if keys:
        cmd += ["--destructive", "--allow", dev]
    with Tracer(dev, tmp, "replay-" + fmt) as t:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = p.communicate(timeout=300)
    check(p.returncode == 0, f"replay of {trace}: exit {p.returncode}: {err}")
    # the job thread's IOs (the main thread's are the guard's probes), and any io_uring
    # worker's it handed IOs to
    seen = queue_events(t.text, lambda pid, comm: (comm == "rackbench-agent" and pid != p.pid)
                        or comm.startswith("iou-wrk-"))
    return json.loads(out), seen


def same(name, got, want):
    check(len(want) > 1000, f"{name}: only {len(want)} IOs to compare")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail(f"{name}: IO {i} is {g}, the original's {w}")
    check(len(got) == len(want), f"{name}: {len(got)} IOs replayed, {len(want)} in the original")
    print(f"{name}: {len(got)} IOs, the same sequence")


def sample_msr(path, n, rnd):
    want, t = [], 128166372003061629
    with open(path, "w") as f:
        for i in range(n):
            disk = 0 if i % 7 else 1
            size = rnd.choice((4096, 8192, 16384, 65536))
            off = rnd.randrange(0, 4 * SIZE // 4096) * 4096
            typ = rnd.choice(("Read", "Write"))
            t += rnd.randrange(1, 20000)
            f.write(f"{t},wdev,{disk},{typ},{off},{size},{rnd.randrange(100, 90000)}\n")
            if disk == 0:
                want.append((wrap(off, size) // 512, size // 512, typ.lower()))
    return want


def sample_alibaba(path, n, rnd):
    want, t = [], 1577808000000000
    with open(path, "w") as f:
        f.write("device_id,opcode,offset,length,timestamp\n")
        for i in range(n):
            dev = 7 if i % 5 else 3
            size = rnd.choice((4096, 4096, 32768))
            off = rnd.randrange(0, SIZE // 4096) * 4096 + (rnd.choice((0, 2 * SIZE)) if i % 9 == 0 else 0)
            op = rnd.choice("RW")
            t += rnd.randrange(1, 500)
            f.write(f"{dev},{op},{off},{size},{t}\n")
            if dev == 7:
                want.append((wrap(off, size) // 512, size // 512, "read" if op == "R" else "write"))
    return want


def wrap(off, size):
    """replay_remap: modulo on a SIZE target of 512-byte blocks (docs/replay.md)."""
    if off + size <= SIZE:
        return off
    o = off % SIZE
    o -= o % 512
    return o if o + size <= SIZE else SIZE - size


with Tmp() as tmp, LoopDevices(tmp, 2, SIZE) as (orig, copy):
    rnd = random.Random(7)
    iolog = os.path.join(tmp, "fio.iolog")
    # the original: fio's random 4k reads and writes, one at a time, traced
    with Tracer(orig, tmp, "orig") as t:
        r = sh("fio", "--name=orig", f"--filename={orig}", "--rw=randrw", "--bs=4k",
               "--iodepth=1", "--ioengine=psync", "--direct=1", f"--size={SIZE}",
               "--io_size=12m", f"--write_iolog={iolog}", "--output=/dev/null", timeout=300)
    check(r.returncode == 0, f"fio: {r.stderr}")
    original = queue_events(t.text)
    check(len(original) >= 3000, f"the original trace holds {len(original)} IOs")

    # blkparse's text, replayed: the same IOs in the same order (and the JSON holds)
    doc, seen = replay(copy, tmp, t.path, "blkparse")
    same("blkparse", seen, original)
    tr = doc["targets"][0]["replay"]
    check(tr["ios"] == len(original) and tr["complete"], f"replay figures: {tr}")
    try:
        import jsonschema
        jsonschema.validate(doc, json.load(open(os.path.join(SRC, "schemas", "run-output.schema.json"))))
    except ImportError:
        print("python3-jsonschema is missing: the document's shape is not checked")

    # the kernel's binary records themselves (told by their magic)
    _, seen = replay(copy, tmp, t.bin, "auto")
    same("blktrace", seen, original)

    # fio's own iolog (v3) of that run, replayed in its timing, with the file name filter
    head = open(iolog).readline().strip()
    check(head == "fio version 3 iolog", f"fio wrote '{head}'")
    logged = []
    for line in open(iolog):
        f = line.split()
        if len(f) == 5 and f[2] in ("read", "write"):
            logged.append((int(f[3]) // 512, int(f[4]) // 512, f[2]))
    _, seen = replay(copy, tmp, iolog, "iolog", ["--replay-device", orig, "--runtime", "10m"],
                     speed="4")
    same("iolog", seen, logged)
    check(logged == original, "fio's iolog and the block trace disagree")

    # MSR Cambridge and Alibaba samples: other devices dropped, far offsets wrapped
    msr = os.path.join(tmp, "sample.msr.csv")
    want = sample_msr(msr, 3000, rnd)
    _, seen = replay(copy, tmp, msr, "msr", ["--replay-device", "0"])
    same("msr", seen, want)
    ali = os.path.join(tmp, "sample.alibaba.csv")
    want = sample_alibaba(ali, 3000, rnd)
    _, seen = replay(copy, tmp, ali, "alibaba", ["--replay-device", "7"])
    same("alibaba", seen, want)

    # the guard: a trace that writes needs both keys, and the refusal names its first write
    before = sha256(copy)
    base = [AGENT, "run", "--target", copy, "--rw", "replay", "--replay", ali, "--state-dir", tmp,
            "--replay-speed", "0"]
    r = run(base)
    check(r.returncode == 3, f"a writing trace without keys: exit {r.returncode}: {r.stderr}")
    first = next(i for i, line in enumerate(open(ali), 1) if ",W," in line)
    check(f"{ali}:{first}: the trace writes" in r.stderr, f"the refusal names no line: {r.stderr}")
    check("--destructive is not given" in r.stderr, "the refusal names the missing key")
    check(sha256(copy) == before, "a refused replay changed the device")
    # a read-only trace needs no key
    reads = os.path.join(tmp, "reads.csv")
    with open(reads, "w") as f:
        f.writelines(line for line in open(ali) if ",W," not in line)
    r = run(base[:7] + [reads] + base[8:])
    check(r.returncode == 0, f"a read-only trace: exit {r.returncode}: {r.stderr}")
    check(sha256(copy) == before, "a read-only replay changed the device")
    # a bad line: exit 2, FILE:LINE
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("7,R,0,4096,1\n7,R,0,4096,2\n7,X,0,4096,3\n")
    r = run(base[:7] + [bad] + base[8:])
    check(r.returncode == 2, f"a bad line: exit {r.returncode}: {r.stderr}")
    check(f"{bad}:3: the opcode is R or W, not 'X'" in r.stderr, f"the error: {r.stderr}")
    # refuse: an IO past the end is an error naming its line, before anything runs
    r = run(base[:7] + [ali] + base[8:] + ["--replay-remap", "refuse", "--destructive",
                                           "--allow", copy])
    check(r.returncode == 2, f"refuse past the end: exit {r.returncode}: {r.stderr}")
    check("ends past the target's" in r.stderr and f"{ali}:" in r.stderr, r.stderr)
print("ok")
