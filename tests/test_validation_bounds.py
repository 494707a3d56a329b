"""Validation is tested: each scheme's Sage code, timed step by step against its counts priced with
primitives timed in the same rounds, lies in its 90% prediction interval as often as the interval
promises, and never far outside it.

Each check's interval is its 90% prediction interval (``costbook.calibration.uncertainty``): anchored at its
prediction at the prices' lower quartile and widened by their spread in its own run, with a margin
estimated from the committed validation runs of every other scheme and of the same scheme at other
sizes, never from the run it judges.  The gate holds the intervals to their promise:

* across all the gate's cases of all the schemes (the toy's too), at least ``COVERAGE_FLOOR`` of the
  steps' measured medians lie in their intervals, or fewer where the gate has so few steps that
  intervals holding at 90% would fall below it more often than once in a hundred runs
  (``binomial_floor``), and the median half-width is at most ``WIDTH_CEILING`` (an interval can cover
  anything by being wide);
* no step lies beyond twice its interval's half-width from the interval's centre
  (``uncertainty.within_twice``: a validation interval is centred where the evidence puts a step, not
  on the point prediction).  A run with such a step is validated again as `costbook validate` does, in
  three fresh processes one after another (``validation.validate_in_processes``); where the median
  process still puts it there, two more processes run, and it fails when the median of the five does:
  a missing cost term misses in every process, while a process's own excess (its memory layout, most
  likely) or a disturbance of the machine does not come back in most of the next fresh ones.
* the coverage is judged the same way: where the cases' single runs put fewer steps than the floor
  inside, every case judged by its single run that has a step outside is validated again in three
  fresh processes, and the share is that of the medians.  One run's steps are not independent draws:
  a burst of the machine's noise moves many steps of a run together (one run on another machine put
  three of the six BLS12-381 punch-card steps 18% to 25% below their predictions; the next three
  processes put them between -7% and +21%), which the binomial floor does not allow for; a model that
  misses misses in every process.

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
from costbook.calibration import uncertainty, validation
from costbook.calibration.validation import limit_of, runs_result, validate_steps

pytestmark = pytest.mark.validation

TOYS = sorted(d.name for d in (Path(__file__).resolve().parent / "toy_schemes").iterdir() if (d / "model.py").is_file())


def _cases(names) -> list:
    """(scheme, options) of each scheme's manifest.VALIDATION_CASES (the toys' read with their folder
    on the path)."""
    from conftest import toy_schemes_on_path
    with toy_schemes_on_path():
        return [(s, dict(o)) for s in names for o in schemes.manifest(s).VALIDATION_CASES]


#: every discovered scheme's small validation runs, then the toys'
CASES = _cases(list(schemes.in_book_order()) + TOYS)


#: the least share of the gate's steps in their intervals, and the widest median half-width the book
#: accepts.  Judged as the gate judges them, the committed runs on the reference machine give 90% of
#: their 780 checks inside (91% quiet, 89% beside a CPU-bound process) with a median half-width of
#: 5.9% (chapter 1, tbl-coverage).  Intervals made from quiet runs alone held 8 of the mixnet's 22
#: steps beside a busy process, and those of one quiet quarter of an hour's runs (3.6% wide) 17 of 22
#: in the next: narrow intervals are easy, true ones are the point.  The aim is 10%; the gate's own
#: runs (28 steps, before the mixnet joined it, fresh clones of 2026-11-27) gave 7.4%, 7.9% and 8.9%
#: quiet, 9.3% beside a CPU-bound process and 10.5% in one quiet run, so the ceiling is 12%: what the
#: gate fails on is an interval grown wider than any run of these intervals has made, not a run at the
#: aim's edge.
COVERAGE_FLOOR = 0.80
WIDTH_CEILING = 0.12
#: on a machine whose own evidence is wider (a run is judged by its machine's evidence where there is
#: enough: on the 2-core Intel Xeon the committed checks' median half-width is about 21%), the ceiling
#: is that width with this slack: an interval grown wider than its own evidence's fails
WIDTH_SLACK = 1.25


def width_ceiling() -> float:
    """The gate's ceiling on the median half-width on the machine it runs on."""
    from costbook.timing.measure import machine_label
    return max(WIDTH_CEILING, WIDTH_SLACK * uncertainty.evidence_half_width(machine_label()))
