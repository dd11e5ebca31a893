# SPDX-License-Identifier: MIT
"""Filesystems in a campaign (`filesystem:` on a drive or a target): two agents, two loop
devices each.

- Without the run's key the pre-flight refuses every drive, naming it and the missing
  key; a drive mounted by someone else is refused naming the mount; no byte changes.
- With both keys each agent makes the filesystem once per run (ext4 with the campaign's
  mkfs and mount options on one agent, a target's plain ext4 on the other), mounts it
  for each point in a mount namespace of its own (no other process sees it), runs the
  point on a file of `size` there and unmounts; the results record the filesystem and
  its options; the file is on each filesystem afterwards, of that size.
- An agent killed with -9 mid-checkpoint (rw checkpoint) leaves nothing mounted;
  restarted, it mounts the run's filesystem again (not made again) and the point runs as
  attempt 1, every checkpoint from the first; every mount point is gone after the run.
"""
import glob
import os
import signal
import subprocess

from rbtest import (COORD, Agent, LoopDevices, Tmp, check, events, free_port, h5, need, run,
                    sha256, wait_for)

need(root_for="loop devices, mkfs and mounts", tools=("losetup", "mkfs.ext4", "blkid"))
h5py = h5()

CAMPAIGN = """name: fs
insecure: true
{keys}
wait: 20s
defaults: {{size: 16m, bs: 64k, iodepth: 4, interval: 500ms}}
targets:
  - agent: f1
    drives:
      - {{path: {d0}, filesystem: {{type: ext4, mkfs_options: "-E nodiscard -m 0",
                                    mount_options: "noatime,nodev,data=ordered"}}}}
      - {{path: {d1}, filesystem: {{type: ext4, mkfs_options: "-E nodiscard -m 0",
                                    mount_options: "noatime,nodev,data=ordered"}}}}
  - agent: f2
    filesystem: ext4
    drives: [{d2}, {d3}]
phases:
  - name: write
    workload: {first}
  - name: read
    workload: {{rw: randread, runtime: 1s}}
"""


def mounted(dev):
    """dev is mounted anywhere this process can see (the host's table)."""
    st = os.stat(os.path.realpath(dev)).st_rdev
    want = f"{os.major(st)}:{os.minor(st)}"
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[2] == want for line in f)


def mount_points(tmp):
    return sorted(glob.glob(os.path.join(tmp, "s*", "fs", "*/")))


def write(tmp, devs, keys, first="{rw: write, runtime: 1s}"):
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(keys=keys, first=first, d0=devs[0], d1=devs[1],
                                d2=devs[2], d3=devs[3]))
    return path


def agents(ep, tmp, devs, allow=True):
    return [Agent(ep, "f1", devs[:2], allow=devs[:2] if allow else (),
                  state_dir=os.path.join(tmp, "s1")),
            Agent(ep, "f2", devs[2:], allow=devs[2:] if allow else (),
                  state_dir=os.path.join(tmp, "s2"))]


def stop(ags):
    for a in ags:
        a.stop()


