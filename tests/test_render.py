"""The offline book renderer (costbook.book.render) on the tiny book in tests/fixtures/book."""
from __future__ import annotations

import base64
import json
import posixpath
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from costbook.book import cells, render
from costbook.book.project import BookConfigError
from costbook.book.render import RenderError, render_book

FIXTURE = Path(__file__).parent / "fixtures" / "book"
PAGES = ["index.html", "chapters/01-alpha.html", "chapters/02-beta.html"]


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    written = render_book(FIXTURE, out)
    return out, written


def soup(out: Path, page: str) -> BeautifulSoup:
    return BeautifulSoup((out / page).read_text(encoding="utf-8"), "html.parser")


def resolve(page: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), href.split("#")[0]))


def test_one_page_per_chapter_mirroring_paths(book):
    out, written = book
    assert [p.relative_to(out).as_posix() for p in written] == PAGES
    assert all(p.is_file() for p in written)


def test_sidebar_lists_every_page_with_parts_and_numbers(book):
    out, _ = book
    for page in PAGES:
        s = soup(out, page)
        side = s.select_one("nav.sidebar")
        assert side.select_one(".sidebar-title").get_text(strip=True) == "Fixture Book"
        links = [resolve(page, a["href"]) for a in side.select("li a")]
        assert links == PAGES
        assert [t.get_text(strip=True) for t in side.select(".toc-part-title")] == ["Part One", "Part Two"]
        titles = [a.get_text(" ", strip=True) for a in side.select("li a")]
        assert titles == ["Preface", "1 Alpha", "2 Beta"]
        active = side.select("a.active")
        assert len(active) == 1 and resolve(page, active[0]["href"]) == page


def test_chapter_titles_and_numbering(book):
    out, _ = book
    h1 = {p: soup(out, p).select_one("h1.title") for p in PAGES}
    assert h1["index.html"].get_text(" ", strip=True) == "Preface"
    assert h1["index.html"].select_one(".chapter-number") is None
    assert h1["chapters/01-alpha.html"].get_text(" ", strip=True) == "1 Alpha"
    assert h1["chapters/02-beta.html"].get_text(" ", strip=True) == "2 Beta"
    # the title heading is not repeated in the body, nor its {.unnumbered}/{#id} attributes shown
    for p in PAGES:
        body = soup(out, p).select_one("article.chapter-body")
        assert body.find("h1") is None
        assert "{" not in " ".join(h.get_text() for h in soup(out, p).find_all(re.compile("^h[1-6]$")))
    alpha = soup(out, "chapters/01-alpha.html")
    numbers = [n.get_text() for n in alpha.select("article .header-section-number")]
    assert numbers == ["1.1", "1.1.1", "1.2"]
    assert soup(out, "index.html").select("article .header-section-number") == []
    assert soup(out, "chapters/02-beta.html").find(id="sec-only") is not None
    assert "Test Author" in soup(out, "index.html").select_one(".book-cover").get_text()
    assert soup(out, "chapters/01-alpha.html").select_one(".book-cover") is None


def test_prev_next_links(book):
    out, _ = book
    expect = {"index.html": (None, "chapters/01-alpha.html"),
              "chapters/01-alpha.html": ("index.html", "chapters/02-beta.html"),
              "chapters/02-beta.html": ("chapters/01-alpha.html", None)}
    for page, (prev, nxt) in expect.items():
        nav = soup(out, page).select_one("nav.page-nav")
        got_prev = nav.select_one("a[rel=prev]")
        got_next = nav.select_one("a[rel=next]")
        assert (resolve(page, got_prev["href"]) if got_prev else None) == prev
        assert (resolve(page, got_next["href"]) if got_next else None) == nxt
    assert "2 Beta" in soup(out, "chapters/01-alpha.html").select_one("a[rel=next]").get_text(" ", strip=True)


