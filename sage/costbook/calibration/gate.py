"""The validation gate's rule, derived from the evidence: how many of its steps a single run of the
gate's cases must hold in their intervals, and how far beyond its interval a step may lie, for an
honest model to pass at least 95% of the time.

The gate (``tests/test_validation_bounds.py``) validates each gate case (every scheme's
``VALIDATION_CASES``) once, in a fresh process, as ``costbook.calibration.calibrate`` collects the
evidence, and judges that one run, once.  A run's steps are not independent draws: a process's memory
layout, or a burst of the machine's noise, moves many steps of a run together (one quiet run of the
traceable mixnet put 20 of its 22 steps above their intervals, the next one 2), so no binomial law
sets the floor.  The committed evidence does:

* every committed run of a gate case is judged as a run in a sitting the evidence never saw, with its
  whole sitting left out (``uncertainty.cross_validated(leave_sitting_out=True)``);
* a **draw** of the gate is a sitting and one run of each gate case from that sitting (the cases of one
  gate run share the machine's state); every combination is a draw, and each sitting weighs alike;
* the **beyond** factor is the least of ``BEYOND_FACTORS`` such that the draws with a step beyond that
  many half-widths of its interval's centre weigh at most ``BEYOND_ALARM``; the **floor** is the largest
  share of the gate's steps inside their intervals such that the draws below it weigh at most
  ``COVERAGE_ALARM``.  Together the rule fails an honest model's run at most 5% of the time, as the
  evidence's sittings judge it.

``held_out`` says how often the rule, derived without one sitting, passes that sitting's draws (the
honest pass rate), and ``power`` how often it passes a model whose intervals are narrowed until they
hold a given share of the evidence.  This module names no scheme: the cases come from the registry.
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from .. import registry
from . import uncertainty

#: how rarely the coverage floor may fail an honest model's run, and the beyond factor
COVERAGE_ALARM = 0.04
BEYOND_ALARM = 0.01
#: the half-widths a step may lie beyond its interval's centre, from which the rule picks the least
#: that the evidence allows; a step whose counts leave out half its work lies beyond the largest
BEYOND_FACTORS = (2.0, 2.5, 3.0, 3.5, 4.0)


class GateEvidenceError(ValueError):
    """Evidence that cannot set the gate's rule (a gate case with no run in a sitting)."""


@dataclass(frozen=True)
class Step:
    """One judged step of a committed run: whether it lies in its interval, and how many of its
    interval's half-widths (log ratio) it lies from the interval's centre."""
    inside: bool
    distance: float


@dataclass(frozen=True)
class Rule:
    """What a single gate run must show: of each scheme's steps, at least `floors[scheme]` inside their
    intervals; no step beyond `beyond` half-widths of its interval's centre.  `draws` and `sittings` say
    what set them."""
    floors: Mapping[str, float]
    beyond: float
    draws: int
    sittings: int

    def failures(self, runs: Sequence[tuple]) -> list:
        """What a gate run ([(scheme, [Step, ...]) per case]) falls short of, in words; [] if it passes."""
        out = [f"{scheme}: {share(steps):.0%} of its steps inside their intervals, below its floor "
               f"{self.floors[scheme]:.0%}" for scheme, steps in by_scheme(runs).items()
               if scheme in self.floors and share(steps) < self.floors[scheme]]
        far = [s.distance for _, steps in runs for s in steps if s.distance > self.beyond]
        if far:
            out.append(f"{len(far)} step(s) beyond {self.beyond:g} half-widths of their intervals' centres "
                       f"(the farthest {max(far):.1f})")
        return out

    def passes(self, runs: Sequence[tuple]) -> bool:
        return not self.failures(runs)


def by_scheme(runs: Sequence[tuple]) -> dict:
    """{scheme: every Step of its runs} of [(scheme, [Step, ...])]."""
    out: dict = {}
    for scheme, steps in runs:
        out.setdefault(scheme, []).extend(steps)
    return out


def share(steps: Sequence[Step]) -> float:
    """The share of `steps` inside their intervals."""
    return sum(s.inside for s in steps) / len(steps) if steps else math.nan


def distance(low: float, high: float, outcome: float) -> float:
    """How many half-widths (log ratio) `outcome` lies from the centre of [low, high], sqrt(low x high)."""
    half = math.log(high / low) / 2
    off = abs(math.log(outcome / math.sqrt(low * high)))
    return off / half if half > 0 else (0.0 if off == 0 else math.inf)


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


def rule_of(weighted: Sequence[tuple], sittings: int) -> Rule:
    """The rule an honest model's draws (``draws``) pass at least 1 - COVERAGE_ALARM - BEYOND_ALARM of
    the time: the least beyond factor whose exceedances weigh at most BEYOND_ALARM (the largest factor
    if none does), and for each scheme the largest floor whose shortfalls weigh at most its share of
    COVERAGE_ALARM (split evenly between the schemes)."""
    if not weighted:
        raise GateEvidenceError("no committed run of the gate's cases to set its rule from")
    total = sum(w for w, _ in weighted)
    beyond = next((f for f in BEYOND_FACTORS
                   if sum(w for w, runs in weighted
                          if max(s.distance for _, steps in runs for s in steps) > f) <= BEYOND_ALARM * total),
                  BEYOND_FACTORS[-1])
    shares = [(w, {k: share(v) for k, v in by_scheme(runs).items()}) for w, runs in weighted]
    names = sorted(shares[0][1])
    alarm = COVERAGE_ALARM / len(names) * total
    floors = {}
    for name in names:
        floors[name] = max((c for c in {s[name] for _, s in shares}
                            if sum(w for w, s in shares if s[name] < c) <= alarm + 1e-12), default=0.0)
    return Rule(floors, beyond, len(weighted), sittings)


def gate_rule(cases: Sequence[tuple], judged: Sequence[Mapping] | None = None) -> Rule:
    """The gate's rule for `cases`, from every sitting of the committed evidence."""
    runs = committed_runs(cases, judged)
    sittings = sorted({s for s, _ in runs})
    return rule_of(draws(runs, cases, sittings), len(sittings))


def pass_rate(weighted: Sequence[tuple], rule: Rule) -> float:
    """The weight of the draws that `rule` passes, over the draws' total weight."""
    total = sum(w for w, _ in weighted)
    return sum(w for w, runs in weighted if rule.passes(runs)) / total if total else math.nan


def held_out(cases: Sequence[tuple], judged: Sequence[Mapping] | None = None, narrow: float = 1.0) -> dict:
    """{sitting: how often the rule set by the other sittings' runs (as judged) passes that sitting's
    draws, with the intervals narrowed by `narrow`}: the honest pass rate at `narrow` 1, a narrowed
    model's below."""
    judged = uncertainty.cross_validated(leave_sitting_out=True) if judged is None else judged
    honest, model = committed_runs(cases, judged), committed_runs(cases, judged, narrow)
    sittings = sorted({s for s, _ in honest})
    out = {}
    for s in sittings:
        others = [o for o in sittings if o != s]
        rule = rule_of(draws(honest, cases, others), len(others))
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
