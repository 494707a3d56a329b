"""ristretto255 (RFC 9496) in two backends: keys ``ristretto255/{mul,mul_base,from_hash,encode,decode}``.

Backends:

    sage        costbook.groups.ristretto255, this book's readable Sage code:
                k*P through PARI's ellmul on Curve25519, k*B by a radix-16 table,
                the rest in Python over GF(2^255 - 19); not constant time
    libsodium   the system libsodium through ctypes (costbook.timing.backends.libsodium)

What one call does differs between them where libsodium has no finer call:

* ``mul``, ``mul_base``, ``from_hash``: libsodium takes and returns encodings, so
  its ``mul`` also decodes P and encodes the result, and its ``mul_base`` and
  ``from_hash`` also encode theirs (a decode and an encode are a few percent of
  a mul).  The Sage calls leave the result as a point.
* ``decode``: libsodium's ``crypto_core_ristretto255_is_valid_point`` is exactly
  its decoding (``ristretto255_frombytes``) with the point thrown away.
* ``encode``: libsodium has no call that only encodes, so only Sage prices it.

Inputs are fixed by a seed and pooled (``_inputs``); the libsodium calls go to the C functions
directly with prepared buffers, so that the few microseconds of Python around them are not the
binding's.
"""
from __future__ import annotations

import ctypes
import random

from . import BackendUnavailable
from ..harness import Benchmark

#: each timed call goes through a pool of this many different inputs (per_call = POOL): one input
#: repeated would touch the same entries of a fixed-base table on every call and find them in cache,
#: which a protocol's fresh scalars do not (the Sage k*B measures faster that way)
POOL = 32


def _inputs():
    """POOL of each: (scalars k, 64-byte preimages of points P, 64 uniform bytes for from_hash),
    the same on every run (fixed by a seed, so two runs time the same numbers): scalars uniform
    mod ell (full size), points the one-way map of random bytes."""
    from ...groups.ristretto255 import random_scalar
    rng = random.Random("costbook ristretto255 benchmarks")
    return ([random_scalar(rng) for _ in range(POOL)], [rng.randbytes(64) for _ in range(POOL)],
            [rng.randbytes(64) for _ in range(POOL)])


# ---------------------------------------------------------------------------
# sage

def _sage(op: str):
    from ...groups import ristretto255 as G
    ks, p_seeds, hs = _inputs()
    Ps = [G.from_uniform_bytes(s) for s in p_seeds]
    if op == "mul":
        pairs = list(zip(Ps, ks))
        return lambda: [P * k for P, k in pairs]
    if op == "mul_base":
        G.mul_base(ks[0])                      # builds the fixed-base table, outside the timing
        return lambda: [G.mul_base(k) for k in ks]
    if op == "from_hash":
        return lambda: [G.from_uniform_bytes(h) for h in hs]
    Qs = [P * k for P, k in zip(Ps, ks)]       # points with Z != 1, as protocols encode them
    if op == "encode":
        return lambda: [G.encode(Q) for Q in Qs]
    if op == "decode":
        data = [G.encode(Q) for Q in Qs]
        return lambda: [G.decode(d) for d in data]
    raise LookupError(f"no sage benchmark for ristretto255/{op}")


# ---------------------------------------------------------------------------
# libsodium

def _libsodium(op: str):
    from . import libsodium as S
    so = S.lib()
    ks, p_seeds, hs = _inputs()
    ns = [ctypes.create_string_buffer(k.to_bytes(S.SCALARBYTES, "little"), S.SCALARBYTES) for k in ks]
    out = ctypes.create_string_buffer(S.BYTES)
    ps = [S.crypto_core_ristretto255_from_hash(s) for s in p_seeds]
    if op == "mul":
        f, pairs = so.crypto_scalarmult_ristretto255, list(zip(ns, ps))
        return lambda: [f(out, n, p) for n, p in pairs]
    if op == "mul_base":
        f = so.crypto_scalarmult_ristretto255_base
        return lambda: [f(out, n) for n in ns]
    if op == "from_hash":
        f = so.crypto_core_ristretto255_from_hash
        return lambda: [f(out, h) for h in hs]
    if op == "decode":
        f = so.crypto_core_ristretto255_is_valid_point
        return lambda: [f(p) for p in ps]
    raise LookupError(f"no libsodium benchmark for ristretto255/{op}")


SAGE_OPS = ("mul", "mul_base", "from_hash", "encode", "decode")
LIBSODIUM_OPS = ("mul", "mul_base", "from_hash", "decode")

LIBSODIUM_NOTES = {
    "mul": "crypto_scalarmult_ristretto255: decode P, k*P, encode",
    "mul_base": "crypto_scalarmult_ristretto255_base: k*B, encode",
    "from_hash": "crypto_core_ristretto255_from_hash: the map, encode",
    "decode": "crypto_core_ristretto255_is_valid_point (= ristretto255_frombytes)",
}


def _libsodium_available() -> bool:
    from . import libsodium
    try:
        libsodium.lib()
    except BackendUnavailable:
        return False
    return True


def benchmarks() -> list:
    """The sage benchmarks always; libsodium's when the library loads."""
    benches = [Benchmark(f"ristretto255/{op}", "sage", lambda op=op: _sage(op), per_call=POOL,
                         note="readable Sage code, not constant time")
               for op in SAGE_OPS]
    if _libsodium_available():
        benches += [Benchmark(f"ristretto255/{op}", "libsodium", lambda op=op: _libsodium(op),
                              per_call=POOL, note=LIBSODIUM_NOTES[op])
                    for op in LIBSODIUM_OPS]
    return benches
