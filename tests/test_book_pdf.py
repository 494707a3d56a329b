"""The PDF of the book (python -m costbook.book.pdf), made once per session from the committed chapters.

Opened with pypdf: every chapter's title, the figures, the tables, a citation label and the
reference list are in its text; its chapter, figure and table numbers are the offline book's, in
the same order; nothing is set beyond the page; a PDF made from the same pages is not made again.
"""
from __future__ import annotations

import contextlib
import html
import os
import subprocess
import sys
import re
import signal
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_CAPTION = re.compile(r"\b(Figure|Table) ([0-9]+|[A-Z])\.([0-9]+):")
_CAPTION_LINE = re.compile(r"^\s*(Figure|Table) ([0-9]+|[A-Z])\.([0-9]+):", re.M)   # a caption opens its line


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The offline book from the committed chapters and its PDF: (book folder, PDF path)."""
    from costbook.book import pdf
    from costbook.book.render import render_book
    out = tmp_path_factory.mktemp("book")
    render_book(ROOT, out, ROOT / "chapters")
    assert pdf.main(["--project", str(ROOT), "--book", str(out)]) == 0
    return out, out / "costbook.pdf"


@pytest.fixture(scope="module")
def read(book):
    """One pass of pypdf over the PDF: each page's text, and the text runs that start outside their page."""
    from pypdf import PdfReader
    texts, outside = [], []
    for n, page in enumerate(PdfReader(book[1]).pages, 1):
        width, height = float(page.mediabox.width), float(page.mediabox.height)

        def visit(s, cm, tm, font, size, n=n, width=width, height=height):
            if not s.strip():
                return
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
            if not (-1 <= x <= width and -1 <= y <= height):
                outside.append((n, round(x), round(y), s[:30]))
        texts.append(page.extract_text(visitor_text=visit))
    return texts, outside


@pytest.fixture(scope="module")
def text(read):
    return read[0]


def _flat(s: str) -> str:
    return " ".join(s.replace("\u200b", "").replace("\u2060", "").split())


def test_every_chapter_title_is_in_the_pdf(text):
    from costbook.book.render import load_book
    _, chapters = load_book(ROOT)
    whole = _flat(" ".join(text))
    missing = [ch.title_text for ch in chapters if _flat(ch.title_text) not in whole]
    assert not missing
    assert any("Reproduction ledger" in _flat(t) for t in text)       # the ledger appendix


def test_figures_tables_citations_and_references(text):
    whole = _flat(" ".join(text))
    figures = {m for t in text for m in _CAPTION_LINE.findall(t) if m[0] == "Figure"}
    assert len(figures) >= 17
    assert "Table 2.1" in whole
    assert "Eskandarian 2021a" in whole                    # a citation label, as the book gives it
    refs = [i for i, t in enumerate(text) if re.match(r"\s*References\b", t)]
    assert refs, "no page opens with References"
    assert "Camenisch, Jan, and Victor Shoup. 2003" in _flat(" ".join(text[refs[0]:]))


def test_numbers_agree_with_the_offline_book(book, text):
    """Chapters (in the PDF's outline) and figure and table captions (in its text), in book order."""
    from pypdf import PdfReader
    from costbook.book.pdf import book_pages
    folder, path = book
    offline_captions, offline_chapters = [], []
    for _, href in book_pages(ROOT):
        page = (folder / href).read_text(encoding="utf-8")
        title = re.search(r'<h1 class="title">(.*?)</h1>', page, re.S).group(1)
        number = re.search(r'<span class="chapter-number">(.*?)</span>', title)
        offline_chapters.append(_flat(html.unescape(re.sub(r"<[^>]+>", " ", title))) if number else None)
        offline_captions += _CAPTION.findall(html.unescape(re.sub(r"<[^>]+>", "", " ".join(
            re.findall(r"<figcaption>(.*?)</figcaption>", page, re.S)))))
    pdf_captions = [m for t in text for m in _CAPTION_LINE.findall(t)]
    assert pdf_captions == offline_captions
    outline = [_flat(item.title) for item in PdfReader(path).outline if not isinstance(item, list)]
    numbered = [t for t in outline if re.match(r"^([0-9]+|[A-Z]) ", t)]
    assert numbered == [c for c in offline_chapters if c]


def test_nothing_is_set_beyond_the_page(read):
    """Wide tables are narrowed, set smaller or scaled: no text starts outside a page's box."""
    assert not read[1], read[1][:10]


