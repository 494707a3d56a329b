"""The closing chapter's data (costbook.views.compare): every scheme present, shares that add up,
crossovers where the models actually cross, and numbers that are the models' own."""
import math

import pytest

from costbook.views import compare
from costbook.prices import measurements
from costbook.schemes import REGISTRY, get


@pytest.fixture(scope="module")
def reference():
    return measurements.load_source("reference")


@pytest.fixture(scope="module")
def rows(reference):
    return compare.operation_costs(reference)


def test_every_registered_scheme_has_rows(rows):
    assert {r.scheme for r in rows} == set(REGISTRY) == set(compare.CHAPTERS)


def test_shares_sum_to_one_and_dominant_is_largest(rows):
    for r in rows:
        for sh, total in ((r.reference_shares, r.reference_s), (r.seed_shares, None)):
            assert math.isclose(sum(s.share for s in sh), 1.0, rel_tol=1e-12), r.operation
            assert [s.share for s in sh] == sorted((s.share for s in sh), reverse=True)
            assert len({s.key for s in sh}) == len(sh)
            if total is not None:
                assert math.isclose(sum(s.seconds for s in sh), total, rel_tol=1e-9), r.operation
        assert r.dominant is r.reference_shares[0]
        assert r.reference_s > 0 and r.seed_s > 0
        assert r.seed_kind in (compare.PREDICTED, compare.FITTED, compare.LEAVE_ONE_OUT)


def test_shares_group_repeated_keys():
    sh = compare.shares([{"key": "a", "seconds": 1.0}, {"key": "b", "seconds": 2.0}, {"key": "a", "seconds": 3.0}])
    assert [(s.key, s.seconds, s.share) for s in sh] == [("a", 4.0, 4 / 6), ("b", 2.0, 2 / 6)]
    with pytest.raises(ValueError, match="no cost"):
        compare.shares([])


def test_rows_are_the_models_numbers(reference, rows):
    # one row per scheme recomputed straight from the model the CLI calls
    cs = get("cs03").estimate(reference, params=compare.CS03_PARAMS, model="spec")
    p = next(r for r in rows if r.scheme == "cs03" and "(P)" in r.operation)
    assert p.reference_s == pytest.approx(cs["P_ms"] / 1e3, rel=1e-12)
    vc = get("veccom").estimate(compare.published_source("veccom"), n=compare.VECCOM_N)
    v = next(r for r in rows if r.operation.startswith("Merkle verify"))
    assert v.seed_s == vc["ops"]["merkle/verify"]["seconds"]
    assert v.printed_s == get("veccom").bench("merkle", "verify")[0]


