"""The artifact's code as a cost model (seed 003): counts per report line, calibration, reproduction."""
import pytest

from costbook.prices import measurements
from costbook.prices.cost import Counts, MissingPrice, price
from costbook.prices.keys import check_key
from costbook.schemes.mixnet import artifact as A, dbrsm, dbsm


@pytest.fixture(scope="module")
def cal():
    return A.calibrate()


def test_every_step_names_a_report_line_and_valid_keys():
    rep = A.reported()
    assert len(rep) == len(A.steps()) >= 30
    for s in A.steps():
        assert s.key() in rep
        for k in s.counts:
            check_key(k)


def test_symbols_map_to_keys_and_unknown_symbols_are_refused():
    c = A.symbol_counts(E1v80=2, X2_4099=1, PaiEnc=1, ETf=3, L2=5, M1=5, A1=4)
    assert c == Counts({"bn254/g1_mul/80": 2, "modexp/4099/4099": 1, "modexp_fixed/4099/1025/13": 1,
                        f"modmul/{A.N2_BITS}": A.ENC_PRODUCTS, "bn254/gt_exp_fixed": 3,
                        "intdiv/4099/2050": 5, "modmul/2050": 5, "bn254/g1_add": 4})
    assert A.TABLE_STEPS == 79                     # 1025-bit r in 13-bit blocks
    with pytest.raises(ValueError, match="unknown operation symbol 'E3'"):
        A.symbol_counts(E3=1)


def test_sizes_are_checked():
    with pytest.raises(ValueError, match="n must be positive"):
        A.steps(0, 4)
    with pytest.raises(ValueError, match="m .* must be >= 2"):
        A.steps(10, 1)


def test_counts_grow_linearly_in_n_and_the_checks_of_others_in_m():
    by = lambda st: {(s.section, s.slug, s.party): s.counts for s in st}
    a, b, c = by(A.steps(1000, 4)), by(A.steps(2000, 4)), by(A.steps(3000, 4))
    for k in a:
        for key in c[k]:                 # affine in n: equal steps from n to 2n to 3n
            if key != A.COPY_KEY:
                assert c[k][key] - b[k].get(key, 0) == b[k].get(key, 0) - a[k].get(key, 0), (k, key)
    m2, m5 = by(A.steps(1000, 2)), by(A.steps(1000, 5))
    assert m5[("dbsm", "shuffle_verify", "mixer")] == m2[("dbsm", "shuffle_verify", "mixer")] * 4
    assert m5[("dbsm", "dpk_commit", "mixer")] == m2[("dbsm", "dpk_commit", "mixer")]


def test_the_paillier_shuffle_hash_copies_a_quadratic_number_of_bytes():
    # building the string piece by piece, as the artifact's misc.bin does, writes these many bytes
    written, built = 0, b""
    for _ in range(40):
        built += bytes(A.CIPHERTEXT_BYTES)
        written += len(built)
    assert A.concat_copies(40, A.CIPHERTEXT_BYTES) == written
    with_copy = {(s.section, s.slug) for s in A.steps(1000, 4) if A.COPY_KEY in s.counts}
    assert with_copy == {(sec, slug) for sec in ("mix", "dbrsm") for slug in ("shuffle_prove", "shuffle_verify")}
    by = {(s.section, s.slug): s.counts[A.COPY_KEY] for s in A.steps(1000, 4) if A.COPY_KEY in s.counts}
    one = A.shuffle_hash_copies(1000)
    assert by == {("mix", "shuffle_prove"): one, ("mix", "shuffle_verify"): 3 * one,      # 3 others' proofs
                  ("dbrsm", "shuffle_prove"): 2 * one, ("dbrsm", "shuffle_verify"): 6 * one}
    assert A.shuffle_hash_copies(2000) / one > 3.9                  # quadratic, not linear, in n
    assert all(A.COPY_KEY not in s.counts for s in A.steps(1000, 4, byte_copying=False))


