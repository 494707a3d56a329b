"""The reproduction ledger: every printed figure has a row, computed rows match the seed exactly."""
import dataclasses
import json
import math
import subprocess
import sys

import pytest

from costbook.views import ledger as L


@pytest.fixture(scope="module")
def rows():
    return L.ledger()


def test_every_printed_figure_has_a_row(rows):
    assert L.missing(rows) == []
    assert len(L.printed_figures()) > 150          # the four seeds' figures, not an empty list


def test_statuses_come_from_the_vocabulary(rows):
    assert {r.status for r in rows} <= set(L.STATUSES)
    assert {r.scheme for r in rows} == set(L.SCHEMES)


def test_computed_rows_match_the_printed_figure_except_the_seeds_known_errata(rows):
    differing = {(r.scheme, int(r.lines.split(",")[0])) for r in L.mismatches(rows)}
    assert differing == set(L.SEED_ERRATA), "a computed figure differs from the seed, or an erratum is stale"
    for r in rows:
        if r.status == "computed" and (r.scheme, int(r.lines.split(",")[0])) not in L.SEED_ERRATA:
            assert r.book == r.printed, r


def test_the_comparison_detects_a_perturbed_computed_row(rows):
    r = next(r for r in rows if r.status == "computed" and r.printed == "719.1 ms")
    assert L.agrees(r.printed, r.book_value)
    bad = dataclasses.replace(r, book_value=r.book_value * 1.0002)
    assert L.mismatches([bad]) == [bad]


def test_format_like_keeps_the_printed_precision_and_unit():
    assert L.format_like("26.945 ms", 27.01234) == "27.012 ms"
    assert L.format_like("274.12 us", 270.8) == "270.80 µs"
    assert L.format_like("2400 s", 2502.2) == "2500 s"          # trailing zeros of an integer: not significant
    assert L.format_like("86x", 86.8) == "87x"
    assert L.format_like("30 s", 25.7, significant=2) == "26 s"
    assert L.format_like("0.05 s", 0.0557, significant=2) == "0.056 s"
    assert L.format_like("none", 0) == "none"
    with pytest.raises(ValueError, match="cannot read"):
        L.parse_printed("about fifty")


def test_the_seed_errata_are_truncations(rows):
    """Each computed figure the seed prints differently is the book's value truncated, not rounded."""
    for r in L.mismatches(rows):
        _, decimals, _, _ = L.parse_printed(r.printed)
        truncated = math.floor(r.book_value * 10 ** decimals) / 10 ** decimals
        assert L.format_like(r.printed, truncated) == r.printed, r


def test_mixnet_totals_lead_with_their_leave_one_out_sums_within_10_percent(rows):
    """Issue 12: the report's five totals are led by the sums of their lines' leave-one-out
    predictions (the artifact model's `loo_totals`), each within 10% of the printed total."""
    from costbook.schemes.mixnet import artifact as A
    expected = {f"total: {t.label}": t.loo_s for t in A.loo_totals()}
    assert all(abs(t.loo_s / t.published_s - 1) < 0.10 for t in A.loo_totals())
    loo_rows = [r for r in rows if r.scheme == "mixnet" and r.quantity in expected and r.status == "leave-one-out"]
    assert {r.quantity for r in loo_rows} == set(expected)
    for r in loo_rows:
        assert r.book_value == pytest.approx(expected[r.quantity]), r


def test_no_hashed_file_names_in_rows(rows):
    for r in rows:
        assert ".txt" not in r.seed and r.seed.startswith(("seed-", "repo-")), r


def test_cli_json_matches_ledger(rows):
    out = subprocess.run([sys.executable, "-m", "costbook.cli.commands", "ledger", "--json", "--scheme", "cs03"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    want = L.to_json(L.ledger("cs03"))
    assert data == json.loads(json.dumps(want, ensure_ascii=False))
    assert data["summary"]["computed"] == sum(r["status"] == "computed" for r in data["rows"])


def test_cli_rejects_an_unknown_status():
    p = subprocess.run([sys.executable, "-m", "costbook.cli.commands", "ledger", "--status", "guessed"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "guessed" in p.stderr


def test_every_row_is_a_printed_figure(rows):
    """No row with a figure id the coverage list does not know (a typo would hide a missing figure)."""
    known = L.printed_figures()
    assert {r.figure for r in rows} == set(known)


def test_out_of_sample_leads_wherever_a_figure_has_both(rows):
    by_figure = {}
    for r in rows:
        by_figure.setdefault(r.figure, []).append(r.status)
    both = 0
    for figure, statuses in by_figure.items():
        outside = [i for i, s in enumerate(statuses) if s in ("predicted", "leave-one-out")]
        if "fitted" in statuses and outside:
            both += 1
            assert outside[0] < statuses.index("fitted"), (figure, statuses)
    assert both > 40                       # the mixnet lines and totals, the punch-card laptop steps


def test_leave_one_out_rows_beyond_10_percent_name_what_the_figure_alone_pinned(rows):
    """The extremes are explained in the row's note by the refit's pivot (computed, not typed): the
    ristretto255 server setup pins the fixed-base multiplication; report line 74 the price per bit mod
    the 2-kbit moduli; line 306 the fixed-base GT exponentiation."""
    far = [r for r in rows if r.status == "leave-one-out" and r.book_value is not None
           and abs(r.book_value / L.parse_printed(r.printed)[0] - 1) > L.EXPLAIN_BEYOND]
    assert far, "no leave-one-out row beyond the threshold: the test would check nothing"
    for r in far:
        assert "without it" in r.note, (r.scheme, r.lines, r.note)
    pinned = {(r.scheme, r.lines): r.note for r in far if "the line alone pins it" in r.note}
    assert "mul_base" in pinned[("punchcard", "15")]
    assert "mu_N" in pinned[("mixnet", "74")] and "ETf" in pinned[("mixnet", "306")]
    near = [r for r in rows if r.status == "leave-one-out" and r.book_value is not None and r not in far]
    assert near and all("without it" not in r.note for r in near)


def test_a_folder_without_a_manifest_leaves_the_ledger_of_the_others_whole(rows, tmp_path, monkeypatch, capsys):
    """Another folder holding a model.py but no manifest.py refused `costbook ledger --scheme cs03`;
    now it is one line on stderr and cs03's rows are the same as without it (computed after the
    module's `rows`, so the schemes' caches are warm)."""
    from costbook import schemes
    from costbook.cli.commands import main
    extra = tmp_path / "more_schemes"
    (extra / "unfinished").mkdir(parents=True)
    (extra / "unfinished" / "__init__.py").write_text("")
    (extra / "unfinished" / "model.py").write_text("OPTIONS = {}\n")
    monkeypatch.setattr(schemes, "__path__", [*schemes.__path__, str(extra)])
    assert main(["ledger", "--json", "--scheme", "cs03"]) == 0
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and "'unfinished'" in err and "no manifest.py" in err, err
    cs03 = [r.to_json() for r in rows if r.scheme == "cs03"]
    assert json.loads(out)["rows"] == json.loads(json.dumps(cs03, ensure_ascii=False))
