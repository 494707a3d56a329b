"""Validation: predicted step times against a timed run of the real implementation.

A cost model that is never checked against a run is a guess.  `validate_steps`
does the check in one run, on one machine, so only ratios matter:

1. the primitive keys that the step's count vector uses are measured now, in the
   backend the implementation itself runs on (Sage's, for the book's code);
2. each step is timed with the same harness;
3. predicted = counts x those prices; error = measured / predicted - 1.

What the prediction leaves out (multiplications, hashing, Python overhead) shows
up as a positive error, which is the point: the table says how much of a step
the model explains.

Each check also carries its interval: the counts priced at the low and the high bound of the same
primitives' measured spread (their first and third quartiles), or, where the scheme is named, its
prediction interval (``costbook.calibration.uncertainty``, from the committed runs of the other
schemes and of this scheme at other sizes), and whether the measured median falls inside it.

A protocol run may also be replayed with its priced operations answered from a record
(``costbook.prices.replay``): the time left is the interpreter's work the counts do not price, added to the
prediction as a measured term and reported as a share of it (at most ``INTERPRETER_SHARE_LIMIT``).

tests/test_validation_bounds.py runs every scheme's gate cases (``gate.RUNS_PER_CASE`` times each) and
judges them by the rule ``costbook.calibration.gate`` derives from the committed runs.
"""
from __future__ import annotations

import fnmatch
import importlib
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Mapping

from ..system import children
from .. import registry
from . import uncertainty
from ..prices.cost import Counts, price
from .intervals import fmt_interval, inside
from ..timing.harness import (CLOCK, Benchmark, Profile, Timing, in_timed_batch, run_benchmark, summarize,
    time_interleaved)
from ..prices.measurements import SCHEMA, validate
from ..writing.report import Table, fmt_time

VALIDATION_PROFILE = Profile("validation", samples=7, min_batch_seconds=0.1, warmup_seconds=0.0)

#: The profile of a run that checks that a validation runs, not its interval: every step and every price
#: it uses timed as always, in one batch of 10 ms instead of 7 of a tenth of a second (a protocol run
#: once).  make test's
#: first phase sets COSTBOOK_VALIDATION_PROFILE=check for the chapters nbval executes there, beside
#: the other worker: their validation tables are output nbval ignores, and the intervals are the gate's
#: (the second phase, alone on the machine, with VALIDATION_PROFILE).  The book never uses it.
CHECK_PROFILE = Profile("check", samples=1, min_batch_seconds=0.01, warmup_seconds=0.0)
PROFILE_VARIABLE = "COSTBOOK_VALIDATION_PROFILE"


def default_profile() -> Profile:
    """VALIDATION_PROFILE (read when called, so a test may set it), or CHECK_PROFILE when
    COSTBOOK_VALIDATION_PROFILE is "check"; any other value of the variable is refused."""
    chosen = os.environ.get(PROFILE_VARIABLE, "")
    if chosen == "check":
        return CHECK_PROFILE
    if chosen in ("", "validation"):
        return VALIDATION_PROFILE
    raise ValueError(f"{PROFILE_VARIABLE} must be 'check' or 'validation', got {chosen!r}")

def limit_of(step: str, limits: Mapping[str, float] | None, default: float) -> float:
    """The limit of `step`: the first pattern of `limits` (fnmatch globs over step names, in order)
    that matches it, else `default`."""
    for pattern, limit in (limits or {}).items():
        if fnmatch.fnmatchcase(step, pattern):
            return limit
    return default


def find_benchmark(key: str, backend: str) -> Benchmark:
    """The benchmark of `key` in `backend`, from the backend modules (any modexp size)."""
    from ..timing.backends import MODULES, SIZED, BackendUnavailable
    for family in SIZED:
        if family.matches(key):
            if family.same_as:
                if backend not in dict(family.same_as):
                    continue
                backend = dict(family.same_as)[backend]
            return getattr(importlib.import_module(family.module), family.function)(key, backend)
    for name in MODULES:
        try:
            for b in importlib.import_module(name).benchmarks():
                if b.key == key and b.backend == backend:
                    return b
        except (BackendUnavailable, ImportError):
            continue
    raise LookupError(f"no benchmark of {key!r} in backend {backend!r}")


