"""The validation gate's rule, derived from the evidence: how far beyond its interval a step of a
single gate run may lie, and how few of their steps the gate's runs may hold inside their intervals on
average, for an honest model to fail at most FALSE_ALARM of the gates.

The gate (``tests/test_validation_bounds.py``) validates each gate case (every scheme's
``VALIDATION_CASES``) RUNS_PER_CASE times, each in a fresh process as ``costbook.calibration.calibrate``
collects the evidence, and judges those runs once.  A run's steps are not independent draws: a burst of the
machine's noise moves many steps of a run together (one quiet run of the traceable mixnet put 20 of its
22 steps above their intervals, the next one left 2 outside), so no binomial law over steps sets the
rule.  The committed runs do, each judged with its whole sitting left out
(``uncertainty.cross_validated(leave_sitting_out=True)``):

* BEYOND_SHARE of FALSE_ALARM goes to the far-step check, split evenly over the gate's runs (alpha_b
  each): the **beyond** factor is the ceil((1 - alpha_b)(n + 1))-th smallest of the n committed runs'
  farthest steps (in half-widths), rounded up to a half, the runs taken as exchangeable units (split
  conformal prediction over runs, [@vovk-2005]).  A step whose counts leave out half its work lies beyond.
* the rest (alpha_m) goes to the **mean floor** on the mean over the gate's runs of each run's share of
  steps inside (each case weighs alike: a model too narrow moves every case's share, a run displaced
  whole only its own): the largest value below which at most alpha_m of the weight of the gate's draws
  from the evidence falls (``draws``: a sitting, then RUNS_PER_CASE runs of each case from it).

``pass_rate`` over the draws, ``held_out`` (each sitting judged by the rule its other sittings set)
and a model whose intervals are narrowed until they hold 70% of the evidence (``narrowing_for``) say
how much the rule can tell.  This module names no scheme: the cases come from the registry.
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from .. import registry
from ..timing.measure import machine_label
from . import uncertainty

#: how often the gate may fail an honest model, over all the runs it judges
FALSE_ALARM = 0.05
#: the part of the false alarm that goes to the far-step check (a step far outside its interval is what a
#: cost term left out makes); the mean floor has the rest.  A run's part must be at least 1 / (n + 1) for
#: n committed runs to set the factor by its rank: with ten gate runs, n at least 249.  A larger share
#: for the floor (a higher floor) failed more than 5% of a sitting's draws judged by the rule of the
#: other sittings (``held_out``)
BEYOND_SHARE = 0.8
#: how many runs of each gate case the gate judges: the mean of one run of each of five cases spreads too
#: widely, runs being displaced whole, to tell a model whose intervals hold 70% from an honest one
#: (the book's calibration chapter gives how often each passes)
RUNS_PER_CASE = 2
#: mean shares this close are equal: the same share computed in another order differs in its last bits
TIE = 1e-9
#: the widest median half-width the gate accepts, as at prices that do not spread
#: (``uncertainty.calm_half_width``): a noisy run's intervals widen with its prices' spread, as they
#: should (the book's calibration chapter shows how wide, and how often they hold, by spread), so the
#: ceiling judges the model's own margin, the same in a quiet run and a noisy one.  The aim for a quiet
#: run's intervals is 10%; at no spread the committed evidence gives about half of this ceiling, and a
#: model whose margin has grown past it fails.
WIDTH_CEILING = 0.05
#: on a machine whose own evidence is wider (a run is judged by its machine's evidence where there is
#: enough), the ceiling is that width with this slack: an interval grown wider than its own evidence's fails
WIDTH_SLACK = 1.25


class GateEvidenceError(ValueError):
    """Evidence that cannot set the gate's rule or be drawn from: too few committed runs for the false
    alarm asked, or a sitting without a run of a gate case."""


@dataclass(frozen=True)
class Step:
    """One judged step of a committed run: whether it lies in its interval, and how many of its
    interval's half-widths (log ratio) it lies from the interval's centre."""
    inside: bool
    distance: float


@dataclass(frozen=True)
class Rule:
    """What a gate's runs must show: on average over its runs, at least `mean_floor` of a run's steps
    inside their intervals, and no step beyond `beyond` half-widths of its interval's centre.  `runs`
    committed runs set the beyond factor and `draws` draws of the gate's cases from them the floor,
    for a gate of `judged` runs."""
    beyond: float
    mean_floor: float
    runs: int
    draws: int
    judged: int

    def failures(self, runs: Sequence[tuple], beyond_only: Sequence[tuple] = ()) -> list:
        """What a gate's runs ([(case name, [Step, ...]) per case]) fall short of, in words; [] if they
        pass.  The runs of `beyond_only` (a case outside the book's, which the evidence never drew) are
        held to the beyond factor alone."""
        out = []
        mean = mean_share(runs)
        if runs and mean < self.mean_floor - TIE:
            # one decimal: a mean just below its floor would read as equal to it
            out.append(f"its runs hold {mean:.1%} of their steps inside their intervals on average, below the "
                       f"floor {self.mean_floor:.1%} (" + ", ".join(f"{name} {share(steps):.0%}" for name, steps in runs) + ")")
        far = [s.distance for _, steps in [*runs, *beyond_only] for s in steps if s.distance > self.beyond]
        if far:
            out.append(f"{len(far)} step(s) beyond {self.beyond:g} half-widths of their intervals' centres "
                       f"(the farthest {max(far):.1f})")
        return out

    def passes(self, runs: Sequence[tuple]) -> bool:
        return not self.failures(runs)


def mean_share(runs: Sequence[tuple]) -> float:
    """The mean over `runs` ([(name, [Step, ...])]) of each run's share of steps inside."""
    return sum(share(steps) for _, steps in runs) / len(runs) if runs else math.nan


def share(steps: Sequence[Step]) -> float:
    """The share of `steps` inside their intervals."""
    return sum(s.inside for s in steps) / len(steps) if steps else math.nan


#: how many half-widths a step lies from its interval's centre (the measure within_twice bounds by 2)
distance = uncertainty.half_widths_from_centre


def gate_cases(names: Sequence[str] | None = None) -> list:
    """(scheme, options) of every gate case: each scheme's VALIDATION_CASES (of `names`, default every
    scheme of the book), in book order."""
    return [(s, dict(o)) for s in (registry.in_book_order() if names is None else names)
            for o in registry.manifest(s).VALIDATION_CASES]


def steps_of(result: Mapping) -> list:
    """The Steps of a validate() result, its checks judged against their prediction intervals."""
    return [Step(bool(c["inside"]), distance(c["predicted_low_s"], c["predicted_high_s"], c["measured_s"]))
            for run in result["runs"] for c in run["checks"]]


def case_of(labels: Mapping, cases: Sequence[tuple]) -> int | None:
    """The index in `cases` ((scheme, options)) of the case whose options a run's labels hold, or None."""
    for i, (scheme, options) in enumerate(cases):
        if labels.get("scheme") == scheme and all(labels.get(k) == v for k, v in options.items()):
            return i
    return None


def committed_runs(cases: Sequence[tuple], judged: Sequence[Mapping] | None = None, narrow: float = 1.0) -> dict:
    """{(sitting, case index): [[Step, ...] per committed run]} of every committed run of `cases`
    ((scheme, options)), each judged with its sitting left out (`judged`:
    ``cross_validated(leave_sitting_out=True)``), its interval's log half-width times `narrow` about its
    centre (1: as judged; below 1, a model whose intervals are too narrow)."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    runs: dict = {}
    for j in judged:
        i = case_of({**json.loads(j["labels"]), "scheme": j["scheme"]}, cases)
        if i is None:
            continue
        d = distance(j["low"], j["high"], j["measured"])
        runs.setdefault((j["sitting"], i), {}).setdefault(j["run"], []).append(Step(d <= narrow, d / narrow))
    return {k: list(v.values()) for k, v in runs.items()}


def complete_sittings(runs: Mapping, cases: Sequence[tuple], per_case: int = RUNS_PER_CASE) -> list:
    """The sittings of `runs` (``committed_runs``) that hold `per_case` (default RUNS_PER_CASE) runs of
    every one of `cases`: a scheme new to the book has evidence from fewer sittings than the others, and
    the floor is drawn from these; none is refused."""
    out = [s for s in sorted({s for s, _ in runs})
           if all(len(runs.get((s, i), ())) >= per_case for i in range(len(cases)))]
    if not out:
        raise GateEvidenceError(f"no sitting holds {per_case} committed run(s) of every gate case")
    return out


@dataclass(frozen=True)
class Unit:
    """The runs a gate draws of one case (RUNS_PER_CASE of them, from one sitting): the share of their
    steps inside (the mean of the runs' shares: each run weighs alike) and their farthest step."""
    share: float
    farthest: float

    @classmethod
    def of(cls, runs: Sequence[Sequence[Step]]) -> "Unit":
        return cls(sum(share(r) for r in runs) / len(runs), max(s.distance for r in runs for s in r))


@dataclass(frozen=True)
class Sitting:
    """The gate drawn from one sitting: for each case, every choice of RUNS_PER_CASE of its runs there
    (``Unit``), equally likely, the cases chosen independently; `weight` is the sitting's share of all the
    draws' weight (each sitting weighs alike)."""
    name: str
    weight: float
    units: tuple          # one tuple of Units per case

    @property
    def count(self) -> int:
        """How many draws it holds."""
        return math.prod(len(u) for u in self.units)

    def means(self, beyond: float = math.inf) -> list:
        """[(mean share, probability)] of its draws whose every step lies within `beyond`, in order of
        mean share: the distribution of the mean, by convolving the cases' shares (a draw's mean is the
        mean of its cases' shares), not by listing the draws (fifteen choices of two runs for each of
        five cases are 759,375 draws)."""
        sums = {0.0: 1.0}
        for units in self.units:
            step = {}
            for total, p in sums.items():
                for u in units:
                    if u.farthest <= beyond:
                        key = round(total + u.share, 9)          # equal sums reached in another order
                        step[key] = step.get(key, 0.0) + p / len(units)
            sums = step
        return sorted((total / len(self.units), p) for total, p in sums.items())


def draws(runs: Mapping, cases: Sequence[tuple], sittings: Sequence[str] | None = None,
          per_case: int = RUNS_PER_CASE) -> list:
    """[Sitting] of every draw of the gate from `runs` (``committed_runs``): a sitting, then `per_case`
    (default RUNS_PER_CASE) distinct runs of each case from it."""
    sittings = sorted({s for s, _ in runs}) if sittings is None else list(sittings)
    out = []
    for s in sittings:
        per = [runs.get((s, i), []) for i in range(len(cases))]
        short = [cases[i] for i, r in enumerate(per) if len(r) < per_case]
        if short:
            raise GateEvidenceError(f"the sitting {s} has fewer than {per_case} committed run(s) of the gate "
                                    f"case {short[0]}")
        out.append(Sitting(s, 1 / len(sittings),
                           tuple(tuple(Unit.of(c) for c in itertools.combinations(r, per_case)) for r in per)))
    return out


def every_run(judged: Sequence[Mapping]) -> list:
    """[Step, ...] of every committed run (every case of every scheme), each judged as `judged` gives it."""
    runs: dict = {}
    for j in judged:
        runs.setdefault(j["run"], []).append(Step(bool(j["inside"]), distance(j["low"], j["high"], j["measured"])))
    return list(runs.values())


def beyond_of(runs: Sequence[Sequence[Step]], judged: int) -> float:
    """The beyond factor for a gate of `judged` runs from the committed `runs` (``every_run``): each run of
    the gate puts a step beyond it at most FALSE_ALARM x BEYOND_SHARE / judged of the time if the runs
    are exchangeable.  Where the runs are too few for that rank (the evidence with a sitting left out,
    ``held_out``), the farthest step of them all: a run lies beyond it at most 1 / (n + 1) of the time."""
    n = len(runs)
    if not n:
        raise GateEvidenceError("no committed run to set the beyond factor from")
    alpha = FALSE_ALARM * BEYOND_SHARE / judged
    farthest = sorted(max(s.distance for s in steps) for steps in runs)
    # ranks rounded to 9 places first: (1 - 0.068) x 250 is 232.99999999999997 in floating point
    rank = min(n, math.ceil(round((1 - alpha) * (n + 1), 9)))
    return math.ceil(farthest[rank - 1] * 2) / 2


def mean_floor_of(sittings: Sequence[Sitting]) -> float:
    """The largest mean share (``mean_share``) of the draws of `sittings` (``draws``) below which at most
    FALSE_ALARM x (1 - BEYOND_SHARE) of their weight falls: the gate's floor."""
    alpha = FALSE_ALARM * (1 - BEYOND_SHARE)
    pairs = [(mean, s.weight * p) for s in sittings for mean, p in s.means()]
    total = sum(w for _, w in pairs)
    if not total:
        raise GateEvidenceError("no draw of the gate's cases to set a floor from")
    below, floor = 0.0, 0.0
    for value, weight in _merged(pairs):
        if below > alpha * total * (1 + TIE):
            break
        floor = value                   # at most alpha of the weight lies below this value
        below += weight
    return floor


def _merged(pairs) -> list:
    """(value, weight) pairs in order of value, equal values (within TIE) summed so that ties move together."""
    out: list = []
    for v, w in sorted(pairs):
        if out and v - out[-1][0] <= TIE:
            out[-1][1] += w
        else:
            out.append([v, w])
    return [tuple(p) for p in out]


def gate_rule(cases: Sequence[tuple], judged: Sequence[Mapping] | None = None,
              per_case: int = RUNS_PER_CASE) -> Rule:
    """The rule for a gate of `per_case` (default RUNS_PER_CASE) runs of each of `cases` ((scheme,
    options)), from every committed run (the beyond factor) and the draws of `cases` from them (the mean
    floor)."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    runs, sittings = every_run(judged), evidence_draws(cases, judged, per_case=per_case)
    return Rule(beyond_of(runs, per_case * len(cases)), mean_floor_of(sittings), len(runs),
                sum(s.count for s in sittings), per_case * len(cases))


def evidence_draws(cases: Sequence[tuple], judged: Sequence[Mapping], narrow: float = 1.0,
                   per_case: int = RUNS_PER_CASE) -> list:
    """Every draw of `per_case` (default RUNS_PER_CASE) runs of each of the gate's `cases` from the
    committed runs (``draws``) of the sittings that hold them all (``complete_sittings``), their intervals
    narrowed by `narrow` (``committed_runs``)."""
    runs = committed_runs(cases, judged, narrow)
    return draws(runs, cases, complete_sittings(runs, cases, per_case), per_case)


def pass_rate(sittings: Sequence[Sitting], rule: Rule) -> float:
    """The weight of the draws of `sittings` that `rule` passes (no step beyond its factor, the mean share
    at least its floor), over the draws' total weight."""
    total = sum(s.weight for s in sittings)
    passed = sum(s.weight * p for s in sittings for mean, p in s.means(rule.beyond) if mean >= rule.mean_floor - TIE)
    return min(1.0, passed / total) if total else math.nan     # a sum of probabilities can pass 1 in its last bit


def held_out(cases: Sequence[tuple], judged: Sequence[Mapping] | None = None, narrow: float = 1.0,
             per_case: int = RUNS_PER_CASE) -> dict:
    """{sitting: how often the rule set by the other sittings' runs passes that sitting's draws of
    `per_case` (default RUNS_PER_CASE) runs of each of `cases`, with the intervals narrowed by `narrow`,
    or None where the other sittings cannot set one}: the honest pass rate at `narrow` 1, a narrowed
    model's below."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    model = committed_runs(cases, judged, narrow)
    out = {}
    for s in complete_sittings(model, cases, per_case):
        try:
            rule = gate_rule(cases, [j for j in judged if j["sitting"] != s], per_case)
        except GateEvidenceError:        # no other sitting holds the gate's cases
            out[s] = None
            continue
        out[s] = pass_rate(draws(model, cases, [s], per_case), rule)
    return out


def narrowing_for(coverage: float, judged: Sequence[Mapping] | None = None) -> float:
    """The factor by which every committed check's interval (log half-width, about its centre) must be
    narrowed for the evidence to hold `coverage` of its checks: a model that is that much worse than
    its intervals claim."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    distances = sorted(distance(j["low"], j["high"], j["measured"]) for j in judged)
    k = max(1, math.ceil(coverage * len(distances)))
    return distances[k - 1]


def width_ceiling(machine: str | None = None) -> float:
    """The gate's ceiling on the median calm half-width of a run on `machine` (default: this one)."""
    return max(WIDTH_CEILING, WIDTH_SLACK * uncertainty.evidence_half_width(machine or machine_label()))