def test_on_this_page_lists_sections_with_working_anchors(book):
    out, _ = book
    for page, sections in [("index.html", ["Reading guide", "Second section"]),
                           ("chapters/01-alpha.html", ["1.1 First section", "1.1.1 A subsection",
                                                       "1.2 Second section"]),
                           ("chapters/02-beta.html", ["2.1 Only section"])]:
        s = soup(out, page)
        toc = s.select("nav.page-toc li a")
        assert [a.get_text(" ", strip=True) for a in toc] == sections
        for a in toc:
            assert a["href"].startswith("#")
            target = s.find(id=a["href"][1:])
            assert target is not None and target.name in ("h2", "h3")
    alpha = soup(out, "chapters/01-alpha.html")
    assert alpha.find("h2", id="first-section") is not None
    assert alpha.find("h3", id="a-subsection") is not None


def test_code_cells_and_outputs(book):
    out, _ = book
    s = soup(out, "chapters/01-alpha.html")
    code = "\n".join(c.get_text() for c in s.select(".cell-code"))
    assert "print('hello from alpha')" in code
    assert s.select_one(".cell-code .highlight") is not None       # Pygments markup
    assert s.select_one(".cell-code .highlight .nb") is not None   # `print` is a highlighted builtin
    assert "#|" not in code and "fig-cap" not in code and "label:" not in code
    outputs = "\n".join(o.get_text() for o in s.select(".cell-output"))
    assert "hello from alpha" in outputs and "42" in outputs
    # `#| echo: false`: code hidden, output shown
    assert "only the output of a hidden cell" in outputs
    assert "print('only the output" not in code
    # tag remove-cell and `#| include: false`: nothing shown
    text = s.get_text()
    for hidden in ("secret_removed_cell", "REMOVED_OUTPUT", "secret_included_false", "INCLUDE_FALSE_OUTPUT"):
        assert hidden not in text
    # HTML table output, unescaped, with its caption
    table = s.select_one(".cell-output-display table.costbook-table")
    assert table is not None and table.caption.get_text() == "prices"
    assert [td.get_text() for td in table.select("td")] == ["modexp/2048/256", "493 µs"]


def test_images_embedded_as_data_uris(book):
    out, _ = book
    s = soup(out, "chapters/01-alpha.html")
    imgs = s.select(".cell-output-display img")
    assert len(imgs) == 1
    src = imgs[0]["src"]
    assert src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    fig = s.select_one("figure#fig-squares")
    assert fig is not None and fig.figcaption.get_text() == "Figure 1.1: Squares of $n$"
    # a local image in Markdown (../images/dot.png, outside the chapter's folder, inside the project)
    dot = s.select_one(".cell-markdown img[alt='a dot']")
    assert dot["src"].startswith("data:image/png;base64,")
    assert base64.b64decode(dot["src"].split(",", 1)[1]) == (FIXTURE / "images" / "dot.png").read_bytes()


def test_ids_are_unique_and_footnotes_link(book):
    out, _ = book
    for page in PAGES:
        s = soup(out, page)
        ids = [t["id"] for t in s.find_all(id=True)]
        assert len(ids) == len(set(ids)), page
        for a in s.select("article a[href^='#']"):
            assert s.find(id=a["href"][1:]) is not None, (page, a["href"])
    alpha = soup(out, "chapters/01-alpha.html")
    assert len(alpha.select("sup.footnote-ref")) == 2


def test_markdown_outputs_stderr_and_code_fold(book):
    out, _ = book
    s = soup(out, "chapters/02-beta.html")
    md_out = s.select_one(".cell-output-display strong")
    assert md_out is not None and md_out.get_text() == "bold"
    assert "$y_j$" in s.select_one(".cell-output-display").get_text()
    assert "UserWarning: careful" in s.select_one(".cell-output-stderr").get_text()
    fold = s.select_one("details.code-fold")
    assert fold is not None and fold.summary.get_text() == "Code"
    assert "Markdown('**bold** output')" in fold.get_text()


