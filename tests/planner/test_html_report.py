"""The HTML plan report (meta_utils/planner/html.py), checked as a person sees it.

The page is opened in headless Chromium (Debian's ``chromium``; those tests skip where it is
absent): the DOM after rendering, a screenshot (timeline and peak marker drawn in their colours)
and the browser's console (no message at all). The page's one script is the module's own
(sortable tables, zooming the flame graph); nothing taken from the report becomes script.
Each browser check is first shown to fail on a page made to fail it. Escaping, downsampling and the drawn peak are
checked on the page's source.
"""
from __future__ import annotations

import html.parser
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from faketensor.meta_utils.planner.report import human
import faketensor as ft
from faketensor.meta_utils.planner import html as html_mod
from faketensor.meta_utils.planner.html import (MAX_POINTS, SITE_COLOURS, downsample, render_html,
                                        save_html)

# the report and its page are made once, on one worker
pytestmark = pytest.mark.xdist_group("html_report")

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
LINE_RGB = (0x1F, 0x77, 0xB4)  # the timeline's colour in meta_utils/planner/html.py
PEAK_RGB = (0xD6, 0x27, 0x28)  # the peak marker's

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</table></svg><iframe src=javascript:alert(1)>",
    "$\\frac{1}{0}$ \\$ a_b^c",      # matplotlib mathtext if parsed
    "\x1b[31m\x00nul\u202eevil",      # control, NUL, bidi override
    "lone \ud800 surrogate",
    "&amp; &lt;not an entity&gt;",
]


