"""Traceable mixnets (seed 003): DB-SM and DB-RSM run end to end, cheaters are caught, counts match."""
import dataclasses
import random

import pytest

from costbook.prices.cost import Counts
from costbook.prices.counting import counting
from costbook.timing.harness import Profile
from costbook.schemes.mixnet import bbsig, bbsplus, dbrsm, dbsm, elgamal, shuffle, sigma
from costbook.schemes.mixnet.curves import groups


@pytest.fixture(scope="module")
def G():
    return groups("bn254")


def counted(f, *args):
    with counting() as c:
        out = f(*args)
    return out, dict(c)


@pytest.fixture(scope="module")
def sm_runs(G):
    """Honest DB-SM queries at (n, m) = (2, 2), (3, 2), (2, 3), each with its tallied counts."""
    rng, out = random.Random(3), {}
    for n, m in [(2, 2), (3, 2), (2, 3)]:
        mo = dbsm.mix_outputs(G, n, m, rng)
        out[n, m] = (mo,) + counted(dbsm.query, G, mo, rng)
    return out


def test_bad_input_is_named():
    for kw, word in [(dict(n=0, m=2), "n "), (dict(n=2, m=1), "m "), (dict(n=2.0, m=2), "n "),
                     (dict(n=2, m=2, curve="p256"), "curve"), (dict(n=2, m=2, cheat="bribe"), "cheat"),
                     (dict(n=1, m=2, cheat="permutation"), "n >= 2")]:
        with pytest.raises(ValueError, match=word):
            dbsm.run_dbsm(**kw)
    for f in (dbsm.step_counts, dbrsm.step_counts, dbrsm.run_dbrsm):
        with pytest.raises(ValueError, match="m "):
            f(3, 1)


def test_honest_dbsm_accepts_every_item(sm_runs):
    for (n, m), (_, res, _) in sm_runs.items():
        assert res.verdict == [True] * n
        assert res.checks["shuffle"] == [True] * m and res.checks["signatures"]
        assert "stand-in" in res.not_implemented[0]          # the run says what it does not do


def test_dbsm_on_bls12_381():
    res = dbsm.run_dbsm(1, 2, curve="bls12_381", rng=random.Random(4))
    assert res.verdict == [True]


def test_dbsm_counts_match_the_stated_formulas_and_are_linear_in_n(sm_runs):
    for (n, m), (_, _, c) in sm_runs.items():
        assert c == dbsm.party_counts(n, m)["total"]
    total = lambda n: dbsm.party_counts(n, 2)["total"]
    for key in total(3):
        if not key.startswith("bn254/gt_exp/"):          # the batch weights' sum grows by log2 n bits
            assert total(3)[key] - total(2)[key] == total(2)[key] - total(1)[key]     # affine in n
    # per item per mixer at m = 2: 4 + (2 + 7) + 9 + 8 + 6 + (3 + 4) + 2 = 45 G1 exponentiations, one of
    # them by an 80-bit batch weight; one pairing (DPK commit), one G2 and one GT exponentiation
    per_item = {k: dbsm.party_counts(11, 2)["mixer"][k] - dbsm.party_counts(10, 2)["mixer"][k]
                for k in ("bn254/g1_mul", "bn254/g1_mul/80", "bn254/pairing", "bn254/g2_mul", "bn254/gt_exp")}
    assert per_item == {"bn254/g1_mul": 44, "bn254/g1_mul/80": 1, "bn254/pairing": 1, "bn254/g2_mul": 1,
                        "bn254/gt_exp": 1}
    assert dbsm.party_counts(5, 4, "bls12_381")["querier"] == {
        "bls12_381/scalar_inv": 5, "bls12_381/g1_mul": 30, "bls12_381/g2_mul": 11,
        "bls12_381/pairing": 5, "bls12_381/gt_exp": 5,
        # Q1: one addition per encryption; Q2: per DPK 2 + 1 additions, 3 + 1 + 1 serialised elements
        "bls12_381/g1_add": 15, "bls12_381/g2_add": 5,
        "bls12_381/g1_to_bytes": 15, "bls12_381/g2_to_bytes": 5, "bls12_381/gt_to_bytes": 5}


