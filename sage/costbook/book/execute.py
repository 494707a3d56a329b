"""Execute the book's chapters with the `sagemath` kernel.

Two uses:

    python -m costbook.book.execute --out build/chapters --measurements FILE
        runs every chapter of _quarto.yml against FILE (this machine's prices)
        and writes the executed copies under build/chapters; tracked files stay untouched.

    python -m costbook.book.execute --inplace [chapters/01-primitives.ipynb ...]
        re-executes the committed chapters against the committed reference file,
        which is what nbval compares with (run this after editing a chapter).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from .project import chapter_files


def execute_notebook(src: Path, dst: Path, measurements: Path | None, timeout: int = 1800) -> float:
    """Run `src` top to bottom in a fresh sagemath kernel and write it to `dst`; return seconds."""
    nb = nbformat.read(src, as_version=4)
    env_before = os.environ.get("COSTBOOK_MEASUREMENTS")
    if measurements is None:
        os.environ.pop("COSTBOOK_MEASUREMENTS", None)
    else:
        os.environ["COSTBOOK_MEASUREMENTS"] = str(Path(measurements).resolve())
    try:
        client = NotebookClient(nb, kernel_name="sagemath", timeout=timeout,
                                startup_timeout=300, resources={"metadata": {"path": str(src.parent)}})
        t0 = time.perf_counter()
        client.execute()
        elapsed = time.perf_counter() - t0
    finally:
        if env_before is None:
            os.environ.pop("COSTBOOK_MEASUREMENTS", None)
        else:
            os.environ["COSTBOOK_MEASUREMENTS"] = env_before
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(".ipynb.tmp")
    nbformat.write(nb, tmp)
    os.replace(tmp, dst)
    return elapsed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path, help="chapters to run (default: all in _quarto.yml)")
    ap.add_argument("--project", type=Path, default=Path("."))
    ap.add_argument("--out", type=Path, help="folder for executed copies (mirrors chapter paths)")
    ap.add_argument("--inplace", action="store_true", help="overwrite the committed chapters")
    ap.add_argument("--measurements", type=Path, help="measurement file the chapters price with "
                    "(default: the committed reference file)")
    args = ap.parse_args(argv)
    if args.inplace == bool(args.out):
        ap.error("give exactly one of --out DIR or --inplace")
    if args.inplace and args.measurements:
        ap.error("--inplace runs against the reference file; committed outputs must be reproducible")
    root = args.project.resolve()
    chapters = args.notebooks or [p for p in chapter_files(root) if p.suffix == ".ipynb"]
    for nb in chapters:
        src = (root / nb).resolve() if not Path(nb).is_absolute() else Path(nb)
        rel = src.relative_to(root)
        dst = src if args.inplace else args.out.resolve() / rel
        secs = execute_notebook(src, dst, args.measurements)
        print(f"executed {rel} in {secs:.1f} s -> {dst.relative_to(Path.cwd()) if dst.is_relative_to(Path.cwd()) else dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
