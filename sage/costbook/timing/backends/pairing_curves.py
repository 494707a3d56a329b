"""G1, G2, GT and the pairing of BLS12-381 and BN254 in four backends.

    sage       the book's own code (costbook.groups.pairing_curves): Sage/PARI point arithmetic,
               a plain Miller loop and a final exponentiation split into its easy and hard parts
    py_ecc     the Ethereum Foundation's pure-Python library (its `optimized_*` modules)
    arkworks   py-arkworks-bls12381 (Rust arkworks through PyO3); BLS12-381 only
    mcl        pymcl (herumi/mcl through pybind11); BLS12-381 only here, BN254 is in mcl_bn254

Scalars are full-size (uniform modulo r, from a fixed seed); GT elements are pairing values.

``benchmark(key, backend)`` also serves the operations the traceable mixnets tally besides these,
in the sage backend, at any size: ``<curve>/g1_mul/<bits>`` and ``<curve>/gt_exp/<bits>`` (a short
exponent with its top bit set), ``bn254/g1_add`` and ``bn254/g2_add`` (two generic points added with
Sage's group law), ``<curve>/{g1,g2,gt}_to_bytes`` (``PairingCurve.to_bytes`` of a generic element,
the serialisation the Fiat–Shamir hash uses).  Each call takes the next of a pool of 16 inputs, as
the protocol code meets fresh points and scalars, not one over and over.
"""
from __future__ import annotations

import random

from ...groups import orders
from ..harness import Benchmark
from ...prices.keys import sizes

R_BLS, R_BN = orders.BLS12_381, orders.BN254


def _scalar(curve: str, r: int) -> int:
    return random.Random(f"pairing-benchmarks/{curve}").randrange(1, r)


def _sage(curve: str):
    from ...groups.pairing_curves import CURVES
    C = CURVES[curve]
    k = _scalar(curve, int(C.r))
    P, Q = C.g1_mul(k), C.g2_mul(k + 1)        # generic points, not the generators
    e = C.pairing(P, Q)
    # a multiplication's time depends on its scalar's bits: each call takes the next of a pool of
    # scalars and points (one scalar over and over was a few percent off a protocol's fresh ones)
    rng = random.Random(f"pairing-benchmarks/{curve}/pool")
    ks = [rng.randrange(1, int(C.r)) for _ in range(POOL)]
    g1s, g2s = [(j, C.g1_mul(j, P)) for j in ks], [(j, C.g2_mul(j, Q)) for j in ks]
    return {"g1_mul": _cycling(lambda j, R: C.g1_mul(j, R), g1s[1:] + g1s[:1]),
            "g2_mul": _cycling(lambda j, R: C.g2_mul(j, R), g2s[1:] + g2s[:1]),
            "gt_exp": _cycling(lambda j: C.gt_exp(e, j), [(j,) for j in ks]),
            "pairing": lambda: C.pairing(P, Q)}    # a fixed-length Miller loop: no operand dependence


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
    P2 = pymcl.g1 * pymcl.Fr(str(_scalar(curve, R_BLS) + 1))
    e = pymcl.pairing(P, Q)
    short = {b: pymcl.Fr(str((1 << (b - 1)) | 0x5DEECE66D)) for b in SHORT_SCALAR_BITS}
    return {"g1_mul": lambda: P * k, "g2_mul": lambda: Q * k,
            "gt_exp": lambda: e ** k, "pairing": lambda: pymcl.pairing(P, Q),
            "g1_add": lambda: P + P2, **{f"g1_mul/{b}": (lambda s=s: P * s) for b, s in short.items()}}


ALL_OPS = ("g1_mul", "g2_mul", "gt_exp", "pairing")
SHORT_SCALAR_BITS = (80, 180)     # short exponents of the traceable mixnets (batching, shuffle responses)
# backend -> (setup, curves, operations it offers)
SETUPS = {"sage": (_sage, ("bls12_381", "bn254"), ALL_OPS),
          "py_ecc": (_py_ecc, ("bls12_381", "bn254"), ALL_OPS),
          "arkworks": (_arkworks, ("bls12_381",), ("g1_mul", "g2_mul", "pairing")),
          "mcl": (_mcl, ("bls12_381",), ALL_OPS + ("g1_add",) + tuple(f"g1_mul/{b}" for b in SHORT_SCALAR_BITS))}


POOL = 16      # distinct inputs a sized benchmark cycles through


def _cycling(op, inputs):
    """A callable that applies op to the next of `inputs` at each call."""
    state = {"i": 0}

    def call():
        i = state["i"] = (state["i"] + 1) % len(inputs)
        return op(*inputs[i])
    return call


def _sage_sized(curve: str, op: str, bits: int | None):
    from sage.all__sagemath_schemes import Integer
    from ...groups.pairing_curves import CURVES
    C = CURVES[curve]
    rng = random.Random(f"pairing-benchmarks/{curve}/{op}/{bits}")
    full = lambda: rng.randrange(1, int(C.r))
    short = lambda: Integer(rng.getrandbits(bits) | 1 << (bits - 1))
    g1 = lambda: C.G1 * full()
    g2 = lambda: C.G2 * full()
    gt = lambda: C.final_exponentiation(C.miller_loop(g1(), g2()))       # setup: untallied
    make = {"g1_mul": lambda: ((short(), g1()), lambda k, P: k * P),
            "gt_exp": lambda: ((short(), gt()), lambda k, f: f ** k),
            "g1_add": lambda: ((g1(), g1()), lambda P, Q: P + Q),
            "g2_add": lambda: ((g2(), g2()), lambda P, Q: P + Q),
            "g1_to_bytes": lambda: ((g1(),), C.to_bytes),
            "g2_to_bytes": lambda: ((g2(),), C.to_bytes),
            "gt_to_bytes": lambda: ((gt(),), C.to_bytes)}[op]
    made = [make() for _ in range(POOL)]
    return _cycling(made[0][1], [args for args, _ in made])


def benchmark(key: str, backend: str) -> Benchmark:
    """The benchmark of a short exponentiation, an addition or a serialisation in Sage (see the
    module's docstring)."""
    curve, op = key.split("/")[:2]
    bits = sizes(key).get("bits")
    if backend != "sage":
        raise LookupError(f"no benchmark of {key!r} in backend {backend!r} (these keys: sage only)")
    return Benchmark(key, backend, lambda: _sage_sized(curve, op, bits))


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
    if _importable("sage"):
        # the mixnets' light operations in the book's Sage code, so that a measured file prices the
        # DB-SM steps whole (their short exponents depend on n: validation measures those at the size
        # a step uses; an estimate prices them as full ones and says so)
        out += [benchmark(k, "sage") for k in LIGHT_KEYS]
    return out


#: the light operations `costbook measure` times in Sage (BLS12-381's additions: backends.vectorcommit)
LIGHT_KEYS = ("bn254/g1_add", "bn254/g2_add") + tuple(f"{curve}/{g}_to_bytes" for curve in ("bls12_381", "bn254")
                                                       for g in ("g1", "g2", "gt"))
