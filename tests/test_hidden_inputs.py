"""An estimate takes its prices from the source it is given, and from nothing else.

``COSTBOOK_MEASUREMENTS`` names the file the chapters render from (``--source book``).  A published
estimate (``--source published``: the seed's prices, completed where a scheme must by the committed
reference machine's ratios) must not change when it points at another machine.
"""
import contextlib
import io
import json
from pathlib import Path

import pytest

from costbook.cli import commands as cli
from costbook.prices import measurements
from costbook import schemes


def _absurd_machine(path):
    """The reference file with every price a thousand times higher: valid, and wrong."""
    data = measurements.load_source("reference").to_json()
    data["name"] = "absurd-machine"
    for entries in data["results"].values():
        for e in entries.values():
            for field in ("median", "q1", "q3", "mad"):
                if field in e:
                    e[field] *= 1000
    measurements.write_atomic(data, path)
    return path


def _run(argv) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    assert code == 0, argv
    return out.getvalue()


@pytest.fixture(scope="module")
def absurd(tmp_path_factory):
    return _absurd_machine(tmp_path_factory.mktemp("hidden") / "absurd.json")


def test_the_absurd_machine_is_in_effect(absurd, monkeypatch):
    """What `book` means does change with the variable, so the comparison below can fail."""
    monkeypatch.delenv("COSTBOOK_MEASUREMENTS", raising=False)
    plain = _run(["estimate", "--counts", '{"bls12_381/pairing": 1}', "--source", "book", "--json"])
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(absurd))
    changed = _run(["estimate", "--counts", '{"bls12_381/pairing": 1}', "--source", "book", "--json"])
    assert json.loads(changed)["total_s"] == pytest.approx(1000 * json.loads(plain)["total_s"])


TOYS = sorted(d.name for d in (Path(__file__).resolve().parent / "toy_schemes").iterdir() if (d / "model.py").is_file())


@pytest.mark.parametrize("scheme", sorted(schemes.REGISTRY) + TOYS)
def test_published_estimate_ignores_the_environment(scheme, absurd, monkeypatch, request):
    if scheme in TOYS:
        request.getfixturevalue("toy_scheme")
    argv = ["estimate", scheme, "--source", "published", "--json"]
    monkeypatch.delenv("COSTBOOK_MEASUREMENTS", raising=False)
    unset = _run(argv)
    monkeypatch.setenv("COSTBOOK_MEASUREMENTS", str(absurd))
    assert _run(argv) == unset
