"""Safe primes p = 2p' + 1 (p' prime): the factors of the RSA-type moduli of the schemes.

CS03 needs n = pq with p, q safe primes so that Z*_{n^2} has the subgroup of
2n-th powers of order n' = p'q' with no small factors (its elements are the
only ones the proofs can reason about).  The auxiliary modulus N of the proof
of knowledge is a product of safe primes for the same reason: QR_N is then
cyclic of odd order P'Q', which the strong RSA argument uses.  Threshold
Paillier (the traceable mixnets) needs them so that sharing the secret
exponent works in a group of known structure.

Generation sieves p' and 2p' + 1 together by the small primes, so that only
about one candidate in a hundred reaches a Fermat test, then confirms with
PARI's BPSW test on both p' and p.
"""
from __future__ import annotations

import random

import gmpy2
from sage.libs.pari import pari

# Odd primes below 17400 (3 handled separately by the residue class of the start).
_SIEVE_PRIMES = [int(x) for x in pari("primes(2000)")][2:]

#: the public operations that do not tally, and why no formula prices them (tests/test_groups_tally.py)
UNTALLIED = dict.fromkeys(("is_safe_prime", "require_safe_prime", "random_safe_prime"),
                          "primality tests of key generation and set-up, outside every step a formula prices")


def is_safe_prime(p: int) -> bool:
    """p and (p - 1)/2 both prime (PARI's BPSW test, no known counterexample)."""
    p = int(p)
    return (p > 7 and p % 2 == 1 and bool(pari(p).ispseudoprime())
            and bool(pari((p - 1) // 2).ispseudoprime()))


def require_safe_prime(p: int, name: str) -> int:
    """Return p if it is a safe prime, else raise ValueError naming it."""
    if not is_safe_prime(p):
        why = ("is not prime" if not bool(pari(int(p)).ispseudoprime())
               else "is prime but (p-1)/2 is not, so it is not a safe prime")
        raise ValueError(f"{name} = {int(p)} {why}; a safe prime is p = 2p'+1 with p' prime")
    return int(p)


def random_safe_prime(bits: int, rng: random.Random | None = None, window: int = 1 << 14) -> int:
    """A uniformly chosen `bits`-bit safe prime whose two top bits are set.

    Two top bits set means a product of two such primes has exactly 2*bits bits.
    Candidates are p' = s + 6i with s = 5 mod 6, so that 3 divides neither p'
    nor 2p'+1; a window of them is sieved at once.
    """
    if bits < 16:
        raise ValueError(f"safe prime size must be at least 16 bits, got {bits}")
    rng = rng if rng is not None else random.SystemRandom()
    while True:
        s = rng.getrandbits(bits - 1) | (3 << (bits - 3))      # p' has bits-1 bits, top two set
        s += (5 - s % 6) % 6
        alive = bytearray(b"\x01") * window
        for sp in _SIEVE_PRIMES:
            inv6 = pow(6, -1, sp)
            # p' = s + 6i is 0 mod sp, or 2p' + 1 is 0 mod sp (p' = -1/2 mod sp)
            for target in (0, (sp - 1) * pow(2, -1, sp) % sp):
                i0 = (target - s) * inv6 % sp
                alive[i0::sp] = bytes(len(range(i0, window, sp)))
        for i in range(window):
            if not alive[i]:
                continue
            q = s + 6 * i
            p = 2 * q + 1
            if p.bit_length() != bits:
                break
            # Cheap Fermat tests first; BPSW on both halves to confirm.
            if gmpy2.powmod(2, p - 1, p) != 1 or gmpy2.powmod(2, q - 1, q) != 1:
                continue
            if bool(pari(q).ispseudoprime()) and bool(pari(p).ispseudoprime()):
                return int(p)
