"""The schemes as the core knows them: one registry, at the bottom of the layering.

A scheme is a folder of the package ``costbook.schemes`` (any folder on its ``__path__``: the tests
add their toy scheme's), named by it; the contract (``docs/adding-a-scheme.md``, tests/test_architecture.py):

    seed.py      what its seed publishes, as data, with seed file and line; named parameter sets;
                 ``Parameters``, whose fields (``option``) are the CLI's options
    <protocol modules>                 the scheme in Sage (no imports from other schemes)
    counts.py    the cost formula: each step's counts, from the options (``step_counts``)
    model.py     the cost model (MODEL_API), which the CLI, the chapter and the tests call:

        OPTIONS = {"<option>": (default, choices)}   # choices: a tuple of strings, or Bounds(low, high)
        PUBLISHED = "<name of its published measurement file>"    # what --source published means
        def estimate(source: MeasurementSet, backends=None, **options) -> dict    # JSON-ready
        def format_estimate(result: dict) -> str                                  # the text output
        def validate(**options) -> dict                 # time the Sage code against its counts
        def format_validation(result: dict) -> str
        def ledger_rows() -> list; def ledger_claims() -> dict      # its rows in the ledger

    manifest.py  what the book keeps for the scheme (MANIFEST_API), data only (it imports nothing)
    comparison.py  its rows in the comparison chapter (``comparison``); fixtures/, optional: committed data

The core reads a manifest as data (``manifest``), running none of the scheme's code, which loads
only where it runs (``model``, ``comparison``).  Discovery refuses a broken folder (``scan``) and
every other scheme works; ``in_book_order()`` is the schemes the book shows.
"""
from __future__ import annotations

import builtins
import importlib
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import SimpleNamespace

from .system import toc
from .prices.measurements import project_root

#: the package whose folders are the schemes (its __path__: a folder added there is a scheme at once)
PACKAGE = "costbook.schemes"

#: the functions and names every registered model module has (the CLI calls them)
MODEL_API = ("OPTIONS", "PUBLISHED", "estimate", "format_estimate", "validate", "format_validation")

#: what a scheme's manifest.py declares (``docs/adding-a-scheme.md``): its chapter, its reader's title and
#: section id, its published files, its bibliography keys, its seed notes and errata, the small
#: validation runs the tests make
MANIFEST_API = ("CHAPTER", "TITLE", "SECTION", "PUBLISHED_FILES", "BIBLIOGRAPHY", "SEED_NOTES", "SEED_ERRATA",
                "VALIDATION_CASES", "CALIBRATION_CASES")


class SchemeError(ValueError):
    """A scheme that does not meet the contract, or cannot be loaded, named with what is wrong."""


# ---------------------------------------------------------------------------------------------
# Options: what a scheme's seed.Parameters admits

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


def option(default, allowed, why: str = "", words: str = "", values: dict | None = None):
    """A field of a scheme's ``seed.Parameters``: its default and what it admits (a tuple of
    choices or Bounds), why those bounds, and what it is in its chapter's words and units ("spent
    cards in the server's set"; the live estimate's control says it), and `values`, the words for
    choices whose name is a code ({"spec": "the scheme's, counted in Sage"}); ``options`` turns the
    fields into the CLI's OPTIONS, ``option_words`` and ``value_words`` give the words."""
    if values is not None and (not isinstance(allowed, tuple) or set(values) - set(allowed)):
        raise SchemeError(f"option words {sorted(values)}: words for values the option does not offer ({allowed})")
    return field(default=default, metadata={"allowed": allowed, "why": why, "words": words, "values": values or {}})


def option_words(parameters) -> dict:
    """{name: the chapter's words for the option} of a ``seed.Parameters`` dataclass (its name where
    the field states none)."""
    return {f.name: f.metadata.get("words") or f.name for f in fields(parameters)}


def value_words(parameters) -> dict:
    """{name: {choice: its words}} of the options of a ``seed.Parameters`` whose choices have words."""
    return {f.name: dict(f.metadata["values"]) for f in fields(parameters) if f.metadata.get("values")}


