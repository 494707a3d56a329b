"""Measurement files: who measured what, where, and how much it cost.

One JSON file per source x machine (zkalc-style).  A *measured* file is written by ``costbook
measure``; a *published* file transcribes the prices a seed note states, with the seed file and
line of every number; a *public* file transcribes a public benchmark set (zkalc: see
``costbook.views.zkalc``), each entry saying in ``basis`` where its price is stated or, marked
``completed``, how it was completed from the reference machine's ratios (``costbook.views.public``).
All have the same shape:

    {
      "schema": "costbook-measurements/1",
      "name": "reference-...",            # how estimates cite the file
      "kind": "measured" | "published" | "public",
      "provenance": {...},                # measured: machine, libraries, date, command, profile
                                          # published: seed, title, machine, note
      "results": {
        "<backend>": {
          "<primitive key>": {"median": 1.2, "unit": "ms", ...}
        }
      }
    }

What a file must hold is declared once, in measurement.schema.json (a JSON Schema document with
typed provenance), and checked by ``measurement_schema`` here (``validate``, ``load``) and by the
book page's own checker (book/assets/live/pricing.js) from the same document.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..system import atomic
from . import measurement_schema

SCHEMA = measurement_schema.DOCUMENT["properties"]["schema"]["const"]
#: {unit: seconds}, as measurement.schema.json declares them
UNITS = measurement_schema.units()
# measured: timed here; published: typed from a seed, each number with its line; calibrated:
# inferred from published step times by a stated method (never written to disk, always recomputed);
# public: transcribed from a public benchmark set (zkalc, costbook.views.zkalc), each price with where it
# is stated or, where the set lacks it, how it was completed from the reference machine's ratios
KINDS = tuple(measurement_schema.DOCUMENT["allOf"][0]["properties"]["kind"]["enum"])
GROWTH_SLACK = measurement_schema.GROWTH_SLACK


class MeasurementFileError(ValueError):
    """A measurement file that cannot be read or does not follow the schema (or no project folder
    to find them in); the message names the file and field."""


def project_root() -> Path:
    """The repository root: $COSTBOOK_ROOT, else the folder holding _quarto.yml above this package."""
    env = os.environ.get("COSTBOOK_ROOT")
    if env:
        if not (Path(env) / "measurements").is_dir():
            raise MeasurementFileError(f"COSTBOOK_ROOT={env}: not a costbook project (no measurements/ folder)")
        return Path(env)
    return _project_above(__file__)


@functools.lru_cache(maxsize=None)
def _project_above(file: str) -> Path:
    """The folder holding _quarto.yml and measurements/ above `file`, looked for once per process (an
    estimate asks hundreds of times, and the package does not move under a running process)."""
    here = Path(file).resolve()
    for parent in here.parents:
        if (parent / "_quarto.yml").exists() and (parent / "measurements").is_dir():
            return parent
    raise MeasurementFileError(f"cannot find the costbook project above {here.parent} "
                               f"(set COSTBOOK_ROOT to the folder holding measurements/)")


@dataclass(frozen=True)
class MeasurementSet:
    """A validated measurement file; prices are served in seconds."""
    name: str
    kind: str
    provenance: dict
    results: dict            # backend -> key -> entry (as in the file)
    path: Path | None = None

    @property
    def backends(self) -> list:
        return list(self.results)

    def has(self, backend: str, key: str) -> bool:
        return key in self.results.get(backend, {})

    def entry(self, backend: str, key: str) -> dict:
        try:
            return self.results[backend][key]
        except KeyError:
            where = f"backend {backend!r}" if backend in self.results else f"no backend {backend!r}"
            raise KeyError(f"{self.name}: {where} has no entry {key!r}") from None

    def seconds(self, backend: str, key: str) -> float:
        e = self.entry(backend, key)
        return e["median"] * UNITS[e["unit"]]

    def bounds(self, backend: str, key: str) -> tuple:
        """(low, high) seconds of one price: the quartiles of a measured entry, the stated range of a
        published one, else the median twice (a price given as one number carries no spread)."""
        e = self.entry(backend, key)
        scale = UNITS[e["unit"]]
        for lo, hi in (("q1", "q3"), ("low", "high")):
            if lo in e and hi in e:
                return e[lo] * scale, e[hi] * scale
        return e["median"] * scale, e["median"] * scale

    def at_bound(self, which: str) -> "MeasurementSet":
        """This set with every price at its low or high bound (see `bounds`), so that a rule deriving
        an unmeasured price from measured ones gives that price's bounds too."""
        if which not in ("low", "high"):
            raise ValueError(f"bound must be 'low' or 'high', got {which!r}")
        # made once per set and bound: an estimate's interval asks for both, for every estimate
        made = self.__dict__.setdefault("_at_bound", {})
        if which not in made:
            pick = 0 if which == "low" else 1
            results = {b: {k: {"median": self.bounds(b, k)[pick], "unit": "s"} for k in entries}
                       for b, entries in self.results.items()}
            made[which] = MeasurementSet(self.name, self.kind, self.provenance, results, self.path)
        return made[which]

    def keys(self, backend: str | None = None) -> list:
        if backend is not None:
            return list(self.results.get(backend, {}))
        seen = {}
        for entries in self.results.values():
            seen.update(dict.fromkeys(entries))
        return list(seen)

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "name": self.name, "kind": self.kind,
                "provenance": self.provenance, "results": self.results}


