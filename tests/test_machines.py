"""costbook.views.machines: every scheme's headline steps priced on every machine the book knows, each cell
with its interval and the share of its price that was measured rather than completed."""
import pytest

from costbook.views import compare, machines
from costbook.prices import measurements
from costbook import schemes
from costbook.views.compare import Share


def test_known_machines_are_the_reference_then_every_public_and_contributed_file():
    known = machines.known_machines()
    assert known[0].id == "reference" and known[0].kind == "reference"
    public = sorted(p.stem for p in machines.folder("public").glob("*.json"))
    assert [m.id for m in known if m.kind == "public"] == [f"public/{p}" for p in public] and len(public) >= 4
    contributed = sorted(p.stem for p in machines.folder("contributed").glob("*.json"))
    assert [m.id for m in known if m.kind == "contributed"] == [f"contributed/{p}" for p in contributed]


def test_this_machine_stands_beside_the_reference_where_the_book_was_executed_on_it(tmp_path, monkeypatch):
    """make book prices the chapters with this machine's file ($COSTBOOK_MEASUREMENTS): appendix B lists
    it second, as "this machine", every price measured; the committed book (the reference) lists no such
    machine, and the committed live exports never hold it."""
    assert "book" not in [m.id for m in machines.known_machines()]
    import json
    data = json.loads(measurements.reference_path().read_text())
    data["name"] = "this-machine-test"
    data["provenance"] = {**data["provenance"], "machine": {"cpu": "a test CPU", "cores": 2}}
    mine = tmp_path / "this-machine.json"
    mine.write_text(json.dumps(data))
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(mine))
    known = machines.known_machines()
    assert [m.id for m in known[:2]] == ["reference", "book"] and known[1].kind == "this"
    assert "book" not in [m.id for m in machines.known_machines(this_machine=False)]
    table = machines.machine_table(known[:2])
    assert "this machine" in str(table.rows[1][0]) and "executed on" in str(table.rows[1][2])
    cells = [c for c in machines.side_by_side(known[:2]) if c.machine == "book"]
    assert cells and all(c.measured_share == 1.0 for c in cells)
    assert [head for _, head in machines.columns(known[:2])][:2] == ["reference machine", "this machine"]


def _set(entries):
    return measurements.validate({"schema": measurements.SCHEMA, "name": "t", "kind": "public",
                                  "provenance": {"source": {}, "machine": "m", "spread": "-"},
                                  "results": {"lib": entries}})


def test_measured_share_counts_what_is_stated_and_not_what_is_completed():
    stated = {"median": 2.0, "unit": "s", "basis": "zkalc"}
    done = {"median": 1.0, "unit": "s", "basis": "completed: x", "completed": {"anchor": "bls12_381/g1_mul"}}
    m = _set({"bls12_381/g1_mul": stated, "modexp/2048/256": done, "bls12_381/g1_msm/4": stated,
              "bls12_381/g2_msm/4": done})
    lines = [Share("bls12_381/g1_mul", 3.0, 0), Share("modexp/2048/256", 1.0, 0)]
    assert machines.measured_share(m, lines, ["lib"]) == pytest.approx(0.75)
    # an unmeasured size takes the status of its family's prices
    assert machines.measured_share(m, [Share("bls12_381/g1_msm/9", 1.0, 0), Share("bls12_381/g2_msm/9", 3.0, 0)],
                                   ["lib"]) == pytest.approx(0.25)
    assert machines.measured_share(m, lines, ["lib"], stated=lambda b, k: True) == 1.0


@pytest.fixture(scope="module")
def cells():
    known = machines.known_machines()
    pick = [known[0], next(m for m in known if m.id == "public/aws-m6g-8xlarge")]
    return pick, machines.side_by_side(pick)


def test_every_scheme_has_its_headline_steps_on_every_machine(cells):
    pick, cs = cells
    rows = machines.table(cs)
    assert {s for s, _, _ in rows} == set(schemes.in_book_order())
    ref = compare.operation_costs(pick[0].mset)
    assert [(r.scheme, r.operation, r.size) for r in ref] == list(rows)
    for r in ref:
        row = rows[(r.scheme, r.operation, r.size)]
        assert set(row) == {m.id for m in pick} | {"seed"}
        assert row["reference"].seconds == r.reference_s and row["seed"].seconds == r.seed_s
        for c in row.values():
            assert 0 <= c.low <= c.seconds <= c.high and 0.0 <= c.measured_share <= 1.0


