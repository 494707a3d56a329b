r"""Threshold Paillier as the artifact uses it (``optthpaillier.py``): Damgård–Jurik–Nielsen, $s = 1$,
the optimised variant of their §4.1, with an m-of-m additive sharing of the decryption exponent.

$N = pq$ with safe primes; public $h_N$ (for encryption), $v$ and the verification keys $v_k$;
secret $d \equiv 0 \pmod{p'q'}$, $d \equiv 1 \pmod N$, shared additively among the m mix-servers
(``keygen``).  $\mathrm{Enc}(M; r) = (1 + MN)\, h_N^{\,r} \bmod N^2$ with a short $r$ (``encrypt``).
Mix-server k's decryption share is $c^{4d_k}$, and the product of the m shares gives $M$
(``combine``).  A batched Chaum–Pedersen proof over the integers shows all of a mix-server's shares
correct at once (``prove_shares``, which also lists where this code deviates from the artifact).
Every exponentiation is tallied at a nominal size (``_pow``); key generation is setup, untallied.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import gmpy2

from ...prices.cost import Counts
from ...prices.counting import tally
from ...prices.keys import modexp_key
from ...groups.rsa import is_safe_prime, random_safe_prime, require_safe_prime
from .elgamal import check_m
from .curves import SYSTEM_RANDOM

KAPPA_E = 80        # bits of the batching weights (and of the shuffle's challenge vector)
KAPPA_C = 80        # bits of a Fiat–Shamir challenge
KAPPA_R = 20        # statistical slack: randomness hides a secret times a challenge up to 2^-20


# ---------------------------------------------------------------------------
# Sizes and the tallied exponentiation

@dataclass(frozen=True)
class Sizes:
    """The bit lengths the priced exponentiations use."""
    kappa: int          # |N|
    n2: int             # |N^2|: the modulus of every priced exponentiation but the FO commitments
    share: int          # nominal |4 d_k| = |4 N p'q' - 1|

    @property
    def r(self) -> int:
        """Bits of the encryption randomness r."""
        return math.ceil(self.kappa / 2)

    @property
    def rho(self) -> int:
        """Bits of the share proof's commitment randomness (and nominal bits of its response)."""
        return self.share - 2 + KAPPA_C + KAPPA_R

    @classmethod
    def of(cls, x) -> "Sizes":
        """Sizes of a PublicKey, a Sizes, or an int |N^2| (then |N| = ceil(|N^2|/2), share = |N^2|)."""
        if isinstance(x, Sizes):
            return x
        if isinstance(x, PublicKey):
            return x.sizes
        if isinstance(x, bool) or not hasattr(x, "__index__") or x < 8:
            raise ValueError(f"sizes: need a PublicKey, a Sizes or the bit length of N^2, got {x!r}")
        return cls(math.ceil(int(x) / 2), int(x), int(x))


def _pow(base: int, exp: int, mod: int, exp_bits: int) -> int:
    r"""base^exp mod `mod`, tallied as modexp/<|mod|>/<exp_bits> (exp_bits: nominal size).

    Every exponentiation of this module goes through here, which tallies
    ``modexp/<|modulus|>/<exponent bits>``.  The modulus bits are the actual bit length of $N^2$
    (or $N$).  Exponent bits are *nominal*: the size of the range the exponent is drawn from
    ($\lceil\kappa/2\rceil$ for $r$, 80 for weights and challenges, 82 for $4\delta_i$, ``share`` bits
    $= |4Np'q'|$ for $4d_k$, $|\rho|$ for $\rho$ and for the response $z$, which exceeds it by one bit
    with probability about $2^{-\kappa_r}$).  So a run's tallies do not depend on the random draws.
    Products mod $N^2$, inverses and hashes are not tallied (negligible next to an exponentiation,
    notes §4.0).  Key generation is setup: untallied.
    """
    if exp < 0:
        raise ValueError("negative exponents are not used here")
    tally(modexp_key(mod.bit_length(), exp_bits))
    return int(gmpy2.powmod(base, exp, mod))


