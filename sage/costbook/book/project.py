"""The book's chapter list, read from _quarto.yml (the one table of contents: ``costbook.system.toc``),
and the renderer's warnings."""
from __future__ import annotations

import sys

from ..system.toc import APPENDICES, BookConfigError, appendices, chapter_files, load_config, toc  # noqa: F401


def warn(msg: str) -> None:
    """A problem the rendered book survives (an unresolved reference, a dropped tag)."""
    print(f"render: warning: {msg}", file=sys.stderr)
