"""A chapter's typed prose says nothing that moves with the prices it is read beside.

A reader's machine prices every operation differently from the reference machine.  A figure a cell
prints from the prices (an estimate, a ratio, a share) moves with them; a figure typed into a
chapter's Markdown does not, and on the reader's machine it then contradicts the table it was copied
from.  Such a figure is computed by the cell that prints the table (a Markdown output), or it goes.

The test executes each scheme chapter again, priced with the reference machine's file in which the
prices of one group of families (the group the chapter's costs rest on) are 1.5 times the
reference's, and reads the figures its cells print.  A figure that the committed chapter prints (the
reference prices; nbval holds those outputs to a fresh run) and the re-priced one no longer prints
has moved with the prices.  No such figure may stand in a Markdown cell or a table's or figure's
caption.  A typed figure is compared with printed ones at its own precision ("1.2 ms" is the 1.23 ms
of a table) and in its own unit; one of a single significant digit is not judged, and one restated
in another unit ("1.2 s" for 1,230 ms) is not found.

The chapters' timed cells (validations, live timings) print different figures on every run; the
re-run times with the check profile, and their outputs are left out of both sides.  What prose may
say of those is ``test_prose_follows_tables``'s business.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from costbook.book.execute import execute_notebook
from costbook.prices import keys, measurements
from test_prose_follows_tables import TIMED, _is_timed, _markdown

ROOT = Path(__file__).resolve().parents[1]
FACTOR = 1.5

#: the group of price families (chapter 1's headings, ``keys.Family.group``) whose prices each
#: scheme chapter's costs mostly rest on: scaling it moves that chapter's estimates the most
GROUP_OF_CHAPTER = {
    "02": "ristretto255",          # the punch cards' default curve
    "03": "pairing groups",        # Pointproofs
    "04": "modular arithmetic",    # CS03's exponentiations
    "05": "pairing groups",        # DB-SM / DB-RSM and the SNARKs they are compared with
    "06": "pairing groups",        # the comparison across schemes
}
CHAPTERS = {p.name[:2]: p for p in sorted((ROOT / "chapters").glob("*.ipynb")) if p.name[:2] in GROUP_OF_CHAPTER}

#: a number as prose or a table writes it (digits, thousands commas, a decimal part), and the unit
#: that follows it, if any: "13%" and "13 ms" are two figures, "13" may be either
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w.,]\d)"
                    r"(?:(×)|[ \u00a0\u2009\u202f]?(%|ms|µs|μs|ns|s|B)(?!\w))?")
#: what in a Markdown cell is not prose a reader reads as a figure: code, maths, link targets,
#: cross-references and citations, HTML comments, Quarto options
NOT_PROSE = re.compile(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|\]\([^)]*\)|@[\w:-]+|<!--.*?-->|^#\|.*$", re.S | re.M)
#: a code cell's caption, which a reader reads as prose
CAPTION = re.compile(r"^#\|\s*(?:tbl|fig)-cap:\s*(.*)$", re.M)
TAG = re.compile(r"<[^>]*>")


def _decimals(number: str) -> int:
    return len(number.partition(".")[2])


def _significant(number: str) -> int:
    return len(number.replace(".", "").lstrip("0"))


#: an interval printed after its value, "40.6 s [36.3–45.4]": its bounds are in the value's unit
BOUNDS = re.compile(r"(?<=\d)[ \u00a0](%|×|ms|µs|μs|ns|s|B) \[([\d.,]+)[–-]([\d.,]+)\]")


def figures(text: str) -> set:
    """The (number, unit) figures in `text`, thousands commas dropped ("1,024" is 1024), the unit
    "" where none follows; µ and μ are one unit."""
    return {_figure(m) for m in NUMBER.finditer(text)}


def _figure(m) -> tuple:
    return m.group(1).replace(",", ""), (m.group(2) or m.group(3) or "").replace("μ", "µ")


def printed(cell) -> str:
    """What a code cell shows a reader: its text, Markdown and HTML (tags dropped) outputs."""
    out = []
    for o in cell.get("outputs", []):
        if "text" in o:
            out.append("".join(o["text"]))
        data = o.get("data", {})
        for kind in ("text/markdown", "text/plain", "text/latex"):
            if kind in data:
                out.append("".join(data[kind]))
        if "text/html" in data:
            out.append(html.unescape(TAG.sub(" ", "".join(data["text/html"]))))
    return BOUNDS.sub(lambda m: f" {m[1]} [{m[2]} {m[1]}–{m[3]} {m[1]}]", "\n".join(out))


class Printed:
    """Every figure the untimed cells of a chapter print, as printed and rounded as prose rounds."""

    def __init__(self, nb):
        self.exact = set()
        self.rounded = set()       # (number rounded to d decimals, d, unit)
        for cell in nb["cells"]:
            if cell["cell_type"] != "code" or _is_timed(cell):
                continue
            for number, unit in figures(printed(cell)):
                self.exact.add((number, unit))
                for d in range(_decimals(number) + 1):
                    self.rounded.add((f"{float(number):.{d}f}", d, unit))

    def has(self, number: str, unit: str) -> bool:
        """Whether some printed figure reads as `number` once rounded to its decimals, in `unit` (a
        typed figure with no unit, in any)."""
        units = {unit} if unit else {u for _, u in self.exact} | {""}
        d = _decimals(number)
        return any((f"{float(number):.{d}f}", d, u) in self.rounded for u in units)


def typed_figures(nb):
    """(cell index, figure, the text around it) of every figure in the chapter's Markdown cells and
    in its code cells' captions."""
    for i, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            text = " ".join(NOT_PROSE.sub(" ", source).split())
        elif cell["cell_type"] == "code":
            text = " ".join(NOT_PROSE.sub(" ", " ".join(CAPTION.findall(source))).split())
        else:
            continue
        for m in NUMBER.finditer(text):
            yield i, _figure(m), text[max(0, m.start() - 70):m.end() + 50]


