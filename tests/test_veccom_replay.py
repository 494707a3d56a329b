"""The Merkle code's interpreter work, measured: each operation run again with its hashes answered
from a record (merkle.recording / merkle.answering), timed beside the real run by the validation."""
from __future__ import annotations

import pytest

from costbook.calibration import validation
from costbook.prices.keys import check_key
from costbook.schemes.veccom import merkle, model


@pytest.fixture(scope="module")
def run16():
    return model.run_ops(16)


def test_every_merkle_operation_has_a_replay_and_pointproofs_none(run16):
    assert sorted(run16.replays) == sorted(k for k in run16.ops if k.startswith("merkle/") and run16.counts[k])
    assert not any(k.startswith("pointproofs/") for k in run16.replays)


def test_a_replay_gives_the_real_result_without_hashing(run16, monkeypatch):
    real = {name: run16.ops[name]() for name in run16.replays}

    def no_hashlib(data):
        raise AssertionError("a replay called hashlib")
    monkeypatch.setattr(merkle, "_hashlib_sha256", no_hashlib)
    for name, replay in run16.replays.items():
        assert replay() == real[name] == replay(), name      # twice: the stand-in cycles its record
    with pytest.raises(AssertionError, match="called hashlib"):
        run16.ops["merkle/verify"]()                         # the real operation does hash


def test_a_stand_in_answering_out_of_order_gives_another_result():
    vals = model._values(8)
    recorder, digests = merkle.recording()
    root = merkle.Tree(vals, recorder).root
    assert merkle.Tree(vals, merkle.answering(digests)).root == root
    assert merkle.Tree(vals, merkle.answering(digests[1:] + digests[:1])).root != root


def test_the_stand_in_has_the_helpers_shape_and_counts_as_it_does():
    from costbook.prices.counting import counting
    _, digests = merkle.recording()
    digests.append(bytes(32))
    with counting() as c:
        merkle.answering(digests)(bytes(73))
    assert dict(c) == {"sha256/73B": 1}


def test_counts_price_hashes_only_and_estimates_say_what_they_leave_out():
    for n in (2, 16, 1000):
        for op, c in model.merkle_counts(n).items():
            assert all(check_key(k).startswith("sha256/") for k in c), (n, op)
    est = model.estimate(__import__("costbook.prices.measurements", fromlist=["x"]).load_source("reference"), n=64)
    assert "hashes answered from a record" in est["left_out"]


def test_validation_adds_each_merkle_steps_replay_to_its_prediction(monkeypatch):
    seen = {}

    def fake(cases, backend, profile=validation.VALIDATION_PROFILE):
        for steps, counts, replays in cases:
            seen.update(replays or {})
        return [[] for _ in cases]
    monkeypatch.setattr(validation, "validate_steps_together", fake)
    monkeypatch.setattr(validation, "runs_result", lambda runs, limits=None, scheme=None: {"runs": runs})
    model.validate(n=8)
    assert sorted(seen) == sorted(["merkle/commit", "merkle/verify", "merkle/commit_update",
                                   "merkle/proof_update_no_helper"])


def test_a_replay_is_added_to_the_prediction_and_its_share_is_bounded_per_scheme():
    from costbook.timing.harness import Timing
    from costbook.prices.cost import price
    from costbook.prices.measurements import validate as load
    prices = load({"schema": validation.SCHEMA, "name": "t", "kind": "measured",
                   "provenance": {"machine": {}, "libraries": {}, "date": "now", "command": "t", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}},
                   "results": {"python": {"sha256/73B": Timing(3e-7, 3e-7, 3e-7, 0, 5, 1, min=3e-7).to_entry()}}})
    est = price({"sha256/73B": 4}, prices, "python")
    t = lambda s: Timing(s, s, s, 0.0, 5, 1, min=s)
    check = validation.StepCheck.of("merkle/verify", est, t(2.4e-6), t(1.2e-6)).to_dict()
    assert check["predicted_s"] == pytest.approx(2.4e-6) and check["interpreter_share"] == pytest.approx(0.5)
    strict = validation.runs_result([{"checks": [dict(check)]}])
    assert strict["beyond_limit"] and strict["beyond_limit"][0]["interpreter_limit"] == validation.INTERPRETER_SHARE_LIMIT
    stated = validation.runs_result([{"checks": [dict(check)]}], model.INTERPRETER_LIMITS)
    assert stated["beyond_limit"] == []
