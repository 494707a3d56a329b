"""What a reader sees: the committed chapters rendered offline, every page scanned.

One render of the whole book (from _quarto.yml and the committed chapters/*.ipynb) for the
module; each test lists every violation of every page in its failure message.

    python tests/test_book_html.py OUT.md    writes the violations per page as Markdown
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]

_ABSOLUTE_PATH = re.compile(r"(?<![\w.])(/work/|/home/|/tmp/|/root/|file://)")
_BUILD_TALK = re.compile(r"build environment|sandbox|this environment", re.I)
_PY_SEQUENCE = re.compile(r"""^\s*(\[.*(['"].*['"]|,).*\]|\(.*,.*\))\s*$""", re.S)
_RAW_VALUES = {"True", "False", "None"}
_NOT_A_NUMBER = re.compile(r"^\s*[-+]?(nan|inf|infinity)\s*$", re.I)
_FIGURE_CAPTION = re.compile(r"^Figure [\dA-Z]+(\.\d+)?:\s*\S")   # N.k in chapters, k on unnumbered pages
_TABLE_CAPTION = re.compile(r"^Table [\dA-Z]+(\.\d+)?:\s*\S")
_UNRESOLVED_CITATION = re.compile(r"\[@|\?@")


def render(out: Path, notebook_dir: Path | None = None) -> dict[str, BeautifulSoup]:
    from costbook.book.render import render_book
    written = render_book(ROOT, out, notebook_dir)
    return {p.relative_to(out).as_posix(): BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")
            for p in written}


def _reader_text(page: BeautifulSoup) -> BeautifulSoup:
    """The page without shown source code (code may legitimately contain paths or `[@`)."""
    copy = BeautifulSoup(str(page), "html.parser")
    for node in copy.select(".cell-code, script, style"):
        node.decompose()
    return copy


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


def figure_violations(page: BeautifulSoup) -> list[str]:
    out = []
    for img in page.select("main img, main svg"):
        alt = (img.get("alt") or "").strip() if img.name == "img" else (img.get("aria-label") or "").strip()
        if img.name == "img" and (alt.startswith("<Figure size") or len(alt) < 10):
            out.append(f"image with no real alt text (alt={alt!r})")
        if "cell-markdown" in " ".join(" ".join(p.get("class") or []) for p in img.parents):
            continue    # an image the prose places itself (Markdown ![...]) is not a numbered figure
        fig = img.find_parent("figure")
        cap = fig.find("figcaption") if fig is not None else None
        text = cap.get_text(" ", strip=True) if cap is not None else ""
        if not _FIGURE_CAPTION.match(text):
            out.append(f"figure without a number and caption (caption={_short(text)!r}, alt={_short(alt)!r})")
    if "<Figure size" in page.get_text():
        out.append("the text '<Figure size' appears on the page")
    return out


def table_violations(page: BeautifulSoup) -> list[str]:
    out = []
    page = BeautifulSoup(str(page), "html.parser")
    for cite in page.select(".citation"):   # "(Author 2023, line 12)" is a citation, not a tuple
        cite.replace_with("[cited]")
    for table in page.select("main table"):
        fig = table.find_parent("figure")
        cap = fig.find("figcaption") if fig is not None else table.find("caption")
        text = cap.get_text(" ", strip=True) if cap is not None else ""
        first_row = _short(" | ".join(c.get_text(" ", strip=True) for c in (table.find("tr") or table).find_all(["th", "td"])), 60)
        if not _TABLE_CAPTION.match(text):
            out.append(f"table without a number and caption (first row: {first_row!r})")
        for cell in table.find_all(["td", "th"]):
            value = cell.get_text(" ", strip=True)
            if value in _RAW_VALUES:
                out.append(f"raw Python value {value!r} in a table cell (table: {first_row!r})")
            elif _PY_SEQUENCE.match(value):
                out.append(f"Python list/tuple shown as a table cell: {_short(value)!r} (table: {first_row!r})")
            elif _NOT_A_NUMBER.match(value):
                out.append(f"{value!r} in a table cell (table: {first_row!r})")
    return out


def text_violations(page: BeautifulSoup) -> list[str]:
    out = []
    text = _reader_text(page).get_text(" ")
    for m in _ABSOLUTE_PATH.finditer(text):
        out.append(f"absolute path: {_short(text[max(0, m.start() - 30):m.end() + 50])!r}")
    for m in _BUILD_TALK.finditer(text):
        out.append(f"speaks of how the book was built: {_short(text[max(0, m.start() - 50):m.end() + 30])!r}")
    return out


def citation_violations(page: BeautifulSoup) -> list[str]:
    out = []
    reader = _reader_text(page)
    text = reader.get_text(" ")
    for m in _UNRESOLVED_CITATION.finditer(text):
        out.append(f"unresolved citation or cross-reference: {_short(text[max(0, m.start() - 30):m.end() + 40])!r}")
    cites = reader.select("main .citation")
    entries = {e.get("id") for e in reader.select("main #refs .csl-entry")}
    if cites and not entries:
        out.append("cites works but has no references section")
    for c in cites:
        for key in (c.get("data-cites") or "").split():
            if f"ref-{key}" not in entries:
                out.append(f"citation of {key} has no entry in the page's references")
    return out


CHECKS = {"figures": figure_violations, "tables": table_violations,
          "text": text_violations, "citations": citation_violations}


def violations(pages: dict[str, BeautifulSoup], check) -> dict[str, list[str]]:
    return {name: found for name, page in pages.items() if (found := check(page))}


def report(found: dict[str, list[str]]) -> str:
    return "\n".join(f"{page}:\n" + "\n".join(f"  - {v}" for v in vs) for page, vs in found.items())


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    return render(tmp_path_factory.mktemp("book"))


@pytest.mark.parametrize("kind", CHECKS)
def test_rendered_pages(pages, kind):
    found = violations(pages, CHECKS[kind])
    assert not found, f"{kind}: {sum(map(len, found.values()))} violation(s)\n" + report(found)


def test_checks_catch_what_they_look_for():
    """The scanners themselves, on a page with one of each problem (so a pass means something)."""
    bad = BeautifulSoup(
        '<main><div class="cell-output"><img alt="&lt;Figure size 640x480 with 1 Axes&gt;" src="x"></div>'
        "<pre>&lt;Figure size 640x480 with 1 Axes&gt;</pre>"
        "<table><tr><td>True</td><td>['a', 'b']</td><td>(1, 2)</td><td>nan</td></tr></table>"
        "<p>read from /work/main/x.json in this build environment [@seed-cs03]</p>"
        '<p><span class="citation" data-cites="k">(K 2020)</span></p></main>', "html.parser")
    assert len(figure_violations(bad)) == 3       # alt text, no caption, '<Figure size'
    assert len(table_violations(bad)) == 5        # no caption, True, list, tuple, nan
    assert len(text_violations(bad)) == 2
    assert len(citation_violations(bad)) == 3     # `[@`, no references, k without an entry
    good = BeautifulSoup(
        '<main><figure><img alt="Cost of commit against n, log scale" src="x">'
        "<figcaption>Figure 3.1: Commit cost.</figcaption></figure>"
        "<figure><figcaption>Table 3.1: Prices.</figcaption><table><tr><td>1.5 µs</td><td>2.00 × 10<sup>8</sup></td></tr></table></figure>"
        '<p><span class="citation" data-cites="k"><a href="#ref-k">(K 2020)</a></span></p>'
        '<div id="refs"><div class="csl-entry" id="ref-k">K. 2020.</div></div></main>', "html.parser")
    assert [f(good) for f in CHECKS.values()] == [[], [], [], []]


if __name__ == "__main__":   # python tests/test_book_html.py OUT.md [EXECUTED-NOTEBOOKS-DIR]
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rendered = render(Path(tmp), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
    lines = ["# Violations found by tests/test_book_html.py in the rendered book", ""]
    for kind, check in CHECKS.items():
        found = violations(rendered, check)
        lines += [f"## {kind} ({sum(map(len, found.values()))})", "", report(found) or "none", ""]
    Path(sys.argv[1]).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
