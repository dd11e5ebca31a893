# SPDX-License-Identifier: MIT
"""Helpers for rackbench integration tests: real processes, real sockets, real files."""
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

AGENT = os.environ.get("RB_AGENT", "build/agent/rackbench-agent")
COORD = os.environ.get("RB_COORD", "build/coordinator/rackbench")
SRC = os.environ.get("RB_SRC", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
SKIP = 77
FAULTFS = os.environ.get("RB_FAULTFS", "build/tests/faultfs")



def _proto():
    """This tree's protocol version, "MAJOR.MINOR" (common/wire/wire.h)."""
    with open(os.path.join(SRC, "common", "wire", "wire.h")) as f:
        v = dict(re.findall(r"#define RB_PROTO_(MAJOR|MINOR) (\d+)", f.read()))
    return f"{v['MAJOR']}.{v['MINOR']}"


PROTO = _proto()

# a test stopped with SIGTERM (ctest, a person) unwinds: its `with` and `finally` blocks
# detach the loop devices and unmount what it made
def _unwind(signum, frame):
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, _unwind)


def skip(reason):
    """Skips the test (exit 77) and records why, for the CI's list of skips."""
    name = os.path.basename(sys.argv[0])
    print(f"SKIP {name}: {reason}")
    log = os.environ.get("RB_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{name}: {reason}\n")
    sys.exit(SKIP)


def need(root_for=None, tools=()):
    """Skips unless run as root (when root_for says what for) with every tool on PATH."""
    if root_for and os.geteuid() != 0:
        skip(f"needs root for {root_for}")
    for tool in tools:
        if not shutil.which(tool):
            skip(f"needs {tool} (scripts/install-deps.sh installs it)")


