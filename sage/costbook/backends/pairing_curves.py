"""G1, G2, GT and the pairing of BLS12-381 and BN254 in four backends.

    sage       the book's own code (costbook.groups.pairing_curves): Sage/PARI point arithmetic,
               a plain Miller loop and one plain power for the final exponentiation
    py_ecc     the Ethereum Foundation's pure-Python library (its `optimized_*` modules)
    arkworks   py-arkworks-bls12381 (Rust arkworks through PyO3); BLS12-381 only
    mcl        pymcl (herumi/mcl through pybind11); BLS12-381 only here, BN254 is in mcl_bn254

Scalars are full-size (uniform modulo r, from a fixed seed); GT elements are pairing values.
"""
from __future__ import annotations

import random

from ..groups import orders
from ..harness import Benchmark

R_BLS, R_BN = orders.BLS12_381, orders.BN254


def _scalar(curve: str, r: int) -> int:
    return random.Random(f"pairing-benchmarks/{curve}").randrange(1, r)


def _sage(curve: str):
    from ..groups.pairing_curves import CURVES
    C = CURVES[curve]
    k = _scalar(curve, int(C.r))
    P, Q = C.g1_mul(k), C.g2_mul(k + 1)        # generic points, not the generators
    e = C.pairing(P, Q)
    return {"g1_mul": lambda: C.g1_mul(k, P), "g2_mul": lambda: C.g2_mul(k, Q),
            "gt_exp": lambda: C.gt_exp(e, k), "pairing": lambda: C.pairing(P, Q)}


def _py_ecc(curve: str):
    if curve == "bls12_381":
        import py_ecc.optimized_bls12_381 as m
    else:
        import py_ecc.optimized_bn128 as m
    k = _scalar(curve, m.curve_order)
    P, Q = m.multiply(m.G1, k), m.multiply(m.G2, k + 1)
    e = m.pairing(Q, P)
    return {"g1_mul": lambda: m.multiply(P, k), "g2_mul": lambda: m.multiply(Q, k),
            "gt_exp": lambda: e ** k, "pairing": lambda: m.pairing(Q, P)}


def _arkworks(curve: str):
    import py_arkworks_bls12381 as ark
    k = ark.Scalar(_scalar(curve, R_BLS))
    P, Q = ark.G1Point() * k, ark.G2Point() * k
    return {"g1_mul": lambda: P * k, "g2_mul": lambda: Q * k,
            "pairing": lambda: ark.GT.pairing(P, Q)}        # the binding has no GT exponentiation


def _mcl(curve: str):
    import pymcl
    k = pymcl.Fr(str(_scalar(curve, R_BLS)))
    P, Q = pymcl.g1 * k, pymcl.g2 * k
    e = pymcl.pairing(P, Q)
    short = {b: pymcl.Fr(str((1 << (b - 1)) | 0x5DEECE66D)) for b in SHORT_SCALAR_BITS}
    return {"g1_mul": lambda: P * k, "g2_mul": lambda: Q * k,
            "gt_exp": lambda: e ** k, "pairing": lambda: pymcl.pairing(P, Q),
            **{f"g1_mul/{b}": (lambda s=s: P * s) for b, s in short.items()}}


ALL_OPS = ("g1_mul", "g2_mul", "gt_exp", "pairing")
SHORT_SCALAR_BITS = (80, 180)     # short exponents of the traceable mixnets (batching, shuffle responses)
# backend -> (setup, curves, operations it offers)
SETUPS = {"sage": (_sage, ("bls12_381", "bn254"), ALL_OPS),
          "py_ecc": (_py_ecc, ("bls12_381", "bn254"), ALL_OPS),
          "arkworks": (_arkworks, ("bls12_381",), ("g1_mul", "g2_mul", "pairing")),
          "mcl": (_mcl, ("bls12_381",), ALL_OPS + tuple(f"g1_mul/{b}" for b in SHORT_SCALAR_BITS))}


def _importable(backend: str) -> bool:
    module = {"sage": "sage.all__sagemath_schemes", "py_ecc": "py_ecc",
              "arkworks": "py_arkworks_bls12381", "mcl": "pymcl"}[backend]
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def benchmarks() -> list:
    out = []
    for backend, (setup, curves, ops) in SETUPS.items():
        if not _importable(backend):
            continue
        for curve in curves:
            for op in ops:
                out.append(Benchmark(f"{curve}/{op}", backend,
                                     lambda setup=setup, curve=curve, op=op: setup(curve)[op]))
    return out
