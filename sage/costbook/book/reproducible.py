"""Notebooks that render the same every time: what a run leaves in them that is not content.

A kernel run writes into a notebook, besides its outputs, the times each cell was executed
(`metadata.execution`, the `iopub.*` and `shell.execute_reply` timestamps of nbclient's
`record_timing`) and, when ipywidgets were used, the widgets' saved state (`metadata.widgets`).
Neither is part of the book: the timestamps make two renders of the same chapter differ byte for
byte (Quarto carries cell metadata into the page), and saved widget state is what Quarto copies
into a page next to the widget runtime it loads from a CDN when an output shows a widget.  The
chapter runner (execute.py) strips both before it writes a chapter.

    python -m costbook.book.reproducible chapters/*.ipynb    strips committed notebooks in place
                                                             (their JSON layout kept as nbformat
                                                             writes it)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..system import atomic

__all__ = ["VOLATILE_CELL_METADATA", "VOLATILE_NOTEBOOK_METADATA", "strip_volatile_metadata", "strip_file"]

VOLATILE_CELL_METADATA = ("execution",)
VOLATILE_NOTEBOOK_METADATA = ("widgets",)


def strip_volatile_metadata(nb):
    """Remove run timestamps and widget state from a notebook (a dict or an nbformat node), in
    place; returns it."""
    meta = nb.get("metadata")
    if isinstance(meta, dict):
        for key in VOLATILE_NOTEBOOK_METADATA:
            meta.pop(key, None)
    for cell in nb.get("cells") or []:
        cmeta = cell.get("metadata")
        if isinstance(cmeta, dict):
            for key in VOLATILE_CELL_METADATA:
                cmeta.pop(key, None)
    return nb


def strip_file(path: Path) -> bool:
    """Strip a notebook file in place, keeping nbformat's layout (indent 1, UTF-8 text, a final
    newline); True if it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    new = json.dumps(strip_volatile_metadata(json.loads(text)), indent=1, ensure_ascii=False) + "\n"
    if new == text:
        return False
    atomic.write_text(path, new)
    return True


def main(argv=None) -> int:
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not paths:
        print("usage: python -m costbook.book.reproducible NOTEBOOK.ipynb ...", file=sys.stderr)
        return 2
    for p in paths:
        print(f"{p}: {'stripped' if strip_file(p) else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
