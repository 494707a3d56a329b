"""The validation gate's rule, derived from the evidence: how far beyond its interval a step of a
single gate run may lie, and how few of a run's steps may lie inside their intervals, for an honest
model to fail at most FALSE_ALARM of the gate's runs.

The gate (``tests/test_validation_bounds.py``) validates each gate case (every scheme's
``VALIDATION_CASES``) once, in a fresh process, as ``costbook.calibration.calibrate`` collects the
evidence, and judges that one run, once.  A run's steps are not independent draws: a process's memory
layout, or a burst of the machine's noise, moves many steps of a run together (one quiet run of the
traceable mixnet put 20 of its 22 steps above their intervals, the next one left 2 outside), so no
binomial law over steps sets the rule.  The committed runs do, each one process's run judged with its
whole sitting left out (``uncertainty.cross_validated(leave_sitting_out=True)``), as exchangeable
units (split conformal prediction over runs, [@vovk-2005]):

* each gate run may fail at most alpha = FALSE_ALARM / (the runs the gate judges) of the time, of
  which BEYOND_SHARE goes to the far-step check and the rest to the coverage floor;
* the **beyond** factor is the ceil((1 - alpha_b)(n + 1))-th smallest of the n committed runs'
  farthest steps (in half-widths of their intervals), rounded up to a half; refused when n is too small;
* the **floor** is the floor((alpha_f)(n + 1))-th smallest of their shares of steps inside, and 0 (no
  floor) where the evidence holds too few runs to put one at that rate (``runs_for_a_floor``).

``draws`` resamples the gate's own cases as the gate runs them (a sitting, then one run of each case
from it): ``pass_rate`` over them, ``held_out`` (each sitting judged by the rule its other sittings
set) and a model whose intervals are narrowed until they hold 70% of the evidence (``narrowing_for``)
say how much the rule can tell.  This module names no scheme: the cases come from the registry.
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from .. import registry
from . import uncertainty

#: how often the gate may fail an honest model, over all the runs it judges
FALSE_ALARM = 0.05
#: the part of each run's false alarm that goes to the far-step check (a step far outside its interval is
#: what a cost term left out makes); the coverage floor has the rest
BEYOND_SHARE = 0.8


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
    """What each run of a gate case must show: at least `floor` of its steps inside their intervals, and
    no step beyond `beyond` half-widths of its interval's centre.  `runs` committed runs set them, for a
    gate of `judged` runs."""
    floor: float
    beyond: float
    runs: int
    judged: int

    def failures(self, runs: Sequence[tuple]) -> list:
        """What a gate run ([(case name, [Step, ...]) per case]) falls short of, in words; [] if it passes."""
        out = [f"{name}: {share(steps):.0%} of its steps inside their intervals, below the floor {self.floor:.0%}"
               for name, steps in runs if share(steps) < self.floor]
        far = [s.distance for _, steps in runs for s in steps if s.distance > self.beyond]
        if far:
            out.append(f"{len(far)} step(s) beyond {self.beyond:g} half-widths of their intervals' centres "
                       f"(the farthest {max(far):.1f})")
        return out

    def passes(self, runs: Sequence[tuple]) -> bool:
        return not self.failures(runs)


def runs_for_a_floor(judged: int) -> int:
    """How many committed runs a floor above 0 needs for a gate of `judged` runs: floor(alpha_f (n + 1)) >= 1."""
    return math.ceil(round(judged / (FALSE_ALARM * (1 - BEYOND_SHARE)), 9)) - 1


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


def draws(runs: Mapping, cases: Sequence[tuple], sittings: Sequence[str] | None = None) -> list:
    """[(weight, [(scheme, [Step, ...]) per case])] of every draw of the gate from `runs`
    (``committed_runs``): a sitting, then one run of each case from it; the weights of a sitting's draws
    sum to 1 / (the number of sittings)."""
    sittings = sorted({s for s, _ in runs}) if sittings is None else list(sittings)
    out = []
    for s in sittings:
        per_case = [runs.get((s, i), []) for i in range(len(cases))]
        missing = [cases[i] for i, r in enumerate(per_case) if not r]
        if missing:
            raise GateEvidenceError(f"the sitting {s} has no committed run of the gate case {missing[0]}")
        combos = list(itertools.product(*per_case))
        out += [(1 / len(sittings) / len(combos), [(case[0], run) for case, run in zip(cases, combo)])
                for combo in combos]
    return out


def every_run(judged: Sequence[Mapping]) -> list:
    """[Step, ...] of every committed run (every case of every scheme), each judged as `judged` gives it."""
    runs: dict = {}
    for j in judged:
        runs.setdefault(j["run"], []).append(Step(bool(j["inside"]), distance(j["low"], j["high"], j["measured"])))
    return list(runs.values())


def rule_of(runs: Sequence[Sequence[Step]], judged: int) -> Rule:
    """The rule for a gate of `judged` runs from the committed `runs` (``every_run``): each run of the
    gate fails an honest model at most FALSE_ALARM / judged of the time if the runs are exchangeable."""
    n = len(runs)
    alpha = FALSE_ALARM / judged
    farthest = sorted(max(s.distance for s in steps) for steps in runs)
    # ranks rounded to 9 places first: 0.05 x 0.2 x 200 is 2.0000000000000004 in floating point
    rank = math.ceil(round((1 - alpha * BEYOND_SHARE) * (n + 1), 9))
    if rank > n:
        raise GateEvidenceError(f"{n} committed runs cannot bound a step's distance at a false alarm of "
                                f"{alpha * BEYOND_SHARE:.2%} a run (it needs {math.ceil(1 / (alpha * BEYOND_SHARE)) - 1})")
    beyond = math.ceil(farthest[rank - 1] * 2) / 2
    low = math.floor(round(alpha * (1 - BEYOND_SHARE) * (n + 1), 9))
    floor = sorted(share(steps) for steps in runs)[low - 1] if low >= 1 else 0.0
    return Rule(floor, beyond, n, judged)


def gate_rule(judged_runs: int, judged: Sequence[Mapping] | None = None) -> Rule:
    """The gate's rule for `judged_runs` runs (one per gate case), from every committed run."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    return rule_of(every_run(judged), judged_runs)


