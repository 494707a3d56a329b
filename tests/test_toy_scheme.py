"""The toy scheme (tests/toy_schemes/schnorr) goes through every layer by its folder alone.

Nothing in costbook names it: the fixture ``toy_scheme`` (conftest.py) puts tests/toy_schemes on
``costbook.schemes.__path__`` and installs what the folder brings (its published file, its chapter,
its bibliography) into a temporary book, as a newcomer would copy them into this one.  Then the CLI
estimates and validates it, the ledger and the comparison chapter list it, the offline renderer
renders its chapter, and the contract tests (tests/test_architecture.py) run on it.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from costbook import schemes
from costbook.cli.commands import main

TOY = Path(__file__).resolve().parent / "toy_schemes" / "schnorr"


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_toy_is_discovered_only_with_its_folder(toy_scheme):
    assert schemes.REGISTRY["schnorr"] == "costbook.schemes.schnorr.model"
    assert schemes.get("schnorr").__file__ == str(TOY / "model.py")


def test_without_its_folder_there_is_no_toy():
    assert "schnorr" not in schemes.REGISTRY
    with pytest.raises(KeyError, match="unknown scheme 'schnorr'"):
        schemes.get("schnorr")


def test_costbook_estimate(toy_scheme, capsys):
    code, out, err = run(["estimate", "schnorr", "--json"], capsys)       # --source published
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["source"] == "published/toy-schnorr-laptop"
    # 4 signatures at 20 + 4 + 0.6 µs, 4 verifications at 5 + 5 + 0.6 + 20 + 50 µs, one key
    assert result["steps"]["sign"]["seconds"] == pytest.approx(4 * 24.6e-6)
    assert result["steps"]["verify"]["seconds"] == pytest.approx(4 * 80.6e-6)
    assert result["total_s"] == pytest.approx(20e-6 + 4 * 24.6e-6 + 4 * 80.6e-6)
    code, out, err = run(["estimate", "schnorr", "--source", "reference", "--messages", "64", "--wire", "points"], capsys)
    assert code == 0 and "64 signatures (wire: points)" in out and "priced with reference" in out


@pytest.mark.parametrize("argv, phrase", [
    (["estimate", "schnorr", "--messages", "0"], "--messages must be an integer in [1, 64], got '0'"),
    (["estimate", "schnorr", "--messages", "65"], "--messages must be an integer in [1, 64]"),
    (["estimate", "schnorr", "--messages", "nan"], "--messages must be an integer"),
    (["estimate", "schnorr", "--wire", "carrier-pigeon"], "--wire"),
    (["estimate", "schnorr", "--nope", "1"], "--nope"),
    (["estimate", "schnorr", "--messages", "2", "--messages", "3"], "--messages given twice"),
    (["estimate", "schnorr", "--source", "nosuch.json"], "nosuch.json"),
    (["validate", "schnorr", "--wire", "bytes", "--nope", "1"], "--nope"),
])
def test_bad_inputs_are_refused_in_one_line(toy_scheme, capsys, argv, phrase):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith("costbook: error: ") and err.count("\n") == 1 and phrase in err
    assert "Traceback" not in err


def test_costbook_validate(toy_scheme, capsys):
    """The CLI runs the toy's validation (a tiny profile: about a second) in three spawned interpreters
    when asked (--processes 3), each of which finds the toy where this process does, and reports each
    step's median process.
    Timing, so only its shape is checked here; tests/test_validation_bounds.py checks its bounds with
    the other schemes."""
    code, out, err = run(["validate", "schnorr", "--messages", "1", "--processes", "3", "--json"], capsys)
    assert (code, err) == (0, "")
    result = json.loads(out)
    checks = result["runs"][0]["checks"]
    assert [c["step"] for c in checks] == ["keygen", "sign", "verify"] and result["processes"] == 3
    assert all(c["predicted_s"] > 0 and c["measured_s"] > 0 for c in checks)
    assert all(len(c["process_errors"]) == 3 and c["error"] == sorted(c["process_errors"])[1] for c in checks)


def test_the_protocol_signs_and_refuses_forgeries(toy_scheme):
    import importlib
    import random
    S = importlib.import_module("costbook.schemes.schnorr.schnorr")
    rng = random.Random(1)
    x, X = S.keygen(rng)
    m = bytes(32)
    sig = S.sign(x, m, rng)
    assert S.verify(X, m, sig, "points") and S.verify(X.encode(), m, sig, "bytes")
    assert not S.verify(X, bytes([1]) + m[1:], sig, "points")
    assert not S.verify(X, m, S.Signature(sig.R, (sig.s + 1) % S.G.ell), "points")
    assert not S.verify(X, m, S.Signature(sig.R, sig.s + S.G.ell), "points")      # s not canonical
    assert not S.verify(b"\xff" * 32, m, sig, "bytes") and not S.verify(X, m[:31], sig, "points")
    assert len(sig.to_bytes()) == S.SIGNATURE_BYTES


def test_the_ledger_lists_it_and_covers_every_figure_of_its_note(toy_scheme):
    from costbook.views import ledger
    rows = ledger.ledger("schnorr")
    assert "schnorr" in ledger.SCHEMES
    assert {r.status for r in rows} == {"echoed", "predicted", "computed"}
    assert [f for f, *_ in ledger.missing(rows) if "schnorr" in f] == []
    assert ledger.mismatches(rows) == []
    assert all(r.seed == "toy-schnorr-note" for r in rows)
    assert {r.book for r in rows if r.status == "predicted"} == {"25 µs", "81 µs"}


def test_the_comparison_chapter_has_its_rows(toy_scheme):
    from costbook.views import compare
    from costbook.prices import measurements
    assert compare.CHAPTERS["schnorr"] == ("Schnorr signatures (toy)", "sec-schnorr")
    assert list(compare.CHAPTERS)[-1] == "schnorr"                 # its chapter, 91-, comes last
    rows = compare.ROWS["schnorr"](measurements.load_source("reference"))
    assert [r.operation for r in rows] == ["sign", "verify"]
    assert all(r.reference_low_s <= r.reference_s <= r.reference_high_s for r in rows)
    assert rows[0].seed_s == pytest.approx(24.6e-6) and rows[0].printed_s == pytest.approx(25e-6)


def test_its_chapter_outputs_are_what_its_code_prints_now(toy_scheme):
    sys.path.insert(0, str(TOY.parent))
    try:
        from make_chapter import execute
    finally:
        sys.path.remove(str(TOY.parent))
    nb = json.loads((TOY / "chapter.ipynb").read_text())
    assert execute(nb["cells"]) == nb["cells"]


def test_the_offline_renderer_renders_its_chapter(toy_scheme, tmp_path):
    """In a book of the toy alone (the book's own chapters would only make the render longer)."""
    from conftest import install_toy_book
    alone = install_toy_book(tmp_path / "alone", [TOY], with_the_books_schemes=False)
    out = tmp_path / "html"
    r = subprocess.run([sys.executable, "-m", "costbook.book.render", "--project", str(alone), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    pages = {p.name: p.read_text() for p in out.rglob("*.html")}
    page = next(text for name, text in pages.items() if "schnorr" in name)
    assert "Schnorr signatures (toy)" in page
    assert "priced with published/toy-schnorr-laptop" in page
    assert "Schnorr" in page and "1991" in page                     # the citation, formatted
    assert "?@" not in page and "[@" not in page


def test_costbook_ledger_takes_the_toy(toy_scheme, capsys):
    code, out, err = run(["ledger", "--scheme", "schnorr", "--json"], capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["summary"] == {"computed": 1, "predicted": 2, "leave-one-out": 0, "fitted": 0,
                                          "echoed": 5, "rows": 8, "figures": 8}


def test_its_page_gets_the_live_estimate_with_no_core_edit(toy_scheme):
    """costbook.book.live exports the toy like any scheme: its options (choices in full, a numeric option
    at its default without a LIVE_GRID), its steps at every point for every machine, replayable."""
    from costbook.book import live
    from costbook import schemes
    data = live.export("schnorr")
    model = schemes.get("schnorr")
    assert [o["name"] for o in data["options"]] == list(model.OPTIONS)
    assert [m["id"] for m in data["machines"]][:2] == ["reference", "published"]   # then the public machines
    for machine in data["machines"]:
        for calls in machine["points"].values():
            assert calls and all(label for label, *_ in calls), machine["id"]
    assert all(len(call) == 6 and (call[5] in ("file", "keep") or isinstance(call[5], dict))
               for calls in data["machines"][0]["points"].values() for call in calls)
