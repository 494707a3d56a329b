"""Ending a build command cleanly on Ctrl-C (SIGINT) or SIGTERM.

What `make book`, `make chapter` and `make test` promise when interrupted: every process the command
started ends (chapter processes, their Jupyter kernels and whatever those started), one line says
so ("interrupted: ..."), no half-written file is left in place (costbook.system.atomic), and the
command ends by the signal itself, so that a shell reports 130 (SIGINT) or 143 (SIGTERM).

Why the pieces are as they are:

* Jupyter kernels run in a session of their own (jupyter_client starts them so), so neither the
  terminal's Ctrl-C nor a signal to make's process group reaches them: the process that started
  a kernel has to end it.  `end_descendants` takes the whole tree below this process (psutil),
  before any of it dies, since a child whose parent died is re-parented out of reach.
* Ending by the signal (`exit_by`) rather than `exit(128 + n)`: GNU make passes a child's death by
  SIGTERM on as its own (the shell sees 143), while a child that exits 143 while make itself is
  handling a SIGTERM to the process group makes make 4.3 print "wait: No child processes" twice
  and exit 2.  make adds its own one line either way ("make: *** [Makefile:N: target] Terminated").
* A signal that lands where Python cannot raise (an after-fork hook) is sent again
  (costbook.system.unwinding.resend_lost_signals), or the command would go on to finish.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys

import psutil

from ..system import unwinding

#: the signals a user or a supervisor sends to stop a command
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: seconds a process gets to end after SIGTERM before SIGKILL
GRACE_SECONDS = 5.0


class Interrupted(BaseException):
    """SIGINT or SIGTERM, raised where the main thread was (a BaseException, like KeyboardInterrupt,
    so that `except Exception` in library code does not swallow it and `finally` blocks still run)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def raise_interrupted(signum, frame):
    raise Interrupted(signum)


@contextlib.contextmanager
def raised_as_exception():
    """Inside the block, SIGINT and SIGTERM raise Interrupted in the main thread."""
    unwinding.resend_lost_signals()
    previous = {s: signal.signal(s, raise_interrupted) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def ignore_further_signals() -> None:
    """While cleaning up after the first signal: a second Ctrl-C must not cut the cleanup short, and the
    kernel clients' cleanup tasks the signal cut short do not print asyncio's "Task exception was never
    retrieved" when they are collected: the command's one line says what happened."""
    for s in STOP_SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    logging.getLogger("asyncio").disabled = True


def wind_down() -> int:
    """The first signal's cleanup: no further signal cuts it short (``ignore_further_signals``), and every
    process below this one ends (``end_descendants``, whose count it returns)."""
    ignore_further_signals()
    return end_descendants()


def end_descendants(grace: float = GRACE_SECONDS) -> int:
    """End every process below this one (children, their kernels, ...): SIGTERM, then SIGKILL for
    those still alive after `grace` seconds; repeated until none is left (a child may have started
    one meanwhile).  Returns how many processes were ended."""
    me = psutil.Process()
    ended = set()
    for _ in range(5):
        try:
            procs = [p for p in me.children(recursive=True) if p.pid not in ended]
        except psutil.Error:
            break
        if not procs:
            break
        for p in procs:
            with contextlib.suppress(psutil.Error):
                p.terminate()
        _, alive = psutil.wait_procs(procs, timeout=grace)
        for p in alive:
            with contextlib.suppress(psutil.Error):
                p.kill()
        psutil.wait_procs(alive, timeout=grace)
        ended |= {p.pid for p in procs}
    return len(ended)


def exit_by(signum: int) -> None:
    """End this process by `signum` itself, after the cleanup (see the module's note on make)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)            # not reached: the signal's default action ends the process


def say(line: str) -> None:
    """The one line an interrupted command prints."""
    # one write: unbuffered, print writes the newline apart, and make's own line can land between
    sys.stderr.write(" ".join(f"interrupted: {line}".split()) + "\n")
    sys.stderr.flush()