# where package.package builds the Debian packages (scripts/package.sh), for the tests
# that install or unpack them
PKG_DIR = os.path.join(os.environ.get("RB_BUILD", os.path.join(SRC, "build")), "pkg")
# the QEMU VM's console of its one boot per run (qemu.qemu_nvme), for the tests that
# check its other steps
VM_CONSOLE = os.path.join(os.environ.get("RB_BUILD", os.path.join(SRC, "build")), "qemu-vm",
                          "console.log")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def wait_for(cond, what, timeout=60, every=0.05, show=None):
    """Polls cond() until it returns something true, and returns that; past timeout seconds
    the test fails, naming what it waited for (and printing show(), if given). A poll ends
    as soon as its condition holds, so timeouts are generous: slow machines pass too."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        if time.monotonic() > deadline:
            if show:
                print(show())
            fail(f"waited {timeout:g} s for {what}")
        # the one pause of every poll: the time between two looks at its condition
        time.sleep(every)


def spool_done(folder, point):
    """Whether an agent whose state folder is folder has spooled the end (PointDone) of
    point: what it does on its own when no coordinator hears it."""
    for sp in glob.glob(os.path.join(folder, "spool", "*.spool")):
        r = subprocess.run([AGENT, "spool", sp], capture_output=True, text=True)
        for x in r.stdout.splitlines():
            if x.strip():
                m = json.loads(x)
                if m.get("body") == "point-done" and m.get("point") == point:
                    return True
    return False


def events(path):
    """The JSON events of a run's --events file so far ([] before it exists); a last line
    still being written is left for the next look."""
    try:
        with open(path) as f:
            lines = f.read().split("\n")[:-1]
    except FileNotFoundError:
        return []
    return [json.loads(x) for x in lines if x.strip()]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


class Tmp:
    def __init__(self, prefix="rbtest-", dir=None):
        self.path = tempfile.mkdtemp(prefix=prefix, dir=dir)

    def __enter__(self):
        return self.path

    def __exit__(self, *a):
        shutil.rmtree(self.path, ignore_errors=True)


class Agent:
    """A real rackbench-agent process."""

    def __init__(self, endpoint, name, targets, allow=(), cwd=None, state_dir=None, extra=(),
                 insecure=True, netns=None, wrap=()):
        # in a network namespace: `ip netns exec` execs the agent, so the pid is the agent's;
        # wrap: a command it runs under (unshare -T ... --kill-child passes SIGTERM on)
        args = (["ip", "netns", "exec", netns] if netns else []) + list(wrap) + [
            os.path.abspath(AGENT), "--coordinator", endpoint, "--name", name]
        if insecure:
            args.append("--insecure")
        if state_dir:
            args += ["--state-dir", state_dir]
        for t in targets:
            args += ["--target", t]
        for a in allow:
            args += ["--allow", a]
        args += list(extra)
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT)

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def file_agents(ep, tmp, prefix, names=("a1", "a2"), extra=()):
    """Agents PREFIX-NAME, each offering and allowing NAME/disk0.dat and NAME/disk1.dat
    under tmp (laid out on first use), its state folder tmp/NAME; extra: more flags."""
    agents = []
    for name in names:
        os.makedirs(os.path.join(tmp, name), exist_ok=True)
        t = [f"{name}/disk0.dat", f"{name}/disk1.dat"]
        agents.append(Agent(ep, f"{prefix}-{name}", t, allow=t, cwd=tmp,
                            state_dir=os.path.join(tmp, name), extra=extra))
    return agents


def paged_run(campaign, dev, pages, out, state_dir, timeout=120):
    """The campaign file run in this process (--no-service) against an agent a1 that offers
    and allows dev and reads its NVMe pages from the folder pages (--nvme-pages): the run's
    CompletedProcess, the agent (stopped: its output() still there) and the results file
    the run wrote into out (None when it wrote none)."""
    ep = f"tcp://127.0.0.1:{free_port()}"
    agent = Agent(ep, "a1", [dev], allow=[dev], state_dir=state_dir,
                  extra=["--nvme-pages", pages])
    try:
        r = run([COORD, "run", campaign, "--listen", ep, "--no-service", "--results", out],
                timeout=timeout)
    finally:
        agent.stop()
    print(r.stdout[-1500:], r.stderr[-1500:])
    files = sorted(os.path.join(out, x) for x in os.listdir(out) if x.endswith(".h5")) \
        if os.path.isdir(out) else []
    return r, agent, files[-1] if files else None


def run(args, timeout=180, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def h5():
    try:
        import h5py  # noqa: F401
    except ImportError:
        fail("h5py is missing: install python3-h5py and run with /usr/bin/python3")
    import h5py
    return h5py


def _put(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def make_nvme_tree(tree, fna=1):
    """A recorded sysfs/proc tree under tree: one NVMe controller with namespaces nvme0n1
    (259:0) and nvme0n2 (259:1, mounted at /data), and NVMe pages laid out by the
    specification's offsets (FNA = fna) in tree/pages. Returns the pages folder."""
    import struct
    put = _put
    ctrl = os.path.join(tree, "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0")
    for ns, dev in (("nvme0n1", "259:0"), ("nvme0n2", "259:1")):
        d = os.path.join(ctrl, ns)
        put(f"{d}/dev", dev + "\n")
        put(f"{d}/size", "2097152\n")
        put(f"{d}/queue/logical_block_size", "4096\n")
        put(f"{d}/queue/physical_block_size", "4096\n")
        put(f"{d}/queue/rotational", "0\n")
        put(f"{d}/queue/scheduler", "[none] mq-deadline\n")
        os.makedirs(f"{d}/holders")
        os.makedirs(os.path.join(tree, "sys/class/block"), exist_ok=True)
        os.makedirs(os.path.join(tree, "sys/dev/block"), exist_ok=True)
        os.symlink(d, os.path.join(tree, "sys/class/block", ns))
        os.symlink(d, os.path.join(tree, "sys/dev/block", dev))
    put(os.path.join(tree, "proc/self/mountinfo"), "40 1 259:1 / /data rw - xfs /dev/nvme0n2 rw\n")
    put(os.path.join(tree, "proc/swaps"), "Filename Type Size Used Priority\n")
    # pages, by NVMe specification offsets
    idc = bytearray(4096)
    struct.pack_into("<H", idc, 0, 0x1b36)
    idc[4:24] = b"RB-QEMU-SERIAL-42".ljust(20)
    idc[24:64] = b"QEMU NVMe Ctrl".ljust(40)
    idc[64:72] = b"8.0.0".ljust(8)
    struct.pack_into("<I", idc, 516, 2)
    idc[524] = fna  # bit 0: a Format applies to every namespace
    idn = bytearray(4096)
    struct.pack_into("<QQQ", idn, 0, 262144, 262144, 100)
    idn[25], idn[26] = 1, 1
    struct.pack_into("<II", idn, 128, 9 << 16, 12 << 16)
    idn[120:128] = bytes(range(0x10, 0x18))
    sm = bytearray(512)
    sm[0] = 0x04  # reliability degraded
    struct.pack_into("<H", sm, 1, 318)
    sm[3], sm[4], sm[5] = 88, 10, 12
    struct.pack_into("<Q", sm, 48, 987654)
    struct.pack_into("<Q", sm, 128, 1234)
    struct.pack_into("<Q", sm, 160, 3)
    pages = os.path.join(tree, "pages")
    for ns in ("nvme0n1", "nvme0n2"):
        put(f"{pages}/{ns}.id-ctrl", bytes(idc), "wb")
        put(f"{pages}/{ns}.id-ns", bytes(idn), "wb")
        put(f"{pages}/{ns}.smart", bytes(sm), "wb")

    return pages


