"""The schemes the book covers, registered for `costbook estimate` and `costbook validate`.

Each scheme's cost module exposes

    OPTIONS   = {"params": (default, choices), "model": (default, choices), ...}
    PUBLISHED = "<name of its published measurement file>"   # what --source published means
    def estimate(source: MeasurementSet, backends=None, **options) -> dict   # JSON-ready
    def validate(**options) -> dict                                          # optional

so the chapter, the CLI and the tests call one formula.  A chapter adds its
scheme here when it lands.
"""
from __future__ import annotations

import importlib

REGISTRY: dict[str, str] = {
    "cs03": "costbook.schemes.cs03.model",
    "punchcard": "costbook.schemes.punchcard.model",
    "mixnet": "costbook.schemes.mixnet.model",
    "veccom": "costbook.schemes.vectorcommit.model",
}


def get(name: str):
    if name not in REGISTRY:
        known = ", ".join(sorted(REGISTRY)) or "none yet"
        raise KeyError(f"unknown scheme {name!r} (registered: {known})")
    return importlib.import_module(REGISTRY[name])
