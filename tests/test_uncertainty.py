"""Prediction intervals (costbook.calibration.uncertainty): scores, the conformal quantile, and that an interval's
model error comes from evidence it is not judged by, for the validation checks and the ledger rows."""
from __future__ import annotations

import dataclasses
import json
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from costbook.views import ledger
from costbook.prices import measurements
from costbook import schemes
from costbook.calibration import uncertainty
from costbook.calibration.uncertainty import Margin, Record, conformal_quantile, interval, score, validation_margin


def test_a_score_is_the_absolute_log_ratio():
    assert score(1.0, 1.0) == 0
    assert score(1.21, 1.1) == pytest.approx(math.log(1.1))
    assert score(0.5, 1.0) == pytest.approx(math.log(2))
    assert interval(2.0, math.log(1.5)) == pytest.approx((2.0 / 1.5, 3.0))
    with pytest.raises(ValueError):
        score(0.0, 1.0)


def test_the_conformal_quantile_is_the_ceil_n_plus_one_level_th_score():
    scores = [i / 100 for i in range(1, 20)]           # 19 scores: (19 + 1) x 0.9 = 18th
    assert conformal_quantile(scores, 0.9) == 0.18
    assert conformal_quantile(scores[:8], 0.9) == math.inf      # too few for 90%
    with pytest.raises(ValueError):
        conformal_quantile(scores, 1.0)


@given(st.lists(st.floats(0, 10), min_size=9, max_size=60), st.floats(0.5, 0.95))
@settings(max_examples=200, deadline=None)
def test_the_quantile_is_one_of_the_scores_or_infinite(scores, level):
    q = conformal_quantile(scores, level)
    assert q == math.inf or q in scores
    # at least a `level` share of the scores and the next one lie at or below it
    if math.isfinite(q):
        assert sum(s <= q for s in scores) >= level * (len(scores) + 1) - 1e-9


def test_split_conformal_intervals_cover_at_their_level():
    """On exchangeable made-up errors (log-normal, 4% spread, 2% bias), intervals whose margin is the
    conformal quantile of 40 other scores hold a fresh outcome about 90% of the time (2,000 trials)."""
    rng = random.Random(7)
    draw = lambda: math.exp(rng.gauss(0.02, 0.04))
    hits = 0
    for _ in range(2000):
        calibration = [score(draw(), 1.0) for _ in range(40)]
        low, high = interval(1.0, conformal_quantile(calibration))
        hits += low <= draw() <= high
    assert 0.87 <= hits / 2000 <= 0.95


def _records(scheme, labels, scores, group="priced"):
    return [Record(scheme, labels, f"step {i}", group, 1.0, math.exp(s)) for i, s in enumerate(scores)]


def test_a_checks_margin_leaves_its_own_scheme_and_size_out():
    """Changing the evidence of scheme A at its own size leaves A's margin there unchanged; changing
    another scheme's, or A's at another size, changes it."""
    base = (_records("A", '{"n": 16}', [0.01] * 10) + _records("A", '{"n": 64}', [0.02 + i / 500 for i in range(10)])
            + _records("B", "{}", [0.03 + i / 1000 for i in range(20)]))
    m = validation_margin("A", '{"n": 16}', "priced", base)
    own = [dataclasses.replace(r, measured=100.0) if r.labels == '{"n": 16}' else r for r in base]
    assert validation_margin("A", '{"n": 16}', "priced", own) == m
    other = [dataclasses.replace(r, measured=r.measured * 1.5) if r.scheme == "B" else r for r in base]
    assert validation_margin("A", '{"n": 16}', "priced", other).value > m.value
    size = [dataclasses.replace(r, measured=5.0) if r.labels == '{"n": 64}' else r for r in base]
    assert validation_margin("A", '{"n": 16}', "priced", size).value > m.value
    assert m.evidence == 30 and m.group == "pooled"


def test_the_work_groups_are_pooled():
    """A check's margin takes every group's residuals: a priced step's and an interpreted one's are the
    same Margin, and it moves with either group's evidence."""
    base = _records("B", "{}", [0.01 * i for i in range(30)]) + _records("C", "{}", [0.2] * 5, group="interpreted")
    m = validation_margin("A", "{}", "interpreted", base)
    assert m == validation_margin("A", "{}", "priced", base) and m.evidence == 35
    more = base + _records("C", "{}", [0.5] * 10, group="interpreted")
    assert validation_margin("A", "{}", "priced", more).value > m.value


