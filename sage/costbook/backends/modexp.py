"""Modular exponentiation b^e mod N in four backends.

Keys ``modexp/<modulus bits>/<exponent bits>``.  The modulus is a random odd
number with its top bit set (the cost of Montgomery-style powering depends on
the size of N, not on its factorisation), the exponent has exactly the stated
number of bits, and the base is a random residue.  Inputs are fixed by a seed
so that two runs time the same numbers.

Backends:
    sage      ``Mod(b, N)^e`` on Sage's IntegerModRing elements (GMP's mpz_powm underneath,
              plus Sage's object layer)
    pari      ``Mod(b, N)^e`` in PARI/GP through cypari2 (PARI's own powering on GMP's mpn kernel)
    gmp       ``gmpy2.powmod``: GMP's mpz_powm (sliding window, not constant time)
    gmp-sec   ``gmpy2.powmod_sec``: GMP's mpz_powm_sec (constant time, fixed window)
"""
from __future__ import annotations

import random

from ..harness import Benchmark
from ..keys import modexp_key, sizes

MODULUS_BITS = (2048, 3072, 4096, 6144, 8192)


def exponent_bits_for(modulus_bits: int) -> tuple:
    """256, 512, half and full: the exponent sizes the cost models use."""
    return tuple(sorted({256, 512, modulus_bits // 2, modulus_bits}))


def operands(modulus_bits: int, exponent_bits: int, seed: int = 2003):
    rng = random.Random(f"modexp/{modulus_bits}/{exponent_bits}/{seed}")
    n = rng.getrandbits(modulus_bits) | (1 << (modulus_bits - 1)) | 1
    e = rng.getrandbits(exponent_bits) | (1 << (exponent_bits - 1))
    b = rng.randrange(2, n - 1)
    return b, e, n


def _sage(b, e, n):
    from sage.all__sagemath_modules import Integer, IntegerModRing
    x, k = IntegerModRing(Integer(n))(b), Integer(e)
    return lambda: x ** k


def _pari(b, e, n):
    from sage.libs.pari import pari
    x, k = pari.Mod(b, n), pari(e)
    return lambda: x ** k


def _gmp(b, e, n):
    import gmpy2
    x, k, m = gmpy2.mpz(b), gmpy2.mpz(e), gmpy2.mpz(n)
    return lambda: gmpy2.powmod(x, k, m)


def _gmp_sec(b, e, n):
    import gmpy2
    x, k, m = gmpy2.mpz(b), gmpy2.mpz(e), gmpy2.mpz(n)
    return lambda: gmpy2.powmod_sec(x, k, m)


BACKENDS = {"gmp": _gmp, "gmp-sec": _gmp_sec, "sage": _sage, "pari": _pari}


def powmod(backend: str, b: int, e: int, n: int) -> int:
    """One exponentiation in the named backend, as a Python int (for cross-checks)."""
    return int(BACKENDS[backend](b, e, n)())


def benchmark(key: str, backend: str) -> Benchmark:
    """The benchmark of any modexp/<M>/<E> key, measured sizes or not."""
    if backend not in BACKENDS:
        raise LookupError(f"no modexp backend {backend!r} (have: {', '.join(BACKENDS)})")
    s = sizes(key)
    ops = operands(s["mod"], s["exp"])
    make = BACKENDS[backend]
    return Benchmark(key, backend, lambda: make(*ops))


def modmul_benchmark(key: str, backend: str = "gmp") -> Benchmark:
    """One product a*b mod N (``modmul/<M>``), gmpy2 only: the step of a table-based encryption."""
    if backend != "gmp":
        raise LookupError(f"modmul is measured in backend 'gmp' only, not {backend!r}")
    b, e, n = operands(sizes(key)["mod"], sizes(key)["mod"])

    def make():
        import gmpy2
        x, y, m = gmpy2.mpz(b), gmpy2.mpz(e % n), gmpy2.mpz(n)
        return lambda: x * y % m
    return Benchmark(key, backend, make)


#: moduli of the products measured by default: N^2 of the traceable mixnets' threshold Paillier
MODMUL_BITS = (4099,)

#: (modulus, exponent) bits that a scheme uses as such, measured in gmp so that its prices are not
#: derived: the traceable mixnets' Paillier moduli N^2 (4099 bits), N (2050) and N' (2038, whose
#: CRT decryption works mod P^2 and Q^2 of about 2038 bits), with their exponent lengths
SCHEME_SIZES = ((4099, 80), (4099, 82), (4099, 180), (4099, 2130), (4099, 2170), (4099, 4099),
                (2050, 80), (2050, 180), (2038, 441))


def benchmarks() -> list:
    return ([benchmark(modexp_key(mbits, ebits), name)
             for mbits in MODULUS_BITS for ebits in exponent_bits_for(mbits) for name in BACKENDS]
            + [benchmark(modexp_key(mbits, ebits), "gmp") for mbits, ebits in SCHEME_SIZES]
            + [modmul_benchmark(f"modmul/{m}") for m in MODMUL_BITS])