def hash_int(bits: int, tag: str, *items) -> int:
    """Fiat–Shamir: SHA-512 over the tag and length-prefixed items (ints of any size, nested
    lists), truncated to its top `bits` bits (bits <= 512)."""
    def enc(x) -> bytes:
        if isinstance(x, (list, tuple)):
            b = b"L" + b"".join(enc(y) for y in x)
        elif isinstance(x, str):
            b = b"S" + x.encode()
        else:
            x = int(x)
            b = b"I" + x.to_bytes((x.bit_length() + 8) // 8, "big", signed=True)
        return len(b).to_bytes(8, "big") + b
    h = int.from_bytes(hashlib.sha512(enc((tag,) + items)).digest(), "big")
    return h >> (512 - bits)


# ---------------------------------------------------------------------------
# Keys

@dataclass(frozen=True)
class PublicKey:
    N: int
    N2: int
    hN: int             # h^N mod N^2, h = -x^2
    v: int              # a random square mod N^2
    vks: tuple          # v_k = v^{d_k} mod N^2, one per mix-server
    share_bits: int     # |4 N p'q' - 1|: nominal size of the exponent 4 d_k (public: only a length)

    @property
    def m(self) -> int:
        return len(self.vks)

    @property
    def sizes(self) -> Sizes:
        return Sizes(self.N.bit_length(), self.N2.bit_length(), self.share_bits)


def check_primes(p: int, q: int) -> tuple:
    """(p, q) as ints if both are safe primes and distinct, else ValueError saying what is wrong."""
    for name, x in (("p", p), ("q", q)):
        if isinstance(x, bool) or not hasattr(x, "__index__"):
            raise ValueError(f"threshold Paillier: {name} must be an integer, got {x!r}")
        if not is_safe_prime(x):
            try:
                require_safe_prime(x, name)
            except ValueError as e:             # its first clause says which test failed
                why = str(e).split(";")[0]
            raise ValueError(f"threshold Paillier needs N = pq with p, q safe primes: {why}")
    if int(p) == int(q):
        raise ValueError("threshold Paillier needs N = pq with p != q (p = q gives a square N)")
    return int(p), int(q)


def random_unit(N: int, rng) -> int:
    while True:
        x = rng.randrange(2, N)
        if math.gcd(x, N) == 1:
            return x


def keygen(m: int, p: int | None = None, q: int | None = None, bits: int = 1024, rng=SYSTEM_RANDOM):
    r"""(pk, [d_1..d_m]) for m mix-servers; p, q are generated (`bits` each) unless given.

    **Keys.**  $N = pq$ with $p = 2p'+1$, $q = 2q'+1$ safe primes (``cs03.primes``), $p' \ne q'$; safe
    primes above 7 are $3 \bmod 4$, so $-1$ is a non-square of Jacobi symbol $+1$ modulo $N$.  The
    group $\mathbb{Z}^*_{N^2}$ has order $4Np'q'$.  Public:

    * $h = -x^2 \bmod N^2$ for a random unit $x$ (a generator of the Jacobi-$+1$ units, DJN §4.1) and
      $h_N = h^N \bmod N^2$;
    * $v = y^2 \bmod N^2$, a random square, and verification keys $v_k = v^{d_k} \bmod N^2$.

    Secret: $d$ with $d \equiv 0 \pmod{p'q'}$ and $d \equiv 1 \pmod N$ (CRT), shared additively,
    $d = \sum_k d_k \bmod Np'q'$, one share per mix-server.  (The artifact hard-codes its primes; here
    they are given or generated, and checked.)
    """
    check_m(m)
    if p is None or q is None:
        if not (p is None and q is None):
            raise ValueError("threshold Paillier: give both primes p and q, or neither")
        p = random_safe_prime(bits, rng)
        q = random_safe_prime(bits, rng)
        while q == p:
            q = random_safe_prime(bits, rng)
    p, q = check_primes(p, q)
    N, N2, pq_ = p * q, (p * q) ** 2, (p // 2) * (q // 2)
    # d = 0 mod p'q' kills the randomness, d = 1 mod N keeps the message (gcd(N, p'q') = 1)
    d = pq_ * pow(pq_, -1, N)
    order = N * pq_                             # c^4 lies in a group of order dividing N p'q'
    shares = [rng.randrange(order) for _ in range(m - 1)]
    shares.append((d - sum(shares)) % order)
    x = random_unit(N, rng)
    hN = pow((-x * x) % N2, N, N2)              # setup: untallied
    v = pow(random_unit(N, rng), 2, N2)
    vks = tuple(pow(v, dk, N2) for dk in shares)
    return PublicKey(N, N2, hN, v, vks, (4 * order - 1).bit_length()), shares


# ---------------------------------------------------------------------------
# Encryption, homomorphism, threshold decryption

def check_plaintext(pk: PublicKey, M) -> int:
    if isinstance(M, bool) or not hasattr(M, "__index__") or not 0 <= M < pk.N:
        raise ValueError(f"Paillier plaintext must be an integer in [0, N), got {M!r}")
    return int(M)


def is_ciphertext(pk: PublicKey, c) -> bool:
    """c is an integer unit modulo N^2."""
    return not isinstance(c, bool) and hasattr(c, "__index__") and 0 < c < pk.N2 and math.gcd(int(c), pk.N) == 1


def check_ciphertext(pk: PublicKey, c) -> int:
    if not is_ciphertext(pk, c):
        raise ValueError("Paillier ciphertext must be a unit modulo N^2")
    return int(c)


def are_ciphertexts(pk: PublicKey, values) -> bool:
    """What a verifier checks before inverting or hashing values as ciphertexts under pk:
    N2 = N^2, and each value a unit modulo N^2 (else its inverse does not exist)."""
    return pk.N2 == pk.N * pk.N and all(is_ciphertext(pk, c) for c in values)


def encrypt(pk: PublicKey, M, rng=SYSTEM_RANDOM, r: int | None = None):
    r"""(Enc(M; r), r): (1 + MN) h_N^r mod N^2 with r of ceil(kappa/2) bits, drawn unless given.

    **Encryption** of $M \in \mathbb{Z}_N$ with a *short* $r \leftarrow [0, 2^{\lceil\kappa/2\rceil})$,
    $\kappa = |N|$ (DJN §4.1: $h_N$ generates a group of order dividing $p'q'$, so half-length
    randomness suffices):

    $$\mathrm{Enc}(M; r) = (1+N)^M\, h_N^{\,r} = (1 + MN)\, h_N^{\,r} \bmod N^2,$$

    one exponentiation ($(1+N)^M = 1 + MN$ is free).  Homomorphic: $\mathrm{Enc}(M;r)\,\mathrm{Enc}(M';r')
    = \mathrm{Enc}(M+M'; r+r')$; re-encryption multiplies by $\mathrm{Enc}(0; r')$.
    """
    M = check_plaintext(pk, M)
    bits = pk.sizes.r
    r = rng.getrandbits(bits) if r is None else int(r)
    return (1 + M * pk.N) * _pow(pk.hN, r, pk.N2, bits) % pk.N2, r


def add(pk: PublicKey, c1: int, c2: int) -> int:
    """Enc(M1 + M2): the product of the ciphertexts."""
    return c1 * c2 % pk.N2


def reencrypt(pk: PublicKey, c: int, rng=SYSTEM_RANDOM, r: int | None = None):
    """(c · Enc(0; r), r): same plaintext, fresh-looking ciphertext."""
    zero, r = encrypt(pk, 0, rng, r)
    return add(pk, c, zero), r


def share_decrypt(pk: PublicKey, c: int, d_k: int) -> int:
    """Mix-server k's decryption share c^{4 d_k} mod N^2."""
    return _pow(check_ciphertext(pk, c), 4 * d_k, pk.N2, pk.share_bits)


def combine(pk: PublicKey, shares) -> int:
    r"""M = L(prod_k c_k) / 4 mod N from the m shares of one ciphertext.

    **Threshold decryption.**  Mix-server k publishes $c_k = c^{4d_k} \bmod N^2$.  Since
    $4d \equiv 0 \pmod{4p'q'}$ kills the $h_N^r$ part and $4d \equiv 4 \pmod N$,

    $$\prod_k c_k = c^{4d} = (1+N)^{4M} = 1 + 4MN \pmod{N^2},\qquad
    M = L\Big(\prod_k c_k\Big)\cdot 4^{-1} \bmod N,\quad L(x) = (x-1)/N.$$
    """
    if len(shares) != pk.m:
        raise ValueError(f"combine: need all {pk.m} decryption shares, got {len(shares)}")
    x = 1
    for s in shares:
        x = x * s % pk.N2
    if (x - 1) % pk.N:
        raise ValueError("combine: the shares do not multiply to 1 mod N (a share is wrong)")
    return (x - 1) // pk.N * pow(4, -1, pk.N) % pk.N


def threshold_decrypt(pk: PublicKey, c: int, d_shares) -> int:
    """All m share decryptions and the combination (no proofs): for tests and the honest path."""
    return combine(pk, [share_decrypt(pk, c, dk) for dk in d_shares])


# ---------------------------------------------------------------------------
# Batched proof of correct decryption shares

@dataclass(frozen=True)
class ShareProof:
    c: int              # the 80-bit challenge
    z: int              # rho + c d_k, over the integers


def _batch(pk: PublicKey, k: int, cts, shares):
    """(A, B, weights) of the batched statement A = B^{d_k}: 2n + 2 exponentiations."""
    n, N2 = len(cts), pk.N2
    if not cts or len(shares) != n:
        raise ValueError(f"share proof: {n} ciphertexts and {len(shares)} shares (need n >= 1 of each)")
    if isinstance(k, bool) or not hasattr(k, "__index__") or not 0 <= k < pk.m:
        raise ValueError(f"share proof: mix-server index k must be in [0, {pk.m}), got {k!r}")
    # The weights are the verifier's challenge in the artifact; here Fiat–Shamir over the statement.
    seed = hash_int(256, "paillier/share-weights", pk.N, k, pk.vks[k], list(cts), list(shares))
    delta = [hash_int(KAPPA_E, "paillier/weight", seed, i) for i in range(n + 1)]
    A = _pow(pk.vks[k], delta[0], N2, KAPPA_E)
    B = _pow(pk.v, delta[0], N2, KAPPA_E)
    for ci, cik, di in zip(cts, shares, delta[1:]):
        A = A * _pow(cik, di, N2, KAPPA_E) % N2
        B = B * _pow(ci, 4 * di, N2, KAPPA_E + 2) % N2
    return A, B, seed


def prove_shares(pk: PublicKey, k: int, d_k: int, cts, shares, rng=SYSTEM_RANDOM) -> ShareProof:
    r"""Mix-server k proves shares[i] = cts[i]^{4 d_k} for every i, and v_k = v^{d_k}, in one proof.

    **Batched proof of the shares** (``pai_share_decryption_batchpf``).  For ciphertexts
    $c_1..c_n$ and shares $c_{1k}..c_{nk}$, k shows $v_k = v^{d_k} \wedge c_{ik} = (c_i^4)^{d_k}$ for all
    i at once: with weights $\delta_0..\delta_n \in [0, 2^{80})$ (Bellare–Garay–Rabin),

    $$A = v_k^{\delta_0}\prod_i c_{ik}^{\delta_i},\qquad B = v^{\delta_0}\prod_i c_i^{4\delta_i},\qquad
    \mathrm{PK}\{d_k:\ A = B^{d_k}\},$$

    a Chaum–Pedersen proof over the integers (the order $Np'q'$ is unknown to k): $\rho \leftarrow
    [0, 2^{|d_k| + \kappa_c + \kappa_r})$, $R = B^\rho$, $c = H(\dots)$ truncated to $\kappa_c = 80$ bits,
    $z = \rho + c\,d_k$ (no reduction); accept iff $B^z = R\,A^c$ and $0 \le z < 2^{|\rho|+1}$.  The extra
    $\kappa_r = 20$ bits make $z$ statistically hide $c\,d_k$.

    *Deviations from the artifact* (each one a fix, all visible in the counts): the weights are
    derived by Fiat–Shamir from the statement instead of being sent by the verifier; every item is
    covered (the artifact's loops start at $i = 1$ and skip item 0); $\rho$ has $|d_k| + 100$ bits
    where the artifact draws $\kappa + 80 = 2130$ bits, shorter than $d_k$ itself ($\approx 2\kappa$
    bits), so its response does not hide $d_k$; $v$ is a random square (the artifact takes a random
    residue below $N$); the ``embedded_q`` option (plaintexts $M + qx$) is left out.
    """
    A, B, seed = _batch(pk, k, cts, shares)
    bits = pk.sizes.rho
    rho = rng.getrandbits(bits)
    R = _pow(B, rho, pk.N2, bits)
    c = hash_int(KAPPA_C, "paillier/share-proof", seed, A, B, R)
    return ShareProof(c, rho + c * d_k)


#: the largest N a verifier works with (its exponentiations are bounded by it and the key's lengths)
MAX_N_BITS = 16384


def _int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def well_formed_key(pk) -> bool:
    """A PublicKey whose fields are integers of bounded size: N odd of at most MAX_N_BITS bits, N2 = N^2,
    at least one share key, share_bits at most 2 |N| + 2 (|4 N p'q'| < 2 |N| + 2)."""
    if not isinstance(pk, PublicKey) or not all(_int(x) for x in (pk.N, pk.N2, pk.hN, pk.v, pk.share_bits)):
        return False
    if not (pk.N > 2 and pk.N % 2 == 1 and pk.N.bit_length() <= MAX_N_BITS and pk.N2 == pk.N * pk.N):
        return False
    return (isinstance(pk.vks, (tuple, list)) and len(pk.vks) >= 1 and all(_int(x) for x in pk.vks)
            and 0 < pk.share_bits <= 2 * pk.N.bit_length() + 2)


def verify_shares(pk: PublicKey, k: int, cts, shares, proof: ShareProof) -> bool:
    """Accept iff B^z = R A^c for the R the challenge was computed on, z in range; False for a
    malformed key, index, list or proof."""
    if not (well_formed_key(pk) and isinstance(proof, ShareProof) and _int(proof.c) and _int(proof.z)):
        return False
    if not (isinstance(cts, (list, tuple)) and isinstance(shares, (list, tuple)) and cts
            and len(cts) == len(shares)):
        return False
    if not (_int(k) and 0 <= k < pk.m):
        return False
    if not are_ciphertexts(pk, [pk.v, *pk.vks, *cts, *shares]):
        return False
    A, B, seed = _batch(pk, k, cts, shares)
    bits = pk.sizes.rho
    if not (0 <= proof.z < 1 << (bits + 1) and 0 <= proof.c < 1 << KAPPA_C):
        return False
    # R = B^z / A^c: one inverse (untallied), two exponentiations
    R = _pow(B, proof.z, pk.N2, bits) * pow(_pow(A, proof.c, pk.N2, KAPPA_C), -1, pk.N2) % pk.N2
    return proof.c == hash_int(KAPPA_C, "paillier/share-proof", seed, A, B, R)


# ---------------------------------------------------------------------------
# Operation counts (stated; the tests compare them with a run)

def encryption_counts(n: int, sizes) -> Counts:
    """n encryptions or re-encryptions: one h_N^r each."""
    s = Sizes.of(sizes)
    return Counts({modexp_key(s.n2, s.r): n})


def share_decryption_counts(n: int, sizes) -> Counts:
    """One mix-server's shares of n ciphertexts: n exponentiations by 4 d_k."""
    s = Sizes.of(sizes)
    return Counts({modexp_key(s.n2, s.share): n})


def share_proof_counts(n: int, sizes) -> tuple:
    """(prover, verifier) of one batched proof over n shares.

    Both build A and B: (n + 2) exponentiations by an 80-bit weight and n by a weight times 4
    (82 bits); the prover adds R = B^rho, the verifier A^c and B^z."""
    s = Sizes.of(sizes)
    x2 = lambda bits: modexp_key(s.n2, bits)
    both = Counts({x2(KAPPA_E): n + 2, x2(KAPPA_E + 2): n})
    return both + Counts({x2(s.rho): 1}), both + Counts({x2(KAPPA_C): 1, x2(s.rho): 1})