def test_error_outputs_are_escaped_and_coloured(book):
    out, _ = book
    s = soup(out, "chapters/02-beta.html")
    err = s.select_one(".cell-output-error")
    assert err.get_text() == "ValueError: <bad>"
    assert err.select_one("span.ansi-red-fg").get_text() == "ValueError"
    assert "&lt;bad&gt;" in (out / "chapters/02-beta.html").read_text(encoding="utf-8")


def test_cross_references_and_captions(book):
    out, _ = book
    index = soup(out, "index.html")
    refs = {a.get_text(): a["href"] for a in index.select("a.xref")}
    assert refs == {"Chapter\u00a02": "chapters/02-beta.html",
                    "Section\u00a02.1": "chapters/02-beta.html#sec-only",
                    "Figure\u00a01.1": "chapters/01-alpha.html#fig-squares"}
    assert index.select_one(".xref-missing").get_text() == "?@fig-nowhere"
    beta = soup(out, "chapters/02-beta.html")
    para = beta.find("h2", id="sec-only").find_next("p")
    assert [(a.get_text(), a["href"]) for a in para.select("a.xref")] == [
        ("Figure\u00a01.1", "01-alpha.html#fig-squares"), ("Table\u00a01.1", "01-alpha.html#tbl-costs"),
        ("2.1", "#sec-only")]
    assert "(and Table\u00a01.1);" in para.get_text()           # [@tbl-x] loses its brackets
    assert "a@sec-not.example" in para.get_text()                # not a reference
    assert para.code.get_text() == "@fig-squares"                # code is left alone
    alpha = soup(out, "chapters/01-alpha.html")
    tbl = alpha.select_one("figure.table#tbl-costs")
    assert tbl.figcaption.get_text() == "Table 1.1: Prices of Chapter\u00a02"
    assert tbl.find("table") is not None


def test_math_survives_markdown_for_mathjax(book):
    out, _ = book
    index = (out / "index.html").read_text(encoding="utf-8")
    # underscores and asterisks inside $...$ are not emphasis
    assert r"$T = \sum_k c_k \, t_k$" in index
    assert r"$a_1 * b_2 * c_3$" in index
    assert "$$\nT \\;=\\; \\sum_{k} c_k \\, t_k ,\n$$" in index
    assert r"\$5" in index                      # an escaped dollar stays escaped (MathJax processEscapes)
    assert "<em>" not in index.split("keeps its")[0].split("count</em>")[-1]
    alpha = (out / "chapters/01-alpha.html").read_text(encoding="utf-8")
    assert r"\begin{aligned}" in alpha and r"\end{aligned}" in alpha
    assert r"$c_k \cdot t_k$" in alpha
    beta = (out / "chapters/02-beta.html").read_text(encoding="utf-8")
    assert r"$\Theta(M^{2})$" in beta and r"$b^e \bmod N$" in beta
    # MathJax is configured for $...$ and loaded from the local copy
    for page in PAGES:
        s = soup(out, page)
        config = "".join(t.get_text() for t in s.find_all("script") if not t.get("src"))
        assert 'inlineMath: [["$", "$"]' in config
        srcs = [t["src"] for t in s.find_all("script") if t.get("src")]
        assert len(srcs) == 1 and srcs[0].endswith("_static/mathjax/tex-svg-full.js")
        assert (out / resolve(page, srcs[0])).is_file()


