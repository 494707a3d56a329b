"""The chapter runner's cache and parallel runs (issue 22): a chapter is executed again exactly when
one of its inputs changed, chapters run side by side, and the log is plain lines with a table."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from costbook.book import cache as cache_mod
from costbook.book.cache import ChapterCache, input_digest, shared_digest
from costbook.book.execute import ParameterError, jobs_from
from costbook.book.measured import reusable

ROOT = Path(__file__).resolve().parents[1]


def notebook(path: Path, code: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "sagemath", "display_name": "SageMath", "language": "sage"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny"), nbformat.v4.new_code_cell(code)]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def project(folder: Path) -> Path:
    """A project of two tiny sagemath chapters, a requirements.txt and a measurements/ folder."""
    notebook(folder / "chapters" / "01-one.ipynb", "print(2^10)")
    notebook(folder / "chapters" / "02-two.ipynb", "#| label: tbl-two\nprint(factor(2^16 - 1))")
    (folder / "_quarto.yml").write_text("book:\n  chapters:\n    - chapters/01-one.ipynb\n"
                                        "    - chapters/02-two.ipynb\n")
    (folder / "requirements.txt").write_text("pinned==1\n")
    (folder / "measurements" / "published").mkdir(parents=True)
    (folder / "measurements" / "published" / "seed.json").write_text("{}\n")
    return folder


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A stand-in for the costbook package's folder, so a test can change a package file."""
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "module.py").write_text("X = 1\n")
    (pkg / "data.json").write_text("[1]\n")
    monkeypatch.setattr(cache_mod, "package_dir", lambda: pkg)
    return pkg


def test_the_digest_changes_with_every_input_and_only_then(tmp_path, package):
    root = project(tmp_path / "p")
    nb = root / "chapters" / "01-one.ipynb"
    meas = tmp_path / "m.json"
    meas.write_text('{"a": 1}')

    def digest(measurements=meas, overrides=()):
        return input_digest(shared_digest(root), nb, measurements, overrides)

    first = digest()
    (package / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"bytecode")   # not an input
    assert digest() == first
    seen = {first}
    changes = [
        lambda: nb.write_text(nb.read_text().replace("2^10", "2^11")),
        lambda: meas.write_text('{"a": 2}'),
        lambda: (package / "module.py").write_text("X = 2\n"),
        lambda: (package / "data.json").write_text("[2]\n"),
        lambda: (package / "new.py").write_text(""),
        lambda: (root / "requirements.txt").write_text("pinned==2\n"),
        lambda: (root / "measurements" / "published" / "seed.json").write_text('{"x": 1}\n'),
        lambda: (root / "references.bib").write_text("@misc{a}\n"),
    ]
    for change in changes:
        change()
        now = digest()
        assert now not in seen
        seen.add(now)
    assert digest(overrides=[("X", "2")]) not in seen
    assert digest(measurements=None) not in seen


def test_the_cache_hands_back_a_run_only_for_its_digest_and_intact(tmp_path):
    c = ChapterCache(tmp_path / "cache")
    rel = Path("chapters/01-one.ipynb")
    executed = tmp_path / "run.ipynb"
    executed.write_text("executed once")
    assert c.lookup(rel, "a" * 64) is None and c.last_seconds(rel) is None
    c.store(rel, "a" * 64, executed, 12.5)
    entry, secs = c.lookup(rel, "a" * 64)
    assert entry.read_text() == "executed once" and secs == 12.5 and c.last_seconds(rel) == 12.5
    assert c.lookup(rel, "b" * 64) is None
    assert c.lookup(Path("chapters/02-two.ipynb"), "a" * 64) is None
    entry.write_text("edited by hand")
    assert c.lookup(rel, "a" * 64) is None                      # damaged: executed again
    for i in range(cache_mod.KEEP_PER_CHAPTER + 2):
        c.store(rel, f"{i:064x}", executed, float(i))
    kept = [f"{i:064x}" for i in range(cache_mod.KEEP_PER_CHAPTER + 2) if c.lookup(rel, f"{i:064x}")]
    assert len(kept) == cache_mod.KEEP_PER_CHAPTER and kept[-1] == f"{cache_mod.KEEP_PER_CHAPTER + 1:064x}"
    assert len(list(c.folder.glob("*.ipynb"))) == cache_mod.KEEP_PER_CHAPTER


