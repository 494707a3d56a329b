"""`make bench-self`: how long the two commands take on this machine.  Not a test.

    python -m costbook.book bench [--no-book] [--no-test]

runs, one after another, each with its output passed through:

1. `make book` fresh: build/measurements, build/cache, build/chapters and build/book removed first,
   so it measures this machine, executes every chapter and renders (the install step is not timed:
   .venv stays; a fresh clone adds it);
2. `make book` again, nothing changed: every chapter reused, the measurement file reused;
3. `make test`, timed per phase (library tests and nbval on two workers; validation alone);

then prints the machine (lscpu's model name, CPUs, load averages before and after) and a table of
the times, and adds them to build/bench/<cpu>.json (one record per run, with its date), so that the
figures of every machine it ran on sit side by side.  It deletes the build folders named above;
nothing tracked is touched.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

FRESH_DIRS = ("build/measurements", "build/cache", "build/chapters", "build/book")
BENCH_DIR = Path("build/bench")


def record(folder: Path, cpu: str, run: dict) -> Path:
    """Add `run` to folder/<cpu, as a file name>.json (its runs, oldest first), written whole."""
    from ..system.atomic import write_text
    path = folder / (re.sub(r"[^A-Za-z0-9]+", "-", cpu).strip("-").lower() + ".json")
    runs = []
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
    except (OSError, ValueError, KeyError, TypeError):
        pass                          # no earlier file, or one this command did not write: start anew
    folder.mkdir(parents=True, exist_ok=True)
    return write_text(path, json.dumps({"cpu": cpu, "runs": [*runs, run]}, indent=1) + "\n")


def machine() -> str:
    model = "unknown CPU"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
        model = next((line.split(":", 1)[1].strip() for line in out.splitlines()
                      if line.startswith("Model name:")), model)
    except (OSError, subprocess.SubprocessError):
        pass
    return f"{model}, {os.cpu_count()} CPUs"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(cmd: list[str], marks: dict[str, str]) -> tuple[int, float, dict[str, float]]:
    """Run cmd with its output passed through line by line; (exit code, seconds, {mark: seconds
    from the start to the first line containing marks[mark]})."""
    t0 = time.perf_counter()
    seen: dict[str, float] = {}
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          errors="replace") as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            for name, needle in marks.items():
                if name not in seen and needle in line:
                    seen[name] = time.perf_counter() - t0
        code = proc.wait()
    return code, time.perf_counter() - t0, seen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-book", action="store_true", help="do not time make book")
    ap.add_argument("--no-test", action="store_true", help="do not time make test")
    ap.add_argument("--out", type=Path, default=BENCH_DIR, help=f"the folder of the records (default: {BENCH_DIR})")
    args = ap.parse_args(argv)
    make = [os.environ.get("MAKE") or "make", "--no-print-directory"]
    rows: list[tuple[str, str, str]] = []
    before = load()
    failed = False
    if not args.no_book:
        for d in FRESH_DIRS:
            shutil.rmtree(d, ignore_errors=True)
        code, secs, marks = run(make + ["book"], {"chapters": "costbook.book.execute", "render": "costbook.book.render"})
        failed |= code != 0
        measure = marks.get("chapters", 0.0)
        chapters = marks.get("render", secs) - measure
        rows += [("make book, fresh (install not included)", f"{secs:.0f} s", "ok" if code == 0 else f"exit {code}"),
                 ("  of which: measure this machine", f"{measure:.0f} s", ""),
                 ("  of which: execute the chapters", f"{chapters:.0f} s", ""),
                 ("  of which: render", f"{secs - measure - chapters:.0f} s", "")]
        code, secs, _ = run(make + ["book"], {})
        failed |= code != 0
        rows.append(("make book again, nothing changed", f"{secs:.0f} s", "ok" if code == 0 else f"exit {code}"))
    if not args.no_test:
        code, secs, marks = run(make + ["test"], {"validation": "pytest -m validation"})
        failed |= code != 0
        split = marks.get("validation")
        rows.append(("make test", f"{secs:.0f} s", "ok" if code == 0 else f"exit {code}"))
        if split is not None:
            rows += [("  phase A: library tests + nbval, 2 workers", f"{split:.0f} s", ""),
                     ("  phase B: validation tests alone", f"{secs - split:.0f} s", "")]
    after = load()
    print()
    print(f"bench-self on {machine()}; load averages (1, 5, 15 min) {before} before, {after} after")
    width = max(len(r[0]) for r in rows) if rows else 10
    for what, secs, note in rows:
        print(f"{what:<{width}}  {secs:>7}  {note}".rstrip())
    run_record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "machine": machine(), "load_before": before, "load_after": after,
                  "times": [{"what": what.strip(), "seconds": float(secs.split()[0]), "note": note}
                            for what, secs, note in rows]}
    print(f"recorded in {record(args.out, machine(), run_record)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