with Tmp() as tmp:
    for s in ("s1", "s2"):
        os.mkdir(os.path.join(tmp, s), 0o700)
    with LoopDevices(tmp, 4, size=64 << 20) as devs:
        out = os.path.join(tmp, "out")

        # 1. the run's key missing; a drive mounted by someone else: refused, nothing written
        subprocess.run(["mkfs.ext4", "-q", "-F", devs[3]], check=True)
        mnt = os.path.join(tmp, "mnt")
        os.mkdir(mnt)
        subprocess.run(["mount", "-o", "ro,noload", devs[3], mnt], check=True)
        before = [sha256(d) for d in devs]
        ep = f"tcp://127.0.0.1:{free_port()}"
        ags = agents(ep, tmp, devs)
        try:
            r = run([COORD, "run", write(tmp, devs, ""), "--listen", ep, "--no-service",
                     "--results", out], timeout=120)
        finally:
            stop(ags)
            subprocess.run(["umount", mnt])
        print(r.stderr)
        check(r.returncode == 3, f"no destructive key: exit {r.returncode}, want 3")
        for d in devs:
            check(f"drive '{d}': writes need the run's key" in r.stderr, f"{d} not named refused")
        check(f"mounted at {mnt}" in r.stderr, "the mounted drive's reason")
        check([sha256(d) for d in devs] == before, "a refused campaign changed a drive")
        check(not mount_points(tmp), "a refused campaign left a mount point")

        # 2. both keys: made once a run, mounted per point, the workload on its file
        ep = f"tcp://127.0.0.1:{free_port()}"
        ags = agents(ep, tmp, devs)
        keys = "destructive: true\nwipe_signatures: true"  # devs[3] carries an ext4 now
        try:
            r = run([COORD, "run", write(tmp, devs, keys), "--listen", ep, "--no-service",
                     "--results", out], timeout=180)
            logs = [a.output() for a in ags]
        finally:
            stop(ags)
        print(r.stdout, r.stderr, *logs, sep="\n")
        check(r.returncode == 0, f"both keys: exit {r.returncode}")
        for log, ds in zip(logs, (devs[:2], devs[2:])):
            for d in ds:
                check(log.count(f"{d}: a new ext4") == 1, f"{d}: made once, at point 0")
                check(log.count(f"{d}: the run's ext4") == 1, f"{d}: mounted again at point 1")
        for d in devs:
            t = subprocess.run(["blkid", "-o", "value", "-s", "TYPE", d], capture_output=True,
                               text=True).stdout.strip()
            check(t == "ext4", f"{d} carries {t!r}")
            check(not mounted(d), f"{d} is still mounted (or visible) after the run")
        check(not mount_points(tmp), f"mount points left: {mount_points(tmp)}")
        res = sorted(glob.glob(os.path.join(out, "*.h5")))[-1]
        with h5py.File(res, "r") as h:
            drives = {int(x["drive"]): x for x in h["drives"][:]}
            rows = h["results"][:]
        for i, x in drives.items():
            path = x["path"].decode()
            check(x["filesystem"] == b"ext4", f"{path}: filesystem {x['filesystem']}")
            opts = (x["mkfs_options"].decode(), x["mount_options"].decode())
            want = (("-E nodiscard -m 0", "noatime,nodev,data=ordered")
                    if path in devs[:2] else ("", ""))
            check(opts == want, f"{path}: options {opts}, want {want}")
            check(x["kind"] == b"block", f"{path}: kind {x['kind']}")
        check(len(rows) == 8 and all(x["status"] == b"ok" for x in rows),
              f"rows: {[(int(x['drive']), int(x['point']), x['status']) for x in rows]}")
        check(all(x["read_ios"] > 0 for x in rows if x["point"] == 1), "the read point read")
        written = {int(x["drive"]): int(x["write_bytes"]) for x in rows if x["point"] == 0}
        check(all(w >= 16 << 20 for w in written.values()), f"write point: {written}")
        # the file is on each filesystem, of the point's size
        for d in devs:
            subprocess.run(["mount", "-o", "ro,noload", d, mnt], check=True)
            try:
                st = os.stat(os.path.join(mnt, "rackbench.dat"))
            finally:
                subprocess.run(["umount", mnt])
            check(st.st_size == 16 << 20 and st.st_blocks * 512 >= 16 << 20,
                  f"{d}: the file holds {st.st_size} bytes in {st.st_blocks} blocks")

        # 3. an agent killed with -9 mid-checkpoint: nothing mounted; restarted, it goes on
        ep = f"tcp://127.0.0.1:{free_port()}"
        ags = agents(ep, tmp, devs)
        ev = os.path.join(tmp, "ev.jsonl")
        ckpt = ("{rw: checkpoint, checkpoint_size: 8m, numjobs: 2, checkpoints: 6, "
                "checkpoint_pause: 1s, checkpoint_keep: 2, bs: 1m}")
        c = subprocess.Popen([COORD, "run", write(tmp, devs, keys, first=ckpt), "--listen",
                              ep, "--no-service", "--results", out, "--events", ev],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for(lambda: any(e["event"] == "sample" and e["drive"] == f"f1:{devs[0]}"
                                 for e in events(ev)), "f1 writing its checkpoints")
            check(len(mount_points(tmp)) == 4, f"mount points {mount_points(tmp)}")
            check(not any(mounted(d) for d in devs), "an agent's mount is visible outside it")
            ags[0].proc.send_signal(signal.SIGKILL)
            ags[0].proc.wait()
            first = ags[0].output()
            wait_for(lambda: not any(mounted(d) for d in devs[:2]), "f1's mounts gone")
            ags[0] = Agent(ep, "f1", devs[:2], allow=devs[:2], state_dir=os.path.join(tmp, "s1"))
            o, e = c.communicate(timeout=120)
            logs = [a.output() for a in ags]
        finally:
            if c.poll() is None:
                c.kill()
            stop(ags)
        print(o, e, first, *logs, sep="\n")
        check(c.returncode == 0, f"after the kill: exit {c.returncode}")
        check(all(f"{d}: a new ext4" in first for d in devs[:2]), "made before the kill")
        for d in devs[:2]:
            check(f"{d}: a new ext4" not in logs[0] and logs[0].count(f"{d}: the run's ext4") == 2,
                  f"{d}: the restarted agent mounts the run's filesystem, makes none")
        with h5py.File(sorted(glob.glob(os.path.join(out, "*.h5")))[-1], "r") as h:
            rows = h["results"][:]
            ck = h["checkpoints"][:]
        redo = [x for x in rows if x["point"] == 0 and x["attempt"] == 1]
        check(len(redo) == 2 and all(x["status"] == b"ok" for x in redo),
              f"point 0 again on f1's drives: {[(int(x['drive']), x['status']) for x in redo]}")
        # the attempt after the restart wrote all six, from the first
        again = sorted(int(x["checkpoint"]) for x in ck if x["attempt"] == 1 and
                       x["direction"] == 1 and x["drive"] == redo[0]["drive"])
        check(again == list(range(6)), f"checkpoints of attempt 1: {again}")
        check(not mount_points(tmp) and not any(mounted(d) for d in devs),
              f"after the run: mount points {mount_points(tmp)}")
print("ok")
