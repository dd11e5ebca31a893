# SPDX-License-Identifier: MIT
"""The report page as a browser builds it: headless Chromium's DOM of a page, and a
parser of what the report tests look for in it (charts and their series' names and
colours, sections, the drives' table); what a person sees of each chart, as Chromium laid
it out (probe()); a screenshot of each kind of chart (keep_charts())."""
import base64
import html.parser
import json
import os
import re
import shutil
import subprocess

from rbtest import COORD, check

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# where a page and its screenshot are kept for people to look at (CI's artifacts)
ARTIFACTS = os.environ.get("RB_ARTIFACTS") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(COORD))), "artifacts")


class Charts(html.parser.HTMLParser):
    """Every <svg class="chart">: its kind and its series' names; each series' colours;
    the sections (data-section) in order; the drives' table rows."""

    def __init__(self):
        super().__init__()
        self.charts, self.cur, self.drive_rows, self.in_drives = [], None, 0, False
        self.colours = {}  # series name: the colours it was drawn in
        self.sections = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("data-section"):
            self.sections.append(a["data-section"])
        if tag == "svg" and a.get("class") == "chart":
            self.cur = {"kind": a.get("data-chart"), "series": []}
            self.charts.append(self.cur)
        elif tag == "g" and a.get("class") == "series" and self.cur is not None:
            self.cur["series"].append(a.get("data-series"))
            self.colours.setdefault(a.get("data-series"), set()).add(a.get("data-colour"))
        elif tag == "table":
            self.in_drives = a.get("class") == "drives"
        elif tag == "tr" and self.in_drives:
            self.drive_rows += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None
        elif tag == "table":
            self.in_drives = False


def render(page, tmp, shot=None):
    """The DOM Chromium built from the page (or a screenshot of it), and its console
    lines."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
            "--v=0", f"--user-data-dir={os.path.join(tmp, 'chromium')}"]
    if shot:
        args += [f"--screenshot={shot}", "--window-size=1280,6000"]
    else:
        args += ["--dump-dom"]
    r = subprocess.run(args + [f"file://{page}"], capture_output=True, text=True, timeout=120)
    console = [x for x in r.stderr.splitlines() if ":CONSOLE(" in x]
    return r, console


def keep(page, tmp, name):
    """A screenshot of the page and the page itself, as NAME.png and NAME.html among the
    artifacts."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    shot = os.path.join(ARTIFACTS, f"{name}.png")
    r, _ = render(page, tmp, shot)
    check(r.returncode == 0 and os.path.getsize(shot) > 10000, f"screenshot: {r.returncode}")
    shutil.copy(page, os.path.join(ARTIFACTS, f"{name}.html"))
    print(f"screenshot: {shot}")


# Run in a copy of the page (the page itself has no script): what Chromium laid out and
# painted, written into the DOM as base64 JSON for --dump-dom. Boxes are [left, top, right,
# bottom] in CSS pixels; colours are the computed ones (getComputedStyle), not the CSS text.
PROBE_JS = r"""
(function () {
  function box(e) { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }
  const charts = [];
  for (const svg of document.querySelectorAll("svg.chart")) {
    const fig = svg.closest("figure"), cell = svg.closest(".cell");
    const cap = fig ? fig.querySelector("figcaption") : null;
    const texts = [], series = [], legend = [];
    for (const t of svg.querySelectorAll("text")) {
      const cs = getComputedStyle(t);
      texts.push({cls: t.getAttribute("class") || "", text: t.textContent, box: box(t),
                  fill: cs.fill, stroke: cs.stroke, opacity: cs.opacity,
                  series: t.closest("g.series") ? t.closest("g.series").dataset.series : null});
    }
    for (const g of svg.querySelectorAll("g.series")) {
      series.push({name: g.dataset.series,
                   points: [...g.querySelectorAll("circle, path.peak")].map(box),
                   values: [...g.querySelectorAll("circle > title, path.peak > title")]
                     .map(x => x.textContent)});
    }
    if (fig) {
      for (const s of fig.querySelectorAll(".legend > span")) {
        const sw = s.querySelector("i, svg, line"), ln = s.querySelector("line");
        const cs = sw ? getComputedStyle(ln || sw) : null;
        legend.push({text: s.textContent, swatch: cs ? [cs.backgroundColor, cs.borderTopStyle,
          cs.borderTopColor, cs.stroke, cs.strokeDasharray].join(" ") : ""});
      }
    }
    charts.push({kind: svg.dataset.chart, box: box(svg), figure: fig ? box(fig) : null,
                 cell: cell ? box(cell) : null, texts: texts, series: series, legend: legend,
                 grid: [...svg.querySelectorAll("line.grid")].map(box),
                 caption: cap ? {text: cap.textContent, box: box(cap), sw: cap.scrollWidth,
                                 cw: cap.clientWidth} : null});
  }
  const out = {title: document.title,
               h1: document.querySelector("h1") ? document.querySelector("h1").textContent : "",
               charts: charts};
  const pre = document.createElement("pre");
  pre.id = "rb-probe";
  pre.textContent = btoa(unescape(encodeURIComponent(JSON.stringify(out))));
  document.body.appendChild(pre);
})();
"""