def make_report(n: int = 200_000, *, name: str = "model.py", seed: int = 0) -> dict:
    """A report in the JSON form: a random walk on cpu, a sparser one on cuda:0, a stop."""
    rng = np.random.default_rng(seed)
    cpu = np.cumsum(rng.integers(-1000, 1100, n)).clip(0) * 4096
    gpu = np.cumsum(rng.integers(-500, 520, n // 3)).clip(0) * 512
    timeline = [[i, "cpu", int(v)] for i, v in enumerate(cpu)]
    timeline += [[3 * i, "cuda:0", int(v)] for i, v in enumerate(gpu)]
    timeline.sort(key=lambda t: t[0])
    stack = [{"file": "train.py", "line": 80, "function": "<module>"},
             {"file": name, "line": 42, "function": "forward"}]
    return {
        "version": 1, "status": "data_dependent", "exit_code": 2,
        "stopped_at": {"file": "train.py", "line": 88, "function": "step",
                       "message": "bool() of a fake array needs its value"},
        "devices": {
            "cpu": {"peak_bytes": int(cpu.max()), "live_end_bytes": int(cpu[-1]),
                    "allocated_bytes": int(cpu.sum()),
                    "peak_at": {"file": name, "line": 42, "function": "forward", "stack": stack}},
            "cuda:0": {"peak_bytes": int(gpu.max()), "live_end_bytes": int(gpu[-1]),
                       "allocated_bytes": int(gpu.sum()),
                       "peak_at": {"file": "gpu.py", "line": 7, "function": "k", "stack": []}}},
        "top_sites": [{"file": name, "line": 42, "bytes": 123_456_789, "count": 3},
                      {"file": "data.py", "line": 9, "bytes": 4096, "count": 1}],
        # what is held at the cpu peak by stack, and a short timeline by site
        "_stacks": [{"frames": stack, "complete": True, "bytes": 3 * 2**20, "count": 3},
                    {"frames": [stack[0], {"file": "data.py", "line": 9, "function": "load"}],
                     "complete": True, "bytes": 2**20, "count": 1},
                    {"frames": [{"file": "util.py", "line": 3, "function": "helper"}],
                     "complete": False, "bytes": 2**19, "count": 2}],
        "flops": 10**12,
        "flops_by_line": [{"file": name, "line": 50, "flops": 4 * 10**11},
                          {"file": name, "line": 42, "flops": 6 * 10**11}],
        "ops": n, "timeline": timeline, "wall_s": 1.5,
        "placeholders": [{"file": "train.py", "line": 88, "function": "step",
                          "message": "bool() -> False"}],
    }


def _with_stacks(rep: dict) -> dict:
    """``rep`` with its ``_stacks`` as the cpu device's ``peak_stacks`` and a timeline by site
    (three sites and "other" over four ops)."""
    stacks = rep.pop("_stacks")
    cpu = rep["devices"]["cpu"]
    cpu["peak_stacks"] = stacks
    st = stacks[0]["frames"]
    cpu["site_timeline"] = {
        "sites": [{**st[-1], "stack": st}, {"file": "data.py", "line": 9, "function": "load",
                                            "stack": stacks[1]["frames"]}],
        "ops": [0, 10, 20, 30], "bytes": [[0, 2**20, 3 * 2**20, 3 * 2**20],
                                          [2**20, 2**20, 2**20, 0]],
        "other": [0, 2**19, 2**19, 0]}
    return rep


def peak_label(rep: dict, dev: str = "cpu") -> str:
    d = rep["devices"][dev]
    at = d["peak_at"]
    # the file's base name: the full path is in the devices table
    return (f"peak {human(d['peak_bytes'])} at {os.path.basename(at['file'])}:{at['line']} "
            f"({at['function']})")


class Dom(html.parser.HTMLParser):
    """Elements (tag, attrs) and the text of a page, as a browser's parser sees them."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.chunks: list[str] = []
        self.feed(page)
        self.text = "".join(self.chunks)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.chunks.append(data)


# --- the page's source ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def report() -> dict:
    return _with_stacks(make_report())


@pytest.fixture(scope="module")
def page(report) -> str:
    return render_html(report)


def test_self_contained(page):
    dom = Dom(page)
    tags = {t for t, _ in dom.elements}
    assert not tags & {"link", "img", "iframe", "object", "embed"}
    assert [a for t, a in dom.elements if t == "script"] == [{}]  # one, inline
    assert page.count("<script") == 1 and f"<script>{html_mod._JS}</script>" in page
    for tag, attrs in dom.elements:
        for k, v in attrs.items():
            if k in ("src", "href", "xlink:href"):
                assert v.startswith("#"), (tag, k, v)  # only references inside the page
    assert re.findall(r"url\((?!#)", page) == [] and "@import" not in page


def test_contents(page, report):
    dom = Dom(page)
    assert "status: data_dependent, exit code 2" in dom.text
    assert "stopped at train.py:88 (step): bool() of a fake array needs its value" in dom.text
    peak = report["devices"]["cpu"]["peak_bytes"]
    assert f"({peak:,} B)" in dom.text
    assert peak_label(report) in dom.text  # the SVG's label, as text
    assert peak_label(report, "cuda:0") in dom.text
    assert "117.74 MiB (123,456,789 B)" in dom.text
    # FLOPs per line, largest first, with its share
    assert re.search(r"42\s*600,000,000,000\s*60\.0%\s*model\.py\s*50\s*400,000,000,000\s*40\.0%",
                     dom.text)
    assert "bool() -> False" in dom.text
    assert "train.py:80 (<module>)" in dom.text  # the peak's call stack


def test_large_timeline_is_downsampled(page, report):
    assert len(report["timeline"]) > 250_000
    assert len(page) < 1_000_000
    assert len(_path_points(page, "timeline-cpu")) <= 2 * (MAX_POINTS + 2)  # steps: 2 per point


def test_drawn_peak_is_exact(page):
    """The highest vertex of the drawn line is where the peak marker sits (SVG y grows down)."""
    for dev in ("cpu", "cuda:0"):
        top = min(y for _, y in _path_points(page, f"timeline-{dev}"))
        marker = re.search(rf'<g id="peak-{re.escape(dev)}">.*?<use [^>]*? y="([-\d.]+)"', page,
                           re.S)
        assert abs(float(marker.group(1)) - top) < 0.01, dev


def test_peak_op_places_the_marker():
    """A peak inside an op (its transient buffers) above the timeline, at the op given."""
    rep = {"timeline": [[0, "cpu", 0], [1, "cpu", 100], [2, "cpu", 50], [3, "cpu", 0]],
           "devices": {"cpu": {"peak_bytes": 150, "peak_op": 2,
                               "peak_at": {"file": "a.py", "line": 3, "function": "f"}}}}
    page = render_html(rep)
    xs = sorted({x for x, _ in _path_points(page, "timeline-cpu")})
    top = min(y for _, y in _path_points(page, "timeline-cpu"))
    use = re.search(r'<g id="peak-cpu">.*?<use [^>]*? x="([-\d.]+)" y="([-\d.]+)"', page, re.S)
    assert len(xs) == 4 and abs(float(use.group(1)) - xs[2]) < 0.01
    assert float(use.group(2)) < top - 10  # drawn above the line's highest point
    assert "peak 150 B at a.py:3 (f)" in Dom(page).text


def _path_points(page: str, gid: str) -> list[tuple[float, float]]:
    d = re.search(rf'<g id="{re.escape(gid)}">\s*<path d="([^"]*)"', page).group(1)
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return list(zip(nums[::2], nums[1::2]))


@pytest.mark.parametrize("name", HOSTILE)
def test_strings_are_escaped(name, tmp_path):
    rep = _with_stacks(make_report(300, name=name))
    rep["devices"]["cpu"]["site_timeline"]["sites"][1]["file"] = name
    rep["devices"][name] = dict(rep["devices"]["cpu"])
    rep["timeline"] += [[i, name, 1000 * i] for i in range(10)]
    rep["stopped_at"]["message"] = name
    rep["placeholders"][0]["function"] = name
    page = render_html(rep)
    dom = Dom(page)
    assert [t for t, _ in dom.elements if t in ("img", "iframe")] == []
    assert page.count("<script") == 1 and f"<script>{html_mod._JS}</script>" in page
    assert not any(k.startswith("on") for _, a in dom.elements for k in a)
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e\ud800-\udfff]", page)
    shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in name)
    assert shown in dom.text  # readable in the tables and in the plot's text
    assert peak_label(rep).replace(name, shown) in dom.text
    save_html(rep, tmp_path / "r.html")  # UTF-8 on disk even with a lone surrogate
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == page


def test_minimal_report():
    """Only the keys the HTML page needs; no timeline; a completed run."""
    page = render_html({"version": 1, "status": "completed", "exit_code": 0, "stopped_at": None,
                        "devices": {}, "top_sites": [], "flops": 0, "ops": 0, "timeline": []})
    dom = Dom(page)
    assert "status: completed, exit code 0" in dom.text
    assert "No timeline in this report." in dom.text


def test_inside_a_mode():
    """Drawn with real NumPy even inside FakeMode (a notebook saving a plan within a block)."""
    import faketensor as ft
    rep = make_report(5000)
    with ft.FakeMode() as mode:
        page = render_html(rep)
    assert page == render_html(rep)
    assert mode.memory.peak.get("cpu", 0) == 0  # nothing charged to the mode


def test_without_matplotlib_names_the_extra():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from faketensor.meta_utils.planner.html import render_html\n"
            "try:\n    render_html({'timeline': []})\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'faketensor[report]'" in out.stdout


# --- downsampling ---------------------------------------------------------------------------

def _reference_downsample(x, y, max_points):
    """Bucket by bucket in plain Python: first, last, each bucket's first min and first max."""
    n = len(y)
    k = -(-n // (max_points // 2))
    keep = {0, n - 1}
    for start in range(0, n, k):
        b = y[start:start + k]
        keep.add(start + b.index(max(b)))
        keep.add(start + b.index(min(b)))
    keep = sorted(keep)
    return [x[i] for i in keep], [y[i] for i in keep]


@pytest.mark.parametrize("n,max_points", [(10, 100), (101, 100), (10_007, 100), (99_991, 4000)])
def test_downsample(n, max_points):
    rng = np.random.default_rng(n)
    y = np.cumsum(rng.integers(-5, 6, n)).tolist()
    x = sorted(rng.choice(10 * n, n, replace=False).tolist())
    dx, dy = downsample(x, y, max_points)
    if n <= max_points:
        assert (dx, dy) == (x, y)
        return
    assert (dx, dy) == _reference_downsample(x, y, max_points)
    assert len(dy) <= max_points + 2
    assert max(dy) == max(y) and min(dy) == min(y)
    assert dx[dy.index(max(dy))] == x[y.index(max(y))]


# --- in the browser -------------------------------------------------------------------------

def chromium(args: list[str], page_path, tmp_path) -> subprocess.CompletedProcess:
    """Headless Chromium on ``page_path`` with a fresh profile and nothing fetched."""
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
           "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=1280,1800",
           *args, page_path.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


def console_messages(run: subprocess.CompletedProcess) -> list[str]:
    """The page's console output in Chromium's log (uncaught errors, console.* calls)."""
    return [ln for ln in run.stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]


def screenshot(page_path, tmp_path, size=None):
    from PIL import Image  # matplotlib's own dependency
    png = tmp_path / f"{page_path.stem}.png"
    extra = [f"--window-size={size[0]},{size[1]}"] if size else []
    run = chromium([f"--screenshot={png}", *extra], page_path, tmp_path)
    return np.asarray(Image.open(png).convert("RGB")).astype(int), run


def pixels_of(img, rgb, tol=40) -> int:
    return int((np.abs(img - np.array(rgb)).sum(-1) < tol).sum())


def not_blank(img) -> bool:
    return (img.reshape(-1, 3) != img[0, 0]).any(-1).mean() > 0.02


@pytest.fixture(scope="module")
def page_file(page, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "plan.html"
    path.write_text(page, encoding="utf-8")
    return path


@needs_chromium
def test_browser_dom(page_file, report, tmp_path):
    run = chromium(["--dump-dom"], page_file, tmp_path)
    dom = Dom(run.stdout)
    ids = {a.get("id") for _, a in dom.elements}
    assert {"timeline", "timeline-cpu", "timeline-cuda:0", "peak-cpu", "peak-label-cpu",
            "top-sites", "flops", "status"} <= ids
    assert peak_label(report) in dom.text
    assert console_messages(run) == []


@needs_chromium
def test_browser_screenshot(page_file, tmp_path):
    img, run = screenshot(page_file, tmp_path)
    assert img.shape[:2] == (1800, 1280)
    assert not_blank(img)
    assert pixels_of(img, LINE_RGB) > 2000   # the two timelines are drawn
    assert pixels_of(img, PEAK_RGB) > 200    # the peak markers and their labels
    assert console_messages(run) == []


@needs_chromium
def test_browser_checks_can_fail(tmp_path):
    """Each browser check catches the page made to fail it."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><script>throw new Error("boom")</script></body></html>')
    img, run = screenshot(bad, tmp_path)
    assert any("Uncaught Error: boom" in m for m in console_messages(run))
    assert not not_blank(img)
    assert pixels_of(img, LINE_RGB) == 0
    logged = tmp_path / "logged.html"
    logged.write_text('<html><body><script>console.error("x")</script></body></html>')
    assert console_messages(chromium(["--dump-dom"], logged, tmp_path)) != []


# --- flame graph and timeline by site ---------------------------------------------------------

def _nested(n):
    def inner(k):
        return np.ones((k, 1024))          # 8 KiB a row

    def outer(k):
        return [inner(k), inner(2 * k)]

    keep = outer(n)
    scratch = np.zeros(n * 1024)
    return keep, scratch.sum()


def test_peak_stacks_of_a_plan():
    """peak_stacks sum to the peak, name each frame of the held buffers' stacks outermost
    first, and the timeline by site sums to the timeline at every op kept."""
    p = ft.plan(_nested, 64)
    js = p.to_json()
    cpu = js["devices"]["cpu"]
    stacks = cpu["peak_stacks"]
    assert sum(s["bytes"] for s in stacks) == cpu["peak_bytes"] == p.peak["cpu"]
    fns = {tuple(f["function"] for f in s["frames"]): s for s in stacks}
    nested = [k for k in fns if k[-2:] == ("outer", "inner")]
    assert nested and sum(fns[k]["bytes"] for k in nested) == 3 * 64 * 8192
    assert all(k[0] == "_nested" for k in nested)
    assert all(isinstance(s["complete"], bool) for s in stacks)
    st = cpu["site_timeline"]
    live = {op: b for op, dev, b in js["timeline"] if dev == "cpu"}
    for i, op in enumerate(st["ops"]):
        assert sum(col[i] for col in st["bytes"]) + st["other"][i] == live[op]
    assert {(s["file"], s["line"]) for s in st["sites"]} == {
        (s["file"], s["line"]) for s in js["top_sites"] if s["device"] == "cpu"}


def test_flame_and_site_timeline_from_a_plan():
    page = render_html(ft.plan(_nested, 64).to_json())
    dom = Dom(page)
    assert "inner" in dom.text and "outer" in dom.text
    assert "return np.ones((k, 1024))" in dom.text  # the source line, read at report time
    assert re.search(r'<g id="site-0-0"><title>', page)


def test_flame_tree_marks_unknown_callers(report):
    page = render_html(report)
    flame = re.search(r'<div class="flame" id="flame-0".*?</div></div>', page, re.S).group(0)
    text = Dom(flame).text
    assert "(callers not recorded)" in text and "helper  util.py:3" in text
    assert "model.py:42  3.00 MiB (" in text


def _flame_frames(dom_page: str, index: int = 0) -> list[tuple[int, str, int]]:
    """(depth, label, bytes) of each frame drawn in flame graph ``index`` of a page's DOM."""
    out = []
    texts = re.findall(r'<div class="fr[^"]*" data-d="(\d+)"[^>]*data-bytes="(\d+)"[^>]*>'
                       r'([^<]*)</div>', dom_page.split(f'id="flame-{index}"', 1)[1]
                       .split('class="flame"', 1)[0])
    for depth, b, label in texts:
        out.append((int(depth), html.unescape(label), int(b)))
    return out


@needs_chromium
def test_browser_flame_names_the_peak_stack(tmp_path):
    """In the rendered DOM, the flame graph of a real plan names every frame of the stack
    holding the most at the peak, outermost on top, with its bytes; and the timeline by
    site is drawn stacked, one colour per site (screenshot in the test's folder)."""
    js = ft.plan(_nested, 256).to_json()
    page_path = tmp_path / "flame.html"
    save_html(js, page_path)
    run = chromium(["--dump-dom"], page_path, tmp_path)
    assert console_messages(run) == []
    frames = _flame_frames(run.stdout)
    top = js["devices"]["cpu"]["peak_stacks"][0]
    assert frames[0][0] == 0 and frames[0][2] == js["devices"]["cpu"]["peak_bytes"]
    for depth, f in enumerate(top["frames"], 1):
        drawn = [(lbl, b) for d, lbl, b in frames
                 if d == depth and lbl.startswith(f"{f['function']}  ") and f":{f['line']}" in lbl]
        assert drawn, (depth, f)
        assert any(b >= top["bytes"] and human(b) in lbl for lbl, b in drawn)
    img, run = screenshot(page_path, tmp_path, size=(1280, 3000))
    print(f"screenshot: {tmp_path / 'flame.png'}")
    st = js["devices"]["cpu"]["site_timeline"]
    big = [i for i, col in enumerate(st["bytes"]) if max(col) > 2**20]
    assert len(big) >= 2
    for colour in [SITE_COLOURS[i] for i in big if i]:  # 0's is also the per-device line's
        rgb = tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))
        assert pixels_of(img, rgb, tol=12) > 500, colour


def _mk(n):
    return np.ones(n)


def _partial():
    a = _mk(1000)  # raises the running peak: its whole stack is recorded
    del a
    b = _mk(500)   # below the highest so far: its innermost frame only
    c = _mk(2000)
    return b, c


def test_peak_stacks_say_where_callers_are_unknown():
    stacks = ft.plan(_partial).to_json()["devices"]["cpu"]["peak_stacks"]
    got = sorted((s["complete"], s["bytes"], tuple(f["function"] for f in s["frames"]))
                 for s in stacks)
    # np.ones(2000): its 16,000 B and the 16 B scalar it fills from, alive during the call
    assert got == [(False, 4000, ("_mk",)), (True, 16016, ("_partial", "_mk"))]


@needs_chromium
def test_browser_flame_zoom_and_sort(tmp_path):
    """A click on a frame widens it to the whole graph and hides the frames beside it; a click
    on a numeric header sorts the table by value (the page's script, run by Chromium)."""
    page = render_html(ft.plan(_nested, 256).to_json())
    clicks = ('<script>document.querySelector("#flame-0 .fr[data-d=\\"2\\"]").click();'
              'var th = document.querySelectorAll("#top-sites + table th")[3];'
              'th.click(); th.click();</script>')  # bytes, descending then ascending
    path = tmp_path / "zoom.html"
    path.write_text(page.replace("</body>", clicks + "</body>"), encoding="utf-8")
    run = chromium(["--dump-dom"], path, tmp_path)
    assert console_messages(run) == []
    dom = run.stdout
    frames = re.findall(r'<div class="fr[^"]*" data-d="(\d+)"[^>]*style="([^"]*)"', dom)
    d2 = [st for d, st in frames if d == "2"]
    assert "left: 0%" in d2[0] and "width: 100%" in d2[0]
    d1 = [st for d, st in frames if d == "1"]  # its caller stays, spanning all; the rest hide
    shown = [st for st in d1 if "display: none" not in st]
    assert len(shown) == 1 and "width: 100%" in shown[0] and len(d1) >= 2
    table = dom.split('id="top-sites"', 1)[1].split("</table>", 1)[0]
    sizes = [int(v.replace(",", "")) for v in re.findall(r"\(([\d,]+) B\)", table)]
    assert len(sizes) >= 2 and sizes == sorted(sizes)
    assert 'aria-sort="ascending"' in table


# --- several devices, findings in the flame graph, labels that meet nothing -----------------

def _gpu_part(n):
    import cupy
    x = cupy.ones((n, 1024), np.float32)
    y = cupy.exp(x) * np.float64(2.0)          # an upcast: a finding on this line
    return cupy.matmul(y, y.T)


def _cpu_part(n):
    a = np.ones((n, 512))
    return a @ a.T


def _two_devices(n):
    keep = _cpu_part(n)
    return keep, _gpu_part(n)


@pytest.fixture(scope="module")
def two_devices() -> dict:
    """The report of a plan on the CPU and a CUDA fake (no GPU needed)."""
    pytest.importorskip("cupy")
    return ft.plan(_two_devices, 512).to_json()


def _marked(page: str) -> list[str]:
    """The ids of the flame graph frames marked with finding 0."""
    return re.findall(r'<div class="fr[^"]*finding[^"]*" data-d="\d+" id="([\w-]+)"'
                      r'[^>]*data-findings="0"', page)


def test_each_device_has_its_flame_graph_and_stacked_panel(two_devices):
    """A plan on two devices: a flame graph each, rooted at that device's peak, and a panel
    each in the timeline by site with its own peak line and label; the finding's line is
    marked in the flame graph of the device it ran on, and linked from the findings table."""
    js = two_devices
    assert list(js["devices"]) == ["cpu", "cuda:0"]
    page = render_html(js)
    ids = {a.get("id") for _, a in Dom(page).elements}
    for i, (dev, d) in enumerate(js["devices"].items()):
        frames = _flame_frames(page, i)
        assert frames[0] == (0, f"{dev}: {human(d['peak_bytes'])} held at the peak",
                             d["peak_bytes"])
        assert {f"flame-{i}-detail", f"site-{i}-0", f"site-peak-{i}", f"site-peak-label-{i}",
                f"site-name-{i}"} <= ids
    (finding,) = js["findings"]
    assert finding["kind"] == "upcast" and finding["function"] == "_gpu_part"
    marked = _marked(page)
    assert marked and all(m.startswith("flame-1-") for m in marked)
    assert [b for _, lbl, b in _flame_frames(page, 1) if lbl.startswith("\u26a0")] == [
        3 * 2**21]  # y and exp(x), float64 and float32, held at the peak: three quarters
    row = page.split('<tr id="finding-0">', 1)[1].split("</tr>", 1)[0]
    assert [f'href="#{m}"' in row for m in marked] == [True] * len(marked)
    at = f"test_html_report.py:{finding['line']}"
    assert f"\u26a0 _gpu_part  {at}" in Dom(page).text
    # the site at that line: marked in the timeline by site, linked from the sites table
    assert f"\u26a0 {at} (_gpu_part)" in Dom(page.split('id="site-timeline"', 1)[1]).text
    sites = page.split('id="top-sites"', 1)[1].split("</table>", 1)[0]
    assert re.search(rf'<td class="n">{finding["line"]}</td>.*?'
                     r'<a href="#finding-0">upcast</a></td></tr>', sites)
    assert sites.count('href="#finding-') == 1
    plain = render_html({**js, "findings": []})
    assert not _marked(plain) and "\u26a0 test_html" not in plain
    assert 'href="#finding-' not in plain


#: run after the page's own script: every peak label's box against every other text, each
#: axes' area and each legend of its figure; the meetings found, as JSON in <pre id="overlaps">
OVERLAPS_JS = """<script>(function () {
  function meet(a, b) { return a.left < b.right && b.left < a.right &&
                               a.top < b.bottom && b.top < a.bottom; }
  var out = [], labels = 0;
  document.querySelectorAll("svg").forEach(function (svg) {
    var texts = svg.querySelectorAll("text");
    var areas = svg.querySelectorAll('g[id^="axes_"] > g[id^="patch_"]:first-child, g[id^="legend_"]');
    svg.querySelectorAll('g[id*="peak-label"]').forEach(function (g) {
      var box = g.getBoundingClientRect();
      labels++;
      if (!box.width) out.push(g.id + " is not drawn");
      texts.forEach(function (t) {
        if (!g.contains(t) && meet(box, t.getBoundingClientRect()))
          out.push(g.id + " meets text " + t.textContent);
      });
      areas.forEach(function (a) {
        if (meet(box, a.getBoundingClientRect())) out.push(g.id + " meets " + a.id);
      });
    });
  });
  var pre = document.createElement("pre");
  pre.id = "overlaps";
  pre.textContent = JSON.stringify({labels: labels, meetings: out});
  document.body.appendChild(pre);
})();</script>"""


def overlaps(page: str, tmp_path, name: str = "overlaps") -> tuple[int, list[str]]:
    """(peak labels drawn, what they meet) in ``page`` as Chromium lays it out."""
    import json
    path = tmp_path / f"{name}.html"
    path.write_text(page.replace("</body>", OVERLAPS_JS + "</body>"), encoding="utf-8")
    run = chromium(["--dump-dom"], path, tmp_path)
    assert console_messages(run) == []
    found = json.loads(html.unescape(
        run.stdout.split('<pre id="overlaps">', 1)[1].split("</pre>", 1)[0]))
    return found["labels"], found["meetings"]


def _long_names(rep: dict) -> dict:
    """``rep`` with a device named at length and a peak at a long path: titles that would
    meet in a panel's width unless shortened."""
    long = "cuda:0 " + "a very long device description " * 4
    rep = {**rep, "timeline": [[op, long if d == "cuda:0" else d, b]
                               for op, d, b in rep["timeline"]]}
    devs = dict(rep["devices"])
    gpu = dict(devs.pop("cuda:0"))
    gpu["peak_at"] = {**gpu["peak_at"], "file": "/" + "deep/" * 30 + "gpu_kernels.py",
                      "function": "a_function_with_a_rather_long_name_too"}
    gpu["site_timeline"] = devs["cpu"]["site_timeline"]
    rep["devices"] = {**devs, long: gpu}
    return rep


@needs_chromium
def test_browser_peak_labels_meet_nothing(two_devices, tmp_path, monkeypatch):
    """Every peak label (live memory per device, timeline by site) is drawn and meets no other
    text, no plot area and no legend, also with long device names and paths; the check
    finds the meeting on the same page drawn without shortening the titles."""
    long = _long_names(_with_stacks(make_report(2000)))
    for i, rep in enumerate([two_devices, long]):
        n, met = overlaps(render_html(rep), tmp_path, f"ok{i}")
        assert n == 2 * len(rep["devices"]) and met == [], met
    monkeypatch.setattr(html_mod, "MAX_TITLE", 10**6)
    monkeypatch.setattr(html_mod, "MAX_PEAK_LABEL", 10**6)
    n, met = overlaps(render_html(long), tmp_path, "bad")
    assert any("meets text cuda:0 a very long" in m for m in met), met


@needs_chromium
def test_browser_finding_zooms_to_its_frame(two_devices, tmp_path):
    """A click on a finding's link in the table zooms the flame graph to the frame at its line,
    outlines it and shows its details (bytes, the source line, the finding) under the
    graph (screenshot in the test's folder)."""
    page = render_html(two_devices)
    (target,) = re.findall(r'<tr id="finding-0">.*?data-frame="([\w-]+)"', page, re.S)[:1]
    click = '<script>document.querySelector("#finding-0 a.goto").click();</script>'
    path = tmp_path / "finding.html"
    path.write_text(page.replace("</body>", click + "</body>"), encoding="utf-8")
    run = chromium(["--dump-dom"], path, tmp_path)
    assert console_messages(run) == []
    dom = run.stdout
    frame = re.search(rf'<div class="([^"]*)" data-d="\d+" id="{target}"[^>]*style="([^"]*)"',
                      dom)
    assert frame and "hl" in frame.group(1).split() and "finding" in frame.group(1).split()
    assert "left: 0%" in frame.group(2) and "width: 100%" in frame.group(2)  # was 75%
    detail = html.unescape(dom.split('id="flame-1-detail">', 1)[1].split("</pre>", 1)[0])
    assert "y = cupy.exp(x) * np.float64(2.0)" in detail
    assert "finding: upcast: np.multiply widened float32 to float64" in detail
    untouched = html.unescape(dom.split('id="flame-0-detail">', 1)[1].split("</pre>", 1)[0])
    assert untouched == "Click a bar for its details."
    img, run = screenshot(path, tmp_path, size=(1280, 2400))
    print(f"screenshot: {tmp_path / 'finding.png'}")
    assert not_blank(img) and console_messages(run) == []
