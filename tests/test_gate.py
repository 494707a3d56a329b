"""The validation gate's rule (costbook.calibration.gate): derived by code from the committed runs, it
fails an honest model's gate at most 5% of the time on the committed runs resampled as the gate draws
them, and its beyond factor holds on made-up exchangeable runs; a model whose intervals hold 70% of the
evidence passes at most 10% of the time; on made-up runs its floor and beyond factor are those its
definition gives, and too few runs give the farthest of them.""" 
from __future__ import annotations

import itertools
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
    return gate.pass_rate(gate.evidence_draws(cases, judged, narrow), gate.gate_rule(cases, judged))


def test_an_honest_model_passes_at_least_95_percent_of_the_evidence_s_draws(cases, judged):
    assert _pass_rate(cases, judged) >= 1 - gate.FALSE_ALARM


def test_a_model_whose_intervals_hold_70_percent_passes_at_most_10_percent(cases, judged):
    """Every committed interval narrowed about its centre until the evidence holds 70% of its checks: the
    rule set by the honest intervals passes at most 10% of the gate's draws, in-sample and, on average,
    each sitting judged by the rule its other sittings set."""
    narrow = gate.narrowing_for(0.70, judged)
    held = sum(gate.distance(j["low"], j["high"], j["measured"]) <= narrow for j in judged) / len(judged)
    assert 0.70 <= held < 0.71
    assert _pass_rate(cases, judged, narrow) <= 0.10
    narrowed = _known(gate.held_out(cases, judged, narrow))
    assert len(narrowed) >= 2 and _mean(narrowed) <= 0.10


def test_held_out_by_sitting_an_honest_model_passes_at_least_95_percent(cases, judged):
    """Each sitting judged by the rule its other sittings set, on average over the sittings."""
    honest = _known(gate.held_out(cases, judged))
    assert len(honest) >= 2 and _mean(honest) >= 1 - gate.FALSE_ALARM


def _known(held: dict) -> list:
    """The pass rates of the sittings whose others could set a rule."""
    return [v for v in held.values() if v is not None]


def _mean(values) -> float:
    return sum(values) / len(values)


def _made_up_runs(n, rng, narrow=1.0, steps=10):
    """Runs of independent steps whose distances hold 90% inside at `narrow` 1."""
    sigma = 1 / statistics.NormalDist().inv_cdf(0.95)
    return [[gate.Step(d <= 1, d) for d in (abs(rng.gauss(0, sigma)) / narrow for _ in range(steps))]
            for _ in range(n)]


def test_on_exchangeable_runs_each_run_puts_a_step_beyond_at_most_its_share_of_the_false_alarm():
    rng = random.Random(2026)
    beyond = gate.beyond_of(_made_up_runs(1000, rng), judged=6)
    fresh = _made_up_runs(6000, rng)
    failed = sum(any(st.distance > beyond for st in r) for r in fresh) / len(fresh)
    assert failed <= gate.FALSE_ALARM * gate.BEYOND_SHARE / 6 * 1.5      # its rate, and the sampling error of 6000 runs
    assert beyond <= 3


def test_on_made_up_draws_the_mean_floor_fails_at_most_its_share_of_the_false_alarm():
    """Draws of three cases' runs, each run's share of ten steps from the made-up law: the floor set by
    1000 draws fails at most its share of fresh draws; a model too sure of itself fails most of them."""
    rng = random.Random(2027)

    def drawn(n, narrow=1.0):
        return [[(f"case {k}", r) for k, r in enumerate(_made_up_runs(3, rng, narrow))] for _ in range(n)]
    rule = gate.Rule(beyond=math.inf, mean_floor=gate.mean_floor_of([_sitting(runs) for runs in drawn(1000)]),
                     runs=0, draws=1000, judged=3)
    fresh = [(1.0, runs) for runs in drawn(6000)]
    failed = sum(not rule.passes(runs) for _, runs in fresh) / len(fresh)
    assert failed <= gate.FALSE_ALARM * (1 - gate.BEYOND_SHARE) * 1.5
    assert 0.5 < rule.mean_floor < 0.9
    assert sum(not rule.passes(runs) for runs in drawn(2000, narrow=0.6)) / 2000 > 0.5


def _sitting(runs, weight=1.0, name="made up"):
    """A Sitting of one draw: each case's one run of `runs` ([(case, [Step, ...])])."""
    return gate.Sitting(name, weight, tuple((gate.Unit.of([steps]),) for _, steps in runs))


