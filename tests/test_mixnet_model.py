"""Traceable mixnets: the seed's comparisons recomputed, the baselines, the RSA accumulator."""
import json
import random

import pytest

from costbook.prices import measurements
from costbook.schemes.mixnet import model


def test_the_three_ratios_come_out_of_the_published_numbers():
    r = {x.seed_says: x for x in model.published_ratios()}
    assert r["86x"].baseline_s == pytest.approx(43400) and r["86x"].ratio == pytest.approx(86.8)
    assert r["18x"].ratio == pytest.approx(43400 / 2400)
    assert r["20x"].baseline_s == pytest.approx(10030) and r["20x"].ratio == pytest.approx(20.06)
    # the seed truncates rather than rounds: 86.8 -> "86x", 18.08 -> "18x", 20.06 -> "20x"
    assert all(int(x.ratio) == int(x.seed_says[:-1]) for x in r.values())


def test_baselines_and_bad_sizes():
    assert model.collab_zksnark_s(10, 2.0, tree_build_s=1.0) == 41.0
    assert model.cpsnark_set_s(3, 0.2, 0.8) == pytest.approx(3.0)
    for f in (lambda: model.collab_zksnark_s(0, 1.0), lambda: model.witness_counts(-1)):
        with pytest.raises(ValueError, match="must be positive"):
            f()
    with pytest.raises(ValueError, match="publishes n = 10000"):
        model.published_times(n=100)


def test_rsa_accumulator_witnesses_verify_and_cost_what_the_model_says():
    elements = [i.to_bytes(2, "big") for i in range(50)]
    acc = model.RSAAccumulator(elements, modulus_bits=1024, rng=random.Random(1))
    w = acc.witness(7)
    assert acc.verify(w, elements[7])
    assert not acc.verify(w, elements[8])
    assert not acc.verify(acc.witness(8), elements[7])
    key = acc.witness_key(7)
    mod, exp = map(int, key.split("/")[1:])
    assert mod == 1024 and 49 * 63 <= exp <= 49 * 64      # (n-1) primes of 64 bits


def test_curve_switch_counts_only_curve_operations():
    for protocol in model.DPK_OPS:
        for side in ("prove", "verify"):
            c = model.dpk_counts(protocol, side, "bls12_381")
            assert all(k.startswith("bls12_381/") for k in c)
    with pytest.raises(ValueError, match="curve must be"):
        model.dpk_counts("dbsm", "prove", "secp256k1")
    assert model.overall_switch(2.0, 0.3) == pytest.approx(1.3)


def test_cli_estimate_mixnet_published_and_reference(capsys):
    from costbook.cli.commands import main
    assert main(["estimate", "mixnet", "--source", "published", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [r["seed_says"] for r in d["ratios"]] == ["86x", "18x", "20x"]
    assert len(d["reproduced"]["totals"]) == 5 and all(abs(t["error"]) < 0.05 for t in d["reproduced"]["totals"])
    # out of sample first, with an interval, and so are the three ratios built from it
    for t in d["reproduced"]["totals"]:
        assert abs(t["leave_one_out_error"]) < 0.10
        assert t["leave_one_out_low_s"] <= t["leave_one_out_s"] <= t["leave_one_out_high_s"]
    r = d["reproduced"]["ratios_leave_one_out"]
    for k, printed in zip(("dbsm_vs_zksnark", "dbrsm_vs_zksnark", "dbsm_vs_cpsnark"), (86, 18, 20)):   # 86x, 18x, 20x
        assert abs(r[k]["ratio"] / printed - 1) < 0.10, (k, r[k])
    assert all(v["low"] < v["ratio"] < v["high"] for v in r.values())
    assert main(["estimate", "mixnet", "--source", "reference", "--n", "1000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["rsa_accumulator_witness_s"] > 0 and d["curve_switch"]


def test_protocol_estimates_and_the_m_option(capsys):
    from costbook.cli.commands import main
    ref = measurements.load_source("reference")
    small = model.protocol_estimate(ref, "dbsm", n=100, m=2)
    more = model.protocol_estimate(ref, "dbsm", n=100, m=4)
    assert more["mixer"].total > small["mixer"].total          # checking the others' proofs grows with m
    assert more["querier"].total == pytest.approx(small["querier"].total)
    bls = model.protocol_estimate(ref, "dbsm", n=100, m=2, curve="bls12_381")
    assert bls["mixer"].total > small["mixer"].total
    # --m is a scheme option, not an abbreviation of --model
    assert main(["estimate", "mixnet", "--source", "reference", "--n", "100", "--m", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["m"] == 3 and d["dbsm_sage_code"]["mixer_s"] > 0 and d["dbrsm_sage_code"]["querier_s"] > 0
    assert d["artifact_counts"]["dbrsm_mixer_s"] > d["artifact_counts"]["dbsm_mixer_s"] > 0


def test_a_curve_with_the_published_source_is_refused_not_ignored(capsys):
    """The published estimate is the seed's own numbers (BN254): --curve would change nothing there."""
    from costbook.cli.commands import main
    assert main(["estimate", "mixnet", "--source", "published", "--curve", "bls12_381"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--curve" in err and "published" in err and "\n" not in err
    assert main(["estimate", "mixnet", "--source", "reference", "--curve", "bls12_381", "--n", "100", "--json"]) == 0