def test_static_files_and_nothing_from_the_network(book):
    out, _ = book
    mj = out / "_static" / "mathjax" / "tex-svg-full.js"
    assert mj.is_file() and mj.stat().st_size > 1_000_000
    assert (out / "_static" / "mathjax" / "LICENSE").is_file()
    css = out / "_static" / "costbook.css"
    assert css.is_file() and ".highlight" in css.read_text() and "http" not in css.read_text()
    for page in PAGES:
        text = (out / page).read_text(encoding="utf-8")
        s = BeautifulSoup(text, "html.parser")
        for tag in s.find_all(["script", "link", "img", "iframe", "source", "video", "audio"]):
            for attr in ("src", "href"):
                url = tag.get(attr, "")
                assert not re.match(r"\s*(https?:)?//", url), f"{page}: {tag.name} loads {url}"
        assert not re.search(r"<(script|link)\b[^>]*(src|href)=[\"']?(https?:)?//", text)
        assert re.search(r"@import|url\(\s*['\"]?https?:", text) is None
        hrefs = [ln["href"] for ln in s.find_all("link", rel="stylesheet")]
        assert hrefs and all((out / resolve(page, h)).is_file() for h in hrefs)
    # an output's external <script>/<link> is dropped, the rest of the output kept
    beta = soup(out, "chapters/02-beta.html")
    assert beta.select_one(".cell-output-display div.widget").get_text() == "WIDGET_BODY"
    assert "cdn.example.org" not in (out / "chapters/02-beta.html").read_text(encoding="utf-8")
    # a link in prose text is fine
    assert soup(out, "index.html").find("a", href="https://quarto.org") is not None


def test_footer_names_measurement_file_and_machine_not_its_path(tmp_path, monkeypatch):
    measured = tmp_path / "deep" / "where" / "this-machine.json"
    measured.parent.mkdir(parents=True)
    measured.write_text(json.dumps({"provenance": {"machine": {"cpu": "AMD EPYC", "cores": 2, "arch": "x86_64"}}}))
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(measured))
    render_book(FIXTURE, tmp_path / "out")
    footer = soup(tmp_path / "out", "chapters/01-alpha.html").select_one("footer.page-footer").get_text()
    assert footer == ("Source: chapters/01-alpha.ipynb; "
                      "measurements: this-machine.json (AMD EPYC, 2 cores, x86_64)")


def test_footer_never_shows_an_absolute_path_for_executed_copies_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(tmp_path / "missing.json"))
    nbdir = tmp_path / "executed"
    (nbdir / "chapters").mkdir(parents=True)
    shutil.copy(FIXTURE / "chapters" / "02-beta.ipynb", nbdir / "chapters" / "02-beta.ipynb")
    render_book(FIXTURE, tmp_path / "out", notebook_dir=nbdir)
    footer = soup(tmp_path / "out", "chapters/02-beta.html").select_one("footer.page-footer").get_text()
    assert footer == ("Source: chapters/02-beta.ipynb (outputs of a fresh run); "
                      "measurements: missing.json")


def test_footer_default_measurements_is_reference(book):
    out, _ = book
    footer = soup(out, "index.html").select_one("footer.page-footer").get_text()
    assert footer == "Source: index.qmd; measurements: the reference file"


def test_executed_copies_in_notebook_dir_win(tmp_path):
    nbdir = tmp_path / "executed"
    (nbdir / "chapters").mkdir(parents=True)
    nb = nbformat.read(FIXTURE / "chapters" / "01-alpha.ipynb", as_version=4)
    nb.cells[3].outputs[0]["text"] = "hello from the freshly executed copy\n"
    nbformat.write(nb, nbdir / "chapters" / "01-alpha.ipynb")
    out = tmp_path / "out"
    render_book(FIXTURE, out, notebook_dir=nbdir)
    alpha = soup(out, "chapters/01-alpha.html")
    assert "hello from the freshly executed copy" in alpha.get_text()
    # images beside the committed chapter are still found
    assert alpha.select_one(".cell-markdown img[alt='a dot']")["src"].startswith("data:image/png;base64,")
    footer = alpha.select_one("footer").get_text()
    assert "Source: chapters/01-alpha.ipynb (outputs of a fresh run);" in footer and str(tmp_path) not in footer
    # 02-beta has no executed copy: the committed one is used
    assert "Source: chapters/02-beta.ipynb;" in soup(out, "chapters/02-beta.html").select_one("footer").get_text()


def test_pages_of_dropped_chapters_are_removed_and_nothing_else(tmp_path):
    out = tmp_path / "out"
    (out / "chapters").mkdir(parents=True)
    stale = out / "chapters" / "00-old.html"
    stale.write_text('<html><head><meta name="generator" content="costbook.book.render"></head></html>')
    mine = out / "notes.html"
    mine.write_text("<html>not ours</html>")
    render_book(FIXTURE, out)
    assert not stale.exists() and mine.exists()
    assert all((out / p).is_file() for p in PAGES)


