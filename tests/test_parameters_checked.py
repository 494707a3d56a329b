"""Chapter parameters are checked before any kernel starts (costbook.book.parameters), and the
documented examples of `make chapter SET=...` / `--set` work; small command-line refusals (a file
that is not a chapter, a file name with a leading dash).

Nothing here starts a kernel: the runner is called with its execution replaced by a recorder, so a
value that passes the checks is seen to reach the point where the chapter would run.
"""
from __future__ import annotations

import ast
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from costbook.cli import commands as cli
from costbook.book import execute

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
CH04 = ROOT / "chapters" / "04-verifiable-encryption.ipynb"
BIG = "9" * 4000


def documented_examples() -> list[tuple[str, str, str]]:
    """(where, CHAPTER, SET) of every example of make chapter and --set in the Makefile, the README
    and the runner's own help."""
    out = []
    for name in ("Makefile", "README.md"):
        for m in re.finditer(r"make chapter (CHAPTER=\S+) (SET=(?:'[^']*'|\S+))", (ROOT / name).read_text()):
            words = dict(w.split("=", 1) for w in shlex.split(f"{m.group(1)} {m.group(2)}"))
            out.append((name, words["CHAPTER"], words["SET"]))
    doc = execute.__doc__
    for m in re.finditer(r"execute (chapters/\S+\.ipynb)[^\n]*\\?\n?[^\n]*?--set ('[^']*')", doc):
        out.append(("costbook.book.execute's help", m.group(1), shlex.split(m.group(2))[0]))
    return out


def run_checks_only(monkeypatch, argv, env=None) -> tuple[int, list]:
    """The runner with everything up to the chapter's execution: (exit code, what would run)."""
    ran = []
    monkeypatch.setattr(execute, "run_chapters", lambda root, plan, m, overrides, *a: ran.append(
        (plan, overrides)) or 0)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    return execute.main(argv), ran


def test_the_documentation_has_examples():
    where = {w for w, _, _ in documented_examples()}
    assert where == {"Makefile", "README.md", "costbook.book.execute's help"}


@pytest.mark.parametrize("where, chapter, value", documented_examples())
def test_every_documented_example_passes_the_checks(tmp_path, monkeypatch, where, chapter, value):
    code, ran = run_checks_only(monkeypatch, ["--project", str(ROOT), "--from-env", "--out", str(tmp_path)],
                                {execute.ENV_CHAPTER: chapter, execute.ENV_SET: value,
                                 execute.ENV_MEASUREMENTS: ""})
    assert code == 0 and len(ran) == 1, where
    (plan, overrides), = ran
    nb = nbformat.read(plan[0].src, as_version=4)
    # the documented value is of the kind the chapter's own value is (a list where it is a string
    # runs into a TypeError inside the kernel)
    name, text = value.split("=", 1)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    defaults = {t.id: ast.literal_eval(node.value) for node in ast.parse(cell.source).body
                if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}
    assert type(ast.literal_eval(text)) is type(defaults[name]), f"{where}: {value} for {defaults[name]!r}"
    execute.inject_parameters(nb, overrides, chapter)
    injected = next(c for c in nb.cells if execute.INJECTED_TAG in c.metadata.get("tags", []))
    assert injected.source.splitlines()[-1] == f"{name} = {ast.literal_eval(text)!r}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_declares_what_each_parameter_admits(chapter):
    """Every name of the parameters cell has a declaration, and the chapter's own values pass it."""
    from costbook.book import parameters
    nb = nbformat.read(chapter, as_version=4)
    assert parameters.check_defaults(nb, chapter.name) == []
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if cells:
        assert set(parameters.declared(cells[0])) == set(parameters.assigned(cells[0].source))


