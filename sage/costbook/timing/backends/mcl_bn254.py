"""BN254 in herumi/mcl, through the `mclbn256` wheel (backend ``mcl``).

Caveat on "BN254": mclbn256 is built for mcl's ``BN254`` curve of Nogami et al.
(y^2 = x^3 + 2 over a 254-bit prime), not Ethereum's alt_bn128 (y^2 = x^3 + 3) that
py_ecc and the Sage code of this book use.  Both are Barreto–Naehrig curves with
254-bit fields, 254-bit group orders and embedding degree 12, and their
arithmetic is the same code path in mcl, so the prices are comparable; the
values are not (tests/test_backends_native.py checks which curve it is).
"""
from __future__ import annotations

from . import require
from ..harness import Benchmark

NOGAMI_BN254_P = 0x2523648240000001BA344D80000000086121000000000013A700000000000013


def _lib():
    return require("mclbn256", "mclbn256")          # the wheel is optional on other platforms


def _operands():
    m = _lib()
    a = m.Fr()
    a.setRnd()
    P, Q = m.G1().hash(b"costbook P"), m.G2().hash(b"costbook Q")
    return m, a, P, Q


def _g1():
    m, a, P, Q = _operands()
    return lambda: P.mul(a)


def _g1_add():
    """P + P2 (the group law; homomorphic ElGamal multiplies ciphertexts with it)."""
    m, a, P, Q = _operands()
    P2 = m.G1().hash(b"costbook P2")
    return lambda: P.add(P2)


def _g1_short(bits: int):
    """A variable-base multiplication by a scalar of exactly `bits` bits (mcl's GLV splits a
    full scalar into two halves of about 127 bits, so an 80-bit scalar saves less than 80/254)."""
    m, a, P, Q = _operands()
    k = m.Fr.new_fromstr(str((1 << (bits - 1)) | 0x5DEECE66D).encode(), 10)
    return lambda: P.mul(k)


SHORT_SCALAR_BITS = (80, 180)      # the traceable mixnets' batching weights and shuffle responses


def _g2():
    m, a, P, Q = _operands()
    return lambda: Q.mul(a)


def _pairing():
    m, a, P, Q = _operands()
    return lambda: P.pairing(Q)


def _gt():
    m, a, P, Q = _operands()
    e = P.pairing(Q)
    return lambda: e.pow(a)


NOTE = "mcl's BN254 of Nogami et al. (b = 2), not alt_bn128"


def benchmarks() -> list:
    _lib()
    return [Benchmark("bn254/g1_mul", "mcl", _g1, note=NOTE),
            Benchmark("bn254/g1_add", "mcl", _g1_add, note=NOTE),
            *(Benchmark(f"bn254/g1_mul/{b}", "mcl", lambda b=b: _g1_short(b), note=NOTE) for b in SHORT_SCALAR_BITS),
            Benchmark("bn254/g2_mul", "mcl", _g2, note=NOTE),
            Benchmark("bn254/gt_exp", "mcl", _gt, note=NOTE),
            Benchmark("bn254/pairing", "mcl", _pairing, note=NOTE)]
