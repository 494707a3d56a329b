"""curve25519-dalek 2.0.0, the punch-card seed's library: the committed measurement and the runner that
rewrites it (``costbook measure-dalek``), tested without a Rust toolchain by standing in a script for
the Rust program."""
import json
import stat

import pytest

from costbook.prices import measurements
from costbook.timing.backends import curve25519_dalek as dalek
from costbook.timing.measure import measure_dalek


def test_the_committed_file_prices_every_key_the_seed_laptop_scales():
    m = dalek.load_committed()
    assert m.kind == "measured" and m.backends == [dalek.BACKEND]
    assert set(m.keys(dalek.BACKEND)) == set(dalek.KEYS)
    assert "curve25519-dalek 2.0.0" in m.provenance["libraries"]
    # the library's fixed-base table and an encoding cost a fraction of a variable-base multiplication
    mul = m.seconds(dalek.BACKEND, "ristretto255/mul")
    assert all(m.seconds(dalek.BACKEND, k) < mul for k in dalek.KEYS if k != "ristretto255/mul")


def _output(**override):
    results = {k: {"batch": 4, "per_op": [2e-6, 1e-6, 3e-6]} for k in dalek.KEYS}
    results.update(override)
    return json.dumps({"library": "x", "results": results})


def test_parse_output_summarises_the_samples():
    out = dalek.parse_output(_output())
    e = out["ristretto255/mul"]
    assert (e["median"], e["min"], e["samples"], e["batch"]) == (2e-6, 1e-6, 3, 4)


@pytest.mark.parametrize("text,says", [
    ("not json", "printed no JSON"),
    (json.dumps({"results": []}), "no 'results' object"),
    (json.dumps({"results": {"ristretto255/mul": {"batch": 1, "per_op": [1e-6]}}}), "lacks ristretto255/mul_base"),
    (_output(**{"ristretto255/decode": {"batch": 1, "per_op": []}}), "ristretto255/decode: samples"),
    (_output(**{"ristretto255/decode": {"batch": 1, "per_op": [-1e-6]}}), "ristretto255/decode: samples"),
    (_output(**{"ristretto255/decode": {"batch": 0, "per_op": [1e-6]}}), "ristretto255/decode: samples"),
])
def test_parse_output_names_what_is_wrong(text, says):
    with pytest.raises(dalek.DalekUnavailable, match=says):
        dalek.parse_output(text)


def _fake_binary(tmp_path, script: str):
    path = tmp_path / "fake-bench"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_measure_writes_a_valid_file_and_a_failed_run_leaves_the_previous_one(tmp_path, monkeypatch):
    out = tmp_path / "dalek.json"
    good = tmp_path / "good.json"
    good.write_text(_output())
    monkeypatch.setattr(dalek, "build", lambda target_dir: _fake_binary(tmp_path, f"cat {good}\n"))
    measure_dalek("quick", out=out)
    first = out.read_bytes()
    m = measurements.load(out)
    assert m.seconds(dalek.BACKEND, "ristretto255/mul") == 2e-6
    assert m.provenance["command"] == "costbook measure-dalek --profile quick"

    monkeypatch.setattr(dalek, "build", lambda target_dir: _fake_binary(tmp_path, "echo boom >&2; exit 3\n"))
    with pytest.raises(dalek.DalekUnavailable, match="exit 3"):
        measure_dalek("quick", out=out)
    monkeypatch.setattr(dalek, "build", lambda target_dir: _fake_binary(tmp_path, "echo '{\"results\": {}}'\n"))
    with pytest.raises(dalek.DalekUnavailable, match="lacks"):
        measure_dalek("quick", out=out)
    assert out.read_bytes() == first


def test_without_cargo_the_error_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(dalek.shutil, "which", lambda name: None)
    with pytest.raises(dalek.DalekUnavailable, match="cargo is not installed"):
        dalek.build(tmp_path)


def test_the_command_without_cargo_fails_in_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    from costbook.cli.commands import main
    monkeypatch.setattr(dalek.shutil, "which", lambda name: None)
    out = tmp_path / "d.json"
    assert main(["measure-dalek", "--profile", "quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("costbook: error: cargo is not installed") and not out.exists()
