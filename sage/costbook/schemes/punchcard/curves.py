"""Adapters: the groups of ``costbook.groups`` behind the punch cards' ``dleq.Group`` interface.

The groups tally their own priced operations (multiplications, encodings, decodings,
hashing to the group, pairings); the adapters add the one the groups do not own, the
inversion of a scalar (``<curve>/scalar_inv``), and fix what the PunchCard code fixes:
the byte order of scalars, the challenge hash and the domain tags.
"""
from __future__ import annotations

import functools
import hashlib

from ...prices.counting import tally
from . import dleq, mergeable


class Ristretto255(dleq.Group):
    """ristretto255 (RFC 9496), as curve25519-dalek 2.0 is used by crypto.rs.

    H_G(s) = one-way map of SHA-512(s) (``RistrettoPoint::hash_from_bytes::<Sha512>``);
    challenge = SHA-512(transcript) as a little-endian integer mod ell
    (``Scalar::hash_from_bytes::<Sha512>``); scalars are 32 little-endian bytes.
    """
    name = "ristretto255"
    element_bytes = 32
    scalar_byteorder = "little"

    def __init__(self):
        from ...groups import ristretto255 as R
        self.R = R
        self.order = R.ell

    def mul(self, P, k):
        return self.R.mul(P, k)

    def mul_base(self, k):
        return self.R.mul_base(k)

    def op(self, P, Q):
        return P + Q

    def eq(self, P, Q):
        return P == Q

    def is_identity(self, P):
        return P.is_identity()

    def encode(self, P):
        return self.R.encode(P)

    def decode(self, data):
        return self.R.decode(data)

    def hash_to_group(self, msg):
        return self.R.hash_from_bytes(msg)

    def challenge(self, transcript):
        return int.from_bytes(hashlib.sha512(transcript).digest(), "little") % self.order

    def inverse(self, k):
        tally("ristretto255/scalar_inv")
        return pow(int(k), -1, self.order)


@functools.lru_cache(maxsize=None)
def ristretto255() -> Ristretto255:
    return Ristretto255()


# ---------------------------------------------------------------------------
# BLS12-381

def hash_to_fr(msg: bytes, dst: bytes, r: int) -> int:
    """RFC 9380 hash_to_field into F_r with one element: expand_message_xmd(SHA-256) to
    L = ceil((255 + 128) / 8) = 48 bytes, read big-endian, reduced mod r (pairing-plus's
    ``hash_to_field::<Fr, ExpandMsgXmd<Sha256>>(msg, dst, 1)``)."""
    from ...groups.hash_to_curve import expand_message_xmd
    return int.from_bytes(expand_message_xmd(msg, dst, 48), "big") % r


class BLSGroup(dleq.Group):
    """G_1 or G_2 of BLS12-381 as pairing-plus 0.18 is used by crypto_pairing.rs.

    ZCash point encodings (48 / 96 bytes), decoded with the subgroup check; scalars of
    F_r as 32 big-endian bytes; no fixed-base table (``T::one().mul_assign(k)``), so
    g^k is priced as any other multiplication.
    """
    scalar_byteorder = "big"

    def __init__(self, which: int, C, P, H, hash_dst: bytes, challenge_dst: bytes):
        # C: the curve object, P: the pairing_curves module (encodings), H: hash_to_curve
        self.which, self.C, self.P, self.H = which, C, P, H
        self.g = f"g{which}"
        self.name = f"G{which}"
        self.order = int(C.r)
        self.element_bytes = 48 * which
        self.hash_dst, self.challenge_dst = hash_dst, challenge_dst

    def mul(self, P, k):
        return self.C.g1_mul(k, P) if self.which == 1 else self.C.g2_mul(k, P)

    def mul_base(self, k):
        return self.mul(self.C.G1 if self.which == 1 else self.C.G2, k)

    def op(self, P, Q):
        return P + Q

    def eq(self, P, Q):
        return P == Q

    def is_identity(self, P):
        return P.is_zero()

    def encode(self, P):
        return self.P.compress(P, self.C)                 # tallies bls12_381/<g>_encode

    def decode(self, data):
        return self.P.decompress(data, self.g, self.C)    # tallies bls12_381/<g>_decode

    def hash_to_group(self, msg):
        return (self.H.hash_to_g1 if self.which == 1 else self.H.hash_to_g2)(msg, self.hash_dst)

    def challenge(self, transcript):
        return hash_to_fr(transcript, self.challenge_dst, self.order)

    def inverse(self, k):
        tally("bls12_381/scalar_inv")
        return pow(int(k), -1, self.order)

    def decode_scalar(self, data):
        """``Fr::deserialize``: 32 big-endian bytes, rejected unless < r."""
        if not isinstance(data, bytes) or len(data) != 32:
            raise ValueError(f"a scalar is 32 bytes, got {len(data)}")
        k = int.from_bytes(data, "big")
        if k >= self.order:
            raise ValueError("scalar not reduced mod r")
        return k


