"""Schnorr signatures on ristretto255, in Sage, tallying what they cost.

Schnorr's scheme (1991), in the form that hashes the nonce commitment and the message:

    key generation   x uniform in [1, ell), X = x B
    sign(x, m)       r uniform, R = r B, e = H(encode(R) || m) mod ell, s = r + e x mod ell;
                     the signature is (encode(R), s): 64 bytes
    verify(X, m, σ)  R = decode(σ_R), e as above, accept iff s B == R + e X and s < ell

H is SHA-512 (64-byte output reduced mod ell, as Ed25519 does); the message is a 32-byte digest, so
every challenge hashes exactly 64 bytes (``sha512/64B``).  The group operations come from
``costbook.groups.ristretto255``, which tallies ``ristretto255/mul``, ``mul_base``, ``encode`` and
``decode``; the hash is tallied here.  With ``wire="bytes"`` the verifier also receives the public
key as 32 bytes and decodes it, as a verifier reading a certificate does.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from costbook.prices.counting import tally
from costbook.groups import ristretto255 as G

MESSAGE_BYTES = 32
SIGNATURE_BYTES = 64                  # encode(R) and s, 32 bytes each
WIRES = ("bytes", "points")


class InvalidSignature(ValueError):
    """A signature that does not verify."""


@dataclass(frozen=True)
class Signature:
    R: bytes                          # the encoding of the nonce commitment
    s: int

    def to_bytes(self) -> bytes:
        return self.R + self.s.to_bytes(32, "little")


def challenge(R: bytes, message: bytes) -> int:
    """e = SHA-512(encode(R) || m) mod ell (tallied ``sha512/64B``)."""
    data = R + message
    if len(data) != 64:
        raise ValueError(f"a challenge hashes 32 + 32 bytes, got {len(data)}")
    tally("sha512/64B")
    return int.from_bytes(hashlib.sha512(data).digest(), "little") % G.ell


def keygen(rng: random.Random | None = None) -> tuple:
    """(x, X): a secret scalar and its public key X = x B."""
    x = G.random_scalar(rng)
    return x, G.mul_base(x)


def sign(x: int, message: bytes, rng: random.Random | None = None) -> Signature:
    if not isinstance(message, bytes) or len(message) != MESSAGE_BYTES:
        raise ValueError(f"a message is {MESSAGE_BYTES} bytes (a digest)")
    r = G.random_scalar(rng)
    R = G.encode(G.mul_base(r))
    return Signature(R, (r + challenge(R, message) * x) % G.ell)


def verify(X, message: bytes, sig: Signature, wire: str = "bytes") -> bool:
    """Whether `sig` is a signature of `message` under X (an element, or its 32-byte encoding when
    wire == "bytes").  Total: every malformed input gives False."""
    if wire not in WIRES:
        raise ValueError(f"wire must be one of {', '.join(WIRES)}, got {wire!r}")
    if not (isinstance(message, bytes) and len(message) == MESSAGE_BYTES and isinstance(sig, Signature)
            and isinstance(sig.R, bytes) and len(sig.R) == 32 and isinstance(sig.s, int) and 0 <= sig.s < G.ell):
        return False
    try:
        if wire == "bytes":
            X = G.decode(X) if isinstance(X, bytes) else None
        R = G.decode(sig.R)
    except G.InvalidEncoding:
        return False
    if X is None or not G.is_element(X) or X.is_identity():
        return False
    e = challenge(sig.R, message)
    return G.mul_base(sig.s) == R + G.mul(X, e)


def run(messages: int, wire: str = "bytes", seed: str = "toy schnorr") -> dict:
    """Sign and verify `messages` digests; {step: callable} of one signature's steps, for counting
    and timing (each callable does the same work every call)."""
    rng = random.Random(seed)
    x, X = keygen(rng)
    public = G.encode(X) if wire == "bytes" else X
    msgs = [rng.randbytes(MESSAGE_BYTES) for _ in range(messages)]
    sigs = [sign(x, m, rng) for m in msgs]
    for m, s in zip(msgs, sigs):
        if not verify(public, m, s, wire):
            raise InvalidSignature("a fresh signature did not verify")
    return {"keygen": lambda: keygen(rng),
            "sign": lambda: sign(x, msgs[0], rng),
            "verify": lambda: verify(public, msgs[0], sigs[0], wire)}
