"""One prediction interval everywhere (``uncertainty.prediction_interval``): `costbook estimate --json`,
the page's export and pricing, the closing chapter's rows (``compare``) and the ledger give one step the
same interval; an estimate's model-error margin never comes from its own scheme's evidence at its size."""
from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from costbook.cli import commands as cli
from costbook.views import compare, ledger
from costbook.prices import measurements
from costbook.calibration import prediction, uncertainty

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
#: one step priced by the CLI, the page and the closing chapter: CS03's verification, at the parameter
#: set and model the closing chapter prices (its row "verify (V)" is that one step)
SCHEME, STEP, OPTIONS = "cs03", "verify", {"params": "conservative", "model": "spec"}


def cli_json(*argv) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["estimate", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


def page_predicted(step: dict, margin: float) -> dict:
    """The page's own function (pricing.js ``predicted``) on a step, under node."""
    script = (f"const P = require({json.dumps(str(ROOT / 'sage/costbook/book/assets/live/pricing.js'))});"
              f"console.log(JSON.stringify(P.predicted({json.dumps(step)}, {json.dumps(margin)})));")
    run = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_one_step_has_one_interval_in_the_cli_the_page_and_the_closing_chapter():
    reference = measurements.load_source("reference")
    printed = cli_json(SCHEME, "--source", "reference", *(x for k, v in OPTIONS.items() for x in (f"--{k}", v)))
    step = next(s for s in printed["prediction"]["steps"] if s["label"] == STEP)
    # the JSON's own step entry carries the same interval as its prediction block, the price interval beside it
    assert (printed["steps"][STEP]["low_s"], printed["steps"][STEP]["high_s"]) == (step["low_s"], step["high_s"])
    assert step["low_s"] < step["price_low_s"] <= step["seconds"] <= step["price_high_s"] < step["high_s"]

    # the closing chapter's row of that one step
    row = next(r for r in compare.operation_costs(reference) if r.scheme == SCHEME and r.operation == "verify (V)")
    assert (row.reference_s, row.reference_predicted_low_s, row.reference_predicted_high_s) == pytest.approx(
        (step["seconds"], step["low_s"], step["high_s"]), rel=1e-12)

    # the page: the committed export's margin for the reference machine at that grid point, applied by
    # the page's function to the price interval it propagates
    export = json.loads((ROOT / "chapters" / "live" / f"{SCHEME}.json").read_text())
    point = next(i for i, p in enumerate(export["points"]) if all(p[k] == v for k, v in OPTIONS.items())
                 and all(p[k] == d for k, d in ((o["name"], o["default"]) for o in export["options"]) if k not in OPTIONS))
    machine = next(m for m in export["machines"] if m["id"] == "reference")
    assert machine["margins"][str(point)] == printed["prediction"]["margin"]
    got = page_predicted({"label": STEP, "total": step["seconds"], "low": step["price_low_s"],
                          "high": step["price_high_s"]}, machine["margins"][str(point)])
    assert (got["low"], got["high"]) == pytest.approx((step["low_s"], step["high_s"]), rel=1e-12)
    # and a reader's file: the cross-machine margin, as the CLI takes it for a file that is not the evidence's
    assert export["reader_margin"] == uncertainty.estimate_margin(SCHEME, "reader-laptop").value
    assert export["level"] == uncertainty.NOMINAL


def test_the_seed_machine_interval_is_the_ledgers_margin():
    """An estimate on a seed's machine takes the margin the ledger gives its scheme's rows (the other
    schemes' out-of-sample rows), from the committed scores, which are the ledger's."""
    rows = ledger.ledger()
    committed = uncertainty.cross_machine_scores()
    assert sorted(committed) == sorted(ledger.out_of_sample_scores(rows)), \
        "a scheme's evidence/cross-machine.json is stale: python -m costbook.views.ledger --write-scores"
    for r in rows:
        if r.book_low is not None:
            p = uncertainty.prediction_interval(r.scheme, ledger.seed_machine(r.scheme), r.book_value)
            assert (p.low, p.high) == pytest.approx((r.book_low, r.book_high), rel=1e-12), r
            pub = compare.published_source(r.scheme)
            assert uncertainty.estimate_margin(r.scheme, pub.name).value == r.margin


def _runs(scheme, labels, scores, group="priced"):
    return [uncertainty.Record(scheme, labels, f"step {i}", group, 1.0, math.exp(s)) for i, s in enumerate(scores)]


def test_an_estimates_margin_leaves_its_scheme_at_its_size_out(monkeypatch):
    """On the evidence's machine, changing scheme A's evidence at the estimate's size leaves the
    estimate's margin unchanged; changing A's at another size, or another scheme's, changes it."""
    machine = next(iter(uncertainty.evidence_machines()))
    base = (_runs("A", '{"n": 16, "params": "small"}', [0.01] * 10) + _runs("A", '{"n": 64, "params": "big"}', [0.02] * 10)
            + _runs("B", '{"k": 3}', [0.03 + i / 1000 for i in range(20)]))
    margin = lambda records, **options: uncertainty.estimate_margin("A", machine, options, records=records,
                                                                    backends={"sage"})
    m = margin(base, n=16, other=1)
    assert m.evidence == 30 and m.left_out.startswith("A at")
    own = [dataclasses.replace(r, measured=100.0) if '"n": 16' in r.labels else r for r in base]
    assert margin(own, n=16, other=1) == m
    # a scheme whose options name its size by a parameter set (CS03's): the run of that set is left out
    assert margin(own, params="small") == m
    size = [dataclasses.replace(r, measured=5.0) if '"n": 64' in r.labels else r for r in base]
    assert margin(size, n=16).value > m.value
    other = [dataclasses.replace(r, measured=r.measured * 1.5) if r.scheme == "B" else r for r in base]
    assert margin(other, n=16).value > m.value
    # on the evidence's machine the interval is made as a validated step's (anchored at the price interval's
    # low end, centred, widened by its spread), by that margin
    p = uncertainty.prediction_interval("A", machine, 2.0, 1.9, 2.2, options={"n": 16}, records=own, backends={"sage"})
    assert p.margin == m and (p.low, p.high) == pytest.approx(m.bounds(2.0, 1.9, 2.2))
    assert (p.low, p.high) == pytest.approx(uncertainty.interval(2.0, m, 1.9, 2.2))


def test_the_committed_evidence_of_a_scheme_at_its_size_does_not_move_its_estimate():
    """The same with the committed evidence: CS03's checks at |n| = 4096 ('conservative'), made as far off
    as can be, leave the margin of an estimate of CS03 at that parameter set where it was."""
    machine = next(iter(uncertainty.evidence_machines()))
    records = uncertainty.evidence()
    sage = {"sage"}                  # an estimate of the Sage code: the kind the validation runs time
    m = uncertainty.estimate_margin("cs03", machine, {"params": "conservative"}, records=records, backends=sage)
    worse = [dataclasses.replace(r, measured=r.predicted * 10) if r.scheme == "cs03" and '"params": "conservative"' in r.labels
             else r for r in records]
    assert any(r is not s for r, s in zip(records, worse))
    assert uncertainty.estimate_margin("cs03", machine, {"params": "conservative"}, records=worse, backends=sage) == m
    at_other_size = [dataclasses.replace(r, measured=r.predicted * 10) if r.scheme == "cs03" else r for r in records]
    assert uncertainty.estimate_margin("cs03", machine, {"params": "conservative"}, records=at_other_size,
                                       backends=sage).value > m.value


def test_on_another_machine_the_margin_is_the_other_schemes_cross_machine_one():
    scored = [("A", 0.5)] * 30 + [("B", 0.01 * i) for i in range(30)]
    m = uncertainty.estimate_margin("A", "a reader's laptop", {"n": 16}, scored=scored)
    assert m.group == "across machines" and m.evidence == 30
    assert uncertainty.estimate_margin("A", "a reader's laptop", scored=[("A", 9.0)] * 30 + scored[30:]) == m


def test_the_text_says_what_the_interval_is_once():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["estimate", "cs03", "--source", "reference"]) == 0
    text = out.getvalue()
    assert text.count("90% prediction interval") == 1, text
    result = prediction.estimate("cs03", measurements.load_source("reference"))
    verify = result["steps"]["verify"]
    from costbook.calibration.intervals import fmt_interval
    assert fmt_interval(verify["total_s"], verify["low_s"], verify["high_s"]).replace("\u00a0", " ") in text.replace("\u00a0", " ")


