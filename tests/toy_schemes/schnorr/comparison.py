"""The toy Schnorr scheme in the comparison chapter: one row per signature operation."""
from __future__ import annotations

from costbook.prices import measurements
from costbook.views.compare import PREDICTED, OperationCost, backends_of, bounds, published_source, shares

from . import model, seed

EXPORTS = ()


def rows(reference) -> list:
    ref = model.estimate(reference, messages=1)
    pub = model.estimate(published_source(model.NAME), messages=1)
    out = []
    for step in ("sign", "verify"):
        r, p = ref["steps"][step]["breakdown"], pub["steps"][step]["breakdown"]
        value, unit, _ = seed.STATED[step]
        out.append(OperationCost(model.NAME, step, "one signature", ref["steps"][step]["seconds"], shares(r),
                                 backends_of(r), pub["steps"][step]["seconds"], PREDICTED, shares(p),
                                 "the toy laptop", value * measurements.UNITS[unit],
                                 **bounds("reference", ref["steps"][step]), **bounds("seed", pub["steps"][step])))
    return out


def prices_without_spread() -> dict:
    """The note states SHA-512 as one number."""
    return {"sha512/64B": "the toy note states one number"}
