"""Derived price sets: prices nobody measured directly, built from prices somebody did.

Three kinds, one builder:

* ``scaled``: a machine whose few stated prices anchor the rest, every other price scaled by a
  measured machine's ratio to its anchor (the punch cards' laptop);
* ``implied``: prices solved from a seed's own benchmark totals (the vector commitments' Mac);
* ``calibrated``: prices fitted to many published step times by non-negative least squares
  (the mixnet artifact's Xeon; the punch cards' implied factors), with ``nnls_relative``.

``price_set`` turns {backend: {key: entry}} plus provenance (what it was derived from, how) into a
MeasurementSet and checks it with ``measurements.validate``, so a derived set obeys the same
schema as a file on disk.

Every derived price carries bounds (``low``/``high``, which ``MeasurementSet.bounds`` reads), so
an estimate priced with a derived set has an interval like one priced with a measured file: a
scaled price scales the bounds of the price it is scaled from (and the published range of its
anchor); an implied or calibrated price takes the spread its solve or fit gives, each scheme
stating how.  A derived price with no spread says so in its entry (``no_spread``), and its bounds
equal its value.  ``ratio_source`` is where a derived set's ratios come from when the
caller names no measured set: the committed reference machine, never the environment, so an
estimate from a published source is the same on every machine.
"""
from __future__ import annotations

from typing import NamedTuple

from . import measurements

DERIVATIONS = ("scaled", "implied", "calibrated")


def price_set(name: str, results: dict, *, derivation: str, seed: str, title: str, machine: str,
              method: str, derived_from=()) -> measurements.MeasurementSet:
    """A validated in-memory measurement set of kind ``calibrated`` (the schema's kind for prices
    inferred by a stated method).

    results: {backend: {key: {"median", "unit", "basis"}}}, where ``basis`` says how that one price
    was obtained; derivation: one of DERIVATIONS; derived_from: the names of the sets it was built
    from (published files, a measured machine)."""
    if derivation not in DERIVATIONS:
        raise ValueError(f"derivation must be one of {DERIVATIONS}, got {derivation!r}")
    return measurements.validate({
        "schema": measurements.SCHEMA, "name": name, "kind": "calibrated",
        "provenance": {"seed": seed, "title": title, "machine": machine, "method": method,
                       "derivation": derivation, "derived_from": list(derived_from)},
        "results": results})


PER_SECOND = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}


def entry(seconds: float, basis: str, unit: str = "us", low: float | None = None, high: float | None = None,
          no_spread: str | None = None) -> dict:
    """One derived price in `unit`, with how it was obtained and its bounds in seconds.

    Give `low` and `high` (clipped to contain the price, so that ``measurements.validate`` holds
    whatever rounding did), or `no_spread`: why the price has none.  Without bounds the price's
    bounds are its value and the entry says so (``no_spread``), so an estimate can name it."""
    if (low is None) != (high is None):
        raise ValueError("give both bounds of a derived price, or neither")
    scale = PER_SECOND[unit]
    out = {"median": seconds * scale, "unit": unit, "basis": basis}
    if low is None:
        out.update(low=out["median"], high=out["median"], no_spread=no_spread or "its derivation gives no spread")
    else:
        out.update(low=min(low * scale, out["median"]), high=max(high * scale, out["median"]))
    return out


def no_spread(mset: measurements.MeasurementSet, keys) -> dict:
    """{key: why} for the keys among `keys` whose price in `mset` says it has no spread."""
    out = {}
    for b in mset.backends:
        for k in keys:
            if mset.has(b, k) and mset.entry(b, k).get("no_spread") and k not in out:
                out[k] = mset.entry(b, k)["no_spread"]
    return out


def spread_of(fits) -> tuple:
    """(low, high) per unknown over several fits of the same unknowns: each unknown's smallest and
    largest value (e.g. over the leave-one-out refits, the fit's own spread)."""
    fits = [list(f) for f in fits]
    return [min(col) for col in zip(*fits)], [max(col) for col in zip(*fits)]


