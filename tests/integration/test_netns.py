# SPDX-License-Identifier: MIT
"""Three hosts: three agents, each in its own network namespace behind a veth pair and its
own time namespace (CLOCK_MONOTONIC moved by +5 s, -3 s and +2 s), each with two loop
devices, and the coordinator in the root namespaces. A campaign runs on all six drives
and the HDF5 file holds them; the coordinator's estimates of the agents' clock offsets
equal the injected ones within 1 ms, and the start skew of the drives in coordinator time
is printed (target: within 1 ms). Then, with the coordinator as a service (`rackbench
serve`, the campaign submitted by `rackbench run` over its control socket), one agent's
link goes down for 10 s in the middle of a point and comes back: the service waits for it
(on_agent_lost: wait), its results arrive after the link is back, and the run exits 0
with every row ok; `rackbench agents` lists the three hosts. Last, the service is killed
(SIGKILL) in the middle of a campaign's second point; a new service starts, the agents
reconnect to it, and `rackbench resume` through it rebuilds the file from the journal:
exit 0, every row ok, no sample key twice, the points the agents finished restored."""
import glob
import json
import os
import subprocess
import time

from rbtest import (COORD, Agent, LoopDevices, Tmp, check, events, free_port, h5, run, skip,
                    spool_done, wait_for)

h5py = h5()
if os.geteuid() != 0:
    skip("needs root for network namespaces and loop devices")
if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode:
    skip("no 'ip netns' here (iproute2)")

TAG = f"rb{os.getpid() % 10000}"
OFFSETS = [5, -3, 2]  # whole seconds (unshare takes no fractions) added to CLOCK_MONOTONIC
NS = [f"{TAG}h{i}" for i in range(3)]


def sh(*args):
    return subprocess.run(args, capture_output=True, text=True)


