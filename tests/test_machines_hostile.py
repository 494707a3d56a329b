"""Hostile machine names in appendix B ("Machines side by side", chapters/91-machines.ipynb).

A public machine's file (a transcription, contributed like any file) names its machine, and a
contributed machine is named by its file's name and says what its CPU is: any of those may hold
markup.  The appendix's code cells are run here as the chapter runs them, with the book's machines
replaced by the reference machine, one hostile public machine and one hostile contributed machine:
its tables (HTML), its prose (Markdown, read by pandoc as Quarto reads it, and by the offline
renderer) and its figure's legend (matplotlib) must show the names as their characters: no element,
attribute, citation, cross-reference or mathematics the name wrote.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.cbook  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402
from bs4 import BeautifulSoup  # noqa: E402
from IPython import display as ipython_display  # noqa: E402

from costbook.views import machines
from costbook.prices import measurements  # noqa: E402
from costbook.writing import report  # noqa: E402
from costbook.writing.report import Table  # noqa: E402
from test_hostile_input import FIXTURE, HOSTILE, NOTE_TAGS, TABLE_TAGS, markup_problems, words  # noqa: E402

# a legend of such long names leaves tight_layout no room: a warning, and the figure is drawn as it is
pytestmark = pytest.mark.filterwarnings("ignore:Tight layout not applied")

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "91-machines.ipynb"
#: a citation and a cross-reference a name must not make, beside HOSTILE's markup and mathematics
CITES = " [@no-such-key] @tbl-machines-list | a|b @zkalc X @lbl "
PUBLIC_NAME = "Evil " + HOSTILE + CITES
#: a contributed machine is named by its file: what a file name can hold of the same
CONTRIBUTED_STEM = 'evil <img src=x onerror=alert(8)> | *em* $\\href{javascript:alert(9)}{m}$ [@no-such-key] @tbl-x'


@pytest.fixture(scope="module")
def hostile_machines(tmp_path_factory):
    """[reference, a public machine and a contributed machine with hostile names]."""
    folder = tmp_path_factory.mktemp("machines")
    public = json.loads((ROOT / "measurements" / "public" / "aws-m6i-8xlarge.json").read_text(encoding="utf-8"))
    public["provenance"]["machine"] = PUBLIC_NAME
    (folder / "evil-public.json").write_text(json.dumps(public), encoding="utf-8")
    contributed = json.loads(measurements.reference_path().read_text(encoding="utf-8"))
    contributed["provenance"]["machine"]["cpu"] = HOSTILE + CITES
    path = folder / f"{CONTRIBUTED_STEM}.json"
    path.write_text(json.dumps(contributed), encoding="utf-8")
    ref = machines.known_machines()[0]
    pub = measurements.load(folder / "evil-public.json")
    con = measurements.load(path)
    return [ref, machines.Machine("public/evil-public", "public", measurements.machine_words(pub), pub),
            machines.Machine(f"contributed/{CONTRIBUTED_STEM}", "contributed", measurements.machine_words(con), con)]


def shown(out: dict, label: str) -> list:
    """What the cell labelled `label` showed; it must have run."""
    if isinstance(out[label], Exception):
        pytest.fail(f"the cell {label} stopped: {out[label]!r}")
    return out[label]


def run_cell(source: str, namespace: dict) -> list:
    """Run a code cell's source in `namespace`; returns what it shows: what it displays, then the
    value of its last line where that is an expression (as Jupyter shows it)."""
    shown = []
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    namespace["display"] = shown.append
    exec(compile(tree, "<cell>", "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
        if value is not None:
            shown.append(value)
    return shown


@pytest.fixture(scope="module")
def appendix(hostile_machines):
    """{cell label or index: what it shows} and the figure, of the appendix run on the hostile machines."""
    mp = pytest.MonkeyPatch()
    mp.setattr(machines, "known_machines", lambda: list(hostile_machines))
    # the chapter imports display from IPython.display: what it displays is collected by run_cell
    collected = []
    mp.setattr(ipython_display, "display", lambda *objs, **kw: collected.extend(objs))
    plt.close("all")
    try:
        nb = nbformat.read(CHAPTER, as_version=4)
        namespace: dict = {}
        out = {}
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            collected.clear()
            label = re.search(r"^#\| label: (\S+)", cell.source, re.M)
            try:
                out[label[1] if label else i] = collected + run_cell(cell.source, namespace)
            except Exception as e:      # the chapter stopped there: the test of what that cell shows fails
                out[label[1] if label else i] = e
        yield out, plt.gcf()
    finally:
        plt.close("all")
        mp.undo()


def test_the_machines_table_shows_names_as_text(appendix):
    out, _ = appendix
    (table,) = shown(out, "tbl-machines-list")
    assert isinstance(table, Table)
    html = table.to_html()
    assert markup_problems(html, TABLE_TAGS) == []
    soup = BeautifulSoup(html, "html.parser")
    # the only citation is the book's own, of zkalc: none is made of a name
    assert [s["data-qmd"] for s in soup.find_all("span", attrs={"data-qmd": True})] == ["[@zkalc]"]
    assert "@" not in html.replace('data-qmd="[@zkalc]"', "")     # no text a renderer reads as a citation
    text = words(soup.get_text())
    assert words(PUBLIC_NAME) in text and words(CONTRIBUTED_STEM) in text
    assert words(HOSTILE + CITES) in words(table.to_text())


def test_the_price_table_heads_show_names_as_text(appendix):
    out, _ = appendix
    tables = [t for label in ("tbl-machines-prices", "tbl-machines-public", "tbl-machines-public-more")
              for t in shown(out, label)]
    html = "".join(t.to_html() for t in tables)
    assert len(tables) == 3 and markup_problems(html, TABLE_TAGS) == []
    assert "data-qmd" not in html and "@" not in html
    heads = [words(th.get_text()) for th in BeautifulSoup(html, "html.parser").find_all("th")]
    assert words(PUBLIC_NAME) in heads and words(CONTRIBUTED_STEM) in heads


def prose(out) -> list:
    assert not [k for k, v in out.items() if isinstance(v, Exception) and k != "fig-machines-prices"], out
    return [o.data for objs in out.values() if not isinstance(objs, Exception) for o in objs
            if isinstance(o, ipython_display.Markdown)]


def test_the_prose_names_the_machines_as_text(appendix):
    """Read by pandoc as Quarto reads it and by the offline renderer, each paragraph holds the names
    as their characters: no element, no citation or cross-reference a name made, no mathematics."""
    import pypandoc
    from costbook.book.markdown import ChapterMarkdown
    from costbook.book.render import load_book
    out, _ = appendix
    paragraphs = prose(out)
    assert len(paragraphs) == 3                 # the machines, the prices, the agreement with zkalc
    _, chapters = load_book(FIXTURE)
    said = " ".join(paragraphs)
    for markdown in paragraphs:
        for reader, html in (("pandoc", pypandoc.convert_text(markdown, "html", format="markdown-smart",
                                                              extra_args=["--mathjax"])),
                             ("the offline renderer", ChapterMarkdown(chapters[1])(markdown))):
            assert markup_problems(html, NOTE_TAGS) == [], reader
            if reader == "the offline renderer":     # where the renderer then looks for citations
                from costbook.book.citations import find_citations
                assert find_citations(html) == [], html
            soup = BeautifulSoup(html, "html.parser")
            cited = [s.get("data-cites", "") for s in soup.find_all("span", class_="citation")]
            assert all(c == "tbl-machines-list" for c in cited), (reader, cited)   # the chapter's own
            text = words(soup.get_text())
            if "Evil" in markdown:
                assert words(machines.short_name(machines.known_machines()[1])) in text, reader
            if "Contributed machines" in markdown:
                assert words(CONTRIBUTED_STEM) in text, reader
    assert "Evil" in said and "Contributed machines" in said


def test_the_figure_legend_shows_names_as_text(appendix):
    """matplotlib reads text between two dollars as mathematics: a legend entry is the name as it is."""
    out, figure = appendix
    shown(out, "fig-machines-prices")
    figure.canvas.draw()          # mathtext in a label is parsed (or refused) only when drawn
    (ax,) = [a for a in figure.axes if a.get_legend() is not None]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    for name in (machines.short_name(machines.known_machines()[1]), CONTRIBUTED_STEM):
        (label,) = [t for t in labels if t.replace("\\$", "$") == name]
        assert not matplotlib.cbook.is_math_text(label), label


def test_a_file_name_in_a_tables_caption_or_head_cites_nothing():
    """A provenance table's caption is its file's name, a price table's heads are machines' names:
    "[@key]" or "@key" there is text, for the offline renderer (which reads citations in a page's
    text) as for Quarto (which reads raw HTML text as text)."""
    mset = measurements.load(measurements.reference_path())
    named = dataclasses.replace(mset, name="mine [@no-such-key] @tbl-x")
    for table in (report.provenance_table(named), Table(["step", "[@no-such-key] @tbl-x"]).add("a", "b")):
        html = table.to_html()
        assert "@" not in html and "data-qmd" not in html
        assert "[@no-such-key] @tbl-x" in BeautifulSoup(html, "html.parser").get_text()


#: what a public file's `source` may say (import zkalc --path/--repository writes it; anyone may
#: contribute a file): each field as its characters in the machines table, never markup or a citation
HOSTILE_SOURCES = [
    {"citation": "zkalc", "path": "frontend/data/[@zkalc, <img src=x onerror=alert(11)>].json",
     "library": "<script>alert(12)</script>", "curve": "@tbl-machines-list", "commit": "[@zkalc]<b>x</b>",
     "benchmark": "zkalc <img src=x onerror=alert(13)> @zkalc"},
    {"citation": "zkalc, <img src=x onerror=alert(14)>", "path": "x.json", "library": "arkworks",
     "curve": "bls12_381", "commit": "0123456789"},
    {"citation": "lbl", "path": "x.json", "library": "arkworks", "curve": "bls12_381", "commit": "0"},
]


@pytest.mark.parametrize("source", HOSTILE_SOURCES)
def test_a_public_files_source_is_shown_as_text_in_the_machines_table(source):
    """A public file's source.path, source.citation and the rest landed in appendix B as raw HTML (a
    script ran in Chromium) or as a citation of the file's choosing; an unknown key stopped the book."""
    from costbook.book.citations import find_citations
    data = json.loads((ROOT / "measurements" / "public" / "aws-m6i-8xlarge.json").read_text(encoding="utf-8"))
    data["provenance"]["source"].update(source)
    mset = measurements.validate(data, "hostile-public.json")
    machine = machines.Machine("public/hostile", "public", measurements.machine_words(mset), mset)
    table = machines.machine_table([machine])
    html = table.to_html()
    assert markup_problems(html, TABLE_TAGS) == []
    cited = [sp["data-qmd"] for sp in BeautifulSoup(html, "html.parser").find_all("span", attrs={"data-qmd": True})]
    assert cited == (["[@zkalc]"] if source["citation"] == "zkalc" else [])    # the book's key only
    assert find_citations(html.replace('data-qmd="[@zkalc]"', "")) == []
    text = words(BeautifulSoup(html, "html.parser").get_text())
    for field in ("library", "curve"):
        assert words(source[field]) in text
    assert words(Path(source["path"]).name) in text
    if source["citation"] != "zkalc":
        assert words(source["citation"]) in text
