"""Counting primitive operations by running the code.

Scheme code calls ``tally(key)`` wherever it performs a priced primitive (the
group wrappers in ``costbook.groups`` do it for you).  Outside a ``counting()``
block a tally costs one list check and records nothing, so the same code runs
in benchmarks and in counting mode.

    >>> from costbook.prices.counting import counting, tally
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


def count_differences(priced, tallied) -> list:
    """(key, priced count, tallied count) of every key whose two counts differ (a key on one side only
    counts 0 on the other), by key: what a cost formula prices against what running the code tallied."""
    import math
    return [(k, priced.get(k, 0), tallied.get(k, 0)) for k in sorted(set(priced) | set(tallied))
            if not math.isclose(priced.get(k, 0), tallied.get(k, 0), rel_tol=1e-9, abs_tol=1e-12)]


def describe_differences(scheme: str, step: str, where: str, differences) -> str:
    """One line naming the scheme, the step, the options and each operation with both counts."""
    return (f"scheme {scheme!r}, step {step!r} at {where}: "
            + "; ".join(f"{k} priced {p:g} time(s) by the formula, tallied {t:g} by running the code"
                        for k, p, t in differences))
