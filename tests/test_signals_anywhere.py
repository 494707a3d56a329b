"""SIGINT or SIGTERM at any point of a build or file command: what is left is one line and nothing else.

The other signal tests stop a command where it is known to be (a sleeping cell, pandoc running, a
write half done).  These send the signal after delays drawn (seeded) across the whole run of a short
command, the imports included, to the command's own session as a terminal or a supervisor does, and
hold every outcome to the same promise: the command ends by the signal with one line on stderr
besides its warnings and no traceback (or finishes, if it was faster than the delay), no process of
its session is left, and neither its output folder nor its temporary folder holds a temporary file.
The delays are fractions of an uninterrupted run of the same command on this machine, counted from
the moment the command's handler is in place (its first lines: /proc shows SIGTERM caught).  Before
that, for the 20-odd milliseconds of the interpreter's own start-up, Python's defaults rule: SIGTERM
ends the process silently, SIGINT with Python's KeyboardInterrupt message; nothing has been started
or written by then.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_BOOK = ROOT / "tests" / "fixtures" / "book"
COSTBOOK = [sys.executable, "-m", "costbook"]
#: the one line each kind of command prints when a signal ends it
LINES = {"book": ("interrupted: ",), "cli": ("costbook: interrupted", "costbook: terminated")}


def commands(tmp: Path) -> dict:
    """name: (kind, argv, output folder)"""
    zkalc = tmp / "in" / "bls12_381" / "arkworks.json"
    return {
        "render": ("book", [sys.executable, "-m", "costbook.book", "render", "--project", str(FIXTURE_BOOK),
                            "--notebooks", str(FIXTURE_BOOK), "--out", str(tmp / "out")], tmp / "out"),
        "export": ("cli", [*COSTBOOK, "export", "zkalc", "--out", str(zkalc)], zkalc.parent),
        "import": ("cli", [*COSTBOOK, "import", "zkalc", str(zkalc), "--curve", "bls12_381", "--library", "arkworks", "--machine",
                           "a test box", "--out", str(tmp / "out" / "m.json")], tmp / "out"),
    }


def wait_until_handled(proc: subprocess.Popen, timeout: float = 60) -> None:
    """Poll /proc until the process catches SIGTERM (its command's first lines have run)."""
    bit = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            return
        caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
        if caught & bit:
            return
        time.sleep(0.001)


def session_processes(sid: int) -> list:
    found = []
    for p in psutil.process_iter():
        try:
            if os.getsid(p.pid) == sid:
                found.append(p)
        except (ProcessLookupError, PermissionError, psutil.Error):
            pass
    return found


def temporaries(*folders: Path) -> list:
    return [p for folder in folders if folder.exists() for p in folder.rglob("*")
            if p.name.endswith((".tmp", ".part")) or p.name.startswith("tmp")]


def prepare(tmp: Path, name: str) -> None:
    if name == "import":                    # its input, made whole first
        subprocess.run(commands(tmp)["export"][1], check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def seconds(tmp_path_factory) -> dict:
    """How long each command runs here, uninterrupted (it must succeed)."""
    took = {}
    for name in ("render", "export", "import"):
        tmp = tmp_path_factory.mktemp(name)
        prepare(tmp, name)
        start = time.monotonic()
        done = subprocess.run(commands(tmp)[name][1], capture_output=True, text=True, timeout=300)
        took[name] = time.monotonic() - start
        assert done.returncode == 0, done.stderr
    return took


CASES = [(name, sig, round(random.Random(f"{name}{i}").uniform(0.0, 0.9), 3))
         for name in ("render", "export", "import") for i, sig in enumerate(("SIGTERM", "SIGINT", "SIGTERM"))]


@pytest.mark.parametrize("name, sig, fraction", CASES)
def test_a_signal_at_any_point_leaves_one_line_and_nothing_else(tmp_path, seconds, name, sig, fraction):
    prepare(tmp_path, name)
    kind, argv, out = commands(tmp_path)[name]
    tmp_dir = tmp_path / "tmpdir"
    tmp_dir.mkdir()
    proc = subprocess.Popen(argv, env={**os.environ, "TMPDIR": str(tmp_dir)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_until_handled(proc)
    time.sleep(fraction * seconds[name])
    signum = getattr(signal, sig)
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:              # it finished first
        pass
    _, err = proc.communicate(timeout=120)
    said = [line for line in err.splitlines() if ": warning: " not in line]
    assert "Traceback" not in err, err
    if proc.returncode != 0:
        assert proc.returncode in (-signum, 128 + signum), (proc.returncode, err)
        assert len(said) == 1 and said[0].startswith(LINES[kind]), err
    deadline = time.monotonic() + 30
    while (left := session_processes(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, left
    assert temporaries(out, tmp_dir) == []


#: each entry point's setup steps (the names its module calls them by), and the one line a signal
#: during them must give: the drawn delays above start once the handler is in place and rarely land
#: in the microseconds that follow, where a signal once escaped as a traceback (costbook's _Stopped)
ENTRY_POINTS = {"costbook.cli.launch": (["check", "--help"], ("costbook: terminated", "costbook: interrupted")),
                "costbook.book.__main__": (["render", "--help"], ("interrupted: SIGTERM while starting render",
                                                                  "interrupted: SIGINT while starting render"))}


#: a setup step replaced by one that signals its own process, plainly or inside a bare `except:` (as an
#: imported module may have: the exception the handler raises is swallowed there)
SIGNALLED = {"plainly": "def signalled():\n    os.kill(os.getpid(), signal.{sig})\n",
             "inside a bare except": "def signalled():\n    try:\n        os.kill(os.getpid(), signal.{sig})\n"
                                     "        time.sleep(1)\n    except:\n        pass\n"}


@pytest.mark.parametrize("module", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("step", ["resend_lost_signals", "quiet_unwinding"])
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("how", sorted(SIGNALLED))
def test_a_signal_while_an_entry_point_sets_itself_up_is_one_line(module, step, sig, how):
    """The signal is sent from inside the setup step itself (the step replaced by a call that signals
    its own process), so where it lands is not left to timing; swallowed there, it still ends the
    command (it once went on to finish)."""
    argv, (on_term, on_int) = ENTRY_POINTS[module]
    script = (f"import os, signal, sys, time\nimport {module} as entry\n" + SIGNALLED[how].format(sig=sig)
              + f"entry.{step} = signalled\nsys.exit(entry.main({argv!r}))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    signum = getattr(signal, sig)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (-signum, 128 + signum), (done.returncode, done.stderr)
    assert done.stderr.splitlines() == [on_term if sig == "SIGTERM" else on_int], done.stderr


@pytest.mark.parametrize("sig, after", [("SIGINT", 0.2), ("SIGTERM", 0.7), ("SIGINT", 2.5)])
def test_a_signal_while_calibrate_starts_leaves_one_line_and_nothing_else(tmp_path, sig, after):
    """make calibrate runs for twenty minutes; its first seconds (imports, reading the evidence,
    starting its worker) are where a signal once printed a traceback."""
    out = tmp_path / "out" / "runs.json"
    tmp_dir = tmp_path / "tmpdir"
    tmp_dir.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "costbook.book", "calibrate", "cs03", "--processes", "1",
                             "--out", str(out)], env={**os.environ, "TMPDIR": str(tmp_dir)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_until_handled(proc)
    time.sleep(after)
    signum = getattr(signal, sig)
    os.killpg(proc.pid, signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (-signum, 128 + signum), (proc.returncode, err)
    assert len(err.splitlines()) == 1 and "interrupted" in err and "Traceback" not in err, err
    deadline = time.monotonic() + 30
    while (left := session_processes(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, left
    assert not out.exists() and temporaries(out.parent, tmp_dir) == []


def _ignored_signals() -> int:
    from sage.all import GF, EllipticCurve     # cysignals, which takes SIGINT over when first used
    EllipticCurve(GF(1000003), [1, 7]).order()
    status = Path(f"/proc/{os.getpid()}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)


def test_a_pool_worker_leaves_ctrl_c_to_its_parent():
    """Ctrl-C reaches every process of the terminal's group; a validation's worker interrupted inside
    PARI printed cypari2's "leaked ... bytes on the PARI stack" beside the parent's one line.  The
    worker ignores SIGINT and its parent ends it."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from costbook.system import children
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=children.start_worker, initargs=(os.getpid(),)) as pool:
        ignored = pool.submit(_ignored_signals).result(timeout=60)
    assert ignored & (1 << (signal.SIGINT - 1))
    assert not ignored & (1 << (signal.SIGTERM - 1))