@dataclass(frozen=True)
class StepGroup:
    """Steps that one model prices, shown together in the chapter's live estimate: `heading` says
    which model; `steps`, the labels of its ``price`` calls, are the names the chapter's tables print
    (one constant serves both); `note`, one line where the group measures something other than a
    group beside it.  A model lists them in ``STEP_GROUPS``; ``costbook.book.live`` exports them."""
    heading: str     # "{option}" in it stands for that option's value, in words ("with {model} counts")
    steps: tuple
    note: str = ""


def options(parameters) -> dict:
    """OPTIONS of a ``seed.Parameters`` dataclass: {name: (default, allowed)}, checked as the model
    that calls this is loaded (``check_options``: a SchemeError names the scheme and the field)."""
    out = {f.name: (f.default, f.metadata.get("allowed")) for f in fields(parameters)}
    module = getattr(parameters, "__module__", "")
    scheme = module.split(".")[2] if module.startswith(f"{PACKAGE}.") else module
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
    """The checks made when a scheme's model is loaded: MODEL_API present, options well formed, every
    size validate runs bounded (``check_validation_bounds``)."""
    missing = [a for a in MODEL_API if not hasattr(module, a)]
    if missing:
        raise SchemeError(f"scheme {name!r}: {module.__name__} has no {', '.join(missing)} (MODEL_API)")
    check_options(name, module.OPTIONS)
    check_validation_bounds(name, module)


def validation_takes(module) -> set:
    """The options a scheme's validate takes by name (what it swallows with **kwargs it does not use)."""
    import inspect
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name for p in inspect.signature(module.validate).parameters.values() if p.kind in kinds}


def check_validation_bounds(name: str, module) -> None:
    """Every numeric option validate takes has its ``VALIDATION_BOUNDS`` (the sizes at which a validation
    runs the scheme's code in minutes, inside the option's own Bounds), and VALIDATION_BOUNDS names no
    other: a validation asked for a size its code cannot run at in minutes is refused in one line
    (``check_validation_options``), not left running."""
    declared = getattr(module, "VALIDATION_BOUNDS", {})
    where = f"scheme {name!r}: {module.__name__}.VALIDATION_BOUNDS"
    if not isinstance(declared, dict):
        raise SchemeError(f"{where} must be a dict of option: Bounds, got {type(declared).__name__}")
    takes = validation_takes(module)
    for opt, (_default, allowed) in module.OPTIONS.items():
        if opt not in takes or not isinstance(allowed, Bounds):
            continue
        bounds = declared.get(opt)
        if not isinstance(bounds, Bounds):
            raise SchemeError(f"scheme {name!r}, option {opt!r}: validate runs the code at the size it is given, and "
                              f"VALIDATION_BOUNDS gives {opt!r} no Bounds: add {opt!r}: Bounds(low, high) to "
                              f"{module.__name__}.VALIDATION_BOUNDS, high the largest size validate runs in minutes")
        if not (isinstance(bounds.low, int) and isinstance(bounds.high, int) and bounds.low <= bounds.high
                and bounds.low in allowed and bounds.high in allowed):
            raise SchemeError(f"scheme {name!r}, option {opt!r}: VALIDATION_BOUNDS {bounds} must be two integers "
                              f"low <= high inside the option's own {allowed}")
    for opt in declared:
        spec = module.OPTIONS.get(opt)
        if opt not in takes or spec is None or not isinstance(spec[1], Bounds):
            raise SchemeError(f"{where} names {opt!r}, which is no numeric option validate takes: remove it")


def check_validation_options(name: str, validation_bounds: Mapping, options: Mapping) -> None:
    """Refuse, in one line, a validation of `name` at a size outside its `validation_bounds` (the model's
    VALIDATION_BOUNDS), before any of its code runs: the CLI's guard, which the schemes' validate
    functions call too."""
    for opt, bounds in validation_bounds.items():
        value = options.get(opt)
        if value is not None and value not in bounds:
            flag = "--" + opt.replace("_", "-")
            raise ValueError(f"{flag} must be an integer in {bounds} for a validation run of {name} (it runs the "
                             f"scheme's code at that size), got {value!r}")