def measured_now(backend: str, results: dict, profile: Profile, command: str):
    """Prices measured in this run, as an in-memory MeasurementSet of one backend.

    Checked as a file's prices are, but for their plausibility across keys: two sizes a few bits apart
    (modexp/3072/248 and /252) may swap in a run beside a busy process, which is the noise this run's
    intervals are about, not a malformed file (the check refused such a run, and its chapter stopped)."""
    return validate({"schema": SCHEMA, "name": f"measured now ({backend})", "kind": "measured",
                     "provenance": {"machine": {}, "libraries": {}, "date": "now",
                                    "command": f"costbook.calibration.validation.{command}",
                                    "profile": {"name": profile.name, "samples": profile.samples,
                                                "min_batch_seconds": profile.min_batch_seconds}},
                     "results": {backend: results}}, across_keys=False)


def measure_keys(keys, backend: str, profile: Profile | None = None):
    """Measure `keys` in `backend` now; return them as an in-memory MeasurementSet."""
    profile = profile or default_profile()
    results = {}
    for key in sorted(set(keys)):
        t = run_benchmark(find_benchmark(key, backend), profile)
        results[key] = t.to_entry()
    return measured_now(backend, results, profile, "measure_keys")


#: the largest share of a step its replay (``replay``: the interpreter's work, the priced operations
#: answered from a record) may take: beyond it the step does heavy work that nothing tallies.  A scheme
#: whose code is mostly Python around cheap primitives states its own (``INTERPRETER_LIMITS``).
INTERPRETER_SHARE_LIMIT = 0.10


@dataclass(frozen=True)
class StepCheck:
    step: str
    predicted: float
    measured: Timing
    predicted_low: float | None = None     # the prediction at the low and high bound of its prices;
    predicted_high: float | None = None    # None: the prediction's point value
    interpreter: Timing | None = None      # the step replayed without its priced operations, if measured
    cold_start: Timing | None = None       # what a step's first operations cost over warm ones, if measured
    round_predicted: tuple | None = None   # each round's prediction (``round_predictions``), if known

    @classmethod
    def of(cls, step: str, estimate, measured: Timing, interpreter: Timing | None = None,
           cold_start: Timing | None = None, round_predicted: tuple | None = None) -> "StepCheck":
        """A check of `measured` against an Estimate, with the Estimate's interval; plus, when given,
        the step's interpreter work and its cold start (``validate_clocked_together``), each a
        measured term: its median added to the prediction, its quartiles to the interval's ends."""
        terms = [t for t in (interpreter, cold_start) if t is not None]
        if not terms:
            return cls(step, estimate.total, measured, estimate.low, estimate.high, round_predicted=round_predicted)
        return cls(step, estimate.total + sum(t.median for t in terms), measured,
                   estimate.low + sum(t.q1 for t in terms), estimate.high + sum(t.q3 for t in terms),
                   interpreter, cold_start, round_predicted)

    @property
    def interpreter_share(self) -> float | None:
        return None if self.interpreter is None else self.interpreter.median / self.predicted

    @property
    def error(self) -> float:
        return self.measured.median / self.predicted - 1

    @property
    def low(self) -> float:
        return self.predicted if self.predicted_low is None else self.predicted_low

    @property
    def high(self) -> float:
        return self.predicted if self.predicted_high is None else self.predicted_high

    @property
    def inside(self) -> bool:
        """Whether the measured median falls in the price interval [low, high] (``runs_result`` with a
        scheme replaces it by the prediction interval's verdict)."""
        return inside(self.measured.median, self.low, self.high)

    def to_dict(self) -> dict:
        return {"step": self.step, "predicted_s": self.predicted,
                "predicted_low_s": self.low, "predicted_high_s": self.high,
                "measured_s": self.measured.median,
                "measured_min_s": self.measured.min,
                "measured_q1_s": self.measured.q1, "measured_q3_s": self.measured.q3,
                "error": self.error, "inside": self.inside,
                **({} if self.interpreter is None else
                   {"interpreter_s": self.interpreter.median, "interpreter_share": self.interpreter_share}),
                **({} if self.cold_start is None else {"cold_start_s": self.cold_start.median}),
                **self.rounds_dict()}

    def rounds_dict(self) -> dict:
        """The step's time and its prediction in each round, in the order the rounds ran, where both are
        known: what a statistic that pairs a step with the prices of its own round is computed from.
        The judged statistic is the ratio of the medians (``error``); the evidence keeps the rounds so
        that another can be judged on the same runs."""
        rounds = self.measured.rounds
        if rounds is None or self.round_predicted is None or len(rounds) != len(self.round_predicted):
            return {}
        return {"round_measured_s": list(rounds), "round_predicted_s": list(self.round_predicted)}


