"""The live estimate in a real browser: a chapter of the offline book, opened from file:// in
headless Chromium (Debian's `chromium`), driven over the DevTools protocol (websocket-client, pinned
in requirements.txt).  The test changes one parameter, chooses a public machine (the chooser must offer every
public and contributed machine), loads a measurement file the book does not
ship through the page's file input (DOM.setFileInputFiles, as a reader choosing the file), reads
each step's total, low and high from the page, and compares them with `costbook estimate` run
in-process on the same file and parameters.  The page must request nothing but file: and data: URLs
and raise no script error.  This machine's file, which the page embeds, has markup in its name and
its machine: the widget must still load, and the page show those words as text.

Then every chapter with a live estimate is read as a reader reads it: each step of the live table
is named in words, as a table of the scheme's own chapter names it (a cell, or a table's caption),
never by its key, under a heading of the model that prices it; the what-if plot runs along the
parameter of the chapter's own what-if figure and draws at least one line that moves; every
parameter the plot offers moves some line; no two lines of a plot share a colour.
"""
from __future__ import annotations

import functools
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from costbook.views import machines
from costbook import schemes
from costbook.book.render import render_book

from test_live_pricing import bridged_machine, cli_steps, reader_machine

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")

SCHEME, OPTION, VALUE = "veccom", "n", 4096        # the chapter, the parameter changed and its new value


