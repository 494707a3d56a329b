"""Counting primitive operations by running the code.

Scheme code calls ``tally(key)`` wherever it performs a priced primitive (the
group wrappers in ``costbook.groups`` do it for you).  Outside a ``counting()``
block a tally costs one list check and records nothing, so the same code runs
in benchmarks and in counting mode.

    >>> from costbook.counting import counting, tally
    >>> with counting() as c:
    ...     tally("modexp/6144/256"); tally("modexp/6144/256"); tally("sha256/64B")
    >>> dict(c)
    {'modexp/6144/256': 2, 'sha256/64B': 1}
"""
from __future__ import annotations

from contextlib import contextmanager

from .cost import Counts

_active: list[Counts] = []


@contextmanager
def counting():
    """Collect every tally made inside the block into a fresh Counts; blocks nest."""
    counts = Counts()
    _active.append(counts)
    try:
        yield counts
    finally:
        _active.pop()


def tally(key: str, n: int = 1) -> None:
    """Record n uses of the primitive `key` in every open counting() block."""
    for counts in _active:
        counts.add(key, n)


def is_counting() -> bool:
    return bool(_active)