def validate_steps(steps: Mapping[str, Callable[[], object]], counts: Mapping[str, Counts],
                   backend: str, profile: Profile | None = None,
                   replays: Mapping[str, Callable[[], object]] | None = None) -> list:
    """Time each step callable and compare it with its count vector priced now.

    The primitives the counts use and the steps themselves are timed in the same rounds
    (``harness.time_interleaved``), so noise on a shared machine falls on both sides, and both
    are compared by their medians.  Not by their fastest samples: a step's prediction adds up
    several primitives, each of whose fastest sample catches its own quietest moment, so a sum of
    minima runs below any one run of the step (on a busy two-core machine by 5-10%).

    ``replays[name]``, where given, runs the same step with its priced operations answered from a
    record (the Merkle code's hashes: ``merkle.answering``), timed in the same rounds: its median is
    the step's interpreter work, added to the prediction as a measured term.
    """
    return validate_steps_together([(steps, counts, replays)], backend, profile)[0]


def validate_steps_together(cases, backend: str, profile: Profile | None = None) -> list:
    """``validate_steps`` of several cases, each (steps, counts, replays or None), in one set of rounds:
    a primitive that several cases use (a veccom size's Pointproofs and another's) is timed once per
    round, not once per case, and every case's steps are compared with the same medians of it.  The
    statistics of each check are those of ``validate_steps``: its step and every price it uses are
    medians of `profile.samples` batches taken in the same rounds.  Returns one list of checks per case.
    `profile` None: ``default_profile()``."""
    profile = profile or default_profile()
    cases = [(steps, counts, dict(replays or {})) for steps, counts, replays in cases]
    for steps, counts, replays in cases:
        missing = set(steps) ^ set(counts)
        if missing:
            raise ValueError(f"steps and counts must name the same steps; mismatch: {sorted(missing)}")
        if set(replays) - set(steps):
            raise ValueError(f"replays of steps that are not validated: {sorted(set(replays) - set(steps))}")
    ops = {}
    for i, (steps, _, replays) in enumerate(cases):
        ops.update({("step", i, name): op for name, op in steps.items()})
        ops.update({("replay", i, name): op for name, op in replays.items()})
    timed, prices = _timed_with_prices([counts for _, counts, _ in cases], ops, backend, profile,
                                       "validate_steps", warmup_seconds=profile.warmup_seconds)
    return [[StepCheck.of(name, price(counts[name], prices, backend), timed[("step", i, name)],
                          timed.get(("replay", i, name)),
                          round_predicted=round_predictions(counts[name], timed, [timed.get(("replay", i, name))]))
             for name in steps]
            for i, (steps, counts, _) in enumerate(cases)]


def paired_error(check: Mapping) -> float | None:
    """A check's error paired within rounds: the median over its rounds of the step's time over that
    round's prediction, less 1 (``StepCheck.rounds_dict``); None without round records.  A slow spell
    that spans a round falls on the step and on the prices it is compared with alike."""
    measured, predicted = check.get("round_measured_s"), check.get("round_predicted_s")
    if not measured or not predicted or len(measured) != len(predicted) or min(predicted) <= 0:
        return None
    return uncertainty.median([m / p for m, p in zip(measured, predicted)]) - 1


def round_predictions(counts: Mapping[str, float], timed: Mapping, terms=()) -> tuple | None:
    """Each round's prediction of a step: its counts priced at that round's own sample of each key
    (``timed[("key", k)].rounds``), plus that round's sample of each measured term in `terms` (None
    ones skipped); None where some key or term was not timed in every round."""
    series = [[n * x for x in (timed[("key", k)].rounds or ())] for k, n in Counts(counts).items()]
    series += [list(t.rounds or ()) for t in terms if t is not None]
    lengths = {len(s) for s in series}
    if len(lengths) != 1 or 0 in lengths:
        return None
    return tuple(map(sum, zip(*series)))


def per_round(samples: list, batch: int) -> tuple:
    """Samples taken `batch` to a round (a protocol run timed `batch` times in each round), as one mean
    per round, in order."""
    return tuple(sum(samples[i:i + batch]) / batch for i in range(0, len(samples), batch))


