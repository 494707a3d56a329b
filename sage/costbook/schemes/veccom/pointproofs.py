r"""Pointproofs (Gorbunov, Reyzin, Wee, Zhang, CCS 2020) over BLS12-381, written out in Sage.

Notation: paper indices i in [1, N]; g1, g2 generate G1, G2; gT = e(g1, g2); m_i in Z_r.

Setup (alpha is toxic waste):

    prover:   g1^{alpha^i} for i in [1, 2N] \ {N+1}       (the hole at N+1 is what makes it binding)
    verifier: g2^{alpha^i} for i in [1, N],  gT^{alpha^{N+1}}

Commit:  C = prod_i (g1^{alpha^i})^{m_i}
Prove i: pi_i = prod_{j != i} (g1^{alpha^{N+1-i+j}})^{m_j}        (exponents avoid alpha^{N+1})
Verify:  e(C, g2^{alpha^{N+1-i}}) = e(pi_i, g2) * (gT^{alpha^{N+1}})^{m_i}

because e(C, g2^{alpha^{N+1-i}}) = gT^{sum_j m_j alpha^{N+1-i+j}} and the j = i term is the
gT^{m_i alpha^{N+1}} that the proof lacks.  The code (veccom @11264d2, the seed's version) checks
it as one pairing product, without a GT exponentiation (``verify``).  Updates (``commit_update``,
``proof_update``) and aggregation (pointproofs @1480e0e: the "Aggregation" section below) follow.

Values are hashed to scalars as the 2019 code does (``hash_to_fr``).  ``commit``/``prove`` follow
the seed's code (one multiplication per term); ``msm=True`` uses one multi-scalar multiplication
instead (Pippenger, as the 2020 code does).  Priced operations are tallied:
``bls12_381/g1_mul``, ``bls12_381/g2_mul`` (by the curve code), ``bls12_381/g1_add``,
``bls12_381/g1_msm/<k>``, ``bls12_381/g2_msm/<k>``, ``bls12_381/pairing_product/<k>`` (k Miller
loops and one final exponentiation), ``bls12_381/g1_decode`` and ``sha512/<bytes>B``.
"""
from __future__ import annotations

import functools
import hashlib
import random
from dataclasses import dataclass

from ...prices.counting import tally
from ...groups import checks, msm, pairing_curves as PC

C = PC.BLS12_381
r = int(C.r)


class InvalidProof(ValueError):
    """A Pointproofs verification failure, with the reason."""


def _sha512(data: bytes) -> bytes:
    tally(f"sha512/{len(data)}B")
    return hashlib.sha512(data).digest()


def hash_to_fr(value: bytes) -> int:
    """m = SHA-512("hash_to_fr" || len(value) u32 big-endian || value) mod r (veccom 2019)."""
    data = b"hash_to_fr" + len(value).to_bytes(4, "big") + bytes(value)
    return int.from_bytes(_sha512(data), "big") % r


def hash_to_field(data: bytes) -> int:
    """H_F(data) = SHA-512(data) mod r, with 0 mapped to 1 (pointproofs 2020, for the scalars t)."""
    return int.from_bytes(_sha512(data), "big") % r or 1


def _transcript(commitment, S, values_S) -> bytes:
    """ser(C) || S || m[S] as pointproofs serializes it (ciphersuite byte 0, 8-byte positions)."""
    return (b"\x00" + _encode(commitment) + b"".join(int(i).to_bytes(8, "big") for i in S)
            + b"".join(bytes(v) for v in values_S))


# ---------------------------------------------------------------------------
# Multi-scalar multiplication and pairing products

def g1_msm(points, scalars):
    return msm.pippenger(points, scalars, C.E1(0), r, C)


def g2_msm(points, scalars):
    return msm.pippenger(points, scalars, C.E2(0), r, C)


def pairing_product(pairs):
    """prod_k e(P_k, Q_k): one Miller loop per pair and a single final exponentiation."""
    return msm.pairing_product(pairs, C)


# ---------------------------------------------------------------------------
# Parameters

@dataclass(frozen=True)
class Params:
    n: int
    g1: tuple           # g1[k] = g1^{alpha^{k+1}} for k in 0..2n-1; g1[n] is the hole (identity)
    g2: tuple           # g2[k] = g2^{alpha^{k+1}} for k in 0..n-1
    gt: object          # gT^{alpha^{n+1}} = e(g1^alpha, g2^{alpha^n})


