"""The ``costbook`` command's entry point: a signal is one line from the first instruction on.

Importing the command (Sage, the schemes, the measurement code) takes about a second, and a Ctrl-C
or SIGTERM in that second used to print an import traceback.  This module's first lines install its
handlers through the interpreter's own ``_signal`` (``signal`` imports enum first: milliseconds in
which a Ctrl-C was a traceback); it turns a signal during the imports into the same one line and exit
code that ``commands.main`` gives once it runs, and hands over to ``commands.main``, which installs its
own handlers.
"""
from __future__ import annotations

import _signal
import os
import sys


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


def _said(signum: int) -> int:
    """The one line of a command a signal ended, in one write (make's own line cannot land inside it);
    the exit code."""
    sys.stderr.write("costbook: interrupted\n" if signum == _signal.SIGINT else "costbook: terminated\n")
    sys.stderr.flush()
    return 128 + signum


_signal.signal(_signal.SIGTERM, _stop)
_signal.signal(_signal.SIGINT, _interrupt)
try:
    import signal
    from ..system.unwinding import quiet_unwinding, resend_lost_signals
except (KeyboardInterrupt, _Stopped) as _e:          # a signal while this module imports
    os._exit(_said(_e.signum if isinstance(_e, _Stopped) else _signal.SIGINT))


def main(argv=None) -> int:
    try:
        # every step inside the try: a signal during any of them is the same one line
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
        return _said(signal.SIGINT)
    except _Stopped as stopped:
        return _said(stopped.signum)
