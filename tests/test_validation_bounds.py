"""Validation is tested: each scheme's Sage code, timed step by step against its counts priced with
primitives timed in the same rounds, lies in its 90% prediction interval as often as the interval
promises, and never far outside it.

Each check's interval is its 90% prediction interval (``costbook.calibration.uncertainty``): anchored at its
prediction at the prices' lower quartile and widened by their spread in its own run, with a margin
estimated from the committed validation runs of every other scheme and of the same scheme at other
sizes, never from the run it judges.

The gate runs each case ``gate.RUNS_PER_CASE`` times, each in a fresh process, as the evidence was
collected (``costbook.calibration.calibrate``), and judges those runs once, by a rule decided before they run
and derived by code from the committed evidence (``costbook.calibration.gate``): on average over the
book's cases at least the floor of a run's steps inside their intervals, and no step beyond the rule's
number of half-widths of its interval's centre.  Nothing is run again: a gate that falls short fails.
The rule comes from the committed runs taken whole (one run's steps are not independent draws: a
burst of the machine's noise moves many steps of a run together), so that an honest model fails at
most 5% of the gates; ``tests/test_gate.py`` checks that, and how often a model whose intervals hold
70% of the evidence would pass.  The median half-width, as at prices that do not spread, is at most
``gate.width_ceiling`` (an interval can cover anything by being wide).

The runs are small (one parameter set or size per scheme) so that `make test` stays within its time
budget.  A test below shows that the check does catch a step whose counts leave out half its work.
"""
from __future__ import annotations

import hashlib
import math
import warnings

import pytest

from pathlib import Path

from costbook import schemes
from costbook.calibration import gate, uncertainty, validation
from costbook.calibration.validation import limit_of, runs_result, validate_steps

pytestmark = pytest.mark.validation

TOYS = sorted(d.name for d in (Path(__file__).resolve().parent / "toy_schemes").iterdir() if (d / "model.py").is_file())


def _cases(names) -> list:
    """(scheme, options) of each scheme's manifest.VALIDATION_CASES (the toys' read with their folder
    on the path)."""
    from conftest import toy_schemes_on_path
    with toy_schemes_on_path():
        return [(s, dict(o)) for s in names for o in schemes.manifest(s).VALIDATION_CASES]


#: the book's schemes (the toys come onto the path only inside their fixture)
BOOK = list(schemes.in_book_order())
#: every discovered scheme's small validation runs, then the toys'
CASES = _cases(BOOK + TOYS)


def test_every_scheme_is_in_the_gate_or_says_why():
    """Every discovered scheme has gate cases, or its manifest states (NOT_GATED) why its steps cannot
    be held to their intervals on a busy machine; its committed evidence (CALIBRATION_CASES) holds the
    gate's cases and at least one other case, which judges them."""
    for s in schemes.in_book_order():
        m = schemes.manifest(s)
        assert m.VALIDATION_CASES or len(getattr(m, "NOT_GATED", "")) > 40, s
        assert not (m.VALIDATION_CASES and hasattr(m, "NOT_GATED")), f"{s}: gated, and says why not"
        assert all(c in m.CALIBRATION_CASES for c in m.VALIDATION_CASES), s
        assert len(m.CALIBRATION_CASES) > len(m.VALIDATION_CASES), s


@pytest.fixture(autouse=True)
def full_profile(monkeypatch):
    """The gate times with VALIDATION_PROFILE whatever the environment says (make test's first phase
    sets the check profile for the chapters nbval runs beside the other worker)."""
    monkeypatch.delenv(validation.PROFILE_VARIABLE, raising=False)
    assert validation.default_profile() is validation.VALIDATION_PROFILE


@pytest.fixture(scope="module")
def rule():
    """The book's gate rule (RUNS_PER_CASE runs of each book scheme's case), from the committed evidence,
    decided before any case runs; the toy's runs are held to its beyond factor too."""
    return gate.gate_rule(gate.gate_cases(BOOK))


#: each case's runs: (scheme, [its validate() result from each of RUNS_PER_CASE fresh processes])
RESULTS: dict = {}


def _case_id(scheme, options) -> str:
    return f"{scheme}-{'-'.join(map(str, options.values())) or 'default'}"


def _case_runs(scheme: str, options: dict, request) -> list:
    """The case validated RUNS_PER_CASE times, each in a fresh process (as the evidence was collected),
    kept for the coverage across the gate."""
    if scheme in TOYS:
        request.getfixturevalue("toy_scheme")
    results = validation.validations_in_processes(scheme, options, gate.RUNS_PER_CASE)
    for result in results:
        assert result["checked"] > 0 and "coverage" in result, f"{scheme}: its validate() gives no prediction intervals"
    RESULTS[_case_id(scheme, options)] = (scheme, results)
    return results


def _far(result, beyond: float) -> list:
    """Every check of `result` beyond `beyond` half-widths of its interval's centre, in words."""
    checks = [c for run in result["runs"] for c in run["checks"]]
    return [f"{c['step']} {c['measured_s'] / c['predicted_s'] - 1:+.1%} (interval "
            f"{c['predicted_low_s'] / c['predicted_s'] - 1:+.1%} to {c['predicted_high_s'] / c['predicted_s'] - 1:+.1%}, "
            f"{step.distance:.1f} half-widths)"
            for c, step in zip(checks, gate.steps_of(result)) if step.distance > beyond]