def _fail(path, field: str, problem: str):
    raise MeasurementFileError(f"{path}: {field}: {problem}")


#: digests of file texts that passed the schema check: the same text passes it again, so a file read
#: again (the chapters and the machines' comparison load the published and public files hundreds of
#: times) is parsed, not checked again.  Bounded: cleared when it holds MAX_CHECKED texts.
_CHECKED: set = set()
MAX_CHECKED = 4096


def validate(data, path="<memory>", on_disk: bool = False, text: str | None = None,
             across_keys: bool = True) -> MeasurementSet:
    """Check `data` (parsed JSON) against measurement.schema.json; return a MeasurementSet.
    Every entry needs a positive ``median`` and a ``unit`` (s, ms, us, ns); measured entries also
    carry ``q1``, ``q3``, ``mad``, ``samples`` and ``batch``; published entries carry ``line``
    (1-based line in the seed) and may carry the seed's interval as ``low``/``high``.  Every number
    is finite, quartiles and intervals in order, and no price falls as a size grows where its key
    family says the work grows.
    `on_disk`: read from a file or about to be written to one (a kind that exists only in memory,
    such as calibrated, is refused).  `text`: the JSON text `data` was parsed from; a text that
    passed the check once is not checked again (``_CHECKED``).  `across_keys` False (prices timed
    just now, never a file): no plausibility check across keys (``measurement_schema.ACROSS_KEYS``)."""
    if on_disk and not across_keys:
        raise ValueError("a file's prices are always checked across keys")
    digest = None if text is None else (hashlib.sha256(text.encode("utf-8")).digest(), on_disk)
    if digest is None or digest not in _CHECKED:
        try:
            measurement_schema.check(data, on_disk=on_disk, across_keys=across_keys)
        except measurement_schema.Invalid as e:
            _fail(path, e.field, e.problem)
        if digest is not None:
            if len(_CHECKED) >= MAX_CHECKED:
                _CHECKED.clear()
            _CHECKED.add(digest)
    return MeasurementSet(data["name"], data["kind"], data["provenance"], data["results"],
                          Path(path) if path != "<memory>" else None)


# Larger than any measurement or count file could honestly be; refusing it beats filling memory.
MAX_INPUT_BYTES = measurement_schema.FILE["max-bytes"]


