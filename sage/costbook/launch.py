"""The ``costbook`` command's entry point: a signal is one line from the first instruction on.

Importing the command (Sage, the schemes, the measurement code) takes about a second, and a Ctrl-C
or SIGTERM in that second used to print an import traceback.  This module needs only the standard
library; it turns a signal during the imports into the same one line and exit code that
``cli.main`` gives once it runs, and hands over to ``cli.main``, which installs its own handlers.
"""
from __future__ import annotations

import signal
import sys
import warnings


class _Stopped(BaseException):
    """SIGTERM before ``cli.main`` has its handler (a BaseException, so no ``except Exception`` in an
    imported module swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def quiet_unwinding() -> None:
    """cypari2 warns "leaked N bytes on the PARI stack" when an exception leaves a PARI call before
    PARI freed its stack.  In a command only a signal does that, the memory goes with the process,
    and the one line the signal promises would become three."""
    warnings.filterwarnings("ignore", message=r"cypari2 leaked \d+ bytes on the PARI stack", category=RuntimeWarning)


def _stop(signum, frame):
    raise _Stopped(signum)


def main(argv=None) -> int:
    signal.signal(signal.SIGTERM, _stop)
    quiet_unwinding()
    try:
        from . import cli
        code = cli.main(argv)
        for sig in (signal.SIGINT, signal.SIGTERM):   # the command is done: a signal now changes nothing
            signal.signal(sig, signal.SIG_IGN)
        return code
    except KeyboardInterrupt:
        print("costbook: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except _Stopped as stopped:
        print("costbook: terminated", file=sys.stderr)
        return 128 + stopped.signum
