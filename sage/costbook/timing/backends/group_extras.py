"""Primitives the protocols need that the group backends do not measure (the punch cards' first):

Keys:

    <group>/scalar_inv        k^{-1} mod the group order, for ristretto255 (mod ell), bls12_381
                              and bn254 (in F_r): the client's unmasking, Boneh-Boyen signing
    bls12_381/g{1,2}_encode   ZCash point compression (48 / 96 bytes)
    bls12_381/g{1,2}_decode   ZCash point decompression with the subgroup check
    hashset/lookup/<size>     the spent-card set, as the book's Sage code keeps it

Backends:

    sage        what ``costbook.schemes.punchcard`` does: Python's ``pow(k, -1, q)``
                (a binary extended gcd on Python integers) and a Python ``set`` of
                32-byte secrets (the same structure as the ``python`` backend of
                ``costbook.timing.backends.hashing``, measured again under ``sage`` so that a
                validation run prices every key of a step in one backend)
    libsodium   ``crypto_core_ristretto255_scalar_invert`` (constant time, an addition
                chain of about 250 squarings and 40 multiplications mod ell)
    arkworks    py-arkworks-bls12381: ``Scalar.inverse()``; ``to_compressed_bytes`` (from
                projective coordinates: one field inversion) and ``from_compressed_bytes``
                (square root and arkworks' subgroup check)

The points encoded and decoded are multiples of the generators by a fixed full-size scalar,
held in projective form where the library keeps one (arkworks), as a protocol holds them.
"""
from __future__ import annotations

import ctypes
import random

from . import BackendUnavailable, require
from ...groups import orders
from ..harness import Benchmark
from .hashing import PROBES, SET_SIZES, _hashset

ORDERS = orders.ORDERS              # bn254: the mixnet's signatures


def _scalar(group: str) -> int:
    return random.Random(f"costbook {group}/scalar_inv").randrange(1, ORDERS[group])


def _sage_inv(group: str):
    k, q = _scalar(group), ORDERS[group]
    return lambda: pow(k, -1, q)


def _libsodium_inv():
    from . import libsodium
    so = libsodium.lib()
    f = so.crypto_core_ristretto255_scalar_invert
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    k = _scalar("ristretto255").to_bytes(32, "little")
    out = ctypes.create_string_buffer(32)
    return lambda: f(out, k)


def _arkworks_inv():
    Scalar = require("py_arkworks_bls12381", "py-arkworks-bls12381").Scalar
    k = Scalar.from_be_bytes(_scalar("bls12_381").to_bytes(32, "big"))
    return lambda: k.inverse()


def _point_scalar() -> int:
    return random.Random("costbook bls12_381 encodings").randrange(1, ORDERS["bls12_381"])


def _sage_codec(group: str, op: str):
    from ...groups import pairing_curves as P
    C = P.BLS12_381
    k = _point_scalar()
    X = k * (C.G1 if group == "g1" else C.G2)
    if op == "encode":
        return lambda: P.compress(X, C)
    data = P.compress(X, C)
    return lambda: P.decompress(data, group, C)


def _arkworks_codec(group: str, op: str):
    ark = require("py_arkworks_bls12381", "py-arkworks-bls12381")
    G1Point, G2Point, Scalar = ark.G1Point, ark.G2Point, ark.Scalar
    cls = G1Point if group == "g1" else G2Point
    X = cls() * Scalar.from_be_bytes(_point_scalar().to_bytes(32, "big"))
    if op == "encode":
        return lambda: X.to_compressed_bytes()
    data = bytes(X.to_compressed_bytes())
    return lambda: cls.from_compressed_bytes(data)


def _available(check) -> bool:
    try:
        check()
    except (BackendUnavailable, ImportError, AttributeError, OSError):
        return False
    return True


def benchmarks() -> list:
    out = [Benchmark(f"{g}/scalar_inv", "sage", lambda g=g: _sage_inv(g), note="pow(k, -1, q)")
           for g in ORDERS]
    out += [Benchmark(f"bls12_381/{g}_{op}", "sage", lambda g=g, op=op: _sage_codec(g, op),
                      note="costbook.groups.pairing_curves compress/decompress")
            for g in ("g1", "g2") for op in ("encode", "decode")]
    out += [Benchmark(f"hashset/lookup/{size}", "sage", lambda size=size: _hashset(size),
                      per_call=PROBES, note="a Python set of 32-byte secrets, as the Sage server keeps it")
            for size in SET_SIZES]
    if _available(_libsodium_inv):
        out.append(Benchmark("ristretto255/scalar_inv", "libsodium", _libsodium_inv,
                             note="crypto_core_ristretto255_scalar_invert"))
    if _available(_arkworks_inv):
        out.append(Benchmark("bls12_381/scalar_inv", "arkworks", _arkworks_inv, note="Scalar.inverse()"))
        out += [Benchmark(f"bls12_381/{g}_{op}", "arkworks", lambda g=g, op=op: _arkworks_codec(g, op),
                          note="to_compressed_bytes" if op == "encode" else "from_compressed_bytes (checked)")
                for g in ("g1", "g2") for op in ("encode", "decode")]
    return out
