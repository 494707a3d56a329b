"""Input checks shared by the verifiers: integers that are really integers, in a stated range.

A verifier is a total function: whatever it is given, it returns True or False.  These helpers
answer the questions its entry guard asks without raising and without arithmetic on the value:
``integer`` refuses bool, float, str and None (``operator.index`` alone would take bool as 0/1),
and the range checks compare sizes before anything is computed with a number.
"""
from __future__ import annotations

import operator

#: the public operations that do not tally, and why no formula prices them (tests/test_groups_tally.py)
UNTALLIED = dict.fromkeys(("integer", "index", "scalar", "is_bytes", "byte_string", "sequence"),
                          "checks an input's type, range or length: no group operation")


def integer(x):
    """x as a Python int if it is an integer type other than bool (int, Sage Integer, numpy int),
    else None."""
    if isinstance(x, bool):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def index(x, n: int):
    """x as an int if it is an integer in [0, n), else None (bool and float are no positions)."""
    i = integer(x)
    return i if i is not None and 0 <= i < n else None


def scalar(x, q: int, nonzero: bool = False):
    """x as an int if it is a canonical scalar: an integer in [0, q) (or [1, q)), else None."""
    k = integer(x)
    return k if k is not None and (1 if nonzero else 0) <= k < q else None


def is_bytes(x, length: int | None = None) -> bool:
    """bytes (not str, not a bytearray that could change under us) of the given length."""
    return isinstance(x, bytes) and (length is None or len(x) == length)


def byte_string(x) -> bytes | None:
    """x as bytes if it is a byte string (bytes, bytearray, memoryview), copied so that a later change
    to a bytearray cannot change what was hashed; None for anything else (a str, or an int, which
    ``bytes()`` would silently turn into that many zero bytes)."""
    if isinstance(x, bytes):
        return x
    if isinstance(x, (bytearray, memoryview)):
        return bytes(x)
    return None


def sequence(x, length: int | None = None, min_length: int = 0) -> bool:
    """A list or tuple (not a str, a dict or a generator) with the given length, or at least min_length."""
    if not isinstance(x, (list, tuple)):
        return False
    return len(x) == length if length is not None else len(x) >= min_length
