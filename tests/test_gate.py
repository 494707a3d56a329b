"""The validation gate's rule (costbook.calibration.gate): derived by code from the committed evidence,
resampled as the gate draws it, it passes an honest model's runs at least 95% of the time and a model
whose intervals hold 70% of the evidence at most 10% of the time; on made-up runs, its floors and its
beyond factor are the ones its definition gives."""
from __future__ import annotations

import json
import math

import pytest

from costbook import schemes
from costbook.calibration import gate, uncertainty

BOOK = list(schemes.in_book_order())


@pytest.fixture(scope="module")
def judged():
    return uncertainty.cross_validated(leave_sitting_out=True)


@pytest.fixture(scope="module")
def cases():
    return gate.gate_cases(BOOK)


def _pass_rate(cases, judged, narrow=1.0):
    rule = gate.gate_rule(cases, judged)
    return gate.pass_rate(gate.draws(gate.committed_runs(cases, judged, narrow), cases), rule)


def test_an_honest_model_passes_at_least_95_percent_of_the_evidence_s_draws(cases, judged):
    assert _pass_rate(cases, judged) >= 1 - gate.COVERAGE_ALARM - gate.BEYOND_ALARM


def test_a_model_at_70_percent_passes_at_most_10_percent_of_them(cases, judged):
    """Every committed interval narrowed about its centre until the evidence holds 70% of its checks:
    the gate's rule, set by the honest intervals, passes at most one draw in ten."""
    narrow = gate.narrowing_for(0.70, judged)
    held = sum(gate.distance(j["low"], j["high"], j["measured"]) <= narrow for j in judged) / len(judged)
    assert 0.70 <= held < 0.71
    assert _pass_rate(cases, judged, narrow) <= 0.10


def test_every_sitting_holds_every_gate_case_and_the_rule_uses_them_all(cases, judged):
    rule = gate.gate_rule(cases, judged)
    sittings = {j["sitting"] for j in judged}
    assert rule.sittings == len(sittings) >= 3
    assert set(rule.floors) == set(BOOK) and all(0 <= f <= 1 for f in rule.floors.values())
    assert rule.beyond in gate.BEYOND_FACTORS
    held = gate.held_out(cases, judged)
    assert set(held) == sittings and all(0 <= v <= 1 for v in held.values())


def _judged(scheme, sitting, run, errors, options=None):
    """Made-up judged checks of one run: intervals [1/1.1, 1.1] about 1 (log half-width ln 1.1), each
    measured at e^(error x ln 1.1), that is `error` half-widths from the centre."""
    return [{"scheme": scheme, "labels": json.dumps(options or {"n": 1}), "sitting": sitting, "run": run,
             "low": 1 / 1.1, "high": 1.1, "measured": 1.1 ** e} for e in errors]


def test_the_floor_and_the_beyond_factor_follow_their_definition():
    """Two sittings of one scheme, four runs each: in one sitting one run of four holds 1 of 4 steps;
    a draw below 75% weighs 1/8 > COVERAGE_ALARM, so the floor is that run's 25%; and one step 2.2
    half-widths out, in a draw weighing 1/8, sets the beyond factor at 2.5."""
    judged = []
    for k in range(4):
        judged += _judged("s", "A", f"A{k}", [0.1, 0.5, 0.9, 0.2])
    for k, errors in enumerate([[0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 2.2], [0.1, 1.5, 1.2, 1.3],
                                [0.5, 0.5, 0.5, 0.5]]):
        judged += _judged("s", "B", f"B{k}", errors)
    cases = [("s", {"n": 1})]
    rule = gate.gate_rule(cases, judged)
    assert rule.floors == {"s": 0.25} and rule.beyond == 2.5 and rule.draws == 8 and rule.sittings == 2
    assert rule.passes([("s", [gate.Step(True, 0.5)] * 3 + [gate.Step(False, 2.4)])])
    assert rule.failures([("s", [gate.Step(False, 1.5)] * 4)]) == [
        "s: 0% of its steps inside their intervals, below its floor 25%"]
    assert rule.failures([("s", [gate.Step(True, 0.5)] * 3 + [gate.Step(False, 2.6)])]) == [
        "1 step(s) beyond 2.5 half-widths of their intervals' centres (the farthest 2.6)"]


def test_held_out_judges_each_sitting_by_the_others_rule():
    judged = []
    for k in range(2):
        judged += _judged("s", "A", f"A{k}", [0.1, 0.2])
        judged += _judged("s", "B", f"B{k}", [0.1, 0.3])
        judged += _judged("s", "C", f"C{k}", [1.5, 1.6])
    held = gate.held_out([("s", {"n": 1})], judged)
    # C's runs hold none of their steps: the rule of A and B (every run wholly inside: floor 100%)
    # fails them, while A and B pass the rule their sitting left out with C's (floor 0%)
    assert held == {"A": 1.0, "B": 1.0, "C": 0.0}


def test_a_sitting_without_a_gate_case_cannot_set_the_rule():
    judged = _judged("s", "A", "A0", [0.1]) + _judged("t", "A", "A1", [0.1]) + _judged("s", "B", "B0", [0.1])
    with pytest.raises(gate.GateEvidenceError, match="the sitting B has no committed run of the gate case"):
        gate.gate_rule([("s", {"n": 1}), ("t", {"n": 1})], judged)


def test_the_distance_is_in_half_widths_about_the_centre():
    assert gate.distance(0.8, 1.25, 1.0) == 0
    assert gate.distance(0.8, 1.25, 1.25) == pytest.approx(1)
    assert gate.distance(0.8, 1.25, 0.8 ** 3) == pytest.approx(3)
    assert gate.distance(1.0, 1.0, 1.0) == 0 and gate.distance(1.0, 1.0, 1.1) == math.inf


def test_a_result_s_steps_are_its_checks_judged():
    result = {"runs": [{"checks": [{"inside": True, "predicted_low_s": 0.8, "predicted_high_s": 1.25, "measured_s": 1.0},
                                   {"inside": False, "predicted_low_s": 0.8, "predicted_high_s": 1.25, "measured_s": 2.0}]}]}
    steps = gate.steps_of(result)
    assert [s.inside for s in steps] == [True, False] and steps[1].distance == pytest.approx(math.log(2) / math.log(1.25))
