"""Error bars (issue 12, item 3): every estimate's totals and steps carry an interval.

Each registered scheme's estimate, through the CLI's --json, with the published and the reference
source: every seconds value of a total or a step has its low and high bound, finite, around it;
where a published file states ranges, some published estimate has a nonzero width (so a lost
propagation fails here).  Plus the bounds of a scaled price set, and the validation's "inside" flag.
"""
import json
import math

import pytest

from costbook.cli import commands as cli
from costbook.prices import measurements
from costbook import schemes
from costbook.prices.cost import price
from costbook.timing.harness import summarize
from costbook.calibration.intervals import fmt_interval, inside
from costbook.calibration.validation import StepCheck, format_runs, runs_result

#: parts of an estimate that echo the seed's own figures (single numbers it prints), not estimates
ECHOED = {"published", "ratios", "seed_measured"}
#: seconds checked otherwise ("total_s" with "low_s"), or not a total: a unit price (its line has bounds), a seed figure
NOT_TOTALS = {"unit_price_s", "published_s", "low_s", "high_s", "total_s"}

#: (scheme, source, extra options): every scheme's default with both sources, the other models and
#: curves (the seed's Mac has no MSM price: --msm yes needs a measured source; the punch cards'
#: --model completes the seed's laptop, so it applies to the published source only)
CASES = [(name, source, ()) for name in sorted(schemes.REGISTRY) for source in ("published", "reference")] + [
    (scheme, source, extra) for source in ("published", "reference") for scheme, extra in (
        ("cs03", ("--model", "seed")), ("cs03", ("--params", "aggressive", "--model", "spec")),
        ("punchcard", ("--curve", "bls12_381")))
] + [("punchcard", "published", ("--model", "implied")), ("veccom", "reference", ("--msm", "yes"))]
_RESULTS = {}


def estimate_json(capsys, scheme, source, extra=()):
    """`costbook estimate SCHEME --source SOURCE ... --json`, parsed; each run once per module."""
    args = ("estimate", scheme, "--source", source, *extra, "--json")
    if args not in _RESULTS:
        capsys.readouterr()
        assert cli.main(list(args)) == 0, capsys.readouterr().err
        _RESULTS[args] = json.loads(capsys.readouterr().out)
    return _RESULTS[args]


def intervals(node, path="$"):
    """(path, value, low, high) of every total or step in a JSON result: a dict's "seconds" or
    "total_s" with its "low_s"/"high_s", and each "<name>_s"/"<name>_ms" with "<name>_low_s"/... ."""
    if isinstance(node, list):
        for i, x in enumerate(node):
            yield from intervals(x, f"{path}[{i}]")
        return
    if not isinstance(node, dict):
        return
    if _number(node.get("seconds")):
        yield f"{path}.seconds", node["seconds"], node.get("low_s"), node.get("high_s")
    if _number(node.get("total_s")):        # an Estimate's dict, or a party called "total"
        lo, hi = ("low_s", "high_s") if "low_s" in node else ("total_low_s", "total_high_s")
        yield f"{path}.total_s", node["total_s"], node.get(lo), node.get(hi)
    for key, value in node.items():
        if key in ECHOED:
            continue
        if _number(value) and key not in NOT_TOTALS:
            for unit in ("_s", "_ms"):
                if key.endswith(unit) and not key.endswith(("_low" + unit, "_high" + unit)):
                    name = key[: -len(unit)]
                    yield f"{path}.{key}", value, node.get(f"{name}_low{unit}"), node.get(f"{name}_high{unit}")
        yield from intervals(value, f"{path}.{key}")


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


@pytest.mark.parametrize("scheme,source,extra", CASES, ids=[" ".join(c[:2] + c[2]) for c in CASES])
def test_every_total_and_step_has_an_interval_around_it(capsys, scheme, extra, source):
    found = list(intervals(estimate_json(capsys, scheme, source, extra)))
    assert len(found) >= 2, f"{scheme}: no totals found in the estimate"
    for path, value, low, high in found:
        assert low is not None and high is not None, f"{scheme} {source}: {path} has no low/high bound"
        assert all(math.isfinite(x) for x in (value, low, high)), f"{path}: {low}, {value}, {high}"
        assert low <= value * (1 + 1e-12) and value <= high * (1 + 1e-12), f"{path}: {low} <= {value} <= {high} fails"


@pytest.mark.parametrize("scheme", sorted(schemes.REGISTRY))
def test_stated_ranges_reach_the_published_estimate(capsys, scheme):
    """Where a scheme's published file states ranges, the published estimate's intervals have width."""
    module = schemes.get(scheme)
    pub = measurements.load_source(f"published/{module.PUBLISHED}")
    ranged = [k for b in pub.backends for k in pub.keys(b) if "low" in pub.entry(b, k)]
    found = list(intervals(estimate_json(capsys, scheme, "published")))
    widths = [high - low for _, _, low, high in found]
    if ranged or scheme == "mixnet":          # the mixnet's calibrated prices have a fit's spread
        assert max(widths) > 0, f"{scheme}: {pub.name} states ranges for {ranged[:3]}, every interval is a point"