def _project(tmp_path: Path, quarto: str) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    (root / "_quarto.yml").write_text(quarto)
    return root


def test_missing_chapter_is_a_clear_error(tmp_path):
    root = _project(tmp_path, "book:\n  title: x\n  chapters:\n    - index.qmd\n    - chapters/09-missing.ipynb\n")
    with pytest.raises(RenderError, match=r"chapters/09-missing\.ipynb does not exist"):
        render_book(root, tmp_path / "out")
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("text", ["book:\n  title: x\n", "project:\n  type: book\n", "book: [\n", ""])
def test_malformed_quarto_yml_is_a_clear_error(tmp_path, text):
    root = _project(tmp_path, text)
    with pytest.raises(BookConfigError, match=r"_quarto\.yml"):
        render_book(root, tmp_path / "out")


def test_notebook_that_is_not_json_is_a_clear_error(tmp_path):
    root = _project(tmp_path, (FIXTURE / "_quarto.yml").read_text())
    (root / "chapters" / "02-beta.ipynb").write_text("{ this is not json")
    with pytest.raises(RenderError, match=r"02-beta\.ipynb: not a valid Jupyter notebook"):
        render_book(root, tmp_path / "out")


def test_cli(tmp_path, capsys):
    out = tmp_path / "site"
    assert render.main(["--project", str(FIXTURE), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"file://{out.resolve()}/index.html" in printed
    assert all((out / p).is_file() for p in PAGES)
    bad = _project(tmp_path, "book:\n  chapters:\n    - nowhere.qmd\n")
    assert render.main(["--project", str(bad), "--out", str(tmp_path / "x")]) == 2
    assert "nowhere.qmd does not exist" in capsys.readouterr().err


def test_cell_options_parsing():
    opts, code = cells.cell_options("#| echo: false\n#| fig-cap: \"A $x$\"\nx = 1\n#| not an option\n", "t")
    assert opts == {"echo": False, "fig-cap": "A $x$"}
    assert code == "x = 1\n#| not an option"
    assert cells.cell_options("x = 1", "t") == ({}, "x = 1")


def test_fixture_notebooks_are_valid():
    for nb in sorted((FIXTURE / "chapters").glob("*.ipynb")):
        nbformat.validate(nbformat.read(nb, as_version=4))
        assert json.loads(nb.read_text())["metadata"]["kernelspec"]["name"] == "sagemath"


def test_missing_mathjax_package_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mathjax", None)   # import mathjax -> ImportError
    with pytest.raises(RenderError, match=r"django-static-mathjax==3\.2\.2\.1"):
        render_book(FIXTURE, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- citations, appendices, table captions

BIB = """@book{knuth-1997, author = {Knuth, Donald E.}, title = {Seminumerical Algorithms}, publisher = {Addison-Wesley}, year = {1997}}
@misc{seed-note, author = {Doe, Jane}, title = {A Benchmark Note}, howpublished = {File notes.txt}, year = {2020}}
"""


def cited_book(tmp_path: Path, extra_md: str = "") -> Path:
    """The fixture book plus a bibliography, citations in prose and in a table output, and an appendix."""
    root = tmp_path / "book"
    shutil.copytree(FIXTURE, root)
    (root / "references.bib").write_text(BIB)
    (root / "references.qmd").write_text("# References {.unnumbered}\n\n::: {#refs}\n:::\n")
    config = (root / "_quarto.yml").read_text()
    config = config.replace("        - chapters/02-beta.ipynb\n",
                            "        - chapters/02-beta.ipynb\n    - references.qmd\n"
                            "  appendices:\n    - chapters/91-extra.ipynb\n")
    (root / "_quarto.yml").write_text(config + "\nbibliography: references.bib\n")
    nb = nbformat.read(root / "chapters" / "01-alpha.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(
        "Exponentiation is costly [@knuth-1997, p. 461]; as @knuth-1997 notes, see @sec-beta." + extra_md))
    nb.cells.append(nbformat.v4.new_code_cell("#| tbl-cap: Seed lines\nshow()", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/html": "<table><tr><td>1.5 µs</td><td>[@seed-note, line 12]</td></tr></table>",
                              "text/plain": "table"})]))
    nbformat.write(nb, root / "chapters" / "01-alpha.ipynb")
    appendix = nbformat.v4.new_notebook(metadata=nb.metadata)
    appendix.cells = [nbformat.v4.new_markdown_cell("# Extra tables\n\n## A section\n\n"
                                                    "| a | b |\n|---|---|\n| 1 | 2 |\n\n: Two numbers {#tbl-two}\n\n"
                                                    "See @tbl-two.")]
    nbformat.write(appendix, root / "chapters" / "91-extra.ipynb")
    return root


