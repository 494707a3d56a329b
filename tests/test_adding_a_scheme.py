"""docs/adding-a-scheme.md, followed: the toy scheme added to a copy of the project, step by step.

The guide's table "Every file a new scheme touches" is read from the guide itself; the toy scheme
(tests/toy_schemes/schnorr) is put in each place it names, in a copy of the project's files, and then:

* no file outside those places changed (and _quarto.yml by one line of its chapter list), where the
  last place, ``make reference``, is the one regeneration command: the files it writes (every scheme's
  cross-machine scores, the chapters executed in place, the live exports) are its place.  The test runs
  its scores and the toy's export; executing every chapter takes minutes, so it runs what the closing
  chapter and the ledger call instead (below);
* the toy's evidence (validation runs and scores, in its folder) came with it, and no other scheme's
  evidence file changed;
* the registry has no problem with it, and the schemes of the book are its own and the toy, in the
  order of their chapters;
* what the closing chapter and the ledger call at execution (``compare.CHAPTERS``, the rows of
  ``compare.rows_builders()``, ``ledger.SCHEMES``, ``ledger.printed_figures()``, the scheme's
  ``ledger_rows()``, ``registry.count_words``) includes it: one scheme more, its comparison rows, a
  ledger row for every figure its note prints.

It runs the functions the chapters call, in a fresh process on the copy, not the chapters' kernels
(their outputs are compared by nbval), so it takes seconds.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "adding-a-scheme.md"
TOY = Path(__file__).resolve().parent / "toy_schemes" / "schnorr"
#: what the toy folder holds only because it is not in the book (at its top: its evidence/ stays in it):
#: each goes where the guide says
BOOK_FILES = ("chapter.ipynb", "references.bib")
#: what `make reference`, the guide's regeneration command, writes (tests/test_adding_a_scheme.py checks
#: its recipe runs the commands that write them)
REGENERATED = ("chapters/*.ipynb", "chapters/live/*", "sage/costbook/schemes/*/evidence/cross-machine.json")


def copy_toy(dest: Path) -> None:
    """The toy folder copied to `dest`, but for the files at its top that a book keeps elsewhere."""
    top = shutil.ignore_patterns("__pycache__", *BOOK_FILES)
    shutil.copytree(TOY, dest, ignore=lambda d, names: top(d, names) if Path(d) == TOY else
                    shutil.ignore_patterns("__pycache__")(d, names))


def book_schemes() -> list:
    from costbook import registry
    return list(registry.in_book_order(REPO))


#: the schemes of this checkout's book, in the order of their chapters (found, not counted by hand)
BOOK = book_schemes()


def guide_places() -> list:
    """The first column of the guide's table "Every file a new scheme touches"."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("## Every file a new scheme touches", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.M)


def copy_project(dest: Path) -> Path:
    """The project's tracked files as they are in this checkout, copied to `dest`."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def digests(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def add_toy_as_the_guide_says(root: Path, places: list) -> str:
    """Each step of the guide's table, for the toy; returns its chapter's path."""
    manifest = (TOY / "manifest.py").read_text()
    chapter = re.search(r'^CHAPTER = "([^"]+)"', manifest, re.M)[1]
    steps = {
        "sage/costbook/schemes/<name>/": lambda: copy_toy(root / "sage" / "costbook" / "schemes" / TOY.name),
        "chapters/NN-<name>.ipynb": lambda: shutil.copy(TOY / "chapter.ipynb", root / chapter),
        "references.bib": lambda: (root / "references.bib").write_text(
            (root / "references.bib").read_text(encoding="utf-8") + "\n" + (TOY / "references.bib").read_text(encoding="utf-8"),
            encoding="utf-8"),
        "_quarto.yml": lambda: (root / "_quarto.yml").write_text(
            re.sub(r"(    - part: \"Schemes\"\n      chapters:\n(?:        - .*\n)+)", rf"\g<1>        - {chapter}\n",
                   (root / "_quarto.yml").read_text(encoding="utf-8")), encoding="utf-8"),
        "make reference": lambda: [subprocess.run(command, cwd=root, env=copy_env(root), check=True, capture_output=True,
                                                  timeout=600) for command in (
            [sys.executable, "-m", "costbook.views.ledger", "--write-scores"],
            [sys.executable, "-m", "costbook.book", "live", "--out", "chapters/live", TOY.name])],
    }
    assert sorted(places) == sorted(steps), f"the guide's table names {places}; this test follows {sorted(steps)}"
    for place in places:
        steps[place]()
    return chapter


def within(path: str, place: str, chapter: str) -> bool:
    if place == "make reference":
        return any(fnmatch.fnmatch(path, pattern) for pattern in REGENERATED)
    if place.endswith("/"):
        return path.startswith(place.replace("<name>", TOY.name))
    if place == "chapters/NN-<name>.ipynb":
        return path == chapter
    return path == place


def copy_env(root: Path) -> dict:
    """This environment, with the copy's package first on the path and the copy as the project."""
    env = {k: v for k, v in os.environ.items() if k not in ("COSTBOOK_MEASUREMENTS", "PYTHONPATH")}
    return {**env, "PYTHONPATH": str(root / "sage"), "COSTBOOK_ROOT": str(root)}