def moved_with_the_prices(nb, baseline: Printed, repriced: Printed) -> list:
    """The typed figures the reference prices print and the re-priced chapter does not.  A figure of
    one significant digit ("2×", "3 of 4") is too common to tell which table it was read from, and
    is not judged."""
    return [(i, "".join(figure), around) for i, figure, around in typed_figures(nb)
            if _significant(figure[0]) >= 2 and baseline.has(*figure) and not repriced.has(*figure)]


def scaled(reference: Path, group: str, factor: float, out: Path) -> Path:
    """`reference` with every price of a family in `group` multiplied by `factor` (its median,
    quartiles, minimum and spread alike), written to `out` and loaded as any file is."""
    data = json.loads(reference.read_text())
    hit = 0
    for results in data["results"].values():
        for key, entry in results.items():
            if keys.family_of(key).group == group:
                hit += 1
                for stat in ("median", "q1", "q3", "min", "mad"):
                    if stat in entry:
                        entry[stat] *= factor
    assert hit, f"no price of the group {group!r} in {reference.name}"
    data["name"] = f"{data['name']}-{group.replace(' ', '-')}-x{factor}"
    out.write_text(json.dumps(data))
    measurements.load(out)
    return out


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_no_typed_figure_moves_with_the_prices(chapter, tmp_path):
    src = CHAPTERS[chapter]
    group = GROUP_OF_CHAPTER[chapter]
    nb = json.loads(src.read_text())
    prices = scaled(measurements.reference_path(), group, FACTOR, tmp_path / "scaled.json")
    # as `make book` prices a chapter (its SOURCE "book" reads the file it names), and as a reader
    # who sets SOURCE does (chapter 6 prices the reference machine unless told otherwise)
    execute_notebook(src, tmp_path / src.name, prices, overrides=[("SOURCE", repr(str(prices)))],
                     validation_profile="check")
    baseline, repriced = Printed(nb), Printed(json.loads((tmp_path / src.name).read_text()))
    # the re-pricing moved the chapter's figures, and one of them typed into its prose is found:
    # else the check below could not fail
    moved = sorted(f for f in baseline.exact - repriced.exact if f[1] and _significant(f[0]) >= 2)
    assert moved, f"{src.name}: no printed figure moved with {group} x{FACTOR}"
    number, unit = moved[len(moved) // 2]
    planted = {"cells": nb["cells"] + [_markdown(f"It costs {number}{'' if unit in '%×' else ' '}{unit}.")]}
    assert moved_with_the_prices(planted, baseline, repriced)[-1][1] == number + unit
    found = moved_with_the_prices(nb, baseline, repriced)
    assert found == [], (f"{src.name}: typed figures that moved with the {group} prices x{FACTOR} "
                         f"(compute them in the cell that prints the table): "
                         + "; ".join(f"cell {i}: {f!r} in ...{a}..." for i, f, a in found))


# ------------------------------------------------------------------ the check on made-up chapters

def _code(text: str, timed: bool = False) -> dict:
    return {"cell_type": "code", "metadata": {"tags": [TIMED] if timed else []}, "source": ["x = 1\n"],
            "outputs": [{"output_type": "execute_result", "data": {"text/plain": [text]}}]}


def test_a_figure_copied_from_a_priced_table_is_found():
    prose = _markdown("Opening a card costs 1.23 ms, and 12.5% of it is the pairing (@tbl-x, 2019).")
    before = {"cells": [_code("open  1.2345 ms  12.47%\nn = 2019"), prose]}
    after = {"cells": [_code("open  1.8518 ms  18.70%\nn = 2019"), prose]}
    found = moved_with_the_prices(before, Printed(before), Printed(after))
    assert [f for _, f, _ in found] == ["1.23ms", "12.5%"]


def test_a_figure_that_stays_or_is_only_timed_or_in_code_is_not_found():
    prose = _markdown("The seed prints 4.6 s at `n = 1.23` and $2^{12.5}$; the run took 7.81 ms; 13% of it.")
    before = {"cells": [_code("seed  4.6 s  1.23 12.5  13 ms"), _code("7.81 ms", timed=True), prose]}
    after = {"cells": [_code("seed  4.6 s  1.85 18.7  19 ms"), _code("9.02 ms", timed=True), prose]}
    assert moved_with_the_prices(before, Printed(before), Printed(after)) == []


def test_a_caption_is_prose():
    cell = _code("open  1.2345 ms")
    cell["source"] = ['#| tbl-cap: "Opening costs about 1.23 ms on the reference machine."\n', "x = 1\n"]
    before = {"cells": [cell]}
    after = {"cells": [_code("open  1.8518 ms")]}
    assert [f for _, f, _ in moved_with_the_prices(before, Printed(before), Printed(after))] == ["1.23ms"]


def test_a_figure_of_one_digit_is_not_judged_and_a_unit_must_agree():
    prose = _markdown("It takes 2 pairings, 13% of the time, and about 1.5× the 2.4 ms.")
    before = {"cells": [_code("2.4 ms  2×  13 ms  1.47×  40.6 s [36.3–45.4]"), prose]}
    after = {"cells": [_code("3.6 ms  3×  19 ms  1.62×  60.9 s [54.4–68.1]"), prose]}
    assert [f for _, f, _ in moved_with_the_prices(before, Printed(before), Printed(after))] == ["1.5×", "2.4ms"]
    # an interval's bounds are in its value's unit, and "2 × n" is a product, not a ratio
    assert figures(printed(_code("40.6 s [36.3–45.4] and 2 × n"))) == {("40.6", "s"), ("36.3", "s"), ("45.4", "s"),
                                                                      ("2", "")}


def test_the_scaled_file_moves_one_group_and_loads(tmp_path):
    ref = measurements.reference_path()
    out = scaled(ref, "modular arithmetic", FACTOR, tmp_path / "s.json")
    before, after = json.loads(ref.read_text())["results"], json.loads(out.read_text())["results"]
    for backend, results in before.items():
        for key, entry in results.items():
            ratio = after[backend][key]["median"] / entry["median"]
            expected = FACTOR if keys.family_of(key).group == "modular arithmetic" else 1.0
            assert ratio == pytest.approx(expected), key
