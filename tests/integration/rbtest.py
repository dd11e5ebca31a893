# SPDX-License-Identifier: MIT
"""Helpers for rackbench integration tests: real processes, real sockets, real files."""
import hashlib
import os
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


def skip(reason):
    """Skips the test (exit 77) and records why, for the CI's list of skips."""
    name = os.path.basename(sys.argv[0])
    print(f"SKIP {name}: {reason}")
    log = os.environ.get("RB_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{name}: {reason}\n")
    sys.exit(SKIP)


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


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
    def __init__(self, prefix="rbtest-"):
        self.path = tempfile.mkdtemp(prefix=prefix)

    def __enter__(self):
        return self.path

    def __exit__(self, *a):
        shutil.rmtree(self.path, ignore_errors=True)


class Agent:
    """A real rackbench-agent process."""

    def __init__(self, endpoint, name, targets, allow=(), cwd=None, state_dir=None, extra=()):
        args = [AGENT, "--coordinator", endpoint, "--name", name, "--insecure"]
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


def run(args, timeout=180, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def h5():
    try:
        import h5py  # noqa: F401
    except ImportError:
        fail("h5py is missing: install python3-h5py and run with /usr/bin/python3")
    import h5py
    return h5py
