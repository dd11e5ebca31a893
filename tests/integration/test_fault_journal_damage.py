# SPDX-License-Identifier: MIT
"""F9: one flipped byte in the journal of a killed coordinator, then `rackbench resume`.

Two agents with two file drives each, three points. The coordinator is killed (SIGKILL)
1.5 s into the second point and one byte of its journal is flipped:
  lost:      in a record of agent a1 in the first point; a1 is then killed and its spool
             removed (no agent holds the record any more). Resume
             skips the damaged record, reads on from the next whole one (the journal is
             never cut there), names the lost messages by agent and seq, passes the safety
             check (the agents' replies are not lost past a gap), runs the rest, and ends
             with exit 4, status partial.
  recovered: in a record of the second point, which the agents' spools still hold. The
             agent sends it again; resume ends with exit 0, status complete.
Both: every journaled sample (but the lost record's) and every spooled one is in the file
exactly once; the journal did not shrink; no process is left behind."""
import glob
import json
import os
import shutil
import signal
import subprocess

from faults import check_once, journal_keys, read_file, spool_keys, stop_all
from rbtest import COORD, Tmp, check, events, file_agents, free_port, run, spool_done, wait_for

CAMPAIGN = """name: damaged
insecure: true
destructive: true
wait: 30s
defaults: {size: 8m, interval: 200ms, runtime: 4s}
targets:
  - agent: f9-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
  - agent: f9-a2
    drives: [a2/disk0.dat, a2/disk1.dat]
phases:
  - name: one
    workload: {rw: randwrite, bs: 4k, iodepth: 2}
  - name: two
    workload: {rw: randread, bs: 4k, iodepth: 2}
  - name: three
    workload: {rw: randrw, bs: 4k, iodepth: 2}
"""


def records(path):
    r = run([COORD, "journal", path])
    check(r.returncode == 0, f"rackbench journal: {r.stderr}")
    return [json.loads(x) for x in r.stdout.splitlines()]


def case(which):
    with Tmp() as tmp:
        camp = os.path.join(tmp, "c.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN)
        ep = f"tcp://127.0.0.1:{free_port()}"
        out = os.path.join(tmp, "out")
        ev = os.path.join(tmp, "events.jsonl")
        agents = file_agents(ep, tmp, "f9")
        try:
            c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep,
                                  "--results", out, "--events", ev],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            # about 1.5 s into the second point: the 200 ms samples of all four drives have
            # reached interval 6
            wait_for(lambda: len({e["drive"] for e in events(ev) if e["event"] == "sample" and
                                  e["point"] == 1 and e["interval"] >= 6}) == 4,
                     "1.5 s of the second point on every drive")
            c.send_signal(signal.SIGKILL)
            c.wait()
            path = glob.glob(os.path.join(out, "damaged-*.h5"))[0]
            jpath = path + ".journal"
            recs = [r for r in records(jpath) if r.get("body") == "samples"]
            # the record to damage: of the first point, or one of the second with more of
            # its agent after it (the seq jump names it)
            if which == "lost":
                victim = [r for r in recs if r["samples"][0]["point"] == 0 and
                          r["agent"] == "f9-a1"][3]
            else:
                victim = [r for r in recs if r["samples"][0]["point"] == 1 and
                          r["agent"] == "f9-a2"][-3]
            at = victim["at"] + 8 + len(victim["agent"]) + 1 + 20
            with open(jpath, "r+b") as f:
                f.seek(at)
                b = f.read(1)
                f.seek(at)
                f.write(bytes([b[0] ^ 0xFF]))
            size = os.path.getsize(jpath)
            journaled, _ = journal_keys(jpath)
            # the agents end the point alone, unheard (no coordinator), and spool its end
            wait_for(lambda: all(spool_done(os.path.join(tmp, n), 1) for n in ("a1", "a2")),
                     "the agents to end the second point alone")
            if which == "lost":
                # a1 dies and its spool is gone: nothing can give the record again
                agents[0].proc.kill()
                agents[0].proc.wait()
                shutil.rmtree(os.path.join(tmp, "a1", "spool"))
                agents[0] = file_agents(ep, tmp, "f9", names=("a1",))[0]
                spooled = spool_keys(os.path.join(tmp, "a2"))
            else:
                spooled = spool_keys(os.path.join(tmp, "a1")) + \
                    spool_keys(os.path.join(tmp, "a2"))
            lost = {(s["drive"], s["point"], s["attempt"], s["interval"], s["direction"])
                    for s in victim["samples"]}
            r = run([COORD, "resume", path, "--no-service"], timeout=180)
            print(r.stderr[-3000:])
            check(os.path.getsize(jpath) >= size, "the damaged journal was cut")
            check("is damaged" in r.stderr, "resume says the journal is damaged")
            seq = victim["seq"]
            named = f"messages {seq}..{seq}"
            status, rows, _ = read_file(path)
            if which == "lost":
                check(f"lost: agent '{victim['agent']}''s {named}" in r.stderr,
                      f"the lost messages named exactly ({named} of {victim['agent']})")
                check(r.returncode == 4, f"resume with a lost record: exit {r.returncode}")
                check(status == "partial", f"status {status}")
                check(not lost & set(rows), "the lost samples are not in the file")
                check_once(rows, set(journaled) - lost, "journaled")
            else:
                check("1 message(s) recovered" in r.stderr and "lost:" not in r.stderr,
                      "the damaged record came again from the agent's spool")
                check(r.returncode == 0, f"resume: exit {r.returncode}")
                check(status == "complete", f"status {status}")
                check_once(rows, journaled, "journaled")
                check_once(rows, lost, "recovered")
            check_once(rows, spooled, "spooled")
            print(f"{which}: {len(rows)} sample rows, each once")
        finally:
            stop_all(agents)


case("lost")
case("recovered")
print("ok")
