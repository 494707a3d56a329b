"""The keys the book prices: what ``costbook measure --profile quick`` times.

The quick profile is a reader's measurement (and ``make book``'s): it times the (backend, key)
pairs that some price in the book reads, not every benchmark of every backend (the full profile
does that).  A pair is *priced* when reading it is part of a scheme's estimate (``costbook
estimate``, the chapters' tables and the live page), at any point of the grid its page offers
(``live.grid``), with the scheme's own backend order, or of a chapter's pricing with the measured
machine's file (``PRICED``), including the measured sizes a derivation rule reads to price a size
nobody measured (``cost.DERIVATIONS``: the other exponent lengths and moduli of a modexp, the other
sizes of an MSM).

The rest is left out of a quick file, and the book already does without it: a size that is not
measured is priced, where an estimate allows it, by ``cost.DERIVATIONS`` from the measured sizes
around it, the same rules (and the same intervals) as with any file; a chapter's table of a
backend's measured keys shows fewer rows, and ``costbook measure --profile full`` measures them all.

``tests/test_quick_profile.py`` checks that every key the schemes' estimates price is here, that
every key here has a benchmark, and that the chapters' pricing runs on a file holding these keys only.
"""
from __future__ import annotations

from .backends.modexp import MODULUS_BITS, exponent_bits_for

_MODEXP = tuple(f"modexp/{m}/{e}" for m in MODULUS_BITS for e in exponent_bits_for(m))
_CURVE_OPS = ("g1_mul", "g2_mul", "gt_exp", "pairing")

#: backend -> the keys of it that the book prices (see the module's docstring).  Besides the schemes'
#: estimates, the chapters' pricing with the measured machine's file: chapter 2's Sage redemption
#: against the spent-set size (its figure beside the live run, in Sage's ristretto255), chapter 4's
#: CS03 prices in each modexp backend (GMP's constant-time powering, PARI and Sage next to GMP's) and
#: its what-if figure, chapter 5's mixnet prices next to the artifact's (mcl and Sage) and its
#: accumulator witness (GMP and Sage).  Left out: what chapters 1 and 3 show side by side where the
#: file has it (the pure-Python py_ecc, Sage's MSMs, fixed-base tables, serialisations and
#: hash-to-curve, PARI at 2048 bits, SHA-2 of 64 bytes, the Sage-object hash sets).
PRICED: dict = {
    # GMP: every modexp of the schemes and of chapter 1's sizes, and the mixnets' Paillier arithmetic
    "gmp": frozenset(_MODEXP + ("modexp/2038/441", "modexp/2050/80", "modexp/2050/180", "modexp/4099/80",
                                "modexp/4099/82", "modexp/4099/180", "modexp/4099/2130", "modexp/4099/2170",
                                "modexp/4099/4099", "modexp_fixed/4099/1025/13", "modmul/2050", "modmul/4099",
                                "intdiv/4099/2050")),
    # chapter 4's CS03 in each modexp backend (its moduli and exponent lengths, and the sizes around them)
    "gmp-sec": frozenset(_MODEXP),
    "pari": frozenset(k for k in _MODEXP if int(k.split("/")[1]) >= 3072),
    "sage": frozenset(_MODEXP + tuple(f"{c}/{op}" for c in ("bls12_381", "bn254") for op in _CURVE_OPS)
                      + ("bn254/scalar_inv",)
                      # chapter 2's Sage redemption against the spent-set size, priced with Sage's ristretto255
                      + tuple(f"ristretto255/{op}" for op in ("decode", "encode", "from_hash", "mul", "mul_base",
                                                                 "scalar_inv"))),
    "libsodium": frozenset(f"ristretto255/{op}" for op in ("decode", "from_hash", "mul", "mul_base", "scalar_inv")),
    "arkworks": frozenset(f"bls12_381/{op}" for op in (
        "g1_add", "g1_decode", "g1_encode", "g1_msm/16", "g1_msm/64", "g1_msm/256", "g1_msm/1024", "g1_mul",
        "g2_decode", "g2_encode", "g2_mul", "hash_to_g1", "hash_to_g2", "pairing", "pairing_product/2",
        "scalar_inv")),
    "mcl": frozenset(f"{c}/{op}" for c in ("bls12_381", "bn254")
                     for op in ("g1_add", "g1_mul", "g1_mul/80", "g1_mul/180", "g2_mul", "gt_exp", "pairing")),
    "python": frozenset(("hashset/lookup/1000", "hashset/lookup/10000", "hashset/lookup/100000",
                         "hashset/lookup/1000000", "sha256/41B", "sha256/73B", "sha512/46B")),
}


def is_priced(backend: str, key: str) -> bool:
    """Whether the book prices `key` measured in `backend` (the quick profile times it)."""
    return key in PRICED.get(backend, ())


def selection_words() -> str:
    """The quick profile's selection in a sentence, for a measurement file's provenance."""
    n = sum(len(v) for v in PRICED.values())
    return (f"the {n} keys the book prices (costbook.timing.priced.PRICED: the schemes' estimates and the chapters' "
            f"prices of the measured machine); the others are left out: an unmeasured size is priced by "
            f"cost.DERIVATIONS from the measured sizes around it, and a table of measured keys shows the "
            f"keys measured (--profile full measures every benchmark)")
