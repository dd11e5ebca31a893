# SPDX-License-Identifier: MIT
"""The container image (scripts/container.sh: FROM scratch, the packages' files and their
libraries), run under podman with loop devices passed in:

- under the runtime's default seccomp profile the agent's engine cannot start: exit 1,
  saying io_uring is blocked by a seccomp profile, its summary "not measured";
- with scripts/seccomp-agent.py's profile (the default plus io_uring), an agent in the
  container takes a read campaign from a coordinator on the host to its end;
- a write to a loop device mounted on the host (not in the container) is refused: in the
  container's own PID namespace because the host's mount table is out of sight; with
  --pid=host but podman's default mask over /sys/dev/block because the guard cannot read
  the device's sysfs, naming the option that unmasks it; with both, naming the host's
  mount point. Its bytes are unchanged; a clean drive with both keys, run the same way,
  is written -- while the host has other loop devices the container cannot open: two
  over files in /dev/shm (tmpfs) and one over a file on a FUSE mount (a host with snap
  packages has dozens), which cannot sit on the drive and must not stop it."""
import glob
import os
import shutil
import subprocess

from rbtest import (COORD, PKG_DIR, SRC, Faulty, LoopDevices, Tmp, check, free_port,
                    need, need_faultfs, run, sha256, skip)

need("loop devices and podman", ("podman", "busybox", "mkfs.ext4"))
DEBS = PKG_DIR
TAG = "localhost/rackbench:test-container"
# this machine's own limits, not the image's: crun refuses its hybrid cgroup layout
# (runc takes it), and raising RLIMIT_NOFILE/NPROC past the host's is not permitted
PODMAN = ["podman", "run", "--rm", "--network", "host",
          "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
if shutil.which("runc"):
    PODMAN[2:2] = ["--runtime", "runc"]


def podman(*args, timeout=120):
    r = subprocess.run(PODMAN + list(args), capture_output=True, text=True, timeout=timeout)
    print(" ".join(args[-6:]), "->", r.returncode, r.stderr[-1500:])
    return r


r = run([os.path.join(SRC, "scripts", "container.sh"), DEBS, TAG], timeout=600)
check(r.returncode == 0, f"container.sh: {r.stderr[-2000:]}")
probe = podman(TAG, "/usr/bin/rackbench-agent", "--help")
if probe.returncode and "OCI" in probe.stderr:
    skip(f"podman cannot run containers here: {probe.stderr.strip()[-300:]}")
check(probe.returncode == 0 and "usage: rackbench-agent" in probe.stdout, "the image's agent")

need_faultfs()
# the host's other loops: over tmpfs files and a FUSE file, none the container sees
with Tmp() as tmp, Tmp(dir="/dev/shm") as shm, LoopDevices(shm, 2):
    fuse = Faulty(tmp, "fuse")
    try:
        profile = os.path.join(tmp, "seccomp-agent.json")
        with open(profile, "w") as f:
            r = subprocess.run([os.path.join(SRC, "scripts", "seccomp-agent.py")], stdout=f)
        check(r.returncode == 0, "seccomp-agent.py")
        with LoopDevices(tmp, 2) as (clean, mounted):
            # 1. the default profile: io_uring refused, said so
            r = podman("--device", clean, TAG, "/usr/bin/rackbench-agent", "run", "--target", clean,
                       "--rw", "randread", "--runtime", "500ms")
            check(r.returncode == 1 and "io_uring is not available here" in r.stderr and
                  "seccomp profile blocks it" in r.stderr,
                  f"under the default profile: exit {r.returncode}")
            # and its summary claims no time measured
            check(f"{clean}: not measured: io_uring is not available" in r.stdout and
                  "s measured" not in r.stdout, f"the summary of a run that never started: {r.stdout}")

            # 2. the agent's profile: a read campaign from the host's coordinator
            port = free_port()
            camp = os.path.join(tmp, "c.yaml")
            with open(camp, "w") as f:
                f.write(f"""name: container
insecure: true
wait: 60s
defaults: {{size: 32m, runtime: 1s}}
targets:
  - agent: boxed
    drives: [{clean}]
phases:
  - workload: {{rw: randread, bs: 4k, iodepth: 8}}
""")
            agent = subprocess.Popen(
                PODMAN + ["--security-opt", f"seccomp={profile}", "--device", clean, TAG,
                          "/usr/bin/rackbench-agent", "--coordinator", f"tcp://127.0.0.1:{port}",
                          "--name", "boxed", "--insecure", "--target", clean],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "agent.log"), "w"))
            try:
                r = run([COORD, "run", camp, "--listen", f"tcp://127.0.0.1:{port}",
                         "--results", os.path.join(tmp, "out")], timeout=180)
            finally:
                agent.terminate()
                try:
                    agent.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    agent.kill()
            print(r.stderr[-1500:], open(os.path.join(tmp, "agent.log")).read()[-1500:])
            check(r.returncode == 0 and "(complete)" in r.stdout + r.stderr,
                  f"the read campaign: exit {r.returncode}")
            check(glob.glob(os.path.join(tmp, "out", "container-*.h5")), "its results file")

            # 3. a drive mounted on the host, not in the container
            subprocess.run(["mkfs.ext4", "-q", "-F", mounted], check=True)
            mnt = os.path.join(tmp, "mnt")
            os.mkdir(mnt)
            subprocess.run(["mount", "-o", "ro", mounted, mnt], check=True)
            try:
                before = sha256(mounted)
                write = ["/usr/bin/rackbench-agent", "run", "--target", mounted, "--rw", "write",
                         "--bs", "64k", "--runtime", "500ms", "--destructive", "--allow", mounted,
                         "--wipe-signatures"]
                common = ["--security-opt", f"seccomp={profile}", "--device", mounted]
                unmask = ["--security-opt", "unmask=/sys/dev/block"]
                r = podman(*common, *unmask, TAG, *write)
                check(r.returncode == 3 and "runs in a PID namespace of its own" in r.stderr,
                      f"in the container's PID namespace: exit {r.returncode}")
                # podman hides /sys/dev/block by default: the guard cannot judge, and says how
                r = podman("--pid=host", *common, TAG, *write)
                check(r.returncode == 3 and "unmask=/sys/dev/block" in r.stderr,
                      f"with /sys/dev/block masked: exit {r.returncode}")
                r = podman("--pid=host", *common, *unmask, TAG, *write)
                check(r.returncode == 3 and f"mounted at {mnt} on the host" in r.stderr,
                      f"with the host's PID namespace: exit {r.returncode}")
                check(sha256(mounted) == before, "the mounted drive was written")
                # the control: run the documented way, a clean drive with both keys is written
                before = sha256(clean)
                r = podman("--pid=host", "--security-opt", f"seccomp={profile}", *unmask,
                           "--device", clean, TAG, *[clean if a == mounted else a for a in write])
                check(r.returncode == 0 and sha256(clean) != before,
                      f"a clean drive with both keys, as documented: exit {r.returncode}")
            finally:
                subprocess.run(["umount", mnt])
    finally:
        fuse.close()
subprocess.run(["podman", "rmi", "-f", TAG], capture_output=True)
print("ok")
