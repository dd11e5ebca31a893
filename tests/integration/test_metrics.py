# SPDX-License-Identifier: MIT
"""`rackbench serve --metrics`: a real Prometheus scrapes the page during a real run.

A service with --metrics on a free port, two file agents (three drives), and a Prometheus
server (Debian's) scraping the page twice a second into a database in the test's folder.
A campaign with 1 s sample intervals runs one pass of randrw over each drive (rate-
limited so the two cores keep up): two drives of 36 MiB take about 6 s, one of 3 MiB
finishes in its first half second. During the run the page has both agents connected
and every drive, with its agent's labels, and `promtool check metrics` accepts it; every
metric name the Grafana dashboard (deploy/grafana-rackbench.json) queries is on it.
Afterwards Prometheus's HTTP API (query_range) gives each drive's IOPS series, by its
agent and path (its serial label as the drives table has it), with the interval each
scrape saw and whether the drive ran: each value of a running drive is that interval's
IOs in the HDF5 `samples` table (both directions) over the interval's own length (from
the interval before's end), scraped within a few intervals of that interval's end; the
drive that finished early reads 0 within one interval of its end while the others run,
so the sum over drives is the running drives' alone. The page's samples counter is the
number of rows in the table once the run ends, and its verdicts (rackbench_drive_verdict)
are the rows of the file's verdicts table, each drive's by its agent and path, in
Prometheus too.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request

from rbtest import COORD, SRC, Tmp, check, fail, file_agents, free_port, h5, run, skip, wait_for

PROM = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
if not PROM or not PROMTOOL:
    skip("needs Prometheus and promtool (Debian's prometheus package)")
h5py = h5()

INTERVAL_S = 1.0
CAMPAIGN = """name: metrics
insecure: true
destructive: true
wait: 20s
defaults: {interval: 1s, rate_iops: 1500}
verdict: {max_p99: 10s}
targets:
  - agent: mx-a1
    drives: [a1/disk0.dat, a1/disk1.dat]
  - agent: mx-a2
    drives: [a2/disk0.dat]
phases:
  - workload: {rw: randrw, bs: 4k, passes: 1}
"""
# one pass over each drive: the small one ends in its first interval, the others run on
SIZES = {"a1/disk0.dat": 3 << 20, "a1/disk1.dat": 36 << 20, "a2/disk0.dat": 36 << 20}
PROM_CONFIG = """global:
  scrape_interval: 500ms
  scrape_timeout: 400ms
scrape_configs:
  - job_name: rackbench
    static_configs:
      - targets: ['127.0.0.1:{port}']
"""


def get(url, timeout=5):
    """(status, body) of a GET; an HTTP error's status and body too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return None, ""


def series_lines(page, name):
    """The sample lines of metric name on a page: [(labels dict, value)]."""
    out = []
    for line in page.splitlines():
        m = re.match(r"^" + name + r"(\{(.*)\})? (\S+)$", line)
        if m:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
            out.append((labels, float(m.group(3))))
    return out


def query_range(prom, query, start, end):
    """A range query stepping at half the scrape interval, so that every scrape is the
    latest at some step: no sample is skipped, whatever the scrapes' jitter."""
    q = urllib.parse.urlencode({"query": query, "start": f"{start:.3f}", "end": f"{end:.3f}",
                                "step": "0.25"})
    status, body = get(f"{prom}/api/v1/query_range?{q}")
    check(status == 200, f"query_range {query}: HTTP {status}: {body[:300]}")
    doc = json.loads(body)
    check(doc.get("status") == "success", f"query_range {query}: {body[:300]}")
    return doc["data"]["result"]


def dashboard_metrics():
    """Every rackbench_ metric name the dashboard's queries use."""
    with open(os.path.join(SRC, "deploy", "grafana-rackbench.json")) as f:
        dash = json.load(f)
    # the Prometheus panels' (the fleet page's are SQL: test_results_db_report.py runs them)
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", []) if "expr" in t]
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        exprs.append(q["query"] if isinstance(q, dict) else str(q or ""))
    names = set()
    for e in exprs:
        names |= set(re.findall(r"rackbench_[a-z0-9_]+", e))
    return names


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


