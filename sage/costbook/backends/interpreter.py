"""The interpreter's work in the book's own Python code (backend ``python``; Sage runs the same code).

Where the book's code spends as much time in the Python around its primitives as in them (the
Merkle tree: a SHA-256 of 73 bytes costs about as much as assembling its input by concatenation,
calling the hashing helper and walking the tree), a validation that priced the primitives only
would blame the model for the interpreter.  Those units are keys of their own (``python/<code>/<unit>``
in ``costbook.keys``), each measured by running the code's own function with the primitive taken out.

A backend may not import a scheme (``tests/test_architecture.py``), so the scheme module that owns
the code registers its units here when it is imported (``register``).  ``costbook measure`` does not
run them: they price this Python code, not a scheme, and no published or reference file has them.
"""
from __future__ import annotations

from typing import Callable

from ..harness import Benchmark
from ..keys import check_key

#: key -> Benchmark, filled by the scheme modules that own the code
_REGISTERED: dict = {}


def register(key: str, prepare: Callable[[], Callable[[], object]], per_call: int = 1, note: str = "") -> None:
    """Register the benchmark of one interpreter unit: `prepare()` returns the callable that runs it."""
    _REGISTERED[check_key(key)] = Benchmark(key, "python", prepare, per_call, note)


def benchmark(key: str, backend: str = "python") -> Benchmark:
    if backend != "python":
        raise LookupError(f"no interpreter backend {backend!r} (have: python)")
    try:
        return _REGISTERED[key]
    except KeyError:
        raise LookupError(f"no benchmark of {key!r}: interpreter units are registered by the module whose "
                          f"code they price, on import (python/merkle/*: costbook.schemes.veccom.merkle); "
                          f"registered: {', '.join(sorted(_REGISTERED)) or 'none'}") from None


def benchmarks() -> list:
    return list(_REGISTERED.values())
