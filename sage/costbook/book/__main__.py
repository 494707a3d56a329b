"""``python -m costbook.book COMMAND [ARGS]``: the book's build commands, as ``make book`` runs them.

COMMAND is one of measured, execute, render, pdf, quarto, bench, reproducible, live (the module of
that name in ``costbook.book``) or calibrate (``costbook.calibration.calibrate``, the evidence the
book's intervals come from); each one's ``--help`` says what it does.  Entering through here rather than ``python -m
costbook.book.COMMAND`` (which works too) puts the signal handling in place before the command's
imports, which take a second or more: a Ctrl-C or SIGTERM at any point prints one line
("interrupted: ...") and ends the process by that signal, as ``costbook.book.interrupt`` describes.
"""
import importlib
import os
import signal
import sys

from ..system.unwinding import quiet_unwinding, resend_lost_signals

#: command: the module whose main() it runs
COMMANDS = {**{name: f"costbook.book.{name}" for name in
               ("measured", "execute", "render", "pdf", "quarto", "bench", "reproducible")},
            "calibrate": "costbook.calibration.calibrate", "live": "costbook.book.live"}


class _Starting(BaseException):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


#: the signals received while the command starts: an imported module's bare ``except:`` may swallow the
#: exception a handler raised, never the record
_RECEIVED: list = []


def _starting(signum, frame):
    _RECEIVED.append(signum)
    raise _Starting(signum)


def _end_by(signum: int, command: str) -> None:
    """Before the command has imported costbook.book.interrupt: its say() and exit_by(), in the
    standard library (nothing has been started or written yet)."""
    print(f"interrupted: {signal.Signals(signum).name} while starting {command}", file=sys.stderr, flush=True)
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)


def main(argv: list) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m costbook.book {{{','.join(COMMANDS)}}} [ARGS]", file=sys.stderr)
        return 2
    command = argv[0]
    interrupt = None
    try:
        # every step inside the try: a signal during any of them, or between them, is one line
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, _starting)
        resend_lost_signals()
        quiet_unwinding()
        from . import interrupt
        module = importlib.import_module(COMMANDS[command])
        if _RECEIVED:                           # raised where something swallowed it: acted on now
            raise _Starting(_RECEIVED[0])
        for s in interrupt.STOP_SIGNALS:        # from here on, the command's own rule
            signal.signal(s, interrupt.raise_interrupted)
        sys.argv[0] = f"python -m costbook.book {command}"
        code = module.main(argv[1:])
    except _Starting as e:
        _end_by(e.signum, command)
    except KeyboardInterrupt:                   # before the SIGINT handler was in place
        _end_by(signal.SIGINT, command)
    except BaseException as e:
        if interrupt is None or not isinstance(e, interrupt.Interrupted):
            raise
        # outside the command's own handling (its arguments), or while its handler was put in place
        interrupt.wind_down()
        interrupt.say(f"{e.name} while running {command}")
        interrupt.exit_by(e.signum)
    interrupt.ignore_further_signals()          # the command is done: a signal now changes nothing
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
