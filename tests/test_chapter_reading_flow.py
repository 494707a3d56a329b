"""The chapters read as a book: no prose names the code's modules or the test suite, and no code cell
shows a bare value between paragraphs.

A reader of the book meets the schemes, their papers and measurements.  A sentence that names a module
of the book's own code (`model.validate()`, `artifact.calibrate`, `costbook.groups`) or speaks of its
tests ("the tests compare...") is about how the book is built, not about the scheme; the code is a click
away in the cells themselves.  Names of other people's code (a library's function, a seed's file) are
sources and stay.  A code cell's shown result is a table, a figure or a sentence, never a value printed
as Python prints it.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "sage" / "costbook"
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


def own_module_names() -> set:
    """Every module and package name of the book's own code (sage/costbook and its folders)."""
    names = {"costbook"}
    for path in LIBRARY.rglob("*.py"):
        if "__pycache__" not in path.parts:
            names.add(path.stem)
            names.update(p.name for p in path.relative_to(LIBRARY).parents if p.name)
    return names - {"__init__", "__main__"}


#: a dotted name in code font (`model.validate()`, `costbook.groups.msm.FixedBaseTable`), or costbook.*
DOTTED = re.compile(r"`([A-Za-z_][\w]*)\.[\w.]+(?:\(\))?`|\bcostbook(?:\.[a-z_]+)+")
#: the test suite as a subject of the prose
TEST_TALK = re.compile(r"\b(?:the tests?\b|test suite|nbval\b|tests/\w)", re.I)


def prose_problems(text: str, modules: set) -> list:
    found = []
    for m in DOTTED.finditer(text):
        if m.group(0).startswith("costbook.") or m.group(1) in modules:
            found.append(m.group(0))
    found += [m.group(0) for m in TEST_TALK.finditer(text)]
    return found


def test_the_scan_finds_what_it_looks_for():
    modules = own_module_names()
    assert {"model", "artifact", "merkle", "harness", "groups", "replay"} <= modules
    assert prose_problems("`model.validate()` and the tests, with `costbook.groups` and costbook.prices.replay", modules) == [
        "`model.validate()`", "`costbook.groups`", "costbook.prices.replay", "the tests"]
    assert prose_problems("`gmpy2.to_binary` of a residue, `time.process_time`, `data.txt`, `lib.rs`", modules) == []


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_prose_names_the_code_or_the_tests(path):
    modules = own_module_names()
    nb = nbformat.read(path, as_version=4)
    problems = [(i, p) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
                for p in prose_problems(c.source, modules)]
    assert not problems, f"{path.name}: prose about the code or its tests (cell, words): {problems}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_code_cell_shows_a_bare_value(path):
    """A result shown with nothing but its text/plain form is a value as Python prints it."""
    nb = nbformat.read(path, as_version=4)
    bare = [(i, c.source.strip().splitlines()[-1][:60]) for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") in ("execute_result", "display_data")
            and set(o.get("data", {})) <= {"text/plain"}]
    assert not bare, f"{path.name}: cells that show a bare value (cell, last line): {bare}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_sentence_a_cell_writes_names_the_code_or_the_tests(path):
    """The prose a code cell writes (Markdown, printed lines, the text of its tables) is prose too."""
    modules = own_module_names()
    nb = nbformat.read(path, as_version=4)
    problems = []
    for i, c in enumerate(nb.cells):
        for o in c.get("outputs", []) if c.cell_type == "code" else []:
            texts = [o.get("text", "")] + [o.get("data", {}).get(k, "") for k in ("text/markdown", "text/html")]
            problems += [(i, p) for t in texts for p in prose_problems(re.sub(r"<[^>]+>", " ", t), modules)]
    assert not problems, f"{path.name}: outputs about the code or its tests (cell, words): {problems}"
