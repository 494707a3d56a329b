"""The traceable mixnets' light operations: group additions, Fiat–Shamir serialisations and short
exponentiations are keys with benchmarks, and a DB-SM run tallies them per step as the protocol says."""
import random
from contextlib import contextmanager

import pytest

from costbook.prices import keys, measurements
from costbook.prices.cost import Counts
from costbook.timing.harness import Profile
from costbook.prices.counting import counting
from costbook.schemes.mixnet import bbsig, dbrsm, dbsm, model
from costbook.schemes.mixnet.curves import groups
from costbook.calibration.validation import find_benchmark, measure_keys

NEW_KEYS = ("bn254/g1_add", "bn254/g2_add", "bn254/g1_to_bytes", "bn254/g2_to_bytes", "bn254/gt_to_bytes",
            "bn254/g1_mul/80", "bn254/gt_exp/81", "bls12_381/g1_to_bytes")


@pytest.fixture(scope="module")
def G():
    return groups("bn254")


def test_the_new_families_parse_and_say_what_they_are():
    assert "serialising an element of g1 of bn254" in keys.describe("bn254/g1_to_bytes")
    assert "short exponent of 81 bits" in keys.describe("bn254/gt_exp/81")
    assert keys.sizes("bls12_381/gt_exp/94") == {"curve": "bls12_381", "bits": 94}
    with pytest.raises(keys.UnknownPrimitiveKey):
        keys.family_of("bn254/g3_to_bytes")
    assert all(dbsm.is_light(k) for k in NEW_KEYS[:5]) and not any(dbsm.is_light(k) for k in NEW_KEYS[5:7])


@pytest.mark.parametrize("key", NEW_KEYS)
def test_each_new_key_has_a_sage_benchmark_that_does_the_operation(key):
    op = find_benchmark(key, "sage").prepare()
    out = op()
    if key.endswith("_to_bytes"):
        assert len(out) == {"g1": 96, "g2": 192, "gt": 576}[key.split("/")[1][:2]]
    else:
        assert out != op()            # a pool of inputs, not one over and over


def test_short_keys_of_other_backends_are_not_taken_from_sage():
    assert find_benchmark("bn254/g1_mul/80", "mcl").backend == "mcl"
    with pytest.raises(LookupError):
        find_benchmark("bn254/gt_exp/81", "mcl")


def test_short_exponentiations_refuse_an_exponent_too_long(G):
    with pytest.raises(ValueError, match="does not fit in 80 bits"):
        G.exp1_short(G.g1, 1 << 80, 80)
    assert G.exp1_short(G.g1, 5, 80) == G.exp1(G.g1, 5)
    assert G.expT_short(G.eg1f2, 7, 81) == G.expT(G.eg1f2, 7)
    assert bbsig.sum_bits(1) == 80 and bbsig.sum_bits(2) == 81 and bbsig.sum_bits(4) == 82 and bbsig.sum_bits(5) == 83


def tallying_clock():
    """(a step clock that records each step's tally, {step: tally} it fills)."""
    steps = {}

    @contextmanager
    def clock(step):
        with counting() as c:
            yield
        steps[step] = dict(c)
    return clock, steps


