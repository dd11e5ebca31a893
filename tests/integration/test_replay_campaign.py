# SPDX-License-Identifier: MIT
"""A replay in a campaign: two agents replay a synthesized boot storm (two desktops, 4,800
IOs) on their file drives, paced at 20x, then as fast as QD 16 allows. Each result row
holds the replay's own figures (protocol 1.5): every IO of the trace issued and counted in
the row's reads and writes, the trace complete, the paced point timed with a lag
p50 <= p99 <= max, the unpaced one not timed."""
import glob
import os

from rbtest import COORD, Tmp, check, file_agents, free_port, h5, run

h5py = h5()
IOS = 2 * 2400  # synth:vdi-boot:2

CAMPAIGN = """name: replayed
insecure: true
destructive: true
wait: 20s
defaults: {size: 16m, runtime: 30s, interval: 1s, iodepth: 16}
targets:
  - agent: rc-a1
    drives: [a1/disk0.dat]
  - agent: rc-a2
    drives: [a2/disk0.dat]
phases:
  - name: boot
    workload: {rw: replay, replay: "synth:vdi-boot:2"}
    matrix: {replay_speed: [20, 0]}
"""

with Tmp() as tmp:
    camp = os.path.join(tmp, "replay.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    ep = f"tcp://127.0.0.1:{free_port()}"
    agents = file_agents(ep, tmp, "rc")
    try:
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out"),
                 "--no-service"])
    finally:
        logs = "".join(a.output() for a in agents if a.stop() is not None)
    check(r.returncode == 0, f"run: {r.returncode}\n{r.stderr}\n{logs}")
    path = glob.glob(os.path.join(tmp, "out", "replayed-*.h5"))[0]
    with h5py.File(path, "r") as f:
        res, pts = f["results"][:], f["points"][:]
    check(len(res) == 4, f"{len(res)} result rows, want 2 drives x 2 points")
    for row in res:
        paced = b"replay_speed=20" in pts[row["point"]]["name"]
        key = (row["drive"], row["point"])
        check(row["status"] == b"ok", f"{key}: {row['status']} {row['message']}")
        check(row["replay_ios"] == IOS and row["replay_complete"] == 1,
              f"{key}: {row['replay_ios']} IOs, complete {row['replay_complete']}")
        check(row["read_ios"] + row["write_ios"] == IOS,
              f"{key}: {row['read_ios']} reads + {row['write_ios']} writes")
        check(row["replay_timed"] == int(paced), f"{key}: timed {row['replay_timed']}")
        if paced:
            check(0 < row["replay_lag_max_ns"] and
                  row["replay_lag_p50_ns"] <= row["replay_lag_p99_ns"] <= row["replay_lag_max_ns"],
                  f"{key}: lag {row['replay_lag_p50_ns']} / {row['replay_lag_p99_ns']} / "
                  f"{row['replay_lag_max_ns']} ns")
            print(f"drive {row['drive']}: issue lag p50 {row['replay_lag_p50_ns'] / 1e3:.1f} us, "
                  f"p99 {row['replay_lag_p99_ns'] / 1e3:.1f} us")
        else:
            check(row["replay_lag_p99_ns"] == 0, f"{key}: an unpaced replay has no lag")
print("ok")
