"""`costbook measure`: time every primitive in every available backend.

Runs single-threaded (pinned to one CPU, thread pools capped at one), records
the machine and library versions next to the numbers, and writes the file
atomically only when every benchmark has finished, so an interrupted run leaves
the previous file untouched.  Everything that can be checked beforehand (the filters
match something, --out can be written, a file to merge into is valid) is checked
before the first benchmark runs.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import fnmatch
import hashlib
import importlib
import importlib.metadata as md
import os
import platform
import math
import re
import statistics
import subprocess
import sys
import time
import tempfile
from pathlib import Path

from ..prices import measurements
from . import priced
from .backends import MODULES, BackendUnavailable, curve25519_dalek as dalek
from .harness import PROFILES, Benchmark, interleaved_steps, run_benchmarks

# Thread pools inside native libraries (rayon in arkworks, OpenMP, BLAS) must
# not spread one "operation" over several cores: the book prices single-core work.
SINGLE_THREAD_ENV = {"RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                     "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

LIBRARIES = ["passagemath-repl", "passagemath-schemes", "passagemath-pari", "gmpy2", "py-ecc",
             "py-arkworks-bls12381", "pymcl", "mclbn256", "costbook"]


class MeasureError(ValueError):
    """A measure request that cannot be carried out (a filter matching nothing, an --out that
    cannot be written); raised before anything is timed, the message names the option."""


def check_writable(out: Path) -> None:
    """Make sure `out` can be written (its folder exists or can be created, and takes files)
    before minutes of measuring are spent; the probe file leaves no trace."""
    if out.is_dir():
        raise MeasureError(f"--out {out}: is a directory (give a file name, e.g. {out / 'this-machine.json'})")
    folder = out.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise MeasureError(f"--out {out}: {folder} is not a directory")
    try:
        # an unnamed file where the system has them (O_TMPFILE): a signal here leaves no probe behind
        with tempfile.TemporaryFile(prefix=f".{out.name}.probe.", dir=folder):
            pass
    except OSError as e:
        raise MeasureError(f"--out {out}: cannot write in {folder} ({(e.strerror or str(e)).lower()})") from None


def pin_single_thread() -> tuple:
    """Restrict this process to one CPU; return (that CPU, the previous CPU set), or Nones
    where the platform cannot pin."""
    for k, v in SINGLE_THREAD_ENV.items():
        os.environ.setdefault(k, v)
    try:
        before = os.sched_getaffinity(0)
        cpu = sorted(before)[-1]
        os.sched_setaffinity(0, {cpu})
        return cpu, before
    except (AttributeError, OSError):
        return None, None


def machine_label() -> str:
    """A machine as a timing names it for a reader: CPU model and cores ("AMD EPYC, 2 cores")."""
    return measurements.machine_text(machine_info())


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    os_name = platform.platform()
    try:
        m = re.search(r'^PRETTY_NAME="?([^"\n]*)', Path("/etc/os-release").read_text(), re.M)
        if m:
            os_name = m.group(1)
    except OSError:
        pass
    mem = None
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        mem = f"{kb / 2**20:.0f} GiB"
    except (OSError, AttributeError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": mem, "os": os_name,
            "kernel": platform.release(), "arch": platform.machine(),
            "python": platform.python_version()}


def library_versions() -> dict:
    out = {}
    for dist in LIBRARIES:
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            pass
    try:
        import gmpy2
        out["GMP"] = gmpy2.mp_version()
    except ImportError:
        pass
    try:
        from sage.libs.pari import pari
        out["PARI"] = ".".join(map(str, pari.version()))
    except ImportError:
        pass
    try:
        from .backends.libsodium import version as sodium_version
        out["libsodium"] = sodium_version()
    except (ImportError, BackendUnavailable, AttributeError):
        pass
    return out


def collect(only: list | None = None, backends: list | None = None,
            report=print, priced_only: bool = False) -> list:
    """All benchmarks of all backend modules, filtered by key globs and backend names; with
    `priced_only` (the quick profile) and no filter, only the keys the book prices (``priced``)."""
    benches: list[Benchmark] = []
    for modname in MODULES:
        try:
            benches += importlib.import_module(modname).benchmarks()
        except (BackendUnavailable, ImportError) as e:
            report(f"skipping {modname}: {e}")
    if priced_only and only is None and backends is None:
        # an explicit --only or --backend names what to time; otherwise the quick profile times
        # what the book prices and leaves the rest to the full profile
        selection = priced.priced_keys()          # gathered from the schemes once
        benches = [b for b in benches if b.key in selection.get(b.backend, ())]
    if backends is not None:
        known = sorted({b.backend for b in benches})
        if not backends or not all(backends):
            raise MeasureError(f"--backend: empty backend name (available here: {', '.join(known)})")
        unknown = [name for name in backends if name not in known]
        if unknown:
            raise MeasureError(f"--backend: unknown backend(s) {', '.join(map(repr, unknown))} "
                               f"(available here: {', '.join(known)})")
        benches = [b for b in benches if b.backend in backends]
    if only is not None:
        unmatched = [pat for pat in only if not any(fnmatch.fnmatchcase(b.key, pat) for b in benches)]
        if unmatched:
            raise MeasureError(f"--only: nothing matches {', '.join(map(repr, unmatched))}"
                               + (f" among the benchmarks of {', '.join(backends)}" if backends else "")
                               + " (globs over primitive keys, e.g. 'modexp/*', 'sha256/64B'; "
                                 "costbook sources lists a file with every key)")
        benches = [b for b in benches if any(fnmatch.fnmatchcase(b.key, pat) for pat in only)]
    return benches


#: what a profile with `fastest` records as a key's median and quartiles (harness.summarize)
STATISTIC_FASTEST = ("median: the fastest sample (samples spread over the whole run); q1: the same; "
                     "q3: the median of the samples")

MAX_REPEAT = 20


def combine_runs(timings: list) -> dict:
    """One entry from the same benchmark timed in `len(timings)` separate runs: the median of the runs'
    medians (and of their quartiles and MADs, which keeps q1 <= median <= q3), every sample counted,
    and how far the runs' medians lie apart (``between_runs``: (max - min) / median), which is what a
    reader who measures twice will see."""
    entry = timings[0].to_entry()
    if len(timings) == 1:
        return entry
    mid = lambda xs: statistics.median(xs)
    medians = [t.median for t in timings]
    entry.update(median=mid(medians), q1=mid([t.q1 for t in timings]), q3=mid([t.q3 for t in timings]),
                 mad=mid([t.mad for t in timings]), samples=sum(t.samples for t in timings),
                 batch=min(t.batch for t in timings), min=min(t.min for t in timings),
                 runs=len(timings), between_runs=(max(medians) - min(medians)) / mid(medians))
    if all(t.mean is not None and t.sd is not None for t in timings):
        entry.update(zip(("mean", "sd"), pooled(timings)))
    return entry


def pooled(timings: list) -> tuple:
    """(mean, sd) of all the samples of several runs, from each run's count, mean and sd (the one
    standard deviation of the pooled samples, not an average of the runs')."""
    n = sum(t.samples for t in timings)
    mean = sum(t.samples * t.mean for t in timings) / n
    within = sum((t.samples - 1) * t.sd ** 2 + t.samples * (t.mean - mean) ** 2 for t in timings)
    return mean, math.sqrt(within / (n - 1)) if n >= 2 else 0.0