def test_a_validation_interval_is_anchored_at_the_low_prices_and_widened_by_their_spread():
    """By hand: a margin of centre b and value q gives a check predicted at 1 s whose prices span
    [0.98, 1.06] the interval 0.98 x e^((b -+ q)(1 + spread / floor)), spread = ln(1.06 / 0.98) / 2;
    with no price interval, 1 x e^(b -+ q); a plain margin stays symmetric about the prediction."""
    b, q = 0.04, 0.07
    m = Margin(q, 100, "pooled", "nothing", centre=b, spread_floor=uncertainty.SPREAD_FLOOR)
    widen = 1 + math.log(1.06 / 0.98) / 2 / uncertainty.SPREAD_FLOOR
    assert interval(1.0, m, 0.98, 1.06) == pytest.approx((0.98 * math.exp((b - q) * widen),
                                                          0.98 * math.exp((b + q) * widen)))
    assert interval(1.0, m) == pytest.approx((math.exp(b - q), math.exp(b + q)))
    assert interval(2.0, Margin(q, 1, "across machines", "x")) == interval(2.0, q) == pytest.approx(
        (2 * math.exp(-q), 2 * math.exp(q)))
    # an unusable price interval (not around the prediction, not positive) is no price interval
    assert interval(1.0, m, 1.1, 1.2) == interval(1.0, m, 0.0, 1.2) == interval(1.0, m)
    with pytest.raises(TypeError):
        interval(1.0, q, 0.98, 1.06)


def test_a_residual_is_its_log_ratio_to_the_anchor_over_its_widening():
    r = Record("A", "{}", "s", "priced", 1.0, 1.05, price_low=0.98, price_high=1.06)
    widen = 1 + math.log(1.06 / 0.98) / 2 / uncertainty.SPREAD_FLOOR
    assert r.residual == pytest.approx(math.log(1.05 / 0.98) / widen)
    assert Record("A", "{}", "s", "priced", 1.0, 1.05).residual == pytest.approx(math.log(1.05))
    # the margin's interval holds a record exactly when its residual lies within q of the centre
    m = Margin(0.03, 1, "pooled", "x", centre=0.05, spread_floor=uncertainty.SPREAD_FLOOR)
    low, high = interval(r.predicted, m, r.price_low, r.price_high)
    assert (low <= r.measured <= high) == (abs(r.residual - m.centre) <= m.value)


def test_the_committed_evidence_holds_every_schemes_calibration_cases():
    records = uncertainty.evidence()
    have = {(r.scheme, r.labels) for r in records}
    for s in schemes.in_book_order():
        cases = schemes.manifest(s).CALIBRATION_CASES
        runs = len({labels for scheme, labels in have if scheme == s})
        assert runs >= len(cases), (f"scheme {s!r}: its evidence holds {runs} of the {len(cases)} runs of its "
                                    f"CALIBRATION_CASES: run python -m costbook.book calibrate {s}, then make reference")
    path = uncertainty.evidence_files()[0]
    data = json.loads(path.read_text())
    assert data["format"] == uncertainty.FORMAT and data["level"] == uncertainty.NOMINAL