def per_step_tally(G, n, m):
    """{step: tallied Counts of the whole run's step (all m mix-servers)} of an honest query."""
    rng = random.Random(f"light ops {n} {m}")
    mo = dbsm.mix_outputs(G, n, m, rng)
    clock, steps = tallying_clock()
    with counting() as whole:
        assert all(dbsm.query(G, mo, rng, clock=clock).verdict)
    return steps, dict(whole)


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (2, 3)])
def test_a_run_tallies_the_light_operations_each_step_states(G, n, m):
    steps, whole = per_step_tally(G, n, m)
    assert steps == {s: dict(c) for s, c in model.run_counts(dbsm.step_counts(n, m), m).items()}
    # nothing priced happens outside the timed steps
    assert whole == dict(sum((Counts(c) for c in steps.values()), Counts()))
    # from the protocol, not the code: each blinding PoK (n per mix-server) hashes its statement
    # (2 + 4 elements), the ciphertext it blinds (2) and its commitments (2); each shuffle proof
    # hashes pk, both lists and the commitment (5n + 1), then the chain and t (2n + 5); each
    # checked proof is hashed again; every DPK hashes gamma, sigma~ and one G1 commitment, X and one
    # GT commitment, once per mix-server deriving the challenge and once for the querier
    g1b = lambda step: steps[step].get("bn254/g1_to_bytes", 0)
    assert g1b("M4 blind + PoK") == 10 * n * m
    assert g1b("M5 verify others' PoKs") == 10 * n * m * (m - 1)
    assert g1b("M2 re-encrypt, reverse-permute, prove") == m * (7 * n + 6)
    assert g1b("M3 verify others' shuffles") == m * (m - 1) * (7 * n + 6)
    assert steps["M8 DPK commit and response"]["bn254/gt_to_bytes"] == n * m
    assert steps["Q2 verify DPKs"]["bn254/g2_to_bytes"] == n
    # additions: one per ElGamal encryption (Q1), a re-encryption adds two; the querier's DPK check
    # adds X^-c f2^-z in G2 once per item
    assert steps["Q1 sign and encrypt"]["bn254/g1_add"] == n
    assert steps["Q2 verify DPKs"]["bn254/g2_add"] == n
    # the batch check: n weights of 80 bits and one GT exponentiation by their sum, per mix-server
    assert steps["M1 check signatures"]["bn254/g1_mul/80"] == n * m
    assert steps["M1 check signatures"][f"bn254/gt_exp/{bbsig.sum_bits(n)}"] == m


_DBRSM_RUNS: dict = {}


def dbrsm_run(G, n, m):
    """({step: tally} through the validation's clock, the whole run's tally) of one honest DB-RSM
    query, run once per (n, m) for the two tests below (a run takes seconds)."""
    if (n, m) not in _DBRSM_RUNS:
        rng = random.Random(f"dbrsm steps {n} {m}")
        mo = dbsm.mix_outputs(G, n, m, rng)
        pfs = dbrsm.sender_proofs(G, mo, rng)
        clock, tallied = tallying_clock()
        with counting() as whole:
            assert all(dbrsm.query(G, mo, pfs, rng, clock=clock).verdict)
        _DBRSM_RUNS[n, m] = tallied, dict(whole)
    return _DBRSM_RUNS[n, m]


@pytest.mark.parametrize("n,m", [(1, 2), (2, 2), (3, 2), (2, 3)])
def test_each_dbrsm_step_tallies_what_it_states(G, n, m):
    """Step by step, through the clock the validation times them with: every key, light ones included
    (an M step covers all m mix-servers)."""
    tallied, whole = dbrsm_run(G, n, m)
    assert tallied == {s: dict(c) for s, c in model.run_counts(dbrsm.step_counts(n, m), m).items()}
    # nothing priced happens outside the timed steps
    assert whole == dict(sum((Counts(c) for c in tallied.values()), Counts()))


def test_a_dbrsm_run_without_a_clock_tallies_what_it_does_with_one(G):
    """The tests here share one clocked run per (n, m); a query without a clock (as the estimates
    and the chapters run it) does the same work."""
    rng = random.Random("dbrsm light ops 1 2")
    mo = dbsm.mix_outputs(G, 1, 2, rng)
    pfs = dbrsm.sender_proofs(G, mo, rng)
    with counting() as c:
        assert all(dbrsm.query(G, mo, pfs, rng).verdict)
    assert dict(c) == dbrsm_run(G, 1, 2)[1]


