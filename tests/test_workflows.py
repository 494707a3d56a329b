"""The GitHub Actions workflows are valid, so that a broken one fails here and not on the readers' CI.

The linter is check-jsonschema (pinned in requirements.txt, installed by `make setup`) with the
GitHub workflow schema it ships (`vendor.github-workflows`: SchemaStore's published schema, vendored
at the pinned version, so the check needs no network).  Beside the schema, what the book's users
rely on: one workflow runs `make test` (the README's command, strict nbval included) after setting
up as the README says, and one renders and publishes the book with Quarto's own actions.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"


def lint(*files: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           *map(str, files)], capture_output=True, text=True, timeout=120)


def workflows() -> dict[str, dict]:
    # PyYAML reads the key `on` as True (YAML 1.1); the schema check reads it as GitHub does
    return {p.name: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(WORKFLOWS.glob("*.yml"))}


def steps(workflow: dict) -> list[dict]:
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def test_every_workflow_passes_the_linter():
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert len(files) >= 2
    done = lint(*files)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("break_it, expected", [
    (lambda w: w["jobs"]["make-test"].pop("runs-on"), "runs-on"),                     # a job with no runner
    (lambda w: w["jobs"]["make-test"].__setitem__("step", w["jobs"]["make-test"].pop("steps")), "step"),
    (lambda w: w["jobs"]["make-test"]["steps"][0].__setitem__("uses", 3), "uses"),    # not an action reference
    (lambda w: w.__setitem__(True, {"push": {"branches": "main", "tags-ignore": 1}}), "tags-ignore"),
])
def test_the_linter_fails_on_a_broken_copy(tmp_path, break_it, expected):
    """A deliberately broken copy of the test workflow is refused, naming what is wrong."""
    workflow = yaml.safe_load((WORKFLOWS / "test.yml").read_text(encoding="utf-8"))
    break_it(workflow)
    text = yaml.safe_dump(workflow, sort_keys=False).replace("true:", "on:", 1)
    broken = tmp_path / "broken.yml"
    broken.write_text(text, encoding="utf-8")
    done = lint(broken)
    assert done.returncode != 0, text
    assert expected in done.stdout + done.stderr


def test_a_workflow_runs_make_test_as_the_readme_sets_up():
    found = [w for w in workflows().values() if any(s.get("run", "").strip() == "make test" for s in steps(w))]
    assert found, "no workflow runs `make test`"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python3.11-venv make" in readme and "Debian 12" in readme
    setup = " ".join(s.get("run", "") for s in steps(found[0]))
    assert "python3.11-venv" in setup and "make" in setup.split()
    job = next(iter(found[0]["jobs"].values()))
    assert str(job.get("container", "")).startswith("debian:12")


def test_a_workflow_publishes_the_book_with_quartos_actions():
    found = [w for w in workflows().values()
             if any(str(s.get("uses", "")).startswith("quarto-dev/quarto-actions/publish@") for s in steps(w))]
    assert found, "no workflow publishes with quarto-dev/quarto-actions/publish"
    uses = [str(s.get("uses", "")) for s in steps(found[0])]
    assert any(u.startswith("quarto-dev/quarto-actions/setup@") for u in uses)
    publish = next(s for s in steps(found[0]) if str(s.get("uses", "")).startswith("quarto-dev/quarto-actions/publish@"))
    assert publish["with"]["target"] == "gh-pages"
    assert found[0]["permissions"]["contents"] == "write"      # publish pushes the gh-pages branch
    runs = [s.get("run", "").strip() for s in steps(found[0])]
    # only what the render needs (MathJax, the notebook filter's Python, the post-render PDF), not Sage
    assert "make setup-publish" in runs and "make setup" not in runs
    setup_python = next(s for s in steps(found[0]) if str(s.get("uses", "")).startswith("actions/setup-python@"))
    assert setup_python["with"]["cache"] == "pip"
    names = lambda text: {line.split("#")[0].strip().lower() for line in text.splitlines()} - {""}
    pinned = {line.split("==")[0].strip().lower().replace("_", "-") for line in
              (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines() if "==" in line}
    assert names((ROOT / "requirements-publish.txt").read_text(encoding="utf-8")) <= pinned


def _first_publish_step(workflow: dict) -> dict:
    ordered = steps(workflow)
    publish = next(i for i, s in enumerate(ordered) if str(s.get("uses", "")).startswith("quarto-dev/quarto-actions/publish@"))
    made = [s for s in ordered[:publish] if "gh-pages" in s.get("run", "")]
    assert made, "no step before publish makes sure the remote has a gh-pages branch"
    return made[0]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_the_first_publish_creates_the_gh_pages_branch_and_says_what_to_set(tmp_path):
    """quarto publish gh-pages stops in CI when the remote has no gh-pages branch: the workflow's step
    before it creates one (empty), says once which Pages settings to choose, and leaves an existing
    branch alone.  Run here, as the runner would, against a local remote."""
    step = _first_publish_step(workflows()["book.yml"])
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    _git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    _git(tmp_path, "init", "--quiet", "-b", "main", str(work))
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "book")
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "--quiet", "origin", "main")
    run = lambda: subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, capture_output=True, text=True, timeout=60)

    first = run()
    assert first.returncode == 0, first.stderr
    branch = _git(origin, "rev-parse", "refs/heads/gh-pages")
    assert _git(origin, "ls-tree", branch) == ""                   # an empty tree: nothing of main published
    assert "::notice" in first.stdout and "Settings > Pages" in first.stdout and "gh-pages" in first.stdout
    assert _git(origin, "rev-parse", "refs/heads/main") != branch

    again = run()
    assert again.returncode == 0, again.stderr
    assert _git(origin, "rev-parse", "refs/heads/gh-pages") == branch and "::notice" not in again.stdout
