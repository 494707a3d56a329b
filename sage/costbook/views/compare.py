"""The schemes side by side: what each costs per operation, what dominates it, what the errata
change, and where one design overtakes another.

Every number here comes from the schemes of the book (``costbook.registry.in_book_order``), through their
public functions with the same measurement files the chapters and the CLI use: the reference file
for this book's machine, each scheme's published file for its seed's machine.  This module names no
scheme: each scheme's ``comparison.py`` builds its rows (``rows(reference)``) with the helpers here,
and its ``manifest.py`` gives its title and chapter (``CHAPTERS``).  What a scheme's comparison module
lists in ``EXPORTS`` (its sizes, its own tables) is reachable here too, as ``compare.<name>``, for
the closing chapter.  The functions return plain data (dataclasses, dicts, floats); the closing
chapter formats them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from ..prices import measurements
from ..calibration import prediction, uncertainty
from .. import registry

#: the labels of what a seed-machine number is (the ledger's vocabulary)
PREDICTED = "predicted"
FITTED = "fitted in-sample"
LEAVE_ONE_OUT = "leave-one-out"
COMPUTED = "computed"
AS_PRINTED = "as printed"


def chapters() -> dict:
    """{scheme: (its name for a reader, its chapter's section id)} in the book's order (manifests)."""
    return {s: (registry.manifest(s).TITLE, registry.manifest(s).SECTION) for s in registry.in_book_order()}


def rows_builders() -> dict:
    """{scheme: its comparison module's rows(reference)} in the book's order."""
    return {s: registry.comparison(s).rows for s in registry.in_book_order()}


def __getattr__(name):
    """CHAPTERS and ROWS (read at each use, so a scheme added to the package counts at once), and
    the names the schemes' comparison modules export (EXPORTS)."""
    if name == "CHAPTERS":
        return chapters()
    if name == "ROWS":
        return rows_builders()
    if not name.startswith("_"):
        for s in registry.in_book_order():
            module = registry.comparison(s)
            if name in getattr(module, "EXPORTS", ()):
                return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r} (nor does any scheme's "
                         f"comparison module export it)")


# ---------------------------------------------------------------------------
# Shares of the total per primitive key

@dataclass(frozen=True)
class Share:
    key: str
    seconds: float
    share: float


def shares(breakdown: Sequence[dict]) -> tuple:
    """Per primitive key, its seconds and share of the total, largest first, from priced
    breakdown lines ({"key", "seconds", ...}); the same key in several lines is summed."""
    by_key: dict = {}
    for line in breakdown:
        by_key[line["key"]] = by_key.get(line["key"], 0.0) + line["seconds"]
    total = sum(by_key.values())
    if total <= 0:
        raise ValueError("a breakdown with no cost has no shares")
    return tuple(Share(k, s, s / total) for k, s in sorted(by_key.items(), key=lambda kv: (-kv[1], kv[0])))


def lines_of(estimate) -> list:
    """The breakdown lines of a costbook.prices.cost.Estimate, as dicts."""
    return estimate.to_dict()["breakdown"]


# ---------------------------------------------------------------------------
# One row per (scheme, operation)

@dataclass(frozen=True)
class OperationCost:
    scheme: str                   # registry name
    operation: str                # what is done, in words
    size: str                     # at which size (the seed's benchmark)
    reference_s: float            # priced with the reference file (native backends)
    reference_shares: tuple       # Share, largest first
    reference_backends: tuple     # which backends priced it
    seed_s: float                 # on the seed's machine (see seed_kind)
    seed_kind: str                # PREDICTED, FITTED or LEAVE_ONE_OUT
    seed_shares: tuple            # Share on the seed's machine (of the in-sample fit where it is leave-one-out)
    seed_machine: str
    printed_s: float | None = None    # the seed's own measurement of the same operation, if it has one
    # the intervals (every price at its low, then at its high bound; leave-one-out sums
    # take the calibrated prices' bounds over the refits); the seed's is None where the figure has none
    reference_low_s: float | None = None
    reference_high_s: float | None = None
    seed_low_s: float | None = None
    seed_high_s: float | None = None
    printed: str | None = None        # printed_s as the seed prints it ("64.278 µs", "500 s")
    options: dict | None = None       # the scheme's options it is priced at (its size: what its interval leaves out)
    # the prediction intervals (``predict``: ``uncertainty.prediction_interval`` of the price intervals
    # above, on each machine); the seed's only where its figure is out of sample (predicted, leave-one-out)
    reference_predicted_low_s: float | None = None
    reference_predicted_high_s: float | None = None
    seed_predicted_low_s: float | None = None
    seed_predicted_high_s: float | None = None
    reference_margin: uncertainty.Margin | None = None      # the margins those intervals were widened by
    seed_margin: uncertainty.Margin | None = None

    @property
    def dominant(self) -> Share:
        return self.reference_shares[0]

    @property
    def seed_dominant(self) -> Share:
        return self.seed_shares[0]


def bounds(prefix: str, *intervals) -> dict:
    """{prefix_low_s, prefix_high_s}: the sums of the low and high bounds of some estimate dicts
    ({"low_s", "high_s"}), the bounds of their total."""
    return {f"{prefix}_low_s": sum(i["low_s"] for i in intervals),
            f"{prefix}_high_s": sum(i["high_s"] for i in intervals)}


def backends_of(breakdown) -> tuple:
    return tuple(dict.fromkeys(line["backend"] for line in breakdown))


def published_source(scheme: str) -> measurements.MeasurementSet:
    """The scheme's published measurement file: what `--source published` means for it."""
    return measurements.load_source(f"published/{registry.model(scheme).PUBLISHED}")


def predicted(scheme: str, mset: measurements.MeasurementSet, seconds: float, low: float | None = None,
              high: float | None = None, options: dict | None = None) -> uncertainty.Prediction:
    """The prediction interval of a time of `scheme` at `options` (over its defaults) priced with `mset`,
    whose price interval is [low, high]: ``uncertainty.prediction_interval``, for the closing chapter's
    tables and figures."""
    return uncertainty.prediction_interval(scheme, uncertainty.machine_of(mset), seconds, low, high,
                                           options=prediction.with_defaults(registry.model(scheme), options or {}))


def predict(row: OperationCost, reference: measurements.MeasurementSet) -> OperationCost:
    """`row` with its prediction intervals (``predicted``): on `reference` (the machine its reference_s
    was priced with) and on the seed's machine, where its figure is out of sample (an in-sample fit is no
    prediction)."""
    ref = predicted(row.scheme, reference, row.reference_s, row.reference_low_s, row.reference_high_s, row.options)
    out = replace(row, reference_predicted_low_s=ref.low, reference_predicted_high_s=ref.high,
                  reference_margin=ref.margin)
    if row.seed_kind in (PREDICTED, LEAVE_ONE_OUT) and row.seed_low_s is not None:
        seed = predicted(row.scheme, published_source(row.scheme), row.seed_s, row.seed_low_s, row.seed_high_s,
                         row.options)
        out = replace(out, seed_predicted_low_s=seed.low, seed_predicted_high_s=seed.high, seed_margin=seed.margin)
    return out


def operation_costs(reference: measurements.MeasurementSet | None = None) -> list:
    """OperationCost rows for every discovered scheme, in the book's order, priced with `reference`
    (default: the committed reference file) and on the seed's machine, with their prediction intervals."""
    reference = reference or measurements.load_source("reference")
    return [predict(row, reference) for rows in rows_builders().values() for row in rows(reference)]


def interval_words(rows: Sequence[OperationCost]) -> str:
    """What the intervals of the rows are, said once for a table: ``uncertainty.margin_words`` of the
    rows' margins on the reference machine, then of those on the seeds' machines."""
    ref = [r.reference_margin for r in rows if r.reference_margin is not None]
    seed = [r.seed_margin for r in rows if r.seed_margin is not None]
    text = f"On the reference machine, {uncertainty.margin_words(ref)}."
    if seed:
        text += f" On the seeds' machines, {uncertainty.margin_words(seed)}."
    return text


def seed_prices_without_spread() -> dict:
    """{scheme: {key: why}}: the prices on the seed's machine, among those the rows of
    ``operation_costs`` use, that have no stated spread (they enter both bounds at their value); a
    scheme whose seed-machine prices all have a spread is absent."""
    out = {s: registry.comparison(s).prices_without_spread() for s in registry.in_book_order()}
    return {scheme: dict(sorted(keys.items())) for scheme, keys in out.items() if keys}


# ---------------------------------------------------------------------------
# Crossovers

def first_crossing(f: Callable[[int], float], g: Callable[[int], float], lo: int, hi: int) -> int | None:
    """The smallest integer x in [lo, hi] with f(x) > g(x), by bisection; None if f(hi) <= g(hi).

    Assumes one crossing (f - g changes sign at most once, from <= 0 to > 0), which holds for the
    monotone cost curves compared here; the tests check the answer against both neighbours."""
    if lo > hi:
        raise ValueError(f"empty range [{lo}, {hi}]")
    if f(lo) > g(lo):
        return lo
    if f(hi) <= g(hi):
        return None
    while hi - lo > 1:                  # invariant: f(lo) <= g(lo), f(hi) > g(hi)
        mid = (lo + hi) // 2
        if f(mid) > g(mid):
            hi = mid
        else:
            lo = mid
    return hi