def test_a_file_named_like_the_reference_is_another_machine(tmp_path):
    """A reader's file named like the reference machine took the reference's validation margin (5.1%)
    instead of the cross-machine one: the machine is the file, not its name."""
    ref = measurements.load_source("reference")
    copy = tmp_path / measurements.reference_path().name
    shutil.copy(measurements.reference_path(), copy)
    mine = measurements.load(copy)
    assert mine.name == ref.name
    assert uncertainty.machine_of(ref) == ref.name and uncertainty.on_evidence_machine(uncertainty.machine_of(ref))
    assert not uncertainty.on_evidence_machine(uncertainty.machine_of(mine))
    sage = {"sage"}                  # an estimate of the Sage code, which the reference's evidence times
    margin = lambda mset: uncertainty.estimate_margin("cs03", uncertainty.machine_of(mset), backends=sage)
    assert margin(mine) == uncertainty.cross_machine_margin("cs03", uncertainty.cross_machine_scores())
    assert margin(ref) != margin(mine)


def test_a_native_estimate_takes_no_margin_from_the_sage_validation_runs():
    """Validation runs time the book's Sage code.  An estimate priced with a native library on the
    evidence's own machine is judged by none of them: its margin is the cross-machine one (the other
    schemes' predictions of the seeds' published figures), and its JSON names what it came from."""
    ref = measurements.load_source("reference")
    native = prediction.estimate("punchcard", ref)["prediction"]
    sage = prediction.estimate("punchcard", ref, backends=("sage",))["prediction"]
    assert "libsodium" in native["priced_in"] and not uncertainty.is_validated(native["priced_in"])
    assert native["margin_group"] == "across machines"
    assert native["margin_from"] == uncertainty.MARGIN_SOURCES["across machines"]
    assert native["margin"] == uncertainty.cross_machine_margin("punchcard", uncertainty.cross_machine_scores()).value
    assert "validation checks" not in native["words"]
    assert sage["priced_in"] == ["sage"] and sage["margin_from"] == uncertainty.MARGIN_SOURCES["validation"]
    assert "validation checks on this machine" in sage["words"]
    # a margin asked for without the backends that priced the estimate is not a validation margin
    assert not uncertainty.is_validated(()) and uncertainty.is_validated({"sage"})
    assert uncertainty.estimate_margin("punchcard", ref.name).spread_floor is None


