"""Files costbook writes (the book's build, measurement and exported files), each replaced in one
rename: a reader (or the next build) sees the old file or the new one, never half of one.

The temporary is made by `tempfile.mkstemp` in the target's folder (a name no one can guess and a
file no one else made, so a planted symlink is never followed), named `.<name>.<pid>.<random>.tmp`:
the writer's pid tells a temporary whose writer died (SIGKILL runs no cleanup; the next write removes
it) from one still being written.  An interrupted write (Ctrl-C, SIGTERM raised as an exception by
costbook.book.interrupt) removes its own, wherever the signal falls (inside mkstemp too: the
temporary is then found by its writer's prefix).  The signal handlers are left alone: Sage's
cysignals owns SIGINT at the C level, and a handler swapped and restored there swallows Ctrl-C.
"""
from __future__ import annotations

import glob
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

_UMASK = os.umask(0o022)
os.umask(_UMASK)


#: the longest file name a temporary's prefix takes whole (a name is at most 255 bytes; the temporary
#: adds a dot, its writer's pid and mkstemp's random part)
_LONGEST_NAME = 200


def _base(path: Path) -> str:
    name = path.name
    if len(name.encode("utf-8")) <= _LONGEST_NAME:
        return name
    import hashlib
    return name.encode("utf-8")[:150].decode("utf-8", "ignore") + "~" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]


def _prefix(path: Path, pid: int) -> str:
    return f".{_base(path)}.{pid}."


def temporaries_of(path: Path, pid: int | None = None) -> list[Path]:
    """The temporaries process `pid` (default: this one) has beside `path`."""
    path = Path(path)
    pid = os.getpid() if pid is None else pid
    return sorted(path.parent.glob(glob.escape(_prefix(path, pid)) + "*.tmp"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:           # alive, owned by someone else
        return True
    return True


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporaries beside `path` whose writer is gone; one still being written stays."""
    path = Path(path)
    ours, removed = f".{_base(path)}.", []
    for tmp in path.parent.glob(glob.escape(ours) + "*.tmp"):
        pid = tmp.name[len(ours):].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                tmp.unlink()
                removed.append(tmp)
            except FileNotFoundError:    # another writer removed it first
                pass
    return removed


def replace(path: Path, write: Callable[[Path], object]) -> Path:
    """`write(temporary)` writes the new content; then it takes `path`'s place in one rename (a
    symlink at `path` is replaced, never followed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    tmp = None
    try:
        fd, name = tempfile.mkstemp(prefix=_prefix(path, os.getpid()), suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        os.close(fd)
        os.chmod(tmp, 0o666 & ~_UMASK)       # as an ordinary new file (mkstemp makes it 0600)
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        # a signal handler that raised inside mkstemp, after it made the file and before we hold its
        # name: the file is found by this process's prefix (one writer of a path per process)
        for made in [tmp] if tmp is not None else temporaries_of(path):
            made.unlink(missing_ok=True)
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
