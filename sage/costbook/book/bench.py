"""`make bench-self`: how long the two commands take on this machine.  Not a test.

    python -m costbook.book bench [--no-book] [--no-quick] [--no-test]

runs, one after another, each with its output passed through:

1. `make book` fresh: build/measurements, build/cache, build/chapters and build/book removed first,
   so it measures this machine, executes every chapter and renders (the install step is not timed:
   .venv stays; a fresh clone adds it);
2. `make book` again, nothing changed: every chapter reused, the measurement file reused;
3. the quick profile twice, back to back (`costbook measure --profile quick`, kept in build/bench/),
   and how far the two lie apart: the 90th percentile of |median_A / median_B - 1| over their keys
   (``costbook.timing.measure_agreement``);
4. `make test`, timed per phase (library tests and nbval on two workers; validation alone);

then prints the machine (lscpu's model name, CPUs, load averages before and after) and a table of
the times, adds them to docs/bench/<cpu>.json (one record per run, with its date) and writes the
table of every record in docs/bench/ to docs/bench/README.md, which the README links: the figures
of every machine it ran on sit side by side.  It deletes the build folders named above.
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
BENCH_DIR = Path("docs/bench")
#: the table of every record, in the records' folder
TABLE = "README.md"
#: where the two quick profiles are kept, to be compared key by key afterwards (measure_agreement)
QUICK_DIR = Path("build/bench")

# Each timing is a row (what, value, unit, note); these are the rows the table shows, by heading.
BOOK_FRESH, BOOK_AGAIN = "make book, fresh (install not included)", "make book again, nothing changed"
QUICK_1, QUICK_2, QUICK_APART = "quick profile, first", "quick profile, second", "quick profiles' p90 disagreement"
TEST, PHASE_A, PHASE_B = "make test", "phase A: library tests + nbval, 2 workers", "phase B: validation tests alone"
COLUMNS = (("make book, fresh", BOOK_FRESH), ("make book again", BOOK_AGAIN), ("quick profile", QUICK_1),
           ("quick profile again", QUICK_2), ("the two apart (p90)", QUICK_APART), ("make test", TEST),
           ("phase A", PHASE_A), ("phase B", PHASE_B))


def shown(value: float, unit: str) -> str:
    return f"{value:.1f}%" if unit == "%" else f"{value:.0f} s"


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


def table(folder: Path) -> str:
    """Every record of folder/*.json as one Markdown table, oldest first: the CPU, the date, the load
    before, and the timings of COLUMNS (empty where a run did not time one, "failed" where it failed)."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        try:
            runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for r in runs:
            times = {t["what"]: t for t in r.get("times", [])}
            cells = []
            for _, what in COLUMNS:
                t = times.get(what)
                cells.append("" if t is None else shown(t["value"], t["unit"]) + ("" if t["ok"] else " (failed)"))
            rows.append((r.get("date", ""), r.get("machine", ""), r.get("load_before", ""), cells))
    head = ["CPU", "date", "load before"] + [h for h, _ in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for date, cpu, before, cells in sorted(rows):
        lines.append("| " + " | ".join([cpu, date[:10], before, *cells]) + " |")
    return "\n".join(lines) + "\n"


def write_table(folder: Path) -> Path:
    """folder/README.md: what the records are, and ``table`` of them."""
    from ..system.atomic import write_text
    text = ("# make bench-self, per machine\n\n"
            "Written by `make bench-self` (`python -m costbook.book bench`) from the records beside it, one file "
            "per CPU model. Each row is one run on the machine named, in wall-clock seconds, with the load "
            "averages (1, 5, 15 min) before it: `make book` fresh (install not included) and again with "
            "nothing changed; the quick measurement profile twice back to back, and how far the two lie "
            "apart (the 90th percentile over their keys of the medians' relative difference); `make test` "
            "and its two phases.\n\n" + table(folder))
    return write_text(folder / TABLE, text)


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


def quick_profiles(tmp: Path) -> list:
    """The quick profile twice, back to back: rows of each one's time and of their p90 disagreement."""
    from ..prices import measurements
    from ..timing import measure_agreement
    rows, files = [], []
    for what, name in ((QUICK_1, "quick-1.json"), (QUICK_2, "quick-2.json")):
        code, secs, _ = run([sys.executable, "-m", "costbook", "measure", "--profile", "quick",
                             "--out", str(tmp / name), "--no-progress"], {})
        rows.append((what, secs, "s", "" if code == 0 else f"exit {code}"))
        files.append(tmp / name)
    if all(note == "" for *_, note in rows):
        d = measure_agreement.differences(measurements.load(files[0]), measurements.load(files[1]))
        rows.append((QUICK_APART, 100 * measure_agreement.percentile(list(d.values()), 0.9), "%",
                     f"over {len(d)} keys"))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-book", action="store_true", help="do not time make book")
    ap.add_argument("--no-quick", action="store_true", help="do not time the quick profile")
    ap.add_argument("--no-test", action="store_true", help="do not time make test")
    ap.add_argument("--out", type=Path, default=BENCH_DIR, help=f"the folder of the records (default: {BENCH_DIR})")
    args = ap.parse_args(argv)
    make = [os.environ.get("MAKE") or "make", "--no-print-directory"]
    rows: list[tuple[str, float, str, str]] = []
    before = load()

    def status(code: int) -> str:
        return "" if code == 0 else f"exit {code}"

    if not args.no_book:
        for d in FRESH_DIRS:
            shutil.rmtree(d, ignore_errors=True)
        # the runner measures this machine first (ending "measure: N steps in S s"), executes the chapters,
        # then renders ("  chapters/NN.html  <-  ..."): the split is read from where those lines appear
        code, secs, marks = run(make + ["book"], {"measured": " steps in ", "executed": ".html  <-  "})
        rows.append((BOOK_FRESH, secs, "s", status(code)))
        if {"measured", "executed"} <= marks.keys():
            rows += [("  of which: install check and measure this machine", marks["measured"], "s", ""),
                     ("  of which: execute the chapters", marks["executed"] - marks["measured"], "s", ""),
                     ("  of which: render and PDF", secs - marks["executed"], "s", "")]
        code, secs, _ = run(make + ["book"], {})
        rows.append((BOOK_AGAIN, secs, "s", status(code)))
    if not args.no_quick:
        QUICK_DIR.mkdir(parents=True, exist_ok=True)
        rows += quick_profiles(QUICK_DIR)
    if not args.no_test:
        code, secs, marks = run(make + ["test"], {"validation": "pytest -m validation"})
        split = marks.get("validation")
        rows.append((TEST, secs, "s", status(code)))
        if split is not None:
            rows += [("  " + PHASE_A, split, "s", ""), ("  " + PHASE_B, secs - split, "s", "")]
    after = load()
    print()
    print(f"bench-self on {machine()}; load averages (1, 5, 15 min) {before} before, {after} after")
    width = max(len(r[0]) for r in rows) if rows else 10
    for what, value, unit, note in rows:
        print(f"{what:<{width}}  {shown(value, unit):>7}  {note or 'ok'}".rstrip())
    run_record = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "machine": machine(), "load_before": before, "load_after": after,
                  "times": [{"what": what.strip(), "value": round(value, 3), "unit": unit, "ok": not note.startswith("exit"),
                             "note": note} for what, value, unit, note in rows]}
    print(f"recorded in {record(args.out, machine(), run_record)}; the table of every record: {write_table(args.out)}")
    return 1 if any(note.startswith("exit") for *_, note in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
