"""Measurement files: who measured what, where, and how much it cost.

One JSON file per source x machine (zkalc-style).  A *measured* file is written
by ``costbook measure``; a *published* file transcribes the prices a seed note
states, with the seed file and line of every number.  Both have the same shape:

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

Every entry needs a positive ``median`` and a ``unit`` (s, ms, us, ns).  Measured
entries also carry ``q1``, ``q3``, ``mad``, ``samples`` and ``batch``; published
entries carry ``line`` (1-based line in the seed) and may carry the seed's
interval as ``low``/``high``.  A *public* file transcribes a public benchmark set (zkalc: see
``costbook.zkalc``); every entry says in ``basis`` where its price is stated or, marked
``completed``, how it was completed from the reference machine's ratios (``costbook.public``).  Every number is finite, every time (median, quartiles,
min) positive, interval bounds >= 0, quartiles and intervals in order (0 < q1 <= median <= q3,
0 <= low <= median <= high), no price falls as a size grows where its key family says the
work grows (``keys.Family.grows``: the larger size's interval wholly below the smaller's), and
no JSON object repeats a key.  ``load()`` checks all of this and names the file and field of
the first problem it finds.
"""
from __future__ import annotations

import errno
import glob
import json
import math
import os
import re
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .keys import UnknownPrimitiveKey, family_of, sizes as key_sizes

SCHEMA = "costbook-measurements/1"
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
# measured: timed here; published: typed from a seed, each number with its line; calibrated:
# inferred from published step times by a stated method (never written to disk, always recomputed);
# public: transcribed from a public benchmark set (zkalc, costbook.zkalc), each price with where it
# is stated or, where the set lacks it, how it was completed from the reference machine's ratios
KINDS = ("measured", "published", "calibrated", "public")
REQUIRED_PROVENANCE = {
    "measured": ("machine", "libraries", "date", "command", "profile"),
    "published": ("seed", "title", "machine"),
    "calibrated": ("seed", "title", "machine", "method"),
    "public": ("source", "machine", "spread"),
}
REQUIRED_ENTRY = {
    "measured": ("median", "unit", "q1", "q3", "mad", "samples", "batch"),
    "published": ("median", "unit", "line"),
    "calibrated": ("median", "unit", "basis"),
    "public": ("median", "unit", "basis"),
}


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
    here = Path(__file__).resolve()
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
        pick = 0 if which == "low" else 1
        results = {b: {k: {"median": self.bounds(b, k)[pick], "unit": "s"} for k in entries}
                   for b, entries in self.results.items()}
        return MeasurementSet(self.name, self.kind, self.provenance, results, self.path)

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


