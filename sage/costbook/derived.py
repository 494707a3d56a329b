"""Derived price sets: prices nobody measured directly, built from prices somebody did.

Three kinds, one builder:

* ``scaled``: a machine whose few stated prices anchor the rest, every other price scaled by a
  measured machine's ratio to its anchor (the punch cards' laptop);
* ``implied``: prices solved from a seed's own benchmark totals (the vector commitments' Mac);
* ``calibrated``: prices fitted to many published step times by non-negative least squares
  (the mixnet artifact's Xeon; the punch cards' implied factors), with ``nnls_relative``.

``price_set`` turns {backend: {key: entry}} plus provenance (what it was derived from, how) into a
MeasurementSet and checks it with ``measurements.validate``, so a derived set obeys the same
schema as a file on disk.  ``ratio_source`` is where a derived set's ratios come from when the
caller names no measured set: the committed reference machine, never the environment, so an
estimate from a published source is the same on every machine.
"""
from __future__ import annotations

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


def entry(seconds: float, basis: str, unit: str = "us") -> dict:
    """One derived price in `unit`, with how it was obtained."""
    return {"median": seconds * PER_SECOND[unit], "unit": unit, "basis": basis}


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