def test_the_reference_is_all_measured_and_a_public_machine_is_partly_completed(cells):
    _, cs = cells
    assert all(c.measured_share == 1.0 for c in cs if c.machine == "reference")
    public = [c for c in cs if c.machine == "public/aws-m6g-8xlarge"]
    assert any(c.measured_share == 0.0 for c in public)       # modular arithmetic: all completed
    assert any(c.measured_share > 0.99 for c in public)       # nearly all G1 multiplications: stated
    # a completed price's interval holds the margin of carrying a ratio across machines
    assert all(c.high / c.low > 1.5 for c in public if c.measured_share == 0.0)


# ---------------------------------------------------------------------------
# For a reader: one unit per row, a cell as text, the appendix's table and figure, the page's chooser

import html
import json
import re
from pathlib import Path

from costbook.cli import commands as cli
from costbook.book import live
from costbook.system import toc

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "91-machines.ipynb"
UNIT = r"(?:s|ms|µs|ns)"
#: a priced cell: '1.23 ms [1.10–1.38] · 34%'
PRICED = re.compile(rf"^(?P<value>[\d,.]+)\u00a0(?P<unit>{UNIT}) \[[\d,.]+–[\d,.]+\] · (?P<share>\d+)%$")


def test_a_cell_shows_its_price_interval_and_measured_share_in_the_row_unit():
    c = machines.Cell("s", "op", "n", "public/x", 6.26e-4, 3.54e-4, 1.105e-3, 0.25)
    assert machines.cell_text(c, "µs") == "626\u00a0µs [354–1,105] · 25%"
    assert machines.cell_text(c, "ms") == "0.626\u00a0ms [0.354–1.1] · 25%"
    assert machines.cell_text(machines.Cell("s", "op", "n", "contributed/y", None, missing="no price"), "ms") == "—"
    assert machines.cell_text(None, "ms") == "—"
    # the unit of a row: its prices' geometric mean's, whatever one machine's price is
    row = [machines.Cell("s", "op", "n", m, x, x, x, 1.0) for m, x in (("a", 3e-4), ("b", 2e-3), ("c", 9e-4))]
    assert machines.row_unit(row) == "µs"
    assert machines.row_unit(row[1:]) == "ms"


def test_the_price_table_has_every_machine_and_every_step_in_one_unit_per_row():
    known = machines.known_machines()
    cells = [machines.Cell(s, "step", "size", m.id, x * 1e-3, x * 0.9e-3, x * 1.2e-3, share)
             for s in schemes.in_book_order() for x, m, share in zip((1, 2, 900), known, (1.0, 0.5, 0.0))]
    cells.append(machines.Cell(schemes.in_book_order()[0], "step", "size", machines.SEED, 5e-3, 4e-3, 6e-3, 0.0))
    t = machines.price_table(cells, known)
    assert t.headers[1:] == [machines.short_name(m) for m in known] + [machines.SEED_WORDS]
    assert len(t.rows) == len(schemes.in_book_order())
    for row in t.rows:
        units = {PRICED.match(c)["unit"] for c in row[1:] if c != "—"}
        assert len(units) == 1, row
    assert t.rows[0][1:4] == ["1\u00a0ms [0.9–1.2] · 100%", "2\u00a0ms [1.8–2.4] · 50%", "900\u00a0ms [810–1,080] · 0%"]
    # a table of some machines only, without the seeds' column: each row still in the unit of all its machines
    part = machines.price_table(cells, known[2:3], seed=False)
    assert part.headers[1:] == [machines.short_name(known[2])]
    assert part.rows[0][1] == "900\u00a0ms [810–1,080] · 0%"
    assert machines.price_table(cells, known[1:2], seed=False).rows[0][1] == "2\u00a0ms [1.8–2.4] · 50%"


def _outputs(nb, label):
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and f"#| label: {label}\n" in "".join(c["source"]))
    return "".join(cell["source"]), cell["outputs"]