class LoopDevices:
    """n loop devices over sparse files in folder, each size bytes; detached on exit."""

    def __init__(self, folder, n, size=32 << 20):
        self.devs = []
        for i in range(n):
            img = os.path.join(folder, f"loop{i}.img")
            with open(img, "wb") as f:
                f.truncate(size)
            r = subprocess.run(["losetup", "--find", "--show", img], capture_output=True, text=True)
            if r.returncode:
                self.__exit__()
                skip(f"cannot create a loop device: {r.stderr.strip()}")
            self.devs.append(r.stdout.strip())

    def __enter__(self):
        return self.devs

    def __exit__(self, *a):
        for d in self.devs:
            subprocess.run(["losetup", "-d", d])


# a clean Debian 12 root, made once per build folder with debootstrap and never changed:
# the package stage's tests copy it to a root of their own
DEBIAN_BASE = os.path.join(os.path.dirname(PKG_DIR), "pkg-base")


def debian_root(path):
    """A fresh copy of the clean Debian 12 root (debootstrap --variant=minbase) at path,
    made first if need be; skips (77) when no Debian archive can be reached."""
    if not os.path.isdir(os.path.join(DEBIAN_BASE, "usr")):
        shutil.rmtree(DEBIAN_BASE, ignore_errors=True)
        r = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", DEBIAN_BASE + ".new"],
                           capture_output=True, text=True)
        if r.returncode:
            skip(f"debootstrap could not make a root (no Debian archive reachable?): "
                 f"{r.stderr.strip()[-300:]}")
        os.rename(DEBIAN_BASE + ".new", DEBIAN_BASE)
    shutil.rmtree(path, ignore_errors=True)
    r = subprocess.run(["cp", "-a", DEBIAN_BASE, path], capture_output=True, text=True)
    check(r.returncode == 0, f"copying the clean root: {r.stderr}")
    return path


def need_faultfs():
    """Skips unless a faultfs file and a loop device over it can be made here."""
    if os.geteuid() != 0:
        skip("needs root for a FUSE mount and a loop device")
    if not os.path.exists(FAULTFS):
        skip("faultfs was not built: install libfuse3-dev")
    if not os.path.exists("/dev/fuse"):
        skip("needs /dev/fuse")


class Faulty:
    """A faultfs (FUSE) file with a loop device over it: reads fail or wait as told
    (tests/fixtures/faultfs.c). Needs root."""

    def __init__(self, tmp, name, *opts):
        self.mnt = os.path.join(tmp, name)
        os.mkdir(self.mnt)
        self.proc = subprocess.Popen([FAULTFS, self.mnt, "-f", "-s"] + list(opts))
        img = os.path.join(self.mnt, "disk.img")
        wait_for(lambda: os.path.exists(img), "faultfs to mount", timeout=30)
        r = subprocess.run(["losetup", "--find", "--show", img], capture_output=True, text=True)
        if r.returncode:
            self.close()
            skip(f"cannot make a loop device over a FUSE file: {r.stderr.strip()}")
        self.dev = r.stdout.strip()

    def close(self):
        if getattr(self, "dev", None):
            subprocess.run(["losetup", "-d", self.dev])
        subprocess.run(["umount", self.mnt], capture_output=True)
        self.proc.terminate()
        self.proc.wait(10)


def pub(path):
    """The public key (Z85) of a `keygen` .pub file at path."""
    return [x.split("=", 1)[1].strip() for x in open(path) if x.startswith("public-key")][0]


def rack_service(tmp, keys, rack, names):
    """A rack service on loopback (`serve` with CURVE, its agents' allow-list of names, an
    admin endpoint taking keys/admins), its results in tmp/RACK/out: (process, agents' port,
    admin port, log file)."""
    allowed = os.path.join(keys, f"{rack}.allow")
    with open(allowed, "w") as f:
        for n in names:
            f.write(f"{n} {pub(os.path.join(keys, n + '.pub'))}\n")
    os.makedirs(os.path.join(tmp, rack))
    port, aport = free_port(), free_port()
    log = open(os.path.join(tmp, f"{rack}.log"), "w+")
    proc = subprocess.Popen(
        [COORD, "serve", "--listen", f"tcp://127.0.0.1:{port}",
         "--key", f"{keys}/coordinator.key", "--agent-keys", allowed,
         "--admin-listen", f"tcp://127.0.0.1:{aport}",
         "--admin-keys", f"{keys}/admins", "--results", os.path.join(tmp, rack, "out")],
        cwd=tmp, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, RACKBENCH_CONTROL=os.path.join(tmp, rack, "ctl", "control")))
    return proc, port, aport, log