#: how rarely the coverage check may fail for intervals that hold exactly at their level
FALSE_ALARM = 0.01


def binomial_floor(n: int, level: float, alarm: float = FALSE_ALARM) -> int:
    """The largest k such that n steps, each inside its interval with probability `level`, put fewer
    than k inside with probability below `alarm`: with 28 steps at 90% that is 21 (75%), with 50, 40
    (80%).  A floor of 80% for the 28 steps of the gate failed a quiet run at 22 of 28, which intervals
    that hold at 90% do in one run of ten."""
    from math import comb
    below, k = 0.0, 0
    while k <= n:
        p = comb(n, k) * level ** k * (1 - level) ** (n - k)
        if below + p >= alarm:
            return k
        below += p
        k += 1
    return n


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


def _model(scheme):
    return schemes.get(scheme)


#: the fresh processes added when the median of three still puts a step beyond twice its half-width.
#: A missing cost term misses in every process; on the 2-core AMD EPYC a quiet fresh clone's gate once
#: had Pointproofs' prove at +42.3%, +26.3% and -3.5% in three processes in a row (its first run inside
#: its interval), a disturbance of the machine in two consecutive processes that the median of five
#: needs in three
DECIDING_PROCESSES = 2

#: each case's judged result (the first run's, or the median of three fresh processes where the first
#: put a step beyond twice its half-width), for the coverage across the gate
JUDGED: dict = {}


def _case_id(scheme, options) -> str:
    return f"{scheme}-{'-'.join(map(str, options.values())) or 'default'}"


def _judged_case(scheme: str, options: dict) -> dict:
    """The case's result as the gate judges it; warns in the log when a re-validation cleared a step."""
    first = _model(scheme).validate(**options)
    assert first["checked"] > 0 and "coverage" in first, f"{scheme}: its validate() gives no prediction intervals"
    beyond = _beyond(first)
    if not beyond:
        return first
    results = validation.validations_in_processes(scheme, options, validation.PROCESSES)
    again = validation.median_of_processes(results)
    if _beyond(again):
        # still beyond in the median of three: two more fresh processes, and the median of five decides
        results += validation.validations_in_processes(scheme, options, DECIDING_PROCESSES)
        again = validation.median_of_processes(results)
    assert again["processes"] in (validation.PROCESSES, validation.PROCESSES + DECIDING_PROCESSES)
    failed = _beyond(again)
    assert not failed, f"beyond twice the half-width in the median of {again['processes']} fresh processes: " + "; ".join(
        f"{dict(where)}: {err:+.1%} (interval {lo:+.1%} to {hi:+.1%}; the processes "
        f"{', '.join(f'{e:+.1%}' for e in _process_errors(again, dict(where)))}; the first run "
        + (f"{dict(beyond)[where][0]:+.1%})" if where in dict(beyond) else "within it)")
        for where, (err, lo, hi) in failed)
    warnings.warn(f"{scheme} {options}: beyond twice the half-width in the first run, within it as the median "
                  f"of {again['processes']} fresh processes: " + "; ".join(
                      f"{where['step']} {err:+.1%} (interval {lo:+.1%} to {hi:+.1%}; then "
                      f"{', '.join(f'{e:+.1%}' for e in _process_errors(again, where))})"
                      for where, (err, lo, hi) in ((dict(w), v) for w, v in beyond)), stacklevel=1)
    return again