def test_an_unchanged_book_is_not_made_again(book, capsys):
    from costbook.book import pdf
    folder, path = book
    made = path.stat().st_mtime_ns
    assert pdf.main(["--project", str(ROOT), "--book", str(folder)]) == 0
    assert "unchanged" in capsys.readouterr().out and path.stat().st_mtime_ns == made
    index = folder / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace("This book", "This  book", 1), encoding="utf-8")
    assert not pdf.up_to_date(ROOT, folder, path)


def test_both_html_books_link_the_pdf(book):
    import yaml
    folder, _ = book
    config = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))
    assert "pdf" in config["book"]["downloads"] and config["book"]["output-file"] == "costbook"   # Quarto's link
    # Quarto's link goes to the book's own PDF, which the post-render step writes (no Typst format of
    # Quarto's own: its book drops the rows of tables longer than a page)
    assert "typst" not in config["format"] and "pdf" not in config["format"]
    assert config["project"]["post-render"] == "sage/costbook/book/assets/quarto_post_render.py"
    page = (folder / "chapters" / "02-punch-cards.html").read_text(encoding="utf-8")
    assert '<a class="download-pdf" href="../costbook.pdf" download>Download PDF</a>' in page


def _post_render(env: dict) -> subprocess.CompletedProcess:
    """The post-render script as Quarto runs it: QUARTO_PYTHON, in the project folder."""
    import yaml
    script = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))["project"]["post-render"]
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("QUARTO_", "COSTBOOK_PDF"))}
    return subprocess.run([sys.executable, script], cwd=ROOT, env={**keep, **env}, capture_output=True, text=True, timeout=120)


def test_quartos_post_render_puts_the_books_pdf_behind_its_download_link(book, tmp_path):
    folder, path = book
    out = tmp_path / "_book"
    done = _post_render({"QUARTO_PROJECT_OUTPUT_DIR": str(out), "QUARTO_PROJECT_RENDER_ALL": "1", "COSTBOOK_PDF": str(path)})
    assert done.returncode == 0, done.stderr
    assert (out / "costbook.pdf").read_bytes() == path.read_bytes() and done.stdout.count("\n") == 1
    assert [p.name for p in out.iterdir()] == ["costbook.pdf"]              # no stamp, no temporary file
    # a render of some pages only keeps the last full render's PDF
    (out / "costbook.pdf").write_bytes(b"earlier")
    done = _post_render({"QUARTO_PROJECT_OUTPUT_DIR": str(out), "COSTBOOK_PDF": str(path)})
    assert done.returncode == 0 and (out / "costbook.pdf").read_bytes() == b"earlier"


