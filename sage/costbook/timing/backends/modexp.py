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
from ...prices.keys import exponent_bits_for, modexp_key, sizes

MODULUS_BITS = (2048, 3072, 4096, 6144, 8192)




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


def modexp_fixed_benchmark(key: str, backend: str = "gmp") -> Benchmark:
    """A fixed-base exponentiation from precomputed tables (``modexp_fixed/<M>/<E>/<w>``), gmpy2 only.

    A scheme's tables hold b^(d 2^(w i)) mod N for every w-bit digit d of every block i of an E-bit
    exponent, so a call is one product per block; each call takes a fresh exponent from a pool, so the
    entries it reads are scattered over the whole table (at M = 4099, E = 1025, w = 13: 79 blocks of
    8192 entries, about 350 MB), as a run of many encryptions reads them.  The benchmark's tables hold
    random residues mod N of the same shape instead of those powers: a product of two residues costs
    what their sizes make it cost, not what their values are, and random residues are drawn five times
    as fast as the powers are computed (0.7 s instead of 3.8 s for this table, most of a quick
    measurement's set-up).  The call's result is therefore no power of b; its time is that of one."""
    if backend != "gmp":
        raise LookupError(f"modexp_fixed is measured in backend 'gmp' only, not {backend!r}")
    s = sizes(key)
    mod_bits, exp_bits, w = s["mod"], s["exp"], s["block"]
    if not 1 <= w <= 16:
        raise LookupError(f"{key}: blocks of 1 to 16 bits only (2^w entries per block are kept in memory)")
    b, _, n = operands(mod_bits, mod_bits)
    rng = random.Random(f"{key}/exponents")
    exponents = [rng.getrandbits(exp_bits) | (1 << (exp_bits - 1)) for _ in range(64)]

    def make():
        import gmpy2
        m, mask, blocks = gmpy2.mpz(n), (1 << w) - 1, -(-exp_bits // w)
        draw = gmpy2.random_state(b % (1 << 64))
        tables = [[gmpy2.mpz_urandomb(draw, mod_bits) % m for _ in range(1 << w)] for _ in range(blocks)]
        pool = [gmpy2.mpz(e) for e in exponents]
        state = {"i": 0}

        def call():
            e = pool[state["i"]]
            state["i"] = (state["i"] + 1) % len(pool)
            acc = gmpy2.mpz(1)
            for row in tables:
                acc = acc * row[e & mask] % m
                e >>= w
            return acc
        return call
    return Benchmark(key, backend, make)


def intdiv_benchmark(key: str, backend: str = "gmp") -> Benchmark:
    """Floor division of a <num>-bit integer by a <den>-bit one (``intdiv/<num>/<den>``), gmpy2 only:
    Paillier's L(u) = (u - 1) // N on a residue u mod N^2."""
    if backend != "gmp":
        raise LookupError(f"intdiv is measured in backend 'gmp' only, not {backend!r}")
    s = sizes(key)
    rng = random.Random(f"{key}/operands")
    den = rng.getrandbits(s["den"]) | (1 << (s["den"] - 1)) | 1
    num = rng.getrandbits(s["num"]) | (1 << (s["num"] - 1))

    def make():
        import gmpy2
        u, d = gmpy2.mpz(num), gmpy2.mpz(den)
        return lambda: (u - 1) // d
    return Benchmark(key, backend, make)


#: moduli of the products measured by default: N^2 and N of the traceable mixnets' threshold Paillier
MODMUL_BITS = (4099, 2050)

#: the traceable mixnets' other Paillier operations: encryption's (h^N)^r from 13-bit tables (r of
#: 1025 bits), and the L function of decryption (a residue mod N^2 divided by N)
TABLE_SIZES = ((4099, 1025, 13),)
INTDIV_SIZES = ((4099, 2050),)

#: (modulus, exponent) bits that a scheme uses as such, measured in gmp so that its prices are not
#: derived: the traceable mixnets' Paillier moduli N^2 (4099 bits), N (2050) and N' (2038, whose
#: CRT decryption works mod P^2 and Q^2 of about 2038 bits), with their exponent lengths
SCHEME_SIZES = ((4099, 80), (4099, 82), (4099, 180), (4099, 2130), (4099, 2170), (4099, 4099),
                (2050, 80), (2050, 180), (2038, 441))


def benchmarks() -> list:
    return ([benchmark(modexp_key(mbits, ebits), name)
             for mbits in MODULUS_BITS for ebits in exponent_bits_for(mbits) for name in BACKENDS]
            + [benchmark(modexp_key(mbits, ebits), "gmp") for mbits, ebits in SCHEME_SIZES]
            + [modmul_benchmark(f"modmul/{m}") for m in MODMUL_BITS]
            + [modexp_fixed_benchmark(f"modexp_fixed/{m}/{e}/{w}") for m, e, w in TABLE_SIZES]
            + [intdiv_benchmark(f"intdiv/{a}/{b}") for a, b in INTDIV_SIZES])
