"""BLS12-381 and BN254 in Sage: parameters, group operations and the pairing, checked against
py_ecc (equal values, element for element), arkworks and mcl (equal encodings, bilinearity)."""
import random

import pytest

from costbook.prices.counting import counting
from costbook.groups.pairing_curves import (BLS12_381, BLS12_381_X, BN254, BN254_U, InvalidEncoding, compress,
    decompress)

import py_ecc.optimized_bls12_381 as ob
import py_ecc.optimized_bn128 as on

rng = random.Random(381)
PY_ECC = {"bls12_381": ob, "bn254": on}


def test_bls12_381_parameters_follow_from_x():
    x, C = BLS12_381_X, BLS12_381
    assert C.r == x**4 - x**2 + 1 and C.r.is_prime()
    assert C.p == (x - 1)**2 * (x**4 - x**2 + 1) // 3 + x and C.p.is_prime()
    assert C.p + 1 - (x + 1) == C.params.h1 * C.r            # #E(F_p) = p + 1 - t, t = x + 1


def test_bn254_parameters_follow_from_u():
    u, C = BN254_U, BN254
    assert C.p == 36 * u**4 + 36 * u**3 + 24 * u**2 + 6 * u + 1 and C.p.is_prime()
    assert C.r == 36 * u**4 + 36 * u**3 + 18 * u**2 + 6 * u + 1 and C.r.is_prime()
    assert C.p + 1 - (6 * u**2 + 1) == C.r                    # prime order: no cofactor in G1


@pytest.mark.parametrize("C", [BLS12_381, BN254], ids=lambda c: c.name)
def test_embedding_degree_generators_and_twist(C):
    assert (C.p**12 - 1) % C.r == 0
    assert all((C.p**k - 1) % C.r for k in range(1, 12))
    assert C.in_g1(C.G1) and C.in_g2(C.G2) and not C.G1.is_zero()
    Qx, Qy = C.untwist(C.G2)                                   # psi(Q) lies on E over F_{p^12}
    assert Qy**2 == Qx**3 + C.params.b


@pytest.mark.parametrize("name", ["bls12_381", "bn254"])
def test_scalar_multiplication_matches_py_ecc(name):
    C, m = (BLS12_381 if name == "bls12_381" else BN254), PY_ECC[name]
    k = rng.randrange(1, int(C.r))
    P, Q = m.normalize(m.multiply(m.G1, k)), m.normalize(m.multiply(m.G2, k))
    mine1, mine2 = C.g1_mul(k), C.g2_mul(k)
    assert (int(mine1[0]), int(mine1[1])) == (int(P[0]), int(P[1]))
    assert [int(c) for c in list(mine2[0].polynomial()) + [0]][:2] == [int(c) for c in Q[0].coeffs]
    assert [int(c) for c in list(mine2[1].polynomial()) + [0]][:2] == [int(c) for c in Q[1].coeffs]


@pytest.mark.parametrize("name", ["bls12_381", "bn254"])
def test_pairing_value_equals_py_ecc(name):
    C, m = (BLS12_381 if name == "bls12_381" else BN254), PY_ECC[name]
    a, b = rng.randrange(1, 2**64), rng.randrange(1, 2**64)
    mine = C.pairing(C.g1_mul(a), C.g2_mul(b))
    theirs = m.pairing(m.multiply(m.G2, b), m.multiply(m.G1, a))
    assert C.fp12_coefficients(mine) == [int(c) for c in theirs.coeffs]


@pytest.mark.parametrize("C", [BLS12_381, BN254], ids=lambda c: c.name)
def test_the_split_final_exponentiation_is_the_plain_power(C):
    """The easy part by Frobenius maps and the hard part as a power give f^((p^12 - 1)/r) exactly, for
    Miller-loop outputs and for arbitrary non-zero elements of F_{p^12} (the split is an identity of
    exponents, not a property of pairing values)."""
    assert (C.p**4 - C.p**2 + 1) % C.r == 0
    assert (C.p**6 - 1) * (C.p**2 + 1) * C.hard_exponent == C.final_exponent
    fs = [C.miller_loop(C.g1_mul(rng.randrange(1, 2**64)), C.g2_mul(rng.randrange(1, 2**64))),
          C.Fp12.random_element(), C.Fp12(rng.randrange(1, int(C.p))), C.w]
    for f in fs:
        assert not f.is_zero() and C.final_exponentiation(f) == f ** C.final_exponent
    assert C.final_exponentiation(C.Fp12(0)).is_zero()


