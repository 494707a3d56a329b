"""The timing harness: warm-up, batching, repeated samples, median and spread.

One *sample* times a *batch* of calls and divides by the batch size, so that a
timed interval is long enough (``min_batch_seconds``, ~10 ms by default) for the
clock's resolution and call overhead to vanish.  The statistics are robust
(median, quartiles, median absolute deviation), because timing noise on a shared
machine is one-sided: interruptions only ever make a sample slower.

The clock is the process's CPU time (``CLOCK``), not the wall clock: on a shared
machine a process that is preempted does not count the time it waits for a core,
so two runs back to back agree far better than wall-clock runs do, while on a quiet
machine the two clocks give the same figure for the single-threaded work priced
here (native thread pools are capped at one thread by ``costbook measure``).  The
clock is a parameter so that the statistics can be tested on a synthetic clock
(tests/test_harness.py) without timing anything real.

The quick profile prices with a key's fastest sample instead of its median (``summarize``).
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, replace
from typing import Callable

#: CPU seconds of this process (every thread of it), see the module docstring.
CLOCK: Callable[[], float] = time.process_time
#: untimed calls of an operation before each of its timed batches of more than one call in
#: ``time_interleaved`` (of every batch with rewarm_long=True)
REWARM_CALLS = 1

_timed_batch = False


def in_timed_batch() -> bool:
    """Whether the call running now is part of a sample ``time_interleaved`` keeps (not a warm-up,
    calibration or rewarm call): an operation that records what happens inside it (a protocol run's
    step times) keeps only these."""
    return _timed_batch


@dataclass(frozen=True)
class Timing:
    """Seconds per operation, summarised over `samples` batches of `batch` operations."""
    median: float
    q1: float
    q3: float
    mad: float
    samples: int
    batch: int
    unit: str = "s"
    min: float | None = None      # the fastest sample: noise on a shared machine only ever adds time
    # the samples' mean and standard deviation: what criterion, and so zkalc, reports (export zkalc)
    mean: float | None = None
    sd: float | None = None
    # the samples in the order they were taken, one per round (``time_interleaved``): a validation pairs
    # a step's rounds with its prices' (``costbook.calibration.validation``); no measurement file keeps them
    rounds: tuple | None = None

    def to_entry(self) -> dict:
        return {k: v for k, v in asdict(self).items() if (v is not None or k == "min") and k != "rounds"}


@dataclass(frozen=True)
class Profile:
    """How hard to measure: `quick` for a reader's first look and ``make book``, `full` for a
    reference file.

    `priced_only`: ``costbook measure`` times only the keys the book prices (``costbook.timing.priced``),
    not every benchmark of every backend.  `calibrate_in_warmup`: each operation's batch size is
    set once, from the calls of its warm-up (``warm_up``), instead of by a calibration of its own
    after it; batches are then exact (``calibrate_exact``'s rule), not powers of two.
    `sample_seconds`, `max_samples`: a key takes as many samples as fill `sample_seconds`, at least
    `samples` and at most `max_samples` (``samples_for``), so that a fast operation gets many short
    samples and a slow one the fewest; without them every key takes `samples`.
    `fastest`: a key's figure is its fastest sample, its spread runs from there to its samples'
    median (``summarize`` says why); otherwise the median and quartiles of the samples."""
    name: str
    samples: int
    min_batch_seconds: float
    warmup_seconds: float
    priced_only: bool = False
    calibrate_in_warmup: bool = False
    sample_seconds: float | None = None
    max_samples: int | None = None
    fastest: bool = False

    @property
    def rounds(self) -> int:
        """The interleaved rounds of a run: `max_samples` where a key may take more than `samples`."""
        return self.max_samples or self.samples


PROFILES = {
    "quick": Profile("quick", samples=5, min_batch_seconds=0.001, warmup_seconds=0.01,
                     priced_only=True, calibrate_in_warmup=True, sample_seconds=0.025, max_samples=15, fastest=True),
    "full": Profile("full", samples=21, min_batch_seconds=0.02, warmup_seconds=0.2),
}


@dataclass(frozen=True)
class Benchmark:
    """One primitive key measured with one backend.

    `prepare()` does all the setup (key generation, random inputs, building a
    table) and returns a zero-argument callable that performs the operation
    `per_call` times.  Setup is never timed.
    """
    key: str
    backend: str
    prepare: Callable[[], Callable[[], object]]
    per_call: int = 1
    note: str = ""


def summarize(per_op_times: list[float], batch: int, fastest: bool = False) -> Timing:
    """Median, quartiles and MAD of per-operation times (at least one sample).

    With `fastest` (the quick profile): the median is the fastest sample and the quartiles run from
    it to the samples' median; the MAD stays the samples' own.  Why: on a shared machine the CPU
    clock itself runs slow for long stretches (a neighbour sharing the caches, the memory bus or
    the core's clock), for seconds and often for most of a run, so that two runs' medians differ
    far more than their fastest samples do.  The fastest sample (the minimum, as Python's timeit
    advises: the least noisy estimate of an operation's own cost, since noise only ever adds time),
    taken over samples spread over the whole run, is the figure; `q3`, the samples' median, is the
    full profile's: the operation's own cost lies between what the machine gave at its quietest and
    what it gave typically.  The minimum helps most where samples are short (a 1 ms batch often
    runs between two interruptions); a sample that is one call of tens of milliseconds cannot avoid
    them, so a busy neighbour can still move such a key."""
    if not per_op_times:
        raise ValueError("cannot summarise zero samples")
    xs = sorted(per_op_times)
    med = statistics.median(xs)
    if len(xs) >= 2:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    else:
        q1 = q3 = xs[0]
    mad = statistics.median(abs(x - med) for x in xs)
    if fastest:
        q1, q3 = xs[0], med
    return Timing(median=q1 if fastest else med, q1=q1, q3=q3, mad=mad, samples=len(xs), batch=batch, min=xs[0],
                  mean=statistics.fmean(xs), sd=statistics.stdev(xs) if len(xs) >= 2 else 0.0)


def calibrate_batch(op: Callable[[], object], min_batch_seconds: float,
                    clock: Callable[[], float] = CLOCK, max_batch: int = 1 << 24) -> int:
    """Smallest power of two of calls that takes at least `min_batch_seconds`."""
    return _calibrate(op, min_batch_seconds, clock, max_batch)[0]


#: how far above `min_batch_seconds` an exact batch aims (``calibrate_exact``): one call's time,
#: measured once in the calibration, varies by a few percent
EXACT_MARGIN = 1.05


def calibrate_exact(op: Callable[[], object], min_batch_seconds: float,
                    clock: Callable[[], float] = CLOCK, max_batch: int = 1 << 24) -> int:
    """The number of calls that takes `min_batch_seconds` (with ``EXACT_MARGIN`` to spare), not
    rounded up to a power of two: a power of two overshoots the target by up to 2x (by 44% on average
    over operations of every speed), which costs time and buys no precision the target does not.  The
    time of one call is taken from a calibration batch of an eighth of the target (``EXACT_PROBE``),
    which measures it as well as a full one does (milliseconds of work on a microsecond clock) and
    costs a tenth of the power-of-two search's up to two targets' worth of calls."""
    batch, elapsed = _calibrate(op, min_batch_seconds * EXACT_PROBE, clock, max_batch)
    if elapsed <= 0:
        return calibrate_batch(op, min_batch_seconds, clock, max_batch)
    return max(1, min(max_batch, math.ceil(batch * EXACT_MARGIN * min_batch_seconds / elapsed)))


#: the share of the target a calibration batch of ``calibrate_exact`` fills (at least)
EXACT_PROBE = 1 / 8


def _calibrate(op, min_batch_seconds, clock, max_batch) -> tuple[int, float]:
    """(the smallest power of two of calls that takes at least `min_batch_seconds`, its time)."""
    batch = 1
    while True:
        t0 = clock()
        for _ in range(batch):
            op()
        elapsed = clock() - t0
        if elapsed >= min_batch_seconds or batch >= max_batch:
            return batch, elapsed
        # jump close to the target in one step when the estimate is reliable
        if elapsed > 0:
            guess = math.ceil(batch * min_batch_seconds / elapsed)
            batch = min(max_batch, max(batch * 2, 1 << (guess - 1).bit_length()))
        else:
            batch *= 2


def samples_for(batch_seconds: float, samples: int, sample_seconds: float | None, max_samples: int | None) -> int:
    """How many samples a key of `batch_seconds` per batch takes: those that fill `sample_seconds`,
    at least `samples`, at most `max_samples` (`samples` when either is None).  Many short samples
    give a median that a burst of load on a shared core moves less than a few long ones: a short
    sample is often untouched by it, a long one rarely."""
    if sample_seconds is None or max_samples is None:
        return samples
    want = math.ceil(sample_seconds / batch_seconds) if batch_seconds > 0 else max_samples
    return max(samples, min(max_samples, want))


def in_round(round_: int, rounds: int, n: int) -> bool:
    """Whether a key of `n` samples is timed in round `round_` of `rounds`: its samples spread
    evenly over the run (every round when n == rounds)."""
    return (round_ + 1) * n // rounds > round_ * n // rounds


def warm_up(op: Callable[[], object], warmup_seconds: float, clock: Callable[[], float] = CLOCK) -> tuple:
    """Call `op` for `warmup_seconds` (at least once): (the first call's time, seconds per call of
    the calls after it, or None when there were none).

    The calls after the first run in chunks that double (up to what the time left allows), with
    the clock read between chunks only: a CPU clock read is a system call of about a microsecond,
    as long as the fastest operations priced here, and reading it after every call would make
    them look up to twice as slow as they are."""
    t0 = clock()
    op()
    first = clock() - t0
    end = t0 + warmup_seconds
    calls, chunk, start = 0, 1, clock()
    now = start
    while now < end:
        for _ in range(chunk):
            op()
        calls += chunk
        now = clock()
        per = (now - start) / calls
        chunk = max(1, min(2 * chunk, int((end - now) / per) if per > 0 else 2 * chunk))
    return first, ((now - start) / calls if calls and now > start else None)


def time_op(op: Callable[[], object], *, samples: int = 5, min_batch_seconds: float = 0.01,
            warmup_seconds: float = 0.02, per_call: int = 1,
            clock: Callable[[], float] = CLOCK) -> Timing:
    """Time `op` (which performs `per_call` operations) and return seconds per operation."""
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    if per_call < 1:
        raise ValueError(f"per_call must be >= 1, got {per_call}")
    t_end = clock() + warmup_seconds
    op()                                # always at least one warm-up call
    while clock() < t_end:
        op()
    batch = calibrate_batch(op, min_batch_seconds, clock)
    per_op = []
    for _ in range(samples):
        t0 = clock()
        for _ in range(batch):
            op()
        per_op.append((clock() - t0) / (batch * per_call))
    return summarize(per_op, batch)


def time_interleaved(ops: dict, *, samples: int = 5, min_batch_seconds: float = 0.01,
                     warmup_seconds: float = 0.02,
                     clock: Callable[[], float] = CLOCK, progress: Callable[[str, object], None] | None = None,
                     rewarm_long: bool = False, exact_batches: bool = False,
                     calibrate_in_warmup: bool = False, sample_seconds: float | None = None,
                     max_samples: int | None = None, fastest: bool = False) -> dict:
    """Time several operations in rounds, one batch of each per round: {name: Timing}.

    `ops` maps a name to a callable, or to (callable, per_call).  When two things are to be
    compared (a prediction from primitive prices against a timed step), timing them in turn
    spreads a burst of machine noise over all of them instead of landing on one, so their
    ratio survives a noisy machine better than when each is timed in one stretch.
    `progress(stage, what)`, if given, is called with ("warm-up", name) once per operation and with
    ("round", number) once per round.  `exact_batches`: each batch is the number of calls that fills
    `min_batch_seconds` (``calibrate_exact``), not the next power of two.  An operation whose first
    call alone takes twice `min_batch_seconds` (a whole protocol run) is timed one call per batch
    without calibrating it (which would only run it once more to find the same).
    `calibrate_in_warmup`: the batch is set from the warm-up's own calls (``warm_up``: the calls
    that fill `min_batch_seconds` at the time per call the warm-up saw, ``EXACT_MARGIN`` to spare),
    so an operation is calibrated once, by calls it makes anyway; a warm-up too short to time a
    call after the first falls back to ``calibrate_exact``.  `sample_seconds` and `max_samples`
    (with `calibrate_in_warmup`): each key takes ``samples_for`` samples, spread evenly over
    `max_samples` rounds (``in_round``).  `fastest`: each key priced at its fastest sample
    (``summarize``).
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    prepared, wanted = {}, {}
    for name, spec in ops.items():
        op, per_call = spec if isinstance(spec, tuple) else (spec, 1)
        if calibrate_in_warmup:
            first, per = warm_up(op, warmup_seconds, clock)
            if first >= 2 * min_batch_seconds:
                batch, per = 1, first
            elif per is not None:
                batch = max(1, min(1 << 24, math.ceil(EXACT_MARGIN * min_batch_seconds / per)))
            else:
                batch, per = calibrate_exact(op, min_batch_seconds, clock), min_batch_seconds
                per /= batch
            prepared[name] = (op, per_call, batch)
            wanted[name] = samples_for(batch * per, samples, sample_seconds, max_samples)
            if progress:
                progress("warm-up", name)
            continue
        t0 = clock()
        t_end = t0 + warmup_seconds
        op()
        first = clock() - t0
        while clock() < t_end:
            op()
        calibrate = calibrate_exact if exact_batches else calibrate_batch
        batch = 1 if first >= 2 * min_batch_seconds else calibrate(op, min_batch_seconds, clock)
        prepared[name] = (op, per_call, batch)
        wanted[name] = samples
        if progress:
            progress("warm-up", name)
    per_op = {name: [] for name in prepared}
    rounds = max(samples, max_samples) if calibrate_in_warmup and max_samples else samples
    for round_ in range(rounds):
        for name, (op, per_call, batch) in prepared.items():
            if not in_round(round_, rounds, wanted[name]):
                continue
            # untimed calls first: the operation before this one may have left the caches cold for
            # it (after a Sage pairing the next call ran 15% slow), a cost of the interleaving, not of
            # the operation; an operation that fills a batch alone is long enough for that to vanish
            # (a millisecond in a tenth of a second), unless `rewarm_long` says otherwise
            if batch > 1 or rewarm_long:
                for _ in range(REWARM_CALLS):
                    op()
            global _timed_batch
            _timed_batch = True
            try:
                t0 = clock()
                for _ in range(batch):
                    op()
                per_op[name].append((clock() - t0) / (batch * per_call))
            finally:
                _timed_batch = False
        if progress:
            progress("round", round_ + 1)
    return {name: replace(summarize(per_op[name], prepared[name][2], fastest), rounds=tuple(per_op[name]))
            for name in prepared}


def run_benchmark(bench: Benchmark, profile: Profile,
                  clock: Callable[[], float] = CLOCK) -> Timing:
    op = bench.prepare()
    return time_op(op, samples=profile.samples, min_batch_seconds=profile.min_batch_seconds,
                   warmup_seconds=profile.warmup_seconds, per_call=bench.per_call, clock=clock)


def interleaved_steps(n_benchmarks: int, profile: Profile) -> int:
    """At most how many times ``run_benchmarks`` calls `progress`: a setup and a warm-up per
    benchmark, a call per round (``Profile.rounds``; fewer where no key takes `max_samples`)."""
    return 2 * n_benchmarks + profile.rounds


def run_benchmarks(benches: list, profile: Profile, clock: Callable[[], float] = CLOCK,
                   progress: Callable[[str], None] | None = None) -> list:
    """Time several benchmarks in interleaved rounds (``time_interleaved``): one Timing per benchmark.

    A profile's samples of one key are then spread over the whole run instead of one stretch of a
    few milliseconds, so a burst of load, a frequency change or a cache-hungry neighbour lands on
    one sample of many keys (which the median discards) rather than on every sample of one key.
    `progress(what)`, if given, is called ``interleaved_steps(len(benches), profile)`` times."""
    def say(stage, what):
        if progress:
            progress(f"round {what} of {profile.rounds}" if stage == "round" else
                     f"{stage} {benches[what].backend} {benches[what].key}")
    ops = {}
    for i, b in enumerate(benches):
        ops[i] = (b.prepare(), b.per_call)
        say("set up", i)
    timed = time_interleaved(ops, samples=profile.samples, min_batch_seconds=profile.min_batch_seconds,
                             warmup_seconds=profile.warmup_seconds, clock=clock, progress=say,
                             calibrate_in_warmup=profile.calibrate_in_warmup,
                             sample_seconds=profile.sample_seconds, max_samples=profile.max_samples,
                             fastest=profile.fastest)
    return [timed[i] for i in range(len(benches))]
