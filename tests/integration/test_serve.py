# SPDX-License-Identifier: MIT
"""`rackbench serve`: the coordinator as a service, with real processes.

A keyed service (CURVE, an allow-list) and two keyed agents that stay connected to it:
`agents` lists them; `run` submits a campaign and follows its output; while it runs,
`status` names the point, a second `run` is refused (busy), and `abort` stops it (IO on
both agents ends, the results say aborted, the submitting client exits 1); the next run,
with the same agent processes, completes (exit 0, results complete). Ctrl-C on a
submitting client aborts its run too. SIGTERM stops the service (exit 0, socket gone);
without one, `status` says so and `run` runs in-process."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

from rbtest import AGENT, Agent, COORD, PROTO, Tmp, check, free_port, h5, pub, run, wait_for

h5py = h5()



CAMPAIGN = """name: {name}
destructive: true
wait: 15s
defaults: {{size: 8m, interval: 200ms, runtime: {runtime}}}
targets:
  - agent: sv-a1
    drives: [a1/d.dat]
  - agent: sv-a2
    drives: [a2/d.dat]
phases:
  - workload: {{rw: randwrite, bs: 4k}}
    matrix: {{iodepth: [1, 2, 4]}}
"""


def h5status(path):
    with h5py.File(path, "r") as h:
        s = h.attrs["status"]
        return s.decode() if isinstance(s, bytes) else str(s)


def results_of(out):
    import re
    m = re.search(r"results: (\S+\.h5)", out)
    return m.group(1) if m else None


with Tmp() as tmp:
    keys = os.path.join(tmp, "keys")
    for who, tool in (("coordinator", COORD), ("sv-a1", AGENT), ("sv-a2", AGENT)):
        r = run([tool, "keygen", keys, who])
        check(r.returncode == 0, f"keygen {who}: {r.stderr}")
    with open(os.path.join(keys, "allowed"), "w") as f:
        for n in ("sv-a1", "sv-a2"):
            f.write(f"{n} {pub(os.path.join(keys, n + '.pub'))}\n")
    ctl = os.path.join(tmp, "ctl", "control")
    env = dict(os.environ, RACKBENCH_CONTROL=ctl)
    port = free_port()
    serve = subprocess.Popen([COORD, "serve", "--listen", f"tcp://127.0.0.1:{port}",
                              "--key", f"{keys}/coordinator.key",
                              "--agent-keys", f"{keys}/allowed"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    agents = []

    def status_showing(text):
        """`rackbench status`, once it says text (else None)."""
        out = run([COORD, "status"], env=env).stdout
        return out if text in out else None

    def mtimes():
        """When each agent's file was last written (None: not made yet)."""
        paths = [os.path.join(tmp, n, "d.dat") for n in ("a1", "a2")]
        return [os.stat(x).st_mtime_ns if os.path.exists(x) else None for x in paths]

    try:
        wait_for(lambda: os.path.exists(ctl), "the control socket to appear")
        check(os.stat(ctl).st_mode & 0o077 == 0, "only its owner may use the control socket")
        for n in ("a1", "a2"):
            os.makedirs(os.path.join(tmp, n), exist_ok=True)
            agents.append(Agent(f"tcp://127.0.0.1:{port}", f"sv-{n}", [f"{n}/d.dat"],
                                allow=[f"{n}/d.dat"], cwd=tmp, state_dir=os.path.join(tmp, n),
                                insecure=False,
                                extra=["--key", f"{keys}/sv-{n}.key",
                                       "--coordinator-key", f"{keys}/coordinator.pub"]))

        def two_listed():
            r = run([COORD, "agents", "--json"], env=env)
            check(r.returncode == 0, f"agents: {r.returncode} {r.stderr}")
            listed = json.loads(r.stdout)
            return listed if len(listed) >= 2 else None

        listed = wait_for(two_listed, "two agents in `rackbench agents`")
        check(sorted(a["name"] for a in listed) == ["sv-a1", "sv-a2"], f"agents: {listed}")
        check(all(a["state"] == "idle" and a["protocol"] == PROTO for a in listed), "idle")
        # each agent's drives, as it offered them
        r = run([COORD, "agents", "--drives", "--json"], env=env)
        check(r.returncode == 0, f"agents --drives: {r.returncode} {r.stderr}")
        byname = {a["name"]: a for a in json.loads(r.stdout)}
        for n in ("a1", "a2"):
            ds = byname[f"sv-{n}"]["drives"]
            check([d["path"] for d in ds] == [f"{n}/d.dat"] and
                  set(ds[0]) == {"path", "kind", "model", "serial", "firmware", "capacity_bytes"},
                  f"drives of sv-{n}: {ds}")
        r = run([COORD, "agents", "--drives"], env=env)
        check(r.returncode == 0 and re.search(r"^  a1/d\.dat ", r.stdout, re.M), r.stdout)
        pids = [a.proc.pid for a in agents]

        # a long run, aborted over the control socket
        camp = os.path.join(tmp, "long.yaml")
        with open(camp, "w") as f:
            f.write(CAMPAIGN.format(name="long", runtime="6s"))
        long_run = subprocess.Popen([COORD, "run", camp, "--results", "out"], cwd=tmp, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        running = wait_for(lambda: status_showing("point 1 of 3"), "the status to name point 1")
        check("running: run" in running and "campaign 'long', point 1 of 3" in running,
              f"status while running: {running}")
        check(re.search(r"\(phase (waiting|selecting|pre-flight|point|idle|stopping)\)$",
                        running.strip()) is not None,
              f"the run's phase in its status: {running}")
        r = run([COORD, "agents"], env=env)
        check(r.stdout.count("running") == 2, f"agents during the run: {r.stdout}")
        # status --json: the point, the time planned after it, each drive's last interval
        st = json.loads(run([COORD, "status", "--json"], env=env).stdout)
        check(st["state"] == "running" and st["campaign"] == "long" and st["points"] == 3 and
              1 <= st["point"] <= 3 and
              st["planned_left_s"] >= 0 and st["size_based_left"] == 0 and
              sorted(d["drive"] for d in st["drives"]) == ["sv-a1:a1/d.dat", "sv-a2:a2/d.dat"],
              f"status --json while running: {st}")
        # a follower asks for the drives its view can show: the first K, and how many
        ask = os.path.join(os.environ.get("RB_BUILD", "build"), "tests", "control_ask")
        for k, lines in ((1, 1), (0, 0), (5, 2)):
            rep = run([ask, ctl, f"status\\ndrives={k}\\n"]).stdout
            check(rep.startswith("ok\n") and rep.count("\ndrive=sv-a") == lines and
                  "\ndrives_total=2\n" in rep, f"status with drives={k}: {rep}")
        rep = run([ask, ctl, "status\\n"]).stdout
        check(rep.count("\ndrive=sv-a") == 2, f"status: {rep}")
        r = run([COORD, "run", camp, "--results", "out"], cwd=tmp, env=env)
        # busy: its own exit code (7), not a failed run's
        check(r.returncode == 7 and "busy" in r.stderr, f"second run: {r.returncode} {r.stderr}")
        # in the point (both agents started it) and writing: their files' times move
        wait_for(lambda: all("point 0: " in a.output() for a in agents),
                 "both agents to start the first point")
        first = mtimes()
        wait_for(lambda: all(m != f for m, f in zip(mtimes(), first)), "both agents to write")
        stat = mtimes()
        r = run([COORD, "abort"], env=env)
        check(r.returncode == 0 and "abort requested" in r.stdout, f"abort: {r.stdout}{r.stderr}")
        t0 = time.time()
        out, _ = long_run.communicate(timeout=30)
        print(out[-1500:])
        check(long_run.returncode == 1, f"aborted run: exit {long_run.returncode}")
        check("abort requested over the control socket" in out or "aborted" in out, "said")
        # IO stopped on both agents: the files are no longer written
        wait_for(lambda: all("point 0 done" in a.output() for a in agents),
                 "both agents to end the aborted point")
        later = mtimes()
        # no write for 1.5 s: a span of quiet is the witness, there is no event to wait for
        time.sleep(1.5)
        last = mtimes()
        check(later == last, "the agents still write after the abort")
        check(stat != later, "the agents were writing before the abort")
        path = results_of(out)
        check(path and h5status(path) == "aborted", f"results of the aborted run: {path}")
        print(f"aborted within {time.time() - t0:.1f} s")

        # the next run, on the same agent processes, completes
        short = os.path.join(tmp, "short.yaml")
        with open(short, "w") as f:
            f.write(CAMPAIGN.format(name="short", runtime="1s"))
        r = run([COORD, "run", short, "--results", "out"], cwd=tmp, env=env, timeout=60)
        print(r.stderr[-800:])
        check(r.returncode == 0, f"second run: exit {r.returncode}")
        # the summary on stdout, as in-process; progress and log lines on stderr
        check(re.search(r"^point +drive +IOPS", r.stdout, re.M) and
              "\nresults: " in r.stdout and "\nresults: " not in r.stderr,
              f"summary on stdout:\n{r.stdout}\n---\n{r.stderr[-600:]}")
        check("[1/3]" in r.stderr and "[1/3]" not in r.stdout, "progress on stderr")
        path = results_of(r.stderr + r.stdout)
        check(path and h5status(path) == "complete", f"results: {path}")
        with h5py.File(path, "r") as h:
            check(h.attrs["insecure"] in (b"false", "false"), "the run used the service's keys")
            check(len(h["results"]) == 6, f"{len(h['results'])} result rows, want 2 x 3")
        check([a.proc.pid for a in agents] == pids and all(a.proc.poll() is None for a in agents),
              "the same agent processes served both runs")
        r = run([COORD, "status"], env=env)
        check("ended with exit 0" in r.stdout, f"status after: {r.stdout}")
        st = json.loads(run([COORD, "status", "--json"], env=env).stdout)
        check(st["state"] == "idle" and st["exit"] == 0 and st["campaign"] == "short" and
              st["queue"] == [], f"status --json after: {st}")

        # plan --resolve --lock beside the service: it resolves on its agents, writes the lock
        lock = os.path.join(tmp, "short.lock")
        r = run([COORD, "plan", short, "--lock", lock], cwd=tmp, env=env, timeout=60)
        check(r.returncode == 0, f"plan --lock via the service: {r.returncode}\n{r.stderr}")
        check(re.search(r"^sv-a1 +a1/d\.dat +file ", r.stdout, re.M) and
              re.search(r"^sv-a2 +a2/d\.dat +file ", r.stdout, re.M) and
              f"lock: {lock} (2 drive(s)" in r.stdout, f"the resolution on stdout:\n{r.stdout}")
        check(os.path.exists(lock) and "a1/d.dat" in open(lock).read() and
              "a2/d.dat" in open(lock).read(), "the lock file the service wrote")
        check([a.proc.pid for a in agents] == pids, "the same agents, never restarted")

        # Ctrl-C on the submitting client aborts its run on the service
        started = [a.output().count("point 0: ") for a in agents]
        p = subprocess.Popen([COORD, "run", camp, "--results", "out"], cwd=tmp, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # into its first point (the results file exists: a slow build takes a while), which
        # both agents have started
        wait_for(lambda: status_showing("point 1 of 3, results /"), "the run's results file")
        wait_for(lambda: all(a.output().count("point 0: ") > n for a, n in zip(agents, started)),
                 "both agents to start the run's first point")
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=30)
        check(p.returncode == 1, f"Ctrl-C'd client: exit {p.returncode}")
        check(h5status(results_of(out)) == "aborted", "the Ctrl-C'd run is aborted")

        # a bad campaign: the service names the line, exit 2
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(CAMPAIGN.format(name="bad", runtime="1s").replace("rw: randwrite", "rw: nope"))
        r = run([COORD, "run", bad], cwd=tmp, env=env)
        check(r.returncode == 2 and "bad.yaml:" in r.stderr, f"bad campaign: {r.returncode} {r.stderr}")

        # on a terminal, the run followed from the service has the live view: its point and
        # each drive's figures, redrawn in place under the log, gone once it ends
        if shutil.which("tmux"):
            mid = os.path.join(tmp, "mid.yaml")
            with open(mid, "w") as f:
                f.write(CAMPAIGN.format(name="mid", runtime="3s"))
            sock = os.path.join(tmp, "tmux.sock")
            cmd = (f"cd {tmp} && RACKBENCH_CONTROL={ctl} {os.path.abspath(COORD)} run {mid} "
                   "--results out; echo EXIT=$?; sleep 30")
            shots = []

            def ended():
                c = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"],
                                   capture_output=True, text=True).stdout
                if "mid \u00b7 point" in c and "EXIT=" not in c:
                    shots.append(c)
                return "EXIT=" in c

            try:
                subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-x", "160", "-y",
                                "40", "sh", "-c", cmd], check=True)
                wait_for(ended, "the followed run under tmux to end", every=0.5)
                final = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"],
                                       capture_output=True, text=True).stdout
            finally:
                subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
            check("EXIT=0" in final, f"the followed run:\n{final}")
            check(shots and any("sv-a1:a1/d.dat" in x and "sv-a2:a2/d.dat" in x for x in shots),
                  f"the live view's drives: {shots[-1:] or final}")
            check(all(x.count("mid \u00b7 point") == 1 for x in shots),
                  f"the view was not redrawn in place: {shots[-1:]}")
            check("mid \u00b7 point" not in final and "results: " in final,
                  f"after the run, the view gone and the summary there:\n{final}")
    finally:
        for a in agents:
            a.stop()
        serve.send_signal(signal.SIGTERM)
        try:
            sout, _ = serve.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            serve.kill()
            sout, _ = serve.communicate()
    print(sout[-1500:])
    check(serve.returncode == 0, f"service exit {serve.returncode}")
    check(not os.path.exists(ctl), "the control socket is removed")
    r = run([COORD, "status"], env=env)
    check(r.returncode == 1 and "no rackbench service" in r.stderr, f"no service: {r.stderr}")
print("ok")
