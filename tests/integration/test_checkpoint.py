# SPDX-License-Identifier: MIT
"""Checkpoints (rw checkpoint) against what the filesystem and the rows say: two agents,
two loop devices each, ext4 made by rackbench, K=5 checkpoints of 24 MiB by 3 writers
per drive, kept 3, restored.

- every checkpoint's duration is its slowest writer's time (the checkpoint_writers table),
  its bytes the writers' bytes, its GiB/s the bytes over the duration;
- the shards on each filesystem afterwards are the sizes the model split gives (stat),
  the three kept checkpoints are there and the older two are gone, and their blocks are
  what the last checkpoint's row says (du);
- the restore read every kept byte back (rows and the results' read bytes);
- the samples add up to the results; no mount is left;
- `rackbench report` says each drive's seconds per checkpoint as the rows give them, and
  the page (in headless Chromium where it is installed) draws them: a line per drive, a
  dashed one for its restores.
"""
import glob
import os
import subprocess

from htmlpage import CHROMIUM, Charts, keep, render
from rbtest import COORD, Agent, LoopDevices, Tmp, check, free_port, h5, need, run

need(root_for="loop devices, mkfs and mounts", tools=("losetup", "mkfs.ext4", "du"))
h5py = h5()

K, KEEP, WRITERS, SIZE = 5, 3, 3, 24 << 20
CAMPAIGN = f"""name: ckpt
insecure: true
destructive: true
wait: 20s
targets:
  - agent: c1
    filesystem: ext4
    drives: [{{d0}}, {{d1}}]
  - agent: c2
    filesystem: {{{{type: ext4, mount_options: noatime}}}}
    drives: [{{d2}}, {{d3}}]
phases:
  - name: checkpoint
    workload: {{{{rw: checkpoint, checkpoint_size: {SIZE}, numjobs: {WRITERS}, checkpoints: {K},
                checkpoint_keep: {KEEP}, bs: 1m, iodepth: 4, interval: 250ms}}}}
"""

# the model split (agent/workload/checkpoint.c): a writer's share in 4 KiB units, 1:6
share = SIZE // WRITERS // 4096 * 4096
model = max(share // 7 // 4096 * 4096, 4096)
optim = share - model
per_ckpt = (model + optim) * WRITERS


def mounted(dev):
    st = os.stat(os.path.realpath(dev)).st_rdev
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[2] == f"{os.major(st)}:{os.minor(st)}" for line in f)