def test_a_price_without_spread_is_named(capsys):
    # the vector commitments' Merkle prices come from a benchmark that prints one number
    d = estimate_json(capsys, "veccom", "published")
    assert "sha256/73B" in d["prices_without_spread"]
    step = d["ops"]["merkle/commit"]
    assert step["price_low_s"] == step["seconds"] == step["price_high_s"]
    # its prediction interval still has the model's error in it: a price without spread is not exact
    assert step["low_s"] < step["seconds"] < step["high_s"]


def _measured(results):
    return measurements.validate({
        "schema": measurements.SCHEMA, "name": "synthetic", "kind": "measured",
        "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}},
        "results": {"libsodium": {k: {"median": m, "q1": q1, "q3": q3, "mad": 0.1, "samples": 5, "batch": 1,
                                      "unit": "us"} for k, (q1, m, q3) in results.items()}}})


def test_a_scaled_price_has_the_scaled_bounds():
    from costbook.schemes.punchcard import prices
    native = _measured({"ristretto255/mul": (38, 40, 45), "ristretto255/decode": (7, 8, 10)})
    laptop = prices.seed_machine_prices({"ristretto255/mul", "ristretto255/decode"}, "ristretto255", native, ["libsodium"],
                                        seed_library=False)
    # decode = stated mul (50 us, stated range 50-55) x libsodium decode / libsodium mul (40 us)
    assert laptop.seconds(prices.SEED_BACKEND, "ristretto255/decode") == pytest.approx(50e-6 * 8 / 40)
    assert laptop.bounds(prices.SEED_BACKEND, "ristretto255/decode") == pytest.approx(
        (50e-6 * 7 / 40, 55e-6 * 10 / 40))
    # the derived set still passes the schema (low <= median <= high) when written out and read back
    again = measurements.validate(laptop.to_json())
    assert again.bounds(prices.SEED_BACKEND, "ristretto255/mul") == pytest.approx((50e-6, 55e-6))


def test_the_seed_library_measured_prices_its_keys_with_its_own_ratios(monkeypatch):
    """By default a ristretto255 key on the seed's laptop is scaled by curve25519-dalek's own ratio
    (the committed file of bench/curve25519-dalek), whatever the native file says."""
    from costbook.schemes.punchcard import prices
    native = _measured({"ristretto255/mul": (38, 40, 45), "ristretto255/decode": (7, 8, 10)})
    dalek = measurements.validate({**native.to_json(), "name": "synthetic dalek", "results": {"curve25519-dalek": {
        k: {"median": m, "q1": q1, "q3": q3, "mad": 0.1, "samples": 5, "batch": 1, "unit": "us"}
        for k, (q1, m, q3) in {"ristretto255/mul": (30, 32, 33), "ristretto255/decode": (3.8, 4, 4.4)}.items()}}})
    monkeypatch.setitem(prices.SEED_LIBRARY_MEASURED, "ristretto255", lambda: ("curve25519-dalek", dalek, "dalek x.y"))
    laptop = prices.seed_machine_prices({"ristretto255/mul", "ristretto255/decode"}, "ristretto255", native, ["libsodium"])
    assert laptop.seconds(prices.SEED_BACKEND, "ristretto255/decode") == pytest.approx(50e-6 * 4 / 32)
    assert laptop.bounds(prices.SEED_BACKEND, "ristretto255/decode") == pytest.approx((50e-6 * 3.8 / 32, 55e-6 * 4.4 / 32))
    assert "curve25519-dalek ratio 0.125 (the seed's library, measured)" in laptop.entry(prices.SEED_BACKEND, "ristretto255/decode")["basis"]
    assert "synthetic dalek" in laptop.provenance["derived_from"]


def _timing(median):
    """Three samples around `median` (validation compares medians; the quartiles are its spread)."""
    return summarize([median * 0.99, median, median * 1.01], 1)


def test_validation_says_whether_the_measurement_is_in_the_interval():
    checks = [StepCheck("in", 1.0, _timing(1.05), 0.9, 1.1), StepCheck("out", 1.0, _timing(1.2), 0.9, 1.1),
              StepCheck("point", 1.0, _timing(1.0))]
    assert [c.inside for c in checks] == [True, False, True]
    d = [c.to_dict() for c in checks]
    assert d[1]["inside"] is False and (d[1]["predicted_low_s"], d[1]["predicted_high_s"]) == (0.9, 1.1)
    assert d[1]["error"] == pytest.approx(0.2)
    result = runs_result([{"n": 1, "checks": d}])
    assert (result["in_interval"], result["checked"]) == (2, 3)
    text = format_runs(result, ["n"])
    assert "in interval" in text and "2 of 3" in text and fmt_interval(1.0, 0.9, 1.1) in text
    assert inside(1.1, 0.9, 1.1) and not inside(0.89, 0.9, 1.1)


def test_a_validation_interval_comes_from_the_primitives_quartiles():
    m = _measured({"ristretto255/mul": (38, 40, 45)})
    check = StepCheck.of("two mults", price({"ristretto255/mul": 2}, m, "libsodium"), _timing(85e-6))
    assert (check.low, check.predicted, check.high) == pytest.approx((76e-6, 80e-6, 90e-6))
    assert check.inside and check.to_dict()["error"] == pytest.approx(85 / 80 - 1)
