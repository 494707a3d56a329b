"""Write a toy scheme's chapter.ipynb with its outputs: each code cell run in one namespace, its
printed text kept as the cell's output (the toy chapters print text only).

    python tests/toy_schemes/make_chapter.py schnorr      # from the repository root

``execute(cells)`` is also what tests/test_toy_scheme.py runs to check the committed outputs."""
from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def execute(cells: list) -> list:
    """The cells with each code cell's printed output as one stream output; a cell that says why its output
    is not compared (``"nbval-why"`` in its metadata, as the book's chapters do: a timing) runs, and keeps
    the output it had."""
    namespace: dict = {}
    out = []
    for n, cell in enumerate(cells):
        cell = dict(cell)
        if cell["cell_type"] == "code":
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile("".join(cell["source"]), f"<cell {n}>", "exec"), namespace)
            text = buf.getvalue()
            if "nbval-why" not in cell.get("metadata", {}) or not cell.get("outputs"):
                cell["outputs"] = [{"name": "stdout", "output_type": "stream",
                                    "text": text.splitlines(keepends=True)}] if text else []
            cell["execution_count"] = None
        out.append(cell)
    return out


def main(name: str) -> None:
    sys.path.insert(0, str(HERE.parent))
    from conftest import install_toy_book, toy_schemes_on_path
    import os
    import tempfile
    path = HERE / name / "chapter.ipynb"
    nb = json.loads(path.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["COSTBOOK_ROOT"] = str(install_toy_book(Path(tmp) / "book", [HERE / name]))
        with toy_schemes_on_path():
            nb["cells"] = execute(nb["cells"])
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
