"""What make test's strict nbval does not compare in the committed chapters, and why.

nbval runs every cell and compares every output, except: a cell tagged `nbval-ignore-output` (run,
its output not compared), `nbval-skip` (not run) or `raises-exception`, or marked in its source with
`# NBVAL_IGNORE_OUTPUT`, `# NBVAL_SKIP` or `# NBVAL_RAISES_EXCEPTION`; and any text that a rule of
tests/sanitize.cfg rewrites, in every cell.  Only a live timing of the machine the chapter runs on
may go uncompared: everything computed from the code and the committed files (counts, formulas,
reproductions of published figures, tables of the measurement files) is compared.

A cell that relaxes nbval says why in its metadata (``"nbval-why"``), so the list is the chapters'
own.  A cell that relaxes nbval without saying why, a reason on a compared cell, a relaxed cell that
measures nothing now, and a sanitizer rule that rewrites any output a compared cell committed, each
fail here.

(Not nbval's to see: a figure's PNG, which nbval never compares unless run with --nbdime; its
text/plain stand-in, "<Figure size ... with 1 Axes>", is compared.)
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))

#: the cell metadata that says why a cell's output is not compared (each is timed on this machine when it runs)
WHY = "nbval-why"

#: the tags and source markers with which nbval compares a cell's output less than strictly
RELAXING_TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception"}
RELAXING_MARKERS = re.compile(r"^\s*#\s*NBVAL_(IGNORE_OUTPUT|SKIP|RAISES_EXCEPTION)\b", re.M)
#: calls that time something now: a cell calling one (or reading what one returned) measures
MEASURING_CALLS = {"time_op", "perf_counter", "process_time", "monotonic", "validate"}


def notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell) -> str:
    return "".join(cell["source"])


def relaxed(cell) -> list:
    """How a cell relaxes nbval: its relaxing tags and source markers."""
    tags = sorted(RELAXING_TAGS & set(cell.get("metadata", {}).get("tags", [])))
    return tags + [f"# NBVAL_{m}" for m in RELAXING_MARKERS.findall(source(cell))]


def measuring_calls(tree) -> set:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", None))
    return names & MEASURING_CALLS


def ignored() -> dict:
    """(chapter, cell id) -> why, of every cell that says why nbval does not compare it."""
    return {(path.stem, cell.get("id")): cell["metadata"][WHY] for path in CHAPTERS
            for cell in notebook(path)["cells"] if WHY in cell.get("metadata", {})}


def test_every_cell_nbval_does_not_compare_says_why():
    found, why = {}, ignored()
    for path in CHAPTERS:
        for cell in notebook(path)["cells"]:
            if cell["cell_type"] == "code" and relaxed(cell):
                found[(path.stem, cell.get("id"))] = relaxed(cell)
    assert set(found) == set(why), (
        f"relaxed without a reason: {sorted(set(found) - set(why))}; a reason on a compared cell: "
        f"{sorted(set(why) - set(found))} (a live timing's cell says why in its metadata, "
        f"\"{WHY}\": \"...\"; compare anything else)")
    assert all(isinstance(w, str) and len(w.split()) >= 3 for w in why.values()), why
    # a live timing's cell is still run: its code must work, only its numbers vary
    assert {tuple(v) for v in found.values()} == {("nbval-ignore-output",)}, found


@pytest.mark.parametrize("chapter", sorted({c for c, _ in ignored()}))
def test_every_uncompared_cell_measures_now(chapter):
    """An uncompared cell calls a timing function, or reads a value that an uncompared cell before it
    assigned from one (the Merkle parts read the validation run)."""
    live: set = set()           # names assigned from a measuring call in an uncompared cell
    for cell in notebook(ROOT / "chapters" / f"{chapter}.ipynb")["cells"]:
        if WHY not in cell.get("metadata", {}):
            continue
        tree = ast.parse(source(cell))
        reads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        assert measuring_calls(tree) or reads & live, (
            f"{chapter} cell {cell.get('id')} is not compared but times nothing: {cell['metadata'][WHY]}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and measuring_calls(node.value):
                live |= {t.id for t in node.targets if isinstance(t, ast.Name)}


def sanitizer_rules(path: Path = ROOT / "tests" / "sanitize.cfg") -> list:
    """[regex] of an nbval sanitizer file, read by nbval's own parser."""
    from nbval.plugin import get_sanitize_patterns
    return [re.compile(regex) for regex, _ in get_sanitize_patterns(path.read_text(encoding="utf-8"))]


def committed_texts(cell) -> list:
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append("".join(o["text"]))
        for kind, value in o.get("data", {}).items():
            if kind.startswith("text/"):
                out.append("".join(value) if isinstance(value, list) else str(value))
    return out


def test_the_sanitizer_rewrites_nothing_a_compared_cell_committed():
    """The rules apply to every cell's output, so they may only match what varies between two runs of
    a cell (a kernel's warning, an object's address), never what a compared cell committed."""
    rules = sanitizer_rules()
    assert rules, "tests/sanitize.cfg has no rule nbval reads"
    hits, uncompared = [], ignored()
    for path in CHAPTERS:
        for cell in notebook(path)["cells"]:
            if (path.stem, cell.get("id")) in uncompared:
                continue
            for text in committed_texts(cell):
                hits += [(path.stem, cell.get("id"), rx.pattern, m[0][:60]) for rx in rules
                         for m in [rx.search(text)] if m]
    assert hits == []
