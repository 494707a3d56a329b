"""The vector commitments in the comparison chapter: their rows (``rows``), their seed-machine
prices without a spread, and where Merkle overtakes Pointproofs; ``EXPORTS`` are also reachable as
``costbook.views.compare.<name>``."""
from __future__ import annotations

from costbook.prices import measurements
from costbook.views.compare import (FITTED, PREDICTED, OperationCost, bounds, first_crossing, published_source,
    shares, backends_of)
from costbook.schemes import get

NAME = "veccom"
VECCOM_N = 1000             # the vector length of the seed's Merkle benchmark and of its "270n"
#: the seed's Mac's prices are solved from these three benchmarks (``model.seed_machine_prices``),
#: so pricing them again is a fit, not a prediction
VECCOM_FITTED_OPS = frozenset({"pointproofs/commit", "pointproofs/verify", "merkle/commit"})

EXPORTS = ("VECCOM_N", "VECCOM_FITTED_OPS", "veccom_crossovers")


def rows(reference) -> list:
    model = get(NAME)
    ref = model.estimate(reference, n=VECCOM_N)
    pub = model.estimate(published_source(NAME), n=VECCOM_N)
    out = []
    for op in ("pointproofs/commit", "pointproofs/prove", "pointproofs/verify", "merkle/commit", "merkle/verify"):
        r, p = ref["ops"][op]["breakdown"], pub["ops"][op]["breakdown"]
        scheme, what = op.split("/")
        bench_s, bench_n = model.bench(scheme, what)
        out.append(OperationCost(NAME, model.op_words(scheme, what), f"n = {VECCOM_N:,}", ref["ops"][op]["seconds"],
                                 shares(r), backends_of(r), pub["ops"][op]["seconds"],
                                 FITTED if op in VECCOM_FITTED_OPS else PREDICTED, shares(p), "the seed's Mac",
                                 bench_s if bench_n == VECCOM_N else None,
                                 **bounds("reference", ref["ops"][op]), **bounds("seed", pub["ops"][op]),
                                 printed=model.bench_printed(scheme, what) if bench_n == VECCOM_N else None,
                                 options={"n": VECCOM_N}))
    return out


def prices_without_spread() -> dict:
    """{key: why} of the seed-machine prices the rows use that have no stated spread."""
    return get(NAME).estimate(published_source(NAME), n=VECCOM_N)["prices_without_spread"]


def veccom_crossovers(reference: measurements.MeasurementSet | None = None) -> dict:
    """Merkle against Pointproofs in n: the first n where a Merkle proof is larger; the verify
    times at both ends of the model's range of n (and the first n where Merkle's is larger, if any)."""
    reference = reference or measurements.load_source("reference")
    model = get(NAME)
    lo, hi = model.OPTIONS["n"][1].low, model.OPTIONS["n"][1].high
    size = lambda scheme: (lambda n: model.sizes(n)[scheme]["proof"])

    def verify(scheme, source):
        return lambda n: model.estimate(source, n=n)["ops"][f"{scheme}/verify"]["seconds"]

    out = {"n_low": lo, "n_high": hi,
           "proof_size_n": first_crossing(size("merkle"), size("pointproofs"), lo, hi),
           "proof_bytes": {n: {s: model.sizes(n)[s]["proof"] for s in ("merkle", "pointproofs")} for n in (lo, hi)}}
    for name, src in (("reference", reference), ("seed", published_source(NAME))):
        out[f"{name}_verify_s"] = {n: {s: verify(s, src)(n) for s in ("merkle", "pointproofs")} for n in (lo, hi)}
        out[f"{name}_verify_n"] = first_crossing(verify("merkle", src), verify("pointproofs", src), lo, hi)
    return out
