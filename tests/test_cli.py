"""`costbook estimate` and friends, run as a reader would run them."""
import json
import subprocess
import sys

import pytest

from costbook.prices import measurements
from costbook.cli.commands import main

COUNTS = '{"modexp/6144/256": 1, "modexp/6144/3072": 4}'


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_estimate_counts_against_a_published_file(capsys):
    code, out, _ = run(capsys, "estimate", "--counts", COUNTS, "--source",
                       "published/seed-002-crypto-bigint", "--backend", "crypto-bigint-rounded", "--json")
    assert code == 0
    d = json.loads(out)
    # 6.5 + 4 x 75.3 ms: the seed's "aggressive" encryption formula, from its own prices
    assert d["total_s"] * 1e3 == pytest.approx(307.7)
    assert {l["backend"] for l in d["breakdown"]} == {"crypto-bigint-rounded"}


def test_estimate_counts_against_the_reference_file(capsys):
    code, out, _ = run(capsys, "estimate", "--counts", COUNTS, "--source", "reference",
                       "--backend", "gmp", "--json")
    ref = measurements.load(measurements.reference_path())
    expected = ref.seconds("gmp", "modexp/6144/256") + 4 * ref.seconds("gmp", "modexp/6144/3072")
    assert code == 0 and json.loads(out)["total_s"] == pytest.approx(expected)


def test_estimate_counts_against_a_file_measured_here(tmp_path, capsys):
    out_file = tmp_path / "here.json"
    assert main(["measure", "--profile", "quick", "--only", "modexp/2048/256", "--only", "sha256/64B",
                 "--backend", "gmp,python", "--out", str(out_file), "--no-progress"]) == 0
    capsys.readouterr()
    here = measurements.load(out_file)
    assert here.kind == "measured" and set(here.keys()) == {"modexp/2048/256", "sha256/64B"}
    assert here.provenance["machine"]["cores"] >= 1 and "gmpy2" in here.provenance["libraries"]
    code, out, _ = run(capsys, "estimate", "--counts", '{"modexp/2048/256": 2, "sha256/64B": 10}',
                       "--source", str(out_file), "--json")
    d = json.loads(out)
    assert code == 0
    assert d["total_s"] == pytest.approx(2 * here.seconds("gmp", "modexp/2048/256")
                                         + 10 * here.seconds("python", "sha256/64B"))


def test_measure_with_a_filter_refines_an_existing_file(tmp_path, capsys):
    out_file = tmp_path / "here.json"
    main(["measure", "--only", "sha256/64B", "--out", str(out_file), "--no-progress"])
    main(["measure", "--only", "sha512/64B", "--out", str(out_file), "--no-progress"])
    capsys.readouterr()
    m = measurements.load(out_file)
    assert set(m.keys()) == {"sha256/64B", "sha512/64B"}
    assert len(m.provenance["history"]) == 1            # the first run stays on record


def test_clear_errors(capsys, tmp_path):
    code, _, err = run(capsys, "estimate", "--counts", '{"modexp/6144/99": 1}', "--source",
                       "published/seed-002-crypto-bigint")
    assert code == 2 and "no price for 'modexp/6144/99'" in err
    code, _, err = run(capsys, "estimate", "--counts", '{"pairing": 1}', "--source", "reference")
    assert code == 2 and "unknown primitive key 'pairing'" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "costbook-measurements/1"}')
    code, _, err = run(capsys, "estimate", "--counts", COUNTS, "--source", str(bad))
    assert code == 2 and f"{bad}: name: missing" in err
    code, out, err = run(capsys, "check", str(bad))
    assert code == 2 and out == "" and err == f"costbook: error: {bad}: name: missing\n"
    code, _, err = run(capsys, "measure", "--only", "no-such-key/*", "--out", str(tmp_path / "x.json"),
                       "--no-progress")
    assert code == 2 and "--only: nothing matches 'no-such-key/*'" in err
    assert not (tmp_path / "x.json").exists()


def test_console_script_is_installed():
    exe = __import__("shutil").which("costbook") or str(__import__("pathlib").Path(sys.executable).parent / "costbook")
    r = subprocess.run([exe, "check", str(measurements.reference_path())], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("ok")


def test_scheme_options_are_checked():
    from types import SimpleNamespace
    from costbook.cli.commands import _extra_options, scheme_options
    toy = SimpleNamespace(OPTIONS={"params": ("aggressive", ["aggressive", "conservative"]), "n": (16, None)})
    assert scheme_options(toy, {}) == {"params": "aggressive", "n": 16}
    assert scheme_options(toy, _extra_options(["--n", "64", "--params=conservative"])) == \
        {"params": "conservative", "n": 64}
    with pytest.raises(ValueError, match="must be positive"):
        scheme_options(toy, {"n": "0"})
    with pytest.raises(ValueError, match="must be an integer"):
        scheme_options(toy, {"n": "many"})
    with pytest.raises(ValueError, match="must be one of aggressive, conservative"):
        scheme_options(toy, {"params": "reckless"})
    with pytest.raises(ValueError, match=r"unknown option\(s\) --m"):
        scheme_options(toy, {"m": "4"})
    with pytest.raises(ValueError, match="needs a value"):
        _extra_options(["--n"])


def test_unknown_scheme(capsys):
    code, _, err = run(capsys, "estimate", "no-such-scheme")
    assert code == 2 and "unknown scheme 'no-such-scheme'" in err


def test_every_command_prints_its_help(capsys):
    """`costbook COMMAND --help` of every command prints its help and exits 0 (argparse formats help
    with %: a bare percent sign in a help text made one command's help an internal error)."""
    from costbook.cli.commands import parser
    commands = parser()._subparsers._group_actions[0].choices
    assert {"measure", "estimate", "validate", "check"} <= set(commands)
    for name in commands:
        code, out, err = run(capsys, name, "--help")
        assert code == 0 and f"usage: costbook {name}" in out, (name, err)
