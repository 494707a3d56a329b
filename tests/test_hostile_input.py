"""Hostile text in a measurement file is shown as text, wherever it lands.

A file that `costbook check` accepts may hold markup in every string it has: its name, each
provenance field (machine, system, libraries, date, command, profile) and a backend's name.  The
file goes through everything that puts such text on a page: the chapters' measured-machine note
(``report.measured_machine``, Markdown) and provenance table (HTML), the offline book
(``costbook.book.render``: those outputs in a chapter, the footer, this machine's file and the
live data embedded for the live estimate), and the Quarto book (the notebooks
``costbook.book.quarto`` copies, their outputs read by pandoc as Quarto reads them).  Each page
fragment must hold no element or attribute the file wrote, no text MathJax would typeset, and
JSON in a <script> must read back as the same object and hold no "<" (so no "</" or "<!--").
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup, NavigableString

from costbook.cli import commands as cli
from costbook.prices import measurements
from costbook.writing import report
from costbook.book import ipynb_filter, live_page
from costbook.book.markdown import ChapterMarkdown
from costbook.book.quarto import prepare_project
from costbook.book.render import load_book, render_book

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "book"

#: markup of every kind the pages read: HTML, script data, Markdown links, code and emphasis,
#: pandoc's raw HTML, entities, MathJax's delimiters (with a link MathJax would make), a bare URL,
#: line breaks (a heading and an HTML block on lines of their own) and JavaScript's line separators
HOSTILE = ("<img src=x onerror=alert(1)> x<!--<script> </script><script>alert(2)</script> "
           "[click](javascript:alert(3)) `<b>x</b>`{=html} *em* _em_ &lt;i&gt; & "
           "$\\href{javascript:alert(4)}{m}$ \\(\\href{javascript:alert(5)}{n}\\) https://example.org/x "
           "a\u2028b\u2029c\n\n# heading\n\n<div onclick=alert(6)>x</div>")

#: and in the file's name, which the footer and the live page name
FILE_NAME = 'hostile "<img src=x onerror=alert(7)>" $x$.json'

#: the elements each fragment may hold: the renderers' own, never the file's
NOTE_TAGS = {"p", "strong", "span"}
TABLE_TAGS = {"table", "caption", "thead", "tbody", "tr", "th", "td", "span"}


def hostile_file(folder: Path) -> Path:
    """The reference file with HOSTILE in its name, every provenance string and one backend's name,
    as FILE_NAME."""
    data = json.loads(measurements.reference_path().read_text(encoding="utf-8"))

    def spoil(value):
        if isinstance(value, dict):
            return {k: spoil(v) for k, v in value.items()}
        if isinstance(value, list):
            return [spoil(v) for v in value]
        return HOSTILE if isinstance(value, str) else value

    data["name"] = HOSTILE
    data["provenance"] = spoil(data["provenance"])
    first = next(iter(data["results"]))
    data["results"][HOSTILE] = data["results"][first]
    path = folder / FILE_NAME
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def words(text: str) -> str:
    return " ".join(text.split())


def markup_problems(fragment: str, allowed: set) -> list:
    """What in an HTML fragment is markup the renderers did not write, or text MathJax would read."""
    s = BeautifulSoup(fragment, "html.parser")
    out = [f"element <{t.name}>" for t in s.find_all(True) if t.name not in allowed]
    out += [f"attribute {a}= on <{t.name}>" for t in s.find_all(True) for a in t.attrs
            if a.lower().startswith("on") or (a in ("href", "src") and "javascript" in str(t[a]).lower())]
    for node in s.find_all(string=True):
        if isinstance(node, NavigableString) and re.search(r"[$\\]", node):
            if not any("tex2jax_ignore" in (p.get("class") or []) for p in node.parents if p.name):
                out.append(f"text MathJax would typeset: {str(node)[:60]!r}")
    return out


def script_data(page: str, element_id: str) -> str:
    m = re.search(rf'<script type="application/json" id="{element_id}"[^>]*>(.*?)</script>', page, re.S)
    assert m, f"no <script id={element_id}>"
    return m.group(1)


def script_problems(data: str, expected) -> list:
    out = [f"{bad!r} in script data" for bad in ("<", "</", "<!--", "\u2028", "\u2029") if bad in data]
    if json.loads(data) != expected:
        out.append("script data does not read back as the file")
    return out


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    path = hostile_file(tmp_path_factory.mktemp("hostile"))
    assert cli.main(["check", str(path)]) == 0           # a file costbook check accepts
    return path, measurements.load(path)


@pytest.fixture(scope="module")
def executed(tmp_path_factory, hostile):
    """A copy of the fixture book with a live estimate, and an executed chapter whose outputs are
    the hostile file's measured-machine note and provenance table, as chapters 1-5 show them."""
    path, mset = hostile
    book = tmp_path_factory.mktemp("book") / "book"
    shutil.copytree(FIXTURE, book)
    (book / "chapters" / "live").mkdir()
    shutil.copy(ROOT / "chapters" / "live" / "veccom.json", book / "chapters" / "live" / "veccom.json")
    nb = nbformat.read(FIXTURE / "chapters" / "01-alpha.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(live_page.block(["veccom"])))
    nb.cells.append(nbformat.v4.new_code_cell("display(Markdown(report.measured_machine(here)))", outputs=[
        nbformat.v4.new_output("display_data", data={"text/markdown": report.measured_machine(mset),
                                                     "text/plain": "<IPython.core.display.Markdown object>"}),
        nbformat.v4.new_output("display_data", data={"text/html": report.provenance_table(mset).to_html(),
                                                     "text/plain": report.provenance_table(mset).to_text()})]))
    nbdir = book.parent / "executed"
    (nbdir / "chapters").mkdir(parents=True)
    nbformat.write(nb, nbdir / "chapters" / "01-alpha.ipynb")
    return book, nbdir


def test_the_measured_machine_note_is_text(hostile):
    """Read by the offline renderer's Markdown and by pandoc (Quarto's), the note is its words."""
    import pypandoc
    _, chapters = load_book(FIXTURE)
    _, mset = hostile
    note = report.measured_machine(mset)
    said = (f"The measured machine of this chapter, whose prices its tables and figures use, is "
            f"{measurements.machine_words(mset)} (measurement file {mset.name}). The book as published "
            f"uses its reference machine, {measurements.machine_words(measurements.load_source('reference'))}.")
    for reader, html in (("the offline renderer", ChapterMarkdown(chapters[1])(note)),
                         ("pandoc", pypandoc.convert_text(note, "html", format="markdown-smart", extra_args=["--mathjax"]))):
        assert markup_problems(html, NOTE_TAGS) == [], reader
        assert words(BeautifulSoup(html, "html.parser").get_text()) == words(said), reader


def test_the_provenance_table_is_text(hostile):
    _, mset = hostile
    html = report.provenance_table(mset).to_html()
    assert markup_problems(html, TABLE_TAGS) == []
    assert words(HOSTILE) in words(BeautifulSoup(html, "html.parser").get_text())


def test_the_live_page_embeds_json_as_data(hostile):
    path, _ = hostile
    export = (ROOT / "chapters" / "live" / "veccom.json").read_text(encoding="utf-8")
    export = export.replace('"title":"', '"title":"' + json.dumps(HOSTILE, ensure_ascii=False)[1:-1] + " ", 1)
    page = live_page.page_scripts({"veccom": export}, "_static", live_page.machine_script(path))
    assert script_problems(script_data(page, "costbook-live-machine"), json.loads(path.read_text())) == []
    assert BeautifulSoup(page, "html.parser").find("script", id="costbook-live-machine")["data-file"] == FILE_NAME
    assert script_problems(script_data(page, "costbook-live-data-veccom"), json.loads(export)) == []
    scripts = re.findall(r'<script src="([^"]+)"></script>', page)
    assert scripts == ["_static/live/pricing.js", "_static/live/live.js"]


def test_the_offline_book_shows_the_file_as_text(hostile, executed, tmp_path, monkeypatch):
    path, mset = hostile
    book, nbdir = executed
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(path))
    render_book(book, tmp_path / "out", nbdir)
    page = (tmp_path / "out" / "chapters" / "01-alpha.html").read_text(encoding="utf-8")
    s = BeautifulSoup(page, "html.parser")
    outputs = s.select(".cell-output-display")[-2:]
    assert markup_problems(str(outputs[0]), NOTE_TAGS | {"div"}) == []
    assert markup_problems(str(outputs[1]), TABLE_TAGS | {"div"}) == []
    footer = s.select_one("footer.page-footer")
    assert markup_problems(footer.decode_contents(), {"span"}) == []
    assert words(footer.get_text()) == words(f"Source: chapters/01-alpha.ipynb (outputs of a fresh run); "
                                             f"measurements: {FILE_NAME} ({measurements.machine_text(mset.provenance['machine'], arch=True)})")
    # no element anywhere on the page carries an attribute the file wrote
    assert [t.name for t in s.find_all(True) if any(a.lower().startswith("on") for a in t.attrs)] == []
    assert script_problems(script_data(page, "costbook-live-machine"), json.loads(path.read_text())) == []
    assert s.find("script", id="costbook-live-machine")["data-file"] == FILE_NAME
    assert script_problems(script_data(page, "costbook-live-data-veccom"),
                           json.loads((ROOT / "chapters" / "live" / "veccom.json").read_text())) == []
    assert re.findall(r'<script src="[^"]*/live/(\w+\.js)"></script>', page) == ["pricing.js", "live.js"]