PROBE = r"""
import json
import costbook
assert costbook.__file__.startswith(%r)
from costbook import registry
from costbook.views import compare, ledger
from costbook.book import live
from costbook.prices import measurements
from costbook.book import live_page
name = "schnorr"
closing = json.loads(open("chapters/06-comparison.ipynb", encoding="utf-8").read())
widget = [n for c in closing["cells"] if c["cell_type"] == "markdown"
          for n in live_page.replace_blocks("".join(c["source"]))[1]]
rows = ledger._module(name).ledger_rows()
mine = {f for f, (key, _) in ledger.printed_figures().items() if key in registry.manifest(name).SEED_NOTES.values()}
print(json.dumps({
    "problems": registry.problems(),
    "book": list(registry.in_book_order()),
    "ledger": list(ledger.SCHEMES),
    "closing": list(compare.CHAPTERS),
    "closing_widget": widget,
    "live_index": live.index()["schemes"],
    "live_index_file": json.load(open("chapters/live/index.json"))["schemes"],
    "count": registry.count_words(len(compare.CHAPTERS)),
    "comparison_rows": len(compare.rows_builders()[name](measurements.load_source("reference"))),
    "figures": sorted(mine),
    "rows": sorted({r.figure for r in rows}),
    "seed_notes": registry.seed_notes(),
}))
"""


def test_the_guide_adds_the_toy_scheme_and_nothing_else_changes(tmp_path):
    root = copy_project(tmp_path / "project")
    before = digests(root)
    places = guide_places()
    chapter = add_toy_as_the_guide_says(root, places)
    after = digests(root)

    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    outside = [p for p in changed if not any(within(p, place, chapter) for place in places)]
    assert outside == [], f"files outside the guide's places changed: {outside}"
    assert any(p.startswith(f"sage/costbook/schemes/{TOY.name}/") for p in changed) and chapter in changed
    quarto = [line for line in (root / "_quarto.yml").read_text().splitlines()
              if line not in (REPO / "_quarto.yml").read_text().splitlines()]
    assert quarto == [f"        - {chapter}"]
    # its evidence came in its folder; the regeneration wrote its scores and left every other scheme's as it was
    mine = f"sage/costbook/schemes/{TOY.name}/evidence/"
    assert {p for p in changed if p.startswith(mine)} == {f"{mine}validation/intel-xeon-2core.json",
                                                          f"{mine}cross-machine.json"}
    assert [p for p in changed if p.endswith("/evidence/cross-machine.json") and not p.startswith(mine)] == []
    assert (root / mine / "cross-machine.json").read_bytes() == (TOY / "evidence" / "cross-machine.json").read_bytes()

    env = copy_env(root)
    done = subprocess.run([sys.executable, "-c", PROBE % str(root)], capture_output=True, text=True, env=env, cwd=root,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    assert got["problems"] == {}
    assert got["book"] == got["ledger"] == got["closing"] == [*BOOK, TOY.name], (
        f"the book's schemes with the toy added are {got['book']}, its ledger's {got['ledger']} and its closing "
        f"chapter's {got['closing']}, not the {len(BOOK)} of this checkout and the toy, last")
    # the closing chapter's live estimate: every scheme of the book, in the offline book and in Quarto's
    assert got["closing_widget"] == got["live_index"] == got["live_index_file"] == got["book"]
    from costbook import registry
    assert got["count"] == registry.count_words(len(BOOK) + 1)
    assert got["comparison_rows"] >= 1
    assert got["figures"] and set(got["figures"]) <= set(got["rows"])
    assert got["seed_notes"]["900"] == "toy-schnorr-note"


def test_without_the_chapter_list_line_the_toy_is_one_line_and_the_book_keeps_its_own(tmp_path):
    """The step a newcomer forgets: the chapter written, but not listed in _quarto.yml."""
    root = copy_project(tmp_path / "project")
    manifest = (TOY / "manifest.py").read_text()
    chapter = re.search(r'^CHAPTER = "([^"]+)"', manifest, re.M)[1]
    copy_toy(root / "sage" / "costbook" / "schemes" / TOY.name)
    shutil.copy(TOY / "chapter.ipynb", root / chapter)
    env = copy_env(root)
    done = subprocess.run([sys.executable, "-c", "import json\nfrom costbook import registry\n"
                           "print(json.dumps([registry.problems(), list(registry.in_book_order())]))"],
                          capture_output=True, text=True, env=env, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    problems, book = json.loads(done.stdout)
    assert list(problems) == [TOY.name] and "_quarto.yml" in problems[TOY.name] and "\n" not in problems[TOY.name]
    assert book == BOOK, f"without its chapter listed, the book's schemes are {book}, not this checkout's {BOOK}"


def test_make_reference_runs_what_writes_the_regenerated_files():
    """The guide's regeneration command is make reference: its recipe writes every scheme's scores, executes
    every chapter in place and writes the live exports, the files REGENERATED names."""
    text = (REPO / "Makefile").read_text()
    recipe = text.split("\nreference: setup\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.strip() for line in recipe] == [
        "$(PY) -m costbook.views.ledger --write-scores",
        "$(PY) -m costbook.book execute --inplace",
        "$(PY) -m costbook.book live --out chapters/live"]
