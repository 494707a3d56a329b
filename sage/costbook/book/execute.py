"""Execute the book's chapters with the `sagemath` kernel.

Two uses:

    python -m costbook.book.execute --out build/chapters --measurements FILE
        runs every chapter of _quarto.yml against FILE (this machine's prices)
        and writes the executed copies under build/chapters; tracked files stay untouched.

    python -m costbook.book.execute --inplace [chapters/01-primitives.ipynb ...]
        re-executes the committed chapters against the committed reference file,
        which is what nbval compares with (run this after editing a chapter).

    python -m costbook.book.execute chapters/04-verifiable-encryption.ipynb --out build/chapters \
            --set 'PARAMS=["aggressive"]' [--set NAME=VALUE ...]
        runs one chapter with parameters overridden, without editing it: as papermill does, the
        values go into a new cell tagged `injected-parameters` right after the cell tagged
        `parameters`.  Each NAME must be assigned in that cell; each VALUE is a Python literal.
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from .project import chapter_files


class ParameterError(ValueError):
    """A --set override names no parameter of the chapter, or its value is not a literal."""


INJECTED_TAG = "injected-parameters"


def parse_override(text: str) -> tuple[str, str]:
    """'NAME=VALUE' -> (NAME, VALUE), VALUE checked to be a Python literal."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name.isidentifier():
        raise ParameterError(f"--set {text!r}: expected NAME=VALUE, e.g. --set 'PARAMS=[\"aggressive\"]'")
    try:
        ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ParameterError(f"--set {name}: the value {value!r} is not a Python literal "
                             "(numbers, strings in quotes, True/False/None, lists, tuples, dicts)") from None
    return name, value


def _assigned_names(source: str) -> set[str]:
    """Names the parameters cell assigns (Sage-only syntax falls back to `NAME =` lines)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(re.findall(r"^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)", source, re.M))
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def inject_parameters(nb, overrides: list[tuple[str, str]], where: str) -> None:
    """Put `overrides` in a cell tagged injected-parameters after the cell tagged parameters."""
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"{where}: needs exactly one code cell tagged 'parameters' to override "
                             f"parameters (found {len(cells)})")
    params = cells[0]
    known = _assigned_names(params.source)
    for name, _ in overrides:
        if name not in known:
            raise ParameterError(f"{where}: no parameter {name} in the parameters cell "
                                 f"(it assigns: {', '.join(sorted(known)) or 'nothing'})")
    nb.cells = [c for c in nb.cells if INJECTED_TAG not in c.metadata.get("tags", [])]
    code = "# Injected parameters (overrides of the cell above)\n" + "\n".join(f"{n} = {v}" for n, v in overrides)
    cell = nbformat.v4.new_code_cell(code, metadata={"tags": [INJECTED_TAG]})
    nb.cells.insert(nb.cells.index(params) + 1, cell)


def execute_notebook(src: Path, dst: Path, measurements: Path | None, timeout: int = 1800,
                     overrides: list[tuple[str, str]] = ()) -> float:
    """Run `src` top to bottom in a fresh sagemath kernel and write it to `dst`; return seconds."""
    nb = nbformat.read(src, as_version=4)
    if overrides:
        inject_parameters(nb, list(overrides), str(src))
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
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="NAME=VALUE",
                    help="override a parameter of the chapter (a Python literal); repeatable; needs "
                         "exactly one chapter and --out")
    args = ap.parse_args(argv)
    if args.inplace == bool(args.out):
        ap.error("give exactly one of --out DIR or --inplace")
    if args.inplace and args.measurements:
        ap.error("--inplace runs against the reference file; committed outputs must be reproducible")
    if args.overrides and (args.inplace or len(args.notebooks) != 1):
        ap.error("--set overrides one chapter's parameters: give exactly one chapter and --out DIR "
                 "(committed chapters keep their own parameters)")
    root = args.project.resolve()
    try:
        overrides = [parse_override(o) for o in args.overrides]
    except ParameterError as e:
        ap.error(str(e))
    chapters = args.notebooks or [p for p in chapter_files(root) if p.suffix == ".ipynb"]
    for nb in chapters:
        src = (root / nb).resolve() if not Path(nb).is_absolute() else Path(nb)
        if not src.is_file():
            ap.error(f"{nb}: no such chapter")
        rel = src.relative_to(root)
        dst = src if args.inplace else args.out.resolve() / rel
        try:
            secs = execute_notebook(src, dst, args.measurements, overrides=overrides)
        except ParameterError as e:
            print(f"execute: error: {e}", file=sys.stderr)
            return 2
        print(f"executed {rel} in {secs:.1f} s -> {dst.relative_to(Path.cwd()) if dst.is_relative_to(Path.cwd()) else dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
