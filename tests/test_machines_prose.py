"""Appendix B's prose follows its tables: each figure a sentence states (how many public machines, how
many prices zkalc states on each, how many steps are at least half measured, the range of the machines'
geometric-mean ratios, how close the book's prices lie to zkalc's figures) is read back from the tables
printed beside it in the committed chapter, and must agree.  The sentences and the tables are made from
the same data when the chapter runs; this holds them to each other as a reader sees them."""
from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from costbook.registry import count_words

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "91-machines.ipynb"
UNITS = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


@pytest.fixture(scope="module")
def chapter():
    nb = nbformat.read(CHAPTER, as_version=4)
    tables, prose = {}, []
    for c in nb.cells:
        label = re.search(r"#\| label: (tbl-[\w-]+)", c.source) if c.cell_type == "code" else None
        for o in c.get("outputs", []):
            data = o.get("data", {})
            if label and "text/html" in data:
                soup = BeautifulSoup(data["text/html"], "html.parser")
                head = [th.get_text() for th in soup.find_all("th")]
                rows = [[td.get_text() for td in tr.find_all("td")] for tr in soup.find("tbody").find_all("tr")]
                tables[label.group(1)] = [dict(zip(head, r)) for r in rows]
            elif "text/markdown" in data:
                prose.append(" ".join(data["text/markdown"].split()))
    return tables, " ".join(prose)


def seconds(text: str) -> float:
    number, unit = text.replace("\xa0", " ").replace(",", "").split()[:2]
    return float(number) * UNITS[unit]


def test_the_count_of_public_machines_and_their_stated_prices(chapter):
    tables, prose = chapter
    public = [r for r in tables["tbl-machines-list"] if "zkalc" in r["prices from"]]
    assert f"The book knows {count_words(len(public), 'public machine')}" in prose
    stated = [int(r["stated"]) for r in public]
    assert f"({min(stated)} to {max(stated)} of the prices)" in prose


def test_the_measured_steps_and_the_ratio_range(chapter):
    tables, prose = chapter
    public = [r["machine"] for r in tables["tbl-machines-list"] if "zkalc" in r["prices from"]]
    # a step's row in each table of prices, joined: the public machines stand in two tables of their own
    rows = [{**a, **b, **c} for a, b, c in zip(tables["tbl-machines-prices"], tables["tbl-machines-public"],
                                                tables["tbl-machines-public-more"])]
    half = {m: sum(int(r[m].rsplit("·", 1)[1].strip().rstrip("%")) >= 50 for r in rows if "·" in r[m]) for m in public}
    assert f"on each public machine, {min(half.values())} to {max(half.values())} of the {len(rows)} steps are at least half measured" in prose
    ratio = {}
    for m in public:
        priced = [(seconds(r[m]), seconds(r["reference machine"])) for r in rows if "·" in r[m]]
        ratio[m] = math.exp(sum(math.log(a / b) for a, b in priced) / len(priced))
    said = re.search(r"lie between ([\d.]+)× \(([^)]+)\) and ([\d.]+)× \(([^)]+)\)", prose)
    assert said, prose
    low, low_name, high, high_name = float(said[1]), said[2], float(said[3]), said[4]
    assert low_name == min(ratio, key=ratio.get) and high_name == max(ratio, key=ratio.get)
    # the table's prices are printed to 3 digits: the ratios read back agree to within that
    assert low == pytest.approx(ratio[low_name], rel=0.01) and high == pytest.approx(ratio[high_name], rel=0.01)


def test_the_agreement_with_zkalcs_figures(chapter):
    tables, prose = chapter
    rows = tables["tbl-machines-zkalc"]
    machines = {r["machine"] for r in rows}
    worst = max(abs(float(r["difference"].rstrip("%"))) for r in rows) / 100
    said = re.search(r"Over (\S+) operations? on (\S+) public machines?, the book's price lies within ([\d.]+)% of", prose)
    assert said, prose
    assert f"Over {count_words(len(rows), 'operation')} on {count_words(len(machines), 'public machine')}" in prose
    assert float(said[3]) / 100 == pytest.approx(worst, abs=0.0005)
