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
    runs = " ".join(s.get("run", "") for s in steps(found[0]))
    assert "make setup" in runs             # the kernel's Python and the MathJax _quarto.yml ships