@pytest.mark.parametrize("text", ["0", "-1", "65", "2.5", "two", "2; touch x", " "])
def test_jobs_is_a_small_positive_integer(text):
    if text.strip():
        with pytest.raises(ParameterError, match="an integer from 1 to 64"):
            jobs_from(text)
    else:
        assert jobs_from(text) == max(1, os.cpu_count() or 1)
    assert jobs_from("3") == 3 and jobs_from(None) >= 1


def run(root: Path, *args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "costbook.book.execute", "--project", str(root),
                           "--out", str(root / "build" / "chapters"), *args],
                          capture_output=True, text=True, timeout=900, env={**os.environ, **(env or {})})


def _outcome(log: str) -> dict:
    """{chapter: 'executed' | 'reused'} from the runner's table."""
    rows = {}
    for line in log.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].startswith("chapters/") and parts[2] in ("executed", "reused"):
            rows[parts[0]] = parts[2]
    return rows


def test_chapters_run_side_by_side_and_are_reused_until_an_input_changes(tmp_path):
    root = project(tmp_path)
    first = run(root, "--jobs", "2")
    assert first.returncode == 0, first.stderr
    assert "executing 2 chapters, 2 at a time" in first.stdout
    assert _outcome(first.stdout) == {"chapters/01-one.ipynb": "executed", "chapters/02-two.ipynb": "executed"}
    out = root / "build" / "chapters" / "chapters"
    assert "3 * 5 * 17 * 257" in out.joinpath("02-two.ipynb").read_text()
    assert "\r" not in first.stdout + first.stderr and "total" in first.stdout
    assert all(len(line) < 300 for line in (first.stdout + first.stderr).splitlines())

    again = run(root)
    assert again.returncode == 0, again.stderr
    assert _outcome(again.stdout) == {"chapters/01-one.ipynb": "reused", "chapters/02-two.ipynb": "reused"}
    assert "reused   chapters/01-one.ipynb" in again.stdout and "started" not in again.stdout

    out.joinpath("01-one.ipynb").unlink()                     # a reused chapter is put back
    notebook(root / "chapters" / "02-two.ipynb", "print(2^12)")
    third = run(root, env={"COSTBOOK_JOBS": "1"})
    assert third.returncode == 0, third.stderr
    assert _outcome(third.stdout) == {"chapters/01-one.ipynb": "reused", "chapters/02-two.ipynb": "executed"}
    assert "2^10" in out.joinpath("01-one.ipynb").read_text() and "4096" in out.joinpath("02-two.ipynb").read_text()

    forced = run(root, "--force")
    assert forced.returncode == 0, forced.stderr
    assert _outcome(forced.stdout) == {"chapters/01-one.ipynb": "executed", "chapters/02-two.ipynb": "executed"}
    fresh = run(root, env={"COSTBOOK_FRESH": "1", "COSTBOOK_JOBS": "1"})
    assert fresh.returncode == 0, fresh.stderr
    assert _outcome(fresh.stdout) == {"chapters/01-one.ipynb": "executed", "chapters/02-two.ipynb": "executed"}


def test_a_failing_chapter_fails_the_run_in_one_line_and_is_not_cached(tmp_path):
    root = project(tmp_path)
    notebook(root / "chapters" / "02-two.ipynb", "1/0")
    r = run(root, "--jobs", "2")
    assert r.returncode == 1
    assert "execute: error: chapters/02-two.ipynb failed, so nothing was rendered: ZeroDivisionError" in r.stderr
    assert not list((root / "build" / "cache" / "chapters").glob("chapters__02-two.*.ipynb"))
    bad = run(root, env={"COSTBOOK_JOBS": "2; touch x"})
    assert bad.returncode == 2 and "JOBS='2; touch x'" in bad.stderr and not (root / "x").exists()


def test_make_book_reuses_a_measurement_file_of_its_profile_measured_after_the_install(tmp_path):
    ref = next((ROOT / "measurements" / "reference").glob("*.json"))
    stamp = tmp_path / ".installed"
    stamp.write_text("")
    meas = tmp_path / "this-machine.json"
    assert reusable(meas, stamp, "full")[0] is False                  # none yet
    meas.write_bytes(ref.read_bytes())
    os.utime(stamp, (1, 1))
    ok, why = reusable(meas, stamp, "full")                           # the reference file: profile full
    assert ok and "reusing" in why
    assert reusable(meas, stamp, "quick")[0] is False
    os.utime(meas, (0, 0))
    assert "older than" in reusable(meas, stamp, "full")[1]
    os.utime(meas, None)
    meas.write_text("{not json")
    assert reusable(meas, stamp, "full")[0] is False