def test_the_rule_follows_its_definition_on_made_up_runs():
    """199 runs, one of them with a step 2.2 half-widths out: for a gate of one run, alpha_b is 4%, the
    beyond factor the ceil(0.96 x 200) = 192nd smallest farthest step.  Draws of mean shares 0.2, 0.5
    and 0.9 (weights 1, 1 and 98): at most 1% of the weight may lie below the floor, so it is 0.5."""
    runs = [[gate.Step(True, 0.5)] * 4 for _ in range(190)]
    runs += [[gate.Step(True, 0.2 + k / 10)] * 3 + [gate.Step(False, 1.1 + k / 10)] for k in range(8)]
    runs += [[gate.Step(True, 0.5)] * 3 + [gate.Step(False, 2.2)]]
    farthest = sorted(max(s.distance for s in r) for r in runs)
    assert gate.FALSE_ALARM * gate.BEYOND_SHARE == pytest.approx(0.04)
    assert gate.beyond_of(runs, judged=1) == math.ceil(farthest[191] * 2) / 2 == 1.5
    inside, outside = gate.Step(True, 0.5), gate.Step(False, 1.2)
    weighted = [_sitting([("a", [inside] + [outside] * 4)], 1), _sitting([("a", [inside] + [outside])], 1),
                _sitting([("a", [inside] * 9 + [outside])], 98)]
    assert gate.mean_floor_of(weighted) == 0.5
    rule = gate.Rule(beyond=1.5, mean_floor=0.5, runs=199, draws=3, judged=2)
    assert rule.failures([("a", [outside] * 4), ("b", [inside] * 3 + [outside])]) == [
        "its runs hold 37.5% of their steps inside their intervals on average, below the floor 50.0% (a 0%, b 75%)"]
    assert rule.failures([("a", [inside] * 3 + [gate.Step(False, 1.6)])]) == [
        "1 step(s) beyond 1.5 half-widths of their intervals' centres (the farthest 1.6)"]
    assert rule.passes([("a", [inside] * 3 + [gate.Step(False, 1.4)])])
    # a run held to the beyond factor alone (the toy scheme's) does not enter the mean
    assert not rule.failures([("a", [inside])], beyond_only=[("toy", [outside] * 3)])
    assert rule.failures([("a", [inside])], beyond_only=[("toy", [gate.Step(False, 1.6)])])


def test_too_few_runs_set_the_farthest_of_them_and_none_no_rule():
    """Ten runs cannot rank a step at a gate of six runs' false alarm: the factor is then the farthest step
    of them all (a run lies beyond it at most 1 / 11 of the time).  With 299 runs the rank is
    (1 - 0.05 x 0.8 / 6) x 300 = 298: one far run of them is left beyond."""
    ten = [[gate.Step(True, 0.1 * k)] for k in range(1, 11)]
    assert gate.beyond_of(ten, judged=6) == 1.0
    assert gate.beyond_of([[gate.Step(True, 0.5)]] * 298 + [[gate.Step(False, 2.2)]], judged=6) == 0.5
    assert gate.beyond_of([[gate.Step(True, 0.5)]] * 297 + [[gate.Step(False, 2.2)]], judged=6) == 2.5
    with pytest.raises(gate.GateEvidenceError, match="no committed run"):
        gate.beyond_of([], judged=6)
    with pytest.raises(gate.GateEvidenceError, match="no draw"):
        gate.mean_floor_of([])


def test_the_committed_evidence_sets_the_rule_and_held_out_says_what_it_can(cases, judged):
    rule = gate.gate_rule(cases, judged)
    assert rule.runs == len({j["run"] for j in judged}) and 0 < rule.mean_floor <= 1 and rule.beyond >= 1
    assert rule.draws == sum(s.count for s in gate.evidence_draws(cases, judged))
    assert rule.judged == gate.RUNS_PER_CASE * len(cases)
    held = gate.held_out(cases, judged)
    assert set(held) == {j["sitting"] for j in judged}
    assert all(v is None or 0 <= v <= 1 for v in held.values())


def _judged(scheme, sitting, run, errors, options=None):
    """Made-up judged checks of one run: intervals [1/1.1, 1.1] about 1, each measured `error`
    half-widths from the centre."""
    return [{"scheme": scheme, "labels": json.dumps(options or {"n": 1}), "sitting": sitting, "run": run,
             "low": 1 / 1.1, "high": 1.1, "measured": 1.1 ** e, "inside": e <= 1} for e in errors]