# ---------------------------------------------------------------------------------------------
# Discovery: each folder read on its own, its problem in one line

@dataclass(frozen=True)
class Folder:
    """A folder of the schemes' package that holds a model.py or a manifest.py."""
    name: str
    path: Path
    manifest: SimpleNamespace | None      # the manifest's names, read as data; None when refused
    problem: str | None = None            # why it is refused, one line; None when it is a scheme


def folders() -> list:
    """The folders scheme folders are looked for in: the schemes' package's __path__.  The package
    is the registry's plug-in point, so it is loaded here by name (it holds no code of a scheme)."""
    return [Path(p) for p in importlib.import_module(PACKAGE).__path__]


def add_folders(paths) -> None:
    """Look for schemes in `paths` too (a validation's fresh process finds them where its parent does)."""
    path = importlib.import_module(PACKAGE).__path__
    path.extend(str(p) for p in paths if str(p) not in path)


def _one_line(e: BaseException) -> str:
    if isinstance(e, SyntaxError):
        return f"{Path(e.filename or '?').name}, line {e.lineno}: {e.msg}"
    return " ".join(f"{type(e).__name__}: {e}".split())


_CACHE: dict = {}


def _cached(path: Path, read):
    """read(path), kept while the file's (mtime, size) stay the same: the registry is scanned at
    every use, and a folder's files are read again only when they change."""
    st = path.stat()
    key = (str(path), read.__name__)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == (st.st_mtime_ns, st.st_size):
        return hit[1]
    try:
        value = (read(path), None)
    except Exception as e:          # the folder's fault, kept as its one line
        value = (None, _one_line(e))
    _CACHE[key] = ((st.st_mtime_ns, st.st_size), value)
    return value


def _read_manifest(path: Path) -> SimpleNamespace:
    """The names a manifest.py assigns, run alone (not as part of its package: no scheme code runs,
    and a manifest that imports anything fails to read, and says so)."""
    namespace = {"__name__": "manifest", "__file__": str(path), "__builtins__": builtins}
    exec(compile(path.read_bytes(), str(path), "exec"), namespace)
    return SimpleNamespace(**{k: v for k, v in namespace.items() if k.isupper()})


def _compile_model(path: Path) -> bool:
    """Whether a module of the folder compiles (a syntax error is the folder's one line, before anything
    imports it: the model imports the protocol modules, and every scheme's ledger row imports the model)."""
    compile(path.read_bytes(), str(path), "exec")
    return True


def _read_folder(name: str, path: Path) -> Folder:
    where = f"scheme folder {name!r} ({path})"
    if not (path / "manifest.py").is_file():
        return Folder(name, path, None, f"{where}: no manifest.py (docs/adding-a-scheme.md)")
    if not (path / "model.py").is_file():
        return Folder(name, path, None, f"{where}: no model.py (docs/adding-a-scheme.md)")
    manifest, problem = _cached(path / "manifest.py", _read_manifest)
    if problem is not None:
        return Folder(name, path, None, f"{where}: {problem}")
    missing = [a for a in MANIFEST_API if not hasattr(manifest, a)]
    if missing:
        return Folder(name, path, None, f"{where}: its manifest.py has no {', '.join(missing)} (MANIFEST_API)")
    for module in [path / "model.py"] + sorted(p for p in path.glob("*.py") if p.name != "model.py"):
        _, problem = _cached(module, _compile_model)
        if problem is not None:
            return Folder(name, path, None, f"{where}: {problem}")
    return Folder(name, path, manifest)


def _claims(m: SimpleNamespace) -> list:
    """What a manifest declares that only one scheme may: (what, value) pairs."""
    out = [("chapter", str(m.CHAPTER)), ("section", str(m.SECTION))]
    try:
        out += [("published file", str(f)) for f in m.PUBLISHED_FILES]
        out += [("seed note", str(n)) for n in m.SEED_NOTES]
    except TypeError:
        pass
    return out


