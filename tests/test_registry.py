"""Discovery isolates each scheme folder: a folder that cannot be read is one line, not an outage.

A folder of ``costbook.schemes`` whose manifest.py or model.py has a syntax error, a folder without a
manifest, two folders that declare one scheme, and a manifest whose chapter is missing or not in
_quarto.yml's chapter list: each is named with its problem in one line where it matters (the help,
the command that asks for it, the ledger), and every command for the other schemes works.

The broken folders are made in a temporary folder added to ``costbook.schemes.__path__``, as a new
scheme's folder would be found; the commands run in this process through ``costbook.cli.commands.main``.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from costbook import schemes
from costbook.cli.commands import main

REPO = Path(__file__).resolve().parents[1]
SCHEMES_DIR = REPO / "sage" / "costbook" / "schemes"
GOOD_FILE = REPO / "measurements" / "reference" / "reference-amd-epyc-2core.json"

MANIFEST = ('CHAPTER = "chapters/{chapter}.ipynb"\nTITLE = "{name}"\nSECTION = "sec-{name}"\nPUBLISHED_FILES = ()\n'
            'BIBLIOGRAPHY = ()\nSEED_NOTES = {{}}\nSEED_ERRATA = {{}}\nVALIDATION_CASES = ()\nCALIBRATION_CASES = ()\n')


@pytest.fixture
def extra_folder(tmp_path, monkeypatch):
    """A folder of scheme folders, searched by discovery like the package's own; its modules are
    forgotten afterwards."""
    folder = tmp_path / "more_schemes"
    folder.mkdir()
    monkeypatch.setattr(schemes, "__path__", [*schemes.__path__, str(folder)])
    yield folder
    # only the modules loaded from this folder: a folder here may share a name with a real scheme (the
    # copy tests), whose modules the rest of the session keeps using (isinstance needs the same classes)
    for name in [m for m, mod in list(sys.modules.items()) if m.split(".")[:2] == ["costbook", "schemes"]
                 and str(getattr(mod, "__file__", "") or "").startswith(str(folder))]:
        del sys.modules[name]


def scheme_folder(parent: Path, name: str, manifest: str | None = None, model: str | None = "") -> Path:
    d = parent / name
    d.mkdir()
    (d / "__init__.py").write_text("")
    if manifest is not None:
        (d / "manifest.py").write_text(manifest)
    if model is not None:
        (d / "model.py").write_text(model)
    return d


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err!r}"
    return lines[0]


BROKEN = {
    "manifest": dict(manifest='CHAPTER = ("chapters/99-broken.ipynb"\n', model="", says="manifest.py, line 1"),
    "model": dict(manifest=MANIFEST.format(chapter="99-broken", name="broken"), model="def estimate(:\n",
                  says="model.py, line 1"),
    # a protocol module the model imports: it took down `costbook ledger` and the comparison chapter
    "protocol": dict(manifest=MANIFEST.format(chapter="99-broken", name="broken"), model="from . import protocol\n",
                     files={"protocol.py": "def setup(:\n"}, says="protocol.py, line 1"),
}


@pytest.mark.parametrize("where", BROKEN)
def test_a_folder_with_a_syntax_error_is_one_line_and_the_others_work(extra_folder, capsys, where):
    case = BROKEN[where]
    folder = scheme_folder(extra_folder, "broken", case["manifest"], case["model"])
    for name, text in case.get("files", {}).items():
        (folder / name).write_text(text)

    code, out, err = run(capsys, "--help")
    assert code == 0 and err == ""
    named = [line for line in out.splitlines() if "'broken'" in line]
    assert len(named) == 1 and case["says"] in named[0], out

    code, out, err = run(capsys, "check", str(GOOD_FILE))
    assert (code, err) == (0, "") and out.startswith("ok  ")

    code, out, err = run(capsys, "estimate", "cs03", "--json")
    assert (code, err) == (0, "") and json.loads(out)
    code, out, err = run(capsys, "ledger", "--json")         # the others' rows, and one line on the folder
    assert code == 0 and json.loads(out)["rows"]
    assert one_line(err).startswith("costbook: warning: scheme folder 'broken'") and case["says"] in err, err

    code, out, err = run(capsys, "estimate", "broken")
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("costbook: error: scheme folder 'broken'") and case["says"] in line, line
    assert "internal error" not in err

    assert "broken" not in schemes.in_book_order() and "cs03" in schemes.in_book_order()


def test_a_copy_of_a_scheme_in_another_folder_is_refused_in_one_line(extra_folder, capsys):
    """A copy doubled that scheme's ledger rows silently; now both folders are named, once."""
    copy = extra_folder / "cs03_copy"
    shutil.copytree(SCHEMES_DIR / "cs03", copy, ignore=shutil.ignore_patterns("__pycache__"))
    code, out, err = run(capsys, "ledger", "--scheme", "cs03_copy")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "'cs03' and 'cs03_copy'" in line and "chapters/04-verifiable-encryption.ipynb" in line, line
    assert "cs03_copy" not in schemes.in_book_order()