def test_only_what_a_scheme_makes_timed_is_widened_whatever_its_keys():
    """The type, not the key names, says what is an estimated time: a Timed part's times get their
    prediction intervals and keep their price intervals; a plain dict of the same keys (a fit's
    in-sample values, a price row, a published figure) and a breakdown line are left as they are."""
    from costbook.prices.cost import price
    from costbook.prices.timed import SECONDS, TOTAL, interval, named, time_keys, timed
    ref = measurements.load_source("reference")
    est = price({"ristretto255/mul": 3}, ref, ["sage"], label="toy step")
    m = uncertainty.Margin(0.1, 50, "pooled", "nothing")
    result = {"steps": {"a": interval(est, counts={"ristretto255/mul": 3})},
              "fit": {"seconds": est.total, "low_s": est.low, "high_s": est.high},
              "row": timed({"what": "both"}, named("x", est), named("y", est, "ms"), ratio=1.0),
              "whole": est.to_dict()}
    widened = []
    out = prediction.widen(result, "schnorr", ref.name, m, widened)
    assert sorted(widened) == ["seconds", "total_s", "x_s", "y_ms"]
    assert out["fit"] == result["fit"] and "price_low_s" not in out["fit"]
    assert out["whole"]["breakdown"] == result["whole"]["breakdown"]
    for part, keys in ((out["steps"]["a"], SECONDS), (out["row"], time_keys("x")), (out["row"], time_keys("y", "ms")),
                       (out["whole"], TOTAL)):
        value, low, high = (part[k] for k in keys[:3])
        assert (part[keys.price_low], part[keys.price_high]) != (low, high)      # widened
        assert low < part[keys.price_low] <= value <= part[keys.price_high] < high
    assert out["steps"]["a"]["counts"] == {"ristretto255/mul": 3} and out["row"]["ratio"] == 1.0
    # widened once: a prediction passed through again is unchanged
    assert prediction.widen(out, "schnorr", ref.name, m) == out
    assert prediction.outside(out) == []
    broken = prediction.widen(result, "schnorr", ref.name, m)
    broken["row"]["x_s"] = broken["row"]["x_high_s"] * 2
    assert [at for at, *_ in prediction.outside(broken)] == ["result.row.x_s"]