def validate(data, path="<memory>") -> MeasurementSet:
    """Check `data` (parsed JSON) against the schema; return a MeasurementSet."""
    if not isinstance(data, dict):
        _fail(path, "(top level)", f"expected a JSON object, got {type(data).__name__}")
    if data.get("schema") != SCHEMA:
        _fail(path, "schema", f"expected {SCHEMA!r}, got {data.get('schema')!r}")
    for field in ("name", "kind", "provenance", "results"):
        if field not in data:
            _fail(path, field, "missing")
    name, kind, prov, results = data["name"], data["kind"], data["provenance"], data["results"]
    if not isinstance(name, str) or not name:
        _fail(path, "name", f"expected a non-empty string, got {name!r}")
    if kind not in KINDS:
        _fail(path, "kind", f"expected one of {KINDS}, got {kind!r}")
    if not isinstance(prov, dict):
        _fail(path, "provenance", "expected an object")
    for field in REQUIRED_PROVENANCE[kind]:
        if field not in prov:
            _fail(path, f"provenance.{field}", f"missing (required for a {kind} file)")
    if not isinstance(results, dict) or not results:
        _fail(path, "results", "expected a non-empty object of backends")
    for backend, entries in results.items():
        if not isinstance(entries, dict) or not entries:
            _fail(path, f"results.{backend}", "expected a non-empty object of primitive keys")
        for key, entry in entries.items():
            field = f"results.{backend}[{key!r}]"
            try:
                family_of(key)
            except UnknownPrimitiveKey as e:
                _fail(path, field, str(e))
            if not isinstance(entry, dict):
                _fail(path, field, "expected an object")
            for req in REQUIRED_ENTRY[kind]:
                if req not in entry:
                    _fail(path, f"{field}.{req}", "missing")
            unit = entry["unit"]
            if not isinstance(unit, str) or unit not in UNITS:
                _fail(path, f"{field}.unit", f"expected one of {sorted(UNITS)}, got {unit!r}")
            for num in ("median", "q1", "q3", "mad", "low", "high", "min"):
                if num in entry:
                    v = entry[num]
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v):
                        _fail(path, f"{field}.{num}", f"expected a finite number, got {_short(v)}")
                    # a measured time is positive (a zero quartile is no time at all, and would
                    # divide by zero where a price is scaled); the spread (mad) and a stated or
                    # derived range (low/high: an implied factor's range may reach 0) may be 0
                    if v < 0 or (num in ("median", "q1", "q3", "min") and v == 0):
                        _fail(path, f"{field}.{num}", f"expected a positive number, got {v!r}")
            if "between_runs" in entry:
                v = entry["between_runs"]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v) or v < 0:
                    _fail(path, f"{field}.between_runs", f"expected a finite number >= 0, got {_short(v)}")
                if "runs" not in entry:
                    _fail(path, field, "between_runs needs runs (how many runs it compares)")
            if "runs" in entry and (isinstance(entry["runs"], bool) or not isinstance(entry["runs"], int)
                                    or entry["runs"] < 2):
                _fail(path, f"{field}.runs", f"expected an integer >= 2, got {entry['runs']!r}")
            for count in ("samples", "batch", "line"):
                if count in entry:
                    v = entry[count]
                    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                        _fail(path, f"{field}.{count}", f"expected a positive integer, got {v!r}")
            for low, high, what in (("q1", "q3", "quartiles"), ("low", "high", "interval")):
                if (low in entry) != (high in entry):
                    _fail(path, field, f"{low} and {high} go together, only {low if low in entry else high} given")
                if low in entry and not entry[low] <= entry["median"] <= entry[high]:
                    _fail(path, field, f"{what} out of order: {low}={entry[low]}, "
                                       f"median={entry['median']}, {high}={entry[high]} "
                                       f"(need {low} <= median <= {high})")
        _check_growth(path, backend, entries)
    return MeasurementSet(name, kind, prov, results, Path(path) if path != "<memory>" else None)


def _finite(v) -> bool:
    """A finite number, also for an int too large for a float (math.isfinite would raise)."""
    if isinstance(v, int):
        return -sys.float_info.max <= v <= sys.float_info.max
    return math.isfinite(v)


def _short(v) -> str:
    """repr of a value, an integer of many digits said as such."""
    return f"an integer of {len(str(abs(v)))} digits" if isinstance(v, int) and abs(v) > 10**30 else repr(v)


#: how far below a smaller size's interval a larger size's may lie before the file is refused
GROWTH_SLACK = 0.10


def _check_growth(path, backend: str, entries: dict) -> None:
    """Refuse a price that falls as a size grows where the key's family says the work grows
    (``keys.Family.grows``): keys equal but for that size, the larger one's interval (quartiles or
    stated range, else its median) wholly below the smaller one's by more than ``GROWTH_SLACK``.
    The slack is for sizes a few bits apart (exponents of 3069 and 3072 bits cost the same to
    within their timing noise, and a quiet run can put one's quartiles just under the other's);
    a price that really falls with its size falls by more."""
    def span(e):
        scale = UNITS[e["unit"]]
        for lo, hi in (("q1", "q3"), ("low", "high")):
            if lo in e:
                return e[lo] * scale, e[hi] * scale
        return e["median"] * scale, e["median"] * scale

    groups: dict = {}
    for key, e in entries.items():
        fam = family_of(key)
        if not fam.grows:
            continue
        sz = key_sizes(key)
        for g in fam.grows:
            rest = tuple(sorted((k, v) for k, v in sz.items() if k != g))
            groups.setdefault((fam.pattern, g, rest), []).append((sz[g], key, span(e)))
    for (_, g, _), items in groups.items():
        items.sort()
        for i, (small, k_small, (lo_small, _)) in enumerate(items):
            for big, k_big, (_, hi_big) in items[i + 1:]:
                if big > small and hi_big < (1 - GROWTH_SLACK) * lo_small:
                    _fail(path, f"results.{backend}[{k_big!r}]",
                          f"price falls as {g} grows: {k_big} costs at most {hi_big:.4g} s, below "
                          f"{k_small} at {lo_small:.4g} s or more (the work grows with {g})")