@pytest.mark.parametrize("cheat,check,items", [
    ("permutation", "shuffle", None),
    ("blinding", "blinding", [0]),
    ("decryption_share", "decryption", [0]),
    ("dpk_response", "dpk", [0]),
])
def test_a_cheating_mix_server_is_rejected(cheat, check, items):
    res = dbsm.run_dbsm(2, 2, rng=random.Random(5), cheat=cheat)
    if items is None:                                  # a bad shuffle stops the whole query
        assert res.checks["shuffle"] == [False, True] and res.verdict == [False, False]
    else:
        assert [not ok for ok in res.checks[check]] == [i in items for i in range(2)]
        assert res.verdict == [i not in items for i in range(2)]


def test_each_tampered_dpk_response_share_is_rejected(G, sm_runs):
    mo, res, _ = sm_runs[2, 3]
    t, i = res.transcript, 1
    args = (G, t["X"], mo.gammas[i], t["sig_tilde"][i])
    pf = t["dpk"][i]
    assert dbsm.verify_dpk(*args, pf, provers=3)
    for k in range(3):
        for l in range(3):
            z = [list(zk) for zk in pf.z]
            z[k][l] = (z[k][l] + 1) % G.q
            assert not dbsm.verify_dpk(*args, sigma.Proof(pf.c, tuple(map(tuple, z))), provers=3)
    assert not dbsm.verify_dpk(*args, sigma.Proof(pf.c + 1, pf.z), provers=3)
    assert not dbsm.verify_dpk(G, t["X"], mo.gammas[0], t["sig_tilde"][i], pf, provers=3)          # other item


def test_shuffle_verifier_rejects_tampering(G, sm_runs):
    mo, res, _ = sm_runs[3, 2]
    new, old, pf = res.transcript["shuffles"][1]
    a = mo.perm_comms[1][0]
    assert shuffle.verify(G, mo.pk, new, old, a, pf)
    assert not shuffle.verify(G, mo.pk, [new[1], new[0], new[2]], old, a, pf)          # other order
    assert not shuffle.verify(G, mo.pk, new, old, mo.perm_comms[0][0], pf)               # other commitment
    re0, _ = elgamal.reencrypt(G, mo.pk, new[0], random.Random(6))
    assert not shuffle.verify(G, mo.pk, [re0] + new[1:], old, a, pf)                     # other randomness
    bad_chain = (G.op(pf.chain[0], G.g1),) + pf.chain[1:]
    assert not shuffle.verify(G, mo.pk, new, old, a, dataclasses.replace(pf, chain=bad_chain))


def test_blinding_and_share_verifiers_reject_tampering(G, sm_runs):
    mo, res, _ = sm_runs[2, 2]
    t = res.transcript
    E = t["shuffles"][0][0][0]                   # the list after the last reverse shuffle, item 0
    Et, pf = t["E_blinded"][1][0], t["pok_blinding"][1][0]
    assert sigma.verify(G, dbsm.blinding_relation(G, mo.pk, E, Et), pf)
    assert not sigma.verify(G, dbsm.blinding_relation(G, mo.pk, E, (Et[0], G.op(Et[1], G.g1))), pf)
    Eb, D, pfD = t["E_bar"][0], t["shares"][1][0], t["share_proofs"][1][0]
    assert elgamal.verify_share(G, Eb, mo.pks[1], D, pfD)
    assert not elgamal.verify_share(G, Eb, mo.pks[1], G.op(D, G.g1), pfD)
    assert not elgamal.verify_share(G, Eb, mo.pks[0], D, pfD)                            # wrong key