def test_one_scheme_name_in_two_folders_is_refused_in_one_line(extra_folder, capsys):
    """A folder of the same name elsewhere on the path was silently shadowed by the first."""
    shutil.copytree(SCHEMES_DIR / "cs03", extra_folder / "cs03", ignore=shutil.ignore_patterns("__pycache__"))
    code, out, err = run(capsys, "estimate", "cs03")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "scheme 'cs03' is in two folders" in line and str(extra_folder / "cs03") in line, line


def test_a_manifest_naming_a_missing_chapter_is_refused_in_one_line(extra_folder, capsys):
    """The missing chapter was never mentioned; now the ledger and the registry say so, in one line."""
    copy = extra_folder / "lost"
    shutil.copytree(REPO / "tests" / "toy_schemes" / "schnorr", copy, ignore=shutil.ignore_patterns("__pycache__"))
    text = (copy / "manifest.py").read_text().replace("chapters/91-schnorr.ipynb", "chapters/77-nowhere.ipynb")
    (copy / "manifest.py").write_text(text)
    code, out, err = run(capsys, "ledger", "--scheme", "lost")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "'lost'" in line and "chapters/77-nowhere.ipynb" in line and "does not exist" in line, line
    assert "lost" not in schemes.in_book_order()


def test_a_scheme_whose_chapter_is_not_in_the_chapter_list_is_an_error_in_one_line(toy_scheme, capsys):
    """The toy's chapter is in its book's folder but not in _quarto.yml's chapter list."""
    config = toy_scheme / "_quarto.yml"
    config.write_text(config.read_text().replace("    - chapters/91-schnorr.ipynb\n", ""))
    assert "schnorr" not in schemes.in_book_order()
    code, out, err = run(capsys, "ledger", "--scheme", "schnorr")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "'schnorr'" in line and "chapters/91-schnorr.ipynb" in line and "_quarto.yml" in line, line


def test_the_book_refuses_a_scheme_whose_chapter_is_not_listed(toy_scheme):
    """The renderer of the book stops with that line (the book would leave the scheme out silently)."""
    from costbook.book.render import RenderError, load_book
    config = toy_scheme / "_quarto.yml"
    load_book(toy_scheme)                               # listed: the book loads
    config.write_text(config.read_text().replace("    - chapters/91-schnorr.ipynb\n", ""))
    with pytest.raises(RenderError) as e:
        load_book(toy_scheme)
    assert "\n" not in str(e.value) and "chapters/91-schnorr.ipynb" in str(e.value)


def test_words_for_a_choice_the_option_does_not_offer_are_refused_at_once():
    from costbook.registry import Bounds, SchemeError, option
    option("a", ("a", "b"), values={"a": "the first"})
    with pytest.raises(SchemeError, match="does not offer"):
        option("a", ("a", "b"), values={"c": "a third"})
    with pytest.raises(SchemeError, match="does not offer"):
        option(1, Bounds(1, 9), values={1: "one"})
