"""The validation machinery on a step whose cost is known: it must explain it."""
import gmpy2
import pytest

from costbook.prices.cost import Counts
from costbook.calibration import validation
from costbook.timing.backends.modexp import operands
from costbook.timing.harness import Profile
from costbook.calibration.validation import find_benchmark, validate_steps, validation_table

FAST = Profile("test", samples=3, min_batch_seconds=0.005, warmup_seconds=0.0)
#: enough samples of long enough batches that a busy neighbour (the other test worker) moves a median
#: by a few percent: with FAST the three exponentiations once came out 25.4% off in make test
STEADY = Profile("test-steady", samples=7, min_batch_seconds=0.02, warmup_seconds=0.0)


def test_a_step_of_three_exponentiations_is_predicted_by_its_counts():
    b, e, n = (gmpy2.mpz(x) for x in operands(2048, 700))

    def step():                         # exactly three 2048-bit exponentiations with 700-bit exponents
        for _ in range(3):
            gmpy2.powmod(b, e, n)
    # the right model and one that forgets two of the three, timed in the same rounds (a machine whose
    # speed changes between two runs moved a second run's error from the expected 2.0 to 1.2)
    check, wrong = validate_steps({"three": step, "forgets two": step},
                                  {"three": Counts({"modexp/2048/700": 3}), "forgets two": Counts({"modexp/2048/700": 1})},
                                  "gmp", STEADY)
    assert (check.step, wrong.step) == ("three", "forgets two")
    # a ratio in one run, not an absolute time; the loop and call overhead are tiny next to the powmods.
    # The step lies within a quarter of its price interval (every price at its lower and upper quartile),
    # as the book's intervals are anchored: a machine busy beyond its two cores stretches the prices'
    # medians, not the step's (a fresh clone beside a CPU-bound process measured the step 32% under its
    # median prediction and 5% under its lower-quartile one)
    assert check.low / 1.25 < check.measured.median < check.high * 1.25, check
    # the forgetting model is caught: the same step, priced at a third, is three times its prediction
    assert wrong.error > 1.5 and (1 + wrong.error) / (1 + check.error) == pytest.approx(3, rel=0.25)
    assert "three" in str(validation_table([check]))


def test_errors():
    with pytest.raises(ValueError, match="same steps"):
        validate_steps({"a": lambda: None}, {"b": Counts()}, "gmp", FAST)
    with pytest.raises(LookupError):
        find_benchmark("modexp/2048/256", "no-such-backend")


def test_a_replayed_steps_interpreter_work_is_added_to_its_prediction_and_bounded():
    """A check with the step's replay (``costbook.prices.replay``) predicts counts x prices + the replay's
    median, widens the interval by the replay's quartiles, reports its share, and a share beyond
    INTERPRETER_SHARE_LIMIT (heavy work nothing tallies) takes the step beyond its limit."""
    from types import SimpleNamespace
    from costbook.timing.harness import summarize
    from costbook.calibration.validation import INTERPRETER_SHARE_LIMIT, StepCheck, runs_result
    est = SimpleNamespace(total=1.0, low=0.9, high=1.1)          # what StepCheck.of reads of an Estimate
    small, large = summarize([0.01, 0.02, 0.03], 1), summarize([0.3, 0.3, 0.3], 1)
    c = StepCheck.of("s", est, summarize([1.02] * 3, 1), small)
    assert (c.predicted, c.low, c.high) == pytest.approx((1.02, 0.915, 1.125))
    assert c.interpreter_share == pytest.approx(0.02 / 1.02) and c.error == pytest.approx(0.0)
    heavy = StepCheck.of("t", est, summarize([1.3] * 3, 1), large)
    assert heavy.error == pytest.approx(0.0) and heavy.interpreter_share > INTERPRETER_SHARE_LIMIT
    result = runs_result([{"checks": [c.to_dict(), heavy.to_dict()]}])
    assert [b["step"] for b in result["beyond_limit"]] == ["t"]


def test_a_cold_start_is_the_probes_median_excess_and_is_added_to_every_clocked_step(monkeypatch):
    """``validate_clocked_together`` with a cold start (before, first): every timed run starts right
    after ``before()``; the probe times ``first()`` after ``before()`` (COLD) and again (WARM), in the
    same rounds; each step's prediction gains the median of COLD - WARM, its quartiles widen the
    interval, and the check reports it."""
    from types import SimpleNamespace
    from costbook.calibration import validation
    from costbook.timing.harness import summarize
    from costbook.calibration.validation import StepCheck
    est = SimpleNamespace(total=1.0, low=0.9, high=1.1)
    c = StepCheck.of("s", est, summarize([1.1] * 3, 1), summarize([0.01] * 3, 1), summarize([0.04, 0.05, 0.06], 1))
    assert (c.predicted, c.low, c.high) == pytest.approx((1.06, 0.955, 1.165))
    assert c.to_dict()["cold_start_s"] == pytest.approx(0.05) and c.interpreter_share == pytest.approx(0.01 / 1.06)

    now, cold = [0.0], [False]        # the step clock reads a counter the runs advance: exact times
    monkeypatch.setattr(validation, "CLOCK", lambda: now[0])
    order = []

    def before():                     # leaves the next operations cold
        cold[0] = True
        order.append("before")

    def first():                      # 3 ms cold, 1 ms warm
        now[0] += 3e-3 if cold[0] else 1e-3
        cold[0] = False

    def run(clock):
        order.append("run")
        with clock("Q0 step"):
            first()
            now[0] += 4e-3
    counts = {"Q0 step": Counts({"bn254/g1_add": 1})}
    priced = []                       # the prices each call times anew, as it priced the step with them
    timed_now = validation.measured_now
    monkeypatch.setattr(validation, "measured_now", lambda *a, **k: priced.append(timed_now(*a, **k)) or priced[-1])
    plain, = validation.validate_clocked_together([(run, counts, None)], "sage", FAST)
    assert plain[0].cold_start is None and "cold_start_s" not in plain[0].to_dict()
    assert plain[0].measured.median == pytest.approx(5e-3)        # rewarmed: each timed run follows one of itself
    order.clear()
    checked, = validation.validate_clocked_together([(run, counts, None)], "sage", FAST, cold_start=(before, first))
    assert checked[0].cold_start.median == pytest.approx(2e-3) and checked[0].cold_start.q3 == pytest.approx(2e-3)
    assert checked[0].measured.median == pytest.approx(7e-3)      # every run starts right after before()
    assert all(a == "before" for a, b in zip(order, order[1:]) if b == "run")
    # the price is timed anew in each call: the prediction is that call's price plus the cold start
    # (two calls' prices of a 20 µs addition need not agree: a noisy machine put them 73% apart)
    assert len(priced) == 2 and plain[0].predicted == pytest.approx(priced[0].seconds("sage", "bn254/g1_add"))
    assert checked[0].predicted - checked[0].cold_start.median == pytest.approx(priced[1].seconds("sage", "bn254/g1_add"))
    assert checked[0].to_dict()["cold_start_s"] == pytest.approx(2e-3)


