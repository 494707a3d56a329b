"""The cost core: count vectors, pricing, and its errors."""
import pytest

from costbook.prices.cost import Counts, MissingPrice, price
from costbook.prices.keys import UnknownPrimitiveKey
from costbook.prices.counting import counting, tally
from costbook.prices.measurements import validate


def published(results):
    return validate({"schema": "costbook-measurements/1", "name": "toy", "kind": "published",
                     "provenance": {"seed": "s", "title": "t", "machine": "m"},
                     "results": results})


TOY = published({
    "fast": {"modexp/6144/256": {"median": 2, "unit": "ms", "line": 1}},
    "slow": {"modexp/6144/256": {"median": 5, "unit": "ms", "line": 2},
             "modexp/6144/6144": {"median": 150, "unit": "ms", "line": 3}},
})


def test_price_total_and_breakdown():
    est = price({"modexp/6144/256": 3, "modexp/6144/6144": 2}, TOY, ["fast", "slow"], label="x")
    assert est.total == pytest.approx(3 * 2e-3 + 2 * 150e-3)
    assert est.breakdown() == pytest.approx({"modexp/6144/256": 6e-3, "modexp/6144/6144": 0.3})
    # the preference list decides who prices a key present in both backends
    assert [l.backend for l in est.lines] == ["fast", "slow"]
    d = est.to_dict()
    assert d["source"] == "toy" and d["total_s"] == pytest.approx(est.total)
    assert "modexp/6144/256" in str(est)


def test_missing_key_is_an_error_naming_key_and_file():
    with pytest.raises(MissingPrice, match=r"toy: no price for 'modexp/6144/6144' in backend\(s\) fast"):
        price({"modexp/6144/6144": 1}, TOY, "fast")


def test_a_file_with_none_of_the_schemes_backends_names_its_own():
    """A scheme keeps of its preferred backends those the file has: none, for a file of another library
    (a zkalc import of gnark-crypto), and the refusal read "in backend(s) ;"."""
    with pytest.raises(MissingPrice, match=r"toy: no price for 'modexp/6144/6144' in any backend the scheme "
                                           r"prices it with \(the file has: fast, slow\); measure it"):
        price({"modexp/6144/6144": 1}, TOY, [])


def test_unknown_backend_is_an_error():
    with pytest.raises(MissingPrice, match="no backend 'gmp'"):
        price({"modexp/6144/256": 1}, TOY, "gmp")


def test_unknown_key_is_rejected_on_entry():
    with pytest.raises(UnknownPrimitiveKey, match="unknown primitive key 'modexp/6144'"):
        Counts({"modexp/6144": 1})
    with pytest.raises(UnknownPrimitiveKey):
        price({"pairing": 1}, TOY)


def test_counts_arithmetic_and_validation():
    a = Counts({"sha256/64B": 2})
    b = Counts({"sha256/64B": 1, "hashset/lookup/1000": 4})
    assert a + b == {"sha256/64B": 3, "hashset/lookup/1000": 4}
    assert 3 * a == {"sha256/64B": 6} and a * 0.5 == {"sha256/64B": 1}
    assert sum([a, b], Counts()) == a + b
    with pytest.raises(ValueError, match="must be >= 0"):
        Counts({"sha256/64B": -1})
    with pytest.raises(TypeError, match="must be a number"):
        Counts({"sha256/64B": "two"})


def test_counting_by_running_code_nests():
    with counting() as outer:
        tally("sha256/64B")
        with counting() as inner:
            tally("sha256/64B", 2)
    tally("sha256/64B")            # outside any block: recorded nowhere
    assert inner == {"sha256/64B": 2}
    assert outer == {"sha256/64B": 3}


