"""Pairing products and multi-scalar multiplications of any size (issue 23, "price any size").

Each is priced from the measured sizes by a stated growth law (``cost.pairing_product_by_pairs``:
k Miller loops + 1 final exponentiation; ``cost.msm_by_terms``: affine in the terms through the two
nearest measured sizes), its interval every line through the measured intervals: it widens with
the distance from the measured sizes and never collapses to a point.
"""
import pytest

from costbook.prices.cost import price
from costbook.prices.cost import pairing_product_by_pairs
from costbook.prices.measurements import validate

MEASURED = {"schema": "costbook-measurements/1", "name": "m", "kind": "measured",
            "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}}}


def entry(median, q1, q3):
    return {"median": median, "q1": q1, "q3": q3, "mad": 0.01, "samples": 5, "batch": 1, "unit": "ms"}


#: quartiles whose lines cross beyond the measured sizes: the q1 line (1.55 -> 2.09 ms) rises faster
#: than the q3 line (1.75 -> 2.11 ms), so each quartile extrapolated along its own line inverts
#: beyond k = 3
CROSSING = validate({**MEASURED, "results": {"arkworks": {
    "bls12_381/pairing": entry(1.30, 1.25, 1.40),
    "bls12_381/pairing_product/2": entry(1.70, 1.55, 1.75),
    "bls12_381/pairing_product/3": entry(2.10, 2.09, 2.11),
    "bls12_381/g1_mul": entry(0.25, 0.24, 0.27),
    "bls12_381/g1_msm/16": entry(1.0, 0.95, 1.1),
    "bls12_381/g1_msm/64": entry(3.0, 2.9, 3.2),
}}})


def line(key, source=CROSSING):
    (l,) = price({key: 1}, source, "arkworks", derive=True).lines
    return l


def test_a_pairing_product_of_any_size_follows_k_miller_loops_and_one_final_exponentiation():
    # fitted on /2 and /3: a Miller loop 0.40 ms, a final exponentiation 0.90 ms
    for k in (4, 10, 100, 10_000):
        l = line(f"bls12_381/pairing_product/{k}")
        assert l.unit_price == pytest.approx((0.40 * k + 0.90) * 1e-3)
        assert "k Miller loops (400 us each) + 1 final exponentiation (900 us)" in l.note


def test_the_interval_at_k_100_is_not_a_point_and_widens_with_the_distance():
    widths = []
    for k in (4, 10, 100, 1000):
        l = line(f"bls12_381/pairing_product/{k}")
        assert l.unit_low < l.unit_price < l.unit_high, k
        widths.append(l.unit_high - l.unit_low)
    assert widths == sorted(widths) and widths[0] > 0
    # every line through the intervals at /2 and /3: lowest slope (2.09 - 1.75) ms, highest (2.11 - 1.55) ms
    l = line("bls12_381/pairing_product/100")
    assert (l.unit_low, l.unit_high) == pytest.approx(((2.09 + 97 * 0.34) * 1e-3, (2.11 + 97 * 0.56) * 1e-3))


def test_the_quartile_lines_alone_would_collapse_there():
    """The hole the new rule closes: each quartile extrapolated along its own line (the generic rule
    on the at_bound sets) puts at k = 100 the low above the price and the high below it, which
    price() folded to a point (min(low, price), max(high, price))."""
    from costbook.prices.cost import _along_sizes
    at = lambda w: _along_sizes(CROSSING.at_bound(w), "arkworks", "bls12_381/pairing_product", 100)[0]
    mid = _along_sizes(CROSSING, "arkworks", "bls12_381/pairing_product", 100)[0]
    assert at("low") > mid > at("high")
    assert (min(at("low"), mid), max(at("high"), mid)) == (mid, mid)        # the old interval: a point
    l = line("bls12_381/pairing_product/100")
    assert l.unit_high - l.unit_low > 0.5 * l.unit_price                     # the new one: not a point


def test_a_pairing_product_between_measured_sizes_and_below_them():
    # between /3 and nothing above: /2 and /3 are measured, /1 is the single pairing
    assert line("bls12_381/pairing_product/2").note == ""          # measured: as measured
    src = validate({**MEASURED, "results": {"arkworks": {
        "bls12_381/pairing": entry(1.30, 1.25, 1.40),
        "bls12_381/pairing_product/4": entry(2.50, 2.40, 2.70)}}})
    l = line("bls12_381/pairing_product/2", src)
    assert l.unit_price == pytest.approx(1.70e-3) and "interpolated" in l.note and "bls12_381/pairing and" in l.note
    assert l.unit_low == pytest.approx((1.25 + (2.40 - 1.25) / 3) * 1e-3)


def test_an_msm_of_any_size_with_a_widening_interval():
    for k in (2, 40, 100, 10**4, 10**6):
        l = line(f"bls12_381/g1_msm/{k}")
        assert 0 < l.unit_low < l.unit_price < l.unit_high
    # beyond 64: the line through /16 and /64; one term is one g1_mul
    assert line("bls12_381/g1_msm/1000").unit_price == pytest.approx((3.0 + (1000 - 64) * 2 / 48) * 1e-3)
    assert "bls12_381/g1_mul and bls12_381/g1_msm/16" in line("bls12_381/g1_msm/2").note
    w = [line(f"bls12_381/g1_msm/{k}").unit_high - line(f"bls12_381/g1_msm/{k}").unit_low for k in (100, 1000, 10**4)]
    assert w == sorted(w)


def test_one_measured_size_is_not_enough():
    src = validate({**MEASURED, "results": {"arkworks": {"bls12_381/pairing_product/2": entry(1.7, 1.6, 1.8)}}})
    assert pairing_product_by_pairs(src, "arkworks", "bls12_381/pairing_product/5") is None


# --- hashes of any input length: affine in the compression blocks (cost.hash_by_blocks) -------------

HASHES = validate({**MEASURED, "results": {"python": {
    "sha256/41B": entry(0.00050, 0.00049, 0.00051),        # 1 block (41 + 9 <= 64)
    "sha256/64B": entry(0.00060, 0.00058, 0.00062),        # 2 blocks
    "sha256/73B": entry(0.00062, 0.00060, 0.00064),        # 2 blocks
    "sha512/64B": entry(0.00070, 0.00068, 0.00072),        # 1 block of 128 bytes
}}})


def test_the_blocks_of_a_digest_follow_fips_180_4_padding():
    from costbook.prices.cost import hash_blocks
    assert [hash_blocks("sha256", n) for n in (1, 55, 56, 64, 119, 120)] == [1, 1, 2, 2, 2, 3]
    assert [hash_blocks("sha512", n) for n in (1, 111, 112, 200)] == [1, 1, 2, 2]


def test_a_length_of_a_measured_block_count_costs_what_that_count_costs():
    l = price({"sha256/100B": 1}, HASHES, "python", derive=True).lines[0]
    assert l.unit_price == pytest.approx(0.61e-6)                    # the median of the 2-block lengths
    assert (l.unit_low, l.unit_high) == (pytest.approx(0.58e-6), pytest.approx(0.64e-6))
    assert "2 blocks of sha256 compression" in l.note


def test_an_unmeasured_length_is_affine_in_its_blocks_with_a_widening_interval():
    l16, l160 = (price({k: 1}, HASHES, "python", derive=True).lines[0] for k in ("sha256/1000B", "sha256/10000B"))
    # 16 blocks: 0.50 us + 15 x 0.11 us (the 1-to-2-block line through 0.50 and the 2-block median 0.61)
    assert l16.unit_price == pytest.approx(0.50e-6 + 15 * 0.11e-6)
    assert "extrapolated (affine in the blocks)" in l16.note
    assert l160.unit_price > l16.unit_price
    assert l160.unit_high - l160.unit_low > l16.unit_high - l16.unit_low > 0


def test_one_measured_block_count_scales_by_blocks_an_upper_bound():
    l = price({"sha512/300B": 1}, HASHES, "python", derive=True).lines[0]          # 3 blocks
    assert l.unit_price == pytest.approx(3 * 0.70e-6)
    assert l.unit_low == pytest.approx(0.68e-6) and l.unit_high == pytest.approx(3 * 0.72e-6)
    assert "an upper bound" in l.note


@pytest.mark.parametrize("key", ["sha256/0B", "sha256/-5B", "sha512/B", "sha256/1.5B"])
def test_a_length_that_is_no_length_is_refused(key):
    from costbook.prices.keys import UnknownPrimitiveKey
    with pytest.raises(UnknownPrimitiveKey):
        price({key: 1}, HASHES, "python", derive=True)


def test_a_length_beyond_the_standard_is_refused_in_one_line():
    from costbook.prices.cost import PriceError
    with pytest.raises(PriceError, match=r"sha256/\d+B: sha256 takes at most 2305843009213693951 bytes"):
        price({f"sha256/{2**70}B": 1}, HASHES, "python", derive=True)


def test_no_measured_length_of_that_hash_is_no_price():
    from costbook.prices.cost import MissingPrice
    only_256 = validate({**MEASURED, "results": {"python": {"sha256/64B": entry(0.0006, 0.00058, 0.00062)}}})
    with pytest.raises(MissingPrice):
        price({"sha512/64B": 1}, only_256, "python", derive=True)