def _beyond(result) -> list:
    """((run labels and step), (error, interval's low and high as errors)) of every check beyond twice
    its half-width."""
    return [(tuple(sorted({**{k: v for k, v in r.items() if k != "checks"}, "step": c["step"]}.items())),
             (c["error"], c["predicted_low_s"] / c["predicted_s"] - 1, c["predicted_high_s"] / c["predicted_s"] - 1))
            for r in result["runs"] for c in r["checks"] if not c["within_twice"]]


@pytest.mark.parametrize("scheme,options", CASES, ids=[_case_id(s, o) for s, o in CASES])
def test_no_step_lies_beyond_twice_its_half_width(scheme, options, request):
    if scheme in TOYS:
        request.getfixturevalue("toy_scheme")
    JUDGED[_case_id(scheme, options)] = _judged_case(scheme, options)


def test_the_gate_is_calibrated(request):
    """Across every case of the gate, the share of steps in their 90% intervals and the intervals'
    median half-width (a case not run above, under -k, is run here)."""
    for scheme, options in CASES:
        if _case_id(scheme, options) not in JUDGED:
            if scheme in TOYS:
                request.getfixturevalue("toy_scheme")
            JUDGED[_case_id(scheme, options)] = _judged_case(scheme, options)
    checks = _gate_checks(JUDGED)
    cov = uncertainty.coverage(checks)
    floor = _coverage_floor(cov)
    if cov["share"] < floor:
        again = _judged_again_for_coverage(JUDGED, request)
        warnings.warn(f"the gate's single runs held {uncertainty.coverage_words(cov)} (outside: {_outside(checks)}); "
                      f"judged again as the median of {validation.PROCESSES} fresh processes: "
                      f"{', '.join(again) or 'no case'}", stacklevel=1)
        checks = _gate_checks(JUDGED)
        cov = uncertainty.coverage(checks)
    words = uncertainty.coverage_words(cov)
    assert cov["share"] >= floor, (f"the gate's intervals hold too few of its steps (at least {floor:.0%}): {words}; "
                                   f"outside: {_outside(checks)}")
    ceiling = width_ceiling()
    assert cov["median_half_width"] <= ceiling, f"the gate's intervals are too wide (at most {ceiling:.1%}): {words}"
    warnings.warn(f"the gate: {words}", stacklevel=1)


def _gate_checks(judged: dict) -> list:
    """Every judged case's checks, each step named with its case."""
    return [{**c, "step": f"{case} {c['step']}"} for case, r in judged.items() for run in r["runs"] for c in run["checks"]]


def _coverage_floor(cov: dict) -> float:
    return min(COVERAGE_FLOOR, binomial_floor(cov["checked"], uncertainty.NOMINAL) / cov["checked"])


def _judged_again_for_coverage(judged: dict, request) -> list:
    """Every case of `judged` judged by its single run that has a step outside its interval, judged
    again, in place, as the median of PROCESSES fresh processes; returns their ids.  Where that median
    puts a step beyond twice its half-width, it fails as ``_judged_case`` does."""
    again = []
    for scheme, options in CASES:
        case = _case_id(scheme, options)
        result = judged.get(case)
        if result is None or result.get("processes", 1) > 1 or result["coverage"]["inside"] == result["coverage"]["checked"]:
            continue
        if scheme in TOYS:                  # the toys come last in CASES: the real schemes are judged first
            request.getfixturevalue("toy_scheme")
        median = validation.median_of_processes(validation.validations_in_processes(scheme, options, validation.PROCESSES))
        failed = _beyond(median)
        assert not failed, f"{case}: beyond twice the half-width in the median of {median['processes']} fresh processes: " + \
            "; ".join(f"{dict(where)['step']} {err:+.1%} (interval {lo:+.1%} to {hi:+.1%})" for where, (err, lo, hi) in failed)
        judged[case] = median
        again.append(case)
    return again