class Page:
    """One Chromium tab over the DevTools protocol: send a command, wait for its answer, keep events."""

    def __init__(self, ws_url: str):
        import websocket
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def send(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def js(self, expression: str):
        got = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in got:
            raise RuntimeError(f"{expression[:60]}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0):
        """The expression's value once it is truthy, polled in the page every 10 ms (an error in it
        fails the test at once, as from js()); an AssertionError after `timeout` seconds."""
        value = self.js(f"""new Promise(resolve => {{
            const end = performance.now() + {1000 * timeout};
            const poll = () => {{ const v = ({expression});
                                  if (v || performance.now() > end) resolve(v); else setTimeout(poll, 10); }};
            poll(); }})""")
        if not value:
            raise AssertionError(f"timed out waiting for {expression}")
        return value


#: markup in this machine's file, which the page embeds and names: each would set window.hostile
HOSTILE_NAME = "this-machine-test x<!--<script> <img src=x onerror=window.hostile=1>"
HOSTILE_CPU = "$\\href{javascript:window.hostile=2}{cpu}$ <img src=x onerror=window.hostile=3>"


def this_machine() -> dict:
    """The file `make book` would have measured: another scaling of the reference, another name (with
    markup in it and in its machine, which the page must show as text)."""
    data = reader_machine()
    data["name"] = HOSTILE_NAME
    data["provenance"] = {**data["provenance"], "machine": {"cpu": HOSTILE_CPU, "cores": 2}}
    for entries in data["results"].values():
        for e in entries.values():
            for f in ("median", "q1", "q3", "mad", "low", "high", "min"):
                if f in e:
                    e[f] = e[f] * 1.7
    return data


@pytest.fixture(scope="module")
def book_pages(tmp_path_factory) -> list:
    """Every page of the offline book, rendered as `make book` renders it after measuring."""
    out = tmp_path_factory.mktemp("book")
    here = out / "this-machine.json"
    here.write_text(json.dumps(this_machine()))
    old = os.environ.get("COSTBOOK_MEASUREMENTS")
    os.environ["COSTBOOK_MEASUREMENTS"] = str(here)          # as make book renders after measuring
    try:
        pages = render_book(ROOT, out, ROOT / "chapters")
    finally:
        if old is None:
            del os.environ["COSTBOOK_MEASUREMENTS"]
        else:
            os.environ["COSTBOOK_MEASUREMENTS"] = old
    return pages


@pytest.fixture(scope="module")
def chapter_page(book_pages):
    chapter = Path(schemes.manifest(SCHEME).CHAPTER).with_suffix(".html").name
    return next(p for p in book_pages if p.name == chapter)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    """One headless Chromium for the module: its DevTools port (each test opens a tab of its own)."""
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp_path_factory.mktemp("chromium"))
    proc = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                             "--no-first-run", "--disable-component-update", "--disable-sync",
                             f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,2000",
                             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        end = time.monotonic() + 30
        while port is None and time.monotonic() < end:
            line = proc.stderr.readline()
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            port = int(m.group(1)) if m else None
            if not line and proc.poll() is not None:
                break
        assert port, "chromium did not start its DevTools endpoint"
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture()
def browser(chromium):
    """A new tab of the module's Chromium, closed after the test: its events and its page are its own."""
    request = urllib.request.Request(f"http://127.0.0.1:{chromium}/json/new?about:blank", method="PUT")
    target = json.load(urllib.request.urlopen(request, timeout=10))
    page = Page(target["webSocketDebuggerUrl"])
    try:
        yield page
    finally:
        page.ws.close()
        urllib.request.urlopen(f"http://127.0.0.1:{chromium}/json/close/{target['id']}", timeout=10).read()


def read_steps(page: Page) -> list:
    return page.js("""[...document.querySelectorAll('.costbook-live tr[data-step]')].map(r => ({
        label: r.dataset.step, total: Number(r.dataset.total), low: Number(r.dataset.low),
        high: Number(r.dataset.high), error: r.querySelector('[data-error]')?.textContent || null}))""")


def priced_like_the_cli(page, path, point, defaults) -> tuple:
    """The page's steps for the file at `path`, each equal to `costbook estimate --source path`'s (total,
    low and high to 1e-9 relative); returns (the page's steps, the CLI's)."""
    got = read_steps(page)
    expected, printed = cli_steps(SCHEME, str(path), point, defaults)
    assert expected is not None, printed
    assert [s["label"] for s in got] == [s["label"] for s in expected]
    for g, e in zip(got, expected):
        assert g["error"] is None, g
        for f in ("total", "low", "high"):
            assert g[f] == pytest.approx(e[f], rel=1e-9, abs=0), (path.name, e["label"], f)
    return got, expected


def test_chapter_reprices_for_a_reader_file(chapter_page, browser, tmp_path):
    reader = tmp_path / "reader-laptop.json"
    reader.write_text(json.dumps(reader_machine()))
    page = browser
    page.send("Network.enable")
    page.send("Runtime.enable")
    page.send("Page.enable")
    page.send("Page.navigate", url=chapter_page.as_uri())
    page.wait_for("document.readyState === 'complete' && document.querySelectorAll('.costbook-live tr[data-step]').length > 0")

    # one parameter changed, as a reader changes it
    offered = page.js(f"[...document.querySelector('.costbook-live select[data-option={OPTION}]').options].map(o => o.value)")
    assert str(VALUE) in offered
    page.js(f"""(() => {{ const s = document.querySelector('.costbook-live select[data-option={OPTION}]');
                 s.value = '{VALUE}'; s.dispatchEvent(new Event('change')); }})()""")
    # this machine's file, embedded by make book: offered by name, priced as costbook estimate prices it
    model = schemes.get(SCHEME)
    defaults = {k: v[0] for k, v in model.OPTIONS.items()}
    here = next(d / "this-machine.json" for d in chapter_page.parents if (d / "this-machine.json").is_file())
    page.js("""(() => { const s = document.querySelector('.costbook-live select[data-control=machine]');
                 s.value = 'here'; s.dispatchEvent(new Event('change')); })()""")
    page.wait_for("document.querySelector('.costbook-live-words').dataset.machine === 'here'")
    words = page.js("document.querySelector('.costbook-live-words').textContent")
    assert "this-machine.json" in words and HOSTILE_NAME in words, words
    # the file's words are text: in the widget, in the footer, and to MathJax
    page.js("MathJax.startup.promise.then(() => true)")
    assert page.js("window.hostile === undefined && !document.querySelector('main img[src=x], [href^=javascript]')")
    assert HOSTILE_CPU in page.js("document.querySelector('footer.page-footer').textContent")
    expected, printed = cli_steps(SCHEME, str(here), {**defaults, OPTION: VALUE}, defaults)
    assert expected is not None, printed
    for g, e in zip(read_steps(page), expected):
        assert g["label"] == e["label"] and g["error"] is None, g
        assert g["total"] == pytest.approx(e["total"], rel=1e-9, abs=0), e["label"]
    # the chooser offers every public and contributed machine; one of them priced as the CLI prices it
    offered = page.js("[...document.querySelector('.costbook-live select[data-control=machine]').options].map(o => o.value)")
    others = [m.id for m in machines.known_machines() if m.kind in ("public", "contributed")]
    assert [o for o in offered if o.startswith(("public/", "contributed/"))] == others
    assert sum(o.startswith("public/") for o in offered) >= 4, offered
    chosen = others[-1]
    page.js(f"""(() => {{ const s = document.querySelector('.costbook-live select[data-control=machine]');
                 s.value = '{chosen}'; s.dispatchEvent(new Event('change')); }})()""")
    page.wait_for(f"document.querySelector('.costbook-live-words').dataset.machine === '{chosen}'")
    assert f"--source {chosen} " in page.js("document.querySelector('.costbook-live code').textContent") + " "
    expected, printed = cli_steps(SCHEME, chosen, {**defaults, OPTION: VALUE}, defaults)
    assert expected is not None, printed
    got = read_steps(page)
    assert [g["label"] for g in got] == [e["label"] for e in expected]
    for g, e in zip(got, expected):
        assert g["error"] is None, g
        for f in ("total", "low", "high"):
            assert g[f] == pytest.approx(e[f], rel=1e-9, abs=0), (chosen, e["label"], f)
    # the machine: a file the book does not ship, through the file input
    doc = page.send("DOM.getDocument", depth=-1)
    node = page.send("DOM.querySelector", nodeId=doc["root"]["nodeId"], selector=".costbook-live input[type=file]")
    page.send("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(reader)])
    page.wait_for("document.querySelector('.costbook-live-words').dataset.machine === 'file'")

    words = page.js("document.querySelector('.costbook-live-words').textContent")
    option_words = schemes.get(SCHEME).OPTION_WORDS[OPTION]
    assert "reader-laptop.json" in words and f"{option_words}: {VALUE:,}" in words, words
    got, expected = priced_like_the_cli(page, reader, {**defaults, OPTION: VALUE}, defaults)
    print(f"{len(got)} steps re-priced in the page for {reader.name}: "
          + "; ".join(f"{e['label']} {e['total']:.6g} s" for e in expected))

    # an imported zkalc machine (kind public), through the same input: priced as the CLI prices that file,
    # and said to be a benchmark's transcription with its completed prices
    imported = tmp_path / "imported-zkalc-box.json"
    imported.write_bytes((ROOT / "measurements" / "public" / "aws-m6i-8xlarge.json").read_bytes())
    page.send("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(imported)])
    page.wait_for("document.querySelector('.costbook-live-words').textContent.includes('imported-zkalc-box.json')")
    said = page.js("document.querySelector('.costbook-live-message').textContent")
    assert "a public benchmark's prices (costbook import zkalc)" in said and "completed from the reference" in said, said
    priced_like_the_cli(page, imported, {**defaults, OPTION: VALUE}, defaults)
    # and a zkalc file of another library and curve, imported with the file alone (completed through
    # arkworks BLS12-381): the same
    bridged = bridged_machine(tmp_path)
    page.send("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(bridged)])
    page.wait_for(f"document.querySelector('.costbook-live-words').textContent.includes('{bridged.name}')")
    priced_like_the_cli(page, bridged, {**defaults, OPTION: VALUE}, defaults)
    # the command line the page shows for a file is one a shell takes as written, whatever its name
    import shlex
    odd = tmp_path / "it's <img src=x onerror=window.hostile=4> $(true).json"
    odd.write_bytes(bridged.read_bytes())
    page.send("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(odd)])
    page.wait_for("document.querySelector('.costbook-live-words').textContent.includes('$(true)')")
    shown = page.js("document.querySelector('.costbook-live code').textContent")
    assert f" --source {shlex.quote(odd.name)}" in shown + " ", shown
    assert shlex.split(shown)[:4] == ["costbook", "estimate", SCHEME, "--source"] and shlex.split(shown)[4] == odd.name
    assert page.js("window.hostile === undefined")

    shot = page.send("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                     clip={**page.js("""(() => { const r = document.querySelector('.costbook-live').getBoundingClientRect();
                           return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height, scale: 1}; })()""")})
    import base64
    (tmp_path / f"live-{SCHEME}.png").write_bytes(base64.b64decode(shot["data"]))

    requests = [e["params"]["request"]["url"] for e in page.events if e.get("method") == "Network.requestWillBeSent"]
    assert requests and all(u.startswith(("file:", "data:")) for u in requests), [u for u in requests if not u.startswith(("file:", "data:"))]
    errors = [e["params"] for e in page.events if e.get("method") == "Runtime.exceptionThrown"]
    assert not errors, errors


#: files the page's checker once let through or met in silence (unit "constructor", a median of 1e400,
#: a byte order mark, bytes that are not UTF-8, an untyped provenance, a kind never written to disk)
HOSTILE_FILES = ["unit-constructor.json", "median-1e400.json", "bom.json", "latin1.json", "truncated-utf8.json",
                 "samples-2.0.json", "duplicate-key-nested.json", "proto-key.json", "nan-literal.json",
                 "machine-5.json", "date-list.json", "calibrated-from-disk.json"]


def test_the_page_refuses_a_hostile_file_as_costbook_check_does(chapter_page, browser, tmp_path):
    """Each file through the page's file input: the page says what `costbook check` says of it, word for
    word, in one line; it keeps pricing the machine it priced, and shows no NaN or Infinity.  A symbolic
    link loop and a file larger than any measurement file are refused in one line too."""
    import contextlib
    import io
    from costbook.cli import commands as cli
    corpus = ROOT / "tests" / "fixtures" / "measurements" / "malformed"
    files = []
    for name in HOSTILE_FILES:                       # under the name the page sees (the file's own name)
        files.append(tmp_path / name)
        files[-1].write_bytes((corpus / name).read_bytes())
    loop = tmp_path / "loop.json"
    loop.symlink_to("loop.json")
    with open(tmp_path / "huge.json", "wb") as f:
        f.truncate((16 << 20) + 1)
    page = browser
    page.send("Runtime.enable")
    page.send("Page.navigate", url=chapter_page.as_uri())
    page.wait_for("document.readyState === 'complete' && document.querySelectorAll('.costbook-live tr[data-step]').length > 0")
    before = read_steps(page)
    # the book embeds this machine's file (make book measured it): the page prices with it first
    chosen = page.js("document.querySelector('.costbook-live-words').dataset.machine")
    assert chosen == "here", chosen
    doc = page.send("DOM.getDocument", depth=-1)
    node = page.send("DOM.querySelector", nodeId=doc["root"]["nodeId"], selector=".costbook-live input[type=file]")
    for path in files + [tmp_path / "huge.json", loop]:
        page.js("document.querySelector('.costbook-live-message').textContent = ''")
        page.send("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(path)])
        said = page.wait_for("document.querySelector('.costbook-live-message').textContent")
        assert page.js("document.querySelector('.costbook-live-message').dataset.state") == "error", said
        assert "\n" not in said
        if path == loop:            # the browser says only that it cannot read it
            assert said == "loop.json: unreadable (cannot read this measurement file)", said
            continue
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            assert cli.main(["check", str(path)]) == 2
        assert said == err.getvalue().strip().removeprefix("costbook: error: ").replace(str(path), path.name), said
        assert page.js("document.querySelector('.costbook-live-words').dataset.machine") == chosen
        table = page.js("document.querySelector('.costbook-live-table').textContent")
        assert "NaN" not in table and "Infinity" not in table, table
    assert read_steps(page) == before
    errors = [e["params"] for e in page.events if e.get("method") == "Runtime.exceptionThrown"]
    assert not errors, errors


# ------------------------------------------------------------------------------ read as a reader reads it

LIVE_CHAPTERS = [Path(schemes.manifest(n).CHAPTER).stem for n in schemes.REGISTRY] + ["06-comparison"]


@functools.lru_cache(maxsize=None)
def table_words(html_path: Path) -> set:
    """Each cell and caption of a chapter page's tables outside its live estimate, whitespace collapsed."""
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(html_path.read_text(encoding="utf-8"), "html.parser")
    for node in soup.select("div.costbook-live"):
        node.decompose()
    cells = soup.select("td, th") + [f.figcaption for f in soup.select("figure") if f.table and f.figcaption]
    return {" ".join(c.get_text(" ").replace("\u00a0", " ").split()) for c in cells}


#: a price key or an estimate's JSON key ("pointproofs/commit", "bls12_381/g1_mul"): never a step's name
KEY = re.compile(r"^[a-z0-9_]+(/[a-z0-9_.]+)+$")


READ_WIDGET = """(() => {
  const box = document.querySelector('.costbook-live');
  const groups = [...box.querySelectorAll('table.costbook-live-table tbody[data-group]')].map(b => ({
    heading: b.querySelector('tr.costbook-live-group th')?.textContent || '',
    steps: [...b.querySelectorAll('tr[data-step]')].map(r => r.dataset.step)}));
  const rows = [...box.querySelectorAll('tr[data-step]')].map(r => r.dataset.step);
  const plots = [...box.querySelectorAll('figure.costbook-live-plot')].map(f =>
    [...f.querySelectorAll('g.costbook-live-line')].map(g => ({
      step: g.dataset.step, colour: g.querySelector('polyline').getAttribute('stroke'),
      totals: g.dataset.totals.split(' ').map(Number)})));
  const ticks = [...box.querySelectorAll('figure.costbook-live-plot')].map(f =>
    [...f.querySelectorAll('text.costbook-live-tick')].map(t => { const b = t.getBBox();
      return {text: t.textContent, left: b.x, right: b.x + b.width}; }));
  const x = box.querySelector('select[data-control=x]');
  const times = [...box.querySelectorAll('tr[data-step] td.num')].map(td => td.textContent);
  return {groups, rows, plots, ticks, times, axis: x.value, axes: [...x.options].map(o => o.value),
          controls: [...box.querySelectorAll('.costbook-live-option label')].map(l => l.textContent),
          tooltips: [...box.querySelectorAll('.costbook-live-option')].map(p => p.title),
          values: [...box.querySelectorAll('.costbook-live-option select')].map(s => s.selectedOptions[0].textContent),
          caption: box.querySelector('caption.costbook-live-words')?.textContent || ''};
})()"""


def moves(totals: list) -> bool:
    return max(totals) > 1.01 * min(totals)


#: the least distance in CIE L*a*b* (CIE76) between two lines' colours in one plot
MIN_COLOUR_DISTANCE = 30


def lab(colour: str) -> tuple:
    """CIE L*a*b* (D65) of an sRGB colour written #rrggbb."""
    def linear(c):
        return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92
    r, g, b = (linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x, y, z = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
               (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_the_colour_distance_tells_near_colours_from_far_ones():
    assert math.dist(lab("#0072B2"), lab("#56B4E9")) < MIN_COLOUR_DISTANCE < math.dist(lab("#0072B2"), lab("#D55E00"))
    assert lab("#ffffff") == pytest.approx((100, 0, 0), abs=0.05)


def check_plots(widget: dict, where: str) -> None:
    assert len(widget["ticks"]) == len(widget["plots"]) and all(len(t) >= 2 for t in widget["ticks"]), where
    for ticks in widget["ticks"]:
        for a, b in zip(ticks, ticks[1:]):
            assert a["right"] <= b["left"], f"{where}: the axis labels {a['text']!r} and {b['text']!r} overlap"
    for lines in widget["plots"]:
        colours = [line["colour"] for line in lines]
        assert len(set(colours)) == len(colours), f"{where}: two lines of a plot share a colour: {lines}"
        close = [(a, b) for i, a in enumerate(colours) for b in colours[i + 1:]
                 if math.dist(lab(a), lab(b)) < MIN_COLOUR_DISTANCE]
        assert not close, f"{where}: lines of a plot in colours closer than {MIN_COLOUR_DISTANCE} (CIE76): {close}"
        assert 0 < len(lines) <= 6, f"{where}: a plot of {len(lines)} lines"
        assert all(moves(line["totals"]) for line in lines), f"{where}: a flat line drawn: {lines}"


@pytest.mark.parametrize("stem", LIVE_CHAPTERS)
def test_the_live_estimate_reads_like_its_chapter(book_pages, browser, stem):
    chapter = next(p for p in book_pages if p.stem == stem)
    page = browser
    page.send("Runtime.enable")
    page.send("Page.navigate", url=chapter.as_uri())
    page.wait_for("document.readyState === 'complete' && document.querySelectorAll('.costbook-live tr[data-step]').length > 0")
    shown = page.js("[...document.querySelectorAll('.costbook-live select[data-control=scheme] option')].map(o => o.textContent)") or [None]
    titles = {schemes.manifest(n).TITLE: n for n in schemes.REGISTRY}
    for i, title in enumerate(shown):
        if title is not None:
            page.js(f"""(() => {{ const s = document.querySelector('.costbook-live select[data-control=scheme]');
                         s.value = '{i}'; s.dispatchEvent(new Event('change')); }})()""")
        name = titles[title] if title is not None else next(n for n in schemes.REGISTRY
                                                              if Path(schemes.manifest(n).CHAPTER).stem == stem)
        where = f"{stem}, {name}"
        widget = page.js(READ_WIDGET)
        assert widget["rows"], where
        # a time is a time: a step with nothing priced says so in words, not "0 ns [0–0]"
        zero = [t for t in widget["times"] if re.match(r"^0\s*ns \[0–0\]$", t)]
        assert not zero, f"{where}: rows of zero time: {zero}"
        # each step named as a table of the scheme's own chapter names it (the comparison chapter's too)
        tables = table_words(next(p for p in book_pages if p.stem == Path(schemes.manifest(name).CHAPTER).stem))
        keys = [label for label in widget["rows"] if KEY.match(label)]
        assert not keys, f"{where}: steps named by their keys: {keys}"
        named = lambda label: label in tables or any(label in c for c in tables if c.startswith("Table "))
        missing = [label for label in widget["rows"] if not named(" ".join(label.split()))]
        assert not missing, f"{where}: step labels no table of the chapter names: {missing}"
        # every step under the heading of its model, as the model groups them
        # (a heading's "{option}" reads as that option's value in words: the model it names is the active one)
        model = schemes.get(name)
        declared = [(re.compile(re.sub(r"\\\{(\w+)\\\}", lambda m: "(?P<" + m.group(1) + ">.+)", re.escape(g.heading)) + "$"),
                     g.steps) for g in getattr(model, "STEP_GROUPS", ())]
        assert sum(len(g["steps"]) for g in widget["groups"]) == len(widget["rows"]), where
        headings_name_the_choices(widget, declared, model, where)
        for option in {o for pattern, _ in declared for o in pattern.groupindex}:     # and after a change
            step = lambda by: page.js(f"""(() => {{ const s = document.querySelector('.costbook-live select[data-option={option}]');
                s.selectedIndex = (s.selectedIndex + {by} + s.options.length) % s.options.length; s.dispatchEvent(new Event('change')); }})()""")
            step(1)
            headings_name_the_choices(page.js(READ_WIDGET), declared, model, f"{where}, {option} changed")
            step(-1)
        # the controls in the chapter's words, the command line in their tooltips, the parameters once
        words = schemes.get(name).OPTION_WORDS
        assert [c.rstrip(": ").lower() for c in widget["controls"]] == [w.lower() for w in words.values()], where
        assert all(t.startswith(f"costbook estimate {name} --") for t in widget["tooltips"]), where
        assert widget["caption"].count("priced with") == 1, where
        # the default plot: along the chapter's own what-if parameter, at least one line moving
        assert widget["axis"] == schemes.manifest(name).LIVE_AXIS, where
        assert any(moves(line["totals"]) for lines in widget["plots"] for line in lines), \
            f"{where}: the default what-if plot has no line that moves: {widget['plots']}"
        check_plots(widget, f"{where}, along {widget['axis']}")
        # every parameter the plot offers moves at least one line, drawn in its own colour
        for axis in widget["axes"]:
            page.js(f"""(() => {{ const s = document.querySelector('.costbook-live select[data-control=x]');
                         s.value = '{axis}'; s.dispatchEvent(new Event('change')); }})()""")
            along = page.js(READ_WIDGET)
            assert along["axis"] == axis and along["plots"], f"{where}: nothing drawn along {axis}"
            check_plots(along, f"{where}, along {axis}")
        if os.environ.get("COSTBOOK_SCREENSHOTS"):
            page.js(f"""(() => {{ const s = document.querySelector('.costbook-live select[data-control=x]');
                         s.value = '{widget["axis"]}'; s.dispatchEvent(new Event('change')); }})()""")
            shot(page, Path(os.environ["COSTBOOK_SCREENSHOTS"]) / f"live-{stem}-{name}.png")
    errors = [e["params"] for e in page.events if e.get("method") == "Runtime.exceptionThrown"]
    assert not errors, errors


def headings_name_the_choices(widget: dict, declared: list, model, where: str) -> None:
    """Each group under a heading its model declares, whose "{option}" parts say the option's chosen value."""
    chosen = dict(zip([w.rstrip(": ").lower() for w in widget["controls"]], widget["values"]))
    for g in widget["groups"]:
        match = [(m, steps) for pattern, steps in declared if (m := pattern.match(g["heading"]))]
        assert match and set(g["steps"]) <= set(match[0][1]), (where, g)
        for option, said in match[0][0].groupdict().items():
            assert said == chosen[model.OPTION_WORDS[option].lower()], (where, g["heading"], chosen)


def shot(page: Page, path: Path) -> None:
    """A PNG of the page's live estimate (COSTBOOK_SCREENSHOTS=DIR to keep them)."""
    import base64
    # the page's figures above load (lazily) and its mathematics is typeset first: either moves the widget
    page.js("""Promise.all([MathJax.startup.promise, ...[...document.images].map(i => { i.loading = 'eager';
               return i.decode().catch(() => 0); })]).then(() => true)""")
    # a viewport as tall as the widget, scrolled to it (a capture beyond the viewport lays the page out anew)
    height = page.js("Math.ceil(document.querySelector('.costbook-live').getBoundingClientRect().height) + 40")
    page.send("Emulation.setDeviceMetricsOverride", width=1280, height=max(height, 800), deviceScaleFactor=1, mobile=False)
    page.js("document.querySelector('.costbook-live').scrollIntoView() || true")
    clip = page.js("""(() => { const r = document.querySelector('.costbook-live').getBoundingClientRect();
                       return {x: r.left + scrollX - 8, y: r.top + scrollY - 8, width: r.width + 16, height: r.height + 16, scale: 1}; })()""")
    got = page.send("Page.captureScreenshot", format="png", clip=clip)
    page.send("Emulation.clearDeviceMetricsOverride")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(got["data"]))


FITS = """(() => {
  const main = document.querySelector('main'); const s = getComputedStyle(main);
  const column = main.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  const name = (e) => (e.querySelector('caption')?.textContent || e.closest('figure')?.querySelector('figcaption')?.textContent
                       || e.getAttribute('alt') || e.tagName).trim().slice(0, 60);
  const wide = [...main.querySelectorAll('table, figure, img, svg')]
    .filter((e) => !e.closest('.costbook-live') || e.tagName === 'svg')
    .filter((e) => Math.max(e.scrollWidth || 0, e.getBoundingClientRect().width) > column + 1)
    .map((e) => `${name(e)}: ${Math.round(Math.max(e.scrollWidth || 0, e.getBoundingClientRect().width))} px`);
  return {column, wide};
})()"""


def test_every_table_and_figure_fits_its_column_at_1400_px(book_pages, browser):
    """A table wider than the page's column scrolls, and a reader at 1,400 px does not see its last
    columns (the ledger's status, most machines of appendix B): nothing may be wider than the column."""
    page = browser
    page.send("Emulation.setDeviceMetricsOverride", width=1400, height=1000, deviceScaleFactor=1, mobile=False)
    problems = []
    for html in (p for p in book_pages if p.suffix == ".html"):
        page.send("Page.navigate", url=html.as_uri())
        page.wait_for("document.readyState === 'complete'")
        page.js("Promise.all([...document.images].map(i => { i.loading = 'eager'; return i.decode().catch(() => 0); })).then(() => true)")
        got = page.js(FITS)
        assert got["column"] > 600, (html.name, got)
        problems += [f"{html.name}: {w} (column {round(got['column'])} px)" for w in got["wide"]]
    assert not problems, problems
