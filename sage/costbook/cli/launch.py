"""The ``costbook`` command's entry point: a signal is one line from the first instruction on.

Importing the command (Sage, the schemes, the measurement code) takes about a second, and a Ctrl-C
or SIGTERM in that second used to print an import traceback.  This module needs only the standard
library; it turns a signal during the imports into the same one line and exit code that
``commands.main`` gives once it runs, and hands over to ``commands.main``, which installs its own handlers.
"""
from __future__ import annotations

import signal
import sys

from ..system.unwinding import quiet_unwinding, resend_lost_signals


class _Stopped(BaseException):
    """SIGTERM before ``cli.main`` has its handler (a BaseException, so no ``except Exception`` in an
    imported module swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


#: the signals received before ``commands.main`` took over: an imported module's bare ``except:`` may
#: swallow the exception a handler raised, never the record
_RECEIVED: list = []


def _stop(signum, frame):
    _RECEIVED.append(signum)
    raise _Stopped(signum)


def _interrupt(signum, frame):
    _RECEIVED.append(signum)
    raise KeyboardInterrupt


def main(argv=None) -> int:
    try:
        # every step inside the try: a signal during any of them is the same one line
        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _interrupt)
        resend_lost_signals()
        quiet_unwinding()
        from . import commands as cli
        if _RECEIVED:                   # raised where something swallowed it: acted on now
            raise KeyboardInterrupt if _RECEIVED[0] == signal.SIGINT else _Stopped(_RECEIVED[0])
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
