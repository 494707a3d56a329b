"""The book's chapter list, read from _quarto.yml (the one table of contents: ``costbook.system.toc``),
and the renderer's warnings."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..system.toc import APPENDICES, BookConfigError, appendices, chapter_files, load_config, toc  # noqa: F401


def warn(msg: str) -> None:
    """A problem the rendered book survives (an unresolved reference, a dropped tag)."""
    print(f"render: warning: {msg}", file=sys.stderr)


def chapter_arguments(description: str, out: str, out_help: str, notebooks_help: str = "") -> argparse.ArgumentParser:
    """The parser of a command that reads the project's chapters, executed copies first: --project,
    --notebooks (default <project>/build/chapters) and --out (default <project>/build/`out`)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--project", type=Path, default=Path("."), help="folder holding _quarto.yml (default: .)")
    ap.add_argument("--notebooks", type=Path, default=None,
                    help="folder of executed chapter copies mirroring the chapter paths" + notebooks_help
                         + " (default: <project>/build/chapters)")
    ap.add_argument("--out", type=Path, default=None, help=f"{out_help} (default: <project>/build/{out})")
    ap.set_defaults(default_out=out)
    return ap


def chapter_paths(args) -> tuple:
    """(project root, executed chapters, output) of a parsed ``chapter_arguments``."""
    root = args.project.resolve()
    return (root, args.notebooks if args.notebooks is not None else root / "build" / "chapters",
            args.out if args.out is not None else root / "build" / args.default_out)