def test_citations_resolve_link_and_list_references(tmp_path):
    out = tmp_path / "out"
    render_book(cited_book(tmp_path), out)
    alpha = soup(out, "chapters/01-alpha.html")
    body = alpha.select_one("article").get_text(" ")
    assert "[@" not in body and "@knuth" not in body
    text = alpha.select_one("article").get_text("")
    assert "(Knuth 1997, 461)" in text and "Knuth (1997)" in text
    cell = alpha.select("figure.table")[-1].select("td")[1]
    assert cell.get_text("", strip=True) == "(Doe 2020, line 12)"
    for a in alpha.select(".citation a"):
        assert a["href"].startswith("#ref-") and alpha.find(id=a["href"][1:]) is not None
    refs = alpha.select_one("section#references")
    assert refs.h2.get_text(strip=True) == "References"
    assert [e["id"] for e in refs.select(".csl-entry")] == ["ref-seed-note", "ref-knuth-1997"]
    assert "References" in [a.get_text(strip=True) for a in alpha.select("nav.page-toc a")]
    assert soup(out, "chapters/02-beta.html").select_one("section#references") is None   # cites nothing
    book_refs = soup(out, "references.html")
    assert {e["id"] for e in book_refs.select("#refs .csl-entry")} == {"ref-knuth-1997", "ref-seed-note"}


def test_unknown_citation_key_is_an_error_naming_key_and_page(tmp_path):
    with pytest.raises(RenderError, match=r"01-alpha\.ipynb.*unknown citation key no-such-work"):
        render_book(cited_book(tmp_path, " And [@no-such-work]."), tmp_path / "out")


def test_appendices_are_lettered_after_the_chapters(tmp_path):
    out = tmp_path / "out"
    render_book(cited_book(tmp_path), out)
    extra = soup(out, "chapters/91-extra.html")
    side = [a.get_text(" ", strip=True) for a in extra.select("nav.sidebar li a")]
    assert side[-1] == "A Extra tables"
    assert extra.select(".toc-part-title")[-1].get_text(strip=True) == "Appendices"
    assert extra.select_one("h1.title").get_text(" ", strip=True) == "A Extra tables"
    assert extra.select_one("h2 .header-section-number").get_text() == "A.1"
    # a pipe table's `: caption {#tbl-x}` numbers and labels it, like a table output
    assert extra.select_one("figure#tbl-two figcaption").get_text(" ", strip=True) == "Table A.1: Two numbers"
    assert extra.select_one("a.xref").get_text() == "Table\u00a0A.1"