def test_the_check_profile_is_chosen_only_by_its_variable_and_never_in_the_book(monkeypatch, tmp_path):
    """make test's first phase sets COSTBOOK_VALIDATION_PROFILE=check for the chapters nbval runs; the
    book's chapter runner removes it, so the book's validation tables are always timed in full."""
    import os

    from costbook.calibration import validation
    from costbook.book.execute import kernel_environment
    monkeypatch.delenv(validation.PROFILE_VARIABLE, raising=False)
    assert validation.default_profile() is validation.VALIDATION_PROFILE
    monkeypatch.setenv(validation.PROFILE_VARIABLE, "check")
    assert validation.default_profile() is validation.CHECK_PROFILE
    assert validation.CHECK_PROFILE.samples < validation.VALIDATION_PROFILE.samples
    with kernel_environment(tmp_path / "m.json"):
        assert validation.PROFILE_VARIABLE not in os.environ
        assert os.environ["COSTBOOK_MEASUREMENTS"] == str(tmp_path / "m.json")
        assert validation.default_profile() is validation.VALIDATION_PROFILE
    assert os.environ[validation.PROFILE_VARIABLE] == "check"      # restored
    monkeypatch.setenv(validation.PROFILE_VARIABLE, "fast")
    with pytest.raises(ValueError, match="COSTBOOK_VALIDATION_PROFILE must be 'check' or 'validation', got 'fast'"):
        validation.default_profile()


def _result(errors: dict) -> dict:
    """A validation result of one run whose steps, predicted at 1 s [0.99, 1.01], have these errors,
    judged against made-up evidence whose residuals are +-ln 1.03 (its interval: -4.0% to +2.1%)."""
    checks = [{"step": step, "predicted_s": 1.0, "predicted_low_s": 0.99, "predicted_high_s": 1.01,
               "measured_s": 1.0 + e, "error": e, "inside": False} for step, e in errors.items()]
    return {"scheme": "s", **validation.runs_result([{"n": 2, "checks": checks}], scheme="s")}


def test_the_median_process_is_reported_and_judged_again(monkeypatch):
    """Each step is the check of the process whose error is the median, judged again against its
    interval: a step beyond twice its half-width in one process only is within it, and one beyond it in
    the median process is beyond it."""
    from costbook.calibration import uncertainty
    monkeypatch.setattr(uncertainty, "evidence", lambda: [uncertainty.Record("o", "{}", f"s{i}", "priced", 1.0,
                                                                             1.03 ** (-1) ** i) for i in range(40)])
    results = [_result({"a": 0.02, "b": 0.09, "c": -0.09}),
               _result({"a": 0.09, "b": 0.10, "c": -0.12}),
               _result({"a": 0.03, "b": 0.01, "c": -0.11})]
    assert results[1]["coverage"]["beyond_twice"] == ["a", "b", "c"]
    m = validation.median_of_processes(results)
    checks = {c["step"]: c for c in m["runs"][0]["checks"]}
    assert {s: c["error"] for s, c in checks.items()} == {"a": 0.03, "b": 0.09, "c": -0.11}
    assert checks["a"]["process_errors"] == [0.02, 0.09, 0.03] and checks["a"]["within_twice"]
    assert m["coverage"]["beyond_twice"] == ["b", "c"]
    assert m["processes"] == 3 and m["worst_error"] == 0.11 and m["runs"][0]["n"] == 2
    assert "the median of 3 processes" in validation.summary_line(m)


def test_a_median_needs_an_odd_count_of_the_same_validation():
    with pytest.raises(ValueError, match="odd"):
        validation.median_of_processes([_result({"a": 0.0})] * 2)
    with pytest.raises(ValueError, match="different steps"):
        validation.median_of_processes([_result({"a": 0.0}), _result({"b": 0.0}), _result({"a": 0.0})])
    for bad in (0, 2, 11, "3", 3.0):
        with pytest.raises(ValueError, match="odd integer from 1 to 9"):
            validation.validate_in_processes("cs03", {}, bad)

