"""Re-running one chapter with parameters overridden from the command line (costbook.book.execute --set)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from costbook.book.execute import INJECTED_TAG, ParameterError, inject_parameters, parse_override


def chapter(folder: Path) -> Path:
    """A tiny project: one sagemath notebook with a parameters cell `X = 1` and `print(X * 2)`."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "sagemath", "display_name": "SageMath", "language": "sage"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny"),
                nbformat.v4.new_code_cell("X = 1\nNAMES = ['a']", metadata={"tags": ["parameters"], "costbook": {
                    "parameters": {"X": {"allowed": {"min": 0, "max": 100}}, "NAMES": {"allowed": ["a", "b"]}}}}),
                nbformat.v4.new_code_cell("print(X * 2)")]
    (folder / "chapters").mkdir(parents=True)
    path = folder / "chapters" / "01-tiny.ipynb"
    nbformat.write(nb, path)
    return path


def run(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "costbook.book.execute", "--project", str(project), *args],
                          capture_output=True, text=True, timeout=600)


def test_override_is_injected_after_the_parameters_cell_and_used(tmp_path):
    src = chapter(tmp_path)
    before = src.read_text()
    r = run(tmp_path, "chapters/01-tiny.ipynb", "--out", str(tmp_path / "build"), "--set", "X=21")
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(tmp_path / "build" / "chapters" / "01-tiny.ipynb", as_version=4)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    assert tags[1] == ["parameters"] and tags[2] == [INJECTED_TAG]
    assert "X = 21" in nb.cells[2].source
    printed = "".join(o.get("text", "") for o in nb.cells[3].outputs if o.output_type == "stream")
    assert printed.strip() == "42"
    assert src.read_text() == before          # the chapter itself is not edited


@pytest.mark.parametrize("override, message", [
    ("Y=3", "no parameter Y in the parameters cell (it assigns: NAMES, X)"),
    ("X=os.system('true')", "--set X: the value \"os.system('true')\" is not a Python literal"),
    ("X", "expected NAME=VALUE"),
])
def test_bad_overrides_are_refused_naming_the_parameter(tmp_path, override, message):
    chapter(tmp_path)
    r = run(tmp_path, "chapters/01-tiny.ipynb", "--out", str(tmp_path / "build"), "--set", override)
    assert r.returncode != 0
    assert message in r.stderr
    assert not (tmp_path / "build" / "chapters" / "01-tiny.ipynb").exists()


def test_overrides_need_one_chapter_and_an_output_folder(tmp_path):
    chapter(tmp_path)
    r = run(tmp_path, "chapters/01-tiny.ipynb", "--inplace", "--set", "X=2")
    assert r.returncode != 0 and "exactly one chapter and --out" in r.stderr


def test_injection_replaces_an_earlier_injected_cell_and_needs_a_parameters_cell():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("X = [1]", metadata={"tags": ["parameters"], "costbook": {
                    "parameters": {"X": {"allowed": {"min": 0, "max": 9}}}}}),
                nbformat.v4.new_code_cell("X = 5", metadata={"tags": [INJECTED_TAG]}),
                nbformat.v4.new_code_cell("X")]
    inject_parameters(nb, [parse_override("X=[1, 2]")], "nb")
    assert [c.source.splitlines()[-1] for c in nb.cells] == ["X = [1]", "X = [1, 2]", "X"]
    with pytest.raises(ParameterError, match=r"X=\[1, 10\] holds 10, which is not admitted"):
        inject_parameters(nb, [parse_override("X=[1, 10]")], "nb")
    with pytest.raises(ParameterError, match="exactly one code cell tagged 'parameters'"):
        inject_parameters(nbformat.v4.new_notebook(), [("X", "1")], "empty.ipynb")