with Tmp() as tmp:
    ctl = os.path.join(tmp, "ctl", "control")
    logs = os.path.join(tmp, "logs")
    out = os.path.join(tmp, "out")
    for d in (logs, out):
        os.makedirs(d)
    ep = f"tcp://127.0.0.1:{free_port()}"
    mport, pport = free_port(), free_port()
    page_url = f"http://127.0.0.1:{mport}/metrics"
    prom_url = f"http://127.0.0.1:{pport}"
    svc = subprocess.Popen([COORD, "serve", "--insecure", "--listen", ep, "--control", ctl,
                            "--log-dir", logs, "--results", out,
                            "--metrics", f"127.0.0.1:{mport}"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    agents, prom = [], None
    try:
        wait_for(lambda: os.path.exists(ctl), "the service's control socket", timeout=20)
        status, body = get(f"http://127.0.0.1:{mport}/nothing")
        check(status == 404, f"another path: HTTP {status}")
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write(PROM_CONFIG.replace("{port}", str(mport)))
        prom = subprocess.Popen([PROM, f"--config.file={tmp}/prometheus.yml",
                                 f"--storage.tsdb.path={tmp}/tsdb",
                                 f"--web.listen-address=127.0.0.1:{pport}", "--log.level=warn"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for path, size in SIZES.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(tmp, path), "wb") as f:
                f.write(os.urandom(size))
        agents = file_agents(ep, tmp, "mx", extra=("--label", "rack=r12", "--label", "slot=4"))

        def connected():
            st, page = get(page_url)
            ok = {l.get("agent") for l, v in series_lines(page, "rackbench_agent_connected")
                  if v == 1}
            return st == 200 and {"mx-a1", "mx-a2"} <= ok
        wait_for(connected, "both agents connected on the metrics page", timeout=20)
        wait_for(lambda: get(f"{prom_url}/-/ready")[0] == 200, "Prometheus to be ready",
                 timeout=30, every=0.2)

        def scraped():
            q = urllib.parse.urlencode({"query": 'up{job="rackbench"}'})
            st, body = get(f"{prom_url}/api/v1/query?{q}")
            res = json.loads(body)["data"]["result"] if st == 200 else []
            return res and res[0]["value"][1] == "1"
        # its discovery hands the target to the scrapers a few seconds after it starts
        wait_for(scraped, "Prometheus's first scrape of the page", timeout=30, every=0.2)

        with open(os.path.join(tmp, "metrics.yaml"), "w") as f:
            f.write(CAMPAIGN)
        t0 = time.time() - 1
        client = subprocess.Popen([COORD, "run", "--control", ctl,
                                   os.path.join(tmp, "metrics.yaml")],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        # during the run: every drive on the page, the page as promtool wants it
        def with_drives():
            st, page = get(page_url)
            got = {(l["agent"], l["path"]) for l, _ in
                   series_lines(page, "rackbench_drive_ios_per_second")}
            return page if st == 200 and len(got) == 3 else None
        page = wait_for(with_drives, "the three drives' IOPS on the page", timeout=30,
                        every=0.2)
        print(page)
        r = subprocess.run([PROMTOOL, "check", "metrics"], input=page, capture_output=True,
                           text=True, timeout=30)
        print("promtool:", r.returncode, r.stdout, r.stderr)
        check(r.returncode == 0, f"promtool check metrics: {r.stdout} {r.stderr}")
        check(series_lines(page, "rackbench_run_active") == [({}, 1.0)], "a run is active")
        check(len(series_lines(page, "rackbench_run_info")) == 1, "the run's info line")
        check({l["agent"]: v for l, v in series_lines(page, "rackbench_agent_connected")}
              == {"mx-a1": 1, "mx-a2": 1}, "both agents connected during the run")
        on_page = set(re.findall(r"^# TYPE (rackbench_\w+) ", page, re.M))
        used = dashboard_metrics()
        check(used, "the dashboard queries rackbench metrics")
        missing = used - on_page
        check(not missing, f"the dashboard queries metrics the page lacks: {sorted(missing)}")
        for name in ("rackbench_drive_bytes_per_second", "rackbench_drive_latency_p99_seconds",
                     "rackbench_drive_latency_mean_seconds", "rackbench_drive_io_errors_total",
                     "rackbench_drive_running"):
            check(len(series_lines(page, name)) == 3, f"{name} for each drive")
        for labels, _ in series_lines(page, "rackbench_drive_ios_per_second"):
            check(labels.get("rack") == "r12" and labels.get("slot") == "4",
                  f"a drive's series carries its agent's labels: {labels}")

        co, ce = client.communicate(timeout=120)
        print(ce)
        check(client.returncode == 0, f"the run: exit {client.returncode}")
        results = re.search(r"results: (\S+\.h5)", co + ce).group(1)
        time.sleep(2.5)  # the last scrapes, then the drives' series end
        t1 = time.time()
        st, after = get(page_url)
        check(series_lines(after, "rackbench_run_active") == [({}, 0.0)], "no run after it")
        check(not series_lines(after, "rackbench_drive_ios_per_second"),
              "no drive figures once the run ended")

        # the HDF5 file: each drive's IOs per interval, both directions added, and when
        # its part of the point ended
        with h5py.File(results, "r") as h:
            drives = {int(d["drive"]): (s(d["agent"]), s(d["path"]), s(d["serial"]))
                      for d in h["drives"][:]}
            samples = h["samples"][:]
            ended = {int(r["drive"]): int(r["end_ns"]) / 1e9 for r in h["results"][:]}
        per = {}
        for row in samples:
            key = (int(row["drive"]), int(row["interval"]))
            ios, end = per.get(key, (0, 0))
            per[key] = (ios + int(row["ios"]), max(end, int(row["t_ns"])))

        def length(di, iv):
            """An interval's own length: from the interval before's end (a point's last
            ends at its last IO), the nominal one for the first."""
            if iv == 0 or (di, iv - 1) not in per:
                return INTERVAL_S
            return min((per[(di, iv)][1] - per[(di, iv - 1)][1]) / 1e9, INTERVAL_S)
        # the run's verdicts: the file's verdicts table, row for row, each drive named
        with h5py.File(results, "r") as h:
            want = sorted((drives[int(v["drive"])][0], drives[int(v["drive"])][1],
                           s(v["rule"]), s(v["verdict"])) for v in h["verdicts"][:])
        got = sorted((l["agent"], l["path"], l["rule"], l["verdict"])
                     for l, v in series_lines(after, "rackbench_drive_verdict") if v == 1)
        check(len(want) >= 3 and got == want,
              f"the page's verdicts {got} are the file's {want}")
        for l, _ in series_lines(after, "rackbench_drive_verdict"):
            check(l.get("campaign") == "metrics" and l.get("rack") == "r12" and l.get("run"),
                  f"a verdict's series carries its campaign, run and rack: {l}")
        q = urllib.parse.urlencode({"query": 'rackbench_drive_verdict{rule="drive"}'})
        wait_for(lambda: len(json.loads(get(f"{prom_url}/api/v1/query?{q}")[1])["data"]
                             ["result"]) == 3, "the three drives' verdicts in Prometheus",
                 timeout=10, every=0.2)
        total = series_lines(after, "rackbench_samples_total")
        check(total == [({}, float(len(samples)))],
              f"the samples counter {total} is the table's {len(samples)} rows")

        iops = query_range(prom_url, "rackbench_drive_ios_per_second", t0, t1)
        ivs = query_range(prom_url, "rackbench_drive_sample_interval", t0, t1)
        runs = query_range(prom_url, "rackbench_drive_running", t0, t1)
        check(len(iops) == 3 and len(ivs) == 3 and len(runs) == 3,
              f"three drives in Prometheus: {iops} {ivs} {runs}")
        small = [di for di, (a, p, _) in drives.items() if p == "a1/disk0.dat"][0]
        last_end = max(ended.values())
        zeros = {}  # the small drive's steps after its end while the others run: its value
        for di, (agent, path, serial) in drives.items():
            def mine(res):
                got = [r for r in res if r["metric"].get("agent") == agent
                       and r["metric"].get("path") == path]
                check(len(got) == 1, f"one series of {agent}:{path}: {res}")
                return got[0]
            si, sv, sr = mine(iops), mine(ivs), mine(runs)
            check(si["metric"].get("serial", "") == serial,
                  f"{agent}:{path}: serial label {si['metric'].get('serial')!r}, drives table "
                  f"{serial!r}")
            check(si["metric"].get("host"), f"{agent}:{path} has its host label")
            at = {float(t): int(float(v)) for t, v in sv["values"]}
            running = {float(t): float(v) for t, v in sr["values"]}
            seen = set()
            for t, v in si["values"]:
                t, v = float(t), float(v)
                iv = at.get(t)
                check(iv is not None and t in running, f"{agent}:{path}: no interval at {t}")
                check((di, iv) in per, f"{agent}:{path}: interval {iv} is not in the file")
                # its last interval heard, handed on (a second at most) and scraped
                if di == small and ended[di] + 2 * INTERVAL_S < t < last_end - 0.5:
                    zeros[t] = (v, running[t])
                if not running[t]:
                    check(v == 0, f"{agent}:{path} at {t}: {v} IOPS while not running")
                    continue
                ios, end_ns = per[(di, iv)]
                want = ios / length(di, iv)
                check(abs(v - want) <= 1e-9 * max(1.0, want),
                      f"{agent}:{path} interval {iv}: Prometheus {v} IOPS, the file {want}")
                lag = t - end_ns / 1e9
                check(-0.5 <= lag <= 4 * INTERVAL_S + 1,
                      f"{agent}:{path} interval {iv} scraped {lag:.2f} s after its end")
                seen.add(iv)
            n = len({iv for d, iv in per if d == di})
            print(f"{agent}:{path}: Prometheus saw intervals {sorted(seen)} of {n}")
            # most intervals: under load (TSan, two tests on two cores) an agent's samples
            # may come two at once, and the page shows the latest
            if di != small:
                check(len(seen) >= n // 2,
                      f"{agent}:{path}: only {len(seen)} of {n} intervals")
        # the drive that finished reads 0 within an interval (and a scrape) of its end, while
        # the others still run: a sum over the drives is theirs alone
        print(f"the small drive ended {last_end - ended[small]:.1f} s before the others; "
              f"after it: {sorted(zeros.items())}")
        check(zeros, "no scrape of the small drive between its end and the others'")
        check(all(v == 0 and r == 0 for v, r in zeros.values()),
              f"the finished drive does not read 0: {zeros}")
        totals = query_range(prom_url, "sum(rackbench_drive_ios_per_second)", t0, t1)
        alive = query_range(prom_url, "sum(rackbench_drive_ios_per_second and "
                            "rackbench_drive_running == 1)", t0, t1)
        by_t = {float(t): float(v) for t, v in alive[0]["values"]} if alive else {}
        for t, v in totals[0]["values"]:
            if float(t) in zeros:
                check(float(v) == by_t.get(float(t), 0.0),
                      f"at {t} the total {v} is not the running drives' {by_t.get(float(t))}")
    finally:
        if prom:
            prom.terminate()
            po = prom.communicate(timeout=30)[0].decode(errors="replace")
            if po.strip():
                print(po[-2000:])
        for a in agents:
            a.stop()
        svc.send_signal(signal.SIGTERM)
        print(svc.communicate(timeout=30)[0].decode(errors="replace")[-3000:])
print("ok")
