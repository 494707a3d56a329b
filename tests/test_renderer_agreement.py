"""The same book from both renderers: which code cells show their code, checked without Quarto.

A listing cell (`source(PP.prove)`, and the like: code that only displays a function's source)
exists for its output, the listing.  Quarto shows a cell's code unless its `#|` options say
`echo: false` (or `include: false`) -- Quarto's Jupyter cell options, which it reads from a
notebook's code cells whether or not it executes them.  The offline renderer reads the same options
(cells.QuartoCellOptions, then nbconvert's TagRemovePreprocessor).  These checks pin that

  * each listing cell hides its call in both renderers (the reader sees the listing, not the call);
  * the two renderers hide the code of exactly the same cells, chapter by chapter.

    python tests/test_renderer_agreement.py [ROOT]   prints the violations on a checkout
"""
from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_quarto_conformance import pages  # noqa: E402  (the book's pages, as _quarto.yml lists them)

_OPTION = re.compile(r"^\s*#\|\s?(.*)$")
_LISTING_CALL = re.compile(r"^(?:display\()?source\([\w.]+\)\)?$")


def code_cells(root: Path, page: str) -> list[tuple[int, nbformat.NotebookNode]]:
    nb = nbformat.read(root / page, as_version=4)
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


def quarto_options(source: str) -> dict:
    import yaml
    lines = []
    for line in source.split("\n"):
        m = _OPTION.match(line)
        if not m:
            break
        lines.append(m.group(1))
    try:
        opts = yaml.safe_load("\n".join(lines)) or {}
    except yaml.YAMLError:
        return {}
    return opts if isinstance(opts, dict) else {}


def quarto_hides_code(cell) -> bool:
    """Quarto (Jupyter cell options): `echo: false` hides the code, `include: false` the whole cell."""
    opts = quarto_options(cell.source)
    return opts.get("echo", True) is False or opts.get("include", True) is False


def offline_hidden_code(root: Path, page: str) -> set[int]:
    """Indices of the code cells whose code the offline renderer leaves out, by its own preprocessors."""
    from nbconvert.preprocessors import TagRemovePreprocessor
    from costbook.book.cells import QuartoCellOptions
    nb = nbformat.read(root / page, as_version=4)
    for i, c in enumerate(nb.cells):
        c.metadata["agreement_index"] = i
    options = QuartoCellOptions(source_name=page, book_html={}, plain_alt=lambda s: s)
    remove = TagRemovePreprocessor(remove_cell_tags={"remove-cell"}, remove_input_tags={"remove-input"},
                                   remove_all_outputs_tags={"remove-output"}, enabled=True)
    nb, _ = options.preprocess(copy.deepcopy(nb), {})
    nb, _ = remove.preprocess(nb, {})
    shown = {c.metadata["agreement_index"] for c in nb.cells if c.cell_type == "code"
             and c.source.strip() and not c.metadata.get("transient", {}).get("remove_source")}
    return {i for i, c in code_cells(root, page) if i not in shown and _code_of(c).strip()}


def _code_of(cell) -> str:
    return "\n".join(line for line in cell.source.split("\n") if not _OPTION.match(line))


def is_listing(cell) -> bool:
    """Code that only displays functions' source (report.source), whose outputs are the listings."""
    lines = [line.strip() for line in _code_of(cell).strip().split("\n") if line.strip()]
    return bool(lines) and all(_LISTING_CALL.match(line) for line in lines)


def notebook_pages(root: Path):
    """(page, the cells the offline renderer hides the code of) of every chapter notebook."""
    for page in pages(root):
        if page.endswith(".ipynb"):
            yield page, offline_hidden_code(root, page)


def listing_violations(root: Path) -> list[str]:
    out = []
    for page, offline in notebook_pages(root):
        for i, cell in code_cells(root, page):
            if not is_listing(cell):
                continue
            shown = [name for name, hides in (("Quarto", quarto_hides_code(cell)), ("the offline renderer", i in offline))
                     if not hides]
            if shown:
                out.append(f"{page} cell {i + 1} ({_code_of(cell).strip()!r}): {' and '.join(shown)} show(s) the call "
                           "above the listing (give it `#| echo: false`)")
    return out


def hidden_code_violations(root: Path) -> list[str]:
    out = []
    for page, offline in notebook_pages(root):
        quarto = {i for i, c in code_cells(root, page) if quarto_hides_code(c) and _code_of(c).strip()}
        for i in sorted(offline - quarto):
            out.append(f"{page} cell {i + 1}: the offline renderer hides its code, Quarto shows it")
        for i in sorted(quarto - offline):
            out.append(f"{page} cell {i + 1}: Quarto hides its code, the offline renderer shows it")
    return out


CHECKS = {"listings": listing_violations, "hidden code": hidden_code_violations}


@pytest.mark.parametrize("check", CHECKS)
def test_sources(check):
    found = CHECKS[check](ROOT)
    assert not found, f"{len(found)} violation(s)\n" + "\n".join(f"  - {v}" for v in found)


def test_the_book_has_listings():
    """The check above has something to check: the scheme chapters show their code this way."""
    n = sum(is_listing(c) for p in pages(ROOT) if p.endswith(".ipynb") for _, c in code_cells(ROOT, p))
    assert n >= 10


def test_checks_catch_what_they_look_for(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_quarto.yml").write_text("project: {type: book}\nbook:\n  chapters: [chapters/01-a.ipynb]\n")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A"),
        nbformat.v4.new_code_cell("source(f)"),                                   # a listing showing its call
        nbformat.v4.new_code_cell("#| echo: false\nsource(g)"),                   # a listing as it should be
        nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["remove-input"]}),  # hidden offline only
        nbformat.v4.new_code_cell("#| code-fold: true\ny = 2"),                   # shown (folded) by both
    ])
    nbformat.write(nb, tmp_path / "chapters" / "01-a.ipynb")
    found = listing_violations(tmp_path)
    assert len(found) == 1 and "cell 2 ('source(f)')" in found[0] and "Quarto and the offline renderer" in found[0]
    assert hidden_code_violations(tmp_path) == [
        "chapters/01-a.ipynb cell 4: the offline renderer hides its code, Quarto shows it"]


if __name__ == "__main__":
    root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT
    total = 0
    for name, check in CHECKS.items():
        found = check(root)
        total += len(found)
        print(f"{name}: {len(found)} violation(s)")
        for v in found:
            print(f"  - {v}")
    sys.exit(1 if total else 0)


def test_make_book_says_how_to_open_each_book():
    """Quarto's pages fetch their live estimates' data (live/<scheme>.json), which a browser refuses to a
    page opened from file://: make book prints the command that serves the Quarto book, and a file://
    link only for the offline book, which embeds the data and works from file://."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    render = makefile[makefile.index("\nrender:"):]
    render = render[:render.index("\n\n")]
    assert "http.server" in render and "--directory build/quarto-project/_book" in render
    assert not re.search(r"file://\S*quarto-project", render)      # no file:// link to the Quarto book
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "http.server" in readme and "file://" in readme