@pytest.mark.parametrize("env, says", [
    ({}, "QUARTO_PROJECT_OUTPUT_DIR is not set"),
    ({"QUARTO_PROJECT_OUTPUT_DIR": "_book", "QUARTO_PROJECT_RENDER_ALL": "1", "COSTBOOK_PDF": "/nonexistent/x.pdf"},
     "COSTBOOK_PDF=/nonexistent/x.pdf: no such file"),
])
def test_quartos_post_render_refuses_in_one_line(env, says):
    done = _post_render(env)
    assert done.returncode == 2 and done.stderr.strip().startswith("post-render: error:") and says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_missing_page_is_one_line_and_exit_2(tmp_path, capsys):
    from costbook.book import pdf
    assert pdf.main(["--project", str(ROOT), "--book", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("pdf: error:") and "index.html" in err


def test_an_escaped_dollar_inside_a_formula_stays_in_it():
    """`$s \\xleftarrow{\\$} S$` is one formula, as MathJax reads it: the escaped dollar does not close
    it (it did, and the rest of the paragraph was set as mathematics)."""
    from bs4 import BeautifulSoup
    from costbook.book.pdf import mark_math
    soup = BeautifulSoup(r"<p>Setup: $s \xleftarrow{\$} \{0,1\}$, then $r$; $$a \$ b$$ costs \$5.</p>", "html.parser")
    mark_math(soup)
    spans = [(s["class"], s["data-tex"]) for s in soup.find_all("span")]
    assert spans == [(["math", "inline"], r"s \xleftarrow{\$} \{0,1\}"), (["math", "inline"], "r"),
                     (["math", "display"], r"a \$ b")]
    assert soup.get_text().endswith("costs $5.")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_making_the_pdf_leaves_no_pandoc_and_no_work_folder(book, tmp_path, sig):
    """SIGTERM during the PDF build left pandoc running and its temporary folder behind; SIGINT printed
    a traceback.  Now pandoc ends with the build, the work folder and any half PDF go, one line says so."""
    import psutil
    folder, _ = book
    out = tmp_path / "out" / "x.pdf"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "costbook.book.pdf", "--project", str(ROOT), "--book", str(folder),
                             "--out", str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    started = []
    while time.monotonic() < deadline and not started and proc.poll() is None:
        with contextlib.suppress(psutil.Error):
            started = me.children(recursive=True)
        time.sleep(0.02)
    if not started:
        out_text, err_text = proc.communicate(timeout=60)
        pytest.fail(f"pandoc never started (exit {proc.returncode}): {out_text} {err_text}")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -sig, (proc.returncode, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted:") and "Traceback" not in err, err
    _, alive = psutil.wait_procs(started, timeout=10)
    assert not alive, alive
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("costbook-pdf-")] == []
    assert not out.exists() and not list(out.parent.glob("*.part"))


SECOND_SIGNAL = """
import os, shutil, signal, sys, time
from pathlib import Path
from costbook.book import interrupt, pdf
work = Path(sys.argv[1])
pdf.book_typst = lambda root, book, folder: (folder / "book.typ").write_text("x") or folder / "book.typ"
pdf.compile_typst = lambda source, out: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(30))
remove = shutil.rmtree
def removed_after_a_second_signal(*args, **kwargs):   # make passes the group's SIGTERM on again
    os.kill(os.getpid(), signal.SIGTERM)
    return remove(*args, **kwargs)
shutil.rmtree = removed_after_a_second_signal
try:
    with interrupt.raised_as_exception():
        pdf.build_pdf(work, work, work / "x.pdf")
except interrupt.Interrupted:
    print("left:", sorted(p.name for p in work.iterdir() if p.name.startswith("costbook-pdf-")))
"""


def test_a_second_sigterm_does_not_cut_the_work_folders_removal_short(tmp_path):
    """make, sent SIGTERM with its process group, sends its child SIGTERM again: the second one cut the
    work folder's removal short (a make book interrupted while it made the PDF left it behind)."""
    done = subprocess.run([sys.executable, "-c", SECOND_SIGNAL, str(tmp_path)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.stdout.strip() == "left: []", (done.returncode, done.stdout, done.stderr)


def test_a_cell_that_starts_like_typst_markup_shows_as_its_characters(tmp_path):
    """pandoc escapes "- x" in a paragraph but not at the start of a table cell, where Typst read it as a
    list (and "+ x", "/ term:", "= x", "1. x" as an enumeration, a description, a heading)."""
    import pypandoc
    import typst
    from pypdf import PdfReader
    from costbook.book.pdf import LUA_FILTER
    cells = ["- minus", "+ plus", "/ term: x", "= head", "1. one"]
    html = "<table><tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr></table>"
    body = pypandoc.convert_text(html, "typst", format="html", extra_args=["--lua-filter", str(LUA_FILTER)])
    (tmp_path / "t.typ").write_text(body)
    typst.compile(str(tmp_path / "t.typ"), output=str(tmp_path / "t.pdf"))
    text = " ".join(PdfReader(tmp_path / "t.pdf").pages[0].extract_text().split())
    assert text == " ".join(cells), text


def test_a_table_cell_breaks_after_a_key_s_joints_never_inside_a_number():
    """Table B.2 printed "[1.|38-3.67]" and "[320-1,|222]": the break opportunities the filter puts into
    long words fell inside numbers too."""
    import pypandoc
    from costbook.book.pdf import LUA_FILTER
    cell = "2.4 ms [1.38–3.67] [320–1,222] 1,528.5 µs pointproofs/commit_update"
    body = pypandoc.convert_text(f"<table><tr><td>{cell}</td></tr></table>", "typst", format="html",
                                 extra_args=["--lua-filter", str(LUA_FILTER)])
    marked = re.sub(r"\\(.)", r"\1", body.replace("\u200b", "|"))
    assert "[1.38--3.67]" in marked and "[320--1,222]" in marked and "1,528.5" in marked, marked
    assert "pointproofs/|commit_|update" in marked, marked


def test_the_title_page_and_the_code_the_html_folds(text):
    """The title page's subtitle is not hyphenated; code the HTML folds away (the cells that draw the
    tables and figures) is not printed, the scheme's own code is."""
    assert "protocols" in _flat(text[0]).split() and "-\n" not in text[0], text[0]
    whole = _flat(" ".join(text))
    assert "def ledger_table" not in whole and "def counts_table" not in whole
    assert "def punch" in whole and "def redeem" in whole