def test_draws_take_runs_of_each_case_from_one_sitting():
    """One run a case: sitting A's two choices of case s weigh a quarter each, sitting B's one draw half.
    Two runs a case: each choice of two of a case's three runs in a sitting."""
    judged = (_judged("s", "A", "A0", [0.1]) + _judged("s", "A", "A1", [0.2]) + _judged("t", "A", "A2", [0.3])
              + _judged("s", "B", "B0", [0.4]) + _judged("t", "B", "B1", [0.5]))
    cases = [("s", {"n": 1}), ("t", {"n": 1})]
    drawn = gate.draws(gate.committed_runs(cases, judged), cases, per_case=1)
    assert [(s.name, s.weight, s.count) for s in drawn] == [("A", 0.5, 2), ("B", 0.5, 1)]
    assert [[[round(u.farthest, 6) for u in units] for units in s.units] for s in drawn] == [[[0.1, 0.2], [0.3]], [[0.4], [0.5]]]
    three = sum((_judged(c, "A", f"{c}{i}", [e]) for c in "st" for i, e in enumerate((0.5, 1.5, 2.5))), [])
    (sitting,) = gate.draws(gate.committed_runs(cases, three), cases, per_case=2)
    assert sitting.count == 9
    assert sorted((round(u.share, 6), round(u.farthest, 6)) for u in sitting.units[0]) == [(0.0, 2.5), (0.5, 1.5), (0.5, 2.5)]


def test_the_mean_share_s_distribution_is_that_of_every_draw_listed():
    """``Sitting.means`` convolves the cases' shares; listing every draw gives the same, with and without
    a beyond factor."""
    rng = random.Random(2028)
    units = tuple(tuple(gate.Unit(rng.choice((0.5, 0.75, 0.8, 1.0)), rng.uniform(0, 3)) for _ in range(rng.randint(1, 4)))
                  for _ in range(4))
    sitting = gate.Sitting("A", 1.0, units)
    for beyond in (math.inf, 2.0):
        listed = {}
        for draw in itertools.product(*units):
            if all(u.farthest <= beyond for u in draw):
                key = round(sum(u.share for u in draw) / len(draw), 9)
                listed[key] = listed.get(key, 0) + 1 / sitting.count
        got = {round(m, 9): p for m, p in sitting.means(beyond)}
        assert got.keys() == listed.keys() and all(got[k] == pytest.approx(listed[k]) for k in got)


def test_a_sitting_without_a_gate_case_cannot_be_drawn():
    judged = _judged("s", "A", "A0", [0.1]) + _judged("t", "A", "A1", [0.1]) + _judged("s", "B", "B0", [0.1])
    cases = [("s", {"n": 1}), ("t", {"n": 1})]
    with pytest.raises(gate.GateEvidenceError, match="the sitting B has fewer than 1 committed run"):
        gate.draws(gate.committed_runs(cases, judged), cases, per_case=1)
    with pytest.raises(gate.GateEvidenceError, match="the sitting A has fewer than 2 committed run"):
        gate.draws(gate.committed_runs(cases, judged), cases, per_case=2)


def test_a_scheme_new_to_the_book_draws_its_floor_from_the_sittings_that_hold_it():
    """A sitting without a run of one gate case (a scheme whose evidence comes from one machine so far)
    is left out of the floor's draws, not a reason to refuse the rule; no complete sitting is."""
    judged = _judged("s", "A", "A0", [0.1]) + _judged("t", "A", "A1", [0.1]) + _judged("s", "B", "B0", [3.0])
    cases = [("s", {"n": 1}), ("t", {"n": 1})]
    runs = gate.committed_runs(cases, judged)
    assert gate.complete_sittings(runs, cases, per_case=1) == ["A"]
    assert [s.weight for s in gate.draws(runs, cases, gate.complete_sittings(runs, cases, 1), per_case=1)] == [1.0]
    with pytest.raises(gate.GateEvidenceError, match="no sitting holds 1 committed run"):
        gate.complete_sittings(gate.committed_runs(cases, judged[2:]), cases, per_case=1)
    with pytest.raises(gate.GateEvidenceError, match="no sitting holds 2 committed run"):
        gate.complete_sittings(runs, cases, per_case=2)


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