def summarized_by_round(samples: list, batch: int) -> Timing:
    """``summarize`` of per-call samples taken `batch` to a round, with their means per round as its rounds."""
    return replace(summarize(samples, 1), rounds=per_round(samples, batch))


def _timed_with_prices(count_maps, ops: dict, backend: str, profile: Profile, command: str, **timing):
    """`ops` (the steps or runs to time) and every key of the count vectors in `count_maps`, timed in one
    set of interleaved rounds with `profile`; returns (the timings by op, the keys' prices measured
    now as a MeasurementSet).  `timing`: time_interleaved's other options."""
    keys = sorted({k for counts in count_maps for c in counts.values() for k in c})
    primitives = {("key", k): (b.prepare(), b.per_call) for k, b in ((k, find_benchmark(k, backend)) for k in keys)}
    timed = time_interleaved({**primitives, **ops}, samples=profile.samples,
                             min_batch_seconds=profile.min_batch_seconds, exact_batches=True, **timing)
    return timed, measured_now(backend, {k: timed[("key", k)].to_entry() for k in keys}, profile, command)


class StepClock:
    """Time (the harness's CPU clock) per named step of a protocol run: ``with clock("M1 check signatures"): ...``.

    Each ``new_run()`` starts a fresh record, so a run repeated in timing rounds leaves one
    {step: seconds} per run in ``runs``; ``timed_runs`` are those made inside a sample the harness
    keeps (``harness.in_timed_batch``), not its warm-up, calibration or rewarm calls."""

    def __init__(self):
        self.runs = []
        self.timed_runs = []

    def new_run(self):
        self.runs.append({})
        if in_timed_batch():
            self.timed_runs.append(self.runs[-1])

    @contextmanager
    def __call__(self, step: str):
        t0 = CLOCK()               # the harness's clock, as the primitives it is compared with
        try:
            yield
        finally:
            rec = self.runs[-1]
            rec[step] = rec.get(step, 0.0) + CLOCK() - t0


def validate_clocked(run: Callable[[StepClock], object], counts: Mapping[str, Counts], backend: str,
                     profile: Profile | None = None,
                     replay: Callable[[StepClock], object] | None = None) -> list:
    """Like ``validate_steps``, for steps that only exist inside one protocol run.

    ``run(clock)`` performs the whole protocol once, timing each step named in ``counts`` with
    ``clock``; the runs are interleaved with the primitives' batches, and each step's median over the
    rounds is compared with its counts priced at the primitives' medians.  ``replay(clock)``, if given,
    performs the run with its priced operations answered from a record (``costbook.prices.replay``), timed in
    the same rounds: each step's replay time is the interpreter's work its counts do not price, and is
    added to its prediction as a measured term."""
    return validate_clocked_together([(run, counts, replay)], backend, profile)[0]


#: the two blocks a cold-start probe times (``validate_clocked_together``): the same operations,
#: first right after the work that precedes every run, then again at once
COLD, WARM = "cold", "warm"


