"""Multi-scalar multiplications and pairing products on BLS12-381 (the vector commitments' keys).

Keys:
    bls12_381/g1_add, bls12_381/g2_add           one point addition (what a term-by-term sum pays per term)
    bls12_381/g1_mul_fixed                        k * P from a precomputed table (sage only: PARI arithmetic)
    bls12_381/g1_msm/<k>, bls12_381/g2_msm/<k>   sum_i k_i P_i over k random points, full scalars
    bls12_381/pairing_product/<k>                 prod_i e(P_i, Q_i): k Miller loops, one final exp.

Backends:
    sage      the book's code (costbook.groups.msm, used by the Pointproofs scheme): bucket-method
              MSM on Sage's points, Miller loops of costbook.groups.pairing_curves
    arkworks  py-arkworks-bls12381: ``G1Point.multiexp_unchecked`` / ``G2Point.multiexp_unchecked``
              (arkworks' variable-base MSM) and ``GT.multi_pairing``
"""
from __future__ import annotations

import random

from . import BackendUnavailable, require
from ...groups import orders
from ..harness import Benchmark
from ...prices.keys import sizes

G1_TERMS = (16, 64, 256, 1024)
G2_TERMS = (1, 2, 4, 8, 16)
PAIRS = (2, 3)
R = orders.BLS12_381


def _scalars(tag: str, k: int) -> list:
    rng = random.Random(f"vectorcommit/{tag}/{k}")
    return [rng.randrange(1, R) for _ in range(k)]


def _sage(group: str, k: int):
    from ...groups.msm import pippenger
    from ...groups.pairing_curves import BLS12_381 as C
    base = C.G1 if group == "g1" else C.G2
    # k distinct points from k scalar multiples of the generator (setup, untimed)
    points = [int(s) * base for s in _scalars(f"{group}/points", k)]
    ks = _scalars(f"{group}/scalars", k)
    zero = C.E1(0) if group == "g1" else C.E2(0)
    return lambda: pippenger(points, ks, zero, C.r)


def _sage_pairs(k: int):
    from ...groups.msm import pairing_product
    from ...groups.pairing_curves import BLS12_381 as C
    s = _scalars("pairs", 2 * k)
    pairs = [(int(s[2 * i]) * C.G1, int(s[2 * i + 1]) * C.G2) for i in range(k)]
    return lambda: pairing_product(pairs, C)


def _ark():
    return require("py_arkworks_bls12381", "py-arkworks-bls12381")


def _arkworks(group: str, k: int):
    ark = _ark()
    cls = ark.G1Point if group == "g1" else ark.G2Point
    points = [cls() * ark.Scalar(s) for s in _scalars(f"{group}/points", k)]
    ks = [ark.Scalar(s) for s in _scalars(f"{group}/scalars", k)]
    return lambda: cls.multiexp_unchecked(points, ks)


def _arkworks_pairs(k: int):
    ark = _ark()
    s = _scalars("pairs", 2 * k)
    g1 = [ark.G1Point() * ark.Scalar(s[2 * i]) for i in range(k)]
    g2 = [ark.G2Point() * ark.Scalar(s[2 * i + 1]) for i in range(k)]
    return lambda: ark.GT.multi_pairing(g1, g2)


def _sage_add(group: str):
    from ...groups.pairing_curves import BLS12_381 as C
    base = C.G1 if group == "g1" else C.G2
    P, Q = (int(s) * base for s in _scalars(f"{group}/add", 2))
    return lambda: P + Q


def _sage_fixed():
    from ...groups.msm import FixedBaseTable
    from ...groups.pairing_curves import BLS12_381 as C
    P = int(_scalars("fixed/point", 1)[0]) * C.G1
    table = FixedBaseTable(P, curve=C)                # setup: about 8000 additions, untimed
    k = _scalars("fixed/scalar", 1)[0]
    return lambda: table.walk(k)                      # the table walk alone, as the key means


def _arkworks_add(group: str):
    ark = _ark()
    cls = ark.G1Point if group == "g1" else ark.G2Point
    P, Q = (cls() * ark.Scalar(s) for s in _scalars(f"{group}/add", 2))
    return lambda: P + Q


MAKERS = {"sage": (_sage, _sage_pairs, _sage_add), "arkworks": (_arkworks, _arkworks_pairs, _arkworks_add)}


def benchmark(key: str, backend: str) -> Benchmark:
    """The benchmark of any bls12_381 g1_add / g2_add / g1_msm / g2_msm / pairing_product key."""
    if backend not in MAKERS:
        raise LookupError(f"no MSM / pairing-product backend {backend!r} (have: {', '.join(MAKERS)})")
    s = sizes(key)
    msm, pairs, add = MAKERS[backend]
    if key.endswith("_add"):
        return Benchmark(key, backend, lambda: add(s["group"]))
    if key.endswith("/g1_mul_fixed"):
        if backend != "sage":
            raise LookupError(f"no fixed-base table in backend {backend!r} (none of the bindings exposes one)")
        return Benchmark(key, backend, _sage_fixed)
    if "pairs" in s:
        return Benchmark(key, backend, lambda: pairs(s["pairs"]))
    return Benchmark(key, backend, lambda: msm(s["group"], s["terms"]))


def benchmarks() -> list:
    keys = (["bls12_381/g1_add", "bls12_381/g2_add"] + [f"bls12_381/g1_msm/{k}" for k in G1_TERMS] + [f"bls12_381/g2_msm/{k}" for k in G2_TERMS]
            + [f"bls12_381/pairing_product/{k}" for k in PAIRS])
    out = [benchmark(k, "sage") for k in keys + ["bls12_381/g1_mul_fixed"]]
    try:
        _ark()
        out += [benchmark(k, "arkworks") for k in keys]
    except BackendUnavailable:
        pass
    return out