@pytest.mark.parametrize("scheme,options", CASES, ids=[_case_id(s, o) for s, o in CASES])
def test_no_step_lies_far_beyond_its_interval(scheme, options, request, rule):
    far = [f"run {i + 1}: {f}" for i, result in enumerate(_case_runs(scheme, options, request))
           for f in _far(result, rule.beyond)]
    assert not far, f"beyond {rule.beyond:g} half-widths of the interval's centre in its runs: " + "; ".join(far)


def test_the_gate_is_calibrated(request, rule):
    """Across every case of the gate, each scheme's share of steps in their 90% intervals against its
    floor, and the intervals' median half-width (a case not run above, under -k, is run here)."""
    for scheme, options in CASES:
        if _case_id(scheme, options) not in RESULTS:
            _case_runs(scheme, options, request)
    checks = _gate_checks(RESULTS)
    cov = uncertainty.coverage(checks)
    words = uncertainty.coverage_words(cov)
    judged = [(f"{case} #{i + 1}", case, gate.steps_of(result))
              for case, (_, results) in RESULTS.items() for i, result in enumerate(results)]
    book = {_case_id(s, o) for s, o in gate.gate_cases(BOOK)}
    book_runs = [(name, st) for name, case, st in judged if case in book]
    failures = rule.failures(book_runs, beyond_only=[(name, st) for name, case, st in judged if case not in book])
    assert not failures, f"the gate's runs: {'; '.join(failures)} ({words}; outside: {_outside(checks)})"
    ceiling, calm = gate.width_ceiling(), uncertainty.median_calm_half_width(checks)
    assert calm <= ceiling, (f"the gate's intervals are too wide: {calm:.1%} at the median as at prices that do not "
                             f"spread (at most {ceiling:.1%}): {words}")
    warnings.warn(f"the gate: {words} ({calm:.1%} as at prices that do not spread, ceiling {ceiling:.1%}); "
                  f"mean share inside {gate.mean_share(book_runs):.1%} "
                  f"(floor {rule.mean_floor:.1%}), farthest step allowed {rule.beyond:g} "
                  f"half-widths (from {rule.runs} committed runs); " + ", ".join(
                      f"{name} {gate.share(steps):.0%}" for name, _, steps in judged), stacklevel=1)


def _gate_checks(results: dict) -> list:
    """Every case's checks of each of its runs, each step named with its case and run."""
    return [{**c, "step": f"{case} #{i + 1} {c['step']}"} for case, (_, rs) in results.items()
            for i, r in enumerate(rs) for run in r["runs"] for c in run["checks"]]


def _outside(checks) -> str:
    """Every check outside its interval, with its error and its interval as errors, for a failure's
    message: which steps and how far say whether a scheme or a run missed.  Where the check has its
    rounds, its error paired within rounds too (``validation.paired_error``, not judged): whether the
    step's own rounds ran slow while its prices did not."""
    def paired(c):
        e = validation.paired_error(c)
        return "" if e is None else f", paired within rounds {e:+.1%}"
    return "; ".join(f"{c['step']} {c['measured_s'] / c['predicted_s'] - 1:+.1%} (interval "
                     f"{c['predicted_low_s'] / c['predicted_s'] - 1:+.1%} to {c['predicted_high_s'] / c['predicted_s'] - 1:+.1%}"
                     f"{paired(c)})"
                     for c in checks if not c["inside"]) or "none"


def test_a_failures_message_names_the_steps_outside():
    checks = [{"step": "veccom-16 merkle/a", "predicted_s": 1.0, "predicted_low_s": 0.95, "predicted_high_s": 1.08,
               "measured_s": 1.12, "inside": False},
              {"step": "cs03-aggressive prove", "predicted_s": 2.0, "predicted_low_s": 1.9, "predicted_high_s": 2.2,
               "measured_s": 2.0, "inside": True}]
    assert _outside(checks) == "veccom-16 merkle/a +12.0% (interval -5.0% to +8.0%)"
    assert _outside(checks[1:]) == "none"
    rounds = {"round_measured_s": [1.1, 1.6, 1.0], "round_predicted_s": [1.0, 1.0, 1.0]}
    assert _outside([{**checks[0], **rounds}]) == (
        "veccom-16 merkle/a +12.0% (interval -5.0% to +8.0%, paired within rounds +10.0%)")


def test_the_paired_error_is_the_median_ratio_within_rounds():
    assert validation.paired_error({"round_measured_s": [2.0, 3.0, 9.0, 4.0], "round_predicted_s": [1.0, 2.0, 3.0, 4.0]}) \
        == pytest.approx((1.5 + 2.0) / 2 - 1)
    assert validation.paired_error({"step": "a"}) is None
    assert validation.paired_error({"round_measured_s": [1.0], "round_predicted_s": [0.0]}) is None