def spread_summary(results: dict) -> str:
    """One line on the spread between repeated runs: median and 90th percentile over keys, the worst."""
    spreads = sorted((e["between_runs"], f"{b} {k}") for b, entries in results.items()
                     for k, e in entries.items() if "between_runs" in e)
    if not spreads:
        return ""
    values = [x for x, _ in spreads]
    p90 = values[min(len(values) - 1, math.ceil(0.9 * len(values)) - 1)]
    worst = ", ".join(f"{what} {x:.1%}" for x, what in spreads[-3:][::-1])
    return (f"between runs ({len(values)} keys): median spread {statistics.median(values):.1%}, "
            f"90th percentile {p90:.1%}; widest: {worst}")


class StageLog:
    """The progress bar's interface for a log that is not a terminal: one line per stage (setting up,
    warming up, each round), with the time since the start, instead of a bar redrawn in place."""

    def __init__(self, total: int, stream=None):
        self.total, self.done, self.stage = total, 0, None
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()

    def set_description(self, what: str) -> None:
        # "set up <backend> <key>", "warm-up <backend> <key>" (one stage each), "round k of n" (one each)
        stage = ("setting up the benchmarks" if what.startswith("set up") else
                 "warming up the benchmarks" if what.startswith("warm-up") else what)
        if stage != self.stage:
            self.stage = stage
            print(f"measure: {stage} (step {self.done + 1} of {self.total}, {time.monotonic() - self.t0:.0f} s)",
                  file=self.stream, flush=True)

    def update(self) -> None:
        self.done += 1

    def close(self) -> None:
        print(f"measure: {self.done} steps in {time.monotonic() - self.t0:.0f} s", file=self.stream, flush=True)


