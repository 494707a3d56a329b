"""The schemes the book covers, registered for `costbook estimate` and `costbook validate`.

The contract (``docs/adding-a-scheme.md``; ``tests/test_architecture.py`` checks it): a scheme is a
package ``costbook.schemes.<name>`` whose name is its registry name, holding

    seed.py      what its seed publishes, as data, with seed file and line; named parameter sets
    <protocol modules>                 the scheme in Sage (no imports from other schemes)
    model.py     the cost model, which the CLI calls:

        OPTIONS = {"<option>": (default, choices)}   # choices: a tuple of strings, or Bounds(low, high)
        PUBLISHED = "<name of its published measurement file>"    # what --source published means
        def estimate(source: MeasurementSet, backends=None, **options) -> dict    # JSON-ready
        def format_estimate(result: dict) -> str                                  # the text output
        def validate(**options) -> dict                 # time the Sage code against its counts
        def format_validation(result: dict) -> str
        VALIDATION_BOUNDS = {"<step glob>": bound}    # beyond the default 5%, each with its reason

    fixtures/    optional: committed keys or data the chapter needs to run fast

so the chapter, the CLI and the tests call one formula.  ``estimate`` takes its prices only from
`source` (and from the scheme's own published files, named in its seed.py), never from the
environment.  A chapter adds its scheme here when it lands.
"""
from __future__ import annotations

import numbers

import importlib
from dataclasses import dataclass, field, fields

REGISTRY: dict[str, str] = {
    "cs03": "costbook.schemes.cs03.model",
    "punchcard": "costbook.schemes.punchcard.model",
    "mixnet": "costbook.schemes.mixnet.model",
    "veccom": "costbook.schemes.veccom.model",
}

#: the functions and names every registered model module has (the CLI calls them)
MODEL_API = ("OPTIONS", "PUBLISHED", "estimate", "format_estimate", "validate", "format_validation",
             "VALIDATION_BOUNDS")


@dataclass(frozen=True)
class Bounds:
    """The integers an option admits: low <= value <= high, and 0 too when `zero` says what 0 means.

    Every numeric option has them, chosen so that nothing the scheme does not allow is priced and
    no estimate hangs or allocates without bound."""
    low: int
    high: int
    zero: str | None = None

    def __contains__(self, value) -> bool:
        # numbers.Integral, not int: a Sage Integer (a chapter's PUNCHES = 10) is an integer too
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            return False
        return self.low <= value <= self.high or (value == 0 and self.zero is not None)

    def __str__(self) -> str:
        return f"[{self.low}, {self.high}]" + (f" (or 0: {self.zero})" if self.zero else "")


def option(default, allowed, why: str = ""):
    """A field of a scheme's ``seed.Parameters``: its default and what it admits (a tuple of
    choices or Bounds), and why those bounds; ``options`` turns the fields into the CLI's OPTIONS."""
    return field(default=default, metadata={"allowed": allowed, "why": why})


def options(parameters) -> dict:
    """OPTIONS of a ``seed.Parameters`` dataclass: {name: (default, allowed)}."""
    return {f.name: (f.default, f.metadata["allowed"]) for f in fields(parameters)}


def check_parameters(params) -> None:
    """Raise a ValueError naming the first field of `params` outside what it admits."""
    for f in fields(params):
        value, allowed = getattr(params, f.name), f.metadata["allowed"]
        if isinstance(allowed, Bounds):
            if value not in allowed:
                raise ValueError(f"{f.name} must be an integer in {allowed}, got {value!r}")
        elif value not in allowed:
            raise ValueError(f"{f.name} must be one of {', '.join(map(str, allowed))}, got {value!r}")


def get(name: str):
    if name not in REGISTRY:
        known = ", ".join(sorted(REGISTRY)) or "none yet"
        raise KeyError(f"unknown scheme {name!r} (registered: {known})")
    return importlib.import_module(REGISTRY[name])
