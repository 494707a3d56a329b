"""A chapter's prose does not state what its timed tables show.

A validation table is timed when the chapter runs, on the reader's machine: its figures and how many of
its steps fall inside their intervals change from run to run and from machine to machine.  A sentence
typed into a chapter's Markdown that states them ("the steps come within a few percent of their
prediction", "3 of 4", "+17.5%") stays as it was written while the table beside it moves, and then
contradicts it.  What a chapter says of a timed result it computes from that result (a code cell's
Markdown output), or from the committed evidence, which does not move.

The check, on every chapter's Markdown cells (the text a reader reads that no cell computes): no
sentence that cites a timed table or figure (``@tbl-...`` of a cell whose output nbval ignores because
it is timed) states a figure (a number with a unit, a percentage, a ratio, "N of M"; the intervals'
nominal level aside) or a verdict about it ("within", "a few percent", "every step", "inside", ...).
Figures the prose states of past runs name the machine and the runs they come from, and cite no
timed table as their evidence.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from costbook.calibration import uncertainty

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
TIMED = "nbval-ignore-output"

#: a figure as prose states one: a number with a unit, a percentage or a ratio, or "N of M"
FIGURE = re.compile(r"(?<![\w.])[−+-]?\d+(?:,\d{3})*(?:\.\d+)?(?:[–-]\d+(?:\.\d+)?)?\s*(?:%|ms\b|µs\b|ns\b|s\b|×|x\b)"
                    r"|\b\d+ of \d+\b")
#: what a sentence says when it passes a verdict on a table's figures
VERDICT = re.compile(r"\bwithin\b|few percent|\b(?:every|each|all|none of the) (?:steps?|operations?|checks?)\b"
                     r"[^.;]*\b(?:within|inside)\b|\b(?:in|inside|outside) (?:its|their) "
                     r"intervals?\b|\bclose to\b|\bagrees?\b", re.I)
LABEL = re.compile(r"#\|\s*label:\s*(\S+)")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*@(\[])")
NOMINAL = f"{uncertainty.NOMINAL:.0%}"


def _is_timed(cell) -> bool:
    return cell["cell_type"] == "code" and TIMED in cell.get("metadata", {}).get("tags", [])


def problems(nb) -> list:
    """(cell index, what) of every figure or verdict the chapter's Markdown states of its timed cells."""
    labels = {label for c in nb["cells"] if _is_timed(c) for label in LABEL.findall("".join(c["source"]))}
    out = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = " ".join("".join(cell["source"]).split())
        for sentence in SENTENCE.split(text):
            cited = [label for label in labels if re.search(rf"@{re.escape(label)}\b", sentence)]
            said = [m.group(0) for m in FIGURE.finditer(sentence) if m.group(0) != NOMINAL] + \
                   [m.group(0) for m in VERDICT.finditer(sentence)]
            if cited and said:
                out.append((i, f"a sentence on the timed {cited[0]} states {said[0]!r}: {sentence[:160]!r}"))
    return out


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_prose_states_what_a_timed_table_shows(path):
    nb = json.loads(path.read_text())
    assert problems(nb) == [], f"{path.name}: compute these from the result, or say them of the evidence"


def _chapter(*cells) -> dict:
    return {"cells": list(cells)}


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": [text]}


def _timed(label: str, printed: str) -> dict:
    return {"cell_type": "code", "metadata": {"tags": [TIMED]}, "source": [f"#| label: {label}\nval = run()\n"],
            "outputs": [{"output_type": "stream", "name": "stdout", "text": [printed]}]}


def test_the_check_finds_a_figure_and_a_verdict():
    table = _timed("tbl-x-validation", "encrypt  190 ms  233 ms  +17.5%  no\n3 of 4 in their intervals\n")
    found = problems(_chapter(table, _markdown("The steps come within a few percent of their prediction "
                                               "(@tbl-x-validation). The worst ran +17.5% over (@tbl-x-validation).")))
    assert [i for i, _ in found] == [1, 1] and "within" in found[0][1] and "17.5%" in found[1][1]
    # the same words about a table that is not timed, and the nominal level, pass
    assert problems(_chapter(table, _markdown("Each interval is a 90% prediction interval. The counts come "
                                              "within 3% of the note (@tbl-x-seed)."))) == []
    # a sentence that only points at the timed table passes
    assert problems(_chapter(table, _markdown("A timing: the numbers of @tbl-x-validation change from run to run."))) == []