def test_figure_alt_text_is_fig_alt_or_the_caption_never_the_matplotlib_repr(tmp_path):
    root = tmp_path / "book"
    shutil.copytree(FIXTURE, root)
    nb = nbformat.read(root / "chapters" / "01-alpha.ipynb", as_version=4)
    png = base64.b64encode((FIXTURE / "images" / "dot.png").read_bytes()).decode()

    def plot(options):
        return nbformat.v4.new_code_cell(options + "plot()", outputs=[nbformat.v4.new_output(
            "display_data", data={"image/png": png, "text/plain": "<Figure size 640x480 with 1 Axes>"})])
    nb.cells += [plot("#| label: fig-a\n#| fig-cap: Cost of *commit* against n\n"),
                 plot("#| fig-cap: A caption\n#| fig-alt: Bars of the six steps, log scale\n"),
                 plot("")]
    nbformat.write(nb, root / "chapters" / "01-alpha.ipynb")
    render_book(root, tmp_path / "out")
    alts = [img["alt"] for img in soup(tmp_path / "out", "chapters/01-alpha.html").select(".cell-output img")][-3:]
    assert alts == ["Cost of commit against n", "Bars of the six steps, log scale", "figure"]


def test_table_cell_data_qmd_spans_become_linked_citations_with_one_label_per_work(tmp_path):
    """A table cell's `<span data-qmd="[@key, ...]">` (costbook.writing.report.Table, read by Quarto too) is a
    citation; two works of the same author and year keep their a/b suffix on pages citing only one."""
    root = cited_book(tmp_path)
    (root / "references.bib").write_text(BIB + "@misc{doe-other, author = {Doe, Jane}, title = {Another Note}, "
                                               "howpublished = {File other.txt}, year = {2020}}\n")
    nb = nbformat.read(root / "chapters" / "01-alpha.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("#| tbl-cap: Spans\nshow()", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/html": '<table class="costbook-table"><tr><td style="text-align: left">'
                                           '<span data-qmd="[@seed-note, line 7]">(Doe 2020a, line 7)</span></td>'
                                           '<td style="text-align: right">2.5 ms</td></tr></table>',
                              "text/plain": "table"})]))
    nbformat.write(nb, root / "chapters" / "01-alpha.ipynb")
    beta = nbformat.read(root / "chapters" / "02-beta.ipynb", as_version=4)
    beta.cells.append(nbformat.v4.new_markdown_cell("The other note [@doe-other]."))
    nbformat.write(beta, root / "chapters" / "02-beta.ipynb")
    out = tmp_path / "out"
    render_book(root, out)
    alpha = soup(out, "chapters/01-alpha.html")
    cell = alpha.select("figure.table")[-1].select("td")[0]
    assert cell.get_text("", strip=True) == "(Doe 2020a, line 7)"
    assert cell.select_one(".citation a")["href"] == "#ref-seed-note" and cell.find("span", attrs={"data-qmd": True}) is None
    assert "(Doe 2020a, line 12)" in alpha.select_one("article").get_text("")
    b = soup(out, "chapters/02-beta.html")
    assert "(Doe 2020b)" in b.select_one("article").get_text("")          # not "Doe 2020" on its own page
    assert [e["id"] for e in b.select("section#references .csl-entry")] == ["ref-doe-other"]
    assert [e["id"] for e in alpha.select("section#references .csl-entry")] == ["ref-seed-note", "ref-knuth-1997"]


def test_front_matter_title_is_numbered_as_quarto_numbers_it(tmp_path):
    """Quarto takes a front-matter title over the first heading, and then only `{.unnumbered}` in the
    title itself unnumbers the page; the index page is numbered like any other."""
    root = tmp_path / "book"
    shutil.copytree(FIXTURE, root)
    text = (root / "index.qmd").read_text()
    (root / "index.qmd").write_text('---\ntitle: "Preface"\n---\n\n' + text)
    out = tmp_path / "out"
    render_book(root, out)
    assert soup(out, "index.html").select_one("h1.title").get_text(" ", strip=True) == "1 Preface"
    assert soup(out, "chapters/01-alpha.html").select_one("h1.title").get_text(" ", strip=True) == "2 Alpha"
    (root / "index.qmd").write_text('---\ntitle: "Preface {.unnumbered}"\n---\n\n' + text)
    render_book(root, out)
    assert soup(out, "index.html").select_one("h1.title").get_text(" ", strip=True) == "Preface"
    (root / "index.qmd").write_text(text.replace("# Preface {.unnumbered}", "# Preface"))
    render_book(root, out)
    assert soup(out, "index.html").select_one("h1.title").get_text(" ", strip=True) == "1 Preface"


