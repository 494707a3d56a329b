"""The small group interface the punch cards use, and the Chaum–Pedersen proof on it.

Both punch-card schemes are written against one interface: a group of prime
order $q$ in which the protocol multiplies, encodes, decodes and hashes.  The
ristretto255 scheme uses it once; the mergeable scheme uses it twice, for
$\\mathbb{G}_1$ and for $\\mathbb{G}_2$ of BLS12-381.  The adapters in
``costbook.schemes.punchcard.curves`` connect it to the groups written out in
``costbook.groups``; every priced operation is tallied there.

The proof.  The server holds $k$ with $pk = g^k$ and answers a card $C$ with
$C' = C^k$.  Chaum–Pedersen (Boneh–Shoup, Fig. 19.7) proves
$\\log_g pk = \\log_C C'$ without revealing $k$:

$$\\beta \\leftarrow \\mathbb{Z}_q,\\quad V = g^\\beta,\\quad W = C^\\beta,\\quad
c = H(pk \\,\\|\\, C \\,\\|\\, C' \\,\\|\\, V \\,\\|\\, W),\\quad z = \\beta + k c ,$$

and the verifier accepts iff $g^z = V \\cdot pk^c$ and $C^z = W \\cdot C'^c$.
The proof travels as $(V, W, z)$ (commitments and response), as in the
PunchCard code, not in the shorter form $(c, z)$.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

#: the default source of randomness: the operating system's CSPRNG
SYSTEM_RANDOM = random.SystemRandom()


class Group:
    """What the punch cards need from a prime-order group (in multiplicative notation).

    Elements are whatever the underlying implementation uses; the protocol
    touches them only through these methods.  Subclasses tally each priced
    operation with ``costbook.prices.counting.tally``.
    """
    name: str = "group"
    order: int                      # q, prime
    element_bytes: int              # length of an encoded element
    scalar_bytes: int = 32
    scalar_byteorder: str = "little"

    def mul(self, P, k: int):        # P^k, variable base
        raise NotImplementedError

    def mul_base(self, k: int):      # g^k
        raise NotImplementedError

    def op(self, P, Q):              # P · Q
        raise NotImplementedError

    def eq(self, P, Q) -> bool:
        raise NotImplementedError

    def encode(self, P) -> bytes:
        raise NotImplementedError

    def decode(self, data: bytes):   # raises ValueError on anything that is not a group element
        raise NotImplementedError

    def hash_to_group(self, msg: bytes):
        raise NotImplementedError

    def challenge(self, transcript: bytes) -> int:   # the Fiat–Shamir hash into Z_q
        raise NotImplementedError

    def inverse(self, k: int) -> int:                # k^{-1} mod q
        raise NotImplementedError

    # scalars: fixed-length byte strings, in the byte order of the implementation being specified
    def encode_scalar(self, k: int) -> bytes:
        return int(k).to_bytes(self.scalar_bytes, self.scalar_byteorder)

    def decode_scalar(self, data: bytes) -> int:
        """A canonical scalar: exactly scalar_bytes bytes holding an integer below q (z + q is refused,
        not reduced: a proof has one encoding)."""
        if not isinstance(data, bytes) or len(data) != self.scalar_bytes:
            raise ValueError(f"a scalar is {self.scalar_bytes} bytes")
        k = int.from_bytes(data, self.scalar_byteorder)
        if k >= self.order:
            raise ValueError("scalar not reduced mod q")
        return k

    def is_identity(self, P) -> bool:
        raise NotImplementedError

    def random_scalar(self, rng=SYSTEM_RANDOM) -> int:
        """A uniform nonzero scalar: 64 random bytes reduced mod q (bias < 2^-250)."""
        while True:
            k = int.from_bytes(rng.randbytes(64), "little") % self.order
            if k:
                return k


@dataclass(frozen=True)
class Proof:
    """A Chaum–Pedersen proof as sent: encodings of V and W, and the scalar z."""
    V: bytes
    W: bytes
    z: bytes

    def to_bytes(self) -> bytes:
        return self.V + self.W + self.z


def transcript(pk: bytes, C: bytes, C_new: bytes, V: bytes, W: bytes) -> bytes:
    """The challenge input: the five encodings, in this order (as in crypto.rs)."""
    return pk + C + C_new + V + W


def prove(G: Group, k: int, pk: bytes, C: Any, C_bytes: bytes, C_new_bytes: bytes, rng) -> Proof:
    """Prove log_g(pk) = log_C(C') for C' = C^k, given C decoded and both cards encoded."""
    beta = G.random_scalar(rng)
    V = G.encode(G.mul_base(beta))                # V = g^β
    W = G.encode(G.mul(C, beta))                  # W = C^β
    c = G.challenge(transcript(pk, C_bytes, C_new_bytes, V, W))
    z = (beta + k * c) % G.order                  # z = β + k·c
    return Proof(V, W, G.encode_scalar(z))


def received(G: Group, pk: bytes, card_new: bytes, proof) -> tuple | None:
    """What a client receives with a punch, checked and decoded: (pk, C', V, W, z), or None if any
    part is not what it must be.  Each element is decoded with its group check (ristretto255 decoding
    gives the prime-order group; BLS12-381 decoding checks the subgroup), z must be canonical, and the
    server's key and the new card must not be the identity (a key g^0 "punches" every card to the
    identity with a valid proof).  Decoded in the order the Rust code decodes them: pk, C', V, W."""
    n = G.element_bytes
    if not (isinstance(proof, Proof) and all(isinstance(b, bytes) and len(b) == n
                                             for b in (pk, card_new, proof.V, proof.W))):
        return None
    try:
        z = G.decode_scalar(proof.z)
        PK, C_new, V, W = G.decode(pk), G.decode(card_new), G.decode(proof.V), G.decode(proof.W)
    except (ValueError, TypeError):
        return None
    if G.is_identity(PK) or G.is_identity(C_new):
        return None
    return PK, C_new, V, W, z


def verify(G: Group, pk: Any, C: Any, C_new: Any, V: Any, W: Any, z: int, c: int) -> bool:
    """Accept iff g^z = V·pk^c and C^z = W·C'^c (elements already decoded, c recomputed).

    All four sides are computed before comparing, as the Rust code does, so an
    accepted and a rejected proof cost the same.
    """
    lhs1, rhs1 = G.mul_base(z), G.op(V, G.mul(pk, c))
    lhs2, rhs2 = G.mul(C, z), G.op(W, G.mul(C_new, c))
    return G.eq(lhs1, rhs1) and G.eq(lhs2, rhs2)