def test_each_committed_checks_interval_comes_from_the_others():
    """For every committed (scheme, size), the margin judge_runs gives its checks is recomputed here from
    the records without that scheme at that size: its centre their median residual, its value the
    conformal quantile of their distances from it; and judge_runs gives each check the interval of
    that margin, anchored and widened by the check's own price interval."""
    records = uncertainty.evidence()
    for scheme, labels in sorted({(r.scheme, r.labels) for r in records}):
        size = uncertainty.size_key(labels)
        rest = sorted(r.residual for r in records if not (r.scheme == scheme and uncertainty.size_key(r.labels) == size))
        assert len(rest) < len(records)
        centre = (rest[len(rest) // 2] + rest[(len(rest) - 1) // 2]) / 2
        m = validation_margin(scheme, labels, "priced")
        assert m.centre == pytest.approx(centre) and m.evidence == len(rest)
        assert m.value == pytest.approx(conformal_quantile([abs(x - centre) for x in rest]))
        mine = [r for r in records if r.scheme == scheme and r.labels == labels]
        run = {**json.loads(labels), "checks": [{"step": r.step, "predicted_s": r.predicted, "predicted_low_s": r.price_low,
                                                 "predicted_high_s": r.price_high, "measured_s": r.measured} for r in mine]}
        uncertainty.judge_runs(scheme, [run])
        for r, c in zip(mine, run["checks"]):
            assert (c["predicted_low_s"], c["predicted_high_s"]) == pytest.approx(interval(r.predicted, m, r.price_low, r.price_high))


def test_a_checks_own_outcome_never_moves_its_interval():
    """Leave-one-out in deed: every committed check of one scheme and size made to miss by half leaves
    its interval where it was (only its verdict changes)."""
    records = uncertainty.evidence()
    scheme, labels = next((r.scheme, r.labels) for r in records if r.scheme == "mixnet")
    size = uncertainty.size_key(labels)
    missed = [dataclasses.replace(r, measured=r.measured * 1.5) if r.scheme == scheme
              and uncertainty.size_key(r.labels) == size else r for r in records]
    assert validation_margin(scheme, labels, "interpreted", missed) == validation_margin(scheme, labels, "interpreted")


def test_runs_of_one_size_are_left_out_together():
    """DB-SM and DB-RSM at n = m = 2 (one process) leave each other out; the sizes are the numbers."""
    key = uncertainty.size_key
    assert key({"protocol": "DB-SM", "n": 2, "m": 2}) == key({"protocol": "DB-RSM", "n": 2, "m": 2})
    assert key({"n": 2, "m": 2}) != key({"n": 3, "m": 2})
    assert key('{"params": "aggressive", "n_bits": 3072}') == '{"n_bits": 3072}'
    base = (_records("A", '{"p": "x", "n": 2}', [0.5] * 5) + _records("A", '{"p": "y", "n": 2}', [0.5] * 5)
            + _records("B", "{}", [0.01] * 30))
    m = validation_margin("A", '{"p": "x", "n": 2}', "priced", base)        # B's alone: centre 0.01, no spread
    assert (m.centre, m.value, m.evidence) == (pytest.approx(0.01), pytest.approx(0.0), 30)


def test_cross_validated_coverage_of_the_committed_evidence():
    """Judged as the gate judges a run (its own scheme at its own size left out), the committed checks lie
    in their intervals at least 80% of the time, quiet and beside a busy process alike."""
    judged = uncertainty.cross_validated()
    cov = uncertainty.coverage(judged)
    assert cov["share"] >= 0.80, uncertainty.coverage_words(cov)
    conditions = {r.conditions for r in uncertainty.evidence()}
    assert conditions == {"quiet", "beside a CPU-bound process"}
    for c in conditions:
        mine = [j for j in judged if j["conditions"] == c]
        assert uncertainty.coverage(mine)["share"] >= 0.80, c
    # each machine's checks, judged by that machine's own evidence, under either condition
    machines = {r.machine for r in uncertainty.evidence()}
    assert len(machines) >= 2 and "" not in machines
    for m in machines:
        for c in conditions:
            mine = [j for j in judged if j["machine"] == m and j["conditions"] == c]
            assert mine and uncertainty.coverage(mine)["share"] >= 0.80, (m, c)


@pytest.mark.parametrize("scheme", sorted({r.scheme for r in uncertainty.evidence()}))
def test_each_schemes_own_evidence_is_narrow_enough(scheme):
    """The width ceiling, scheme by scheme and machine by machine, on what the scheme's own evidence
    says: its checks judged by its own checks at its other sizes alone have, on each machine, a median
    half-width as at prices that do not spread (``calm_half_width``) within the gate's ceiling there
    (``gate.width_ceiling``: 5%, or 1.25 times the machine's pooled evidence where that is wider, since a
    noisier CPU widens every scheme's intervals).  The
    margins pool every scheme's checks, but a scheme's checks that scatter widely fail here, under its
    own name, and a newcomer's never fail another scheme's ceiling."""
    from costbook.calibration.gate import width_ceiling
    judged = uncertainty.cross_validated([r for r in uncertainty.evidence() if r.scheme == scheme])
    for machine in sorted({j["machine"] for j in judged}):
        mine = [j for j in judged if j["machine"] == machine]
        cov, calm = uncertainty.coverage(mine), uncertainty.median_calm_half_width(mine)
        ceiling = width_ceiling(machine)
        assert calm <= ceiling, (
            f"scheme {scheme!r} on {machine}: judged by its own evidence at its other sizes, its checks' "
            f"intervals are {calm:.1%} wide at the median as at prices that do not spread, past the ceiling of {ceiling:.1%}: "
            f"its steps scatter more than their counts explain; find what its validation leaves out "
            f"({uncertainty.coverage_words(cov)})")


def test_a_run_is_judged_by_its_own_machines_evidence_where_it_has_enough():
    """A model's error differs from one CPU to another: a run on a machine with enough evidence of its
    own takes its margin from that alone; on any other machine, from every machine's."""
    records = uncertainty.evidence()
    by_machine = {}
    for r in records:
        by_machine.setdefault(r.machine, []).append(r)
    for machine, mine in by_machine.items():
        assert len(mine) >= uncertainty.MIN_OWN_RECORDS
        assert uncertainty.own_machine(records, machine) == mine
    assert uncertainty.own_machine(records, "a CPU the evidence never saw") == records
    few = [dataclasses.replace(r, machine="rare") for r in records[:10]] + records
    assert uncertainty.own_machine(few, "rare") == few
    # an estimate priced with the reference file predicts the reference machine: its evidence alone
    ref = measurements.load_source("reference")
    cpu = uncertainty.evidence_cpu(ref.name)
    assert cpu in by_machine
    m = uncertainty.estimate_margin("cs03", ref.name, {"params": "conservative"}, backends={"sage"})
    assert m == uncertainty.validation_margin("cs03", uncertainty.estimate_labels("cs03", {"params": "conservative"}, records),
                                              uncertainty.ESTIMATE_GROUP, by_machine[cpu])


def test_a_validation_run_is_judged_by_the_evidence_of_the_machine_it_ran_on(monkeypatch):
    """What a reader's `costbook validate`, a chapter's validation table and the gate show is judged as the
    committed runs of that CPU are (``cross_validated``, the gate's rule and its width ceiling): on a CPU
    with evidence of its own, by that alone; not by every CPU's pooled."""
    from costbook.calibration import validation
    from costbook.timing import measure
    records = uncertainty.evidence()
    machines = sorted({r.machine for r in records})
    assert len(machines) >= 2
    scheme, labels = next((r.scheme, r.labels) for r in records if r.scheme == "cs03")
    mine = [r for r in records if r.scheme == scheme and r.labels == labels][:3]
    margins = set()
    for machine in machines:
        monkeypatch.setattr(measure, "machine_label", lambda machine=machine: machine)
        run = {**json.loads(labels), "checks": [{"step": r.step, "predicted_s": r.predicted, "predicted_low_s": r.price_low,
                                                 "predicted_high_s": r.price_high, "measured_s": r.measured,
                                                 "error": r.measured / r.predicted - 1} for r in mine]}
        result = validation.runs_result([run], scheme=scheme)
        own = validation_margin(scheme, labels, "priced", [r for r in records if r.machine == machine])
        assert result["machine"] == machine
        for r, c in zip(mine, result["runs"][0]["checks"]):
            assert (c["predicted_low_s"], c["predicted_high_s"]) == pytest.approx(interval(r.predicted, own, r.price_low, r.price_high))
        margins.add(round(own.value, 9))
    assert len(margins) == len(machines)          # the CPUs' evidence differs, so the test can tell them apart


def test_every_out_of_sample_ledger_row_has_an_interval_from_the_other_schemes():
    rows = ledger.ledger()
    oos = [r for r in rows if r.status in ledger.OUT_OF_SAMPLE]
    assert oos and all(isinstance(x, float) and math.isfinite(x) for r in oos
                       for x in (r.book_low, r.book_high, r.printed_value))
    assert all(r.book_low <= r.book_value <= r.book_high for r in oos)
    assert all(r.book_low is None for r in rows if r.status not in ledger.OUT_OF_SAMPLE)
    cov = ledger.coverage(rows)
    assert cov["share"] >= 0.80, uncertainty.coverage_words(cov)
    # the ceiling, scheme by scheme, on its own predictions: the other schemes' scores make its margin,
    # so a ceiling on the margins would fail a scheme for another's misses
    for scheme in sorted({r.scheme for r in oos}):
        scores = [abs(math.log(r.printed_value / r.book_value)) for r in oos if r.scheme == scheme]
        assert math.expm1(uncertainty.median(scores)) <= 0.15, (
            f"scheme {scheme!r}: its predictions of figures published on other machines miss by "
            f"{math.expm1(uncertainty.median(scores)):.1%} at the median, past 15%: see its rows in "
            f"`costbook ledger` and what its model leaves out")
    # a scheme's own rows never move its margin: make every row of one scheme miss by half
    for scheme in {r.scheme for r in oos}:
        worse = [dataclasses.replace(r, book_value=r.book_value * 1.5) if r.scheme == scheme and r in oos else r
                 for r in rows]
        again = ledger.with_intervals([dataclasses.replace(r, book_low=None, book_high=None, margin=None)
                                       for r in worse])
        assert ({r.margin for r in again if r.scheme == scheme and r.margin is not None}
                == {r.margin for r in oos if r.scheme == scheme}), scheme


def test_a_sitting_left_out_is_judged_by_the_others_alone():
    """With leave_sitting_out, a check's margin comes from the other sittings only (its own scheme and
    size left out as well): a day whose steps ran 16% over, judged by a day where they ran 14% under,
    lies outside its intervals, and the other way round (an interval stretched to hold its prediction
    still misses them); judged with its own day in, the other scheme's runs of that day carry it."""
    def day(date, scheme, labels, shift, n=12):
        return [Record(scheme, labels, f"s{i}", "priced", 1.0, math.exp(shift + 0.01 * (i % 3)), machine="M", date=date)
                for i in range(n)]
    records = (day("d1", "A", '{"n": 1}', -0.15) + day("d1", "B", '{"n": 1}', -0.15)
               + day("d2", "A", '{"n": 1}', 0.15) + day("d2", "B", '{"n": 1}', 0.15))
    assert {r.sitting for r in records} == {"M d1", "M d2"}
    inside = lambda judged, date: sum(j["inside"] for j in judged if j["sitting"] == f"M {date}")
    with_own = uncertainty.cross_validated(records)
    unseen = uncertainty.cross_validated(records, leave_sitting_out=True)
    assert inside(unseen, "d2") == 0 and inside(unseen, "d1") == 0        # each judged by the other day alone
    assert inside(with_own, "d2") > 0                                       # B's d2 runs judge A's d2 runs
    assert {j["sitting"] for j in unseen} == {"M d1", "M d2"}


def test_the_chapter_states_the_scale_floor_the_code_uses():
    """Chapter 1's formula for a validation interval's scale names the floor ``SPREAD_FLOOR`` is."""
    import nbformat
    root = Path(__file__).resolve().parent.parent
    text = "\n".join(c.source for c in nbformat.read(root / "chapters" / "01-primitives.ipynb", as_version=4).cells
                     if c.cell_type == "markdown")
    stated = re.findall(r"\$w = 1 \+ h / ([0-9.]+)\$", text)
    assert stated and all(float(x) == uncertainty.SPREAD_FLOOR for x in stated), stated


def test_the_intervals_hold_alike_however_far_a_runs_prices_spread():
    """The scale's floor: judged leave-one-sitting-out, the checks of each band of price spread that holds
    enough of them lie in their intervals between 80% and 97% of the time.  A floor ten times larger
    (intervals barely widened by the spread) holds nearly every calm check and too few scattered ones;
    a far smaller floor, the reverse."""
    for floor, holds in ((uncertainty.SPREAD_FLOOR, True), (10 * uncertainty.SPREAD_FLOOR, False)):
        bands = uncertainty.by_spread(uncertainty.cross_validated(leave_sitting_out=True, spread_floor=floor))
        shares = {band: uncertainty.coverage(mine)["share"] for band, mine in bands.items() if len(mine) >= 100}
        assert len(shares) >= 4, shares
        assert all(0.80 <= v <= 0.97 for v in shares.values()) == holds, (floor, shares)