def test_make_passes_jobs_fresh_and_profile_without_a_shell(tmp_path):
    marker = tmp_path / "pwned"
    hostile = f'1"; touch {marker}; "'
    r = subprocess.run(["make", "--no-print-directory", "-n", "-o", ".venv/.installed", "book",
                        f"JOBS={hostile}", f"FRESH={hostile}", f"PROFILE={hostile}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "touch" not in r.stdout and not marker.exists()
    assert "costbook.book execute --out build/chapters" in r.stdout
    # make book measures through the runner (the profile reaches it in the environment, unexpanded)
    assert "--measure-after .venv/.installed" in r.stdout and "costbook measure" not in r.stdout


MEASURE_STAND_IN = """
import pathlib, sys, time
import psutil
meas, chapters, kernels, code = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def started():
    n = 0
    for p in psutil.process_iter():
        try:
            n += p.cwd() == chapters          # a chapter's kernel runs in its chapter's folder
        except psutil.Error:
            pass
    return n

deadline = time.monotonic() + 120
while started() < kernels:
    if time.monotonic() > deadline:
        sys.exit(f"stand-in: fewer than {kernels} kernels started while measuring")
    time.sleep(0.05)
if code:
    sys.exit(code)
tmp = pathlib.Path(meas + ".part")
tmp.write_text("measured just now")
tmp.replace(meas)
"""


def run_with_measurement(root: Path, measurements: Path, kernels: int, exit_code: int) -> subprocess.CompletedProcess:
    """The runner in a process of its own, measuring first with a stand-in for `costbook measure`
    that waits until `kernels` chapter kernels have started beside it (observed, not assumed after
    a fixed sleep), then writes `measurements` (or exits with `exit_code`)."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from costbook.book.execute import Job, run_chapters\n"
        "root, meas = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "jobs = [Job(root / 'chapters' / n, Path('chapters') / n, root / 'out' / n) for n in ('01-one.ipynb', '02-two.ipynb')]\n"
        "measure = [sys.executable, '-c', sys.argv[3], str(meas), str(root / 'chapters'), sys.argv[4], sys.argv[5]]\n"
        "sys.exit(run_chapters(root, jobs, meas, [], 2, None, False, 'execute', measure))\n")
    return subprocess.run([sys.executable, "-c", script, str(root), str(measurements), MEASURE_STAND_IN,
                           str(kernels), str(exit_code)], capture_output=True, text=True, timeout=900)


READS_THE_MEASUREMENT = ("import os\nfrom costbook.writing import report\n"
                         "print(open(os.environ['COSTBOOK_MEASUREMENTS']).read(), '__costbook_warm' in globals())")


def test_the_chapters_kernels_start_while_measuring_and_run_after_it(tmp_path):
    root = project(tmp_path / "p")
    for name in ("01-one.ipynb", "02-two.ipynb"):
        notebook(root / "chapters" / name, READS_THE_MEASUREMENT)
    meas = tmp_path / "this-machine.json"                   # none yet: a chapter run early would fail
    r = run_with_measurement(root, meas, 1, 0)         # measured once the first kernel has started
    assert r.returncode == 0, r.stdout + r.stderr
    assert "measuring this machine first" in r.stdout
    # the first chapter's kernel starts at once, beside the measurement
    assert "executed chapters/01-one.ipynb in" in r.stdout and "(its kernel started while measuring)" in r.stdout
    for name in ("01-one.ipynb", "02-two.ipynb"):
        nb = nbformat.read(root / "out" / name, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        # the warm-up imports left no output, no execution count and no name behind
        assert code[0].execution_count == 1
        assert [o.get("text") for o in code[0].outputs] == ["measured just now False\n"]


def test_a_failed_measurement_runs_no_chapter_and_ends_the_waiting_kernels(tmp_path):
    import psutil
    root = project(tmp_path / "p")
    for name in ("01-one.ipynb", "02-two.ipynb"):
        notebook(root / "chapters" / name, READS_THE_MEASUREMENT)
    meas = tmp_path / "this-machine.json"
    # fails once the second kernel has started: the first is then warmed and waiting, the second warming
    r = run_with_measurement(root, meas, 2, 3)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "execute: error: the measurement failed (exit code 3), so no chapter ran" in r.stderr
    assert not (root / "out").exists() and not meas.exists()
    chapters = str(root / "chapters")
    left = []
    for p in psutil.process_iter():
        try:
            if p.cwd() == chapters:            # a chapter's kernel runs in its chapter's folder
                left.append(p.pid)
        except psutil.Error:
            pass
    assert left == []
