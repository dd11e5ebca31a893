# SPDX-License-Identifier: MIT
"""F10 and B19: a damaged agent spool, and what is not a spool at all.

F10: the coordinator is paused (SIGSTOP) 2 s into a 10 s point so that the agent's spool
holds a backlog; the agent is killed, one byte flipped in its last record but one (past
the send window: only the spool holds it),
the agent started again and the coordinator resumed. Checked: the new agent process says
the spool is damaged and sends the records after the damaged one (it is not taken for the
end of the file); the coordinator names the one lost message by seq; every sample of the
other records is in the file exactly once and the damaged one's in none; the damaged file
is kept; the run ends with exit 4 (partial), the point run again as attempt 1.
B19/B22: `rackbench-agent spool` on /dev/zero and on a YAML file ends with exit 2 and a
message (it used to loop forever on /dev/zero, and print nothing for the YAML file)."""
import glob
import json
import os
import signal
import subprocess

from faults import check_once, read_file, sample_keys, stop_all
from rbtest import AGENT, COORD, Agent, Tmp, check, events, free_port, run, wait_for

CAMPAIGN = """name: spooldamage
insecure: true
destructive: true
wait: 20s
on_agent_lost: wait
lost_wait: 30s
defaults: {size: 8m, interval: 200ms}
targets:
  - agent: f10-a1
    drives: [a1/d0.dat, a1/d1.dat]
phases:
  - workload: {rw: randwrite, bs: 4k, iodepth: 2, runtime: 10s}
"""


def records(path):
    """(offset, length, seq) of each record in a spool file, by its headers."""
    with open(path, "rb") as f:
        data = f.read()
    pos, starts = 0, []
    while pos + 16 <= len(data):
        ln = int.from_bytes(data[pos:pos + 4], "little")
        starts.append((pos, ln, int.from_bytes(data[pos + 8:pos + 16], "little")))
        pos += 16 + ln
    return starts


with Tmp() as tmp:
    # B19 / B22: not spools
    camp = os.path.join(tmp, "c.yaml")
    with open(camp, "w") as f:
        f.write(CAMPAIGN)
    for bad in ("/dev/zero", camp):
        r = run([AGENT, "spool", bad], timeout=20)
        check(r.returncode == 2 and "is not a spool file" in r.stderr,
              f"spool {bad}: exit {r.returncode}, {r.stderr.strip()!r}")
    print("not spools: exit 2 with a message")

    os.mkdir(os.path.join(tmp, "a1"))
    ep = f"tcp://127.0.0.1:{free_port()}"
    t = ["a1/d0.dat", "a1/d1.dat"]
    state = os.path.join(tmp, "a1")
    agents = [Agent(ep, "f10-a1", t, allow=t, cwd=tmp, state_dir=state)]
    c = None
    try:
        ev = os.path.join(tmp, "events.jsonl")
        c = subprocess.Popen([COORD, "run", camp, "--no-service", "--listen", ep, "--results",
                              os.path.join(tmp, "out"), "--events", ev],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        spool_dir = os.path.join(state, "spool")
        # 2 s into the point: the 200 ms samples of both drives have reached interval 9
        wait_for(lambda: len({e["drive"] for e in events(ev) if e["event"] == "sample" and
                              e["interval"] >= 9}) == 2, "2 s of the point on both drives")
        c.send_signal(signal.SIGSTOP)
        # paused until the spool holds a backlog: the agent says it holds what is past its
        # send window, and two more records come after that (only the spool holds those)
        log = agents[0].output
        wait_for(lambda: log().rfind("holding the rest") > log().rfind("caught up"),
                 "the agent to hold messages past its send window")
        spool = wait_for(lambda: glob.glob(os.path.join(spool_dir, "*.spool")), "the spool")[0]
        n = len(records(spool))
        wait_for(lambda: len(records(spool)) > max(n + 2, 21),
                 "a backlog of over 20 records in the spool, two past the window")
        agents[0].proc.send_signal(signal.SIGKILL)
        agents[0].proc.wait()
        spools = glob.glob(os.path.join(spool_dir, "*.spool"))
        check(len(spools) == 1, f"spool files at the kill: {spools}")
        r = run([AGENT, "spool", spools[0]])
        recs = [json.loads(x) for x in r.stdout.splitlines()]
        # the last record but one: past the send window (the coordinator was paused), so
        # only the spool holds it, and one whole record after it
        starts = records(spools[0])
        check(len(starts) > 20, f"a backlog in the spool: {len(starts)} records")
        pos, ln, victim = starts[-2]
        at = pos + 16 + ln // 2
        check(victim, "found the record to damage")
        with open(spools[0], "r+b") as f:
            f.seek(at)
            b = f.read(1)
            f.seek(at)
            f.write(bytes([b[0] ^ 0xFF]))
        lost = set(sample_keys([x for x in recs if x.get("seq") == victim]))
        kept = set(sample_keys([x for x in recs if x.get("seq") != victim]))
        check(any(x.get("seq", 0) > victim for x in recs), "records after the damaged one")
        agents[0] = Agent(ep, "f10-a1", t, allow=t, cwd=tmp, state_dir=state)
        c.send_signal(signal.SIGCONT)
        so, se = c.communicate(timeout=120)
        print(se[-2500:])
        log = agents[0].output()
        print(log[-3000:])
        check("is damaged" in log, f"the agent says its spool is damaged:\n{log[-1500:]}")
        check(f"messages {victim}..{victim} of its earlier process" in se,
              f"the lost message {victim} named")
        check(c.returncode == 4, f"exit {c.returncode}")
        check(os.path.exists(spools[0]) or os.path.exists(spools[0] + ".damaged"),
              "the damaged spool is kept")
        path = so.split("results: ")[1].split(" (")[0]
        status, rows, results = read_file(path)
        check(status == "partial", f"status {status}")
        check(not lost & set(rows), "the damaged record's samples are not in the file")
        check_once(rows, kept, "spooled")
        check(any(r[2] == 1 and r[3] == "ok" for r in results), f"attempt 1 ran: {results}")
        print(f"{len(rows)} sample rows; {len(kept)} spooled samples each once; seq {victim} lost")
    finally:
        if c and c.poll() is None:
            c.send_signal(signal.SIGCONT)
            c.kill()
        stop_all(agents)
print("ok")