def ratio_source(native: measurements.MeasurementSet | None = None) -> measurements.MeasurementSet:
    """`native`, or the committed reference machine when none is given."""
    return native if native is not None else measurements.load_source("reference")


def nnls_relative(rows, targets, offsets=None, scale_columns: bool = True) -> list:
    """x >= 0 minimising sum_i ((rows[i] . x + offsets[i] - targets[i]) / targets[i])^2.

    Relative errors, so every target weighs the same whatever its size; `offsets` are the parts
    of each target already priced (not fitted).  With `scale_columns` the columns are scaled to
    unit maximum before the solve, which conditions a fit whose unknowns span orders of magnitude
    (raw prices); unknowns near 1 (correction factors) need none.  A column no row uses stays 0."""
    import numpy as np
    from scipy.optimize import nnls
    A = np.array(rows, dtype=float)
    t = np.array(targets, dtype=float)
    off = np.zeros(len(t)) if offsets is None else np.array(offsets, dtype=float)
    if A.ndim != 2 or A.shape[0] != len(t) or np.any(t <= 0):
        raise ValueError(f"need one row per positive target, got {A.shape} rows and {len(t)} targets")
    scale = np.abs(A).max(axis=0) if scale_columns else np.ones(A.shape[1])
    scale[scale == 0] = 1.0
    x, _ = nnls(A / t[:, None] / scale, (t - off) / t)
    return [float(v) for v in x / scale]


class Pivot(NamedTuple):
    """Why a line's leave-one-out prediction moved: the unknown that moved it most.

    `share` is that unknown's part of the line's in-sample prediction; `elsewhere` its largest part of
    any other fitted line (0 when no other line uses it): a large share here and a small one
    elsewhere mean the line alone pins the unknown, so leaving it out leaves the unknown to terms
    that hardly feel it."""
    name: str
    full: float          # the unknown in the fit to every line
    refit: float         # in the refit without this line
    share: float         # of this line's in-sample prediction, 0..1
    elsewhere: float     # largest share of the unknown in any other fitted line, 0..1

    @property
    def change(self) -> float:
        return self.refit / self.full - 1 if self.full else float("inf")

    @property
    def alone(self) -> bool:
        """Whether the line alone pins the unknown: at least half of the line, at most half as much
        of any other."""
        return self.share >= 0.5 and self.elsewhere <= self.share / 2

    def words(self) -> str:
        """E.g. "without it mu_N +53% (100% of this line, at most 11% of any other: the line alone pins it)"."""
        pct = lambda x: f"{x:.0%}"
        change = ("falls to 0" if self.refit == 0 else "from 0" if not self.full
                  else f"{self.change:+.0%}".replace("-", "\u2212"))
        alone = ": the line alone pins it" if self.alone else ""
        return (f"without it {self.name} {change} ({pct(self.share)} of this line, at most "
                f"{pct(self.elsewhere)} of any other{alone})")


def loo_pivot(rows: dict, line, full: list, refit: list, names: list, offsets: dict | None = None) -> Pivot:
    """The ``Pivot`` of `line` among `rows` ({line: coefficients, one per unknown}; each line predicted
    as offsets[line] + rows[line] . unknowns): the unknown whose change from `full` (the fit to all
    lines) to `refit` (the fit without `line`) moves the line's prediction most."""
    offsets = offsets or {}

    def shares(r, key):
        total = offsets.get(key, 0.0) + sum(a * x for a, x in zip(r, full))
        return [a * x / total if total > 0 else 0.0 for a, x in zip(r, full)]

    row = rows[line]
    moves = [abs(a * (xi - x)) for a, x, xi in zip(row, full, refit)]
    j = max(range(len(names)), key=moves.__getitem__)
    elsewhere = max((shares(r, k)[j] for k, r in rows.items() if k != line), default=0.0)
    return Pivot(names[j], full[j], refit[j], shares(row, line)[j], elsewhere)