def test_project_stylesheet_and_local_mathjax_url_from_quarto_yml(tmp_path):
    """`format.html.css` is linked after the book's stylesheet, and `html-math-method`'s local `url` is
    the MathJax the pages load (what Quarto would serve), copied into _static."""
    root = tmp_path / "book"
    shutil.copytree(FIXTURE, root)
    (root / "assets").mkdir()
    (root / "assets" / "shared.css").write_text("table td { text-align: right; }\n")
    mathjax = render.find_mathjax() / render.MATHJAX_FILE
    (root / "vendor").mkdir()
    shutil.copyfile(mathjax, root / "vendor" / "mj.js")
    config = (root / "_quarto.yml").read_text().replace(
        "    html-math-method: mathjax\n",
        "    css: assets/shared.css\n    html-math-method:\n      method: mathjax\n      url: vendor/mj.js\n")
    (root / "_quarto.yml").write_text(config)
    out = tmp_path / "out"
    render_book(root, out)
    page = soup(out, "chapters/01-alpha.html")
    assert [ln["href"] for ln in page.find_all("link", rel="stylesheet")] == ["../_static/costbook.css",
                                                                            "../_static/shared.css"]
    assert (out / "_static" / "shared.css").read_text() == "table td { text-align: right; }\n"
    assert (out / "_static" / "mathjax" / render.MATHJAX_FILE).read_bytes() == (root / "vendor" / "mj.js").read_bytes()
    (root / "_quarto.yml").write_text(config.replace("assets/shared.css", "assets/missing.css"))
    with pytest.raises(RenderError, match=r"format\.html\.css: assets/missing\.css does not exist"):
        render_book(root, out)


def test_quarto_project_copy_takes_the_executed_chapters(tmp_path):
    """costbook.book.quarto: the project as Quarto needs it, with executed copies in place of the
    committed chapters and every file _quarto.yml names; an earlier copy's files are replaced."""
    from costbook.book.quarto import prepare_project
    root = tmp_path / "book"
    shutil.copytree(FIXTURE, root)
    (root / "assets").mkdir()
    (root / "assets" / "shared.css").write_text("td { color: black; }\n")
    (root / "_quarto.yml").write_text((root / "_quarto.yml").read_text().replace(
        "    html-math-method: mathjax\n", "    css: assets/shared.css\n    html-math-method: mathjax\n"))
    executed = tmp_path / "executed" / "chapters"
    executed.mkdir(parents=True)
    nb = nbformat.read(root / "chapters" / "01-alpha.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("EXECUTED COPY"))
    nbformat.write(nb, executed / "01-alpha.ipynb")
    out = tmp_path / "quarto-project"
    (out / "_book").mkdir(parents=True)
    (out / "_book" / "index.html").write_text("kept")
    (out / "stale.txt").write_text("old")
    written = prepare_project(root, tmp_path / "executed", out)
    names = sorted(p.relative_to(out).as_posix() for p in written)
    assert names == ["_quarto.yml", "assets/shared.css", "chapters/01-alpha.ipynb", "chapters/02-beta.ipynb", "index.qmd"]
    assert "EXECUTED COPY" in (out / "chapters" / "01-alpha.ipynb").read_text()
    assert (out / "chapters" / "02-beta.ipynb").read_bytes() == (root / "chapters" / "02-beta.ipynb").read_bytes()
    assert not (out / "stale.txt").exists() and (out / "_book" / "index.html").read_text() == "kept"
    render_book(out, tmp_path / "out")          # the copy is a complete project
    assert "EXECUTED COPY" in (tmp_path / "out" / "chapters" / "01-alpha.html").read_text()
    with pytest.raises(BookConfigError):
        prepare_project(root, None, root.parent)
