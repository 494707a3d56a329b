"""Appendix B ("Machines side by side") takes any machine file that `costbook check` accepts in its folder.

Ordinary contributions stopped the book: a contributed file lacking a primitive (MissingPrice, and
then KeyError: 'seed' in the appendix's prose), a seed's published file placed in
measurements/contributed/, a public file without a completion (KeyError: 'completion').  The checker
and the book now agree: check refuses a file of the wrong kind for its folder, the book leaves such a
file out, and every file check accepts is listed, priced where its primitives allow, and said to
price nothing where they do not.  The appendix's code cells run here as the chapter runs them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from IPython import display as ipython_display  # noqa: E402

from costbook.cli import commands as cli
from costbook.views import machines
from costbook.prices import measurements  # noqa: E402
from test_machines_hostile import run_cell  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "91-machines.ipynb"
REFERENCE = json.loads(measurements.reference_path().read_text(encoding="utf-8"))


def appendix(known: list) -> list:
    """What the appendix's cells show with `known` as the book's machines; an exception stops it."""
    shown = []
    mp = pytest.MonkeyPatch()
    mp.setattr(machines, "known_machines", lambda: list(known))
    mp.setattr(ipython_display, "display", lambda *objs, **kw: shown.extend(objs))
    try:
        namespace: dict = {}
        for cell in nbformat.read(CHAPTER, as_version=4).cells:
            if cell.cell_type == "code":
                shown += run_cell(cell.source, namespace)
    finally:
        plt.close("all")
        mp.undo()
    return shown


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project root whose measurements/contributed and public folders are the test's."""
    for name in ("contributed", "public"):
        (tmp_path / "measurements" / name).mkdir(parents=True)
    for other in (ROOT / "measurements").iterdir():      # the reference, the seeds', the evidence: the book's
        if other.is_dir() and other.name not in ("contributed", "public"):
            (tmp_path / "measurements" / other.name).symlink_to(other)
    (tmp_path / "measurements" / "public" / "zkalc").symlink_to(ROOT / "measurements" / "public" / "zkalc")
    for name in ("_quarto.yml", "references.bib"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.setattr(measurements, "project_root", lambda: tmp_path)
    return tmp_path


def check(path: Path, capsys) -> tuple[int, str]:
    code = cli.main(["check", str(path)])
    return code, capsys.readouterr().err.strip()


def placed(project: Path, folder: str, name: str, data: dict) -> Path:
    path = project / "measurements" / folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_seed_file_in_contributed_is_refused_by_check_and_left_out_by_the_book(project, capsys):
    seed = json.loads(measurements.published_files()["seed-001-veccom"].read_text(encoding="utf-8"))
    path = placed(project, "contributed", "seed.json", seed)
    code, err = check(path, capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert "kind is 'published'" in err and "in its scheme's folder (published/)" in err
    mset = measurements.load(path)
    assert machines.misplaced("contributed", mset) is not None
    # the same file elsewhere is fine for check (a seed's file is valid where seeds live)
    elsewhere = project / "seed.json"
    shutil.copy(path, elsewhere)
    assert check(elsewhere, capsys)[0] == 0


def test_a_public_file_without_completion_is_listed_as_not_completed(project, capsys):
    public = json.loads((ROOT / "measurements" / "public" / "aws-m6i-8xlarge.json").read_text(encoding="utf-8"))
    public["provenance"].pop("completion")
    path = placed(project, "public", "bare.json", public)
    assert check(path, capsys)[0] == 0
    mset = measurements.load(path)
    ref = measurements.load_source("reference")
    known = [machines.Machine("reference", "reference", measurements.machine_words(ref), ref),
             machines.Machine("public/bare", "public", measurements.machine_words(mset), mset)]
    shown = appendix(known)
    table = next(o for o in shown if hasattr(o, "to_text") and "prices from" in o.to_text())
    assert "not completed: only the prices it states" in table.to_text()


def test_a_contributed_file_that_prices_nothing_is_said_so(project):
    data = json.loads(json.dumps(REFERENCE))
    backend = next(iter(data["results"]))
    data["results"] = {backend: dict(list(data["results"][backend].items())[:1])}
    mset = measurements.validate(data, "tiny.json", on_disk=True)
    ref = measurements.load_source("reference")
    known = [machines.Machine("reference", "reference", measurements.machine_words(ref), ref),
             machines.Machine("contributed/tiny", "contributed", "tiny", mset)]
    prose = " ".join(o.data for o in appendix(known) if isinstance(o, ipython_display.Markdown))
    assert "The file of tiny prices no headline step (" in prose


@pytest.mark.parametrize("profile, said", [("quick", "measured with the book's harness (quick profile)"),
                                           ("full", "measured with the book's harness (full profile)")])
def test_a_contributed_file_is_said_to_be_measured_with_the_profile_it_states(profile, said):
    """A quick-profile file (and a zkalc import) placed in contributed/ was said to be "measured with
    the book's harness (full profile)"; it says the profile its file states (check refuses a measured
    file that states none, and a zkalc import in contributed/)."""
    data = json.loads(json.dumps(REFERENCE))
    data["provenance"]["profile"] = {**data["provenance"]["profile"], "name": profile}
    mset = measurements.validate(data, "mine.json", on_disk=True)
    ref = measurements.load_source("reference")
    text = machines.machine_table([machines.Machine("reference", "reference", measurements.machine_words(ref), ref),
                                   machines.Machine("contributed/mine", "contributed", "mine", mset)]).to_text()
    row = next(line for line in text.splitlines() if line.lstrip().startswith("mine"))
    assert said in row, text


@st.composite
def contributed_files(draw):
    """The reference file as a reader might send it: backends and keys left out, another kind, fields
    of its provenance missing."""
    data = json.loads(json.dumps(REFERENCE))
    backends = sorted(data["results"])
    kept = draw(st.lists(st.sampled_from(backends), min_size=1, max_size=len(backends), unique=True))
    data["results"] = {b: data["results"][b] for b in kept}
    for b in kept:
        keys = sorted(data["results"][b])
        drop = draw(st.lists(st.sampled_from(keys), max_size=min(len(keys) - 1, 12), unique=True))
        data["results"][b] = {k: v for k, v in data["results"][b].items() if k not in drop}
    data["kind"] = draw(st.sampled_from(["measured", "measured", "published", "public"]))
    for field in draw(st.lists(st.sampled_from(sorted(data["provenance"])), max_size=3, unique=True)):
        data["provenance"].pop(field)
    return data


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=contributed_files())
def test_check_and_the_book_accept_the_same_contributed_files(project, capsys, data):
    path = placed(project, "contributed", "mine.json", data)
    code, err = check(path, capsys)
    listed = [m for m in _known_from(project) if m.kind == "contributed"]
    if code != 0:
        assert len(err.splitlines()) == 1 and err.startswith("costbook: error:"), err
        assert listed == []                  # refused by check: not a machine of the book either
        return
    assert len(listed) == 1
    appendix([_known_from(project)[0], *listed])      # must not raise


def _known_from(project: Path) -> list:
    """known_machines() over the test's folders, its reference the project's own (a refused file: not listed)."""
    try:
        return machines.known_machines()
    except measurements.MeasurementFileError:
        return [machines.Machine("reference", "reference", "", measurements.load_source("reference"))]