def validate_clocked_together(cases, backend: str, profile: Profile | None = None,
                              cold_start: tuple[Callable[[], object], Callable[[], object]] | None = None) -> list:
    """``validate_clocked`` of several protocol runs, each (run, counts, replay or None), in one set of
    rounds: the primitives they share (the mixnet's DB-SM and DB-RSM use the same curve operations) are
    timed once per round, not once per run, and each run's steps are compared with the same medians of
    them.  Each run keeps its own clock.  Returns one list of checks per case.  `profile` None:
    ``default_profile()``.

    A step of a run starts where the step before it left the processor's caches, which a primitive
    timed in its own loop never does.  ``cold_start = (before, first)`` measures that: every timed run
    starts right after ``before()`` (untimed work of the kind the runs do between steps), and a probe
    timed in the same rounds does ``before()``, then ``first()`` (a step's first operations) timed as
    COLD, then ``first()`` again timed as WARM.  The median of COLD - WARM is each step's cold start, a
    measured term of its prediction like its replay.  Without it, each timed run follows an untimed
    run of itself (``rewarm_long``), so that its first step does not start cold after the primitives'
    batches."""
    profile = profile or default_profile()
    ops, clocks = {}, []
    before, probe_clock = (lambda: None), None
    if cold_start is not None:
        before, first = cold_start
        probe_clock = StepClock()

        def probed():
            probe_clock.new_run()
            before()
            for block in (COLD, WARM):
                with probe_clock(block):
                    first()
        ops[("cold start",)] = probed
    for i, (run, counts, replay) in enumerate(cases):
        clock, replay_clock = StepClock(), StepClock()
        clocks.append((clock, replay_clock))

        def once(run=run, clock=clock):
            before()                    # untimed: outside every step the clock brackets
            clock.new_run()
            run(clock)
        ops[("run", i)] = once
        if replay is not None:
            def replayed(replay=replay, replay_clock=replay_clock):
                replay_clock.new_run()
                replay(replay_clock)
            ops[("replay", i)] = replayed
    # a run takes far longer than a batch, so it is timed once per round
    timed, prices = _timed_with_prices([counts for _, counts, _ in cases], ops, backend, profile,
                                       "validate_clocked", warmup_seconds=0.0, rewarm_long=cold_start is None)
    cold = None if probe_clock is None else summarized_by_round([r[COLD] - r[WARM] for r in probe_clock.timed_runs],
                                                                timed[("cold start",)].batch)
    out = []
    for i, (run, counts, replay) in enumerate(cases):
        clock, replay_clock = clocks[i]
        missing = set(counts) - set(clock.runs[-1])
        if missing:
            raise ValueError(f"the run never timed the steps {sorted(missing)}")
        rounds = clock.timed_runs
        assert len(rounds) == profile.samples * timed[("run", i)].batch
        interp = {}
        if replay is not None:
            interp = {name: summarized_by_round([r.get(name, 0.0) for r in replay_clock.timed_runs],
                                                timed[("replay", i)].batch) for name in counts}
        steps = {name: summarized_by_round([r[name] for r in rounds], timed[("run", i)].batch) for name in counts}
        out.append([StepCheck.of(name, price(c, prices, backend), steps[name], interp.get(name), cold,
                                 round_predictions(c, timed, [interp.get(name), cold]))
                    for name, c in counts.items()])
    return out


def validation_table(checks, caption: str = "") -> Table:
    t = Table(["step", "predicted [interval]", "measured (median)", "quartiles", "error", "in interval"],
              caption=caption)
    for c in checks:
        t.add(c.step, fmt_interval(c.predicted, c.low, c.high), fmt_time(c.measured.median),
              f"{fmt_time(c.measured.q1)} – {fmt_time(c.measured.q3)}", f"{c.error:+.1%}", yes_no(c.inside))
    return t


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def validation_runs(cases, backend: str = "sage", interpreter_limits: Mapping[str, float] | None = None,
                    scheme: str | None = None) -> dict:
    """Validate several runs: cases yields (labels, steps, counts) or (labels, steps, counts, replays);
    returns {"runs": [{**labels, "checks": [...]}, ...], "worst_error": ...} for a scheme's validate().
    The runs are timed together (``validate_steps_together``): a primitive two runs use is timed
    once per round for both."""
    cases = [(labels, steps, counts, replays[0] if replays else None) for labels, steps, counts, *replays in cases]
    checked = validate_steps_together([(steps, counts, replays) for _, steps, counts, replays in cases], backend)
    runs = [{**labels, "checks": [c.to_dict() for c in checks]} for (labels, *_), checks in zip(cases, checked)]
    return runs_result(runs, interpreter_limits, scheme)


def runs_result(runs: list, interpreter_limits: Mapping[str, float] | None = None, scheme: str | None = None) -> dict:
    """{"runs": runs, "worst_error": the largest |error| of any check in them, "in_interval": how many
    checks' measured medians lie in their intervals, "checked": how many checks, "beyond_limit": the
    checks whose replay takes more than its share of the prediction (`interpreter_limits`, fnmatch
    globs over step names, default INTERPRETER_SHARE_LIMIT)}; each check gains its "interpreter_limit"
    and "within_limit".

    With `scheme`, every check's interval is its prediction interval (``uncertainty.judge_runs``, from
    its price interval and a margin estimated from the committed runs of everything but this scheme at
    this run's size, on this machine's CPU where its evidence suffices: ``uncertainty.own_machine``), and
    the result gains its "coverage" and names the scheme (what its evidence is filed under)."""
    for r in runs:
        for c in r["checks"]:
            c["interpreter_limit"] = limit_of(c["step"], interpreter_limits, INTERPRETER_SHARE_LIMIT)
    from ..timing.measure import machine_label           # measure's module imports backends: only when validated
    machine = machine_label()
    return {**({"scheme": scheme} if scheme is not None else {}), **_judged(runs, scheme, machine), "machine": machine}