def test_a_limit_is_the_first_glob_that_matches():
    assert limit_of("anything", None, 0.1) == 0.1
    assert limit_of("merkle/commit", {"merkle/*": 0.70, "*": 0.05}, 0.1) == 0.70
    assert limit_of("pointproofs/commit", {"merkle/*": 0.70, "*": 0.05}, 0.1) == 0.05


#: a run whose prices spread at most this (half-spread h) is calm: the evidence's two calmest bands
#: (``uncertainty.SPREAD_BANDS``), where an interval is a few percent wide
CALM_SPREAD = 0.03


def test_a_step_whose_counts_leave_work_out_is_caught(rule):
    """The check can fail: a step that hashes twenty times, counted as ten (about +90% over its
    prediction), lies above its interval; in a calm run (its prices spread at most CALM_SPREAD) beyond
    the gate's rule of half-widths.  Where a burst of the machine's noise spreads the run's prices, the
    interval widens with them, as it should, and a missing half no longer stands out from that noise by
    the far-step factor: it lies outside the interval, and counts against the gate's mean share.
    Counted right, the same step lies within the rule.  Many hashes per step, so that the step's own
    call costs little beside them (with two hashes counted as one, a fresh clone once measured +49%)."""
    data = bytes(64)

    def step():
        for _ in range(20):
            hashlib.sha256(data).digest()

    def judged(hashes):
        return runs_result([{"checks": [c.to_dict() for c in validate_steps(
            {"twenty hashes": step}, {"twenty hashes": {"sha256/64B": hashes}}, "python")]}],
            scheme="a step that hashes twenty times")
    wrong, right = judged(10), judged(20)
    (check,) = wrong["runs"][0]["checks"]
    spread = uncertainty.anchor_and_spread(check["predicted_s"], check["price_low_s"], check["price_high_s"])[1]
    assert check["measured_s"] > check["predicted_high_s"], f"within its interval: {_far(wrong, 0)}"
    if spread <= CALM_SPREAD:
        assert _far(wrong, rule.beyond) and wrong["worst_error"] > 0.5      # its missing half, plainly
    assert not _far(right, rule.beyond) and right["worst_error"] < wrong["worst_error"] / 3


#: made-up evidence (no price spread) whose residuals are +-ln 1.03, half each: every margin's centre is
#: 0 and its value ln 1.03
EVIDENCE = [uncertainty.Record("other", "{}", f"s{i}", "priced", 1.0, 1.03 ** (-1) ** i) for i in range(40)]


def _one_step(error: float) -> dict:
    """A validation result of one step predicted at 1 s [0.99, 1.01] that measured 1 + error."""
    check = {"step": "merkle/a", "predicted_s": 1.0, "predicted_low_s": 0.99, "predicted_high_s": 1.01,
             "measured_s": 1.0 + error, "error": error, "inside": False}
    return {"scheme": "veccom", **validation.runs_result([{"n": 16, "checks": [check]}], {"merkle/*": 0.08},
                                                         scheme="veccom")}


def test_the_margin_is_the_evidence_s(made_up_evidence):
    """With the evidence's residuals +-ln 1.03, a prediction of 1 s priced in [0.99, 1.01] has the
    interval 0.99 x 1.03^(-+w), w = 1 + ln(1.01 / 0.99) / 2 / SPREAD_FLOOR (its prices' spread widens
    it by 5%): [0.960, 1.021], and doubled about its centre 0.99, [0.930, 1.053]."""
    c = _one_step(0.05)["runs"][0]["checks"][0]
    w = 1 + math.log(1.01 / 0.99) / 2 / uncertainty.SPREAD_FLOOR
    assert (c["predicted_low_s"], c["predicted_high_s"]) == pytest.approx((0.99 / 1.03 ** w, 0.99 * 1.03 ** w))
    assert c["margin"] == pytest.approx(math.log(1.03) * w)
    assert (c["price_low_s"], c["price_high_s"]) == (0.99, 1.01)
    assert not c["inside"] and c["within_twice"]
    assert not _one_step(0.09)["runs"][0]["checks"][0]["within_twice"]


@pytest.fixture(autouse=False)
def made_up_evidence(monkeypatch):
    monkeypatch.setattr(uncertainty, "evidence", lambda: EVIDENCE)


def test_twice_the_interval_is_about_its_centre():
    """A step inside its interval is never beyond twice it, wherever the point prediction lies: the
    interval [0.8, 0.9] (centre 0.849, log half-width 0.059) doubled is [0.754, 0.955]."""
    assert uncertainty.within_twice(0.8, 0.9, 0.76) and uncertainty.within_twice(0.8, 0.9, 0.95)
    assert not uncertainty.within_twice(0.8, 0.9, 0.75) and not uncertainty.within_twice(0.8, 0.9, 0.96)
    assert uncertainty.assess(1.0, 0.8, 0.9, 0.85)["within_twice"]           # 15% below its prediction
    assert not uncertainty.assess(1.0, 0.8, 0.9, 1.0)["within_twice"]        # at its prediction, far above
    assert uncertainty.within_twice(1 / 1.05, 1.05, 1.1) and not uncertainty.within_twice(1 / 1.05, 1.05, 1.11)
