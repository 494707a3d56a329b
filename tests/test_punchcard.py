"""Punch cards: honest runs pass, every cheat is caught (or shown to work), the seed is reproduced."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest

from costbook.schemes.punchcard import curves, mergeable, model, ristretto, seed

R = curves.ristretto255


@pytest.fixture(scope="module")
def E():
    return curves.bls12_381()


def punched_card(server, G, times, rng):
    card = ristretto.Card(G, rng)
    C = card.first_message()
    for _ in range(times):
        new, proof = server.punch(C)
        C, ok = card.verify_remask(new, server.pk, proof)
        assert ok
    return card


# --- ristretto255 ----------------------------------------------------------------------

def test_honest_card_is_redeemed_once():
    rng = random.Random(1)
    out = ristretto.run(R(), 10, rng)
    assert out["accepted"]
    server, secret, U = out["server"], out["secret"], out["U"]
    assert not server.redeem(U, secret, 10), "a second redemption of the same card (double spend)"


def test_wrong_punch_count_is_rejected():
    rng = random.Random(2)
    G = R()
    server = ristretto.Server(G, rng)
    card = punched_card(server, G, 9, rng)
    secret, U = card.unmask_redeem()
    assert not server.redeem(U, secret, 10)          # 9 punches claimed as 10
    assert server.redeem(U, secret, 9)               # the truth is accepted
    with pytest.raises(ValueError, match="at least 1"):
        ristretto.scalar_power(3, 0, G.order)


def test_replayed_or_borrowed_card_is_rejected():
    rng = random.Random(3)
    G = R()
    server = ristretto.Server(G, rng)
    a, b = punched_card(server, G, 3, rng), punched_card(server, G, 3, rng)
    sa, Ua = a.unmask_redeem()
    sb, Ub = b.unmask_redeem()
    assert not server.redeem(Ub, sa, 3)              # another card's value under my secret
    assert server.redeem(Ua, sa, 3)
    assert not server.redeem(Ua, sa, 3)              # replay after spending


def test_forged_or_wrong_key_punches_are_rejected_by_the_client():
    rng = random.Random(4)
    G = R()
    server = ristretto.Server(G, rng)
    card = ristretto.Card(G, rng)
    C = card.first_message()
    new, proof = server.punch(C)
    bad_z = dataclasses.replace(proof, z=G.encode_scalar((G.decode_scalar(proof.z) + 1) % G.order))
    for forged in (bad_z, dataclasses.replace(proof, V=proof.W), dataclasses.replace(proof, W=proof.V)):
        before = card.card
        _, ok = card.verify_remask(new, server.pk, forged)
        assert not ok and card.card == before and card.count == 0
    # a server that punches with another key (to tag this client) cannot prove it
    other = ristretto.Server(G, rng)
    new2, proof2 = other.punch(C)
    _, ok = card.verify_remask(new2, server.pk, proof2)
    assert not ok


def test_malformed_elements_are_rejected():
    G = R()
    server = ristretto.Server(G, random.Random(5))
    with pytest.raises(ValueError):
        server.punch(b"\xff" * 32)                   # not a canonical encoding


def test_message_sizes_are_the_seeds():
    for curve in seed.CURVES:
        sizes = model.message_sizes(curve)
        formulas = model.size_formulas(curve)
        for stated in (s for s in seed.STATED_SIZES if s.curve == curve):
            assert sizes[stated.step] == formulas[stated.step] == stated.bytes, (curve, stated)


# --- the mergeable card ----------------------------------------------------------------

def test_merge_honest_self_merge_and_double_spend(E):
    rng = random.Random(6)
    for check in mergeable.REDEEM_CHECKS:
        out = mergeable.run(E, 4, rng, check)
        assert out["accepted"], check
        sa, sb, merged = out["message"]
        assert not out["server"].redeem(sa, sb, merged, 4)            # double spend
    server = mergeable.Server(E, rng, "single")
    a = mergeable.Card(E, rng)
    mergeable.punch_card(server, a, 2)
    sa, sa2, merged = mergeable.merge(a, a)
    assert not server.redeem(sa, sa2, merged, 4)                      # a card merged with itself


def test_merge_rejects_a_wrong_count_and_tampered_gt(E):
    rng = random.Random(7)
    out = mergeable.run(E, 4, rng, "single")
    server, (sa, sb, merged) = out["server"], out["message"]
    server.spent.clear()
    assert not server.redeem(sa, sb, merged, 6)
    flipped = bytes([merged[0][0] ^ 1]) + merged[0][1:]
    assert not server.redeem(sa, sb, (flipped,), 4)
    assert server.redeem(sa, sb, merged, 4)


def test_mix_and_match_forgery_works_against_one_pairing_and_not_two(E):
    """Seed/HEAD redemption (one pairing) accepts 2m punches after m server punches."""
    rng = random.Random(8)
    forged = mergeable.mix_and_match(mergeable.Server(E, rng, "single"), 4, rng)
    assert forged.accepted and forged.server_punches == 2 and forged.claimed == 4
    stopped = mergeable.mix_and_match(mergeable.Server(E, rng, "two"), 4, rng)
    assert not stopped.accepted


# --- the seed, reproduced ----------------------------------------------------------------

def test_averages_reproduce_what_the_seed_states():
    avgs = seed.averages()
    assert len(avgs) == len(seed.VARIANTS) * len(seed.STEPS)
    wrong = [(a.variant, a.step) for a in avgs if a.agrees is False]
    # 109839 us / 100 = 1.098 ms, which the seed prints as 1.09 (truncated, not rounded)
    assert wrong == [("laptop-bls12_381", "server_setup")]


def test_eight_orders_of_magnitude_from_the_published_prices():
    pub = seed.published_prices()
    s = seed.Speedup(10**6, pub.seconds("curve25519-dalek", "ristretto255/mul"),
                     pub.seconds("rust-hashset", "hashset/lookup/1000000"),
                     seed.published_steps().seconds("laptop-ristretto255", seed.step_key("ristretto255", "server_redeem")))
    assert s.scan_s == pytest.approx(50.0)                    # "about 50 seconds"
    assert 8 <= s.orders < 8.5                                # "about 8 orders of magnitude"
    assert 5.5 < s.redeem_orders < 6.5                        # what a whole redeem gains


def test_counts_by_running_match_the_code_read_by_hand():
    c = model.count_steps("ristretto255", 4)
    sp = c["server_punch"]
    assert sp["ristretto255/mul"] == 2 and sp["ristretto255/mul_base"] == 1
    assert sp["ristretto255/decode"] == 1 and sp["ristretto255/encode"] == 3
    cp = c["client_punch"]
    assert cp["ristretto255/mul"] == 5 and cp["ristretto255/mul_base"] == 1 and cp["ristretto255/decode"] == 5
    sr = c["server_redeem"]
    assert sr["ristretto255/from_hash"] == 1 and sr["ristretto255/mul"] == 1
    assert any(k.startswith("hashset/lookup/") for k in sr)


def test_bls_counts_include_the_subgroup_checks_and_one_pairing(E):
    c = model.count_steps("bls12_381", 4)
    assert c["server_punch"]["bls12_381/g1_decode"] == 1 and c["server_punch"]["bls12_381/g2_decode"] == 1
    assert c["client_punch"]["bls12_381/g1_decode"] == 4
    assert c["server_redeem"]["bls12_381/pairing"] == 1
    two = model.count_steps("bls12_381", 4, redeem_check="two")
    assert two["server_redeem"]["bls12_381/pairing"] == 2 and two["client_redeem"]["bls12_381/pairing"] == 2


def test_estimate_json_published_reference_and_errors(capsys):
    from costbook.cli.commands import main
    assert main(["estimate", "punchcard", "--source", "published", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d["steps"]) == set(seed.STEPS) and "seed_measured" in d
    # the stated prices are used as stated
    assert d["prices"]["ristretto255/mul"]["seconds"] == pytest.approx(50e-6)
    assert main(["estimate", "punchcard", "--source", "reference", "--curve", "bls12_381", "--punches", "4",
                 "--redeem-check", "two", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["redeem_check"] == "two" and d["message_bytes"]["client_redeem"] == 64 + 2 * 576
    assert main(["estimate", "punchcard", "--curve", "p256"]) == 2
    assert "--curve must be one of" in capsys.readouterr().err
    with pytest.raises(ValueError, match="punches must be at least 1"):
        model.count_steps("ristretto255", 0)