def _outside(checks) -> str:
    """Every check outside its interval, with its error and its interval as errors, for a failure's
    message: which steps and how far say whether a scheme or a run missed."""
    return "; ".join(f"{c['step']} {c['measured_s'] / c['predicted_s'] - 1:+.1%} (interval "
                     f"{c['predicted_low_s'] / c['predicted_s'] - 1:+.1%} to {c['predicted_high_s'] / c['predicted_s'] - 1:+.1%})"
                     for c in checks if not c["inside"]) or "none"


def _process_errors(result, where: dict) -> list:
    """The per-process errors of the check `where` (its run's labels and its step) in a median result."""
    for run in result["runs"]:
        for c in run["checks"]:
            if c["step"] == where["step"] and all(run[k] == v for k, v in where.items() if k in run and k != "checks"):
                return c["process_errors"]
    raise LookupError(where)


def test_the_binomial_floor():
    assert binomial_floor(28, 0.9) == 21 and binomial_floor(50, 0.9) == 40


def test_a_failures_message_names_the_steps_outside():
    checks = [{"step": "veccom-16 merkle/a", "predicted_s": 1.0, "predicted_low_s": 0.95, "predicted_high_s": 1.08,
               "measured_s": 1.12, "inside": False},
              {"step": "cs03-aggressive prove", "predicted_s": 2.0, "predicted_low_s": 1.9, "predicted_high_s": 2.2,
               "measured_s": 2.0, "inside": True}]
    assert _outside(checks) == "veccom-16 merkle/a +12.0% (interval -5.0% to +8.0%)"
    assert _outside(checks[1:]) == "none"


def test_a_limit_is_the_first_glob_that_matches():
    assert limit_of("anything", None, 0.1) == 0.1
    assert limit_of("merkle/commit", {"merkle/*": 0.70, "*": 0.05}, 0.1) == 0.70
    assert limit_of("pointproofs/commit", {"merkle/*": 0.70, "*": 0.05}, 0.1) == 0.05


def test_a_step_whose_counts_leave_work_out_is_caught():
    """The check can fail: a step that hashes twice, counted as one hash, lies beyond twice its
    interval's half-width, far outside any interval the gate accepts (+49% to +100% over its prediction
    in fresh clones: the benchmark's price of one hash carries the overhead of its own call, which the
    step pays once for its two hashes); counted right, the same step does not."""
    data = bytes(64)

    def step():
        hashlib.sha256(data).digest()
        hashlib.sha256(data).digest()
    wrong = runs_result([{"checks": [c.to_dict() for c in
                                     validate_steps({"two hashes": step}, {"two hashes": {"sha256/64B": 1}}, "python")]}],
                        scheme="a step that hashes twice")
    right = runs_result([{"checks": [c.to_dict() for c in
                                     validate_steps({"two hashes": step}, {"two hashes": {"sha256/64B": 2}}, "python")]}],
                        scheme="a step that hashes twice")
    assert wrong["coverage"]["beyond_twice"] == ["two hashes"] and wrong["worst_error"] > 2 * WIDTH_CEILING
    assert right["coverage"]["beyond_twice"] == [] or right["worst_error"] < wrong["worst_error"] / 3


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


@pytest.mark.parametrize("process_errors,more,message", [
    ((0.03, 0.09, 0.05), (), r"merkle/a \+9\.0% \(interval -4\.0% to \+2\.1%; then \+3\.0%, \+9\.0%, \+5\.0%\)"),
    ((0.09, 0.03, 0.085), (0.02, 0.03),
     r"merkle/a \+9\.0% \(interval -4\.0% to \+2\.1%; then \+9\.0%, \+3\.0%, \+8\.5%, \+2\.0%, \+3\.0%\)"),
    ((0.09, 0.03, 0.085), (0.095, 0.02), None)])
