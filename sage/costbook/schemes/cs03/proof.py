r"""Verifiable encryption of a discrete logarithm (CS03, Section 5), in Fiat–Shamir form.

Statement: the prover knows m in [rho] with delta = gamma^m in Gamma (ristretto255, prime order
rho, written additively in the code: delta = m * gamma), has encrypted it, C = (u, e, v) =
Enc_pk(m; r) with label lab, and proves that C decrypts to the discrete logarithm of delta.

Auxiliary parameters: N = PQ with safe primes P, Q the prover does not know, and two random
squares g_, h_ in QR_N.  com = g_^m h_^s mod N is a Damgård–Fujisaki integer commitment: it
binds the prover to one *integer* m, which ties the exponent in Z*_{n^2} (hidden order) to the
exponent in Gamma (order rho).  Security parameters: k, the challenge length, and k', the
statistical slack of the masks.

    1. P:  commit, com = g_^m h_^s mod N
    2. P:  masks r', s', m'; first message u', e', v', delta', com'; c = H'(...) to k bits;
           responses r~ = r' - c r,  s~ = s' - c s,  m~ = m' - c m   (in Z)      -> ``prove``
    3. V:  recompute the first message from the responses; accept iff c matches and
           -n/4 < m~ < n/4                                                     -> ``check``

Side conditions on (n, N, k, k'): ``check_parameters``.  The ranges, the range check and the
side conditions agree with xlab-si/emmy (crypto/encryption/cs_paillier.go), the one
implementation found that does Section 5 in full and quotes the paper; the paper's own text
could not be consulted (the chapter says so).
"""
from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, fields, replace

from ...groups import checks, ristretto255 as Gamma
from ...groups.rsa import random_safe_prime
from .seed import SPEC_K
from .scheme import (MIN_MODULUS_BITS, Ciphertext, EncryptionWitness, PublicKey, Ring, _fixed_bytes, label_bytes,
    abs_mod, length_prefixed)


class InvalidProof(ValueError):
    """A proof the verifier rejects, with the check that failed."""


@dataclass(frozen=True)
class Parameters:
    k: int = SPEC_K        # challenge bits; 2^k <= rho for rho of ristretto255 (2^252 + ...)
    k_prime: int = 128     # statistical zero-knowledge slack

    def __post_init__(self):
        if self.k <= 0 or self.k_prime <= 0:
            raise ValueError(f"k and k' must be positive, got k={self.k}, k'={self.k_prime}")
        if self.k > 256:
            raise ValueError(f"k = {self.k}: the Fiat–Shamir hash (SHA-256) gives at most 256 bits")


@dataclass(frozen=True)
class AuxParams:
    """(N, g_, h_): the verifier's strong-RSA modulus and two random squares."""
    N: int
    g_: int
    h_: int

    @property
    def ring(self) -> Ring:
        return Ring(self.N)

    def to_json(self) -> dict:
        return {"N": hex(self.N), "g_": hex(self.g_), "h_": hex(self.h_)}

    @classmethod
    def from_json(cls, d: dict) -> "AuxParams":
        return cls(int(d["N"], 16), int(d["g_"], 16), int(d["h_"], 16))


