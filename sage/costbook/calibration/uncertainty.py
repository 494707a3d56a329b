"""Prediction intervals: how far a checked prediction may be from what happens, at one nominal level.

An estimate's price interval [low, high] (every price at the low or high bound of its spread) says
how sure the prices are; it says nothing of what the counts leave out.  A prediction interval says
how far the outcome may lie from the prediction, everything included: the prices' noise and the
model's own error, estimated together by split conformal prediction [@vovk-2005; @lei-2018] from
evidence the interval is never judged by.  A prediction's **score** is ``|ln(y / predicted)|``
(``score``); the **margin** q is a conformal quantile of the scores of *other* predictions
(``conformal_quantile``), and the interval [predicted x e^-q, predicted x e^q] holds the outcome
with probability at least the level if the scores are exchangeable.

Two kinds of evidence, each left out where it would judge itself:

* **validation** (a timed run of the Sage code against its counts priced in the same rounds, on one
  machine; ``costbook.calibration.calibrate`` commits each scheme's to its folder's ``evidence/``): a check
  of scheme S at size L takes its margin from every committed check *except S's at L*, scored by
  locally adaptive split conformal prediction (``validation_margin``);
* **across machines** (a published figure of another machine, predicted from prices not fitted to
  it: the ledger's out-of-sample rows): a row of scheme S takes its margin from the *other* schemes'
  rows (``cross_machine_margin``).

Every estimate the book shows takes its interval from ``prediction_interval``, its margin from
``estimate_margin``: the validation margin for an estimate of the Sage code on the evidence's machine,
the cross-machine margin for any other (another machine, or native libraries, whose figures only the
seeds' published ones judge).  ``NOMINAL`` is the one level used everywhere.
"""
from __future__ import annotations

import datetime
import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

#: the nominal level of every prediction interval the book prints
NOMINAL = 0.90
#: a validation check's scale is 1 + its prices' relative half-spread ln(price_high / price_low) / 2 over
#: this floor: a run whose prices scatter (beside a busy process, or a host whose neighbours take the CPU in
#: bursts) makes larger errors, and in proportion to its spread.  It is the floor at which the evidence's
#: checks, judged leave-one-sitting-out, hold their intervals alike at every price spread (the book's
#: calibration chapter shows them by spread): a larger floor gives intervals too wide in quiet runs and
#: too narrow in scattered ones, a smaller one the reverse.
SPREAD_FLOOR = 0.02
#: the evidence format written by ``costbook.calibration.calibrate`` and read by ``load_evidence``
FORMAT = "costbook-calibration/1"
#: the work groups, by what drives their error (``work_group``): reported apart, pooled for the margin
#: (``validation_margin`` says why)
GROUPS = {
    "priced": "steps that are their priced operations only (native-library calls, each priced by its "
              "own benchmark)",
    "interpreted": "steps whose prediction adds measured interpreter work (Python and Sage around many "
                   "small operations, measured by a replay of the run without its priced operations)",
}


class EvidenceError(ValueError):
    """Committed evidence that cannot be read, named with the file and the field."""


# ---------------------------------------------------------------------------
# Scores and quantiles

def score(outcome: float, predicted: float) -> float:
    """How far `outcome` lies from `predicted`, as the absolute log ratio ``|ln(y / predicted)|``."""
    if not (outcome > 0 and predicted > 0):
        raise ValueError(f"a score needs positive times, got {outcome} against {predicted}")
    return abs(math.log(outcome / predicted))


