"""CS03 in the comparison chapter: its rows (``rows``), its seed-machine prices without a spread,
and the errata table; ``EXPORTS`` are also reachable as ``costbook.views.compare.<name>``."""
from __future__ import annotations

from costbook.prices import measurements
from costbook.views.compare import PREDICTED, OperationCost, bounds, published_source, shares, backends_of
from costbook.schemes import get

NAME = "cs03"
#: the parameter set the comparison prices
CS03_PARAMS = "conservative"

EXPORTS = ("CS03_PARAMS", "cs03_errata")


def rows(reference) -> list:
    model = get(NAME)
    ref = model.estimate(reference, params=CS03_PARAMS, model="spec")
    pub = model.estimate(published_source(NAME), params=CS03_PARAMS, model="spec")
    size = f"|n| = {ref['n_bits']}"
    out = []
    for what, steps in (("encrypt + prove (P)", ("encrypt", "prove")), ("verify (V)", ("verify",)),
                        ("decrypt", ("decrypt",))):
        r = [line for s in steps for line in ref["steps"][s]["breakdown"]]
        p = [line for s in steps for line in pub["steps"][s]["breakdown"]]
        out.append(OperationCost(NAME, what, size, sum(ref["ms"][s] for s in steps) / 1e3, shares(r), backends_of(r),
                                 sum(pub["ms"][s] for s in steps) / 1e3, PREDICTED, shares(p),
                                 "crypto-bigint prices of the seed",
                                 **bounds("reference", *(ref["steps"][s] for s in steps)),
                                 **bounds("seed", *(pub["steps"][s] for s in steps)),
                                 options={"params": CS03_PARAMS}))
    return out


def prices_without_spread() -> dict:
    """{key: why} of the seed-machine prices the rows use that have no stated spread."""
    return get(NAME).estimate(published_source(NAME), params=CS03_PARAMS, model="spec")["prices_without_spread"]


def cs03_errata(reference: measurements.MeasurementSet | None = None) -> list:
    """Per parameter set and quantity (P, V, decrypt): the seed's counts and the scheme's counts,
    both priced with the seed's crypto-bigint prices and with the reference file (seconds), each with
    its interval ("<src>_<model>_low_s", "..._high_s")."""
    reference = reference or measurements.load_source("reference")
    model = get(NAME)
    pub = published_source(NAME)
    out = []
    for params in model.PARAMETER_SETS:
        est = {(src, mdl): model.estimate(s, params=params, model=mdl)
               for src, s in (("seed", pub), ("reference", reference)) for mdl in ("seed", "spec")}
        for q, steps in (("P = encrypt + prove", ("encrypt", "prove")), ("V = verify", ("verify",)),
                         ("decrypt", ("decrypt",))):
            row = {"params": params, "n_bits": est[("seed", "seed")]["n_bits"], "quantity": q}
            for (src, mdl), e in est.items():
                row[f"{src}_{mdl}_s"] = sum(e["ms"][s] for s in steps) / 1e3
                for bound, b in bounds(f"{src}_{mdl}", *(e["steps"][s] for s in steps)).items():
                    row[bound] = b
            out.append(row)
    return out


