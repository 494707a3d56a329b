"""Derived price sets (costbook.prices.derived): one builder, one NNLS fit, and every scheme's derived set
obeys the measurement schema like a file on disk."""
import pytest

from costbook.prices import derived, measurements


@pytest.fixture(scope="module")
def reference():
    return measurements.load_source("reference")


def _revalidated(mset):
    """The set written out as JSON and read back through the schema check."""
    again = measurements.validate(mset.to_json())
    assert again.results == mset.results and again.kind == "calibrated"
    assert {"derivation", "derived_from", "method", "title", "seed", "machine"} <= set(mset.provenance)
    return again


def test_punch_card_laptop_sets(reference):
    from costbook.schemes.punchcard import model
    for curve in ("ristretto255", "bls12_381"):
        keys = {k for c in model.count_steps(curve, 10, 0).values() for k in c}
        scaled = _revalidated(model.seed_machine_prices(keys, curve, reference))
        assert scaled.provenance["derivation"] == "scaled"
        factors = model.implied_factors(curve, reference)
        assert _revalidated(factors["prices"]).provenance["derivation"] == "implied"


def test_vector_commitment_mac_set(reference):
    from costbook.schemes.veccom import model
    s = _revalidated(model.seed_machine_prices(reference))
    assert s.provenance["derivation"] == "implied" and reference.name in s.provenance["derived_from"]


def test_mixnet_calibrated_sets(reference):
    from costbook.schemes.mixnet import artifact
    cal = artifact.calibrate(loo=False)
    assert _revalidated(cal.source).provenance["derivation"] == "calibrated"
    artifact.curve_switch_on_artifact(cal, reference)          # builds (and validates) the scaled set


def test_price_set_refuses_what_the_schema_refuses():
    good = {"b": {"ristretto255/mul": derived.entry(5e-5, "stated")}}
    kw = dict(seed="000", title="t", machine="m", method="how")
    assert derived.price_set("x", good, derivation="scaled", **kw).seconds("b", "ristretto255/mul") == pytest.approx(5e-5)
    with pytest.raises(ValueError, match="derivation must be one of"):
        derived.price_set("x", good, derivation="guessed", **kw)
    with pytest.raises(measurements.MeasurementFileError, match="basis: missing"):
        derived.price_set("x", {"b": {"ristretto255/mul": {"median": 1, "unit": "us"}}}, derivation="scaled", **kw)
    # what two of the old builders produced: a derived set without a title fails the schema
    untitled = {**derived.price_set("x", good, derivation="scaled", **kw).to_json(),
                "provenance": {"seed": "000", "machine": "m", "method": "how"}}
    with pytest.raises(measurements.MeasurementFileError, match="provenance.title"):
        measurements.validate(untitled)


@pytest.mark.parametrize("scale_columns", [True, False])
def test_nnls_relative_recovers_exact_prices(scale_columns):
    truth = [2e-3, 5e-6, 0.0]
    rows = [[1, 10, 0], [3, 0, 0], [0, 100, 0], [2, 50, 0]]
    offsets = [1e-4, 0, 2e-4, 0]
    targets = [sum(a * x for a, x in zip(r, truth)) + o for r, o in zip(rows, offsets)]
    got = derived.nnls_relative(rows, targets, offsets, scale_columns=scale_columns)
    assert got == pytest.approx(truth, rel=1e-9, abs=1e-15)
    with pytest.raises(ValueError, match="one row per positive target"):
        derived.nnls_relative(rows, targets[:3])


def test_ratio_source_is_the_reference_unless_given(reference, monkeypatch, tmp_path):
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(tmp_path / "nowhere.json"))
    assert derived.ratio_source().name == reference.name
    assert derived.ratio_source(reference) is reference


def test_loo_pivot_names_the_unknown_a_left_out_line_alone_pins():
    # three unknowns; the last appears (mostly) in line "c" only
    rows = {"a": [1.0, 1.0, 0.0], "b": [2.0, 1.0, 0.1], "c": [0.0, 0.2, 3.0], "d": [1.0, 0.0, 0.0]}
    truth = [1.0, 2.0, 0.5]
    targets = {k: sum(a * x for a, x in zip(r, truth)) for k, r in rows.items()}
    targets["c"] *= 1.3            # the line that pins the third unknown disagrees with the others
    keys = list(rows)
    full = derived.nnls_relative([rows[k] for k in keys], [targets[k] for k in keys])
    i = keys.index("c")
    refit = derived.nnls_relative([rows[k] for k in keys if k != "c"], [targets[k] for k in keys if k != "c"])
    p = derived.loo_pivot(rows, "c", full, refit, ["x", "y", "z"])
    assert p.name == "z" and p.alone
    assert p.share > 0.5 and p.elsewhere < 0.1
    assert p.change < -0.1                               # without "c", z follows the 0.5 the others imply
    assert "the line alone pins it" in p.words()
    # a line whose unknowns are shared by the others is not pinned alone
    q = derived.loo_pivot(rows, "a", full, full, ["x", "y", "z"])
    assert not q.alone and "alone" not in q.words()
    assert i == 2