@pytest.mark.parametrize("value, message", [
    ('PARAMS=["aggressive"]', "PARAMS=['aggressive'] is a list in brackets; PARAMS takes one of "
                              "'conservative', 'aggressive' (a string in quotes); e.g. PARAMS='conservative'"),
    (f"K={BIG}", "K=99999999999999999999999999999999999... (4000 characters) is not admitted: K takes an "
                 "integer from 1 to 256"),
    ('PARAMS="paranoid"', "PARAMS='paranoid' is not admitted"),
    ("K=0", "K=0 is not admitted: K takes an integer from 1 to 256"),          # 0: the CLI's "model's k"
    ("K=True", "K=True is True or False; K takes an integer"),
    ("K=2.5", "K=2.5 is a number; K takes an integer"),
    ("K_PRIME=-1", "K_PRIME=-1 is not admitted: K_PRIME takes an integer from 1 to 1024"),
    ("PLOT_BITS=[]", "PLOT_BITS=[] has 0 items; PLOT_BITS takes a list of 1 to 12 items"),
    (f"PLOT_BITS={[2048] * 13}", "has 13 items"),
    ("PLOT_BITS=[2048, 'x']", "PLOT_BITS=[2048, 'x'] holds 'x', which is not admitted"),
    ("PLOT_BITS=2048", "PLOT_BITS=2048 is an integer; PLOT_BITS takes a list"),
    ("MODEXP_BACKENDS=['gmp', 'openssl']", "holds 'openssl', which is not admitted: MODEXP_BACKENDS takes a "
                                           "list of 1 to 4 items, each one of 'gmp', 'gmp-sec', 'sage', 'pari'"),
    ("SOURCE='no-such-file.json'", "SOURCE='no-such-file.json': no-such-file.json: no such measurement file"),
    ("SOURCE=3", "SOURCE=3 is an integer"),
    ("NOPE=1", "no parameter NOPE in the parameters cell"),
    ("K=" + "9" * 5000, "is longer than any parameter's value (4096 characters)"),
    ("K=__import__('os')", "is not a Python literal"),
    # admitted alone, refused by the scheme's own rules with the chapter's other values (they failed
    # inside the kernel after a minute and a half)
    ("RHO_BITS=4096", "RHO_BITS=4096: modulus of 4096 bits too small"),
    ("RHO_BITS=128", "RHO_BITS=128: k = 252 too large for |rho| = 128"),
    ("SOURCE='published/seed-001-veccom'", "SOURCE='published/seed-001-veccom' cannot price cs03's estimate"),
])
def test_bad_values_are_one_line_and_exit_2_before_any_kernel(tmp_path, monkeypatch, capsys, value, message):
    code, ran = run_checks_only(monkeypatch, ["--project", str(ROOT), str(CH04.relative_to(ROOT)),
                                              "--out", str(tmp_path), "--set", value])
    err = capsys.readouterr().err
    assert code == 2 and not ran
    assert err.count("\n") == 1 and err.startswith("execute: error: "), err
    assert message in err, err
    assert len(err) < 400                     # a 4000-digit value is not echoed


@pytest.mark.parametrize("chapter, value", [
    ("02", "PUNCHES=11"),                     # the chapter merges two BLS12-381 cards of PUNCHES/2
    ("02", "PUNCHES=101"),
    ("02", "DB_SIZES=[0, 2000000]"),
    ("03", "N_DEMO=5"),                       # the demo opens positions 2 to 5
    ("03", "BACKEND='blst'"),
    ("05", "M_DEMO=64"),                      # the chapter's Sage runs: a few mix-servers only
    ("05", "CURVE='secp256k1'"),
    ("06", "MIX_NS=[0]"),
    ("01", "MODULUS_BITS=[1000]"),            # only the measured sizes are priced
])
def test_each_chapter_refuses_what_its_code_cannot_take(tmp_path, monkeypatch, capsys, chapter, value):
    code, ran = run_checks_only(monkeypatch, ["--project", str(ROOT), "--from-env", "--out", str(tmp_path)],
                                {execute.ENV_CHAPTER: chapter, execute.ENV_SET: value, execute.ENV_MEASUREMENTS: ""})
    err = capsys.readouterr().err
    assert code == 2 and not ran and err.count("\n") == 1 and "is not admitted" in err, err


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
@pytest.mark.parametrize("value, message", [('PARAMS=["aggressive"]', "is a list in brackets"),
                                            (f"K={BIG}", "(4000 characters) is not admitted")])