# Larger than any measurement or count file could honestly be; refusing it beats filling memory.
MAX_INPUT_BYTES = 16 << 20


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
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
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
    would keep the last one silently).  Errors are `error` prefixed with `where`."""
    def no_repeated_keys(pairs):
        obj = {}
        for key, value in pairs:
            if key in obj:
                raise error(f"{where}: duplicate key {key!r} in one JSON object (each key once)")
            obj[key] = value
        return obj

    if not text.strip():
        raise error(f"{where}: empty (expected a JSON object)")
    if _too_deep(text):
        raise error(f"{where}: not valid JSON here (nested more than {MAX_JSON_DEPTH} levels deep)")
    try:
        return json.loads(text, object_pairs_hook=no_repeated_keys)
    except error:
        raise
    except RecursionError:
        raise error(f"{where}: not valid JSON (nested too deeply)") from None
    except ValueError as e:           # JSONDecodeError, or a number with too many digits
        raise error(f"{where}: not valid JSON ({e})") from None


def load(path) -> MeasurementSet:
    path = Path(path)
    return validate(parse_json(read_text(path), str(path)), path)


def write_atomic(mset_or_data, path) -> Path:
    """Validate, then write via a temporary file and rename, so that an
    interrupted run never leaves a half-written file in place of the old one."""
    data = mset_or_data.to_json() if isinstance(mset_or_data, MeasurementSet) else mset_or_data
    validate(data, path)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(path, os.getpid()), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _temporary_prefix(path: Path, pid: int) -> str:
    # the writer's pid in the name tells a stale temporary (its writer is gone) from a live one
    return f".{path.name}.{pid}."


def remove_stale_temporaries(path) -> list:
    """Delete temporaries that write_atomic left beside `path` when its process was killed
    (SIGKILL runs no cleanup); a temporary whose writer is still running is left alone."""
    path = Path(path)
    removed = []
    ours = f".{path.name}."
    for tmp in path.parent.glob(glob.escape(ours) + "*.tmp"):
        pid = tmp.name[len(ours):].split(".", 1)[0]
        if pid.isdigit() and not _process_alive(int(pid)):
            try:
                tmp.unlink()
                removed.append(tmp)
            except FileNotFoundError:    # another writer cleaned it first
                pass
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:           # alive, owned by someone else
        return True
    return True


# ---------------------------------------------------------------------------
# Named sources: what `--source` and the chapters accept.

def published_dir() -> Path:
    return project_root() / "measurements" / "published"


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


def resolve(source: str) -> Path:
    """Map a source name to a file.

    ``reference``            the committed reference machine
    ``local``                this machine (``costbook measure`` output)
    ``published/<name>``     a seed's published prices (``published`` alone if only one
                             published file could be meant is not accepted: name it)
    ``book``                 what the chapters render from: $COSTBOOK_MEASUREMENTS or reference
    anything else            a path to a measurement file
    """
    named = "reference, local, book, published/<name>"
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
    if source.startswith("published/"):
        name = source.split("/", 1)[1]
        path = published_dir() / (name + ".json")
        if not name or "/" in name or name.startswith(".") or not path.is_file():
            names = ", ".join(p.stem for p in sorted(published_dir().glob("*.json")))
            raise MeasurementFileError(f"no published file {source!r} (have: {names})")
        return path
    path = Path(source)
    if not path.exists() and not path.is_symlink():   # a broken link or loop: load() says which
        raise MeasurementFileError(f"{source}: no such measurement file (or use {named})")
    return path


def load_source(source: str) -> MeasurementSet:
    return load(resolve(source))


def published_sets() -> Mapping[str, MeasurementSet]:
    return {p.stem: load(p) for p in sorted(published_dir().glob("*.json"))}


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
