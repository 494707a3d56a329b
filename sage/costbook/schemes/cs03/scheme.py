r"""The Camenisch–Shoup encryption scheme (CS03, Section 3.2), written out in Sage.

Notation: [a] = {0, ..., floor(a) - 1}; L = |n| is the bit length of n.

Key generation.  n = pq with p = 2p'+1, q = 2q'+1 safe primes, n' = p'q';
g = g'^{2n} mod n^2 for a random g' in Z*_{n^2} (so g generates the subgroup of
2n-th powers, of order n'); x1, x2, x3 random in [n^2/4]; y_i = g^{x_i};
h = 1 + n, of order n; a hash H_hk : {0,1}* -> [2^{k_H}] with a public key hk.

Encryption of m in [n] with label lab:

    r  <- [n/4]
    u  = g^r,   e = y1^r h^m,   v = abs((y2 y3^{H(u, e, lab)})^r)        (mod n^2)

Decryption checks that v was built from u, e and the label (what makes the scheme
CCA-secure), then recovers m from e / u^{x1}: the steps are in ``decrypt``.

Every exponentiation goes through ``Ring.power``, which tallies the key
``modexp/<modulus bits>/<exponent bits>`` (modulus bits rounded up to whole
64-bit words, exponent bits exact), so running the code counts its cost.
"""
from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass

from sage.all__sagemath_modules import Integer, IntegerModRing

from ...prices.counting import tally
from ...groups import checks
from ...prices.keys import modexp_key
from ...groups.rsa import random_safe_prime, require_safe_prime

#: Below this, factoring n is within reach of public records (RSA-250, 829 bits, 2020) plus margin.
MIN_MODULUS_BITS = 2048
#: The length of the hash H_hk in bits (the seed's k_H).
HASH_BITS = 256


class DecryptionError(ValueError):
    """A ciphertext that decryption rejects, with the check that failed."""