@pytest.mark.parametrize("C", [BLS12_381, BN254], ids=lambda c: c.name)
def test_bilinear_nondegenerate_and_of_order_r(C):
    a, b = rng.randrange(1, int(C.r)), rng.randrange(1, int(C.r))
    e = C.gt_generator
    assert e != 1 and e**C.r == 1
    assert C.pairing(C.g1_mul(a), C.g2_mul(b)) == e**(a * b)
    assert C.pairing(C.G1 + C.g1_mul(a), C.G2) == e * e**a            # linear in the first argument
    assert C.pairing(C.E1(0), C.G2) == 1


def test_arkworks_agrees_on_encodings_and_pairing_relations():
    ark = pytest.importorskip("py_arkworks_bls12381")
    k = rng.randrange(1, int(BLS12_381.r))
    P, Q = ark.G1Point() * ark.Scalar(k), ark.G2Point() * ark.Scalar(k)
    assert bytes(P.to_compressed_bytes()) == compress(BLS12_381.g1_mul(k))
    assert bytes(Q.to_compressed_bytes()) == compress(BLS12_381.g2_mul(k))
    a = ark.Scalar(rng.randrange(1, 2**128))
    assert ark.GT.pairing(P * a, Q) == ark.GT.pairing(P, Q * a)
    assert ark.GT.pairing(P * a, Q) != ark.GT.pairing(P, Q)
    # arkworks' own points decode here, and the subgroup checks agree
    assert decompress(bytes(P.to_compressed_bytes()), "g1") == BLS12_381.g1_mul(k)


def test_mcl_pairing_is_bilinear():
    pymcl = pytest.importorskip("pymcl")
    a = pymcl.Fr(str(rng.randrange(1, 2**128)))
    e = pymcl.pairing(pymcl.g1, pymcl.g2)
    assert pymcl.pairing(pymcl.g1 * a, pymcl.g2) == e ** a == pymcl.pairing(pymcl.g1, pymcl.g2 * a)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_compressed_encoding_round_trip_and_rejections(group):
    C = BLS12_381
    P = C.g1_mul(rng.randrange(1, int(C.r))) if group == "g1" else C.g2_mul(rng.randrange(1, int(C.r)))
    E = C.E1 if group == "g1" else C.E2
    for point in (P, -P, E(0)):
        assert decompress(compress(point), group) == point
    enc = compress(P)
    with pytest.raises(InvalidEncoding, match="must be"):
        decompress(enc[:-1], group)
    with pytest.raises(InvalidEncoding, match="compression flag"):
        decompress(bytes([enc[0] & 0x7F]) + enc[1:], group)
    with pytest.raises(InvalidEncoding, match="infinity flag"):
        decompress(bytes([0xC0]) + enc[1:], group)
    with pytest.raises(InvalidEncoding, match="canonical"):
        decompress(bytes([0x9F]) + b"\xff" * (len(enc) - 1), group)
    # a point of the curve outside the subgroup: a random point, not multiplied by the cofactor
    R = E.random_element()
    while (C.r * R).is_zero():
        R = E.random_element()
    with pytest.raises(InvalidEncoding, match="subgroup"):
        decompress(compress(R), group)
    # an x with no point above it
    x = C.Fp(5) if group == "g1" else C.Fp2([5, 1])
    while (x**3 + E.a6()).is_square():
        x += 1
    raw = (int(x).to_bytes(48, "big") if group == "g1" else
           b"".join(int(c).to_bytes(48, "big") for c in reversed(list(x.polynomial()) + [0] * (2 - len(list(x.polynomial()))))))
    with pytest.raises(InvalidEncoding, match="not the x coordinate"):
        decompress(bytes([raw[0] | 0x80]) + raw[1:], group)


def test_operations_are_counted():
    C = BN254
    with counting() as c:
        P = C.g1_mul(3)
        Q = C.g2_mul(5)
        C.gt_exp(C.pairing(P, Q), 7)
    assert c == {"bn254/g1_mul": 1, "bn254/g2_mul": 1, "bn254/pairing": 1, "bn254/gt_exp": 1}


def test_benchmarks_cover_both_curves_and_run():
    from costbook.timing.backends import pairing_curves
    benches = pairing_curves.benchmarks()
    grid = {(b.key, b.backend) for b in benches}
    for curve in ("bls12_381", "bn254"):
        for op in ("g1_mul", "g2_mul", "gt_exp", "pairing"):
            assert (f"{curve}/{op}", "sage") in grid and (f"{curve}/{op}", "py_ecc") in grid
    assert ("bls12_381/pairing", "arkworks") in grid and ("bls12_381/pairing", "mcl") in grid
    # the mixnets' light operations are measured too, so a measured file prices DB-SM's steps whole
    assert {(k, "sage") for k in pairing_curves.LIGHT_KEYS} <= grid and "bn254/g1_add" in pairing_curves.LIGHT_KEYS
    for b in benches:
        if b.backend != "py_ecc":                      # py_ecc's pure-Python setup is slow
            b.prepare()()