_SCANNED: dict = {}


def _stamp(path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _fingerprint() -> tuple:
    """What a scan depends on, cheap to take: the folders looked in, the entries of each (a folder's
    modification time changes as a file in it is added, removed or renamed), and each scheme
    folder's manifest.py and model.py as they are now.  Plain strings, not Paths: an estimate takes
    it hundreds of times, and pathlib's parsing was most of its cost."""
    out = []
    for base in map(str, importlib.import_module(PACKAGE).__path__):
        out.append((base, _stamp(base)))
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir() and entry.name.isidentifier():
                out.append((entry.name, _stamp(entry.path), _stamp(os.path.join(entry.path, "manifest.py")),
                            _stamp(os.path.join(entry.path, "model.py"))))
    return tuple(out)


def scan() -> dict:
    """{name: Folder} of every folder holding a model.py or a manifest.py, by name, each read on its
    own.  Refused, with its problem in one line (``refused``): a folder that cannot be read (a syntax
    error in its manifest.py or model.py, no manifest.py, a manifest without a name of MANIFEST_API),
    a name found in two folders, and folders that declare the same scheme (the same chapter, section,
    published file or seed note: a copy).  Scanned again whenever ``_fingerprint`` changes: an
    estimate asks the registry thousands of times, and the folders rarely change in between."""
    key = _fingerprint()
    if key not in _SCANNED:
        _SCANNED.clear()
        _SCANNED[key] = _scan()
    return dict(_SCANNED[key])


def _scan() -> dict:
    found: dict = {}
    for base in folders():
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if not (entry.is_dir() and entry.name.isidentifier()
                    and ((path / "model.py").is_file() or (path / "manifest.py").is_file())):
                continue
            found.setdefault(entry.name, []).append(path)
    out = {}
    for name, paths in sorted(found.items()):
        if len(paths) > 1:
            out[name] = Folder(name, paths[0], None, f"scheme {name!r} is in two folders: "
                                                     f"{' and '.join(map(str, paths))} (keep one)")
        else:
            out[name] = _read_folder(name, paths[0])
    claimed: dict = {}
    for name, f in out.items():
        if f.problem is None:
            for claim in _claims(f.manifest):
                claimed.setdefault(claim, []).append(name)
    for (what, value), names in claimed.items():
        for name in names if len(names) > 1 else ():
            if out[name].problem is None:
                out[name] = Folder(name, out[name].path, None,
                                   f"scheme folders {' and '.join(repr(n) for n in names)} both declare the {what} "
                                   f"{value}: one scheme in two folders (keep one)")
    return out


def refused() -> dict:
    """{folder name: its problem, one line} of every folder that is not a usable scheme."""
    return {name: f.problem for name, f in scan().items() if f.problem is not None}


def _usable() -> dict:
    return {name: f for name, f in scan().items() if f.problem is None}


class _Registry(Mapping):
    """name -> model module path of every usable scheme, scanned afresh on every use."""

    def __getitem__(self, name):
        if name not in _usable():
            raise KeyError(name)
        return f"{PACKAGE}.{name}.model"

    def __iter__(self):
        return iter(_usable())

    def __len__(self):
        return len(_usable())

    def __repr__(self):
        return f"REGISTRY({dict(self)!r})"


REGISTRY: Mapping[str, str] = _Registry()


def _unknown(name: str) -> Exception:
    problem = refused().get(name)
    if problem is not None:
        return SchemeError(problem)
    known = ", ".join(sorted(_usable())) or "none yet"
    return KeyError(f"unknown scheme {name!r} (registered: {known})")


def folder(name: str) -> Path:
    """The folder of scheme `name` (its notes and fixtures ship there)."""
    usable = _usable()
    if name not in usable:
        raise _unknown(name)
    return usable[name].path


def manifest(name: str) -> SimpleNamespace:
    """What the book keeps for scheme `name` (the names of MANIFEST_API, and the optional ones a
    manifest may add: LIVE_GRID, NOT_GATED), read as data."""
    usable = _usable()
    if name not in usable:
        raise _unknown(name)
    return usable[name].manifest


def _own_module(name: str, part: str):
    """costbook.schemes.<name>.<part>, loaded; a SchemeError of one line when it cannot be."""
    manifest(name)
    target = f"{PACKAGE}.{name}.{part}"
    try:
        return importlib.import_module(target)
    except SchemeError:
        raise
    except ModuleNotFoundError as e:
        if e.name == target:
            raise SchemeError(f"scheme {name!r}: no {part}.py (docs/adding-a-scheme.md)") from None
        raise SchemeError(f"scheme {name!r}: its {part}.py cannot be loaded: {_one_line(e)}") from None
    except Exception as e:
        raise SchemeError(f"scheme {name!r}: its {part}.py cannot be loaded: {_one_line(e)}") from None


def model(name: str):
    """The model module of scheme `name`, loaded and checked (``check_model``): where it runs (the
    CLI, the ledger's rows, the page's export, a validation)."""
    module = _own_module(name, "model")
    check_model(name, module)
    return module


get = model


def comparison(name: str):
    """The comparison module of scheme `name`: its rows in the comparison chapter (rows(reference),
    prices_without_spread(), EXPORTS: names the comparison chapter reads as compare.<name>)."""
    return _own_module(name, "comparison")


# ---------------------------------------------------------------------------------------------
# The book: each scheme's chapter, in the chapter list

def book_problems(root: Path | None = None) -> dict:
    """{scheme: one line} for each usable scheme whose chapter is not in the book at `root` (default
    the project's): the file is missing, or _quarto.yml's chapter list does not name it."""
    root = Path(root) if root is not None else project_root()
    config = root / "_quarto.yml"
    if config.is_file():
        listed, unreadable = _cached(config, _chapter_list)
    else:
        listed, unreadable = None, f"{config}: not found"
    out = {}
    for name, f in _usable().items():
        chapter = Path(str(f.manifest.CHAPTER)).as_posix()
        if not (root / chapter).is_file():
            out[name] = f"scheme {name!r}: its chapter {chapter} (manifest.CHAPTER) does not exist"
        elif unreadable is not None:
            out[name] = f"scheme {name!r}: its chapter {chapter} cannot be checked: {unreadable}"
        elif chapter not in listed:
            out[name] = f"scheme {name!r}: its chapter {chapter} is not in _quarto.yml's chapter list (book.chapters)"
    return out


def _chapter_list(config: Path) -> set:
    """The chapter files _quarto.yml lists (book.chapters and book.appendices), as posix paths."""
    return {Path(c).as_posix() for _, chapters in toc.toc(config.parent) for c in chapters}


def problems(root: Path | None = None) -> dict:
    """Every refused folder and every scheme the book cannot show: {name: one line}."""
    return {**refused(), **book_problems(root)}


def in_book_order(root: Path | None = None) -> tuple:
    """The schemes of the book, in the order of their chapters (the chapter file names sort the
    book): every usable scheme whose chapter the book lists.  What is left out is in ``problems()``."""
    usable, out_of_book = _usable(), book_problems(root)
    names = [n for n in usable if n not in out_of_book]
    return tuple(sorted(names, key=lambda n: (Path(str(usable[n].manifest.CHAPTER)).name, n)))


def seed_notes() -> dict:
    """{number a seed note's file name starts with: its references.bib key}, from every usable
    scheme's manifest (``SEED_NOTES``): tables cite a seed line by its note's key, never by its file name."""
    usable = _usable()
    return {k: v for s in sorted(usable, key=lambda n: (Path(str(usable[n].manifest.CHAPTER)).name, n))
            for k, v in usable[s].manifest.SEED_NOTES.items()}


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def count_words(n: int, noun: str = "scheme", plural: str | None = None) -> str:
    """"four schemes", "one scheme", "13 schemes": a count as the book's prose says it."""
    word = _WORDS[n] if 0 <= n < len(_WORDS) else str(n)
    return f"{word} {noun if n == 1 else plural or noun + 's'}"