def nominal_bits(modulus: int) -> int:
    """The modulus size used in price keys: its bit length rounded up to whole 64-bit words.

    n^2 for a 4096-bit n may have 8191 bits; it costs what an 8192-bit modulus
    costs, because multi-precision arithmetic works on whole words.
    """
    return -(-int(modulus).bit_length() // 64) * 64


class Ring:
    """Z_M, whose exponentiations are tallied as modexp/<nominal bits of M>/<|e| bits>."""

    def __init__(self, modulus: int):
        self.modulus = Integer(modulus)
        self.bits = nominal_bits(modulus)
        self.Z = IntegerModRing(self.modulus)

    def __call__(self, x):
        return self.Z(x)

    def power(self, x, e):
        """x^e in Z_M; a negative e inverts x (x must be a unit)."""
        e = Integer(e)
        if e == 0:
            return self.Z(1)
        tally(modexp_key(self.bits, int(abs(e).nbits())))
        return self.Z(x) ** e


def abs_mod(a: int, M: int) -> int:
    """abs(a) = M - a if a > M/2 else a: the representative of {a, -a} in [0, M/2]."""
    a = int(a) % M
    return M - a if a > M // 2 else a


def _fixed_bytes(x: int, modulus: int) -> bytes:
    return int(x).to_bytes((int(modulus).bit_length() + 7) // 8, "big")


def length_prefixed(*parts: bytes) -> bytes:
    """An injective encoding of a tuple of byte strings (8-byte big-endian length before each)."""
    return b"".join(len(p).to_bytes(8, "big") + p for p in parts)


@dataclass(frozen=True)
class PublicKey:
    n: int
    g: int
    y1: int
    y2: int
    y3: int
    hash_key: bytes      # hk, the key of the hash family

    @property
    def n2(self) -> int:
        return self.n * self.n

    @property
    def bits(self) -> int:
        """L = |n| as used in price keys (whole words)."""
        return nominal_bits(self.n)

    @property
    def ring(self) -> Ring:
        return Ring(self.n2)

    def hash(self, u: int, e: int, label: bytes) -> int:
        """H_hk(u, e, label) in [2^HASH_BITS]: SHA-256 keyed by hk over an injective encoding."""
        data = length_prefixed(b"CS03 H_hk", self.hash_key, _fixed_bytes(u, self.n2),
                               _fixed_bytes(e, self.n2), label_bytes(label))
        return int.from_bytes(hashlib.sha256(data).digest(), "big") >> (256 - HASH_BITS)

    def to_json(self) -> dict:
        return {"n": hex(self.n), "g": hex(self.g), "y1": hex(self.y1), "y2": hex(self.y2),
                "y3": hex(self.y3), "hash_key": self.hash_key.hex()}

    @classmethod
    def from_json(cls, d: dict) -> "PublicKey":
        return cls(*(int(d[f], 16) for f in ("n", "g", "y1", "y2", "y3")), bytes.fromhex(d["hash_key"]))


@dataclass(frozen=True)
class SecretKey:
    pk: PublicKey
    p: int
    q: int
    x1: int
    x2: int
    x3: int

    def to_json(self) -> dict:
        return {"public": self.pk.to_json(), "p": hex(self.p), "q": hex(self.q),
                "x1": hex(self.x1), "x2": hex(self.x2), "x3": hex(self.x3)}

    @classmethod
    def from_json(cls, d: dict) -> "SecretKey":
        return cls(PublicKey.from_json(d["public"]), *(int(d[f], 16) for f in ("p", "q", "x1", "x2", "x3")))


@dataclass(frozen=True)
class Ciphertext:
    u: int
    e: int
    v: int

    def to_bytes(self, pk: PublicKey) -> bytes:
        """Three elements of Z_{n^2}, fixed length: |C| = 3 * ceil(|n^2| / 8) bytes."""
        return b"".join(_fixed_bytes(x, pk.n2) for x in (self.u, self.e, self.v))


@dataclass(frozen=True)
class EncryptionWitness:
    """What the encryptor keeps for the proof: the message, r, and y^ = y2 y3^H."""
    m: int
    r: int
    yhat: int


def keygen_from_primes(p: int, q: int, rng: random.Random | None = None,
                       hash_key: bytes | None = None) -> SecretKey:
    """The CS03 key pair for n = pq, given the safe primes (checked)."""
    require_safe_prime(p, "p")
    require_safe_prime(q, "q")
    if p == q:
        raise ValueError("p and q must be distinct safe primes")
    n = p * q
    if n.bit_length() < MIN_MODULUS_BITS:
        raise ValueError(f"modulus n has {n.bit_length()} bits; CS03 needs at least "
                         f"{MIN_MODULUS_BITS} (3072 for 128-bit security)")
    rng = rng if rng is not None else random.SystemRandom()
    n2 = n * n
    R = Ring(n2)
    while True:                                   # g' in Z*_{n^2}
        g_prime = rng.randrange(2, n2)
        if math.gcd(g_prime, n) == 1:
            break
    g = R.power(g_prime, 2 * n)
    if g == 1:                                   # probability ~1/n'; but never ship a trivial g
        return keygen_from_primes(p, q, rng, hash_key)
    xs = [rng.randrange(0, n2 // 4) for _ in range(3)]
    ys = [int(R.power(g, x)) for x in xs]
    hk = hash_key if hash_key is not None else rng.getrandbits(256).to_bytes(32, "big")
    return SecretKey(PublicKey(n, int(g), *ys, hk), p, q, *xs)


def keygen(modulus_bits: int, rng: random.Random | None = None) -> SecretKey:
    """A fresh key pair with a `modulus_bits`-bit n = pq (two safe primes of half the size)."""
    if modulus_bits < MIN_MODULUS_BITS or modulus_bits % 2:
        raise ValueError(f"modulus_bits must be even and at least {MIN_MODULUS_BITS}, got {modulus_bits}")
    rng = rng if rng is not None else random.SystemRandom()
    p = random_safe_prime(modulus_bits // 2, rng)
    while (q := random_safe_prime(modulus_bits // 2, rng)) == p:
        pass
    return keygen_from_primes(p, q, rng)


def label_bytes(label) -> bytes:
    """The label as bytes: a bytes, bytearray or memoryview label means the same bytes whichever it is."""
    as_bytes = checks.byte_string(label)
    if as_bytes is None:
        raise TypeError(f"the label must be bytes (or a bytearray), got {type(label).__name__}")
    return as_bytes


def encrypt(pk: PublicKey, m: int, label: bytes = b"", rng: random.Random | None = None):
    """Encrypt m in [n] under label; returns (Ciphertext, EncryptionWitness).

    h^m = (1 + n)^m = 1 + mn mod n^2 (binomial theorem), so it costs a multiplication and no
    exponentiation; abs(a) = n^2 - a if a > n^2/2, else a.
    """
    n, n2 = pk.n, pk.n2
    if not 0 <= int(m) < n:
        raise ValueError(f"message out of range: CS03 encrypts m in [0, n), n of {n.bit_length()} bits")
    rng = rng if rng is not None else random.SystemRandom()
    R = pk.ring
    r = rng.randrange(0, n // 4)
    u = R.power(pk.g, r)
    e = R.power(pk.y1, r) * R(1 + int(m) * n)               # h^m = 1 + mn
    yhat = R(pk.y2) * R.power(pk.y3, pk.hash(int(u), int(e), label))
    v = abs_mod(int(R.power(yhat, r)), n2)
    return Ciphertext(int(u), int(e), v), EncryptionWitness(int(m), r, int(yhat))


def _check_units(pk: PublicKey, C: Ciphertext):
    for name in ("u", "e", "v"):
        x = getattr(C, name)
        if not 0 < x < pk.n2 or math.gcd(x, pk.n) != 1:
            raise DecryptionError(f"{name} is not a unit of Z_(n^2)")
    if abs_mod(C.v, pk.n2) != C.v:
        raise DecryptionError("abs(v) != v: v is not the canonical representative")


def decrypt(sk: SecretKey, C: Ciphertext, label: bytes = b"", crt: bool = False) -> int:
    """The message of C under label, or DecryptionError saying which check failed.

        1. reject unless abs(v) = v and u, e, v are units mod n^2
        2. reject unless u^{2(x2 + H(u, e, lab) x3)} = v^2
        3. m^ = (e / u^{x1})^{2t}  with t = 2^{-1} mod n
        4. if m^ = 1 + mn for some m in [n], output m; else reject

    Step 2 is what makes the scheme CCA-secure: anyone who changes u, e, v or the label
    changes one side of the equation.  Step 3 squares away the sign that abs() and the
    order-2 elements of Z*_{n^2} could carry; 2t = 1 mod n brings h^m back.

    With crt=True every exponentiation is done modulo p^2 and q^2 with the exponent
    reduced modulo p(p-1) and q(q-1) (the orders of Z*_{p^2}, Z*_{q^2}), and the
    results recombined: same answer, moduli and exponents half as long.
    """
    pk = sk.pk
    n = pk.n
    _check_units(pk, C)
    power = _crt_power(sk) if crt else pk.ring.power
    R = pk.ring
    H = pk.hash(C.u, C.e, label)
    if power(C.u, 2 * (sk.x2 + H * sk.x3)) != R(C.v) ** 2:
        raise DecryptionError("u^(2(x2 + H x3)) != v^2: the ciphertext or its label was modified")
    t2 = 2 * pow(2, -1, n)                                   # 2t = 1 mod n
    m_hat = int(power(R(C.e) * power(C.u, -sk.x1), t2))
    if m_hat % n != 1:
        raise DecryptionError("(e / u^x1)^(2t) is not of the form 1 + mn: e was not built from h^m")
    return (m_hat - 1) // n


def _crt_power(sk: SecretKey):
    """x^e mod n^2 computed as x^(e mod p(p-1)) mod p^2 and x^(e mod q(q-1)) mod q^2."""
    p, q = sk.p, sk.q
    Rp, Rq, R = Ring(p * p), Ring(q * q), sk.pk.ring
    lam_p, lam_q = p * (p - 1), q * (q - 1)
    p2_inv = pow(p * p, -1, q * q)

    def power(x, e):
        a = int(Rp.power(int(x) % (p * p), Integer(e) % lam_p))
        b = int(Rq.power(int(x) % (q * q), Integer(e) % lam_q))
        return R(a + p * p * ((b - a) * p2_inv % (q * q)))   # Garner's recombination
    return power
