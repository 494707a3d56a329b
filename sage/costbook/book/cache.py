"""Executed chapters reused while nothing they depend on changed (the way Quarto's freeze works).

An executed chapter depends on its notebook (with any injected parameters), the measurement file it
prices with, the costbook package it imports (every file of it: code, fixtures, curve data), the
committed measurement files (the reference machine, the seed libraries; the seeds' published prices and
the evidence sit in the package's scheme folders), references.bib (chapter 5's report cites it), the pinned environment (requirements.txt,
pyproject.toml) and the interpreter.  `input_digest` hashes all of them; `ChapterCache` keeps each
chapter's executed copy under that digest in build/cache/chapters/ and hands it back only for the
same digest, so a change to any input runs the chapter again.  What a chapter prints from live
timings is kept as it was measured, as Quarto's freeze keeps it; `--force` (make book FRESH=1)
executes every chapter again.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

from ..system import atomic

#: bump to invalidate every cached chapter (e.g. when the runner changes what it writes)
CACHE_FORMAT = 1

#: project files every chapter may read, besides the costbook package (paths relative to the root)
PROJECT_INPUTS = ("measurements", "references.bib", "requirements.txt", "pyproject.toml")

#: how many executed copies of one chapter are kept (different parameters or measurement files)
KEEP_PER_CHAPTER = 4

_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
_SKIP_SUFFIXES = (".pyc", ".pyo", ".tmp")


def package_dir() -> Path:
    """The costbook package the chapters' kernels import (the editable install: sage/costbook)."""
    import costbook
    return Path(costbook.__file__).resolve().parent


def _files(top: Path):
    """Every file under `top` (or `top` itself), sorted, caches and bytecode left out."""
    if top.is_file():
        yield top
        return
    if not top.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(filenames):
            if not name.endswith(_SKIP_SUFFIXES):
                yield Path(dirpath) / name


def _update(h, label: str, data: bytes) -> None:
    h.update(f"{label}\0{len(data)}\0".encode())
    h.update(data)


def tree_digest(top: Path, label: str) -> str:
    """sha256 over the relative paths and contents of every file under `top` (missing: empty)."""
    h = hashlib.sha256()
    for path in _files(top):
        rel = path.relative_to(top).as_posix() if path != top else path.name
        _update(h, f"{label}/{rel}", path.read_bytes())
    return h.hexdigest()


def shared_digest(root: Path) -> str:
    """The digest of what every chapter shares: package, project inputs, interpreter."""
    h = hashlib.sha256()
    _update(h, "format", str(CACHE_FORMAT).encode())
    _update(h, "python", f"{sys.version} {platform.machine()} {sys.executable}".encode())
    _update(h, "package", tree_digest(package_dir(), "costbook").encode())
    for name in PROJECT_INPUTS:
        _update(h, name, tree_digest(Path(root) / name, name).encode())
    return h.hexdigest()


def input_digest(shared: str, notebook: Path, measurements: Path | None, overrides=()) -> str:
    """The digest of one chapter's run: `shared` (see shared_digest), the notebook's bytes, its
    parameter overrides and the measurement file's bytes (None: the committed reference file,
    which `shared` covers)."""
    h = hashlib.sha256()
    _update(h, "shared", shared.encode())
    _update(h, "notebook", Path(notebook).read_bytes())
    _update(h, "overrides", json.dumps([list(o) for o in overrides]).encode())
    _update(h, "measurements", b"reference" if measurements is None else Path(measurements).read_bytes())
    return h.hexdigest()


class ChapterCache:
    """Executed chapters under `folder`, one file per (chapter, digest), with a small index that
    records how long each took to execute (also the runner's guess for scheduling)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _name(self, rel: Path) -> str:
        return rel.as_posix().replace("/", "__").removesuffix(".ipynb")

    def _entry(self, rel: Path, digest: str) -> Path:
        return self.folder / f"{self._name(rel)}.{digest}.ipynb"

    def _index(self, rel: Path) -> Path:
        return self.folder / f"{self._name(rel)}.json"

    def _read_index(self, rel: Path) -> dict:
        try:
            data = json.loads(self._index(rel).read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def lookup(self, rel: Path, digest: str) -> tuple[Path, float] | None:
        """(the executed copy, its execution seconds) if this chapter ran with these inputs."""
        info = self._read_index(rel).get("runs", {}).get(digest)
        entry = self._entry(rel, digest)
        if not isinstance(info, dict) or not entry.is_file():
            return None
        if hashlib.sha256(entry.read_bytes()).hexdigest() != info.get("sha256"):
            return None              # damaged or edited: run again
        return entry, float(info.get("seconds", 0.0))

    def last_seconds(self, rel: Path) -> float | None:
        """How long this chapter took the last time it ran (any inputs), or None."""
        runs = self._read_index(rel).get("runs", {})
        latest = max(runs.values(), key=lambda r: r.get("stored", 0), default=None)
        return float(latest["seconds"]) if latest and "seconds" in latest else None

    def store(self, rel: Path, digest: str, executed: Path, seconds: float) -> None:
        """Keep `executed` (a written notebook) as this chapter's run with these inputs."""
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = atomic.copy_file(executed, self._entry(rel, digest))
        index = self._read_index(rel)
        runs = index.setdefault("runs", {})
        runs[digest] = {"seconds": round(seconds, 2), "stored": time.time(),
                        "sha256": hashlib.sha256(entry.read_bytes()).hexdigest()}
        for old in sorted(runs, key=lambda d: runs[d].get("stored", 0))[:-KEEP_PER_CHAPTER]:
            self._entry(rel, old).unlink(missing_ok=True)
            del runs[old]
        # the entry is written before the index names it: an interrupted store is never reused
        atomic.write_text(self._index(rel), json.dumps(index, indent=1, sort_keys=True) + "\n")