def conformal_quantile(scores: Sequence[float], level: float = NOMINAL) -> float:
    """The ceil((n + 1) level)-th smallest of `scores` (split conformal prediction's margin); infinite
    when there are too few scores for the level.  If the n scores and the one judged are
    exchangeable, the interval of this margin holds the outcome with probability at least the level
    (and at most level + 1/(n + 1))."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    ordered = sorted(scores)
    k = math.ceil((len(ordered) + 1) * level)
    return math.inf if k > len(ordered) else ordered[k - 1]


@dataclass(frozen=True)
class Margin:
    """A model-error margin and what it was estimated from.

    A plain margin (``spread_floor`` None: the ledger's, a machine's) is symmetric about the prediction.
    A validation margin is in log ratio at a check whose prices have no spread, anchored at the
    prediction's low bound and widened by (1 + spread / spread_floor) for a check whose prices spread,
    and stretched to hold the prediction itself (``bounds``)."""
    value: float           # q, a log ratio (at no price spread, for a validation margin)
    evidence: int          # how many scores
    group: str             # the group it was taken from, or "pooled"
    left_out: str          # what was left out, in words
    centre: float = 0.0    # b, the evidence's median offset from the anchor, in the unit of value
    spread_floor: float | None = None   # None: symmetric about the prediction; else SPREAD_FLOOR

    @property
    def percent(self) -> float:
        """The margin as a percentage (of a check whose prices have no spread, for a validation margin)."""
        return math.expm1(self.value)

    def bounds(self, predicted: float, low: float | None = None, high: float | None = None) -> tuple:
        """The prediction interval of `predicted`, whose price interval is [low, high] (ignored by a
        plain margin; None or not positive: the prediction, with no spread)."""
        if self.spread_floor is None:
            return predicted * math.exp(-self.value), predicted * math.exp(self.value)
        anchor, spread = anchor_and_spread(predicted, low, high)
        widen = scale(spread, self.spread_floor)
        # anchored at the prices' low bound, the interval can end short of a prediction whose prices spread
        # far above it (a busy machine's slow rounds, a price extrapolated to a size nobody measured);
        # stretched to hold the prediction, it only gains coverage, and no prediction is shown outside its
        # own interval
        return (min(anchor * math.exp((self.centre - self.value) * widen), predicted),
                max(anchor * math.exp((self.centre + self.value) * widen), predicted))


def anchor_and_spread(predicted: float, low: float | None, high: float | None) -> tuple:
    """(the prediction at its prices' low bound, ln(high / low) / 2): where a validation interval is
    anchored and how much its prices spread; (predicted, 0) without a usable price interval.

    The anchor is the prediction at the prices' lower quartile (``price_low_s``), not at their
    medians: load stretches some of a primitive's timed batches (each a tenth of a second, which a
    busy neighbour preempts) and so its median, while the step's own median over its rounds leaves
    such rounds out.  On the committed runs the step's error against the median prediction grows as
    the medians stand above their lower quartiles; against the lower-quartile prediction its spread
    shrinks and its offset stays put."""
    if (low is None or high is None or not (0 < low <= high) or not math.isfinite(high)
            or not low <= predicted <= high):
        return predicted, 0.0
    return low, math.log(high / low) / 2


def interval(predicted: float, margin, low: float | None = None, high: float | None = None) -> tuple:
    """The prediction interval of a margin: (predicted x e^-margin, predicted x e^margin) for a log
    ratio; ``Margin.bounds`` for a Margin (a validation margin anchored at `low` and widened by the
    price interval [low, high])."""
    if isinstance(margin, Margin):
        return margin.bounds(predicted, low, high)
    if low is not None or high is not None:
        raise TypeError("a price interval widens a validation Margin, not a bare log ratio")
    return predicted * math.exp(-margin), predicted * math.exp(margin)


# ---------------------------------------------------------------------------
# Validation evidence

def work_group(check: Mapping) -> str:
    """The group of a validation check: "interpreted" where its prediction includes measured
    interpreter work, else "priced"."""
    return "interpreted" if "interpreter_s" in check else "priced"


def labels_key(labels: Mapping) -> str:
    """A run's labels (its size or parameter set, and what else names it) as one comparable text."""
    return json.dumps({k: v for k, v in labels.items() if k != "checks"}, sort_keys=True, default=str)


def size_key(labels: Mapping | str) -> str:
    """A run's size: its numeric labels (n, m, punches, the modulus bits), as one comparable text.  Two
    runs of a scheme at one size (DB-SM and DB-RSM at n = m = 2, made in one process) are left out
    together: they share the process whose life moves a step's ratio to its primitives."""
    if isinstance(labels, str):          # a Record's labels: the same few texts, asked for again and again
        return _size_key_of_text(labels)
    return json.dumps({k: v for k, v in labels.items() if k != "checks" and isinstance(v, (int, float))
                       and not isinstance(v, bool)}, sort_keys=True)


@functools.lru_cache(maxsize=4096)
def _size_key_of_text(labels: str) -> str:
    return size_key(json.loads(labels))


@dataclass(frozen=True)
class Record:
    """One committed validation check."""
    scheme: str
    labels: str            # labels_key of its run
    step: str
    group: str
    predicted: float       # its prediction (counts x prices measured in its run, and its replay)
    measured: float        # the median of its timed samples
    conditions: str = "quiet"    # or "beside a CPU-bound process" (costbook.calibration.calibrate --beside-busy)
    price_low: float | None = None     # its price interval (None: no spread), known before the step ran
    price_high: float | None = None
    machine: str = ""                  # the CPU it was timed on, as its evidence file names it
    date: str = ""                     # the day it was timed
    run: str = ""                      # the process run it came from (its file and result), for the gate's floors
    collected: str = ""                # when its sitting began (``SITTING_FIELD``), where its file says

    @property
    def sitting(self) -> str:
        """The sitting it was timed in: its machine and when the sitting began, or its day where its file
        does not say (a sitting's collections, quiet and beside a busy process, share the machine's state,
        which changes over hours; a check is judged leave-one-sitting-out by them all)."""
        return f"{self.machine} {self.collected or self.date}"

    @property
    def score(self) -> float:
        """|ln(measured / predicted)|, the plain score."""
        return score(self.measured, self.predicted)

    @property
    def residual(self) -> float:
        """ln(measured / anchor) / (1 + spread / SPREAD_FLOOR): its offset from its anchor in the unit
        of a validation Margin's value (``residual``)."""
        return residual(self.measured, self.predicted, self.price_low, self.price_high)


def residual(measured: float, predicted: float, low: float | None = None, high: float | None = None,
             spread_floor: float | None = None) -> float:
    """A validation check's signed score: its log ratio to its anchor (the prediction at its prices' low
    bound), over its widening 1 + spread / SPREAD_FLOOR (``anchor_and_spread``).  The evidence's
    median residual is a margin's centre: the model's steady offset (the context a step's operations
    run in costs some percent more than their own benchmark loops)."""
    anchor, spread = anchor_and_spread(predicted, low, high)
    return math.log(measured / anchor) / scale(spread, spread_floor) if measured > 0 else math.inf