class BLS12_381(mergeable.Pairing):
    """The pairing e: G_1 x G_2 -> G_T of BLS12-381, with G_T as pairing-plus serialises it.

    pairing-plus writes an F_{p^12} element in its tower F_p[u]/(u^2+1), [v]/(v^3-(u+1)),
    [w]/(w^2-v): the twelve F_p coefficients c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1,
    48 big-endian bytes each.  ``costbook.groups.pairing_curves`` keeps F_{p^12} as
    F_p[w]/(w^12 - 2w^6 + 2), where w^6 = u + 1: the same w as the tower's (w^2 = v,
    v^3 = u + 1), so  sum_j (x_j + y_j u) w^j  has coefficients  f_j = x_j - y_j  and
    f_{j+6} = y_j  on w^j and w^{j+6}.  Encoding and decoding only move coefficients; they
    are not priced.
    """
    gt_bytes = 576

    def __init__(self):
        from ...groups import hash_to_curve as H
        from ...groups import pairing_curves as P
        self.P, self.C = P, P.BLS12_381
        self.G1 = BLSGroup(1, self.C, P, H, mergeable.DST_H1, mergeable.DST_C1)
        self.G2 = BLSGroup(2, self.C, P, H, mergeable.DST_H2, mergeable.DST_C2)

    def pair(self, P, Q):
        return self.C.pairing(P, Q)

    def encode_gt(self, T):
        f = self.C.fp12_coefficients(T)                       # f_0 .. f_11 on 1, w, ..., w^11
        p = int(self.C.p)
        x = [(f[j] + f[j + 6]) % p for j in range(6)]         # F_p2 coefficient of w^j: x_j + y_j u
        y = [f[j + 6] for j in range(6)]
        # c0 = (w^0, w^2, w^4) and c1 = (w^1, w^3, w^5), each an F_p2 element (x, y)
        order = [0, 2, 4, 1, 3, 5]
        return b"".join(x[j].to_bytes(48, "big") + y[j].to_bytes(48, "big") for j in order)

    def decode_gt(self, data):
        """``Fq12::deserialize``: twelve canonical F_p elements, no subgroup check."""
        if len(data) != 576:
            raise ValueError(f"a G_T element is 576 bytes, got {len(data)}")
        p = int(self.C.p)
        words = [int.from_bytes(data[48 * i:48 * i + 48], "big") for i in range(12)]
        if any(v >= p for v in words):
            raise ValueError("G_T coefficient is not a canonical field element")
        f = [0] * 12
        for slot, j in enumerate([0, 2, 4, 1, 3, 5]):
            xj, yj = words[2 * slot], words[2 * slot + 1]
            f[j], f[j + 6] = (xj - yj) % p, yj
        w = self.C.w
        return sum(self.C.Fp12(c) * w**j for j, c in enumerate(f))

    def gt_eq(self, S, T):
        return S == T


@functools.lru_cache(maxsize=None)
def bls12_381() -> BLS12_381:
    return BLS12_381()
