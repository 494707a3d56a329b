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
        def ledger_rows() -> list; def ledger_claims() -> dict      # its rows in the ledger

    manifest.py  what the book keeps for the scheme (MANIFEST_API): its chapter, its reader's title
                 and section id, its published files, its bibliography keys, its seed notes and
                 errata, the small validation runs the tests make
    comparison.py  its rows in the comparison chapter: rows(reference), prices_without_spread(),
                 EXPORTS (names the comparison chapter reads as compare.<name>)
    fixtures/    optional: committed keys or data the chapter needs to run fast

so the chapter, the CLI and the tests call one formula.  ``estimate`` takes its prices only from
`source` (and from the scheme's own published files, named in its seed.py), never from the
environment.

Schemes are discovered, never listed: every subpackage of this package (every folder on
``__path__``) holding a ``model.py`` is a scheme, named by its folder.  ``REGISTRY`` is a live
mapping name -> model module path over that scan, so a folder added to ``__path__`` (the tests'
toy scheme) is a scheme at once.  ``get(name)`` loads a model and checks it on loading: every name
of MODEL_API present, every option's bounds well formed (a SchemeError names the scheme and field).
"""
from __future__ import annotations

import importlib
import numbers
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path


class SchemeError(ValueError):
    """A discovered scheme that does not meet the contract, named with what is wrong."""


def _scan() -> dict:
    """{name: model module path} of every subpackage on ``__path__`` holding a model.py, by name."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        folder = Path(getattr(info.module_finder, "path", "")) / info.name
        if info.ispkg and (folder / "model.py").is_file() and info.name not in found:
            found[info.name] = f"{__name__}.{info.name}.model"
    return dict(sorted(found.items()))


class _Registry(Mapping):
    """name -> model module path, scanned afresh on every use (a directory listing per folder)."""

    def __getitem__(self, name):
        return _scan()[name]

    def __iter__(self):
        return iter(_scan())

    def __len__(self):
        return len(_scan())

    def __repr__(self):
        return f"REGISTRY({_scan()!r})"


REGISTRY: Mapping[str, str] = _Registry()

#: the functions and names every registered model module has (the CLI calls them)
MODEL_API = ("OPTIONS", "PUBLISHED", "estimate", "format_estimate", "validate", "format_validation")


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


def option(default, allowed, why: str = "", words: str = ""):
    """A field of a scheme's ``seed.Parameters``: its default and what it admits (a tuple of
    choices or Bounds), why those bounds, and what it is in its chapter's words and units ("spent
    cards in the server's set"; the live estimate's control says it); ``options`` turns the fields
    into the CLI's OPTIONS, ``option_words`` gives the words."""
    return field(default=default, metadata={"allowed": allowed, "why": why, "words": words})


def option_words(parameters) -> dict:
    """{name: the chapter's words for the option} of a ``seed.Parameters`` dataclass (its name where
    the field states none)."""
    return {f.name: f.metadata.get("words") or f.name for f in fields(parameters)}


@dataclass(frozen=True)
class StepGroup:
    """Steps that one model prices, shown together in the chapter's live estimate: `heading` says
    which model; `steps`, the labels of its ``price`` calls, are the names the chapter's tables print
    (one constant serves both); `note`, one line where the group measures something other than a
    group beside it.  A model lists them in ``STEP_GROUPS``; ``costbook.live`` exports them."""
    heading: str
    steps: tuple
    note: str = ""


def options(parameters) -> dict:
    """OPTIONS of a ``seed.Parameters`` dataclass: {name: (default, allowed)}, checked as the model
    that calls this is loaded (``check_options``: a SchemeError names the scheme and the field)."""
    out = {f.name: (f.default, f.metadata.get("allowed")) for f in fields(parameters)}
    module = getattr(parameters, "__module__", "")
    scheme = module.split(".")[2] if module.startswith(f"{__name__}.") else module
    check_options(scheme, out)
    return out


def check_parameters(params) -> None:
    """Raise a ValueError naming the first field of `params` outside what it admits."""
    for f in fields(params):
        value, allowed = getattr(params, f.name), f.metadata["allowed"]
        if isinstance(allowed, Bounds):
            if value not in allowed:
                raise ValueError(f"{f.name} must be an integer in {allowed}, got {value!r}")
        elif value not in allowed:
            raise ValueError(f"{f.name} must be one of {', '.join(map(str, allowed))}, got {value!r}")


def check_options(scheme: str, options_: dict) -> None:
    """Raise a SchemeError naming the scheme and the field of the first malformed option: bounds
    that are not two integers low <= high, no choices, or a default outside what it admits."""
    if not isinstance(options_, dict):
        raise SchemeError(f"scheme {scheme!r}: OPTIONS must be a dict, got {type(options_).__name__}")
    for name, spec in options_.items():
        where = f"scheme {scheme!r}, option {name!r}"
        if not (isinstance(spec, tuple) and len(spec) == 2):
            raise SchemeError(f"{where}: must be (default, allowed), got {spec!r}")
        default, allowed = spec
        if isinstance(allowed, Bounds):
            for end in ("low", "high"):
                v = getattr(allowed, end)
                if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                    raise SchemeError(f"{where}: Bounds.{end} must be an integer, got {v!r}")
            if allowed.low > allowed.high:
                raise SchemeError(f"{where}: Bounds low {allowed.low} above high {allowed.high}")
        elif not (isinstance(allowed, tuple) and allowed and all(isinstance(c, str) for c in allowed)):
            raise SchemeError(f"{where}: allowed must be Bounds(low, high) or a tuple of strings, got {allowed!r}")
        if default not in allowed:
            raise SchemeError(f"{where}: the default {default!r} is outside {allowed}")


def check_model(name: str, module) -> None:
    """The checks made when a scheme is loaded (``get``): MODEL_API present, options well formed."""
    missing = [a for a in MODEL_API if not hasattr(module, a)]
    if missing:
        raise SchemeError(f"scheme {name!r}: {module.__name__} has no {', '.join(missing)} (schemes.MODEL_API)")
    check_options(name, module.OPTIONS)


def get(name: str):
    """The model module of scheme `name`, checked (``check_model``) on loading."""
    registry = _scan()
    if name not in registry:
        known = ", ".join(sorted(registry)) or "none yet"
        raise KeyError(f"unknown scheme {name!r} (registered: {known})")
    module = importlib.import_module(registry[name])
    check_model(name, module)
    return module


#: what a scheme's manifest.py declares (``docs/adding-a-scheme.md``)
MANIFEST_API = ("CHAPTER", "TITLE", "SECTION", "PUBLISHED_FILES", "BIBLIOGRAPHY", "SEED_NOTES", "SEED_ERRATA",
                "VALIDATION_CASES", "CALIBRATION_CASES")


def _own_module(name: str, part: str):
    """costbook.schemes.<name>.<part>, or a SchemeError when the scheme's folder has no <part>.py."""
    if name not in _scan():
        raise KeyError(f"unknown scheme {name!r} (registered: {', '.join(_scan()) or 'none yet'})")
    target = f"{__name__}.{name}.{part}"
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        if e.name != target:
            raise
        raise SchemeError(f"scheme {name!r}: no {part}.py (docs/adding-a-scheme.md)") from None


def manifest(name: str):
    """The manifest module of scheme `name` (``costbook.schemes.<name>.manifest``), checked."""
    module = _own_module(name, "manifest")
    missing = [a for a in MANIFEST_API if not hasattr(module, a)]
    if missing:
        raise SchemeError(f"scheme {name!r}: its manifest.py has no {', '.join(missing)} (schemes.MANIFEST_API)")
    return module


def comparison(name: str):
    """The comparison module of scheme `name`: its rows in the comparison chapter."""
    manifest(name)
    return _own_module(name, "comparison")


def _chapter_order(name: str) -> tuple:
    try:
        return (0, Path(manifest(name).CHAPTER).name, name)
    except SchemeError:                 # no usable manifest: last (what needs one says so)
        return (1, "", name)


def seed_notes() -> dict:
    """{number a seed note's file name starts with: its references.bib key}, from every scheme's
    manifest (``SEED_NOTES``): tables cite a seed line by its note's key, never by its file name."""
    return {k: v for s in in_book_order() for k, v in manifest(s).SEED_NOTES.items()}


def in_book_order() -> tuple:
    """The discovered schemes in the order of their chapters (the chapter file names sort the book);
    a scheme without a usable manifest comes last."""
    return tuple(sorted(_scan(), key=_chapter_order))