def test_the_quarto_book_shows_the_file_as_text(hostile, executed, tmp_path):
    """The notebook copied for Quarto, through the book's ipynb filter and pandoc as Quarto reads it."""
    import pypandoc
    book, nbdir = executed
    prepare_project(book, nbdir, tmp_path / "quarto")
    nb = ipynb_filter.filter_notebook(json.loads((tmp_path / "quarto" / "chapters" / "01-alpha.ipynb").read_text()))
    shown = [o["data"]["text/markdown"] for o in nb["cells"][-1]["outputs"]]
    assert len(shown) == 2
    for markdown, allowed in zip(shown, (NOTE_TAGS, TABLE_TAGS)):
        html = pypandoc.convert_text("".join(markdown), "html", format="markdown", extra_args=["--mathjax"])
        assert markup_problems(html, allowed) == []


def test_the_provenance_table_cites_nothing_a_file_says(hostile):
    """A "[@key]" in a file's words is text in its provenance table, never a citation (a key no
    bibliography has stopped the offline render; a key it has became a link)."""
    _, mset = hostile
    said = "[@no-such-key] [@vovk-2005, p. 1]"
    mset.provenance["machine"]["cpu"] = said
    html = report.provenance_table(mset).to_html()
    assert "data-qmd" not in html and "[@" not in html
    assert said in BeautifulSoup(html, "html.parser").get_text()
    assert said in report.provenance_table(mset).to_text()


def test_the_provenance_table_of_a_public_machine():
    mset = measurements.load(ROOT / "measurements" / "public" / "aws-m6i-8xlarge.json")
    text = report.provenance_table(mset).to_text()
    assert "zkalc" in text and "m6i" in text and "spread" in text

