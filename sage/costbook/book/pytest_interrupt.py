"""A pytest plugin: Ctrl-C or SIGTERM ends a test session the way they end a build (costbook.book.interrupt).

Without it, pytest answers Ctrl-C with KeyboardInterrupt in every process of the terminal's group (the
main process and each pytest-xdist worker print their tracebacks and summaries), and SIGTERM kills
each process where it stands: the workers die at once and the Jupyter kernels nbval started (in
sessions of their own) are left to notice on their own.  With this plugin (pyproject.toml's addopts
loads it, so `make test` and any pytest run in the project have it):

* in the session's main process: the signal ends every process below it (the xdist workers, their
  kernels), prints one line, "interrupted: SIGINT; ..." or "interrupted: SIGTERM; ...", and ends
  pytest by that signal (make then ends by it too, and the shell reports 130 or 143);
* in an xdist worker: the signal ends that worker's kernels first, then the worker, silently (the
  main process says what happened).

No test result is written by an interrupted session: its tests ran in temporary folders.
"""
from __future__ import annotations

import os
import signal

from . import interrupt


def pytest_configure(config):
    if hasattr(config, "workerinput"):                 # an xdist worker
        for signum in interrupt.STOP_SIGNALS:
            signal.signal(signum, _end_worker)
        return

    def end_session(signum, frame):
        ended = interrupt.wind_down()
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()                  # after a line of progress dots, not on it
        interrupt.say(f"{signal.Signals(signum).name}; the test session stopped ({ended} process{'es' * (ended != 1)} it "
                      "started ended, its workers and kernels among them); no result")
        interrupt.exit_by(signum)

    for signum in interrupt.STOP_SIGNALS:
        signal.signal(signum, end_session)


def _end_worker(signum, frame):
    interrupt.wind_down()
    os._exit(128 + signum)
