"""Measurement files: who measured what, where, and how much it cost.

One JSON file per source x machine (zkalc-style).  A *measured* file is written
by ``costbook measure``; a *published* file transcribes the prices a seed note
states, with the seed file and line of every number.  Both have the same shape:

    {
      "schema": "costbook-measurements/1",
      "name": "reference-...",            # how estimates cite the file
      "kind": "measured" | "published",
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
interval as ``low``/``high``.  ``load()`` checks all of this and names the file
and field of the first problem it finds.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from .keys import UnknownPrimitiveKey, family_of

SCHEMA = "costbook-measurements/1"
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
# measured: timed here; published: typed from a seed, each number with its line; calibrated:
# inferred from published step times by a stated method (never written to disk, always recomputed)
KINDS = ("measured", "published", "calibrated")
REQUIRED_PROVENANCE = {
    "measured": ("machine", "libraries", "date", "command", "profile"),
    "published": ("seed", "title", "machine"),
    "calibrated": ("seed", "title", "machine", "method"),
}
REQUIRED_ENTRY = {
    "measured": ("median", "unit", "q1", "q3", "mad", "samples", "batch"),
    "published": ("median", "unit", "line"),
    "calibrated": ("median", "unit", "basis"),
}


class MeasurementFileError(ValueError):
    """A measurement file that does not follow the schema; the message names file and field."""


def project_root() -> Path:
    """The repository root: the folder holding _quarto.yml above this package."""
    env = os.environ.get("COSTBOOK_ROOT")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "_quarto.yml").exists() and (parent / "measurements").is_dir():
            return parent
    raise FileNotFoundError("cannot find the costbook project root (set COSTBOOK_ROOT)")


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
            if entry["unit"] not in UNITS:
                _fail(path, f"{field}.unit", f"expected one of {sorted(UNITS)}, got {entry['unit']!r}")
            for num in ("median", "q1", "q3", "mad", "low", "high"):
                if num in entry:
                    v = entry[num]
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
                        _fail(path, f"{field}.{num}", f"expected a number, got {v!r}")
                    if v < 0 or (num == "median" and v == 0):
                        _fail(path, f"{field}.{num}", f"expected a positive number, got {v!r}")
            for count in ("samples", "batch", "line"):
                if count in entry:
                    v = entry[count]
                    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                        _fail(path, f"{field}.{count}", f"expected a positive integer, got {v!r}")
            if "q1" in entry and not entry["q1"] <= entry["median"] <= entry["q3"]:
                _fail(path, field, f"quartiles out of order: q1={entry['q1']}, "
                                   f"median={entry['median']}, q3={entry['q3']}")
    return MeasurementSet(name, kind, prov, results, Path(path) if path != "<memory>" else None)


def load(path) -> MeasurementSet:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise MeasurementFileError(f"{path}: no such measurement file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MeasurementFileError(f"{path}: not valid JSON ({e})") from None
    return validate(data, path)


def write_atomic(mset_or_data, path) -> Path:
    """Validate, then write via a temporary file and rename, so that an
    interrupted run never leaves a half-written file in place of the old one."""
    data = mset_or_data.to_json() if isinstance(mset_or_data, MeasurementSet) else mset_or_data
    validate(data, path)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
    if source == "reference":
        return reference_path()
    if source == "local":
        return local_path()
    if source == "book":
        env = os.environ.get("COSTBOOK_MEASUREMENTS")
        return Path(env) if env else reference_path()
    if source.startswith("published/"):
        path = published_dir() / (source.split("/", 1)[1] + ".json")
        if not path.exists():
            names = ", ".join(p.stem for p in sorted(published_dir().glob("*.json")))
            raise MeasurementFileError(f"no published file {source!r} (have: {names})")
        return path
    path = Path(source)
    if not path.exists():
        raise MeasurementFileError(
            f"{source}: no such measurement file (or use reference, local, book, published/<name>)")
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
