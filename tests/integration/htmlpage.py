# SPDX-License-Identifier: MIT
"""The report page as a browser builds it: headless Chromium's DOM of a page, and a
parser of what the report tests look for in it (charts and their series' names and
colours, sections, the drives' table)."""
import html.parser
import os
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