@pytest.mark.parametrize("n,m", [(1, 2), (2, 2), (3, 2), (2, 3)])
def test_a_dbrsm_run_tallies_every_operation_its_steps_state(G, n, m):
    # the whole run against the querier's steps plus m mix-servers'
    run = dbrsm_run(G, n, m)[1]
    assert run == dict(sum(model.run_counts(dbrsm.step_counts(n, m), m).values(), Counts()))
    # from the protocol, not the code: per item, each z1 share's PoK hashes z1^(k), h2', h3' and its
    # commitment in GT, made by m mix-servers and checked by m - 1 others each; each DPK challenge
    # (every mix-server's and the querier's) hashes 3 statements, 9 generators and 3 commitments in
    # GT, X in G2 and S~ in G1; the only G2 addition is X f2^c~, once per DPK statement built
    assert run["bn254/gt_to_bytes"] == n * (4 * m * m + 15 * (m + 1))
    assert run["bn254/g2_to_bytes"] == run["bn254/g2_add"] == n * (m + 1)
    # the querier's part alone, per item: its opening PoK check adds 2 and hashes 4 G1 elements, its
    # quasi-signature and encryption add 3, its DPK challenge hashes S~
    querier = dbrsm.party_counts(n, m)["querier"]
    assert querier["bn254/g1_add"] == 5 * n and querier["bn254/g1_to_bytes"] == 4 * n + n


def test_a_file_without_the_light_keys_leaves_them_out_and_says_so():
    ref = measurements.load_source("reference")
    est, notes = model.protocol_estimate(ref, "dbsm", n=10, m=2, with_notes=True)
    # mcl prices G1 additions (homomorphic ElGamal in the artifact), not G2 additions or serialisation
    assert any("bn254/g2_add left out" in s for s in notes)
    assert not any("bn254/g1_add" in s for s in notes)
    assert any("bn254/gt_exp/84 priced as bn254/gt_exp, an upper bound" in s for s in notes)
    assert all("bn254/g2_add" not in e.breakdown() for e in est.values())
    steps, step_notes = model.step_estimates(ref, 10, 2)
    assert set(steps) == set(dbsm.step_counts(10, 2)) and set(step_notes) == set(notes)
    # the curve switch compares one library: BLS12-381 additions that another library prices in the
    # file are left out like BN254's, which mcl does not price either
    _, bls_notes = model.protocol_estimate(ref, "dbsm", n=10, m=2, curve="bls12_381", with_notes=True)
    left_out = lambda ns: {s.split()[0].split("/", 1)[1] for s in ns if "left out" in s}
    assert left_out(bls_notes) == left_out(notes) == {"g2_add", "g1_to_bytes", "g2_to_bytes", "gt_to_bytes"}
    # DB-RSM alike: its other light operations left out, each with a note, and the rest priced as before
    rsm, rsm_notes = model.protocol_estimate(ref, "dbrsm", n=10, m=2, with_notes=True)
    assert left_out(rsm_notes) == left_out(notes)
    priced_light = {"bn254/g1_add"}                  # the one light operation mcl prices
    heavy = {p: Counts({k: v for k, v in c.items() if not dbsm.is_light(k) or k in priced_light})
             for p, c in dbrsm.party_counts(10, 2).items()}
    for party, e in rsm.items():
        assert {k for k in e.breakdown() if dbsm.is_light(k)} <= priced_light
        assert e.total == model.price_sage_counts(heavy[party], ref, model._curve_order(ref, None))[0].total


def test_a_file_with_the_new_keys_prices_them(G):
    counts = dbsm.step_counts(2, 2)["M4 blind + PoK"]
    # which keys a file has, not how precisely: a short profile (the validation's is for the gate)
    now = measure_keys(counts, "sage", Profile("keys test", samples=3, min_batch_seconds=0.01, warmup_seconds=0.0))
    est, notes = model.price_sage_counts(counts, now, ["sage"])
    assert notes == [] and set(est.breakdown()) == set(counts)
    assert est.breakdown()["bn254/g1_add"] > 0 and est.breakdown()["bn254/g1_to_bytes"] > 0