def read_text(path, error=MeasurementFileError, what: str = "measurement file") -> str:
    """The UTF-8 text of a regular file, or `error` naming the file and what is wrong with it
    (missing, a directory, a FIFO or device that would block, unreadable, too large, not UTF-8)."""
    path = Path(path)
    try:
        st = os.stat(path)
        _regular(path, st, error, what)   # before open(): opening a FIFO blocks until a writer comes
        if st.st_size == 0:
            # empty, or a kernel file that says 0 and blocks or has side effects when read
            # (/proc/kmsg): not read at all, and the caller reports it as empty
            return ""
        # and open without blocking all the same (the path may have been swapped for a FIFO since
        # the stat), then check what was opened, and read at most one byte past the cap
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        try:
            _regular(path, os.fstat(fd), error, what)
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(MAX_INPUT_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_INPUT_BYTES:
            raise error(f"{path}: larger than any {what} (at most {MAX_INPUT_BYTES >> 20} MiB)")
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except PermissionError:
        raise error(f"{path}: permission denied (cannot read this {what})") from None
    except OSError as e:
        problem = {errno.ELOOP: "symbolic link loop", errno.ENAMETOOLONG: "file name too long",
                   errno.ENOTDIR: "a part of the path is not a directory"}.get(e.errno, "unreadable")
        raise error(f"{path}: {problem} (cannot read this {what})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                    f"a {what} is JSON in UTF-8") from None


def _regular(path: Path, st, error, what: str) -> None:
    """Raise `error` unless `st` is a regular file no larger than MAX_INPUT_BYTES."""
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{path}: is a directory, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path}: not a regular file (a {what} must be one)")
    if st.st_size > MAX_INPUT_BYTES:
        raise error(f"{path}: {st.st_size} bytes, larger than any {what} "
                    f"(at most {MAX_INPUT_BYTES >> 20} MiB)")


# Deeper than any measurement or count file; json's C parser recurses once per level and, with the
# recursion limit some libraries raise (Sage's is 10^5), overflows the C stack instead of failing.
MAX_JSON_DEPTH = measurement_schema.FILE["max-depth"]
MAX_INTEGER_DIGITS = measurement_schema.FILE["max-integer-digits"]
# (the page's checker strips strings with the same expression: a backslash escapes any character
# but a newline, as "." does here)
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\[^\n][^"\\]*)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return False
    depth = 0
    for m in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            return True
    return False


def parse_json(text: str, where: str, error=MeasurementFileError):
    """Strict JSON: a repeated key in any object is an error naming the key (Python's json
    would keep the last one silently); so are NaN and Infinity (not JSON), an integer of more
    digits than any file needs, and a byte order mark.  Errors are `error` prefixed with `where`.
    The page's checker (pricing.js, parseJson) gives the same message for every text."""
    def no_repeated_keys(pairs):
        obj = {}
        for key, value in pairs:
            if key in obj:
                raise error(f"{where}: duplicate key {measurement_schema.quote(key)} in one JSON object (each key once)")
            obj[key] = value
        return obj

    def no_constant(name):
        raise error(f"{where}: not valid JSON ({name} is not a JSON number)")

    def integer(digits):
        if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
            raise error(f"{where}: not valid JSON here (an integer of {len(digits.lstrip('-'))} digits)")
        return int(digits)

    if text.startswith("\ufeff"):
        raise error(f"{where}: starts with a byte order mark (U+FEFF); JSON text has none")
    if not text.strip(" \t\n\r"):
        raise error(f"{where}: empty (expected a JSON object)")
    if _too_deep(text):
        raise error(f"{where}: not valid JSON here (nested more than {MAX_JSON_DEPTH} levels deep)")
    try:
        return json.loads(text, object_pairs_hook=no_repeated_keys, parse_constant=no_constant, parse_int=integer)
    except error:
        raise
    except RecursionError:
        raise error(f"{where}: not valid JSON (nested too deeply)") from None
    except ValueError as e:           # JSONDecodeError
        raise error(f"{where}: not valid JSON ({e})") from None



def load(path) -> MeasurementSet:
    """Read the file's bytes (a regular file, at most MAX_INPUT_BYTES, UTF-8 without a byte order
    mark), parse them (no JSON object repeats a key) and check them (a kind that exists only in
    memory, calibrated, is never read from a file); errors name the file and field of the first
    problem found."""
    path = Path(path)
    text = read_text(path)
    return validate(parse_json(text, str(path)), path, on_disk=True, text=text)


def write_atomic(mset_or_data, path) -> Path:
    """Validate, then write through costbook.system.atomic (a temporary and a rename), so that an
    interrupted run never leaves a half-written file in place of the old one."""
    data = mset_or_data.to_json() if isinstance(mset_or_data, MeasurementSet) else mset_or_data
    validate(data, path, on_disk=True)

    def write(tmp: Path):
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
    return atomic.replace(Path(path), write)


# ---------------------------------------------------------------------------
# Named sources: what `--source` and the chapters accept.

def published_dir() -> Path:
    """measurements/published: published files that belong to no scheme's folder (a reader may keep some)."""
    return project_root() / "measurements" / "published"


def _scheme_folders() -> list:
    """The folders the schemes' package finds schemes in (its __path__: a test's toy schemes too), as the
    registry scans them; read here without importing the registry, which sits above the prices."""
    import importlib.util
    import sys
    package = sys.modules.get("costbook.schemes")
    paths = list(package.__path__) if package is not None else list(
        importlib.util.find_spec("costbook.schemes").submodule_search_locations or ())
    return [d for p in paths for d in sorted(Path(p).iterdir()) if d.is_dir() and not d.name.startswith(("_", "."))]


def published_files() -> dict:
    """name -> path of every published file: each scheme's, in its folder's ``published/`` (a seed's prices
    live with the scheme that reads them), and measurement/published's.  A name twice is refused."""
    out: dict = {}
    for folder in [*(d / "published" for d in _scheme_folders()), published_dir()]:
        for path in sorted(folder.glob("*.json")):
            if path.stem in out and out[path.stem].resolve() != path.resolve():
                raise MeasurementFileError(f"published file {path.stem!r} is in two places: {out[path.stem]} and {path}")
            out.setdefault(path.stem, path)
    return dict(sorted(out.items()))


def reference_path() -> Path:
    """The committed reference measurement of this project's machine class."""
    files = sorted((project_root() / "measurements" / "reference").glob("*.json"))
    if len(files) != 1:
        raise MeasurementFileError(
            f"measurements/reference/ must hold exactly one file, found {len(files)}")
    return files[0]


def is_reference(mset: "MeasurementSet") -> bool:
    """Whether a loaded set is the committed reference file."""
    return mset.path is not None and mset.path.resolve() == reference_path().resolve()


def machine_text(machine: dict, arch: bool = False) -> str:
    """A machine in words, from what a file's provenance (or ``measure.machine_info``) says of it: "AMD
    EPYC, 2 cores" (", x86_64" with `arch`); the parts it does not say are left out."""
    cores = machine.get("cores")
    return ", ".join(str(x) for x in (machine.get("cpu"), f"{cores} cores" if cores else None,
                                      machine.get("arch") if arch else None) if x)


def machine_words(mset: "MeasurementSet") -> str:
    """A measurement file's machine in words (``machine_text``), else the file's name."""
    m = mset.provenance.get("machine")
    if isinstance(m, dict):
        return machine_text(m) or mset.name
    return str(m or mset.name)


def local_path() -> Path:
    """Where `costbook measure` writes this machine's file by default."""
    return project_root() / "measurements" / "local" / "this-machine.json"


#: the folders of measurements/ whose files a source names as <folder>/<name>
NAMED_FOLDERS = ("published", "public", "contributed")


def resolve(source: str) -> Path:
    """Map a source name to a file.

    ``reference``            the committed reference machine
    ``local``                this machine (``costbook measure`` output)
    ``published/<name>``     a seed's published prices, in its scheme's folder (``published_files``;
                             ``published`` alone, if only one file could be meant, is not accepted)
    ``public/<name>``        a public benchmark machine (measurements/public/<name>.json)
    ``contributed/<name>``   a reader's machine given back (measurements/contributed/<name>.json)
    ``book``                 what the chapters render from: $COSTBOOK_MEASUREMENTS or reference
    anything else            a path to a measurement file
    """
    named = "reference, local, book, published/<name>, public/<name>, contributed/<name>"
    if not source:
        raise MeasurementFileError(f"empty source name (use {named} or a file)")
    if source == "reference":
        return reference_path()
    if source == "local":
        path = local_path()
        if not path.exists():
            raise MeasurementFileError(f"local: this machine has not been measured yet ({path} is missing; "
                                       f"run costbook measure)")
        return path
    if source == "book":
        env = os.environ.get("COSTBOOK_MEASUREMENTS")
        return Path(env) if env else reference_path()
    folder, slash, name = source.partition("/")
    if folder == "published" and slash:
        files = published_files()
        if name in files:
            return files[name]
        raise MeasurementFileError(f"no published file {source!r} (have: {', '.join(files) or 'none'})")
    if folder in NAMED_FOLDERS and slash:
        where = project_root() / "measurements" / folder
        path = where / (name + ".json")
        if name and "/" not in name and not name.startswith(".") and path.is_file():
            return path
        # a reader's own folder named public/ or contributed/ holding the file given is that file
        if not Path(source).is_file():
            names = ", ".join(p.stem for p in sorted(where.glob("*.json"))) or "none"
            raise MeasurementFileError(f"no {folder} file {source!r} (have: {names})")
    path = Path(source)
    if not path.exists() and not path.is_symlink():   # a broken link or loop: load() says which
        raise MeasurementFileError(f"{source}: no such measurement file (or use {named})")
    return path


def load_source(source: str) -> MeasurementSet:
    return load(resolve(source))


def published_sets() -> Mapping[str, MeasurementSet]:
    return {name: load(path) for name, path in published_files().items()}


def combine(*sets: MeasurementSet, name: str | None = None) -> MeasurementSet:
    """One MeasurementSet holding the backends of several, for pricing with prices from more
    than one source (each line of an Estimate still names its backend).  Backend names must
    not collide: the same backend in two files would make a price ambiguous."""
    results, seen = {}, {}
    for m in sets:
        for b, entries in m.results.items():
            if b in results:
                raise MeasurementFileError(f"cannot combine {seen[b]} and {m.name}: both have backend {b!r}")
            results[b], seen[b] = entries, m.name
    # The parts were validated when loaded; a combination is never written to disk.
    return MeasurementSet(name or " + ".join(m.name for m in sets), "combined",
                          {"combined": [m.name for m in sets]}, results)