def _judged(runs: list, scheme: str | None = None, machine: str | None = None) -> dict:
    """``runs_result`` of runs whose checks carry their "interpreter_limit", judged by the evidence of
    `machine` (``uncertainty.own_machine``: as the committed runs of that machine are judged)."""
    if scheme is not None:
        uncertainty.judge_runs(scheme, runs, machine=machine)
    checks = [c for r in runs for c in r["checks"]]
    for c in checks:
        # a step whose replay takes a large share does heavy work no count prices
        c["within_limit"] = c.get("interpreter_share", 0.0) <= c["interpreter_limit"]
    beyond = [{**{k: v for k, v in r.items() if k != "checks"}, "step": c["step"],
               "interpreter_share": c["interpreter_share"], "interpreter_limit": c["interpreter_limit"]}
              for r in runs for c in r["checks"] if not c["within_limit"]]
    return {"runs": runs, "worst_error": max(abs(c["error"]) for c in checks),
            "in_interval": sum(c["inside"] for c in checks), "checked": len(checks),
            "beyond_limit": beyond,
            **({"coverage": uncertainty.coverage(checks)} if scheme is not None else {})}


#: how many processes ``costbook validate`` runs a validation in by default: one, the statistic every
#: prediction interval is calibrated on (the evidence holds single processes' runs, and the gate judges
#: each of its runs by itself, once: ``costbook.calibration.gate``); more report each step's median process,
#: whose spread the intervals do not claim
PROCESSES = 1
MAX_PROCESSES = 9
#: the fields of a validation's result that ``_judged`` computes from its runs
_JUDGED = ("runs", "worst_error", "in_interval", "checked", "beyond_limit", "coverage")


def validate_in_processes(scheme: str, options: Mapping | None = None, processes: int = PROCESSES) -> dict:
    """`scheme`'s validate(**options) run in `processes` fresh interpreters, one after another, each
    check the median process's (``median_of_processes``), judged against its prediction interval.

    The intervals are calibrated on single processes (``PROCESSES``); the median of several says where a
    step's typical process lies, not how far one run may stray.  Why it differs from one: the ratio of a
    step to its primitives moves with something a process keeps for its whole life (its memory layout, most likely; the inputs come from fixed seeds).  On the
    2-core AMD EPYC one of twenty quiet processes put every Pointproofs G1 step 7% below its prediction
    (the others 0-2% above), one of six beside a busy process 13% above; and two validations in one
    process land together (the Merkle steps at n = 16: +8.8%, then +8.7%), so repeating a validation
    in the same process repeats its error.  A missing cost term misses in every process; a process's
    excess does not come back in the next fresh one.  `processes` must be odd, from 1 to MAX_PROCESSES."""
    checked_processes(processes)
    return median_of_processes(validations_in_processes(scheme, options, processes))


