"""Processes costbook starts end with it.

A worker, a CPU-bound companion or a pandoc started by a command must not outlive it: a SIGTERM or
SIGKILL to the command (a supervisor, a CI timeout) runs none of its cleanup, and a child left behind
keeps a core busy for good.  ``die_with_parent`` is run in the child before it starts its work (as
``preexec_fn`` or a pool's ``initializer``): Linux then sends it SIGTERM when its parent dies
(prctl PR_SET_PDEATHSIG); elsewhere it does nothing.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGTERM this process when its parent dies; if the parent (pid `parent`, when
    given) died before this call, end now."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:      # the parent was gone already
        os.kill(os.getpid(), signal.SIGTERM)


def start_worker(parent: int, temporaries: str | None = None) -> None:
    """A pool worker's first lines (its ``initializer``): it ends with its parent (``die_with_parent``),
    and it leaves a Ctrl-C to the parent, which ends it (``end_children``).  The terminal sends Ctrl-C
    to the whole process group; a worker that unwound by itself would print lines of its own on the
    way, such as cypari2's "leaked N bytes on the PARI stack" when the signal lands inside PARI.  Its
    temporaries (Sage's folders) go in `temporaries`, which the parent removes: a worker ended by
    SIGKILL removes none of its own."""
    if temporaries is not None:
        import tempfile
        tempfile.tempdir = temporaries
    cysignals_first()
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # a Ctrl-C held since it started (ctrl_c_held) is dropped
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    die_with_parent(parent)


@contextlib.contextmanager
def ctrl_c_held():
    """SIGINT blocked in this thread while it starts children: they inherit the block, so a Ctrl-C that
    reaches the whole group while a child's interpreter is still starting (before it can ignore it:
    ``start_worker``) does not end the child with a traceback of its own; this process gets it when the
    block ends."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def cysignals_first() -> None:
    """Import Sage's cysignals now, where it is installed, before a SIGINT handler is set: its first
    import sets SIGINT's Python handler to its own.  Imported later (with Sage, inside a command), it
    would replace the command's handler, and a Ctrl-C would unwind through a process pool that waits
    for its running worker instead of ending it."""
    with contextlib.suppress(ImportError):
        import cysignals.signals  # noqa: F401


def end_children() -> None:
    """Kill every process below this one now (a worker, a companion): before a signal unwinds the
    command, whose process pool would otherwise wait for its running worker to finish."""
    import psutil
    def ours(p) -> bool:
        # multiprocessing's resource tracker cleans up after the pool itself, and exits with this process
        with contextlib.suppress(psutil.Error):
            return not any("resource_tracker" in part for part in p.cmdline())
        return False

    try:
        procs = [p for p in psutil.Process().children(recursive=True) if ours(p)]
    except psutil.Error:
        return
    for child in procs:
        with contextlib.suppress(psutil.Error):
            child.kill()
    psutil.wait_procs(procs, timeout=5)