def scale(spread: float, spread_floor: float | None = None) -> float:
    """A validation interval's scale w = 1 + spread / floor (default SPREAD_FLOOR, read when called): how
    much a run whose prices spread by `spread` (``anchor_and_spread``) widens the margin."""
    return 1 + spread / (SPREAD_FLOOR if spread_floor is None else spread_floor)


def records_of(result: Mapping, machine: str = "", run_id: str = "") -> list:
    """The Records of a validate() result (a scheme's, or the median of several processes), timed on
    `machine` in the process run named `run_id`."""
    out = []
    for run in result["runs"]:
        for c in run["checks"]:
            out.append(Record(result["scheme"], labels_key(run), c["step"], work_group(c), c["predicted_s"],
                              c["measured_s"], result.get("conditions", "quiet"),
                              c.get("price_low_s", c.get("predicted_low_s")),
                              c.get("price_high_s", c.get("predicted_high_s")), machine, result.get("date", ""), run_id,
                              result.get(SITTING_FIELD, "")))
    return out


#: the least number of a machine's own records from which a run on that machine takes its margin
MIN_OWN_RECORDS = 200


def own_machine(records: Sequence[Record], machine: str | None) -> list:
    """The evidence a run on `machine` is judged by: that machine's own records where the evidence holds
    at least MIN_OWN_RECORDS of them (a model's error differs from one CPU to another: judged by
    another CPU's evidence alone, far fewer of a machine's checks lie in their intervals), else every
    machine's."""
    if machine:
        mine = [r for r in records if r.machine == machine]
        if len(mine) >= MIN_OWN_RECORDS:
            return mine
    return list(records)


#: where a scheme keeps its evidence, in its own folder: ``validation/<machine>.json`` (its validation runs on
#: that machine, written by ``costbook.calibration.calibrate``; <machine> is named as the machine's measurement
#: file, the reference machine's) and ``cross-machine.json`` (its ledger's out-of-sample scores, written by
#: ``python -m costbook.views.ledger --write-scores``).  Kept with the scheme, a scheme's evidence is added
#: and replaced without rewriting another's.
EVIDENCE_FOLDER = "evidence"


def evidence_dir(scheme: str) -> Path:
    """The folder of `scheme`'s evidence (``EVIDENCE_FOLDER`` in its scheme folder)."""
    from .. import registry
    return registry.folder(scheme) / EVIDENCE_FOLDER


def scheme_evidence_files(scheme: str) -> list:
    """`scheme`'s validation evidence files, one per machine."""
    return sorted((evidence_dir(scheme) / "validation").glob("*.json"))


def evidence_files() -> list:
    """The committed validation evidence files of every scheme of the book, one per scheme and machine."""
    from .. import registry
    return [p for s in sorted(registry.REGISTRY) for p in scheme_evidence_files(s)]


def scheme_of_evidence(path: Path) -> str:
    """The scheme whose folder holds the evidence file `path` (.../<scheme>/evidence/...)."""
    parts = Path(path).parts
    return parts[len(parts) - 1 - parts[::-1].index(EVIDENCE_FOLDER) - 1] if EVIDENCE_FOLDER in parts else ""


#: a validated step further than this factor from its prediction is no evidence of a model's error
#: but of a broken model or a damaged file (the committed checks lie well within it)
MAX_EVIDENCE_RATIO = 10.0
CONDITIONS = ("quiet", "beside a CPU-bound process")
#: a result's field naming its sitting: when the sitting began, in UTC, to the minute (SITTING_FORMAT); a
#: result without it (collected before sittings were recorded) is of its day's sitting
SITTING_FIELD = "sitting"
SITTING_FORMAT = "%Y-%m-%dT%H:%MZ"


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _is_sitting(v) -> bool:
    try:
        return isinstance(v, str) and datetime.datetime.strptime(v, SITTING_FORMAT).strftime(SITTING_FORMAT) == v
    except ValueError:
        return False


