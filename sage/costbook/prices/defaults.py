"""Which backend prices a key by default: one table, used by every scheme.

Each key family is priced first by the native library that serves it (the fastest honest price of
the operation), then by the book's own Sage code, which is what validation runs.  A scheme passes
`backends` to choose otherwise; the one standing exception, with its reason, is ``SAME_LIBRARY``.
"""
from __future__ import annotations

#: key family (the part of a key before the first '/', or 'sha'/'hashset') -> native backends
NATIVE = {
    "modexp": ("gmp",),             # GMP through gmpy2
    "modmul": ("gmp",),
    "modexp_fixed": ("gmp",),
    "intdiv": ("gmp",),
    "ristretto255": ("libsodium",),
    "bls12_381": ("arkworks",),
    "bn254": ("mcl",),              # the only native BN254 binding measured
    "sha256": ("python",),          # hashlib: the same call from Sage code
    "sha512": ("python",),
    "hashset": ("python",),         # CPython's set
}
#: what prices a key no native library has
FALLBACK = ("sage",)

#: one library for BN254 and BLS12-381 alike, so that a price ratio between the curves is the
#: curves' ratio, not two libraries' (the mixnets' curve switch; mcl also stands in for PBC, the
#: artifact's library), and GMP for its Paillier arithmetic
SAME_LIBRARY = {"curves": ("mcl",), "artifact": ("mcl", "gmp")}


def order(families, fallback: bool = True, source=None) -> list:
    """The preference list for keys of `families` (in that order), then FALLBACK; only the
    backends `source` has when a source is given."""
    out = []
    for fam in families:
        if fam not in NATIVE:
            raise KeyError(f"no default backend for key family {fam!r} (known: {', '.join(NATIVE)})")
        out += [b for b in NATIVE[fam] if b not in out]
    if fallback:
        out += [b for b in FALLBACK if b not in out]
    return [b for b in out if source is None or b in source.backends]