# Run in a copy of the page: only the first chart of KIND left on it (the whole grid for
# the read/write test grid's cells), for a screenshot of that chart alone.
ONLY_JS = r"""
(function () {
  const svg = document.querySelector('svg.chart[data-chart="%s"]');
  const el = svg.closest('[data-chart="test-grid"]') || svg.closest("figure") || svg;
  document.body.replaceChildren(el);
})();
"""


def _with_script(page, tmp, name, js):
    """A copy of the page in tmp with js run at the end of its body."""
    text = open(page, encoding="utf-8").read()
    out = os.path.join(tmp, name)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", f"<script>{js}</script></body>", 1))
    return out


def probe(page, tmp, width=1280):
    """What Chromium laid out, in a window width CSS pixels wide: {title, h1, charts}, each
    chart {kind, box, figure, cell, caption, texts, series, legend, grid} (PROBE_JS)."""
    copy = _with_script(page, tmp, "probe.html", PROBE_JS)
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--user-data-dir={os.path.join(tmp, 'chromium')}", f"--window-size={width},2000",
            "--dump-dom", f"file://{copy}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="rb-probe">([A-Za-z0-9+/=]+)</pre>', r.stdout)
    check(r.returncode == 0 and m, f"probe: chromium {r.returncode}\n{r.stderr[-2000:]}")
    return json.loads(base64.b64decode(m.group(1)).decode("utf-8"))


def inside(inner, outer, slack=0.5):
    """Whether box inner lies within box outer (to slack pixels)."""
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack and
            inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


def overlap(a, b):
    """Whether boxes a and b overlap (by more than a hair)."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def keep_charts(page, tmp, name, seen=None):
    """A screenshot of the first chart of each kind on the page, alone, as NAME-KIND.png
    among the artifacts; returns {kind: path}. seen: probe()'s answer, if made already."""
    seen = seen or probe(page, tmp)
    os.makedirs(ARTIFACTS, exist_ok=True)
    shots = {}
    for c in seen["charts"]:
        kind = c["kind"]
        if kind in shots:
            continue
        height = int((c["figure"] or c["box"])[3] - (c["figure"] or c["box"])[1])
        if kind == "test-grid-cell":
            height = int(max(x["box"][3] for x in seen["charts"] if x["kind"] == kind) -
                         c["box"][1]) + 40
        copy = _with_script(page, tmp, f"only-{kind}.html", ONLY_JS % kind)
        shot = os.path.join(ARTIFACTS, f"{name}-{kind}.png")
        if os.path.exists(shot):
            os.unlink(shot)
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars",
                            f"--user-data-dir={os.path.join(tmp, 'chromium')}",
                            f"--screenshot={shot}", f"--window-size=1280,{height + 60}",
                            f"file://{copy}"], capture_output=True, text=True, timeout=120)
        # a chart drawn: more than a blank window's few hundred bytes of PNG
        check(r.returncode == 0 and os.path.exists(shot) and os.path.getsize(shot) > 3000,
              f"screenshot of a {kind} chart: {r.returncode} {r.stderr[-1000:]}")
        shots[kind] = shot
    print(f"screenshots: {', '.join(sorted(os.path.basename(x) for x in shots.values()))}")
    return shots