def aux_params(bits: int, rng: random.Random | None = None) -> AuxParams:
    """Generate N = PQ from two fresh safe primes and discard P, Q (the prover must not know them)."""
    rng = rng if rng is not None else random.SystemRandom()
    P = random_safe_prime(bits // 2, rng)
    while (Q := random_safe_prime(bits // 2, rng)) == P:
        pass
    N = P * Q
    squares = []
    while len(squares) < 2:
        x = rng.randrange(2, N)
        if math.gcd(x, N) == 1:
            squares.append(x * x % N)
    return AuxParams(N, *squares)


@dataclass(frozen=True)
class Statement:
    pk: PublicKey
    aux: AuxParams
    C: Ciphertext
    label: bytes
    delta: object            # a ristretto255 Element, delta = m * gamma


@dataclass(frozen=True)
class Proof:
    com: int
    c: int
    r_t: int                 # r~
    s_t: int                 # s~
    m_t: int                 # m~


def check_parameters(pk: PublicKey, aux: AuxParams, params: Parameters) -> None:
    """Raise ValueError naming the side condition that (pk, aux, params) violate.

    2^k <= rho, so that two challenges never agree modulo rho (the extractor divides by c - c' in
    Gamma); 2^k below the factors p', q' of n and N (guaranteed by the sizes); and
    rho 2^{k+k'+3} <= n, so that an honest m~ passes the range check.
    """
    k, kp, rho = params.k, params.k_prime, Gamma.ell
    if 2 ** k > rho:
        raise ValueError(f"k = {k} too large: need 2^k <= rho = |Gamma| (2^{rho.bit_length() - 1} < rho), "
                         "or two challenges may agree modulo rho")
    if rho * 2 ** (k + kp + 3) > pk.n:
        raise ValueError(f"n of {pk.n.bit_length()} bits too small for k = {k}, k' = {kp}: an honest "
                         f"m~ (about {rho.bit_length() + k + kp} bits) would fail the range check |m~| < n/4")
    for name, M in (("n", pk.n), ("N", aux.N)):
        if 2 ** k >= M >> (M.bit_length() // 2 + 2):     # p', q' are about sqrt(M)/2
            raise ValueError(f"k = {k} too large for {name}: need 2^k below its prime factors' halves")


def _challenge(st: Statement, params: Parameters, com, u_, e_, v_, d_, com_) -> int:
    pk, aux, n2, N = st.pk, st.aux, st.pk.n2, st.aux.N
    data = length_prefixed(
        b"CS03 verifiable encryption of a discrete log, Fiat-Shamir",
        *(_fixed_bytes(x, n2) for x in (pk.n, pk.g, pk.y1, pk.y2, pk.y3)), pk.hash_key,
        *(_fixed_bytes(x, N) for x in (aux.N, aux.g_, aux.h_)),
        bytes(Gamma.GENERATOR), bytes(st.delta),
        st.C.to_bytes(pk), bytes(st.label),
        _fixed_bytes(com, N), *(_fixed_bytes(int(x), n2) for x in (u_, e_, v_)),
        bytes(d_), _fixed_bytes(int(com_), N))
    return int.from_bytes(hashlib.sha256(data).digest(), "big") >> (256 - params.k)


def _signed(rng: random.Random, bound: int) -> int:
    """Uniform in the integers of [-bound, bound]."""
    return rng.randrange(-bound, bound + 1)


def prove(st: Statement, w: EncryptionWitness, params: Parameters = Parameters(),
          rng: random.Random | None = None) -> Proof:
    """The prover's side (steps 1 and 2), with the challenge from the Fiat–Shamir hash.

        1. s <- [N/4],  com = g_^m h_^s mod N
        2. r' <- +-[n 2^{k+k'-2}],  s' <- +-[N 2^{k+k'-2}],  m' <- +-[rho 2^{k+k'}]
           u' = g^{2r'},  e' = y1^{2r'} h^{2m'},  v' = y^^{2r'}           (mod n^2)
           delta' = gamma^{m'},  com' = g_^{m'} h_^{s'}                   (mod N)
           c = H'(statement, com, u', e', v', delta', com') truncated to k bits
           r~ = r' - c r,  s~ = s' - c s,  m~ = m' - c m                       (in Z)

    with y^ = y2 y3^{H(u, e, lab)}.  The exponents 2r', 2c, 2r~ are doubled because Z*_{n^2}
    has elements of order 2 and v carries a sign (abs): squaring removes both.  The masks are
    k' bits longer than what they hide (c r is about L + k bits, so r' has about L + k + k'
    bits): that is the statistical zero-knowledge of the responses.
    """
    check_parameters(st.pk, st.aux, params)
    rng = rng if rng is not None else random.SystemRandom()
    pk, aux, k, kp = st.pk, st.aux, params.k, params.k_prime
    n, N = pk.n, aux.N
    Rn, RN = pk.ring, aux.ring
    # Step 1: commit to m as an integer.
    s = rng.randrange(0, N // 4)
    com = RN.power(aux.g_, w.m) * RN.power(aux.h_, s)
    # Step 2: masks, k' bits longer than what they hide.
    r_ = _signed(rng, n * 2 ** (k + kp - 2))
    s_ = _signed(rng, N * 2 ** (k + kp - 2))
    m_ = _signed(rng, Gamma.ell * 2 ** (k + kp))
    u_ = Rn.power(pk.g, 2 * r_)
    e_ = Rn.power(pk.y1, 2 * r_) * Rn(1 + 2 * m_ * n)       # h^{2m'} = 1 + 2m'n
    v_ = Rn.power(w.yhat, 2 * r_)
    d_ = Gamma.GENERATOR * m_
    com_ = RN.power(aux.g_, m_) * RN.power(aux.h_, s_)
    c = _challenge(st, params, com, u_, e_, v_, d_, com_)
    return Proof(int(com), c, r_ - c * w.r, s_ - c * s, m_ - c * w.m)


#: The largest modulus (n or N) a verifier works with: every exponentiation it does is bounded by
#: these and the parameters, so a hostile statement cannot make it work longer than an honest one of
#: this size.  Twice the 8192 bits of the largest modulus the book prices.
MAX_MODULUS_BITS = 16384


def _int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _plain(x):
    """x as a Python int if it is an integer other than bool (a Sage Integer, a numpy or gmpy2
    integer), else x as it is, for _well_formed to reject."""
    k = checks.integer(x)
    return x if k is None else k


def _plain_integers(st, pi, params) -> tuple:
    """The statement, proof and parameters with every integer a Python int.  A Sage cell's arithmetic
    gives Sage Integers, and the checks and encodings below use int's methods (bit_length, to_bytes):
    every integer type but bool is read as the int it is, as the other schemes' verifiers read it
    (groups.checks.integer).  A bytearray or memoryview label is read as the bytes it holds, as
    encryption reads it.  Parts of the wrong type are returned as they are."""
    if isinstance(params, Parameters):
        k, k_prime = checks.integer(params.k), checks.integer(params.k_prime)
        if k is not None and k_prime is not None:
            try:
                params = replace(params, k=k, k_prime=k_prime)
            except ValueError as e:                        # Parameters' own bounds on k and k'
                raise InvalidProof(str(e)) from None
    if isinstance(pi, Proof):
        pi = _int_fields_plain(pi)
    if isinstance(st, Statement):
        parts = {"pk": (st.pk, PublicKey), "aux": (st.aux, AuxParams), "C": (st.C, Ciphertext)}
        st = replace(st, **{name: _int_fields_plain(part) for name, (part, kind) in parts.items()
                            if isinstance(part, kind)})
        if (label := checks.byte_string(st.label)) is not None:
            st = replace(st, label=label)
    return st, pi, params


def _int_fields_plain(part):
    """A statement's or proof's dataclass with every field it declares an int made one (``_plain``)."""
    return replace(part, **{f.name: _plain(getattr(part, f.name)) for f in fields(part) if f.type == "int"})


def _well_formed(st, pi, params) -> None:
    """Types and sizes before any work: every integer an int of bounded length (a response of 2^200000
    is refused by its length, not by an exponentiation), every byte string bytes, delta an element of
    Gamma (of its prime-order group, not just a point of the curve: ``Gamma.in_group``), the moduli
    odd and within [2^(MIN_MODULUS_BITS - 1), 2^MAX_MODULUS_BITS)."""
    if not (isinstance(st, Statement) and isinstance(pi, Proof) and isinstance(params, Parameters)):
        raise InvalidProof("the statement, proof and parameters must be a Statement, a Proof and Parameters")
    pk, aux, C = st.pk, st.aux, st.C
    if not (isinstance(pk, PublicKey) and isinstance(aux, AuxParams) and isinstance(C, Ciphertext)):
        raise InvalidProof("the statement's key, auxiliary parameters and ciphertext have the wrong types")
    if not (_int(params.k) and _int(params.k_prime) and 0 < params.k <= 256 and 0 < params.k_prime <= 1024):
        raise InvalidProof("k must be in [1, 256] and k' in [1, 1024]")
    for name, M in (("n", pk.n), ("N", aux.N)):
        if not _int(M) or M % 2 == 0 or not MIN_MODULUS_BITS <= M.bit_length() <= MAX_MODULUS_BITS:
            raise InvalidProof(f"modulus {name} must be an odd integer of {MIN_MODULUS_BITS} to "
                               f"{MAX_MODULUS_BITS} bits")
    n2 = pk.n2
    for name, x in (("g", pk.g), ("y1", pk.y1), ("y2", pk.y2), ("y3", pk.y3)):   # raised to responses
        if not _int(x) or not 0 < x < n2 or math.gcd(x, pk.n) != 1:
            raise InvalidProof(f"public key element {name} is not a unit of Z_(n^2)")
    for name, x in (("u", C.u), ("e", C.e), ("v", C.v), ("com", pi.com), ("g_", aux.g_), ("h_", aux.h_),
                    ("c", pi.c), ("r~", pi.r_t), ("s~", pi.s_t), ("m~", pi.m_t)):
        if not _int(x):
            raise InvalidProof(f"{name} must be an integer")
    if not (isinstance(pk.hash_key, bytes) and isinstance(st.label, bytes)):
        raise InvalidProof("the hash key and the label must be bytes")
    # delta must be in Gamma itself, not merely on the curve: delta plus a point of order 8 would pass
    # the check below for every even challenge (decoding its bytes is the check: one ristretto255/decode)
    if not Gamma.in_group(st.delta):
        raise InvalidProof("delta is not an element of Gamma (ristretto255): not a canonical point of its "
                           "prime-order group")
    # |r~| < n 2^(k+k'-1) and |s~| < N 2^(k+k'-1) (response_bytes): bounded before any exponentiation
    slack = params.k + params.k_prime - 1
    if not abs(pi.r_t) < pk.n << slack:
        raise InvalidProof("r~ out of range: |r~| < n 2^(k+k'-1)")
    if not abs(pi.s_t) < aux.N << slack:
        raise InvalidProof("s~ out of range: |s~| < N 2^(k+k'-1)")


def check(st: Statement, pi: Proof, params: Parameters = Parameters()) -> None:
    """Raise InvalidProof naming the first check that fails; return None if the proof verifies.

    Step 3, after checking that delta is in Gamma (its prime-order group, not only the curve):

        u' = u^{2c} g^{2r~},  e' = e^{2c} y1^{2r~} h^{2m~},  v' = v^{2c} y^^{2r~},
        delta' = delta^c gamma^{m~},  com' = com^c g_^{m~} h_^{s~},
        accept iff c = H'(...) and -n/4 < m~ < n/4.
    """
    st, pi, params = _plain_integers(st, pi, params)
    _well_formed(st, pi, params)
    try:
        check_parameters(st.pk, st.aux, params)
    except ValueError as e:
        raise InvalidProof(str(e)) from None
    pk, aux, C = st.pk, st.aux, st.C
    n, n2, N = pk.n, pk.n2, aux.N
    for name, x in (("u", C.u), ("e", C.e), ("v", C.v)):
        if not 0 < x < n2 or math.gcd(x, n) != 1:
            raise InvalidProof(f"ciphertext component {name} is not a unit of Z_(n^2)")
    if abs_mod(C.v, n2) != C.v:
        raise InvalidProof("ciphertext component v is not canonical (abs(v) != v)")
    if not 0 < pi.com < N or math.gcd(pi.com, N) != 1:
        raise InvalidProof("com is not a unit of Z_N")
    for name, x in (("g_", aux.g_), ("h_", aux.h_)):     # raised to negative responses below
        if not 0 < x < N or math.gcd(x, N) != 1:
            raise InvalidProof(f"auxiliary base {name} is not a unit of Z_N")
    if not 0 <= pi.c < 2 ** params.k:
        raise InvalidProof(f"challenge c out of range [0, 2^{params.k})")
    if not -(n // 4) < pi.m_t < n // 4:
        raise InvalidProof("m~ out of range (-n/4, n/4): the encrypted value may wrap around n")
    Rn, RN = pk.ring, aux.ring
    yhat = Rn(pk.y2) * Rn.power(pk.y3, pk.hash(C.u, C.e, st.label))
    c2, r2 = 2 * pi.c, 2 * pi.r_t
    u_ = Rn.power(C.u, c2) * Rn.power(pk.g, r2)
    e_ = Rn.power(C.e, c2) * Rn.power(pk.y1, r2) * Rn(1 + 2 * pi.m_t * n)
    v_ = Rn.power(C.v, c2) * Rn.power(yhat, r2)
    d_ = st.delta * pi.c + Gamma.GENERATOR * pi.m_t
    com_ = RN.power(pi.com, pi.c) * RN.power(aux.g_, pi.m_t) * RN.power(aux.h_, pi.s_t)
    if _challenge(st, params, pi.com, u_, e_, v_, d_, com_) != pi.c:
        raise InvalidProof("the Fiat–Shamir challenge does not match the recomputed first message")


def verify(st: Statement, pi: Proof, params: Parameters = Parameters()) -> bool:
    """True iff the proof verifies (``check`` says why not)."""
    try:
        check(st, pi, params)
    except InvalidProof:
        return False
    return True


# ---------------------------------------------------------------------------
# Sizes: what goes on the wire.

def response_bytes(k: int, k_prime: int, n_bits: int, N_bits: int, rho_bits: int) -> dict:
    """Byte lengths of the fixed-length proof encoding (sign bit included for r~, s~, m~).

    |r~| < n 2^{k+k'-1} (mask n 2^{k+k'-2} plus c r < 2^k n / 4), so L + k + k' - 1 magnitude bits;
    likewise s~; |m~| < rho 2^{k+k'+1}.
    """
    kp = k_prime
    return {"com": (N_bits + 7) // 8, "c": (k + 7) // 8,
            "r~": (n_bits + k + kp + 7) // 8, "s~": (N_bits + k + kp + 7) // 8,
            "m~": (rho_bits + k + kp + 2 + 7) // 8}


def encode_proof(pi: Proof, pk: PublicKey, aux: AuxParams, params: Parameters) -> bytes:
    """The proof as bytes: com, c, then r~, s~, m~ as signed big-endian of fixed length."""
    L = response_bytes(params.k, params.k_prime, pk.n.bit_length(), aux.N.bit_length(), Gamma.ell.bit_length())
    out = [pi.com.to_bytes(L["com"], "big"), pi.c.to_bytes(L["c"], "big")]
    for name, x in (("r~", pi.r_t), ("s~", pi.s_t), ("m~", pi.m_t)):
        out.append(x.to_bytes(L[name], "big", signed=True))   # OverflowError if out of range
    return b"".join(out)


def verifiable_encrypt(pk: PublicKey, aux: AuxParams, m: int, label: bytes = b"",
                       params: Parameters = Parameters(), rng: random.Random | None = None):
    """Encrypt m, publish delta = m * gamma and prove it: what TZ call P (prover time)."""
    from .scheme import encrypt
    label = label_bytes(label)
    C, w = encrypt(pk, m, label, rng)
    st = Statement(pk, aux, C, label, Gamma.GENERATOR * m)
    return st, prove(st, w, params, rng)
