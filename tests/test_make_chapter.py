"""`make chapter`: CHAPTER, SET and MEASUREMENTS reach the chapter runner without a shell (issue 19).

make puts them, unexpanded, into the recipe's environment (COSTBOOK_CHAPTER, COSTBOOK_SET,
COSTBOOK_CHAPTER_MEASUREMENTS); no recipe line contains them, so no crafted value runs a command,
and `python -m costbook.book.execute --from-env` checks them before any kernel starts.  These tests
never execute a chapter: the dry runs print recipes, a fake interpreter (PY=...) records what
arrives, and the real runs fail validation first.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from costbook.prices import measurements
from costbook.book import execute

ROOT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="needs GNU make")

#: values that would run `touch <marker>` if a shell (or make's $(shell)) ever saw them
HOSTILE = [
    'x"; touch {m}; "',
    "x'; touch {m}; '",
    "$(shell touch {m})",
    "`touch {m}`",
    "$$(touch {m})",
    "x\ntouch {m}",
    "PARAMS=1; touch {m}",
    "a' --set 'PARAMS=1 $(touch {m})",
]


def make(*args: str, env=None, timeout=120) -> subprocess.CompletedProcess:
    # -o .venv/.installed: never (re)build the venv from a test
    return subprocess.run([MAKE, "--no-print-directory", "-o", ".venv/.installed", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("var", ["SET", "MEASUREMENTS", "CHAPTER"])
@pytest.mark.parametrize("template", HOSTILE)
def test_dry_run_recipe_holds_no_variable_content(tmp_path, var, template):
    marker = tmp_path / "pwned"
    value = template.replace("{m}", str(marker))
    others = {"CHAPTER": "04", "SET": 'PARAMS="aggressive"', "MEASUREMENTS": ""}
    others[var] = value
    r = make("-n", "chapter", *(f"{k}={v}" for k, v in others.items()))
    assert r.returncode == 0, r.stderr
    recipe = r.stdout
    assert not marker.exists()                        # make's own $(shell ...) never ran either
    assert "touch" not in recipe and str(marker) not in recipe and "aggressive" not in recipe
    assert "costbook.book execute --from-env" in recipe


def _fake_python(tmp_path: Path) -> Path:
    """An interpreter stand-in that writes the three variables it received, NUL-separated."""
    fake = tmp_path / "fake-python"
    fake.write_text('#!/bin/sh\nprintf "%s\\0%s\\0%s\\0" "$COSTBOOK_CHAPTER" "$COSTBOOK_SET" '
                    '"$COSTBOOK_CHAPTER_MEASUREMENTS" > "$FAKE_OUT"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return fake


@pytest.mark.parametrize("template", HOSTILE + ['PARAMS="aggressive"', "PARAMS=['a b', \"c\"]",
                                                "PARAMS={'k': 1}"])
def test_values_arrive_verbatim_and_run_nothing(tmp_path, template):
    marker = tmp_path / "pwned"
    value = template.replace("{m}", str(marker))
    out = tmp_path / "received"
    env = {**os.environ, "FAKE_OUT": str(out)}
    r = make("chapter", f"PY={_fake_python(tmp_path)}", f"CHAPTER=04{value}", f"SET={value}",
             f"MEASUREMENTS={value}", env=env)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().split(b"\0")[:3] == [f"04{value}".encode(), value.encode(), value.encode()]
    assert not marker.exists()


def test_a_string_literal_arrives_unmangled_and_parses():
    # what the fake interpreter received above is what execute parses
    assert execute.parse_override('PARAMS="aggressive"') == ("PARAMS", '"aggressive"')
    assert execute.parse_override("PARAMS=['aggressive']") == ("PARAMS", "['aggressive']")


def test_variables_from_the_environment_do_not_reach_a_shell_either(tmp_path):
    marker = tmp_path / "pwned"
    out = tmp_path / "received"
    value = f'x"; touch {marker}; "$(shell touch {marker})'
    env = {**os.environ, "FAKE_OUT": str(out), "SET": value, "MEASUREMENTS": value, "CHAPTER": value}
    r = make("chapter", f"PY={_fake_python(tmp_path)}", env=env)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().split(b"\0")[:3] == [value.encode()] * 3
    assert not marker.exists()


@pytest.mark.parametrize("var, value, message", [
    ("SET", 'x"; touch {m}; "', "expected NAME=VALUE"),
    ("SET", "x'; touch {m}; '", "expected NAME=VALUE"),
    ("SET", "PARAMS=__import__('os').system('touch {m}')", "is not a Python literal"),
    ("SET", "NOPE=1", "no parameter NOPE"),
    ("MEASUREMENTS", '$(shell touch {m})"; touch {m}; "', "MEASUREMENTS: "),
    ("CHAPTER", '04"; touch {m}; "', "no such chapter"),
])
def test_real_run_refuses_before_any_chapter_runs(tmp_path, var, value, message):
    """The real recipe with the real interpreter: a crafted value fails validation (exit non-zero,
    one line saying so), creates no file, executes and renders nothing."""
    marker = tmp_path / "pwned"
    args = {"CHAPTER": "04", "SET": "", "MEASUREMENTS": ""}
    args[var] = value.replace("{m}", str(marker))
    before = {p: p.stat().st_mtime_ns for p in (ROOT / "build").rglob("*04-*")} if (ROOT / "build").exists() else {}
    r = make("chapter", *(f"{k}={v}" for k, v in args.items()))
    assert not marker.exists()
    assert r.returncode != 0
    ours = [line for line in r.stderr.splitlines() if line.startswith("make chapter: error:")]
    assert len(ours) == 1 and message in ours[0], r.stderr
    assert "Traceback" not in r.stderr and "executed" not in r.stdout
    assert not marker.exists()
    after = {p: p.stat().st_mtime_ns for p in (ROOT / "build").rglob("*04-*")} if (ROOT / "build").exists() else {}
    assert after == before


def test_a_failing_chapter_is_one_line_and_a_non_zero_exit(tmp_path, monkeypatch, capsys):
    """The chapter's own failure (a cell raises): one line naming it, exit 1, nothing rendered."""
    class CellFailed(Exception):
        ename, evalue = "ZeroDivisionError", "division by zero"

    def boom(*a, **k):
        raise CellFailed("a long\ntraceback")

    rendered = []
    monkeypatch.setattr(execute, "execute_notebook", boom)
    monkeypatch.setattr(execute, "render_into", lambda *a: rendered.append(a) or 0)
    monkeypatch.setenv(execute.ENV_CHAPTER, "04")
    monkeypatch.setenv(execute.ENV_SET, "")
    monkeypatch.setenv(execute.ENV_MEASUREMENTS, "")
    monkeypatch.setenv("COSTBOOK_FRESH", "1")          # never a cached run of the chapter instead
    monkeypatch.setenv("COSTBOOK_JOBS", "1")           # one chapter process, forked with the patch in it
    code = execute.main(["--project", str(ROOT), "--from-env", "--out", str(tmp_path / "c"),
                         "--render", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code == 1 and not rendered
    assert err.count("\n") == 1 and "make chapter: error:" in err
    assert "ZeroDivisionError: division by zero" in err


def test_chapter_names_resolve_like_make_did(tmp_path):
    assert execute.resolve_chapter(ROOT, "04").name == "04-verifiable-encryption.ipynb"
    assert execute.resolve_chapter(ROOT, "chapters/01-primitives.ipynb").name == "01-primitives.ipynb"
    for bad in ("", "0", "*", "04/../../etc/passwd", "04\x1b[2J"):
        with pytest.raises(execute.ParameterError) as e:
            execute.resolve_chapter(ROOT, bad)
        assert "\x1b" not in str(e.value) and "\n" not in str(e.value)


# --- one machine per book: make chapter after make book prices on this machine -----------------------

def _project_with_this_machine(tmp_path: Path, content: bytes | None) -> Path:
    if content is not None:
        made = tmp_path / execute.THIS_MACHINE
        made.parent.mkdir(parents=True)
        made.write_bytes(content)
    return tmp_path


def test_the_makefile_measures_into_the_file_make_chapter_reads():
    assert re.search(rf"^MEASURED := {re.escape(execute.THIS_MACHINE)}$", (ROOT / "Makefile").read_text(), re.M)


@pytest.mark.parametrize("have, given, expect, says", [
    (True, "", "this", "priced on this machine with build/measurements/this-machine.json"),
    (True, "reference", None, "priced on the reference machine, as asked (MEASUREMENTS=reference)"),
    (False, "", None, "priced on the reference machine, no build/measurements/this-machine.json yet"),
])
def test_make_chapter_prices_on_the_machine_make_book_measured(tmp_path, monkeypatch, have, given, expect, says):
    reference = measurements.reference_path().read_bytes()
    root = _project_with_this_machine(tmp_path, reference if have else None)
    monkeypatch.setenv(execute.ENV_CHAPTER, str(ROOT / "chapters" / "04-verifiable-encryption.ipynb"))
    monkeypatch.setenv(execute.ENV_SET, "")
    monkeypatch.setenv(execute.ENV_MEASUREMENTS, given)
    _, _, used = execute.from_environment(root)
    assert used == ((root / execute.THIS_MACHINE).resolve() if expect == "this" else None)
    assert execute.priced_on(root, used).startswith(says)


def test_a_damaged_measurement_of_this_machine_is_one_line(tmp_path, monkeypatch):
    root = _project_with_this_machine(tmp_path, b'{"schema": ')
    monkeypatch.setenv(execute.ENV_CHAPTER, str(ROOT / "chapters" / "04-verifiable-encryption.ipynb"))
    monkeypatch.setenv(execute.ENV_SET, "")
    monkeypatch.setenv(execute.ENV_MEASUREMENTS, "")
    with pytest.raises(execute.ParameterError, match="make book's measurement of this machine.*MEASUREMENTS=reference"):
        execute.from_environment(root)
