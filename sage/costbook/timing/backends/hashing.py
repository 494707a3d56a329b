"""Hashing and hash-set lookups (backend ``python``: CPython's hashlib and set).

``sha256/<n>B`` and ``sha512/<n>B`` hash one fixed n-byte input (from a seed) at each call
(OpenSSL underneath hashlib; a hash's time does not depend on its input's bytes).  ``hashset/lookup/<size>`` tests membership of 32-byte keys
in a set of <size> random 32-byte keys, half of the probes present and half
absent, over a pool of 1024 probes per call (so `per_call` = 1024).

What a lookup costs here: CPython caches the hash of a bytes object, so after
the first pass the probe keys' hashes are cached and the measured time is the
table probe itself (pointer chasing and one 32-byte comparison on a hit).  That
is the part that grows with the set size, as cache misses; the SipHash of the
key that a Rust HashSet computes on every lookup is priced separately, by the
hash keys above, if a model needs it.
"""
from __future__ import annotations

import hashlib
import random

from ..harness import Benchmark
from ...prices.keys import sizes

#: Input lengths measured by default: 64 bytes, and the inputs the vector commitments hash
#: (Merkle leaf 0x00 || n || 32-byte value = 41 B, inner node 0x01 || n || left || right = 73 B;
#: Pointproofs' "hash_to_fr" || len || 32-byte value = 46 B).  Any other length: ``benchmark``.
INPUT_BYTES = {"sha256": (41, 64, 73), "sha512": (46, 64)}
SET_SIZES = (1_000, 10_000, 100_000, 1_000_000)
PROBES = 1024


def _digest(name: str, length: int = 64):
    h = getattr(hashlib, name)
    data = random.Random(f"{name}/{length}").randbytes(length)
    return lambda: h(data).digest()


def benchmark(key: str, backend: str = "python") -> Benchmark:
    """The benchmark of any sha256/<n>B or sha512/<n>B key."""
    if backend != "python":
        raise LookupError(f"no hashing backend {backend!r} (have: python)")
    s = sizes(key)
    return Benchmark(key, backend, lambda: _digest(s["hash"], s["bytes"]))


def _hashset(size: int):
    rng = random.Random(f"hashset/{size}")
    members = [rng.randbytes(32) for _ in range(size)]
    table = set(members)
    present = [bytes(bytearray(k)) for k in rng.sample(members, PROBES // 2)]  # equal, not identical
    absent = [rng.randbytes(32) for _ in range(PROBES // 2)]
    probes = [k for pair in zip(present, absent) for k in pair]

    def op():
        hits = 0
        for k in probes:
            hits += k in table
        return hits
    return op


def benchmarks() -> list:
    out = [Benchmark(f"{name}/{n}B", "python", lambda name=name, n=n: _digest(name, n))
           for name, lengths in INPUT_BYTES.items() for n in lengths]
    out += [Benchmark(f"hashset/lookup/{size}", "python", lambda size=size: _hashset(size),
                      per_call=PROBES) for size in SET_SIZES]
    return out
