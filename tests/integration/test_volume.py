# SPDX-License-Identifier: MIT
"""Striped volumes in campaigns: several of an agent's drives measured as one target
(RAID 0), beside a plain drive, the way a review stripes a card's 4 namespaces.

One agent offers d0.dat and m0/m1/m2.dat (files in its state folder, 4 MiB each). The
campaign measures d0.dat and the volume vol3 = m0+m1+m2 in 64k units:
- a sequential fill in 1 MiB IOs with verify headers (each goes as 16 parts, one per
  unit, on their members), then random 4k reads and 192k reads (parts again) that check
  every header;
- the drives table has the volume (kind volume, 3 members, 64k, 12 MiB), the members
  table its three files in stripe order; the fill wrote 12 MiB to the volume;
- on disk, every 512-byte chunk of member k at offset o carries the volume offset of
  RAID 0's map, ((o // unit) * 3 + k) * unit + o % unit: the known answer;
- the history notes each member's share; health rows are the volume's;
- a purge phase zeroes every member (the volume's row says purged) and the history has
  a purge per member, which the volume's later rows carry;
- widths in one campaign: volumes of 1, 2 and 3 of the same files, a phase each
  (`drives:`), one point per width on its volume alone; the 3-wide reads check the
  fill's headers (they hold 3-wide volume offsets);
- `rackbench report` groups the volume by its width and unit, apart from single drives;
- `plan --resolve --lock` lists the members and locks each, and a campaign holds to it;
- a member outside the state folder, not allow-listed: the guard refuses the volume,
  naming it and the member, exit 3, nothing written; a member the agent does not offer:
  exit 2 naming it and its volume; `plan --resolve` lists the members; a selector on the
  same agent does not take a volume's members."""
import glob
import json
import os
import struct

import layout
from rbtest import AGENT, COORD, Agent, Tmp, check, free_port, h5, run

h5py = h5()

UNIT = 64 << 10
CAMPAIGN = """name: volumes
insecure: true
destructive: true
wait: 20s
defaults: {{size: 4m, interval: 200ms}}
targets:
  - agent: v-a1
    drives:
      - d0.dat
      - volume: {vol}
        stripe: 64k
        members: [{members}]
phases:
  - name: clean
    purge: {{method: zero}}
  - name: fill
    workload: {{rw: write, bs: 1m, iodepth: 4, passes: 1, verify: true}}
  - name: check
    workload: {{rw: randread, bs: 4k, iodepth: 8, runtime: 1s, verify: true}}
  - name: wide
    workload: {{rw: randread, bs: 192k, iodepth: 4, runtime: 1s, verify: true}}
"""


def h5verify(folder):
    """Chunks the 3-wide point checked (point 2's verify_checked)."""
    with h5py.File(glob.glob(os.path.join(folder, "*.h5"))[0], "r") as h:
        return sum(int(x["verify_checked"]) for x in h["results"][:] if x["point"] == 2)


def campaign(tmp, name, members, vol="vol3"):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(CAMPAIGN.format(vol=vol, members=", ".join(members)))
    return path


