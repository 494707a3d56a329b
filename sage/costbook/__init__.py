"""costbook: primitive prices, cost formulas and executable specifications.

The library behind the book.  Layout:

- ``keys``          the primitive vocabulary (``modexp/6144/256``, ``bls12_381/pairing``, ...)
- ``cost``          count vectors and their pricing against measurement files
- ``counting``      counting primitive operations by running scheme code
- ``measurements``  the measurement-file schema, loading, validation, atomic writes
- ``harness``       the timing harness (warm-up, batching, robust statistics)
- ``backends/``     benchmarks of each primitive in each backend (Sage, GMP, libsodium, ...)
- ``groups/``       the groups written out in Sage (ristretto255, BLS12-381, BN254, hash-to-curve)
- ``schemes/``      one module per protocol: the scheme, its counts and its cost models
- ``book/``         the offline renderer of the Quarto book
- ``cli``           the ``costbook`` command (entered through ``launch``)
"""
__all__ = ["Counts", "Estimate", "MissingPrice", "price", "UnknownPrimitiveKey"]
__version__ = "0.1.0"

#: where each name of __all__ lives: read on first use (PEP 562), so that importing the package costs
#: nothing and the command's entry point (``launch``) is in charge before any slow import
_HOME = {"Counts": "cost", "Estimate": "cost", "MissingPrice": "cost", "price": "cost",
         "UnknownPrimitiveKey": "keys"}


def __getattr__(name):
    if name not in _HOME:
        raise AttributeError(f"module 'costbook' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
