"""costbook.machines: every scheme's headline steps priced on every machine the book knows, each cell
with its interval and the share of its price that was measured rather than completed."""
import pytest

from costbook import compare, machines, measurements, schemes
from costbook.compare import Share


def test_known_machines_are_the_reference_then_every_public_and_contributed_file():
    known = machines.known_machines()
    assert known[0].id == "reference" and known[0].kind == "reference"
    public = sorted(p.stem for p in machines.folder("public").glob("*.json"))
    assert [m.id for m in known if m.kind == "public"] == [f"public/{p}" for p in public] and len(public) >= 4
    contributed = sorted(p.stem for p in machines.folder("contributed").glob("*.json"))
    assert [m.id for m in known if m.kind == "contributed"] == [f"contributed/{p}" for p in contributed]


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