def test_signatures_and_their_batch_checks(G):
    rng = random.Random(7)
    x, X = bbsig.keygen(G, rng)
    vs = [5, 6, 7]
    sigs = [bbsig.sign(G, x, v) for v in vs]
    assert bbsig.verify(G, X, 5, sigs[0]) and not bbsig.verify(G, X, 6, sigs[0])
    assert bbsig.batch_verify(G, X, vs, sigs, rng)
    assert not bbsig.batch_verify(G, X, [5, 6, 8], sigs, rng)
    # BBS+ quasi-signature on gamma = g1^v h1^r completes to a BBS+ signature with r' = r_hat + r
    v, r = 11, 13
    gammas = [G.op(G.exp1(G.g1, v), G.exp1(G.h1, r)), G.exp1(G.g1, 2)]
    qs = [bbsplus.quasi_sign(G, x, g, rng) for g in gammas]
    S, c, r_hat = qs[0]
    assert bbsplus.verify(G, X, v, S, c, r_hat + r) and not bbsplus.verify(G, X, v + 1, S, c, r_hat + r)
    assert bbsplus.batch_verify_quasi(G, X, gammas, qs, rng)
    assert not bbsplus.batch_verify_quasi(G, X, gammas, [qs[0], (qs[1][0], qs[1][1] + 1, qs[1][2])], rng)


@pytest.fixture(scope="module")
def rsm_run(G):
    rng = random.Random(8)
    mo = dbsm.mix_outputs(G, 2, 2, rng)
    pfs = dbrsm.sender_proofs(G, mo, rng)
    return (mo,) + counted(dbrsm.query, G, mo, pfs, rng)


def test_honest_dbrsm_accepts_every_output_and_counts_match(rsm_run):
    mo, res, c = rsm_run
    assert res.verdict == [True, True]
    assert c == dbrsm.party_counts(2, 2)["total"]          # every key, light ones included
    assert any("Paillier" in s and "not implemented" in s for s in res.not_implemented)


def test_each_tampered_dbrsm_dpk_response_share_is_rejected(G, rsm_run):
    mo, res, _ = rsm_run
    t = res.transcript
    j = 0
    check = lambda pf, v=mo.v_out[j]: dbrsm.verify_dpk(G, t["X"], [v], [t["blinded"][j]], [pf], provers=2)[0]
    pf = t["dpk"][j]
    assert check(pf)
    for k in range(2):
        for l in range(6):
            z = [list(zk) for zk in pf.z]
            z[k][l] = (z[k][l] + 1) % G.q
            assert not check(sigma.Proof(pf.c, tuple(map(tuple, z))))
    assert not check(pf, v=mo.v_out[1])                                                  # other value
    z1k, pfz = t["z1_shares"][1][j], t["z1_proofs"][1][j]
    assert sigma.verify(G, dbrsm.z1_relation(G, z1k), pfz)
    assert not sigma.verify(G, dbrsm.z1_relation(G, z1k * G.fT), pfz)


def test_beaver_products_and_sigma_with_a_wrong_witness(G):
    rng = random.Random(9)
    xs, ys = [3, 4, 5], [7, 1, 2]
    assert sum(dbrsm.beaver_multiply(G, xs, ys, rng)) % G.q == 12 * 10
    gamma = G.op(G.exp1(G.g1, 2), G.exp1(G.h1, 3))
    rel = dbrsm.opening_relation(G, gamma)
    assert sigma.verify(G, rel, sigma.prove(G, rel, (2, 3), rng))
    assert not sigma.verify(G, rel, sigma.prove(G, rel, (2, 4), rng))


def test_the_step_clock_times_exactly_the_priced_steps():
    from costbook.calibration.validation import StepClock, validate_clocked
    G = groups("bn254")
    rng = random.Random("step clock")
    mo = dbsm.mix_outputs(G, 2, 2, rng)
    clock = StepClock()
    clock.new_run()
    assert all(dbsm.query(G, mo, rng, clock=clock).verdict)
    assert set(clock.runs[0]) == set(dbsm.step_counts(2, 2))
    assert all(t > 0 for t in clock.runs[0].values())
    # a step the run never times is an error, not a silent zero
    with pytest.raises(ValueError, match="never timed the steps"):
        validate_clocked(lambda c: None, {"M9 nowhere": Counts({"bn254/g1_mul": 1})}, "sage",
                         Profile("error test", samples=1, min_batch_seconds=0.01, warmup_seconds=0.0))