with Tmp() as tmp:
    with LoopDevices(tmp, 4, size=192 << 20) as devs:
        path = os.path.join(tmp, "c.yaml")
        with open(path, "w") as f:
            f.write(CAMPAIGN.format(d0=devs[0], d1=devs[1], d2=devs[2], d3=devs[3]))
        ep = f"tcp://127.0.0.1:{free_port()}"
        ags = [Agent(ep, "c1", devs[:2], allow=devs[:2], state_dir=os.path.join(tmp, "s1")),
               Agent(ep, "c2", devs[2:], allow=devs[2:], state_dir=os.path.join(tmp, "s2"))]
        try:
            r = run([COORD, "run", path, "--listen", ep, "--no-service", "--results",
                     os.path.join(tmp, "out")], timeout=180)
        finally:
            for a in ags:
                a.stop()
        print(r.stdout, r.stderr)
        check(r.returncode == 0, f"exit {r.returncode}")
        check(f"{K} checkpoint(s) of 24.0 MiB per drive" in r.stderr, "the live view's point")
        with h5py.File(glob.glob(os.path.join(tmp, "out", "*.h5"))[0], "r") as h:
            drives = {int(x["drive"]): x["path"].decode() for x in h["drives"][:]}
            ck = h["checkpoints"][:]
            wr = h["checkpoint_writers"][:]
            res = h["results"][:]
            smp = h["samples"][:]
        for d, dev in drives.items():
            rows = ck[ck["drive"] == d]
            writes = sorted((int(x["checkpoint"]), x) for x in rows if x["direction"] == 1)
            reads = sorted((int(x["checkpoint"]), x) for x in rows if x["direction"] == 0)
            check([k for k, _ in writes] == list(range(K)), f"{dev}: written {[k for k, _ in writes]}")
            check([k for k, _ in reads] == list(range(K - KEEP, K)),
                  f"{dev}: restored {[k for k, _ in reads]}, want the kept {KEEP}")
            for k, x in writes + reads:
                w = wr[(wr["drive"] == d) & (wr["checkpoint"] == k) &
                       (wr["direction"] == x["direction"])]
                check(len(w) == WRITERS and int(x["writers"]) == WRITERS, f"{dev} {k}: writers")
                slow = int(w["duration_ns"].max())
                check(int(x["duration_ns"]) == slow and
                      int(w["duration_ns"][int(x["slowest_writer"])]) == slow,
                      f"{dev} {k}: duration {x['duration_ns']} is not the slowest writer's {slow}")
                check(int(x["bytes"]) == int(w["bytes"].sum()) == per_ckpt,
                      f"{dev} {k}: {x['bytes']} bytes, writers {w['bytes'].sum()}, want {per_ckpt}")
                gib = per_ckpt / 2**30 / (slow / 1e9)
                check(abs(float(x["gib_per_s"]) - gib) <= 1e-9 * gib, f"{dev} {k}: GiB/s")
                check(int(x["errors"]) == 0, f"{dev} {k}: errors")
            # blocks on the filesystem grow with each checkpoint until keep, then stay (the
            # data's blocks, and a few of the extents' own)
            fsb = [int(x["fs_bytes"]) for _, x in writes]
            check(all(0 <= fsb[i] - min(i + 1, KEEP) * per_ckpt <= 64 << 10 for i in range(K)),
                  f"{dev}: filesystem bytes after each {fsb}")
            one = [x for x in res if x["drive"] == d]
            check(len(one) == 1 and one[0]["status"] == b"ok", f"{dev}: result {one}")
            check(int(one[0]["write_bytes"]) == K * per_ckpt and
                  int(one[0]["read_bytes"]) == KEEP * per_ckpt,
                  f"{dev}: moved {one[0]['write_bytes']} / {one[0]['read_bytes']}")
            s = smp[smp["drive"] == d]
            check(int(s[s["direction"] == 1]["bytes"].sum()) == K * per_ckpt and
                  int(s[s["direction"] == 0]["bytes"].sum()) == KEEP * per_ckpt,
                  f"{dev}: samples add up to {s['bytes'].sum()}")
            check(not mounted(dev), f"{dev} left mounted")
            # the filesystem itself: the kept shards, of the split's sizes, du = the row
            mnt = os.path.join(tmp, "mnt")
            os.makedirs(mnt, exist_ok=True)
            subprocess.run(["mount", "-o", "ro,noload", dev, mnt], check=True)
            try:
                root = os.path.join(mnt, "checkpoints")
                steps = sorted(os.listdir(root))
                sizes = {os.path.basename(p): os.stat(p).st_size
                         for p in glob.glob(os.path.join(root, f"global_step{K - 1}", "*"))}
                du = int(subprocess.run(["du", "-s", "-B1", root], capture_output=True,
                                        text=True).stdout.split()[0])
                dirs = sum(os.stat(os.path.join(root, x)).st_blocks * 512 for x in steps)
                dirs += os.stat(root).st_blocks * 512
            finally:
                subprocess.run(["umount", mnt])
            check(steps == [f"global_step{k}" for k in range(K - KEEP, K)], f"{dev}: {steps}")
            want = {f"zero_pp_rank_{w}_mp_rank_00_{n}_states.pt": b
                    for w in range(WRITERS) for n, b in (("model", model), ("optim", optim))}
            check(sizes == want, f"{dev}: shards {sizes}, want {want}")
            check(du - dirs == fsb[-1], f"{dev}: du {du} (folders {dirs}), the row {fsb[-1]}")

        # the report: each drive's line from the rows; the page's chart
        res_path = glob.glob(os.path.join(tmp, "out", "*.h5"))[0]
        page = os.path.join(tmp, "ckpt.html")
        r = run([COORD, "report", res_path, "--html", page])
        print(r.stdout)
        check(r.returncode == 0, f"report: exit {r.returncode} {r.stderr}")
        agent_of = {0: "c1", 1: "c1", 2: "c2", 3: "c2"}
        for d, dev in drives.items():
            rows = ck[ck["drive"] == d]
            w = [int(x["duration_ns"]) / 1e9 for x in sorted(rows[rows["direction"] == 1],
                                                             key=lambda x: x["checkpoint"])]
            rd = [int(x["duration_ns"]) / 1e9 for x in rows[rows["direction"] == 0]]
            gib = min(float(x["gib_per_s"]) for x in rows[rows["direction"] == 1])
            want = (f"{agent_of[d]}:{dev} checkpoint: {K} written: first {w[0]:.3f} s, "
                    f"mean {sum(w) / K:.3f} s, last {w[-1]:.3f} s, max {max(w):.3f} s, "
                    f"{gib:.3f} GiB/s; {KEEP} restored: mean {sum(rd) / KEEP:.3f} s")
            check(want in r.stdout, f"report lacks '{want}'")
        with open(page) as f:
            text = f.read()
        if CHROMIUM:
            out, console = render(page, tmp)
            check(out.returncode == 0 and not console, f"chromium: {out.returncode} {console}")
            text = out.stdout
        p = Charts()
        p.feed(text)
        charts = [c for c in p.charts if c["kind"] == "checkpoints"]
        labels = [f"{agent_of[d]}:{dev}" for d, dev in drives.items()]
        check(len(charts) == 1 and sorted(charts[0]["series"]) ==
              sorted(labels + [f"{x} restore" for x in labels]),
              f"checkpoint chart: {charts}")
        check("checkpoints" in p.sections, f"sections {p.sections}")
        if CHROMIUM:
            keep(page, tmp, "checkpoints")
print("ok")