def test_make_chapter_refuses_the_issue_examples_in_one_line(value, message):
    r = subprocess.run([shutil.which("make"), "--no-print-directory", "-o", ".venv/.installed", "chapter",
                        "CHAPTER=04", f"SET={value}"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    ours = [line for line in r.stderr.splitlines() if line.startswith("make chapter: error:")]
    assert r.returncode != 0 and len(ours) == 1 and message in ours[0], r.stderr
    assert "Traceback" not in r.stderr and "started" not in r.stdout


# ---------------------------------------------------------------------------------------------
# small: what is not a chapter, a file name with a leading dash

@pytest.mark.parametrize("name, content, message", [
    ("README.md", None, "'README.md': not a chapter (a chapter is a Jupyter notebook, .ipynb)"),
    ("x.ipynb", "# not JSON\n", "'x.ipynb': not a chapter: not a valid Jupyter notebook"),
    ("y.ipynb", "{}", "'y.ipynb': not a chapter: not a valid Jupyter notebook"),
    ("z.ipynb", "\udcff", "'z.ipynb': not a chapter: not a valid Jupyter notebook"),
    ("missing.ipynb", None, "'missing.ipynb': no such chapter"),
])
def test_a_file_that_is_not_a_chapter_is_refused_in_one_line(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_bytes(content.encode("utf-8", "surrogateescape"))
    project = ROOT if name == "README.md" else tmp_path
    r = subprocess.run([sys.executable, "-m", "costbook.book.execute", "--project", str(project), name,
                        "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300,
                       cwd=project)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert "started" not in r.stdout and not (tmp_path / "out").exists()


def test_a_file_name_with_a_leading_dash_is_refused_with_how_to_give_it(tmp_path, capsys, monkeypatch):
    good = ROOT / "measurements" / "reference"
    (tmp_path / "-x.json").write_bytes(next(good.glob("*.json")).read_bytes())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "-x.json"]) == 2
    err = capsys.readouterr().err
    assert err == ("costbook: error: -x.json: not an option of costbook check; a file whose name starts with "
                   "'-' is given as ./-x.json or after --: costbook check -- -x.json\n")
    for argv in (["check", "./-x.json"], ["check", "--", "-x.json"]):     # both ways read the file
        assert cli.main(argv) == 0
        out = capsys.readouterr().out
        assert out.startswith("ok  ") and "-x.json" in out
    assert cli.main(["check", "-h"]) == 0                                   # its one option still works


def test_an_option_value_with_a_leading_dash_is_refused_with_how_to_give_it(tmp_path, capsys, monkeypatch):
    """argparse calls the value missing ("expected one argument"); the one line says how to give it."""
    good = ROOT / "measurements" / "reference"
    (tmp_path / "-x.json").write_bytes(next(good.glob("*.json")).read_bytes())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["estimate", "cs03", "--source", "-x.json"]) == 2
    err = capsys.readouterr().err
    assert err == ("costbook: error: --source needs a value; a value that starts with '-' is given as "
                   "--source=VALUE (a file also as ./NAME) (see costbook estimate --help)\n")
    for source in ("--source=-x.json", "./-x.json"):
        argv = ["estimate", "cs03", source] if source.startswith("--") else ["estimate", "cs03", "--source", source]
        assert cli.main(argv) == 0, capsys.readouterr().err
        assert "cs03" in capsys.readouterr().out.lower()


@pytest.mark.parametrize("spec, message", [
    (None, "X declares no values it admits (the parameters cell's metadata costbook.parameters), so it "
           "cannot be overridden"),
    ({"allowed": {"scheme": "no-such-scheme", "option": "n"}}, "but the scheme does not load"),
    ({"allowed": {"scheme": "cs03", "option": "nope"}}, "scheme cs03's option nope, which it does not have"),
    ({"allowed": {"python": "costbook.nowhere:X"}}, "names costbook.nowhere:X, which cannot be read"),
    ({"allowed": "anything"}, "X's declaration is malformed"),
])
def test_a_parameter_without_a_sound_declaration_is_not_overridden(spec, message):
    from costbook.book.parameters import ParameterError, inject_parameters
    nb = nbformat.v4.new_notebook()
    meta = {"tags": ["parameters"]} | ({"costbook": {"parameters": {"X": spec}}} if spec else {})
    nb.cells = [nbformat.v4.new_code_cell("X = 1", metadata=meta)]
    with pytest.raises(ParameterError) as e:
        inject_parameters(nb, [("X", "2")], "nb.ipynb")
    assert message in str(e.value) and "\n" not in str(e.value)