def test_every_leave_one_out_total_is_within_10_percent_of_the_report(cal):
    for t in A.loo_totals(cal):
        assert abs(t.loo_s / t.published_s - 1) < 0.10, t


def test_leave_one_out_totals_and_speedups_carry_the_prices_interval(cal):
    """Each out-of-sample total lies in its interval (its lines priced at the bounds of the refits'
    prices, of which its own refit is one), the interval is not a point, and the speedups built from
    those totals span the ratios of the interval's ends."""
    totals = A.loo_totals(cal)
    for t in totals:
        assert t.low_s <= t.loo_s <= t.high_s and t.low_s <= t.fitted_s <= t.high_s and t.low_s < t.high_s, t
    per = {sp[0]: (t.loo_s, t.low_s, t.high_s) for sp, t in zip(A.TOTALS, totals) if sp[1] == "mixer"}
    ratios = A.speedup_intervals({s: per[s] for s in ("dbsm", "dbrsm")})
    assert set(ratios) == set(A.SPEEDUPS)
    for k, (v, lo, hi) in ratios.items():
        assert lo < v < hi, (k, lo, v, hi)
    # the slow end of DB-SM's time gives the low end of its speedups, and the ratio is baseline / ours
    zk = ratios["dbsm_vs_zksnark"][0] * per["dbsm"][0]
    assert ratios["dbsm_vs_zksnark"][1] == pytest.approx(zk / per["dbsm"][2])
    row = A.whatif(cal)[0]
    assert row["dbsm_vs_zksnark_low"] < row["dbsm_vs_zksnark"] < row["dbsm_vs_zksnark_high"]


def test_the_byte_copying_explains_the_paillier_shuffle_lines(cal):
    shuffles = [r for r in cal.rows if A.COPY_KEY in r[0].counts]
    assert len(shuffles) == 4
    for s, pub, line, fitted, loo in shuffles:
        assert abs(fitted / pub - 1) < 0.05 and abs(loo / pub - 1) < 0.05, (s.key(), pub, fitted, loo)
    # seconds per byte copied: a memory copy at 1 to 50 GB/s
    assert 2e-11 < cal.prices["copy"] < 1e-9, cal.prices["copy"]


def test_calibrated_prices_are_positive_and_physically_ordered(cal):
    p = cal.prices
    assert all(v > 0 for v in p.values()), p
    assert p["E1f"] < p["E1v"] < p["ETv"] < p["P"]          # a table beats a ladder; GT and pairings cost more
    assert p["ETf"] < p["ETv"] and p["E2f"] < p["E2v"]
    assert 2 < p["mu_N2"] / p["mu_N"] < 5                   # doubling the modulus: 2^1.6 .. 2^2 per bit
    assert p["M2"] < p["mu_N2"] * 4099 / 100                # a product is far below an exponentiation
    # a table step is a product plus its entry fetched from a table of hundreds of megabytes
    assert 1.0 < p["T2"] / p["M2"] < 1.5
    assert p["A1"] < p["E1v"] / 100                         # a G1 product against a G1 exponentiation


def test_every_product_line_is_fitted_and_predicted_out_of_sample_within_10_percent(cal):
    """The report's lines made only of products (combining shares, homomorphic addition and blinding):
    each one's leave-one-out prediction, from the other lines' prices, within 10% of it, except
    DB-SM's blinding product, which alone prices a G1 product without a product mod N^2 beside it."""
    lines = {s.key(): (pub, loo) for s, pub, _, _, loo in cal.rows
             if s.slug in ("decrypt_combine", "r_component", "blind_product")}
    assert len(lines) == 5
    for key, (pub, loo) in lines.items():
        bound = 0.20 if "dbsm/blind_product" in key else 0.10
        assert abs(loo / pub - 1) < bound, (key, pub, loo)