def check_evidence(data, path, scheme: str | None = None) -> None:
    """Refuse evidence that cannot be what ``costbook.calibration.calibrate`` wrote, naming the file and the field:
    the format and machine, every result's scheme, conditions and runs, every check's step and its
    times (finite, positive, the price interval in order, the step within ``MAX_EVIDENCE_RATIO`` of its
    prediction), and no check twice; in a scheme's own file, no other scheme's result.  A margin is made
    only from evidence that passes."""
    def fail(field, problem):
        raise EvidenceError(f"{path}: {field}: {problem}")

    if not isinstance(data, dict):
        fail("(top level)", f"expected an object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        fail("format", f"expected {FORMAT!r}")
    if not isinstance(data.get("machine"), str) or not data["machine"].strip():
        fail("machine", "the machine the runs were timed on, in words, is missing")
    if not isinstance(data.get("results"), list) or not data["results"]:
        fail("results", "expected a non-empty list of validation results")
    seen = set()
    for i, result in enumerate(data["results"]):
        at = f"results[{i}]"
        if not isinstance(result, dict) or not isinstance(result.get("scheme"), str) or not result["scheme"]:
            fail(at, "expected a validation result with its scheme")
        if scheme and result["scheme"] != scheme:
            fail(f"{at}.scheme", f"a result of {result['scheme']!r} in {scheme!r}'s evidence: each scheme keeps its own")
        if result.get("conditions", CONDITIONS[0]) not in CONDITIONS:
            fail(f"{at}.conditions", f"expected one of {', '.join(map(repr, CONDITIONS))}")
        if SITTING_FIELD in result and not _is_sitting(result[SITTING_FIELD]):
            fail(f"{at}.{SITTING_FIELD}", f"expected when its sitting began, as {SITTING_FORMAT!r} (UTC), got "
                                          f"{result[SITTING_FIELD]!r}")
        if not isinstance(result.get("runs"), list) or not result["runs"]:
            fail(f"{at}.runs", "expected a non-empty list of runs")
        for j, run in enumerate(result["runs"]):
            if not isinstance(run, dict) or not isinstance(run.get("checks"), list) or not run["checks"]:
                fail(f"{at}.runs[{j}]", "expected a run with its checks")
            for k, c in enumerate(run["checks"]):
                where = f"{at}.runs[{j}].checks[{k}]"
                if not isinstance(c, dict) or not isinstance(c.get("step"), str) or not c["step"]:
                    fail(where, "expected a check with its step")
                low, high = c.get("price_low_s", c.get("predicted_low_s")), c.get("price_high_s", c.get("predicted_high_s"))
                for name, v in (("predicted_s", c.get("predicted_s")), ("measured_s", c.get("measured_s")),
                                ("price_low_s", low), ("price_high_s", high)):
                    if v is not None or name in ("predicted_s", "measured_s"):
                        if not _positive(v):
                            fail(f"{where}.{name}", f"expected a finite positive number of seconds, got {v!r}")
                if low is not None and high is not None and not low <= high:
                    fail(where, f"price interval out of order: {low!r} > {high!r}")
                ratio = c["measured_s"] / c["predicted_s"]
                if not 1 / MAX_EVIDENCE_RATIO <= ratio <= MAX_EVIDENCE_RATIO:
                    fail(f"{where}.measured_s", f"{ratio:.3g} times its prediction: beyond a factor of "
                                                f"{MAX_EVIDENCE_RATIO:g}, no model's error but a broken model or file")
                key = (result["scheme"], labels_key(run), c["step"], result.get("conditions"), c["predicted_s"], c["measured_s"])
                if key in seen:
                    fail(where, "the same check twice (a duplicated record)")
                seen.add(key)


def load_evidence(paths: Iterable[Path] | None = None) -> list:
    """Every Record of the committed evidence (or of `paths`), each file checked (``check_evidence``)."""
    from ..prices.measurements import parse_json, read_text
    out = []
    for path in (evidence_files() if paths is None else paths):
        data = parse_json(read_text(path, error=EvidenceError, what="evidence file"), str(path), error=EvidenceError)
        check_evidence(data, path, scheme_of_evidence(path) or None)
        for i, result in enumerate(data["results"]):
            try:
                out += records_of(result, data["machine"], f"{path.parent.parent.parent.name}/{path.stem}#{i}")
            except (KeyError, TypeError, ValueError) as e:
                raise EvidenceError(f"{path}: results[{i}] is not a validation result ({e})") from None
    return out


_EVIDENCE: dict = {}


def evidence() -> list:
    """The committed evidence of the project in use, read once per process."""
    files = tuple(evidence_files())
    if files not in _EVIDENCE:
        _EVIDENCE[files] = load_evidence(files)
    return _EVIDENCE[files]


def validation_margin(scheme: str, labels: str, group: str | None = None, records: Sequence[Record] | None = None,
                      level: float = NOMINAL, machine: str | None = None, spread_floor: float | None = None) -> Margin:
    """The margin of a check of `scheme` at run `labels` timed on `machine`, from every record of that
    machine's evidence (``own_machine``: every machine's where it has too little) but those of `scheme`
    at the same size (``size_key``): its centre is their median ``residual``, its value the conformal
    quantile of their residuals' distances from it: locally adaptive (normalized) split conformal
    prediction [@papadopoulos-2008; @lei-2018, sec. 5.2], with an anchor and a scale a check knows
    before its step is timed (``anchor_and_spread``, ``SPREAD_FLOOR``).  Its interval is
    [anchor x e^((b - q) x scale), anchor x e^((b + q) x scale)] (``Margin.bounds``).

    Every work group's evidence is pooled, so `group` only names the check's group in the Margin:
    scored this way the groups share their centre and differ in spread, but the interpreted steps'
    own margin put a run's first step (whose multiplications follow the previous run's pairings)
    beyond twice its half-width, and held fewer steps beside a busy process; the groups are kept to
    report coverage by.  The evidence must span more than one sitting: one quiet quarter of an hour
    alone gives intervals too narrow for the next."""
    records = own_machine(evidence() if records is None else records, machine)
    spread_floor = SPREAD_FLOOR if spread_floor is None else spread_floor      # the Margin keeps the floor it used
    size = size_key(labels)
    others = [residual(r.measured, r.predicted, r.price_low, r.price_high, spread_floor) for r in records
              if not (r.scheme == scheme and size_key(r.labels) == size)]
    centre = median(others) if others else 0.0
    q = conformal_quantile([abs(x - centre) for x in others], level)
    return Margin(q, len(others), "pooled", f"{scheme} at {labels}", centre, spread_floor)


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def judge_runs(scheme: str, runs: list, records: Sequence[Record] | None = None, level: float = NOMINAL,
               machine: str | None = None) -> None:
    """Give every check of `runs` its prediction interval, in place: "price_low_s"/"price_high_s" keep
    the price interval, "predicted_low_s"/"predicted_high_s" become the prediction interval (of
    ``validation_margin``, anchored and widened by the price interval), "margin" (the interval's log
    half-width, ln(high / low) / 2) and "margin_evidence" say how wide and from how many scores,
    "inside" whether the measured median lies in it, "half_width" its half-width relative to the
    prediction, and "within_twice" whether the measured median lies within twice that half-width of
    the interval's centre (``within_twice``)."""
    for run in runs:
        labels = labels_key(run)
        for c in run["checks"]:
            c.setdefault("price_low_s", c["predicted_low_s"])
            c.setdefault("price_high_s", c["predicted_high_s"])
            m = validation_margin(scheme, labels, work_group(c), records, level, machine)
            if not math.isfinite(m.value):       # no committed evidence (while it is collected): no margin
                m = Margin(0.0, m.evidence, "none", m.left_out)
            low, high = interval(c["predicted_s"], m, c["price_low_s"], c["price_high_s"])
            c.update(predicted_low_s=low, predicted_high_s=high, margin=math.log(high / low) / 2,
                     margin_evidence=m.evidence, margin_group=m.group, level=level)
            c.update(assess(c["predicted_s"], low, high, c["measured_s"]))


def assess(predicted: float, low: float, high: float, outcome: float) -> dict:
    """Whether `outcome` lies in [low, high], the interval's half-width relative to `predicted`, and
    whether `outcome` lies within the interval doubled about its centre (``within_twice``)."""
    half = (high - low) / 2
    return {"inside": bool(low <= outcome <= high), "half_width": half / predicted if predicted else math.inf,
            "within_twice": within_twice(low, high, outcome)}


def within_twice(low: float, high: float, outcome: float) -> bool:
    """Whether `outcome` lies within twice the interval's half-width of its centre, both in log ratio
    (every interval here is symmetric in log ratio about its centre, sqrt(low x high)): in
    [low x (low / high)^(1/2), high x (high / low)^(1/2)].  The centre, not the point prediction: a
    validation interval is centred where the evidence puts a step (its anchor and offset), so a step
    inside its interval is never beyond twice it.  For a plain margin the centre is the prediction."""
    if not (0 < low <= high and outcome > 0):
        return bool(low <= outcome <= high)
    return half_widths_from_centre(low, high, outcome) <= 2


def half_widths_from_centre(low: float, high: float, outcome: float) -> float:
    """How many half-widths (log ratio) `outcome` lies from the centre of [low, high], sqrt(low x high)
    (0 < low <= high, outcome > 0); infinite off a zero-width interval's point."""
    half = math.log(high / low) / 2
    off = abs(math.log(outcome / math.sqrt(low * high)))
    return off / half if half > 0 else (0.0 if off == 0 else math.inf)


def coverage(checks: Sequence[Mapping]) -> dict:
    """{"inside", "checked", "share", "median_half_width", "beyond_twice"} of judged checks."""
    checks = list(checks)
    widths = sorted(c["half_width"] for c in checks)
    n = len(checks)
    median = (widths[n // 2] if n % 2 else (widths[n // 2 - 1] + widths[n // 2]) / 2) if n else math.nan
    inside = sum(bool(c["inside"]) for c in checks)
    return {"inside": inside, "checked": n, "share": inside / n if n else math.nan, "level": NOMINAL,
            "median_half_width": median,
            "beyond_twice": [c["step"] for c in checks if not c["within_twice"]]}


#: bands of a run's prices' half-spread h, in which the book reports how often its intervals hold: the
#: scale (SPREAD_FLOOR) is right when they hold alike in each
SPREAD_BANDS = (0.0, 0.01, 0.03, 0.06, 0.1, 0.2, math.inf)


def by_spread(judged: Sequence[Mapping]) -> dict:
    """{(low, high): the judged checks (``cross_validated``) whose prices' half-spread lies in [low, high)}
    for each of SPREAD_BANDS that holds any."""
    out: dict = {}
    for low, high in zip(SPREAD_BANDS, SPREAD_BANDS[1:]):
        mine = [j for j in judged if low <= j["spread"] < high]
        if mine:
            out[(low, high)] = mine
    return out


def calm_half_width(check: Mapping) -> float:
    """A judged check's half-width as it would be in a run whose prices do not spread: its log half-width
    ("margin") over its scale 1 + h / SPREAD_FLOOR (its prices' half-spread h: "spread", or from its price
    interval), as a ratio.  A noisy run widens its intervals in proportion to its prices' spread, as it
    should; a width ceiling judges the model's own margin, which a model that widens every interval
    grows and a noisy machine does not."""
    spread = check.get("spread")
    if spread is None:
        spread = anchor_and_spread(check["predicted_s"], check.get("price_low_s"), check.get("price_high_s"))[1]
    return math.expm1(check["margin"] / scale(spread))


def median_calm_half_width(checks: Sequence[Mapping]) -> float:
    """The median ``calm_half_width`` of judged checks (NaN for none)."""
    return median([calm_half_width(c) for c in checks]) if checks else math.nan


def coverage_words(cov: Mapping) -> str:
    """'43 of 50 (86%) in their 90% prediction intervals; median half-width 4.1%'."""
    text = (f"{cov['inside']} of {cov['checked']} ({cov['share']:.0%}) in their {cov['level']:.0%} prediction "
            f"intervals; median half-width {cov['median_half_width']:.1%}")
    if cov["beyond_twice"]:
        text += "; beyond twice the half-width: " + ", ".join(cov["beyond_twice"])
    return text


def cross_validated(records: Sequence[Record] | None = None, level: float = NOMINAL,
                    leave_sitting_out: bool = False, spread_floor: float | None = None) -> list:
    """Every committed record judged as the gate judges a check: its interval from the evidence less its
    own scheme at its own labels, and less its whole sitting with `leave_sitting_out` (as a run in a
    sitting the evidence never saw is judged: on a machine with no other sitting, by the other machines'
    evidence).  Returns dicts with the record's fields, "margin" (the interval's log half-width), "low",
    "high", "inside", "half_width" and "spread" (its prices' half-spread), for the calibration figure and the
    coverage tables; with another `spread_floor`, as a model of that floor would judge them."""
    records = evidence() if records is None else records
    margins: dict = {}
    out = []
    for r in records:
        # one margin per machine, left-out scheme and size (and sitting)
        key = (r.machine, r.scheme, size_key(r.labels), r.sitting if leave_sitting_out else None)
        if key not in margins:
            pool = [o for o in records if o.sitting != r.sitting] if leave_sitting_out else records
            margins[key] = validation_margin(r.scheme, r.labels, r.group, pool, level, r.machine, spread_floor)
        low, high = interval(r.predicted, margins[key], r.price_low, r.price_high)
        out.append({"scheme": r.scheme, "labels": r.labels, "step": r.step, "group": r.group,
                    "conditions": r.conditions, "machine": r.machine, "sitting": r.sitting, "run": r.run,
                    "measured": r.measured, "predicted": r.predicted, "low": low, "high": high,
                    "margin": math.log(high / low) / 2,
                    "spread": anchor_and_spread(r.predicted, r.price_low, r.price_high)[1],
                    **assess(r.predicted, low, high, r.measured)})
    return out


# ---------------------------------------------------------------------------
# Across machines: the ledger's out-of-sample rows

def cross_machine_margin(scheme: str, scored: Sequence[tuple], level: float = NOMINAL) -> Margin:
    """The margin of a prediction of another machine's figure for `scheme`: the conformal quantile of
    the scores of the other schemes' out-of-sample predictions. `scored`: (scheme, score) pairs."""
    others = [s for sch, s in scored if sch != scheme]
    return Margin(conformal_quantile(others, level), len(others), "across machines", f"every {scheme} row")


# ---------------------------------------------------------------------------
# Estimates: the one prediction interval of every estimate the book prints

#: a scheme's cross-machine scores, in its evidence folder (``costbook.views.ledger.write_cross_machine_scores``
#: writes it from the scheme's out-of-sample ledger rows; tests/test_prediction.py checks it is the ledger's):
#: an estimate reads the scores there rather than recomputing the whole ledger
CROSS_MACHINE_FILE = "cross-machine.json"
CROSS_MACHINE_FORMAT = "costbook-cross-machine/1"
#: the group of an estimate's steps: counts times prices, with no measured interpreter work in them
ESTIMATE_GROUP = "priced"
#: the backends the validation evidence prices its checks with: the book's Sage code (and Python's
#: hashlib for its hashes).  An estimate priced with any other (a native library) is judged by no
#: validation run: its margin is the cross-machine one, from the seeds' published native figures.
VALIDATED_BACKENDS = frozenset({"sage", "python"})
#: what each kind of margin was estimated from, as `costbook estimate --json` says it
MARGIN_SOURCES = {
    "validation": "validation runs of the book's Sage code on this machine (committed evidence)",
    "across machines": "the other schemes' predictions of figures published on other machines, mostly by "
                       "native libraries (the ledger's out-of-sample rows)",
    "none": "no committed evidence",
}


def evidence_machines() -> frozenset:
    """The names of the machines the committed validation evidence was taken on (its files' names, as
    their measurement files': the reference machine's)."""
    return frozenset(p.stem for p in evidence_files())


def machine_of(mset) -> str:
    """The machine an estimate priced with `mset` predicts, as ``estimate_margin`` takes it: its name,
    but for a file on disk other than the committed reference file, which is another machine whatever
    it is named (a reader's file named like the reference took the validation margin)."""
    from ..prices.measurements import is_reference
    if mset.path is None or is_reference(mset):
        return mset.name
    return f"file:{mset.path}"


def evidence_cpu(folder: str) -> str | None:
    """The CPU (as ``measure.machine_label`` names it) of the evidence files named `folder` (``<folder>.json``
    in the schemes' evidence), the machine an estimate priced with the measurement file of that name predicts."""
    for path in evidence_files():
        if path.stem == folder:
            try:
                stat = path.stat()
                return _machine_in(str(path), stat.st_mtime_ns, stat.st_size)
            except (OSError, ValueError, AttributeError):
                return None
    return None


@functools.lru_cache(maxsize=64)
def _machine_in(path: str, mtime_ns: int, size: int) -> str | None:
    """The machine an evidence file names, read once per version of the file (its time and size)."""
    return json.loads(Path(path).read_text(encoding="utf-8")).get("machine")


def evidence_half_width(machine: str | None = None) -> float:
    """The median calm half-width (``calm_half_width``) of the committed checks a run on `machine` is judged
    by (``own_machine``), each judged leave-one-out as the gate judges one (``cross_validated``): how wide
    that machine's intervals are at no price spread, for the gate's ceiling."""
    records = own_machine(evidence(), machine)
    return median_calm_half_width(cross_validated(records))


def is_validated(backends: Iterable[str]) -> bool:
    """Whether an estimate priced in `backends` is of the kind the validation evidence times (none
    named: not known to be)."""
    backends = set(backends)
    return bool(backends) and backends <= VALIDATED_BACKENDS


def margin_source(m: Margin) -> str:
    """What margin `m` was estimated from, in words (``MARGIN_SOURCES``)."""
    if m.group == "none":
        return MARGIN_SOURCES["none"]
    return MARGIN_SOURCES["validation" if m.spread_floor is not None else "across machines"]


def on_evidence_machine(machine: str) -> bool:
    """Whether an estimate priced with the measurement set named `machine` predicts the machine the
    validation evidence was taken on (else it carries the model to another machine)."""
    return machine in evidence_machines()


def cross_machine_path(scheme: str) -> Path:
    return evidence_dir(scheme) / CROSS_MACHINE_FILE


_CROSS: dict = {}


def cross_machine_scores(path: Path | None = None) -> list:
    """The committed (scheme, score) pairs of the ledger's out-of-sample rows: every scheme's file (a scheme
    without one has no such rows yet), or the file `path` alone; each file read once per process."""
    if path is not None:
        return _scores_in(Path(path))
    from .. import registry
    return [pair for s in sorted(registry.REGISTRY) if cross_machine_path(s).is_file()
            for pair in _scores_in(cross_machine_path(s), s)]


def _scores_in(path: Path, scheme: str | None = None) -> list:
    """The (scheme, score) pairs of one file of scores, checked (of `scheme` only, where given)."""
    if path not in _CROSS:
        from ..prices.measurements import parse_json, read_text
        remedy = "; write them with python -m costbook.views.ledger --write-scores"
        try:
            data = parse_json(read_text(path, error=EvidenceError, what="file of cross-machine scores"), str(path),
                              error=EvidenceError)
        except EvidenceError as e:
            raise EvidenceError(f"{e}{remedy}") from None
        if not isinstance(data, dict) or data.get("format") != CROSS_MACHINE_FORMAT or not isinstance(data.get("scores"), list):
            raise EvidenceError(f"{path}: not a {CROSS_MACHINE_FORMAT} file (fields format, scores){remedy}")
        scored, seen = [], set()
        for i, row in enumerate(data["scores"]):
            score_ = row.get("score") if isinstance(row, dict) else None
            if not (isinstance(row, dict) and isinstance(row.get("scheme"), str) and row["scheme"]):
                raise EvidenceError(f"{path}: scores[{i}]: expected a row with its scheme and score{remedy}")
            if scheme is not None and row["scheme"] != scheme:
                raise EvidenceError(f"{path}: scores[{i}]: a row of {row['scheme']!r} in {scheme!r}'s scores: each "
                                    f"scheme keeps its own{remedy}")
            # a score is |ln(printed / book)|: finite and positive (an exact 0 is no measured figure)
            if not _positive(score_) or score_ > math.log(MAX_EVIDENCE_RATIO) * 3:
                raise EvidenceError(f"{path}: scores[{i}].score: expected a finite positive log ratio below "
                                    f"{math.log(MAX_EVIDENCE_RATIO) * 3:.3g}, got {score_!r}{remedy}")
            key = tuple(sorted((k, str(v)) for k, v in row.items()))
            if key in seen:
                raise EvidenceError(f"{path}: scores[{i}]: the same row twice (a duplicated record){remedy}")
            seen.add(key)
            scored.append((row["scheme"], float(score_)))
        _CROSS[path] = scored
    return _CROSS[path]


def estimate_labels(scheme: str, options: Mapping | None, records: Sequence[Record]) -> str:
    """The labels of an estimate of `scheme` at `options`, as its validation runs name a size, so that a
    run at the estimate's size is the one left out: the labels of a run of the scheme that agrees with
    `options` on every label they share (CS03's parameter set names its modulus size), else the options
    the scheme's runs label their sizes with (``size_key``: a run at those numbers is left out)."""
    options = dict(options or {})
    for labels in sorted({r.labels for r in records if r.scheme == scheme}):
        run = _labels(labels)
        shared = set(run) & set(options)
        if shared and all(run[k] == options[k] for k in shared):
            return labels
    names = {k for r in records if r.scheme == scheme for k in _labels(size_key(r.labels))}
    return labels_key({k: v for k, v in options.items() if k in names})


@functools.lru_cache(maxsize=4096)
def _labels(text: str) -> dict:
    return json.loads(text)


def estimate_margin(scheme: str, machine: str, options: Mapping | None = None, *, group: str = ESTIMATE_GROUP,
                    records: Sequence[Record] | None = None, scored: Sequence[tuple] | None = None,
                    level: float = NOMINAL, backends: Iterable[str] = ()) -> Margin:
    """The model-error margin of an estimate of `scheme` at `options` priced with the measurement set
    named `machine` in `backends`: for the Sage code (every backend in ``VALIDATED_BACKENDS``) on the
    machine of the validation evidence, ``validation_margin`` (every validation check but `scheme`'s at
    this size, in `group`); for any other estimate (another machine: a seed's, a public one, a reader's;
    or native libraries, which no validation run times), ``cross_machine_margin`` (the other schemes'
    predictions of figures published on machines the book never ran on, whose errors hold the model's
    error and the carrying of prices to another machine together: adding the validation margin to it
    would count the model's error twice).  No evidence at all gives a zero margin named "none", as a
    validation does while it is collected."""
    if is_validated(backends) and on_evidence_machine(machine):
        records = evidence() if records is None else records
        m = validation_margin(scheme, estimate_labels(scheme, options, records), group, records, level,
                              evidence_cpu(machine))
    else:
        m = cross_machine_margin(scheme, cross_machine_scores() if scored is None else scored, level)
    return m if math.isfinite(m.value) else Margin(0.0, m.evidence, "none", m.left_out)


@dataclass(frozen=True)
class Prediction:
    """An estimate with its prediction interval at `level`: [price_low x e^-q, price_high x e^q] for a plain
    margin, ``Margin.bounds`` for a validation margin."""
    value: float
    low: float
    high: float
    price_low: float
    price_high: float
    margin: Margin
    level: float = NOMINAL

    def to_dict(self) -> dict:
        return {"seconds": self.value, "low_s": self.low, "high_s": self.high, "price_low_s": self.price_low,
                "price_high_s": self.price_high, "margin": margin_export(self.margin), "level": self.level}


def prediction_interval(scheme: str, machine: str, value: float, price_low: float | None = None,
                        price_high: float | None = None, *, options: Mapping | None = None,
                        margin: Margin | None = None, group: str = ESTIMATE_GROUP,
                        records: Sequence[Record] | None = None, scored: Sequence[tuple] | None = None,
                        level: float = NOMINAL, backends: Iterable[str] = ()) -> Prediction:
    """The prediction interval of an estimate `value` of a step of `scheme` at `options`, priced with the
    measurement set named `machine`, whose prices' spread gives [price_low, price_high] (none: a value
    without a spread): the price interval widened on each side by the model-error margin q of
    ``estimate_margin`` (or `margin`, where a caller prices many steps of one estimate), that is
    [price_low x e^-q, price_high x e^q]: an estimate's prices come from another run than the one it
    would be judged by, so their spread is not in the scores.  Every interval an estimate shows comes
    from here: the CLI's, the chapters', the closing chapter's, the machines' table's, the page's
    (which applies the exported q the same way) and the ledger's (whose rows carry no price spread)."""
    m = margin if margin is not None else estimate_margin(scheme, machine, options, group=group, records=records,
                                                          scored=scored, level=level, backends=backends)
    lo = value if price_low is None else min(price_low, value)
    hi = value if price_high is None else max(price_high, value)
    if m.spread_floor is not None:     # a validation margin: anchored and widened as a validated step's is
        low, high = m.bounds(value, lo, hi)
    else:
        low, high = interval(lo, m.value)[0], interval(hi, m.value)[1]
    return Prediction(value, low, high, lo, hi, m, level)


def margin_export(m: Margin):
    """A margin as the page reads it (pricing.js ``predicted``): the log ratio q of a plain margin, or
    {"q", "centre", "spread_floor"} of a validation margin (``Margin.bounds``)."""
    if m.spread_floor is None:
        return m.value
    return {"q": m.value, "centre": m.centre, "spread_floor": m.spread_floor}


def margin_words(margins: Margin | Sequence[Margin], level: float = NOMINAL) -> str:
    """The one sentence a table of estimates says of its intervals: of its one margin, or of the margins of
    a table whose rows each have their own (of one kind: each row's scheme and size left out), as ranges.
    Every table's sentence comes from here: the CLI's and the chapters' (``prediction.words``) and the
    closing chapter's (``compare.interval_words``)."""
    ms = [margins] if isinstance(margins, Margin) else list(dict.fromkeys(margins))
    if not ms:
        raise ValueError("margin_words needs at least one margin")
    kinds = {(m.group == "none", m.spread_floor is None) for m in ms}
    if len(kinds) > 1:
        raise ValueError(f"margin_words says one kind of margin at a time, not {len(kinds)}")
    m = ms[0]
    many = len(ms) > 1
    span = lambda values, fmt: (fmt.format(min(values)) if fmt.format(min(values)) == fmt.format(max(values))
                                else f"{fmt.format(min(values))} to {fmt.format(max(values))}")
    evidence = span([x.evidence for x in ms], "{}")
    if m.group == "none":
        return (f"{level:.0%} prediction intervals: no committed evidence gives a model-error margin yet, so each is "
                f"the prices' spread alone (a quick-profile price is its fastest sample, its own low bound: an "
                f"estimate priced with one is its interval's lower end)")
    if m.spread_floor is not None:
        left_out = "each row's own scheme at its size" if many else m.left_out
        return (f"{level:.0%} prediction intervals, made as a validated step's: from the estimate at its prices' low "
                f"bounds, {span([math.expm1(x.centre) for x in ms], '{:+.1%}')} (the model's steady offset) "
                f"{span([x.percent for x in ms], '±{:.1%}')} where the prices do not spread, wider as they do; the "
                f"margin of {evidence} validation checks on this machine, leaving out {left_out}; the estimate itself is "
                f"not moved by the offset, and its interval is stretched to hold it where the offset would leave it outside")
    left_out = "each row's own scheme" if many else m.left_out
    return (f"{level:.0%} prediction intervals: the prices' spread widened by the model's error, "
            f"{span([x.value for x in ms], '×e^±{:.3f}')} ({span([x.percent for x in ms], '±{:.1%}')}), the margin of "
            f"{evidence} predictions of figures published on other machines, leaving out {left_out}")