with Tmp() as tmp:
    ep = f"tcp://127.0.0.1:{free_port()}"
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    outside = os.path.join(tmp, "outside.dat")
    with open(outside, "wb") as f:
        f.truncate(4 << 20)
    files = ["d0.dat", "m0.dat", "m1.dat", "m2.dat"]
    # there before the purge, made by rackbench (a file it did not make is not its own)
    r = run([AGENT, "run", "--rw", "read", "--size", "4m", "--runtime", "100ms",
             "--state-dir", state] + [a for n in files for a in ("--target", os.path.join(state, n))])
    check(r.returncode == 0, f"laying out the files: {r.returncode} {r.stderr}")
    agent = Agent(ep, "v-a1", files + [outside], cwd=state, state_dir=state)
    try:
        camp = campaign(tmp, "c.yaml", ["m0.dat", "m1.dat", "m2.dat"])
        r = run([COORD, "plan", camp])
        check(r.returncode == 0, f"plan: {r.returncode} {r.stderr}")
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out")],
                timeout=90)
        print(r.stderr[-2500:])
        check(r.returncode == 0, f"run: exit {r.returncode}")
        with h5py.File(glob.glob(os.path.join(tmp, "out", "volumes-*.h5"))[0], "r") as h:
            diffs = layout.check_file(h)
            check(not diffs, "file differs from schemas/results-layout.md:\n  " + "\n  ".join(diffs))
            drives = {d["path"].decode(): d for d in h["drives"][:]}
            members = sorted((m["member"], m["path"].decode(), m["drive"], m["kind"].decode(),
                              m["capacity_bytes"]) for m in h["members"][:])
            results = h["results"][:]
            health = h["health"][:]
            version = h.attrs["schema_version"]
            version = version.decode() if isinstance(version, bytes) else str(version)
        check(version == layout.parse(layout.DOC)[2], f"schema version {version}")
        check(sorted(drives) == ["d0.dat", "vol3"], f"drives: {sorted(drives)}")
        v = drives["vol3"]
        vi = int(v["drive"])
        check(v["kind"].decode() == "volume" and v["members"] == 3 and v["stripe_bytes"] == UNIT
              and v["capacity_bytes"] == 12 << 20,
              f"volume row: {v['kind']} {v['members']} {v['stripe_bytes']} {v['capacity_bytes']}")
        check(drives["d0.dat"]["members"] == 0 and drives["d0.dat"]["stripe_bytes"] == 0,
              "a plain drive has no members")
        check(members == [(0, "m0.dat", vi, "file", 4 << 20), (1, "m1.dat", vi, "file", 4 << 20),
                          (2, "m2.dat", vi, "file", 4 << 20)], f"members: {members}")
        byrow = {(int(x["drive"]), int(x["point"])): x for x in results}
        fill, chk, wipe = byrow[(vi, 1)], byrow[(vi, 2)], byrow[(vi, 0)]
        check(fill["write_bytes"] == 12 << 20,
              f"the fill wrote the whole volume: {fill['write_bytes']}")
        check(byrow[(int(drives["d0.dat"]["drive"]), 1)]["write_bytes"] == 4 << 20,
              "the plain drive: 4 MiB")
        wide = byrow[(vi, 3)]
        check(wide["read_ios"] > 0 and wide["verify_checked"] == wide["read_ios"] * 384
              and wide["verify_mismatches"] == 0 and wide["read_errors"] == 0,
              f"192k reads as parts over three members, every chunk checked: "
              f"{wide['read_ios']} {wide['verify_checked']} {wide['verify_mismatches']}")
        check(chk["read_ios"] > 0 and chk["verify_checked"] > 0
              and chk["verify_mismatches"] == 0,
              f"reads check the volume's headers: {chk['verify_checked']} "
              f"{chk['verify_mismatches']}")
        # RAID 0's map, read off the members' own bytes
        bad = checked = 0
        for k, name in enumerate(["m0.dat", "m1.dat", "m2.dat"]):
            with open(os.path.join(state, name), "rb") as f:
                data = f.read()
            for o in range(0, len(data), 512 * 37):
                magic, off = struct.unpack_from("<QQ", data, o)
                want = ((o // UNIT) * 3 + k) * UNIT + o % UNIT
                checked += 1
                if magic != 0x5946495245564252 or off != want:
                    bad += 1
        check(checked > 600 and bad == 0, f"member chunks off the RAID 0 map: {bad}/{checked}")
        # history: each member its share; results name the volume's history
        with open(os.path.join(state, "history.jsonl")) as f:
            hist = [json.loads(line) for line in f if line.strip()]
        shares = {}
        for e in hist:
            if e.get("event") == "write":
                dev = os.path.basename(e["device"])
                shares[dev] = shares.get(dev, 0) + e["bytes"]
        check(all(shares.get(m) == 4 << 20 for m in ("m0.dat", "m1.dat", "m2.dat", "d0.dat"))
              and "vol3" not in shares, f"history shares: {shares}")
        purged = {os.path.basename(e["device"]) for e in hist if e.get("event") == "purge"}
        check({"m0.dat", "m1.dat", "m2.dat", "d0.dat"} <= purged and "vol3" not in purged,
              f"purges noted per member: {purged}")
        check(wipe["status"] == b"ok" and wipe["message"] == b"purged",
              f"the volume purged member by member: {wipe['status']} {wipe['message']}")
        check(chk["written_since_purge_bytes"] == 12 << 20 and chk["purge_method"] == b"zero"
              and chk["purge_ns"] > 0 and fill["written_since_purge_bytes"] == 0,
              f"the volume's history: {chk['written_since_purge_bytes']} {chk['purge_method']}")
        check(all(int(x["drive"]) in (vi, int(drives["d0.dat"]["drive"])) for x in health),
              "health rows name campaign drives")

        # the report groups a volume with volumes of its width, not with single files
        r = run([COORD, "report", glob.glob(os.path.join(tmp, "out", "volumes-*.h5"))[0],
                 "--format", "markdown"])
        check(r.returncode == 0 and "3 x file (volume, 64 KiB unit)" in r.stdout,
              f"report: {r.returncode} {r.stdout[-1500:]} {r.stderr[-500:]}")

        # widths in one campaign: volumes sharing members, a phase each
        wcamp = os.path.join(tmp, "w.yaml")
        with open(wcamp, "w") as f:
            f.write("name: widths\ninsecure: true\nwait: 20s\n"
                    "defaults: {size: 4m, runtime: 600ms, interval: 200ms}\n"
                    "targets:\n  - agent: v-a1\n    drives:\n"
                    "      - {volume: w1, stripe: 64k, members: [m0.dat]}\n"
                    "      - {volume: w2, stripe: 64k, members: [m0.dat, m1.dat]}\n"
                    "      - {volume: w3, stripe: 64k, members: [m0.dat, m1.dat, m2.dat]}\n"
                    "phases:\n"
                    "  - {name: x1, drives: [w1], workload: {rw: read, bs: 128k}}\n"
                    "  - {name: x2, drives: [w2], workload: {rw: read, bs: 128k}}\n"
                    "  - {name: x3, drives: [w3], workload: {rw: read, bs: 128k, verify: true}}\n")
        r = run([COORD, "run", wcamp, "--listen", ep, "--results", os.path.join(tmp, "outw")],
                timeout=90)
        print(r.stderr[-1500:])
        check(r.returncode == 0 and "(600ms on 1 drive(s))" in r.stderr, f"widths: exit {r.returncode}")
        with h5py.File(glob.glob(os.path.join(tmp, "outw", "widths-*.h5"))[0], "r") as h:
            wd = {int(x["drive"]): x for x in h["drives"][:]}
            wres = sorted((int(x["point"]), wd[int(x["drive"])]["path"].decode(),
                           x["status"].decode(), int(x["verify_mismatches"]), int(x["read_ios"]))
                          for x in h["results"][:])
            wmem = sorted((wd[int(m["drive"])]["path"].decode(), int(m["member"]))
                          for m in h["members"][:])
        check([(p, n) for p, n, *_ in wres] == [(0, "w1"), (1, "w2"), (2, "w3")]
              and all(st == "ok" and mm == 0 and ios > 0 for _, _, st, mm, ios in wres),
              f"a point per width, each on its volume alone: {wres}")
        check(h5verify(os.path.join(tmp, "outw")) > 0, "the 3-wide reads checked the fill's headers")
        check([wd[i]["capacity_bytes"] for i in sorted(wd)] == [4 << 20, 8 << 20, 12 << 20],
              "widths' capacities")
        check(wmem == [("w1", 0), ("w2", 0), ("w2", 1), ("w3", 0), ("w3", 1), ("w3", 2)],
              f"members: {wmem}")

        # the guard refuses a volume by its member, naming both
        camp = campaign(tmp, "c2.yaml", ["m0.dat", f'"{outside}"'], vol="volb")
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out2")],
                timeout=90)
        print(r.stderr[-1500:])
        check(r.returncode == 3, f"refused: exit {r.returncode}")
        check("drive 'volb': member '" in r.stderr and outside in r.stderr,
              "the refusal names the volume and the member")
        check(not glob.glob(os.path.join(tmp, "out2", "*.h5")), "nothing ran")

        # a member the agent does not offer
        camp = campaign(tmp, "c3.yaml", ["m0.dat", "nope.dat"], vol="volc")
        r = run([COORD, "run", camp, "--listen", ep, "--results", os.path.join(tmp, "out3")],
                timeout=90)
        check(r.returncode == 2 and "drive 'nope.dat' (of volume 'volc') is not offered" in
              r.stderr, f"not offered: exit {r.returncode} {r.stderr[-800:]}")

        # plan --resolve: the volume, then its members
        camp = campaign(tmp, "c4.yaml", ["m0.dat", "m1.dat", "m2.dat"])
        lock = os.path.join(tmp, "vol.lock")
        r = run([COORD, "plan", camp, "--resolve", "--listen", ep, "--lock", lock], timeout=60)
        print(r.stdout)
        check(r.returncode == 0 and "vol3" in r.stdout and "+ m2.dat" in r.stdout
              and "3 x 64k" in r.stdout, f"resolve: {r.returncode} {r.stderr[-500:]}")
        # the lock records the members (what gets written), and a campaign holds to it
        with open(lock) as f:
            text = f.read()
        check(all(f'path: "{m}"' in text for m in ("d0.dat", "m0.dat", "m1.dat", "m2.dat"))
              and 'path: "vol3"' not in text, f"lock: {text}")
        with open(camp, "a") as f:
            f.write("lock: vol.lock\n")
        r = run([COORD, "plan", camp])
        check(r.returncode == 0, f"plan with the lock: {r.returncode} {r.stderr}")
        with open(lock, "w") as f:
            f.write("\n".join(line for line in text.splitlines() if "m1.dat" not in line) + "\n")
        r = run([COORD, "plan", camp])
        check(r.returncode == 2 and "volume 'vol3' of agent 'v-a1' is not in the lock" in r.stderr,
              f"a member missing from the lock: {r.returncode} {r.stderr}")

        # a selector on the same agent never takes a volume's member: 2 files are left
        sel = os.path.join(tmp, "c5.yaml")
        with open(sel, "w") as f:
            f.write("name: sel\ninsecure: true\nwait: 20s\ntargets:\n"
                    "  - agent: v-a1\n    drives: [{volume: vol3, members: [m0.dat, m1.dat, m2.dat]}]\n"
                    "  - agent: v-a1\n    select: {model: file, count: 2}\n"
                    "phases:\n  - workload: {rw: randread, bs: 4k, runtime: 1s}\n")
        r = run([COORD, "plan", sel, "--resolve", "--listen", ep], timeout=60)
        print(r.stdout, r.stderr[-800:])
        rows = [line.split()[1] for line in r.stdout.splitlines()[1:] if line.startswith("v-a1")]
        check(r.returncode == 0 and sorted(rows) == sorted(["d0.dat", outside, "vol3", "+", "+", "+"]),
              f"selector beside a volume: {r.returncode} {rows}")
    finally:
        agent.stop()
print("ok")
