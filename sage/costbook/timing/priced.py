"""The keys the book prices: what ``costbook measure --profile quick`` times.

The quick profile is a reader's measurement (and ``make book``'s): it times the (backend, key)
pairs that some price in the book reads, not every benchmark of every backend (the full profile
does that).  A pair is *priced* when reading it is part of a scheme's estimate (``costbook
estimate``, the chapters' tables and the live page), at any point of the grid its page offers
(``live.grid``), with the scheme's own backend order, or of a chapter's pricing with the measured
machine's file, including the measured sizes a derivation rule reads to price a size nobody measured
(``cost.DERIVATIONS``: the other exponent lengths and moduli of a modexp, the other sizes of an MSM).
Each scheme declares its own in its model (``PRICED_KEYS``); chapter 1's are ``CORE``.

The rest is left out of a quick file, and the book already does without it: a size that is not
measured is priced, where an estimate allows it, by ``cost.DERIVATIONS`` from the measured sizes
around it, the same rules (and the same intervals) as with any file; a chapter's table of a
backend's measured keys shows fewer rows, and ``costbook measure --profile full`` measures them all.

``tests/test_quick_profile.py`` checks that every key a scheme's estimates price is among its own
PRICED_KEYS, that every key here has a benchmark, and that the chapters' pricing runs on a file holding
these keys only.
"""
from __future__ import annotations

from ..prices.keys import modexp_keys
from .backends.modexp import MODULUS_BITS

#: backend -> the keys chapter 1 prices beside the schemes: GMP's modexp at every benchmarked size (its
#: tables of the measured machine)
CORE: dict = {"gmp": frozenset(modexp_keys(MODULUS_BITS))}


def priced_keys() -> dict:
    """backend -> the keys the book prices: ``CORE`` and every scheme's own ``PRICED_KEYS`` (its model's: what
    its estimates read at any point of its page's grid, and what its chapter prices beside them), read
    through the registry, so that a scheme added declares its keys in its folder."""
    from .. import registry
    out = {b: set(keys) for b, keys in CORE.items()}
    for name in registry.in_book_order():
        for backend, keys in getattr(registry.model(name), "PRICED_KEYS", {}).items():
            out.setdefault(backend, set()).update(keys)
    return {b: frozenset(keys) for b, keys in out.items()}


def is_priced(backend: str, key: str) -> bool:
    """Whether the book prices `key` measured in `backend` (the quick profile times it); gathers the
    schemes' keys at each call (``priced_keys`` once, to ask of many)."""
    return key in priced_keys().get(backend, ())


def selection_words() -> str:
    """The quick profile's selection in a sentence, for a measurement file's provenance."""
    n = sum(len(v) for v in priced_keys().values())
    return (f"the {n} keys the book prices (costbook.timing.priced: chapter 1's and every scheme's PRICED_KEYS, its "
            f"estimates' and its chapter's prices of the measured machine); the others are left out: an unmeasured "
            f"size is priced by cost.DERIVATIONS from the measured sizes around it, and a table of measured keys "
            f"shows the keys measured (--profile full measures every benchmark)")