@functools.lru_cache(maxsize=8)
def setup(n: int, seed: str = "costbook pointproofs") -> Params:
    """Parameters for vectors of length n from a seeded alpha (for reading and testing only:
    whoever knows alpha can forge; real parameters come from an MPC ceremony)."""
    if int(n) < 1:
        raise ValueError(f"vector length n must be at least 1, got {n}")
    n = int(n)
    alpha = random.Random(f"{seed}/{n}").randrange(2, r)
    powers = [pow(alpha, k + 1, r) for k in range(2 * n)]
    g1 = tuple(C.E1(0) if k == n else C.g1_mul(powers[k]) for k in range(2 * n))
    g2 = tuple(C.g2_mul(powers[k]) for k in range(n))
    return Params(n, g1, g2, C.pairing(g1[0], g2[n - 1]))


def _check_index(pp: Params, i: int) -> int:
    if not 0 <= int(i) < pp.n:
        raise ValueError(f"index {i} out of range for a vector of length {pp.n}")
    return int(i)


def _values(pp: Params, values) -> list:
    if len(values) != pp.n:
        raise ValueError(f"expected {pp.n} values, got {len(values)}")
    return [hash_to_fr(v) for v in values]


def _sum_of_products(points, scalars, msm: bool):
    if msm:
        return g1_msm(points, scalars)
    acc = C.E1(0)
    for P, s in zip(points, scalars):          # the seed's code: one multiplication per term
        if not P.is_zero():
            acc = g1_add(acc, C.g1_mul(s, P))
    return acc


def g1_add(P, Q):
    tally("bls12_381/g1_add")
    return P + Q


# ---------------------------------------------------------------------------
# The scheme (0-based indices in the code; paper index = i + 1)

def commit(pp: Params, values, msm: bool = False):
    """C = prod_i (g1^{alpha^{i+1}})^{m_i}."""
    return _sum_of_products(pp.g1[:pp.n], _values(pp, values), msm)


def prove(pp: Params, values, i: int, msm: bool = False):
    """pi_i = prod_{j != i} (g1^{alpha^{n+1-(i+1)+(j+1)}})^{m_j} = bases g1[n-i .. 2n-i) (hole at j = i)."""
    i = _check_index(pp, i)
    m = _values(pp, values)
    bases = pp.g1[pp.n - i: 2 * pp.n - i]
    if msm:
        keep = [j for j in range(pp.n) if j != i]
        return g1_msm([bases[j] for j in keep], [m[j] for j in keep])
    return _sum_of_products(bases, m, msm=False)


# ---------------------------------------------------------------------------
# What a verifier receives, checked before any work (a verifier returns True or False, never raises)

_POINT = type(C.G1)


def _on_e1(P) -> bool:
    return isinstance(P, _POINT) and P.curve() is C.E1


@functools.lru_cache(maxsize=4096)
def _in_g1_memo(P) -> bool:
    return bool((C.r * P).is_zero())


def _commitment_ok(P) -> bool:
    """A commitment is a point of G1.  The subgroup check (r C = 0, one G1 multiplication) is made once
    per commitment and remembered: a verifier checks each commitment it is sent once, not at every
    opening against it, so the check is not in the per-verification counts (it is not tallied)."""
    return _on_e1(P) and _in_g1_memo(P)


def _received_g1(P) -> bool:
    """A proof or aggregate received as a point: on E1 and in G1, checked as a decoding checks it
    (tallied ``bls12_381/g1_decode``, priced as one subgroup check)."""
    if not _on_e1(P):
        return False
    tally("bls12_381/g1_decode")
    return bool((C.r * P).is_zero())


def _params_ok(pp, positions=()) -> bool:
    """The verifier's parameters have their shape: n >= 1, n powers of g2, gT^{alpha^{n+1}} in F_{p^12},
    and the powers the positions select points of E2 (the parameters are trusted, not re-checked for
    G2: they come from the setup, not from the prover)."""
    if not isinstance(pp, Params) or checks.integer(pp.n) is None or pp.n < 1:
        return False
    if not (checks.sequence(pp.g2, pp.n) and getattr(pp.gt, "parent", None) is not None
            and pp.gt.parent() is C.Fp12):
        return False
    return all(isinstance(Q, _POINT) and Q.curve() is C.E2 for Q in (pp.g2[pp.n - 1 - i] for i in positions))


def _positions(pp: Params, S, values_S):
    """S as a list of distinct positions and values_S as as many byte strings, or None."""
    if not checks.sequence(S, min_length=1) or not checks.sequence(values_S, len(S)):
        return None
    positions = [checks.index(i, pp.n) for i in S]
    if None in positions or len(set(positions)) != len(positions):
        return None
    if not all(checks.is_bytes(v) for v in values_S):
        return None
    return positions