def setup():
    for i, ns in enumerate(NS):
        host, peer = f"{TAG}v{i}", f"{TAG}p{i}"
        for cmd in (["ip", "netns", "add", ns],
                    ["ip", "link", "add", host, "type", "veth", "peer", "name", peer],
                    ["ip", "link", "set", peer, "netns", ns],
                    ["ip", "addr", "add", f"10.77.{i}.1/24", "dev", host],
                    ["ip", "link", "set", host, "up"],
                    ["ip", "netns", "exec", ns, "ip", "addr", "add", f"10.77.{i}.2/24", "dev", peer],
                    ["ip", "netns", "exec", ns, "ip", "link", "set", peer, "up"],
                    ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"]):
            r = sh(*cmd)
            if r.returncode:
                teardown()
                skip(f"cannot build the namespaces: {' '.join(cmd)}: {r.stderr.strip()}")


def sampled(path, point, interval, drives=None):
    """The run's events say the point is that far in: a sample of at least interval (of
    one of drives, if given)."""
    return any(e["event"] == "sample" and e["point"] == point and e["interval"] >= interval
               and (drives is None or e["drive"] in drives) for e in events(path))


def teardown():
    for i, ns in enumerate(NS):
        sh("ip", "link", "del", f"{TAG}v{i}")
        sh("ip", "netns", "del", ns)


CAMPAIGN = """name: netns
insecure: true
destructive: true
wait: 30s
on_agent_lost: wait
lost_wait: 60s
defaults: {{size: 16m, interval: 500ms}}
targets:
{targets}
phases:
  - name: write
    workload: {{rw: randwrite, bs: 64k, iodepth: 4, runtime: 1s}}
  - name: read
    workload: {{rw: randread, bs: 4k, iodepth: 8, runtime: {read}}}
"""

with Tmp() as tmp:
    setup()
    try:
        with LoopDevices(tmp, 6) as devs:
            port = free_port()
            targets = "\n".join(f"  - agent: host{i}\n    drives: [{devs[2 * i]}, {devs[2 * i + 1]}]"
                                for i in range(3))
            agents = [Agent(f"tcp://10.77.{i}.1:{port}", f"host{i}", devs[2 * i:2 * i + 2],
                            allow=devs[2 * i:2 * i + 2], netns=NS[i],
                            wrap=["unshare", "-T", f"--monotonic={OFFSETS[i]}", "--fork",
                                  "--kill-child=SIGTERM", "--"],
                            state_dir=os.path.join(tmp, f"s{i}"))
                      for i in range(3)]
            try:
                camp = os.path.join(tmp, "c.yaml")
                with open(camp, "w") as f:
                    f.write(CAMPAIGN.format(targets=targets, read="1s"))
                r = run([COORD, "run", camp, "--listen", f"tcp://0.0.0.0:{port}",
                         "--results", os.path.join(tmp, "one")])
                print(r.stderr[-2000:])
                if r.returncode:
                    for a in agents:
                        print(a.output()[-1500:])
                check(r.returncode == 0, f"three hosts: exit {r.returncode}")
                for i in range(3):
                    check(f"agent 'host{i}' connected from host" in r.stderr, f"host{i} connected")
                with h5py.File(glob.glob(os.path.join(tmp, "one", "netns-*.h5"))[0], "r") as h:
                    drives = h["drives"][:]
                    res = h["results"][:]
                    ags = h["agents"][:]
                for ag in ags:
                    i = int(ag["name"].decode()[4:])
                    est = int(ag["clock_offset_ns"]) / 1e9
                    print(f"host{i}: injected {OFFSETS[i]:+.3f} s, estimated {est:+.6f} s "
                          f"(round trip {int(ag['clock_delay_ns']) / 1e3:.0f} us)")
                    # a round trip's estimate is off by at most half its delay (the
                    # two legs may differ by all of it): 1 ms, or more on a loaded host
                    bound = max(0.001, int(ag["clock_delay_ns"]) / 2e9)
                    check(abs(est - OFFSETS[i]) <= bound and ag["clock_delay_ns"] > 0,
                          f"host{i}: offset {est} s, injected {OFFSETS[i]} s, bound {bound} s")
                for pt in (0, 1):
                    sk = [int(x["start_skew_ns"]) for x in res if x["point"] == pt]
                    print(f"point {pt}: start skew in coordinator time {min(sk) / 1e3:+.0f} .. "
                          f"{max(sk) / 1e3:+.0f} us (spread {(max(sk) - min(sk)) / 1e3:.0f} us)")
                    # seconds off would mean the offsets were not applied
                    check(max(abs(x) for x in sk) < 50e6, f"point {pt}: skews {sk}")
                check(len(drives) == 6 and len(res) == 12, f"{len(drives)} drives, {len(res)} rows")
                check({(d["agent"].decode(), d["path"].decode()) for d in drives} ==
                      {(f"host{i}", devs[2 * i + k]) for i in range(3) for k in (0, 1)}, "drives")
                check(all(x["status"] == b"ok" for x in res), "rows ok")

                # the service on the same port: the agents reconnect to it by themselves
                env = dict(os.environ, RACKBENCH_CONTROL=os.path.join(tmp, "ctl", "control"))
                serve = subprocess.Popen([COORD, "serve", "--insecure", "--listen",
                                          f"tcp://0.0.0.0:{port}"], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

                def three_listed():
                    r = run([COORD, "agents", "--json"], env=env)
                    listed = sorted(a["name"] for a in json.loads(r.stdout)) if r.returncode == 0 else []
                    return listed if len(listed) == 3 else None

                listed = wait_for(three_listed, "the three agents to reconnect to the service")
                check(listed == ["host0", "host1", "host2"], f"agents of the service: {listed}")
                # host1's link goes down 2 s into a 6 s point, for 10 s
                with open(camp, "w") as f:
                    f.write(CAMPAIGN.format(targets=targets, read="6s"))
                ev = os.path.join(tmp, "two.jsonl")
                p = subprocess.Popen([COORD, "run", camp, "--results", os.path.join(tmp, "two"),
                                      "--events", ev], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                # 2 s into the 6 s point: host1's samples of 500 ms have reached interval 3
                wait_for(lambda: sampled(ev, 1, 3, [f"host1:{d}" for d in devs[2:4]]),
                         "host1 2 s into the read point", timeout=120)
                sh("ip", "link", "set", f"{TAG}v1", "down")
                # the cut's length is the input: past the 5 s of silence, past the point's end
                time.sleep(10)
                sh("ip", "link", "set", f"{TAG}v1", "up")
                out, err = p.communicate(timeout=120)
                print(err[-3000:])
                check("submitted to the service" in err, "the run went to the service")
                check(p.returncode == 0, f"link cut: exit {p.returncode}")
                check("agent 'host1': nothing heard for 5 s" in err and "agent 'host1' is back" in err,
                      "the coordinator noticed the silence and the return")
                with h5py.File(glob.glob(os.path.join(tmp, "two", "netns-*.h5"))[0], "r") as h:
                    res = h["results"][:]
                check(len(res) == 12 and all(x["status"] == b"ok" for x in res),
                      f"rows after the cut: {[(int(x['drive']), int(x['point']), x['status']) for x in res]}")

                # the service killed mid-campaign, a new one, and resume through it
                with open(camp, "w") as f:
                    f.write(CAMPAIGN.format(targets=targets, read="4s"))
                ev = os.path.join(tmp, "three.jsonl")
                p = subprocess.Popen([COORD, "run", camp, "--results", os.path.join(tmp, "three"),
                                      "--events", ev], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                # 1 s into the read point: its samples of 500 ms have reached interval 1
                wait_for(lambda: sampled(ev, 1, 1) or p.poll() is not None,
                         "the third run 1 s into its read point", timeout=120)
                if not sampled(ev, 1, 1):
                    p.kill()
                    print(p.communicate()[1][-3000:])
                    check(False, "the third run's read point did not start")
                serve.kill()
                serve.wait()
                p.communicate(timeout=60)
                check(p.returncode != 0, "the client of a killed service fails")
                path = glob.glob(os.path.join(tmp, "three", "netns-*.h5"))[0]
                # the agents end the point alone, unheard (no coordinator), and spool its end
                wait_for(lambda: all(spool_done(os.path.join(tmp, f"s{i}"), 1) for i in range(3)),
                         "the agents to end the read point alone")
                serve = subprocess.Popen([COORD, "serve", "--insecure", "--listen",
                                          f"tcp://0.0.0.0:{port}"], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wait_for(lambda: run([COORD, "status"], env=env).returncode == 0,
                         "the new service to answer")
                r = run([COORD, "resume", path], env=env, timeout=120)
                serve.terminate()
                serve.wait(30)
                print(r.stderr[-2500:])
                check(r.returncode == 0, f"resume through the service: exit {r.returncode}")
                check("point 0 ('write'): restored from the journal" in r.stderr, "restored")
                # the read point ran on without a coordinator; the agents' spools had it
                check("point 1 ('read'): restored from the journal" in r.stderr,
                      "the point the agents finished alone is restored")
                with h5py.File(path, "r") as h:
                    res = h["results"][:]
                    keys = [(int(x["drive"]), int(x["point"]), int(x["attempt"]),
                             int(x["interval"]), int(x["direction"])) for x in h["samples"][:]]
                check(len(keys) == len(set(keys)), "a sample key twice after the resume")
                oks = {(int(x["drive"]), int(x["point"])) for x in res if x["status"] == b"ok"}
                check(len(oks) == 12, f"ok rows after the resume: {sorted(oks)}")
            finally:
                if "serve" in dir() and serve.poll() is None:
                    serve.kill()
                for a in agents:
                    a.stop()
    finally:
        teardown()
print("ok")