def _html_rows(html_text):
    text = lambda cell: html.unescape(re.sub(r"<[^>]+>", "", cell))
    head = [text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", html_text)]
    rows = [[text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
            for r in re.findall(r"<tr>(.*?)</tr>", html_text) if "<td" in r]
    return head, rows


def test_the_appendix_is_in_the_book_with_its_numbered_captioned_table_and_figure():
    assert Path("chapters/91-machines.ipynb") in toc.appendices(ROOT)
    nb = json.loads(CHAPTER.read_text())
    assert "".join(nb["cells"][0]["source"]).startswith("# Machines side by side {#sec-machines}")
    known = machines.known_machines()
    public = [m for m in known if m.kind == "public"]
    assert len(public) >= 4
    # the steps on every machine, over three tables that each fit a page's column: the machines measured
    # with the book's harness and the seeds', then the public machines in two halves
    heads, tables = [], []
    for label in ("tbl-machines-prices", "tbl-machines-public", "tbl-machines-public-more"):
        source, outputs = _outputs(nb, label)
        assert "#| tbl-cap: " in source
        head, rows = _html_rows("".join(outputs[0]["data"]["text/html"]))
        assert head[0] == "step (size)"
        heads += head[1:]
        tables.append(rows)
    assert heads == ([machines.short_name(m) for m in known if m.kind != "public"] + [machines.SEED_WORDS]
                     + [machines.short_name(m) for m in public])
    ref_steps = [(r.scheme, r.operation, r.size) for r in compare.operation_costs()]
    titles = {schemes.manifest(s).TITLE for s in schemes.in_book_order()}
    assert all(len(rows) == len(ref_steps) and [r[0] for r in rows] == [r[0] for r in tables[0]] for rows in tables)
    assert {r[0].split(": ", 1)[0] for r in tables[0]} == titles
    for row in (sum((r[1:] for r in rows), []) for rows in zip(*tables)):
        cells = [PRICED.match(c) for c in row]
        assert all(cells), row                              # every machine prices every step, with interval and share
        assert len({c["unit"] for c in cells}) == 1, row     # one unit per step, in all three tables
        assert cells[0]["share"] == "100"                    # the reference machine: measured
    # the machines table names each machine, the public ones citing zkalc
    source, outputs = _outputs(nb, "tbl-machines-list")
    assert "#| tbl-cap: " in source
    head, rows = _html_rows("".join(outputs[0]["data"]["text/html"]))
    assert [r[0] for r in rows] == [machines.short_name(m) for m in known]
    assert all('data-qmd="[@zkalc]"' in r for r in re.findall(r"<tr>(.*?)</tr>", "".join(outputs[0]["data"]["text/html"]))
               if any(machines.short_name(m) in r for m in public))
    # the figure: captioned, described, drawn
    source, outputs = _outputs(nb, "fig-machines-prices")
    assert "#| fig-cap: " in source and "#| fig-alt: " in source
    assert any("image/png" in o.get("data", {}) for o in outputs)
    # the prose: no Python value a reader should not see
    text = " ".join("".join(o["data"]["text/markdown"]) for c in nb["cells"] for o in c.get("outputs", [])
                    if "text/markdown" in o.get("data", {}))
    assert text and not re.search(r"\bNone\b|\bnan\b|\binf\b|\d\.\d{5,}|\[\]|\{\}", text), text


def test_the_pages_chooser_offers_every_machine_under_the_source_the_cli_takes(capsys):
    name = schemes.in_book_order()[0]
    offered = live.known_machines(schemes.get(name))
    ids = [i for i, _, _ in offered]
    assert ids == ["reference", "published"] + [m.id for m in machines.known_machines()[1:]]
    for (ident, label, _), m in zip(offered[2:], machines.known_machines()[1:]):
        assert label.startswith(f"the {m.kind} machine {machines.short_name(m)} (") and "((" not in label, label
        assert ("zkalc's published prices" in label) == (m.kind == "public"), label
    assert sum(i.startswith("public/") for i in ids) >= 4
    for ident in ids[2:]:
        assert measurements.resolve(ident) == machines.folder(ident.split("/")[0]) / f"{ident.split('/')[1]}.json"
    assert cli.main(["estimate", name, "--source", ids[2], "--json"]) == 0
    capsys.readouterr()
    # an unknown machine is one line naming the ones there are, exit 2
    assert cli.main(["estimate", name, "--source", "public/no-such-machine"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no public file 'public/no-such-machine' (have: apple-m1-pro" in err, err


def test_a_file_text_is_checked_once_and_a_changed_text_again(tmp_path, monkeypatch):
    """The machines' comparison loads the same files hundreds of times: the schema check runs once per
    text (and kind of use), and any change of the text checks it again, so a spoiled copy is refused."""
    from costbook.prices import measurement_schema
    calls = []
    real = measurement_schema.check
    monkeypatch.setattr(measurement_schema, "check", lambda data, on_disk, **kw: (calls.append(data["name"]), real(data, on_disk, **kw)))
    data = json.loads(measurements.reference_path().read_text())
    data["name"] = f"checked-once-{tmp_path.name}"          # a text no other test loaded
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    a, b = measurements.load(path), measurements.load(path)
    assert calls == [data["name"]] and a.results == b.results and a.results is not b.results
    first = next(iter(data["results"]))
    data["results"][first][next(iter(data["results"][first]))]["unit"] = "sec"
    path.write_text(json.dumps(data))
    with pytest.raises(measurements.MeasurementFileError, match="unit"):
        measurements.load(path)
    assert calls == [data["name"]] * 2
