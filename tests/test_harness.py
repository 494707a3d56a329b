"""The timing harness's statistics, on a synthetic clock (nothing real is timed)."""
import pytest

from costbook.timing.harness import (EXACT_MARGIN, Benchmark, Profile, calibrate_batch, calibrate_exact,
    run_benchmark, summarize, time_op)


class FakeClock:
    """A clock that advances only when the operation 'runs', by scripted amounts."""

    def __init__(self, costs):
        self.now = 0.0
        self.costs = iter(costs)

    def __call__(self):
        return self.now

    def op(self):
        self.now += next(self.costs)


def test_summarize_median_quartiles_mad():
    t = summarize([5.0, 1.0, 2.0, 3.0, 4.0], batch=8)
    assert (t.median, t.q1, t.q3, t.mad, t.samples, t.batch) == (3.0, 2.0, 4.0, 1.0, 5, 8)
    # one interruption inflates the mean but not the median
    assert summarize([1.0, 1.0, 1.0, 1.0, 100.0], batch=1).median == 1.0


def test_summarize_rejects_nothing():
    with pytest.raises(ValueError):
        summarize([], 1)


def test_batch_grows_until_it_takes_min_batch_seconds():
    clock = FakeClock([1e-4] * 10_000)
    batch = calibrate_batch(clock.op, 0.01, clock)
    assert batch * 1e-4 >= 0.01 and (batch // 2) * 1e-4 < 0.01
    # the exact batch (what validation uses) fills the target with its margin and no more: 0.3 ms a call,
    # 0.1 s target -> 350 calls (0.105 s), where the power of two takes 512 (0.154 s)
    clock = FakeClock([3e-4] * 10_000)
    assert calibrate_batch(clock.op, 0.1, clock) == 512
    spent = clock.now                                   # 1 + 512 calls to find 512
    exact = calibrate_exact(clock.op, 0.1, clock)
    assert exact * 3e-4 >= 0.1 and exact == pytest.approx(EXACT_MARGIN * 0.1 / 3e-4, abs=1)
    # and finds it with a batch of an eighth of the target: 1 + 64 calls, not 1 + 512
    assert clock.now - spent == pytest.approx(65 * 3e-4)
    # an operation that fills a batch alone stays at one call
    clock = FakeClock([0.2] * 10)
    assert calibrate_exact(clock.op, 0.1, clock) == 1


def test_time_op_divides_batches_into_per_operation_times():
    # every operation costs 2 ms, except that one sample batch is interrupted by 50 ms
    # (1 warm-up call, calibration batches of 1 and 4, then 5 samples of 4 calls: call 15
    # falls in the third sample)
    costs = [2e-3] * 1000
    costs[15] += 50e-3
    clock = FakeClock(costs)
    t = time_op(clock.op, samples=5, min_batch_seconds=0.008, warmup_seconds=0.0, clock=clock)
    assert t.batch == 4
    assert t.median == pytest.approx(2e-3)
    assert t.q3 == pytest.approx(2e-3) and t.mad == pytest.approx(0.0)
    # exactly 26 calls ran (1 + 1 + 4 + 5 x 4), the interrupted one among them
    assert clock.now == pytest.approx(sum(costs[:26]))


def test_per_call_divides_by_operations_per_call():
    clock = FakeClock([1e-3] * 1000)
    t = time_op(clock.op, samples=3, min_batch_seconds=0.001, warmup_seconds=0.0, per_call=10, clock=clock)
    assert t.median == pytest.approx(1e-4)


def test_run_benchmark_does_setup_untimed():
    clock = FakeClock([1e-3] * 1000)
    calls = []

    def prepare():
        calls.append("setup")          # a slow setup would show up here if it were timed
        return clock.op

    t = run_benchmark(Benchmark("sha256/64B", "toy", prepare),
                      Profile("t", samples=3, min_batch_seconds=0.002, warmup_seconds=0.0), clock)
    assert calls == ["setup"] and t.median == pytest.approx(1e-3)


def test_bad_arguments():
    with pytest.raises(ValueError):
        time_op(lambda: None, samples=0)
    with pytest.raises(ValueError):
        time_op(lambda: None, per_call=0)


def test_interleaved_timing_spreads_a_burst_over_every_operation():
    """Two operations on one clock: a 5-round burst that slows everything 3x lands on
    both in turn, so each keeps its true median (a burst in one stretch would not)."""
    from costbook.timing.harness import time_interleaved

    class Machine:
        def __init__(self):
            self.now, self.calls = 0.0, 0

        def __call__(self):
            return self.now

        def run(self, cost):
            self.calls += 1
            slow = 3.0 if 40 <= self.calls < 46 else 1.0     # a short burst of noise
            self.now += cost * slow

    m = Machine()
    t = time_interleaved({"a": lambda: m.run(1e-3), "b": (lambda: m.run(4e-3), 2)},
                         samples=7, min_batch_seconds=0.004, warmup_seconds=0.0, clock=m)
    assert t["a"].median == pytest.approx(1e-3) and t["b"].median == pytest.approx(2e-3)
    assert t["a"].samples == t["b"].samples == 7
    with pytest.raises(ValueError):
        time_interleaved({"a": lambda: None}, samples=0)


def test_repeated_runs_combine_into_one_entry_with_their_spread():
    from costbook.timing.harness import Timing
    from costbook.timing.measure import combine_runs, spread_summary
    runs = [Timing(median=m, q1=m - 1, q3=m + 2, mad=0.5, samples=5, batch=8, min=m - 1.5) for m in (10.0, 11.0, 13.0)]
    e = combine_runs(runs)
    assert (e["median"], e["q1"], e["q3"], e["samples"], e["runs"]) == (11.0, 10.0, 13.0, 15, 3)
    assert e["between_runs"] == pytest.approx(3 / 11) and e["min"] == 8.5
    assert "runs" not in combine_runs(runs[:1])          # one run: nothing to compare
    line = spread_summary({"gmp": {"a": e, "b": combine_runs([runs[0], runs[0]])}})
    assert "median spread 13.6%" in line and "widest: gmp a 27.3%" in line


def test_an_entry_keeps_its_samples_mean_and_sd_and_runs_pool_them():
    """The mean and standard deviation zkalc's files hold (criterion's), over the same samples as the
    median: one run's are its samples', several runs' those of all their samples together."""
    import statistics
    from costbook.timing.harness import summarize
    from costbook.timing.measure import combine_runs
    runs = [[1.0, 2.0, 4.0, 9.0], [3.0, 3.5, 11.0], [2.5, 2.0, 2.25, 8.0, 1.5]]
    for fastest in (False, True):
        timings = [summarize(xs, batch=4, fastest=fastest) for xs in runs]
        for t, xs in zip(timings, runs):
            assert (t.mean, t.sd) == (pytest.approx(statistics.fmean(xs)), pytest.approx(statistics.stdev(xs)))
            assert t.to_entry()["mean"] == t.mean
        everything = [x for xs in runs for x in xs]
        e = combine_runs(timings)
        assert e["mean"] == pytest.approx(statistics.fmean(everything), rel=1e-12)
        assert e["sd"] == pytest.approx(statistics.stdev(everything), rel=1e-12)
    assert summarize([5.0], batch=1).sd == 0.0


def test_measure_repeat_records_the_spread_and_passes_the_schema(tmp_path):
    from costbook.prices import measurements
    from costbook.timing.measure import measure
    out = measure(profile="quick", out=tmp_path / "m.json", only=["sha256/64B"], progress=False,
                  report=lambda msg: None, repeat=2)
    m = measurements.load(out)
    entry = m.entry("python", "sha256/64B")
    assert entry["runs"] == 2 and entry["between_runs"] >= 0 and m.provenance["repeat"] == 2
    assert 0 < entry["mean"] and 0 <= entry["sd"]


def test_benchmarks_run_in_interleaved_rounds_each_set_up_once():
    """run_benchmarks sets each benchmark up once (untimed), times every one of them in each round,
    and reports one Timing per benchmark in order, with progress once per set-up, warm-up and round."""
    from costbook.timing.harness import interleaved_steps, run_benchmarks

    class Machine:
        def __init__(self):
            self.now, self.order = 0.0, []

        def __call__(self):
            return self.now

    m = Machine()
    setups = []

    def bench(name, cost, per_call=1):
        def prepare():
            setups.append(name)
            m.now += 1.0                       # set-up is slow and must not be timed

            def op():
                m.order.append(name)
                m.now += cost
            return op
        return Benchmark(name, "toy", prepare, per_call=per_call)

    prof = Profile("t", samples=3, min_batch_seconds=0.004, warmup_seconds=0.0)
    said = []
    a, b = run_benchmarks([bench("a", 1e-3), bench("b", 6e-3, per_call=3)], prof, clock=m, progress=said.append)
    assert setups == ["a", "b"]
    assert a.median == pytest.approx(1e-3) and b.median == pytest.approx(2e-3)
    assert a.samples == b.samples == 3
    # the three rounds: an untimed call of a and a's batch of several calls, then b's batch of one
    # (b fills a batch alone: no untimed call before it), each round
    assert a.batch > 1 and b.batch == 1
    timed = m.order[-(a.batch + 1 + b.batch) * 3:]
    assert timed == (["a"] * (a.batch + 1) + ["b"] * b.batch) * 3
    assert len(said) == interleaved_steps(2, prof) and said[-1] == "round 3 of 3"


def test_an_operation_knows_which_of_its_calls_are_kept():
    """in_timed_batch() is true exactly in the calls whose time becomes a sample: not in the warm-up,
    the calibration or the untimed call before each batch."""
    from costbook.timing.harness import in_timed_batch, time_interleaved
    calls = []
    t = time_interleaved({"a": lambda: calls.append(in_timed_batch())}, samples=4, min_batch_seconds=0.0,
                         warmup_seconds=0.0, rewarm_long=True)
    assert sum(calls) == 4 * t["a"].batch and len(calls) > sum(calls)
    assert not in_timed_batch()
