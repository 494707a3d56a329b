"""Files costbook writes (the book's build, exported files), each replaced in one rename: a reader (or the next build) sees the
old file or the new one, never half of one.  A write that is interrupted (Ctrl-C, SIGTERM raised as
an exception by costbook.book.interrupt) removes its temporary file; only SIGKILL can leave one, and
it is named `.<name>.<pid>.tmp` beside the file, which nothing reads.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable


def temporary_for(path: Path, pid: int | None = None) -> Path:
    """Where process `pid` (default: this one) writes `path` before renaming it into place."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid() if pid is None else pid}.tmp")


def replace(path: Path, write: Callable[[Path], object]) -> Path:
    """`write(temporary)` writes the new content; then it takes `path`'s place in one rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_for(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_text(path: Path, text: str, durable: bool = False) -> Path:
    """`text` (UTF-8) in place of `path`; `durable` flushes it to the disk before the rename (a file a
    reader keeps, not a build product that is made again)."""
    def write(tmp: Path):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())
    return replace(path, write)


def copy_file(source: Path, path: Path) -> Path:
    return replace(path, lambda tmp: shutil.copyfile(source, tmp))