def measure(profile: str = "quick", out: Path | None = None, only=None, backends=None,
            name: str | None = None, progress: bool = True, report=print, repeat: int = 1) -> Path:
    """Time every selected benchmark and write the file.  With `repeat` > 1 the whole selection is
    run `repeat` times back to back (rounds, so that the runs are apart in time as two separate
    invocations would be) and each entry records how far its runs' medians lie apart."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (have: {', '.join(PROFILES)})")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= MAX_REPEAT:
        raise MeasureError(f"--repeat must be an integer in [1, {MAX_REPEAT}], got {repeat!r}")
    prof = PROFILES[profile]
    if name is not None and not name.strip():
        raise MeasureError("--name: empty (give the name to record in the file, or leave it out)")
    out = Path(out) if out is not None else measurements.local_path()
    check_writable(out)
    with exclusive(out):
        return _measure(prof, profile, out, only, backends, name, progress, report, repeat)


@contextlib.contextmanager
def exclusive(out: Path):
    """Hold the lock of `out` for a whole measure run, or refuse at once: a second run writing the
    same file would read it before the first one's write and then drop that run's keys.

    The lock is an flock on a file in the temporary folder named after the output's real path (not
    beside the output: a killed run leaves no stray file among the measurements).  It is removed
    while still held, and taken only once its inode is still the one at that name, so a run that
    opened the old file just before it went cannot hold a lock nobody else sees."""
    real = os.path.realpath(out)
    lock = Path(tempfile.gettempdir()) / f"costbook-measure-{hashlib.sha256(os.fsencode(real)).hexdigest()[:20]}.lock"
    busy = MeasureError(f"--out {out}: another costbook measure is writing this file; wait for it to finish "
                        f"(two runs to one file would lose one run's keys)")
    for _ in range(20):
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as e:
            raise MeasureError(f"--out {out}: cannot take the lock {lock} "
                               f"({(e.strerror or 'unusable').lower()})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise busy from None
        try:
            current = os.stat(lock, follow_symlinks=False).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(fd).st_ino:
            break
        os.close(fd)             # the name went to a newer lock file meanwhile: take that one
    else:
        raise busy
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        try:
            os.unlink(lock)
        except FileNotFoundError:
            pass
        os.close(fd)


def _measure(prof, profile, out, only, backends, name, progress, report, repeat) -> Path:
    partial = bool(only or backends)
    # a filtered run merges into an existing file: it must be readable before anything is timed
    old = measurements.load(out) if partial and out.exists() else None
    selected = prof.priced_only and only is None and backends is None
    benches = collect(only, backends, report, priced_only=prof.priced_only)
    if not benches:
        raise MeasureError("no benchmark matches the given --only/--backend filters")
    cpu, cpus_before = pin_single_thread()

    runs: dict = {}
    bar = None
    if progress:
        total = interleaved_steps(len(benches), prof) * repeat
        if sys.stderr.isatty():
            from tqdm import tqdm
            bar = tqdm(total=total, unit="step", file=sys.stderr, dynamic_ncols=True)
        else:
            bar = StageLog(total)       # a log file gets lines, not a bar's carriage returns
    try:
        for round_ in range(repeat):
            def tick(what, run=f" (run {round_ + 1} of {repeat})" if repeat > 1 else ""):
                if bar is not None:
                    bar.set_description(what + run)
                    bar.update()
            # all benchmarks in interleaved rounds (harness.run_benchmarks); each repeat sets them
            # up afresh, as a separate invocation would
            for b, timing in zip(benches, run_benchmarks(benches, prof, progress=tick)):
                runs.setdefault((b.backend, b.key, b.note), []).append(timing)
    finally:
        if bar is not None:
            bar.close()
        if cpus_before is not None:
            os.sched_setaffinity(0, cpus_before)

    results: dict = {}
    for (backend, key, note), timings in runs.items():
        entry = combine_runs(timings)
        if note:
            entry["note"] = note
        results.setdefault(backend, {})[key] = entry
    if repeat > 1:
        report(spread_summary(results))

    history = []
    if old is not None:
        # a filtered run refines an existing file of the same machine instead of replacing it;
        # the earlier runs stay on record in the provenance
        merged = {bk: dict(v) for bk, v in old.results.items()}
        for bk, entries in results.items():
            merged.setdefault(bk, {}).update(entries)
        results = merged
        op = old.provenance
        history = op.get("history", []) + [{"date": op.get("date"), "command": op.get("command"),
                                             "profile": (op.get("profile") or {}).get("name")}]
        name = name or old.name
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    data = {
        "schema": measurements.SCHEMA,
        "name": name or f"measured-{platform.node() or 'machine'}-{now:%Y%m%d}",
        "kind": "measured",
        "provenance": {
            "machine": machine_info(),
            "libraries": library_versions(),
            "date": now.isoformat(),
            "command": " ".join(["costbook"] + sys.argv[1:]) if sys.argv[0].endswith("costbook")
                       else f"costbook measure --profile {profile}",
            **({"repeat": repeat} if repeat > 1 else {}),
            "profile": {"name": prof.name, "samples": prof.samples,
                        "min_batch_seconds": prof.min_batch_seconds,
                        "warmup_seconds": prof.warmup_seconds,
                        **({"keys": priced.selection_words()} if selected else {}),
                        **({"batches": "each operation's batch set once, from the calls of its warm-up"}
                           if prof.calibrate_in_warmup else {}),
                        **({"sample_seconds": prof.sample_seconds, "max_samples": prof.max_samples}
                           if prof.max_samples else {}),
                        **({"statistic": STATISTIC_FASTEST} if prof.fastest else {})},
            "threads": {"pinned_cpu": cpu, **SINGLE_THREAD_ENV},
            "unit": "seconds per operation (" + ("fastest sample" if prof.fastest else "median of samples")
                    + "; each sample a timed batch)",
            "clock": "process CPU time (time.process_time); samples of all keys taken in interleaved rounds",
            **({"history": history} if history else {}),
        },
        "results": results,
    }
    return measurements.write_atomic(data, out)


def measure_dalek(profile: str = "full", out: Path | None = None, target_dir: Path | None = None) -> Path:
    """`costbook measure-dalek`: build and run the curve25519-dalek benchmark (``backends.curve25519_dalek``)
    pinned to one CPU, summarise its samples with the harness's statistics and write the measurement
    file atomically (an interrupted run leaves the old one)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (have: {', '.join(PROFILES)})")
    prof = PROFILES[profile]
    out = Path(out) if out is not None else dalek.committed_path()
    check_writable(out)
    root = measurements.project_root()
    binary = dalek.build(Path(target_dir) if target_dir else root / "build" / "cargo")
    cpu, before = pin_single_thread()          # the child inherits the one CPU
    try:
        run = subprocess.run([str(binary), str(prof.samples), str(prof.min_batch_seconds), str(prof.warmup_seconds)],
                             capture_output=True, text=True)
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)
    if run.returncode != 0:
        raise dalek.DalekUnavailable(f"the dalek benchmark failed (exit {run.returncode}): {run.stderr[-2000:]}")
    results = dalek.parse_output(run.stdout)
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    data = {
        "schema": measurements.SCHEMA,
        "name": f"{dalek.BACKEND}-2.0.0-{now:%Y%m%d}",
        "kind": "measured",
        "provenance": {
            "machine": machine_info(),
            "libraries": {dalek.LIBRARY: "2.0.0 (u64_backend, Cargo.lock of bench/curve25519-dalek)",
                          "rustc": dalek.rust_version(), "costbook": library_versions().get("costbook", "")},
            "date": now.isoformat(),
            "command": f"costbook measure-dalek --profile {profile}",
            "profile": {"name": prof.name, "samples": prof.samples, "min_batch_seconds": prof.min_batch_seconds,
                        "warmup_seconds": prof.warmup_seconds},
            "threads": {"pinned_cpu": cpu},
            "unit": "seconds per operation (median of samples; each sample a timed batch)",
            "clock": "process CPU time (clock_gettime CLOCK_PROCESS_CPUTIME_ID); samples of all keys taken in "
                     "interleaved rounds, one untimed call before each batch; each operation cycles through "
                     "32 operands",
        },
        "results": {dalek.BACKEND: results},
    }
    return measurements.write_atomic(data, out)