def test_the_fit_explains_every_fitted_report_line(cal):
    assert cal.worst() < 0.25
    within_10 = [r for r in cal.rows if r[0].fitted and abs(r[3] / r[1] - 1) < 0.10]
    assert len(within_10) >= 0.75 * sum(r[0].fitted for r in cal.rows)


def test_the_seed_totals_are_reproduced_within_the_reports_rounding_and_5_percent(cal):
    rows = A.reproduce(cal)
    assert [r[0] for r in rows] == list(A.TOTALS.values())
    published = {label: s for label, s, _, _ in rows}
    assert published["DB-SM, per mix-server (M_k)"] == 500 and published["DB-RSM, per mix-server (M_k)"] == 2400
    for label, pub, line, model in rows:
        assert abs(model / pub - 1) < 0.05, (label, pub, model)


def test_reproduced_ratios_round_to_the_seeds(cal):
    t = A.whatif(cal)[0]
    assert round(t["dbsm_vs_zksnark"]) in (85, 86, 87)
    assert round(t["dbrsm_vs_zksnark"]) in (17, 18)
    assert round(t["dbsm_vs_cpsnark"]) in (19, 20, 21)


def test_speedup_falls_with_m_and_cpsnark_speedup_grows_with_n(cal):
    rows = {(r["n"], r["m"]): r for r in A.whatif(cal, ns=(1000, 10000), ms=(2, 4, 8))}
    assert rows[(10000, 2)]["dbsm_vs_zksnark"] > rows[(10000, 4)]["dbsm_vs_zksnark"] > rows[(10000, 8)]["dbsm_vs_zksnark"]
    assert rows[(10000, 4)]["dbsm_vs_cpsnark"] > 2 * rows[(1000, 4)]["dbsm_vs_cpsnark"]


def test_calibrated_source_refuses_keys_it_does_not_price(cal):
    with pytest.raises(MissingPrice):
        price({"bls12_381/pairing": 1}, cal.source)


def test_this_machine_prices_every_step_and_says_what_is_derived():
    here = measurements.load_source("reference")
    rows = A.this_machine(here)
    assert {r["label"] for r in rows} == set(A.TOTALS.values())
    est = rows[1]["estimate"]
    notes = {l.key: l.note for l in est.lines}
    assert "upper bound" in notes["bn254/g1_mul_fixed"]        # mcl has no fixed-base table
    assert notes["bn254/g1_mul/80"] == ""                       # measured as such
    assert A.COPY_KEY not in notes                               # the artifact's Python, not the libraries'


# -- the Sage code's counts against the artifact's ------------------------------------------------

def test_sage_dbsm_counts_match_the_artifacts_step_by_step_where_the_protocols_agree():
    n, m = 50, 4
    rows = {r["sage_step"]: r for r in A.crosscheck(n, m)["dbsm"]}
    for step, r in rows.items():
        if r["same"]:
            assert r["sage"] == r["artifact"], step
    assert {s for s, r in rows.items() if not r["same"]} == set(A.CROSSCHECK_DIFFERENCES["dbsm"])


def test_sage_dbrsm_counts_match_the_artifacts_where_stated():
    rows = {r["sage_step"]: r for r in A.crosscheck(50, 3)["dbrsm"]}
    for step, r in rows.items():
        assert (r["sage"] == r["artifact"]) == r["same"], (step, r)


def test_the_honest_but_curious_model_drops_only_proof_steps(cal):
    mal, hbc = A.whatif(cal)[0], A.whatif(cal, security="hbc")[0]
    for k in ("mix_mixer_s", "dbsm_mixer_s", "dbrsm_mixer_s"):
        assert 0 < hbc[k] < mal[k]
    assert {s.slug for s in A.steps()} - {s.slug for s in A.steps(security="hbc")} == A.PROOF_ONLY
    with pytest.raises(ValueError, match="unknown security model 'covert'"):
        A.steps(security="covert")
