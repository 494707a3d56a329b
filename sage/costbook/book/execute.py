"""Execute the book's chapters with the `sagemath` kernel.

    python -m costbook.book execute --out build/chapters --measurements FILE
        runs every chapter of _quarto.yml priced with FILE into build/chapters (tracked files stay).
    python -m costbook.book execute --inplace [chapters/01-primitives.ipynb ...]
        re-executes the committed chapters against the committed reference file, which is what
        nbval compares with (run this after editing a chapter).
    python -m costbook.book execute chapters/04-verifiable-encryption.ipynb --out build/chapters \
            --set 'PARAMS="aggressive"' [--set NAME=VALUE ...]
        runs one chapter with parameters overridden, without editing it, as papermill does
        (costbook.book.parameters checks every value before any kernel starts).
    python -m costbook.book execute --from-env --out build/chapters --render build/book
        what `make chapter` runs: chapter, NAME=VALUE and measurement file from the environment.

With --out, chapters run in parallel, each in its own process and kernel, and a chapter whose
inputs did not change is reused from build/cache/chapters (``run_chapters``).  With --measure-after
STAMP (what `make book` runs), this machine is measured first and the kernels start meanwhile.
Ctrl-C or SIGTERM ends every process the runner started (``main``).
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import multiprocessing
import multiprocessing.connection as mp_connection
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config

from ..calibration.validation import PROFILE_VARIABLE
from ..system import atomic, children
from . import interrupt, measured
from .cache import ChapterCache, input_digest, shared_digest
from .parameters import INJECTED_TAG, ParameterError, inject_parameters, parse_override, shown_value  # noqa: F401
from .project import chapter_files
from .reproducible import strip_volatile_metadata


def _label(cell, index: int) -> str:
    """A code cell as the log names it: its Quarto label, else its number."""
    m = re.search(r"^#\|\s*label:\s*(\S+)", cell.source, re.M)
    return f"cell {index} ({m.group(1)})" if m else f"cell {index}"


def cell_seconds(nb) -> list[tuple[str, float]]:
    """[(cell, seconds)] from nbclient's timing metadata (before it is stripped)."""
    from datetime import datetime
    out = []
    for i, cell in enumerate(nb.cells):
        ex = cell.get("metadata", {}).get("execution", {})
        start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
        if cell.cell_type == "code" and start and end:
            try:
                secs = (datetime.fromisoformat(end.replace("Z", "+00:00"))
                        - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()
            except ValueError:
                continue
            out.append((_label(cell, i), secs))
    return out


#: the modules a chapter's kernel may import before its first cell runs (``warm_modules``): the
#: book's package and matplotlib, whose imports take seconds and read no measurement file
_WARM_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+((?:costbook|matplotlib)(?:\.\w+)*)[ \t]+import[ \t]+\(?([\w, \t]+)"
                          r"|import[ \t]+((?:costbook|matplotlib)[\w.]*))", re.M)


def warm_modules(nb) -> list[str]:
    """The costbook and matplotlib modules the chapter's code cells import, in order (for `from X
    import a, b`: X, X.a and X.b, of which those that are not modules are skipped in the kernel)."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for m in _WARM_IMPORT.finditer(cell.source):
            if m.group(1):
                found.append(m.group(1))
                found += [f"{m.group(1)}.{name.split()[0]}" for name in m.group(2).split(",") if name.strip()]
            else:
                found.append(m.group(3))
    return list(dict.fromkeys(found))


def warm_kernel(client: NotebookClient, modules: list[str]) -> None:
    """Start the client's kernel and import `modules` in it, silently (no execution count, no
    output in the notebook, no name left in the chapter's namespace): what the chapter's first
    cells then import is already loaded.  A module that fails to import is left to the cell that
    imports it, which reports it as it always did."""
    client.km = client.create_kernel_manager()
    client.start_new_kernel()
    client.start_new_kernel_client()
    code = ("def __costbook_warm(modules):\n"
            "    import importlib\n"
            "    for name in modules:\n"
            "        try:\n"
            "            importlib.import_module(name)\n"
            "        except Exception:\n"
            "            pass\n"
            f"__costbook_warm({modules!r})\n"
            "del __costbook_warm\n")
    client.wait_for_reply(client.kc.execute(code, silent=True, store_history=False))


def execute_notebook(src: Path, dst: Path, measurements: Path | None, timeout: int = 1800,
                     overrides: list[tuple[str, str]] = (), cells: list | None = None,
                     ready=None, validation_profile: str | None = None) -> float:
    """Run `src` top to bottom in a fresh sagemath kernel and write it to `dst`; return seconds.
    `cells`, a list, receives (cell, seconds) for every code cell.  `ready`, if given, is called
    once the kernel has started and imported the chapter's modules (``warm_kernel``), and returns
    when the chapter may run (the measurement file it prices with is written): the seconds
    returned are then those after it returned.  `validation_profile` ("check") is for tests that
    read only the untimed cells; the book's chapters time with the full profile."""
    nb = nbformat.read(src, as_version=4)
    if overrides:
        inject_parameters(nb, list(overrides), str(src))
    with tempfile.TemporaryDirectory(prefix=_kernel_folder_prefix(os.getpid())) as folder, \
            kernel_environment(Path(measurements).resolve() if measurements is not None else None,
                               validation_profile, folder):
        # the kernel's own log at ERROR: no warning per kernel in the book's log; what a cell writes
        # to stderr still lands in the notebook.  Its channels are Unix sockets in a folder of its own,
        # not TCP ports: Jupyter picks free ports, closes them and lets the kernel bind them seconds
        # later (a Sage kernel starts slowly), and kernels started side by side (make book, make
        # test's workers) can lose that race ("Address already in use").  Its connection file and
        # its temporaries (TMPDIR: Sage's folders) are there too: a kernel ended by a signal removes
        # none of its own, and the folder goes with this block
        config = Config()
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = os.path.join(folder, "k")          # short: a socket's path has a limit
        config.KernelManager.connection_file = os.path.join(folder, "kernel.json")
        client = NotebookClient(nb, kernel_name="sagemath", timeout=timeout, config=config,
                                startup_timeout=300, resources={"metadata": {"path": str(src.parent)}},
                                extra_arguments=["--IPKernelApp.log_level=ERROR"])
        try:
            if ready is not None:
                try:
                    warm_kernel(client, warm_modules(nb))
                    ready()
                except Exception:
                    client._cleanup_kernel()
                    raise
            t0 = time.perf_counter()
            client.execute()          # in the warmed kernel, if there is one; it ends the kernel
            elapsed = time.perf_counter() - t0
        except interrupt.Interrupted:
            # the kernel ends before its folder goes, and a second signal (make passes one on; the
            # runner ends its chapter processes) does not cut the folder's removal short
            interrupt.wind_down()
            raise
    if cells is not None:
        cells.extend(cell_seconds(nb))
    strip_volatile_metadata(nb)
    atomic.replace(dst, lambda tmp: nbformat.write(nb, tmp))
    return elapsed


#: the file `make book` measures this machine into (the Makefile's MEASURED), relative to the project;
#: `make chapter` prices with it when it exists, so that every chapter of the book shows one machine
THIS_MACHINE = "build/measurements/this-machine.json"

#: where `make chapter` puts its variables (target-specific exports of $(value ...): no shell, no
#: expansion by make); --from-env reads them
ENV_CHAPTER, ENV_SET, ENV_MEASUREMENTS = "COSTBOOK_CHAPTER", "COSTBOOK_SET", "COSTBOOK_CHAPTER_MEASUREMENTS"


def resolve_chapter(root: Path, text: str) -> Path:
    """CHAPTER as make takes it: a path to a notebook, or the start of a file name in chapters/
    (CHAPTER=04); exactly one chapter must match.  Raises ParameterError."""
    if not text.strip():
        raise ParameterError("CHAPTER is empty: give a chapter, e.g. CHAPTER=04")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ParameterError(f"CHAPTER={shown_value(text)}: control characters in a chapter name")
    path = Path(text) if Path(text).is_absolute() else root / text
    if path.suffix == ".ipynb" and path.is_file():
        return path.resolve()
    if "/" not in text:
        found = sorted(Path(p) for p in glob.glob(glob.escape(str(root / "chapters" / text)) + "*.ipynb"))
        if len(found) == 1:
            return found[0].resolve()
        if len(found) > 1:
            raise ParameterError(f"CHAPTER={shown_value(text)}: {len(found)} chapters match "
                                 f"({', '.join(p.name for p in found)}); give more of the name")
    names = ", ".join(p.name[:2] for p in sorted((root / "chapters").glob("*.ipynb")))
    raise ParameterError(f"CHAPTER={shown_value(text)}: no such chapter (give a chapter number: {names}, "
                         f"or a path to a .ipynb file)")


def read_chapter(path: Path, given: str):
    """The notebook at `path`, or a ParameterError saying in one line why it is not a chapter (a
    chapter is a Jupyter notebook, .ipynb, that nbformat reads and validates)."""
    if not path.is_file():
        raise ParameterError(f"{shown_value(given)}: no such chapter")
    if path.suffix != ".ipynb":
        raise ParameterError(f"{shown_value(given)}: not a chapter (a chapter is a Jupyter notebook, .ipynb)")
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as e:            # nbformat's NotJSONError, ValidationError, a decoding error, ...
        why = " ".join(str(e).split())
        raise ParameterError(f"{shown_value(given)}: not a chapter: not a valid Jupyter notebook "
                             f"({why[:150] + '...' if len(why) > 150 else why})") from None
    return nb


def from_environment(root: Path):
    """(chapter, overrides, measurements or None) from make's variables in the environment, all
    checked (the measurement file loaded) before any kernel starts.  Raises ParameterError.

    make puts its variables CHAPTER, SET and MEASUREMENTS there unexpanded, so that no shell ever
    parses them; a failure is one line and a non-zero exit, and with --render the book is
    re-rendered only when the chapter ran."""
    from ..prices import measurements as ms
    chapter = resolve_chapter(root, os.environ.get(ENV_CHAPTER, ""))
    text = os.environ.get(ENV_SET, "")
    overrides = [parse_override(text)] if text.strip() else []     # checked against the chapter by _main
    mfile = os.environ.get(ENV_MEASUREMENTS, "")
    if mfile.strip() == "reference":
        return chapter, overrides, None
    made = root / THIS_MACHINE
    if not mfile and made.is_file():          # one machine per book: the one make book priced on
        try:
            ms.load(made)
        except ms.MeasurementFileError as e:
            raise ParameterError(f"{THIS_MACHINE} (make book's measurement of this machine): "
                                 f"{' '.join(str(e).split())}; run make book again, or give "
                                 f"MEASUREMENTS=reference") from None
        return chapter, overrides, made.resolve()
    measurements = None
    if mfile:
        try:
            ms.load(mfile)
        except ms.MeasurementFileError as e:
            raise ParameterError(f"MEASUREMENTS: {' '.join(str(e).split())}") from None
        measurements = Path(mfile).resolve()
    return chapter, overrides, measurements


def priced_on(root: Path, measurements: Path | None) -> str:
    """make chapter's line saying which machine's prices the chapter is run with."""
    if measurements is None:
        why = ("as asked (MEASUREMENTS=reference)" if os.environ.get(ENV_MEASUREMENTS, "").strip() == "reference"
               else f"no {THIS_MACHINE} yet: make book measures this machine")
        return f"priced on the reference machine, {why}"
    if measurements == (root / THIS_MACHINE).resolve():
        return (f"priced on this machine with {THIS_MACHINE}, as make book measured it "
                f"(MEASUREMENTS=reference for the reference machine)")
    return f"priced with {shown_value(str(measurements))}"


def _failure(e: BaseException) -> str:
    """A chapter's failure as one line: the exception a cell raised, else the error itself."""
    name, value = getattr(e, "ename", None), getattr(e, "evalue", None)
    text = f"{name}: {value}" if name else f"{type(e).__name__}: {e}"
    line = " ".join(text.split())
    return line if len(line) <= 300 else line[:297] + "..."


def render_into(root: Path, notebooks: Path, out: Path, measurements: Path | None) -> int:
    """Re-render the book from the executed copies, its footers naming `measurements`."""
    from . import render
    with kernel_environment(measurements):
        return render.main(["--project", str(root), "--notebooks", str(notebooks), "--out", str(out)])


@contextlib.contextmanager
def kernel_environment(measurements: Path | None, validation_profile: str | None = None,
                       temporaries: str | None = None):
    """The environment a chapter runs (and renders) in, restored afterwards: $COSTBOOK_MEASUREMENTS
    names `measurements` (none: the reference file), and the book's validations use the full
    profile unless `validation_profile` names another (make test's first phase sets
    $COSTBOOK_VALIDATION_PROFILE for the chapters nbval runs); a kernel's TMPDIR is `temporaries`
    when given (this process's own temporaries stay where they were: Python read TMPDIR once)."""
    wanted = {"COSTBOOK_MEASUREMENTS": None if measurements is None else str(measurements),
              PROFILE_VARIABLE: validation_profile}
    if temporaries is not None:
        wanted["TMPDIR"] = temporaries
    before = {k: os.environ.get(k) for k in wanted}
    try:
        _set_environment(wanted)
        yield
    finally:
        _set_environment(before)


def _set_environment(values: dict) -> None:
    """Each variable set to its value, or removed where the value is None."""
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


#: roughly how long each chapter takes: only the order in which chapters start on a machine that has
#: run none of them yet, the longest first; afterwards the cache's own times are used
EXPECTED_SECONDS = {"05": 110, "03": 86, "02": 64, "04": 49, "06": 18, "90": 8, "01": 5}

ENV_JOBS, ENV_FRESH = "COSTBOOK_JOBS", "COSTBOOK_FRESH"


def jobs_from(text: str | None) -> int:
    """--jobs / $COSTBOOK_JOBS: an integer from 1 to 64; empty means the number of CPUs."""
    if text is None or not str(text).strip():
        return max(1, os.cpu_count() or 1)
    text = str(text).strip()
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise ParameterError(f"JOBS={shown_value(text)}: the number of chapters run at once, an integer from 1 to 64")
    return int(text)


def _run_job(src: Path, dst: Path, measurements: Path | None, overrides, ready=None) -> dict:
    """One chapter in this process (the chapter's own process): a picklable summary."""
    cells: list = []
    try:
        secs = execute_notebook(src, dst, measurements, overrides=overrides, cells=cells, ready=ready)
    except ParameterError as e:
        return {"parameter_error": str(e)}
    except Exception as e:            # a cell raised, the kernel died or timed out: one line
        return {"error": _failure(e)}
    return {"seconds": secs, "slowest": sorted(cells, key=lambda c: -c[1])[:3]}


def _chapter_process(src: Path, dst: Path, measurements: Path | None, overrides, conn, warm=False) -> None:
    """A chapter's own process, forked by the runner: runs the chapter, sends _run_job's summary.
    `warm`: start the kernel and import the chapter's modules first, send "ready", and run the
    chapter when the runner sends "go" (while this machine is being measured; see run_chapters).
    Ctrl-C reaches every process of the terminal's foreground group: here it is ignored and the
    runner decides.  SIGTERM (from the runner, or sent to the whole process group) ends this
    process's kernel first: the kernel runs in a session of its own, which no group signal reaches."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, interrupt.raise_interrupted)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupt.STOP_SIGNALS)
    def ready():
        conn.send("ready")
        if conn.recv() != "go":
            raise RuntimeError("the runner sent something other than go")
    try:
        result = _run_job(src, dst, measurements, overrides, ready if warm else None)
    except interrupt.Interrupted as e:
        interrupt.wind_down()
        os._exit(128 + e.signum)          # quietly: the runner says what was interrupted
    conn.send(result)
    conn.close()


def _kernel_folder_prefix(pid: int) -> str:
    """The start of the name of the folder that holds the kernel process `pid` starts (its sockets, its
    connection file, its temporaries): the runner removes it when it had to kill that process."""
    return f"costbook-kernel-{pid}-"


def _start_chapter_process(job, measurements, overrides, warm=False):
    """(the process, the runner's end of its pipe: the result comes on it, and for a `warm`
    process first "ready", to which the runner answers "go").  The stop signals are blocked across
    the fork, so that the child never runs the runner's own handlers; one that arrives meanwhile
    is delivered to the runner right after."""
    mine, theirs = multiprocessing.Pipe(duplex=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, interrupt.STOP_SIGNALS)
    try:
        process = _FORK.Process(target=_chapter_process, name=f"chapter {job.rel}",
                                args=(job.src, job.dst, measurements, overrides, theirs, warm))
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupt.STOP_SIGNALS)
    theirs.close()
    return process, mine


#: chapters run in forked processes: they start at once, with the package already imported
_FORK = multiprocessing.get_context("fork")


def _shown_path(path: Path) -> str:
    cwd = Path.cwd()
    return str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)


def _log(line: str) -> None:
    print(line, flush=True)


def _relay(stream, stopping: threading.Event) -> None:
    """A child's stderr, line by line, onto this process's, until `stopping` is set."""
    for line in stream:
        if not stopping.is_set():
            print(line, end="", file=sys.stderr, flush=True)


class Job:
    def __init__(self, src: Path, rel: Path, dst: Path):
        self.src, self.rel, self.dst = src, rel, dst
        self.digest = None
        self.seconds = None           # execution time (this run, or the cached run's)
        self.reused = False
        self.process = None           # while it executes: its own process
        self.state = None             # while it has a process: "warming", "ready" or "executing"
        self.warmed = False           # its kernel started while this machine was measured


def run_chapters(root: Path, jobs_list: list[Job], measurements, overrides, jobs: int,
                 cache: ChapterCache | None, force: bool, prog: str, measure: list[str] | None = None) -> int:
    """Execute (or reuse) every chapter of `jobs_list`; 0, 1 (a chapter failed) or 2 (bad input), or
    the measurement's exit code.

    Chapters run in parallel, each in its own process and kernel, at most `jobs` at once (--jobs,
    else $COSTBOOK_JOBS, where `make book JOBS=N` puts it, else the number of CPUs), the longest
    first (as long as they took last time).  They are independent: each reads the costbook package
    and measurement files, none reads another chapter's output.  A chapter whose inputs did not
    change since it last ran is not executed again: its executed copy comes from `cache`
    (costbook.book.cache: the notebook, the measurement file, the package's files, the committed
    measurement files, requirements.txt, ...); `force` (--force, $COSTBOOK_FRESH, `make book
    FRESH=1`) executes them all.  The log is one line per chapter started, reused or finished (with
    its slowest cells), then a table of every chapter's time and the total.

    `measure`, if given, is the command (an argument list, no shell) that writes `measurements`
    first.  It runs on one core; meanwhile the chapters' kernels start on the other, one at a time,
    in the order the chapters will run, each importing its chapter's modules (``warm_kernel``), and
    wait; the chapters run, `jobs` at a time as always, once the measurement is written.  The
    measurement has its core to itself (one kernel starting beside it, nothing more), and the
    seconds the kernels take to start are no longer spent after it."""
    t_start = time.perf_counter()
    todo = []
    shared = shared_digest(root) if cache is not None else None
    if measure is not None:
        # the measurement file is about to change, and every chapter prices with it: all run, and
        # their digests (which name the file's content) are taken once it is written
        todo = list(jobs_list)
    elif cache is not None:
        for job in jobs_list:
            job.digest = input_digest(shared, job.src, measurements, overrides)
            hit = None if force else cache.lookup(job.rel, job.digest)
            if hit:
                entry, job.seconds = hit
                job.dst.parent.mkdir(parents=True, exist_ok=True)
                if not (job.dst.is_file() and job.dst.read_bytes() == entry.read_bytes()):
                    atomic.copy_file(entry, job.dst)
                job.reused = True
                _log(f"reused   {job.rel} (inputs unchanged since it ran in {job.seconds:.1f} s; "
                     f"{_shown_path(cache.folder)})")
            else:
                todo.append(job)
    else:
        todo = list(jobs_list)

    def expected(job):
        last = cache.last_seconds(job.rel) if cache is not None else None
        return last if last is not None else EXPECTED_SECONDS.get(job.rel.name[:2], 10.0)

    todo.sort(key=expected, reverse=True)
    workers = max(1, min(jobs, len(todo)))
    if todo:
        _log(f"{prog}: executing {len(todo)} chapter{'s' * (len(todo) != 1)}, {workers} at a time"
             + (f" ({len(jobs_list) - len(todo)} reused)" if len(todo) < len(jobs_list) else ""))
    failed = []

    def finished(job, result) -> None:
        if "parameter_error" in result:
            failed.append((job, 2, f"{prog}: error: {result['parameter_error']}"))
            return
        if "error" in result:
            failed.append((job, 1, f"{prog}: error: {job.rel} failed, so nothing was rendered: {result['error']}"))
            _log(f"failed   {job.rel}: {result['error']}")
            return
        job.seconds = result["seconds"]
        if cache is not None:
            cache.store(job.rel, job.digest, job.dst, job.seconds)
        slow = ", ".join(f"{name} {secs:.1f} s" for name, secs in result["slowest"] if secs >= 1.0)
        _log(f"executed {job.rel} in {job.seconds:.1f} s"
             + (" (its kernel started while measuring)" if job.warmed else "") + f" -> {_shown_path(job.dst)}"
             + (f"; slowest: {slow}" if slow else ""))

    queue, running = list(todo), {}         # running: a chapter's pipe -> job (warming, ready or executing)
    measuring = measure_code = relay = None
    stopping = threading.Event()
    if measure is not None:
        _log(f"{prog}: measuring this machine first; meanwhile the chapters' kernels start, one at a time")
        # in a session of its own, so that a terminal's Ctrl-C reaches the runner alone, which ends it
        # and says so in its one line; its lines come through the runner, which drops them once it is
        # stopping (the measurement's own "not written" would be a second line)
        measuring = subprocess.Popen(measure, stderr=subprocess.PIPE, text=True, errors="replace",
                                     start_new_session=True, preexec_fn=children.die_with_parent)
        relay = threading.Thread(target=_relay, args=(measuring.stderr, stopping), daemon=True)
        relay.start()
    try:
        while queue or running or measuring is not None:
            if measuring is not None and measuring.poll() is not None:
                relay.join(timeout=10)          # its last lines (an error's) before the runner's next
                measure_code, measuring = measuring.returncode, None
                if measure_code != 0:
                    break
                if cache is not None:
                    for job in todo:
                        job.digest = input_digest(shared, job.src, measurements, overrides)
            if measuring is not None:
                # one kernel at a time beside the measurement, so that it keeps a core to itself
                if queue and not failed and not any(j.state == "warming" for j in running.values()):
                    job = queue.pop(0)
                    job.process, conn = _start_chapter_process(job, measurements, overrides, warm=True)
                    job.state, job.warmed = "warming", True
                    running[conn] = job
            else:
                busy = sum(j.state != "ready" for j in running.values())
                for conn, job in sorted(running.items(), key=lambda cj: todo.index(cj[1])):
                    if failed and job.state == "ready":        # the run has failed: never started
                        job.process.terminate()
                    elif job.state == "ready" and busy < workers:
                        _log(f"started  {job.rel}")
                        conn.send("go")
                        job.state, busy = "executing", busy + 1
                while queue and busy < workers and not failed:
                    job = queue.pop(0)
                    _log(f"started  {job.rel}")
                    job.process, conn = _start_chapter_process(job, measurements, overrides)
                    job.state, busy = "executing", busy + 1
                    running[conn] = job
                if not running:
                    break
            for conn in mp_connection.wait(list(running), timeout=0.2 if measuring is not None else None):
                job = running[conn]
                try:
                    result = conn.recv()
                except EOFError:           # the process ended without a result: killed, or a crash
                    job.process.join()
                    result = {"error": f"its process ended (exit code {job.process.exitcode}) before "
                                       "the chapter finished"}
                if result == "ready":
                    job.state = "ready"
                    continue
                del running[conn]
                conn.close()
                job.process.join()
                if not (failed and job.state == "ready"):     # ended above, not a failure of its own
                    finished(job, result)
        if measure_code:
            for job in running.values():   # warmed kernels, waiting: end them (and their kernels)
                job.process.terminate()
            for conn, job in running.items():
                job.process.join()
                conn.close()
            print(f"{prog}: error: the measurement failed (exit code {measure_code}), so no chapter ran",
                  file=sys.stderr, flush=True)
            return measure_code if measure_code > 0 else 1
    except interrupt.Interrupted as e:
        interrupt.ignore_further_signals()
        stopping.set()
        interrupt.end_descendants()       # the measurement, the chapters' processes and their kernels
        for job in running.values():      # a temporary a killed process could not remove
            for tmp in atomic.temporaries_of(job.dst, job.process.pid):
                tmp.unlink(missing_ok=True)
            for folder in glob.glob(os.path.join(glob.escape(tempfile.gettempdir()),
                                                 _kernel_folder_prefix(job.process.pid) + "*")):
                shutil.rmtree(folder, ignore_errors=True)
        if measuring is not None:
            for tmp in atomic.temporaries_of(Path(measurements), measuring.pid):
                tmp.unlink(missing_ok=True)
            e.measuring = measurements
        e.stopped = [job.rel for job in running.values()]
        raise
    except Exception:                     # a bug here: no chapter process may outlive the runner
        interrupt.end_descendants()
        raise
    for job, code, message in failed:
        print(message, file=sys.stderr, flush=True)
    if failed:
        return failed[0][1]
    wall = time.perf_counter() - t_start
    if len(jobs_list) > 1 or any(j.reused for j in jobs_list):
        width = max(len(str(j.rel)) for j in jobs_list)
        _log(f"{'chapter':<{width}}  {'seconds':>8}")
        for job in jobs_list:
            how = "reused (cached run's time)" if job.reused else "executed"
            _log(f"{str(job.rel):<{width}}  {job.seconds:8.1f}  {how}")
        ran = [j.seconds for j in jobs_list if not j.reused]
        note = (f"{len(ran)} executed, {workers} at a time ({sum(ran):.1f} s one after another)"
                if ran else "nothing executed")
        _log(f"{'total':<{width}}  {wall:8.1f}  wall clock: {note}; {len(jobs_list) - len(ran)} reused")
    return 0


#: the profile `make book` measures with (make's PROFILE, passed unexpanded through the environment)
MEASURE_PROFILE = measured.ENV_PROFILE


def measure_command(path: Path, after: Path) -> list[str] | None:
    """The command that measures this machine into `path` (an argument list: the profile, which
    comes from the environment, never reaches a shell; `costbook measure` checks it), or None when
    `path` may be reused (costbook.book.measured); says which in one line."""
    profile = os.environ.get(MEASURE_PROFILE, "quick")
    ok, why = measured.reusable(path, after, profile)
    _log(f"measure: {why}")
    if ok:
        return None
    return [sys.executable, "-m", "costbook.cli.commands", "measure", "--profile", profile, "--out", str(path)]


def main(argv=None) -> int:
    """The runner; Ctrl-C or SIGTERM ends every process it started (chapter processes, kernels),
    says so in one line "interrupted: ..." and ends the runner by that signal, which a shell
    reports as 130 / 143 (costbook.book.interrupt).  An interrupted chapter writes nothing and is
    never stored in the cache (costbook.system.atomic)."""
    with interrupt.raised_as_exception():
        try:
            return _main(argv)
        except interrupt.Interrupted as e:
            interrupt.wind_down()
            interrupt.say(_interrupted(e))
            interrupt.exit_by(e.signum)


def _interrupted(e: interrupt.Interrupted) -> str:
    """What an interrupt stopped, for its one line."""
    if getattr(e, "rendering", None):
        return (f"{e.name} while rendering {_shown_path(e.rendering)}; each page there is whole, "
                "from this render or the one before")
    stopped = getattr(e, "stopped", [])
    measuring = getattr(e, "measuring", None)
    if measuring is not None:          # the measurement writes its file in one rename: old or absent
        file = Path(measuring)
        said = (f"{e.name} while measuring this machine ({_shown_path(file)} "
                f"{'left as it was' if file.exists() else 'not written'})")
    else:
        said = e.name
    if not stopped:
        return f"{said}; no chapter was executing, nothing was left half-written"
    they, their = ("it", "its executed copy was") if len(stopped) == 1 else ("they", "their executed copies were")
    return (f"{said}; stopped {len(stopped)} chapter{'s' * (len(stopped) != 1)} before {they} finished "
            f"({', '.join(map(str, stopped))}): {their} not written and nothing was "
            "rendered; chapters that finished before are kept")


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path, help="chapters to run (default: all in _quarto.yml)")
    ap.add_argument("--project", type=Path, default=Path("."))
    ap.add_argument("--out", type=Path, help="folder for executed copies (mirrors chapter paths)")
    ap.add_argument("--inplace", action="store_true", help="overwrite the committed chapters")
    ap.add_argument("--measurements", type=Path, help="measurement file the chapters price with "
                    "(default: the committed reference file)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="NAME=VALUE",
                    help="override a parameter of the chapter with a Python literal the chapter's "
                         "parameters cell admits, e.g. --set 'PARAMS=\"aggressive\"'; repeatable; needs "
                         "exactly one chapter and --out")
    ap.add_argument("--from-env", action="store_true",
                    help=f"take the chapter, one NAME=VALUE and the measurement file from ${ENV_CHAPTER}, "
                         f"${ENV_SET} and ${ENV_MEASUREMENTS} (what make chapter runs); needs --out")
    ap.add_argument("--render", type=Path, metavar="DIR",
                    help="after the chapters ran, re-render the book from the executed copies into DIR")
    ap.add_argument("-j", "--jobs", help=f"chapters executed at once (default: ${ENV_JOBS}, else the "
                    "number of CPUs)")
    ap.add_argument("--force", action="store_true", help=f"execute every chapter, even those whose inputs "
                    f"did not change (also when ${ENV_FRESH} is set and not empty)")
    ap.add_argument("--measure-after", type=Path, metavar="STAMP",
                    help="measure this machine into --measurements first, unless that file was measured "
                         f"with the profile ${MEASURE_PROFILE} names (default quick) after STAMP was written "
                         "(what make book runs, STAMP the install's); the chapters' kernels start meanwhile")
    ap.add_argument("--cache", type=Path, metavar="DIR", help="executed chapters by input digest "
                    "(default: build/cache/chapters in the project; --inplace uses none)")
    args = ap.parse_args(argv)
    if args.inplace == bool(args.out):
        ap.error("give exactly one of --out DIR or --inplace")
    if args.inplace and args.measurements:
        ap.error("--inplace runs against the reference file; committed outputs must be reproducible")
    if args.overrides and (args.inplace or len(args.notebooks) != 1):
        ap.error("--set overrides one chapter's parameters: give exactly one chapter and --out DIR "
                 "(committed chapters keep their own parameters)")
    if args.from_env and (args.notebooks or args.overrides or args.measurements or args.inplace):
        ap.error("--from-env takes the chapter, its override and the measurement file from the "
                 "environment: give no chapter, --set, --measurements or --inplace")
    if args.measure_after and (args.inplace or args.from_env or args.overrides or not args.measurements):
        ap.error("--measure-after measures this machine into --measurements before the chapters run: "
                 "give --measurements FILE and --out DIR, and no --set")
    if args.render and args.inplace:
        ap.error("--render renders executed copies: give --out DIR")
    root = args.project.resolve()
    prog = "make chapter" if args.from_env else "execute"
    measurements = args.measurements
    try:
        jobs = jobs_from(args.jobs if args.jobs is not None else os.environ.get(ENV_JOBS))
        if args.from_env:
            chapter, overrides, measurements = from_environment(root)
            chapters = [chapter]
            print(f"{prog}: {priced_on(root, measurements)}", flush=True)
        else:
            overrides = [parse_override(o) for o in args.overrides]
            chapters = args.notebooks or [p for p in chapter_files(root) if p.suffix == ".ipynb"]
    except ParameterError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    measure = None
    if args.measure_after:
        measure = measure_command(Path(measurements), args.measure_after)
    if measurements is not None and not Path(measurements).is_file() and measure is None:
        print(f"{prog}: error: --measurements {shown_value(str(measurements))}: no such file", file=sys.stderr)
        return 2
    plan = []
    try:
        for nb in chapters:
            src = (root / nb).resolve() if not Path(nb).is_absolute() else Path(nb)
            rel = src.relative_to(root) if src.is_relative_to(root) else Path(src.name)
            notebook = read_chapter(src, str(nb))
            # --set: as papermill does, the values go into a new cell tagged injected-parameters right
            # after the cell tagged parameters; each NAME must be assigned in that cell and each VALUE,
            # a Python literal, be one the cell declares it admits (type, bounds, choices)
            if overrides:      # every value checked against the chapter's parameters cell, now
                inject_parameters(notebook, overrides, str(rel))
            plan.append(Job(src, rel, src if args.inplace else args.out.resolve() / rel))
    except ParameterError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    cache = None
    if not args.inplace:
        cache = ChapterCache(args.cache if args.cache else root / "build" / "cache" / "chapters")
    force = args.force or bool(os.environ.get(ENV_FRESH, "").strip())
    code = run_chapters(root, plan, measurements, overrides, jobs, cache, force, prog, measure)
    if code:
        return code
    if args.render:
        try:
            code = render_into(root, args.out.resolve(), args.render, measurements)
        except interrupt.Interrupted as e:
            e.rendering = args.render
            raise
        if code:
            print(f"{prog}: error: the chapters ran but the book did not render (see above)", file=sys.stderr)
            return code
        if args.from_env:
            page = (args.render / plan[0].rel).with_suffix(".html").resolve()
            print(f"Chapter: file://{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