def verify(pp: Params, commitment, i: int, value: bytes, proof) -> bool:
    """e(C^h, g2^{alpha^{n-i}}) * e(pi^{-h}, g2) == gT^{alpha^{n+1}} with h = m^{-1}; False for anything
    that is not a position, a byte string and two points of G1.

    The paper's check, e(C, g2^{alpha^{n-i}}) = e(pi, g2) * (gT^{alpha^{n+1}})^m, raised to h, as the
    seed's code has it: one pairing product against a stored constant, no GT exponentiation."""
    if not (_params_ok(pp) and checks.index(i, pp.n) is not None and _params_ok(pp, [i])
            and checks.is_bytes(value) and _commitment_ok(commitment) and _received_g1(proof)):
        return False
    return _verify(pp, commitment, checks.index(i, pp.n), value, proof)


def _verify(pp: Params, commitment, i: int, value: bytes, proof) -> bool:
    """The pairing check, on inputs already checked."""
    m = hash_to_fr(value)
    if m == 0:                  # the value hashes to 0 (probability 2^-255): it cannot be opened
        return False
    h = pow(m, -1, r)
    lhs = pairing_product([(C.g1_mul(h, commitment), pp.g2[pp.n - 1 - i]), (C.g1_mul(r - h, proof), C.G2)])
    return lhs == pp.gt


def verify_encoded(pp: Params, commitment, i: int, value: bytes, proof: bytes) -> bool:
    """As the seed's benchmark does: decode the 48-byte proof (with its subgroup check), then verify;
    the commitment is checked for G1 too (once per commitment, see ``_commitment_ok``)."""
    if not (_params_ok(pp) and checks.index(i, pp.n) is not None and _params_ok(pp, [i])
            and checks.is_bytes(value) and _commitment_ok(commitment) and checks.is_bytes(proof, 48)):
        return False
    try:
        P = PC.decompress(proof, "g1", C)          # tallies bls12_381/g1_decode
    except PC.InvalidEncoding:
        return False
    return _verify(pp, commitment, checks.index(i, pp.n), value, P)


def commit_update(pp: Params, commitment, i: int, old: bytes, new: bytes):
    """C' = C * (g1^{alpha^{i+1}})^{m_i' - m_i}."""
    i = _check_index(pp, i)
    return g1_add(commitment, C.g1_mul((hash_to_fr(new) - hash_to_fr(old)) % r, pp.g1[i]))


def proof_update(pp: Params, proof, j: int, i: int, old: bytes, new: bytes):
    """pi_j' = pi_j * (g1^{alpha^{n+1-(j+1)+(i+1)}})^{m_i' - m_i} for a change at i != j; unchanged if i = j."""
    i, j = _check_index(pp, i), _check_index(pp, j)
    if i == j:
        return proof
    return g1_add(proof, C.g1_mul((hash_to_fr(new) - hash_to_fr(old)) % r, pp.g1[pp.n - j + i]))


# ---------------------------------------------------------------------------
# Aggregation
#
# For a set S of positions, t_i = H(i, C, S, m[S]) and pi_S = prod_{i in S} pi_i^{t_i}, verified by
# e(C, prod_{i in S} (g2^{alpha^{N+1-i}})^{t_i}) = e(pi_S, g2) * gT^{alpha^{N+1} sum_i m_i t_i};
# across commitments C_j with t'_j = H'(j, {C_j, S_j, m_j[S_j]}), pi = prod_j pi_{S_j}^{t'_j} and the
# check becomes a product of l + 1 pairings.  Aggregates stay one G1 point (48 bytes).
#
# The scalars are hashed as pointproofs @1480e0e does (hash_to_field_pointproofs.rs): the transcript
# once, d = SHA-512(ser(C) || S || m[S]) with ser(C) = 0x00 (ciphersuite) || 48-byte C and S as
# 8-byte big-endian positions, then t_i = H_F(i || d) for each i in S, with H_F(x) = SHA-512(x) mod r
# (0 mapped to 1); likewise d' over all (C_j, S_j, m_j[S_j]) and t'_j = H_F(j || d').  Hashing the
# transcript once keeps aggregation linear in |S| (SPEC.md: "to improve efficiency").  As there, the
# values are concatenated without lengths; two value lists with the same concatenation get the same
# t, which leaves a forger a few tries at a 1/r event, not an attack.

def _encode(P) -> bytes:
    """ser(P) for the transcript hash, untallied: the points hashed are the prover's own, already in
    affine form, so their serialization is a copy of bytes (as ristretto255's ``_encode`` for hashing)."""
    return PC.compress_untallied(P, C)