def pass_rate(weighted: Sequence[tuple], rule: Rule) -> float:
    """The weight of the draws that `rule` passes, over the draws' total weight."""
    total = sum(w for w, _ in weighted)
    return sum(w for w, runs in weighted if rule.passes(runs)) / total if total else math.nan


def held_out(cases: Sequence[tuple], judged: Sequence[Mapping] | None = None, narrow: float = 1.0) -> dict:
    """{sitting: how often the rule set by the other sittings' runs passes that sitting's draws of
    `cases`, with the intervals narrowed by `narrow`, or None where those runs are too few to set a
    rule}: the honest pass rate at `narrow` 1, a narrowed model's below."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    model = committed_runs(cases, judged, narrow)
    out = {}
    for s in sorted({k for k, _ in model}):
        try:
            rule = rule_of(every_run([j for j in judged if j["sitting"] != s]), len(cases))
        except GateEvidenceError:        # the other sittings alone hold too few runs to set a rule
            out[s] = None
            continue
        out[s] = pass_rate(draws(model, cases, [s]), rule)
    return out


def narrowing_for(coverage: float, judged: Sequence[Mapping] | None = None) -> float:
    """The factor by which every committed check's interval (log half-width, about its centre) must be
    narrowed for the evidence to hold `coverage` of its checks: a model that is that much worse than
    its intervals claim."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    distances = sorted(distance(j["low"], j["high"], j["measured"]) for j in judged)
    k = max(1, math.ceil(coverage * len(distances)))
    return distances[k - 1]