def validations_in_processes(scheme: str, options: Mapping | None, processes: int) -> list:
    """The results of `scheme`'s validate(**options) in `processes` fresh interpreters, one after
    another (``validate_in_processes`` takes their median; a caller may add more before it does)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    scheme_paths = [str(p) for p in registry.folders()]       # a test's toy schemes too
    results = []
    for _ in range(processes):                  # one at a time: each has the machine as a single run
        # the worker ends with this process, whatever ends it (children.start_worker), and before its
        # temporaries' folder goes
        with tempfile.TemporaryDirectory(prefix="costbook-worker-") as temporaries, \
                ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                    initializer=children.start_worker, initargs=(os.getpid(), temporaries)) as pool:
            with children.ctrl_c_held():            # submit starts the worker
                running = pool.submit(_validate_here, scheme, dict(options or {}), scheme_paths)
            results.append(running.result())
    return results


def checked_processes(processes, name: str = "processes") -> int:
    """`processes` if it is an odd integer from 1 to MAX_PROCESSES, else a ValueError of one line naming
    `name` (the CLI's option, --processes)."""
    if not (type(processes) is int and 1 <= processes <= MAX_PROCESSES and processes % 2 == 1):
        raise ValueError(f"{name} must be an odd integer from 1 to {MAX_PROCESSES} (each step reports the "
                         f"median process), got {processes!r}")
    return processes


def _validate_here(scheme: str, options: dict, scheme_paths: list) -> dict:
    """A child of ``validate_in_processes``: the scheme found where the parent finds it, validated."""
    registry.add_folders(scheme_paths)
    return registry.model(scheme).validate(**options)


def median_of_processes(results: list) -> dict:
    """One validation result from several of the same validation (its runs and steps in the same
    order): each check is that of the process whose error is the median of them, with
    "process_errors" (every process's error, in order); "processes" says how many.  Its interval,
    whether it lies in it, the worst error and the rest are judged again."""
    if not results or len(results) % 2 == 0:
        raise ValueError(f"the median of an odd number of results, got {len(results)}")
    first = results[0]
    runs = []
    for i, run in enumerate(first["runs"]):
        checks = []
        for j, check in enumerate(run["checks"]):
            versions = [r["runs"][i]["checks"][j] for r in results]
            if any(v["step"] != check["step"] for v in versions):
                raise ValueError(f"the processes validated different steps at run {i}, step {j}")
            median = dict(sorted(versions, key=lambda c: c["error"])[len(versions) // 2])
            checks.append({**median, "process_errors": [v["error"] for v in versions]})
        runs.append({**{k: v for k, v in run.items() if k != "checks"}, "checks": checks})
    return {**{k: v for k, v in first.items() if k not in _JUDGED}, "processes": len(results),
            **_judged(runs, first.get("scheme") if "coverage" in first else None, first.get("machine"))}


def format_check(c: dict) -> list:
    """One check dict as table cells: predicted [interval], measured, error, in interval."""
    return [fmt_interval(c["predicted_s"], c["predicted_low_s"], c["predicted_high_s"]),
            fmt_time(c["measured_s"]), f"{c['error']:+.1%}", yes_no(c["inside"])]


def format_runs(result: dict, labels) -> str:
    """A validate() result as text: the run's label fields, then each step's prediction [interval],
    measured time, error and whether the measurement is in the interval."""
    replayed = any("interpreter_s" in c for r in result["runs"] for c in r["checks"])
    several = result.get("processes", 1) > 1
    t = Table([*labels, "step", "predicted [interval]", "measured", "error", "in interval"]
              + (["of which interpreter"] if replayed else []) + (["error in each process"] if several else []))
    for r in result["runs"]:
        for c in r["checks"]:
            t.add(*(r[f] for f in labels), c["step"], *format_check(c),
                  *([interpreter_cell(c)] if replayed else []), *([process_cell(c)] if several else []))
    return t.to_text() + "\n" + summary_line(result)


def process_cell(c: dict) -> str:
    """A median check's error in each process (``median_of_processes``), in the order they ran."""
    return " ".join(f"{e:+.1%}" for e in c["process_errors"])


def interpreter_cell(c: dict) -> str:
    """A check's measured interpreter work and its share of the prediction, or a dash where the step
    was not replayed."""
    if "interpreter_s" not in c:
        return "–"
    return f"{fmt_time(c['interpreter_s'])} ({c['interpreter_share']:.1%})"


def summary_line(result: dict) -> str:
    """Where it ran (backend and machine), the worst |error|, how many steps lie in their prediction
    intervals (and their median half-width), which lie beyond twice the half-width, and which steps'
    interpreter work exceeds its limit."""
    processes = result.get("processes", 1)
    backend = result.get("backend", "").split(" (")[0]        # veccom's names its hash library in brackets
    machine = result.get("machine")
    where = (f"{backend} backend on {machine}; " if backend else f"on {machine}; ") if machine else ""
    cov = result.get("coverage")
    inside = (uncertainty.coverage_words(cov) if cov else
              f"in the price interval: {result['in_interval']} of {result['checked']} steps")
    heavy = result.get("beyond_limit", [])
    return (where
            + (f"each step: the median of {processes} processes; " if processes > 1 else "")
            + f"worst |error|: {result['worst_error']:.1%}; " + inside
            + ("; interpreter work beyond its limit: " + ", ".join(
                f"{b['step']} {b['interpreter_share']:.0%} (limit {b['interpreter_limit']:.0%})" for b in heavy)
               if heavy else ""))
