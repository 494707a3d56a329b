"""A computation cut short by a signal unwinds without lines of its own, and a signal is never lost.

cypari2 warns "leaked N bytes on the PARI stack" when an exception leaves a PARI call before PARI
freed its stack.  In a command only a signal does that, the memory goes with the process, and the
one line the signal promises would become three.

Python cannot raise from some places (a fork's after-fork hooks, ``__del__``, weakref callbacks):
the exception a signal handler raises there is printed as "Exception ignored" and the command goes
on as if no signal had come.  ``resend_lost_signals`` sends such a signal again a moment later,
when the main thread is back in ordinary code.  Standard library only: the entry points call these
before their slow imports.
"""
import os
import signal
import sys
import threading
import warnings

#: seconds after which a lost signal is sent again
RESEND_SECONDS = 0.01


def quiet_unwinding() -> None:
    warnings.filterwarnings("ignore", message=r"cypari2 leaked \d+ bytes on the PARI stack", category=RuntimeWarning)


def lost_signal(exc) -> "int | None":
    """The signal an exception stands for: KeyboardInterrupt is SIGINT, and a BaseException that is no
    Exception and carries a `signum` (the commands' own Interrupted, Terminated, ...) is its signum."""
    if isinstance(exc, KeyboardInterrupt):
        return signal.SIGINT
    signum = getattr(exc, "signum", None)
    return signum if isinstance(exc, BaseException) and not isinstance(exc, Exception) \
        and isinstance(signum, int) else None


def _resend_hook(previous):
    def hook(info):
        signum = lost_signal(info.exc_value)
        if signum is None:
            previous(info)
        else:
            threading.Timer(RESEND_SECONDS, os.kill, (os.getpid(), signum)).start()
    hook.resends_lost_signals = True
    return hook


def resend_lost_signals() -> None:
    """From now on, a signal whose exception Python could not raise is sent again (once installed,
    installing again changes nothing)."""
    if not getattr(sys.unraisablehook, "resends_lost_signals", False):
        sys.unraisablehook = _resend_hook(sys.unraisablehook)
