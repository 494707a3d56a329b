"""RFC 9380 hashing to BLS12-381 G1 and G2 (keys ``bls12_381/hash_to_g1``, ``bls12_381/hash_to_g2``).

Backends:

    sage        costbook.groups.hash_to_curve, this book's readable Sage code
    py_ecc      py_ecc.bls.hash_to_curve.hash_to_G1 / hash_to_G2 (pure Python)
    arkworks    py-arkworks-bls12381: G1Point / G2Point.hash_to_curve (Rust)

Each call hashes ``POOL`` different 32-byte messages (per_call = POOL) under the tag
that the IRTF BLS-signature draft uses for the suite's basic scheme (the "standard
DST"): the readable code takes a square root only where it needs one, so one message
repeated would time one branch of the map over and over.
The whole hash_to_curve is timed: expand_message_xmd, two SSWU maps with
their isogenies, the point addition and the cofactor clearing.  The result is
left in each library's own representation (Sage: an affine point; py_ecc:
projective coordinates; arkworks: its point object); nothing is serialised.
"""
from __future__ import annotations

import hashlib
import random

from . import BackendUnavailable, require
from ..harness import Benchmark

DST_G1 = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
DST_G2 = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_"
KEYS = {"g1": "bls12_381/hash_to_g1", "g2": "bls12_381/hash_to_g2"}


POOL = 16


def _messages() -> list:
    rng = random.Random("costbook hash_to_curve")
    return [rng.randbytes(32) for _ in range(POOL)]


def _sage(group: str):
    from ...groups import hash_to_curve as h2c
    fn, dst = (h2c.hash_to_g1, DST_G1) if group == "g1" else (h2c.hash_to_g2, DST_G2)
    msgs = _messages()
    return lambda: [fn(msg, dst) for msg in msgs]


def _py_ecc_lib():
    return require("py_ecc.bls.hash_to_curve", "py_ecc")


def _py_ecc(group: str):
    lib = _py_ecc_lib()
    fn, dst = (lib.hash_to_G1, DST_G1) if group == "g1" else (lib.hash_to_G2, DST_G2)
    msgs = _messages()
    return lambda: [fn(msg, dst, hashlib.sha256) for msg in msgs]


def _arkworks_lib():
    return require("py_arkworks_bls12381", "py-arkworks-bls12381")


def _arkworks(group: str):
    lib = _arkworks_lib()
    cls, dst = (lib.G1Point, DST_G1) if group == "g1" else (lib.G2Point, DST_G2)
    msgs = _messages()
    return lambda: [cls.hash_to_curve(msg, dst) for msg in msgs]


def _available(check) -> bool:
    try:
        check()
    except BackendUnavailable:
        return False
    return True


def benchmarks() -> list:
    backends = [("sage", _sage, "readable Sage code, not constant time")]
    if _available(_py_ecc_lib):
        backends.append(("py_ecc", _py_ecc, "pure Python"))
    if _available(_arkworks_lib):
        backends.append(("arkworks", _arkworks, ""))
    return [Benchmark(KEYS[group], name, lambda make=make, group=group: make(group), per_call=POOL, note=note)
            for name, make, note in backends for group in ("g1", "g2")]