def test_a_seed_measurement_is_shown_as_its_seed_prints_it(rows):
    """Each row's printed figure is the seed's own text (trailing zeros kept), and says the same
    number as printed_s."""
    nb = "\u00a0"
    printed = {(r.scheme, r.operation): r.printed for r in rows}
    assert printed[("punchcard", "redeem, shop's side, ristretto255")] == f"64.278{nb}µs"        # data.txt line 20
    assert printed[("punchcard", "redeem, shop's side, bls12_381 (one-pairing check)")] == f"4.00{nb}ms"   # line 84
    assert printed[("veccom", "Merkle verify")] == f"7829{nb}ns"
    assert printed[("mixnet", "DB-SM, per mix-server (M_k)")] == f"500{nb}s"
    scale = {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
    for r in rows:
        if r.printed is not None:
            number, unit = r.printed.split(nb)
            assert float(number) * scale[unit] == pytest.approx(r.printed_s, rel=1e-3), r.operation
        else:
            assert r.printed_s is None, r.operation


def test_mixnet_leave_one_out_totals_differ_from_the_fit():
    from costbook.schemes.mixnet import artifact
    cal = artifact.calibrate()
    loo = compare.mixnet_leave_one_out_totals(cal)
    fit = artifact.party_times(cal.source)
    assert set(loo) == set(fit)
    # each total is a sum of lines; held-out lines are predicted worse than fitted ones, so at least one differs
    assert any(abs(loo[k].loo_s / fit[k].total - 1) > 0.01 for k in loo)
    # and each carries the interval of the calibrated prices, as the comparison rows do
    assert all(t.low_s <= t.loo_s <= t.high_s for t in loo.values())
    rows = [r for r in compare.operation_costs() if r.scheme == "mixnet"]
    assert rows and all(r.seed_low_s <= r.seed_s <= r.seed_high_s for r in rows)
    # every fitted line is held out once; the product-only lines are not fitted and enter as priced
    for step, _rep, _line, pred, held_out in cal.rows:
        assert (held_out is None) == (not step.fitted)


@pytest.mark.parametrize("lo,hi,threshold", [(1, 100, 37), (1, 100, 1), (5, 5, 5), (1, 1000, 999)])
def test_first_crossing_is_where_the_functions_cross(lo, hi, threshold):
    x = compare.first_crossing(lambda n: n, lambda n: threshold, lo, hi)
    assert x == max(lo, threshold + 1) if threshold < hi else x is None


def test_first_crossing_edges():
    assert compare.first_crossing(lambda n: 2, lambda n: 1, 3, 9) == 3       # already above at lo
    assert compare.first_crossing(lambda n: 0, lambda n: 1, 3, 9) is None    # never
    with pytest.raises(ValueError, match="empty range"):
        compare.first_crossing(lambda n: n, lambda n: 0, 5, 4)


def test_veccom_proof_size_crossover_is_where_merkle_overtakes(reference):
    model = get("veccom")
    c = compare.veccom_crossovers(reference)
    n = c["proof_size_n"]
    assert model.sizes(n)["merkle"]["proof"] > model.sizes(n)["pointproofs"]["proof"]
    assert model.sizes(n - 1)["merkle"]["proof"] <= model.sizes(n - 1)["pointproofs"]["proof"]
    # verification: a Merkle path stays cheaper than a pairing product over the whole range of n
    for src in ("reference", "seed"):
        assert c[f"{src}_verify_n"] is None
        top = c[f"{src}_verify_s"][c["n_high"]]
        assert top["merkle"] < top["pointproofs"]


def test_mixnet_crossovers_are_where_the_speedup_drops_below_one():
    c = compare.mixnet_crossovers()
    for key in compare.MIXNET_COMPARISONS:
        m = c[key]["m"]
        assert m is not None and m > c["m_bound"]        # beyond the model's bound: extrapolated
        below = compare.mixnet_sweep(ms=(m - 1, m))
        assert below[0][key] >= 1 > below[1][key]
        assert c[key]["n"] is None                        # no n in range where the baseline wins
        assert min(c[key]["n_range"]) > 1


def test_lookup_against_scan_reproduces_the_seeds_eight_orders(reference):
    c = compare.lookup_against_scan(reference)
    assert round(c["seed"]["orders"]) == 8                # 10^6 x 50 µs / 0.25 µs = 2 x 10^8
    assert c["seed"]["check_speedup"] == pytest.approx(2e8)
    for side in c.values():
        n = side["scan_exceeds_redeem_n"]
        assert n * side["mul_s"] > side["redeem_s"] >= (n - 1) * side["mul_s"]
    # chapter 2 shows the note's redemption as printed and the measured side's with its interval
    assert c["seed"]["redeem_printed"] == "64.278\u00a0µs" and c["seed"]["redeem_s"] == pytest.approx(64.278e-6)
    assert c["reference"]["redeem"]["seconds"] == c["reference"]["redeem_s"]


def test_errata_rows(reference):
    rows = compare.cs03_errata(reference)
    cs03 = get("cs03")
    printed = {(ps, q): printed for ps, q, _c, printed, _l, unit in cs03.reproduce_seed() if unit == "ms"}
    for r in rows:
        key = {"P = encrypt + prove": "prover_total", "V = verify": "verifier_total", "decrypt": "decrypt"}[r["quantity"]]
        assert r["seed_seed_s"] * 1e3 == pytest.approx(printed[(r["params"], key)], abs=1e-9)
    merge = {r["check"]: r for r in compare.merge_check(reference)}
    assert (merge["single"]["server_pairings"], merge["two"]["server_pairings"]) == (1, 2)
    assert merge["two"]["reference_server_s"] > merge["single"]["reference_server_s"]


def test_forgery_passes_one_pairing_and_fails_two():
    assert [(c, ok) for c, _p, _claimed, ok in compare.merge_forgery()] == [("single", True), ("two", False)]


def test_rows_carry_intervals_around_their_values(rows):
    for r in rows:
        # every figure is priced, so it has an interval: a leave-one-out sum too (the calibrated prices'
        # bounds over the refits)
        assert r.reference_low_s <= r.reference_s <= r.reference_high_s, r.operation
        assert r.seed_low_s <= r.seed_s <= r.seed_high_s, r.operation
    # the bounds are real spreads, not the value copied: most reference intervals have width
    assert sum(r.reference_low_s < r.reference_high_s for r in rows) > len(rows) / 2


def test_row_intervals_are_the_models_bounds(reference, rows):
    cs = get("cs03").estimate(reference, params=compare.CS03_PARAMS, model="spec")
    p = next(r for r in rows if r.scheme == "cs03" and "(P)" in r.operation)
    assert p.reference_low_s == pytest.approx(cs["P_low_ms"] / 1e3, rel=1e-12)
    assert p.reference_high_s == pytest.approx(cs["P_high_ms"] / 1e3, rel=1e-12)
    vc = get("veccom").estimate(compare.published_source("veccom"), n=compare.VECCOM_N)
    v = next(r for r in rows if r.operation.startswith("Pointproofs verify"))
    assert (v.seed_low_s, v.seed_high_s) == (vc["ops"]["pointproofs/verify"]["low_s"], vc["ops"]["pointproofs/verify"]["high_s"])


def test_errata_and_merge_rows_carry_intervals(reference):
    for r in compare.cs03_errata(reference):
        for src in ("seed", "reference"):
            for mdl in ("seed", "spec"):
                assert r[f"{src}_{mdl}_low_s"] <= r[f"{src}_{mdl}_s"] <= r[f"{src}_{mdl}_high_s"], (r["quantity"], src, mdl)
    for r in compare.merge_check(reference):
        for src in ("reference", "seed"):
            for side in ("client", "server"):
                assert r[f"{src}_{side}_low_s"] <= r[f"{src}_{side}_s"] <= r[f"{src}_{side}_high_s"]


def test_seed_prices_without_spread_are_the_zero_width_ones(rows):
    spreadless = compare.seed_prices_without_spread()
    # the vector-commitment note's Merkle benchmarks print one number: the SHA-256 prices have no spread,
    # so the Merkle rows' seed intervals have no width
    assert {"sha256/41B", "sha256/73B"} <= set(spreadless["veccom"])
    merkle = [r for r in rows if r.operation.startswith("Merkle")]
    assert merkle and all(r.seed_low_s == r.seed_s == r.seed_high_s for r in merkle)
    assert "mixnet" not in spreadless and all(why for keys in spreadless.values() for why in keys.values())
