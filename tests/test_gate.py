"""The validation gate's rule (costbook.calibration.gate): derived by code from the committed runs as
exchangeable units, it fails an honest model's gate run at most 5% of the time, on the committed
runs resampled as the gate draws them and on made-up exchangeable runs; a model whose intervals are
too narrow passes less often; on made-up runs its floor and beyond factor are those its definition
gives, and too few runs are refused."""
from __future__ import annotations

import json
import math
import random
import statistics

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
    rule = gate.gate_rule(len(cases), judged)
    return gate.pass_rate(gate.draws(gate.committed_runs(cases, judged, narrow), cases), rule)


def test_an_honest_model_passes_at_least_95_percent_of_the_evidence_s_draws(cases, judged):
    assert _pass_rate(cases, judged) >= 1 - gate.FALSE_ALARM


def test_a_model_too_sure_of_itself_passes_less_often(cases, judged):
    """Every committed interval narrowed about its centre until the evidence holds 70% of its checks: the
    rule set by the honest intervals passes fewer of the gate's draws.  (Not at most 10% of them: whole
    runs displaced together leave the committed runs too few for a floor, and a far step alone
    catches a model at 70% in under two draws in three; chapter 1 prints the figure.)"""
    narrow = gate.narrowing_for(0.70, judged)
    held = sum(gate.distance(j["low"], j["high"], j["measured"]) <= narrow for j in judged) / len(judged)
    assert 0.70 <= held < 0.71
    assert _pass_rate(cases, judged, narrow) < _pass_rate(cases, judged) - 0.25


def _made_up_runs(n, rng, narrow=1.0, steps=10):
    """Runs of independent steps whose distances hold 90% inside at `narrow` 1."""
    sigma = 1 / statistics.NormalDist().inv_cdf(0.95)
    return [[gate.Step(d <= 1, d) for d in (abs(rng.gauss(0, sigma)) / narrow for _ in range(steps))]
            for _ in range(n)]


def test_on_exchangeable_runs_each_run_fails_at_most_its_share_of_the_false_alarm():
    rng = random.Random(2026)
    rule = gate.rule_of(_made_up_runs(1000, rng), judged=6)
    fresh = _made_up_runs(6000, rng)
    failed = sum(not rule.passes([("run", r)]) for r in fresh) / len(fresh)
    assert failed <= gate.FALSE_ALARM / 6 * 1.5           # its rate, and the sampling error of 6000 runs
    assert rule.floor > 0 and rule.beyond <= 3          # 1000 runs are enough for a floor


def test_the_rule_follows_its_definition_on_made_up_runs():
    """199 runs, one of them with a step 2.2 half-widths out and one holding 1 of 4: for a gate of one
    run, alpha is 5%, the beyond factor is the ceil(0.96 x 200) = 192nd smallest farthest step, and the
    floor the floor(0.01 x 200) = 2nd smallest share."""
    runs = [[gate.Step(True, 0.5)] * 4 for _ in range(190)]
    runs += [[gate.Step(True, 0.2 + k / 10)] * 3 + [gate.Step(False, 1.1 + k / 10)] for k in range(7)]
    runs += [[gate.Step(True, 0.5)] * 3 + [gate.Step(False, 2.2)]]
    runs += [[gate.Step(True, 0.5)] + [gate.Step(False, 1.2)] * 3]
    rule = gate.rule_of(runs, judged=1)
    farthest = sorted(max(s.distance for s in r) for r in runs)
    assert rule.beyond == math.ceil(farthest[191] * 2) / 2 == 1.5
    assert rule.floor == 0.75 and rule.runs == 199 and rule.judged == 1
    assert rule.failures([("a case", [gate.Step(False, 1.2)] * 4)]) == [
        "a case: 0% of its steps inside their intervals, below the floor 75%"]
    assert rule.failures([("a case", [gate.Step(True, 0.5)] * 3 + [gate.Step(False, 1.6)])]) == [
        "1 step(s) beyond 1.5 half-widths of their intervals' centres (the farthest 1.6)"]
    assert rule.passes([("a case", [gate.Step(True, 0.5)] * 3 + [gate.Step(False, 1.4)])])


def test_too_few_runs_cannot_set_the_rule_and_set_no_floor():
    with pytest.raises(gate.GateEvidenceError, match="10 committed runs cannot bound a step's distance"):
        gate.rule_of([[gate.Step(True, 0.5)]] * 10, judged=6)
    assert gate.rule_of([[gate.Step(True, 0.5)]] * 200, judged=6).floor == 0     # a floor needs 599
    assert gate.runs_for_a_floor(6) == 599


def test_the_committed_evidence_sets_the_rule_and_held_out_says_what_it_can(cases, judged):
    rule = gate.gate_rule(len(cases), judged)
    assert rule.runs == len({j["run"] for j in judged}) and 0 <= rule.floor <= 1 and rule.beyond >= 1
    held = gate.held_out(cases, judged)
    assert set(held) == {j["sitting"] for j in judged}
    assert all(v is None or 0 <= v <= 1 for v in held.values())


def _judged(scheme, sitting, run, errors, options=None):
    """Made-up judged checks of one run: intervals [1/1.1, 1.1] about 1, each measured `error`
    half-widths from the centre."""
    return [{"scheme": scheme, "labels": json.dumps(options or {"n": 1}), "sitting": sitting, "run": run,
             "low": 1 / 1.1, "high": 1.1, "measured": 1.1 ** e, "inside": e <= 1} for e in errors]


def test_draws_take_one_run_of_each_case_from_one_sitting():
    judged = (_judged("s", "A", "A0", [0.1]) + _judged("s", "A", "A1", [0.2]) + _judged("t", "A", "A2", [0.3])
              + _judged("s", "B", "B0", [0.4]) + _judged("t", "B", "B1", [0.5]))
    cases = [("s", {"n": 1}), ("t", {"n": 1})]
    drawn = gate.draws(gate.committed_runs(cases, judged), cases)
    assert [w for w, _ in drawn] == [0.25, 0.25, 0.5]
    assert [[round(st.distance, 6) for _, steps in d for st in steps] for _, d in drawn] == [[0.1, 0.3], [0.2, 0.3], [0.4, 0.5]]


def test_a_sitting_without_a_gate_case_cannot_be_drawn():
    judged = _judged("s", "A", "A0", [0.1]) + _judged("t", "A", "A1", [0.1]) + _judged("s", "B", "B0", [0.1])
    cases = [("s", {"n": 1}), ("t", {"n": 1})]
    with pytest.raises(gate.GateEvidenceError, match="the sitting B has no committed run of the gate case"):
        gate.draws(gate.committed_runs(cases, judged), cases)


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