def test_derived_modexp_prices_are_opt_in_and_say_how():
    # 6144-bit modulus measured at 256 and 6144 exponent bits: 5 ms and 150 ms
    est = price({"modexp/6144/3200": 1}, TOY, "slow", derive=True)
    (line,) = est.lines
    assert line.unit_price == pytest.approx(5e-3 + (150e-3 - 5e-3) * (3200 - 256) / (6144 - 256))
    assert line.note == "interpolated from modexp/6144/256 and modexp/6144/6144"
    assert "note" in est.to_dict()["breakdown"][0]
    above = price({"modexp/6144/7000": 1}, TOY, "slow", derive=True).lines[0]
    assert above.note.startswith("extrapolated") and above.unit_price > 150e-3
    with pytest.raises(MissingPrice):           # not without asking
        price({"modexp/6144/3200": 1}, TOY, "slow")
    with pytest.raises(MissingPrice):           # one measured length is not enough to derive
        price({"modexp/6144/3200": 1}, TOY, "fast", derive=True)


def test_derived_prices_across_moduli_follow_the_fitted_power_law():
    # t = M^2 ns at a 256-bit exponent and M^2 * 16 ns at 4096 bits, for two moduli
    quad = published({"cb": {f"modexp/{m}/{e}": {"median": m * m * f, "unit": "ns", "line": 1}
                             for m in (6144, 8192) for e, f in ((256, 1), (4096, 16))}})
    line = price({"modexp/4096/256": 1}, quad, "cb", derive=True).lines[0]
    assert line.unit_price == pytest.approx(4096 ** 2 * 1e-9)
    assert line.note == "scaled from moduli of 6144 and 8192 bits (t ~ M^2.00 at 256-bit exponents)"
    # an unmeasured exponent at an unmeasured modulus: interpolate in E, then scale in M
    mid = price({"modexp/4096/2176": 1}, quad, "cb", derive=True).lines[0]
    assert mid.unit_price == pytest.approx(4096 ** 2 * 8.5 * 1e-9)
    with pytest.raises(MissingPrice):           # one modulus is not enough to fit a
        price({"modexp/4096/256": 1}, TOY, "slow", derive=True)


RANGED = published({
    "b": {"modexp/6144/256": {"median": 2, "low": 1.5, "high": 3, "unit": "ms", "line": 1},
          "modexp/6144/1024": {"median": 6, "low": 5, "high": 8, "unit": "ms", "line": 2},
          "modexp/6144/6144": {"median": 150, "unit": "ms", "line": 3}},
})


def test_interval_propagates_every_price_bound():
    est = price({"modexp/6144/256": 2, "modexp/6144/6144": 1}, RANGED, "b")
    # a stated range bounds its price; a bare number carries no spread
    assert est.low == pytest.approx(2 * 1.5e-3 + 150e-3)
    assert est.high == pytest.approx(2 * 3e-3 + 150e-3)
    d = est.to_dict()
    assert d["low_s"] <= d["total_s"] <= d["high_s"]
    assert [x for l in d["breakdown"] for x in (l["low_s"], l["high_s"])] == pytest.approx([3e-3, 6e-3, 0.15, 0.15])


def test_derived_price_is_bounded_by_the_same_rule_on_the_bounds():
    # 640 bits lies halfway between 256 and 1024: the interpolation of the lows and of the highs
    est = price({"modexp/6144/640": 1}, RANGED, "b", derive=True)
    (line,) = est.lines
    assert line.unit_price == pytest.approx(4e-3)
    assert (line.low, line.high) == pytest.approx((3.25e-3, 5.5e-3))


def test_measured_quartiles_bound_a_price():
    m = validate({"schema": "costbook-measurements/1", "name": "q", "kind": "measured",
                  "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}}, "results": {"gmp": {"modexp/6144/256": {
                      "median": 3.0, "q1": 2.9, "q3": 3.4, "mad": 0.1, "samples": 5, "batch": 1, "unit": "ms"}}}})
    est = price({"modexp/6144/256": 10}, m, "gmp")
    assert (est.low, est.total, est.high) == pytest.approx((29e-3, 30e-3, 34e-3))