def _check_set(pp: Params, S, values_S, proofs=None) -> None:
    if not S:
        raise ValueError("an aggregate needs at least one position")
    if len(set(S)) != len(S):
        raise ValueError("positions in an aggregate must be distinct")
    for i in S:
        _check_index(pp, i)
    if len(values_S) != len(S) or (proofs is not None and len(proofs) != len(S)):
        got = f"{len(values_S)} values" + ("" if proofs is None else f" and {len(proofs)} proofs")
        raise ValueError(f"{len(S)} positions but {got}")


def _t_same(commitment, S, values_S) -> list:
    """t_i = H_F(i || SHA-512(ser(C) || S || m[S])) for i in S; 1 for a single position."""
    if len(S) == 1:
        return [1]
    d = _sha512(_transcript(commitment, S, values_S))
    return [hash_to_field(int(i).to_bytes(8, "big") + d) for i in S]


def aggregate_same(pp: Params, commitment, S, values_S, proofs):
    """pi_S = prod_{i in S} pi_i^{t_i} (one MSM of |S| terms in G1)."""
    _check_set(pp, S, values_S, proofs)
    t = _t_same(commitment, S, values_S)
    return g1_msm(list(proofs), t)


def _same_parts(pp: Params, commitment, S, values_S):
    """(t_i, m_i) for i in S, one commitment."""
    _check_set(pp, S, values_S)
    t = _t_same(commitment, S, values_S)
    m = [hash_to_fr(v) for v in values_S]
    return t, m


def verify_same(pp: Params, commitment, S, values_S, proof) -> bool:
    """e(C, prod (g2^{alpha^{n-i}})^{t_i s}) * e(pi^{-s}, g2) == gT^{alpha^{n+1}}, s = (sum m_i t_i)^{-1}."""
    if not (_params_ok(pp) and _commitment_ok(commitment)):
        return False
    S = _positions(pp, S, values_S)
    if S is None or not _params_ok(pp, S) or not _received_g1(proof):
        return False
    t, m = _same_parts(pp, commitment, S, values_S)
    total = sum(a * b for a, b in zip(m, t)) % r
    if total == 0:
        return False
    s = pow(total, -1, r)
    Q = g2_msm([pp.g2[pp.n - 1 - i] for i in S], [ti * s % r for ti in t])
    return pairing_product([(commitment, Q), (C.g1_mul(r - s, proof), C.G2)]) == pp.gt


def _t_cross(items) -> list:
    """t'_j = H_F(j || SHA-512(concat_j ser(C_j) || S_j || m_j[S_j])); 1 when there is a single commitment."""
    if len(items) == 1:
        return [1]
    d = _sha512(b"".join(_transcript(Cj, Sj, vj) for Cj, Sj, vj, _ in items))
    return [hash_to_field(j.to_bytes(8, "big") + d) for j in range(len(items))]


def aggregate_cross(pp: Params, items):
    """items: (C_j, S_j, values_j, pi_{S_j}) with same-commitment aggregates; pi = prod_j pi_j^{t'_j}."""
    if not items:
        raise ValueError("nothing to aggregate")
    for _, Sj, vj, _ in items:
        _check_set(pp, Sj, vj)
    return g1_msm([it[3] for it in items], _t_cross(items))


def verify_cross(pp: Params, items, proof) -> bool:
    """prod_j e(C_j, prod_i (g2^{alpha^{n-i}})^{t_{j,i} t'_j s}) * e(pi^{-s}, g2) == gT^{alpha^{n+1}}."""
    if not (_params_ok(pp) and checks.sequence(items, min_length=1)):
        return False
    checked = []
    for item in items:
        if not checks.sequence(item, 4) or not _commitment_ok(item[0]):
            return False
        Sj = _positions(pp, item[1], item[2])
        if Sj is None or not _params_ok(pp, Sj):
            return False
        checked.append((item[0], Sj, item[2], item[3]))
    if not _received_g1(proof):
        return False
    items = checked
    tp = _t_cross(items)
    parts = [_same_parts(pp, Cj, Sj, vj) for Cj, Sj, vj, _ in items]
    total = sum(tpj * sum(a * b for a, b in zip(m, t)) for tpj, (t, m) in zip(tp, parts)) % r
    if total == 0:
        return False
    s = pow(total, -1, r)
    pairs = []
    for (Cj, Sj, _, _), tpj, (t, _) in zip(items, tp, parts):
        pairs.append((Cj, g2_msm([pp.g2[pp.n - 1 - i] for i in Sj], [ti * tpj * s % r for ti in t])))
    pairs.append((C.g1_mul(r - s, proof), C.G2))
    return pairing_product(pairs) == pp.gt
