"""Ctrl-C (SIGINT) and SIGTERM end `make chapter`, the chapter runner (`make book`'s chapters) and a
test session cleanly: every process the command started ends (chapter processes, Jupyter kernels,
test workers), one line says so ("interrupted: ..."), no executed copy, cache entry or temporary
file is left, and the command ends by the signal (a shell reports 130 / 143: a Popen sees -2 / -15).

Real signals to real processes: each test starts a command in a process group of its own, waits
until every chapter (or test) it started is running a cell that sleeps (the cell writes its
kernel's pid to a file first), signals the group as a terminal's Ctrl-C or a supervisor's SIGTERM
does, and then polls: no sleeps stand for a wait, and the timeouts are generous (a kernel takes
seconds to start on a loaded machine).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
START_TIMEOUT = 300           # seconds for the kernels to start and reach the sleeping cell
END_TIMEOUT = 60              # seconds for everything to end after the signal

SLEEPY_CELL = ("import os, pathlib, time\n"
               "pathlib.Path(os.environ['COSTBOOK_TEST_READY'], {name!r}).write_text(str(os.getpid()))\n"
               "time.sleep(SECONDS)\n")


def sleepy_notebook(path: Path, kernel: str = "sagemath") -> Path:
    """A chapter that says it is running (its kernel's pid in $COSTBOOK_TEST_READY/<its name>), then
    sleeps SECONDS (a parameter) in a cell."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("SECONDS = 600", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(SLEEPY_CELL.format(name=path.name))]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def start(cmd, ready: Path, cwd: Path) -> subprocess.Popen:
    """`cmd` as a terminal starts a job: a process group of its own, which it leads."""
    ready.mkdir(exist_ok=True)
    # as from a terminal: not a sub-make of `make test` (whose MAKELEVEL would make it say make[1])
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    env.update(COSTBOOK_TEST_READY=str(ready), COSTBOOK_FRESH="1", TMPDIR=str(temporary_folder(ready)))
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


#: each command's TMPDIR, by its `ready` folder; removed after its test
_TEMPORARY: dict = {}


def temporary_folder(ready: Path) -> Path:
    """The command's TMPDIR: where its kernels' sockets, connection files and Sage's folders go.  Short
    and outside the test's own folder, whose path (under pytest-xdist) leaves a Unix socket's path too
    long for its limit of 107 bytes."""
    if ready not in _TEMPORARY:
        _TEMPORARY[ready] = Path(tempfile.mkdtemp(prefix="cbt-"))
    return _TEMPORARY[ready]


@pytest.fixture(autouse=True)
def _remove_temporary_folders():
    yield
    while _TEMPORARY:
        shutil.rmtree(_TEMPORARY.popitem()[1], ignore_errors=True)


def left_in(folder: Path) -> list:
    """What an interrupted command left in `folder` (its TMPDIR): nothing, once every process has ended."""
    deadline = time.monotonic() + END_TIMEOUT
    while (left := sorted(p.name for p in folder.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def wait_until_running(proc: subprocess.Popen, ready: Path, names) -> list[psutil.Process]:
    """Poll until every named cell is sleeping; then every process of the command: those below it
    and the kernels (which run in sessions of their own, and are also below it)."""
    deadline = time.monotonic() + START_TIMEOUT
    while not all((ready / n).is_file() and (ready / n).read_text() for n in names):
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the command ended (exit {proc.returncode}) before its cells ran:\n{out}\n{err}")
        assert time.monotonic() < deadline, "the chapters did not start in time"
        time.sleep(0.2)
    kernels = {int((ready / n).read_text()) for n in names}
    below = psutil.Process(proc.pid).children(recursive=True)
    assert kernels <= {p.pid for p in below}, "every kernel is a descendant of the command"
    return below


def finish(proc: subprocess.Popen, signum: int, to_group: bool = True) -> tuple[str, str]:
    (os.killpg if to_group else os.kill)(proc.pid, signum)
    try:
        return proc.communicate(timeout=END_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"still running {END_TIMEOUT} s after {signal.Signals(signum).name}:\n{out}\n{err}")


def assert_all_ended(procs: list[psutil.Process]) -> None:
    """None of them is left running (a zombie has ended: its parent has just not reaped it yet)."""
    deadline = time.monotonic() + END_TIMEOUT
    while True:
        alive = []
        for p in procs:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.NoSuchProcess:
                pass
        if not alive:
            return
        if time.monotonic() > deadline:
            for p in alive:
                p.kill()
            pytest.fail(f"left running: {[(p.pid, ' '.join(p.cmdline())[:120]) for p in alive]}")
        time.sleep(0.2)


def interrupted_line(err: str, signum: int) -> str:
    """The command's own one line; the only other line allowed is make's own notice."""
    name = signal.Signals(signum).name
    lines = [line for line in err.splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith("interrupted: ")]
    others = [line for line in lines if line not in ours]
    assert len(ours) == 1, err
    assert ours[0].startswith(f"interrupted: {name}"), err
    make_notice = {signal.SIGINT: "Interrupt", signal.SIGTERM: "Terminated"}[signum]
    assert all(line.startswith("make: *** [") and line.endswith(f"] {make_notice}") for line in others), err
    assert "Traceback" not in err and "Error" not in err
    return ours[0]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_the_runner_ends_its_chapters_and_their_kernels(tmp_path, signum):
    """make book's chapter step: two chapters at once, each in its own process with its own kernel."""
    names = ["01-sleepy.ipynb", "02-sleepy.ipynb"]
    for n in names:
        sleepy_notebook(tmp_path / "chapters" / n)
    ready = tmp_path / "ready"
    proc = start([PY, "-m", "costbook.book.execute", "--project", str(tmp_path), "--out",
                  str(tmp_path / "build" / "chapters"), "--jobs", "2", *(f"chapters/{n}" for n in names)],
                 ready, tmp_path)
    below = wait_until_running(proc, ready, names)
    assert len(below) >= 4                      # two chapter processes, two kernels
    out, err = finish(proc, signum)
    assert proc.returncode == -signum, (proc.returncode, err)
    line = interrupted_line(err, signum)
    assert "stopped 2 chapters" in line and all(n in line for n in names)
    assert "failed" not in out + err
    assert_all_ended(below)
    assert not (tmp_path / "build" / "chapters").exists() or not any((tmp_path / "build" / "chapters").rglob("*"))
    cache = tmp_path / "build" / "cache" / "chapters"
    assert not cache.exists() or not any(cache.glob("*.ipynb"))
    assert not any(p.name.endswith(".tmp") for p in tmp_path.rglob("*"))
    assert left_in(temporary_folder(ready)) == []     # the kernels' connection files, Sage's folders


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
@pytest.mark.parametrize("signum, to_group", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c to the process group", "sigterm to make alone"])
def test_make_chapter_ends_cleanly(tmp_path, signum, to_group):
    """`make chapter` on a chapter outside the book (the runner takes a path): Ctrl-C reaches make,
    the runner and the chapter's process at once; a SIGTERM to make alone is passed on by make."""
    name = f"77-sleepy-{tmp_path.name}.ipynb"
    chapter = sleepy_notebook(tmp_path / name)
    ready = tmp_path / "ready"
    built = [ROOT / "build" / "chapters" / name, ROOT / "build" / "book" / name.replace(".ipynb", ".html")]
    proc = start([shutil.which("make"), "--no-print-directory", "-o", ".venv/.installed", "chapter",
                  f"CHAPTER={chapter}"], ready, ROOT)
    below = wait_until_running(proc, ready, [name])
    out, err = finish(proc, signum, to_group)
    assert proc.returncode == -signum, (proc.returncode, err)   # make ends by the signal: $? = 128 + n
    assert "stopped 1 chapter" in interrupted_line(err, signum)
    assert_all_ended(below)
    assert not any(p.exists() for p in built)
    assert left_in(temporary_folder(ready)) == []
    cache = ROOT / "build" / "cache" / "chapters"
    assert not any(cache.glob(f"{Path(name).stem}*")) if cache.is_dir() else True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_test_session_ends_its_workers_and_kernels(tmp_path, signum):
    """make test's pytest (xdist workers, nbval kernels) with the plugin pyproject.toml loads: one line,
    every worker and kernel ended, pytest ended by the signal."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")           # not the project's settings
    (tmp_path / "test_wait.py").write_text(
        "import os, pathlib, time\n\ndef test_wait():\n"
        "    pathlib.Path(os.environ['COSTBOOK_TEST_READY'], 'test').write_text(str(os.getpid()))\n"
        "    time.sleep(600)\n")
    sleepy_notebook(tmp_path / "sleepy.ipynb", kernel="python3")
    ready = tmp_path / "ready"
    proc = start([PY, "-m", "pytest", "-p", "costbook.book.pytest_interrupt", "-p", "no:cacheprovider",
                  "-n", "2", "--dist", "loadfile", "--nbval", "test_wait.py", "sleepy.ipynb"], ready, tmp_path)
    below = wait_until_running(proc, ready, ["test", "sleepy.ipynb"])
    out, err = finish(proc, signum)
    assert proc.returncode == -signum, (proc.returncode, out, err)
    assert "the test session stopped" in interrupted_line(err, signum)
    assert_all_ended(below)


def test_the_project_loads_the_plugin():
    import tomllib
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "-p costbook.book.pytest_interrupt" in addopts


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path):
    """What every file of the build goes through (costbook.system.atomic): SIGTERM mid-write."""
    from costbook.system import atomic
    from costbook.book import interrupt
    page = tmp_path / "book" / "index.html"
    page.parent.mkdir()
    page.write_text("the old page")

    def write_half_then_get_signalled(tmp):
        tmp.write_text("<html>half a ")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)                           # the handler raises before this ends

    with interrupt.raised_as_exception():
        with pytest.raises(interrupt.Interrupted) as e:
            atomic.replace(page, write_half_then_get_signalled)
    assert e.value.signum == signal.SIGTERM and e.value.name == "SIGTERM"
    assert page.read_text() == "the old page"
    assert [p.name for p in page.parent.iterdir()] == ["index.html"]
    assert signal.getsignal(signal.SIGTERM) is not interrupt.raise_interrupted    # restored


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_runner_ends_the_measurement_and_the_kernels_started_beside_it(tmp_path, signum):
    """make book's chapter step while it measures this machine (--measure-after): the measurement
    and the kernels started meanwhile all end, no measurement file is left, and the runner's line is
    the only one (the measurement's own "terminated; ... not written" was a second)."""
    names = ["01-sleepy.ipynb", "02-sleepy.ipynb"]
    for n in names:
        sleepy_notebook(tmp_path / "chapters" / n)
    stamp, meas = tmp_path / ".installed", tmp_path / "build" / "this-machine.json"
    stamp.write_text("")
    proc = start([PY, "-m", "costbook.book.execute", "--project", str(tmp_path), "--out",
                  str(tmp_path / "build" / "chapters"), "--measurements", str(meas), "--measure-after", str(stamp),
                  *(f"chapters/{n}" for n in names)], tmp_path / "ready", tmp_path)
    deadline = time.monotonic() + START_TIMEOUT
    while True:                                 # the measurement runs, and a kernel has started beside it
        assert proc.poll() is None, proc.communicate()
        below = psutil.Process(proc.pid).children(recursive=True)
        lines = []
        for p in below:
            with contextlib.suppress(psutil.Error):
                lines.append(" ".join(p.cmdline()))
        if any("costbook.cli.commands measure" in c for c in lines) and any("ipython_kernel" in c or "ipykernel" in c for c in lines):
            break
        assert time.monotonic() < deadline, "the measurement and a kernel did not start in time"
        time.sleep(0.2)
    out, err = finish(proc, signum)
    assert proc.returncode == -signum, (proc.returncode, out, err)
    said = [line for line in err.splitlines() if not line.startswith("measure: ")]    # its progress
    assert len(said) == 1 and said[0].startswith(
        f"interrupted: {signal.Signals(signum).name} while measuring this machine (build/this-machine.json not "
        "written); stopped "), err
    assert_all_ended(below)
    assert not meas.exists() and not any(p.name.endswith((".tmp", ".part")) for p in tmp_path.rglob("*"))
    assert left_in(temporary_folder(tmp_path / "ready")) == []


LOST_SIGNAL = """
import os, signal, subprocess, sys, time
from costbook.book import interrupt
from costbook.system import unwinding
lost = []
def after_fork():                      # a signal that lands in an after-fork hook, as it did in CI
    if not lost:
        lost.append(1)
        raise interrupt.Interrupted(signal.SIGINT) if sys.argv[1] == "book" else KeyboardInterrupt
os.register_at_fork(after_in_parent=after_fork)
# set before the fork: the signal sent again may land while the child is still being waited for
deadline = time.monotonic() + 30
try:
    if sys.argv[1] == "cli":           # the costbook command: Python's own SIGINT handler
        unwinding.resend_lost_signals()
    with interrupt.raised_as_exception() if sys.argv[1] == "book" else open(os.devnull):
        subprocess.run(["true"], preexec_fn=lambda: None)   # hooks run only with one
        while time.monotonic() < deadline:
            time.sleep(0.01)
except (interrupt.Interrupted, KeyboardInterrupt):
    print("interrupted", round(time.monotonic() - deadline + 30, 1))
"""


@pytest.mark.parametrize("command", ["book", "cli"])
def test_a_signal_lost_where_python_cannot_raise_still_ends_the_command(command):
    """A SIGINT that arrived while a fork ran its after-fork hooks was printed as "Exception ignored"
    and the PDF build (book) or `costbook validate` (cli) went on to finish.  It is now sent again."""
    done = subprocess.run([PY, "-c", LOST_SIGNAL, command], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
    word, seconds = done.stdout.split()
    assert word == "interrupted" and float(seconds) < 5, done.stdout