def test_a_miss_is_judged_by_the_median_of_fresh_processes(monkeypatch, made_up_evidence, process_errors, more, message):
    """The gate's own rule, on made-up results: a step beyond twice its half-width in the first run passes
    (with a warning in the log) when the median of three fresh processes is within it; when that median
    is beyond too, two more processes run and the median of five decides."""
    import sys
    import types
    gate = sys.modules[__name__]
    monkeypatch.setattr(gate, "_model", lambda scheme: types.SimpleNamespace(validate=lambda **o: _one_step(0.09)))
    asked, errors = [], iter(process_errors + more)
    monkeypatch.setattr(validation, "validations_in_processes", lambda scheme, options, k: asked.append(
        (scheme, options, k)) or [_one_step(next(errors)) for _ in range(k)])
    if message:
        with pytest.warns(UserWarning, match=message):
            gate._judged_case("veccom", {"n": 16})
    else:
        with pytest.raises(AssertionError, match=r"median of 5 fresh processes: .*\+8\.5% \(interval -4\.0% to "
                                                 r"\+2\.1%; the processes \+9\.0%, \+3\.0%, \+8\.5%, \+9\.5%, "
                                                 r"\+2\.0%; the first run \+9\.0%\)"):
            gate._judged_case("veccom", {"n": 16})
    assert asked == [("veccom", {"n": 16}, 3)] + ([("veccom", {"n": 16}, 2)] if more else [])


def test_a_share_below_the_floor_is_judged_again_by_the_median_of_fresh_processes(monkeypatch, made_up_evidence):
    """The gate's coverage rule, on made-up results: a case judged by its single run with a step outside
    its interval is validated again in three fresh processes and judged by their median; a case with
    every step inside, or already judged by a median, is not run again; a median beyond twice fails."""
    import sys
    gate = sys.modules[__name__]
    cases = [("veccom", {"n": 16}), ("veccom", {"n": 64}), ("veccom", {"n": 256})]
    monkeypatch.setattr(gate, "CASES", cases)
    asked, errors = [], iter([0.0, 0.03, -0.01])
    monkeypatch.setattr(validation, "validations_in_processes", lambda scheme, options, k: asked.append(
        (scheme, options, k)) or [_one_step(next(errors)) for _ in range(k)])
    already = validation.median_of_processes([_one_step(e) for e in (0.03, 0.04, 0.05)])
    judged = {"veccom-16": _one_step(0.03), "veccom-64": _one_step(0.0), "veccom-256": already}
    assert [judged[c]["coverage"]["inside"] for c in judged] == [0, 1, 0]
    assert gate._judged_again_for_coverage(judged, request=None) == ["veccom-16"]
    assert asked == [("veccom", {"n": 16}, 3)]
    assert judged["veccom-16"]["processes"] == 3 and judged["veccom-16"]["coverage"]["inside"] == 1
    assert judged["veccom-256"] is already
    judged["veccom-16"] = _one_step(0.03)
    errors = iter([0.09, 0.10, 0.08])
    with pytest.raises(AssertionError, match=r"veccom-16: beyond twice the half-width in the median of 3 fresh "
                                             r"processes: merkle/a \+9\.0%"):
        gate._judged_again_for_coverage(judged, request=None)


def test_twice_the_interval_is_about_its_centre():
    """A step inside its interval is never beyond twice it, wherever the point prediction lies: the
    interval [0.8, 0.9] (centre 0.849, log half-width 0.059) doubled is [0.754, 0.955]."""
    assert uncertainty.within_twice(0.8, 0.9, 0.76) and uncertainty.within_twice(0.8, 0.9, 0.95)
    assert not uncertainty.within_twice(0.8, 0.9, 0.75) and not uncertainty.within_twice(0.8, 0.9, 0.96)
    assert uncertainty.assess(1.0, 0.8, 0.9, 0.85)["within_twice"]           # 15% below its prediction
    assert not uncertainty.assess(1.0, 0.8, 0.9, 1.0)["within_twice"]        # at its prediction, far above
    assert uncertainty.within_twice(1 / 1.05, 1.05, 1.1) and not uncertainty.within_twice(1 / 1.05, 1.05, 1.11)
