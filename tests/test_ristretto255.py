"""ristretto255 (costbook.groups.ristretto255) against RFC 9496 and libsodium.

Checked three ways: the RFC's test vectors (Appendix A, reproduced below);
the group's defining properties (constants, group law, cosets, round trips);
and libsodium, an independent implementation in C, on random inputs.  Also the
libsodium binding's edge cases and the benchmarks that the measurements run.
"""
import hashlib
import random

import pytest

from costbook.timing.backends import BackendUnavailable
from costbook.prices.counting import counting
from costbook.groups import ristretto255 as R
from costbook.groups.ristretto255 import (GENERATOR, IDENTITY, Element, Fp, InvalidEncoding, decode, encode, ell,
    from_uniform_bytes, hash_from_bytes, p)

# ---------------------------------------------------------------------------
# RFC 9496, Appendix A.1: the encodings of 0*B, 1*B, ..., 15*B.

MULTIPLES_OF_B = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
    "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
    "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
    "da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
    "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
    "f64746d3c92b13050ed8d80236a7f0007c3b3f962f5ba793d19a601ebb1df403",
    "44f53520926ec81fbd5a387845beb7df85a96a24ece18738bdcfa6a7822a176d",
    "903293d8f2287ebe10e2374dc1a53e0bc887e592699f02d077d5263cdd55601c",
    "02622ace8f7303a31cafc63f8fc48fdc16e1c8c8d234b2f0d6685282a9076031",
    "20706fd788b2720a1ed2a5dad4952b01f413bcf0e7564de8cdc816689e2db95f",
    "bce83f8ba5dd2fa572864c24ba1810f9522bc6004afe95877ac73241cafdab42",
    "e4549ee16b9aa03099ca208c67adafcafa4c3f3e4e5303de6026e3ca8ff84460",
    "aa52e000df2e16f55fb1032fc33bc42742dad6bd5a8fc0be0167436c5948501f",
    "46376b80f409b29dc2b5f6f0c52591990896e5716f41477cd30085ab7f10301e",
    "e0c418f7c8d9c4cdd7395b93ea124f3ad99021bb681dfc3302a9d99a2e53e64e",
]

# RFC 9496, Appendix A.2: strings that must not decode, grouped by the reason,
# with the word of our error message that names it.
INVALID_ENCODINGS = {
    "non-canonical field element": [      # the integer is >= p
        "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ],
    "negative field element": [           # s is negative (odd)
        "0100000000000000000000000000000000000000000000000000000000000000",
        "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
        "c34c4e1826e5d403b78e246e88aa051c36ccf0aafebffe137d148a2bf9104562",
        "c940e5a4404157cfb1628b108db051a8d439e1a421394ec4ebccb9ec92a8ac78",
        "47cfc5497c53dc8e61c91d17fd626ffb1c49e2bca94eed052281b510b1117a24",
        "f1c6165d33367351b0da8f6e4511010c68174a03b6581212c71c0e1d026c3c72",
        "87260f7a2f12495118360f02c26a470f450dadf34a413d21042b43b9d93e1309",
    ],
    "non-square": [                       # x^2 would be a non-square
        "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
        "4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
        "de6a7b00deadc788eb6b6c8d20c0ae96c2f2019078fa604fee5b87d6e989ad7b",
        "bcab477be20861e01e4a0e295284146a510150d9817763caf1a6f4b422d67042",
        "2a292df7e32cababbd9de088d1d1abec9fc0440f637ed2fba145094dc14bea08",
        "f4a9e534fc0d216c44b218fa0c42d99635a0127ee2e53c712f70609649fdff22",
        "8268436f8c4126196cf64b3c7ddbda90746a378625f9813dd9b8457077256731",
        "2810e5cbc2cc4d4eece54f61c6f69758e289aa7ab440b3cbeaa21995c2f4232b",
    ],
    "x*y is negative": [                  # t = x*y < 0: not a canonical representative
        "3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
        "a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
        "d483fe813c6ba647ebbfd3ec41adca1c6130c2beeee9d9bf065c8d151c5f396e",
        "8a2e1d30050198c65a54483123960ccc38aef6848e1ec8f5f780e8523769ba32",
        "32888462f8b486c68ad7dd9610be5192bbeaf3b443951ac1a8118419d9fa097b",
        "227142501b9d4355ccba290404bde41575b037693cef1f438c47f8fbf35d1165",
        "5c37cc491da847cfeb9281d407efc41e15144c876e0170b499a96a22ed31e01e",
        "445425117cb8c90edcbc7c1cc0e74f747f2c1efa5630a967c64f287792a48a4b",
    ],
    "y = 0": [                            # s = -1
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ],
}
ALL_INVALID = [(reason, h) for reason, hs in INVALID_ENCODINGS.items() for h in hs]

# RFC 9496, Appendix A.3: element derivation, 64 uniform bytes -> encoding.  The
# inputs are SHA-512 of the seven lines below (checked in test_map_inputs_are_hashes).
FROM_UNIFORM_BYTES = [
    ("5d1be09e3d0c82fc538112490e35701979d99e06ca3e2b5b54bffe8b4dc772c1"
     "4d98b696a1bbfb5ca32c436cc61c16563790306c79eaca7705668b47dffe5bb6",
     "3066f82a1a747d45120d1740f14358531a8f04bbffe6a819f86dfe50f44a0a46"),
    ("f116b34b8f17ceb56e8732a60d913dd10cce47a6d53bee9204be8b44f6678b27"
     "0102a56902e2488c46120e9276cfe54638286b9e4b3cdb470b542d46c2068d38",
     "f26e5b6f7d362d2d2a94c5d0e7602cb4773c95a2e5c31a64f133189fa76ed61b"),
    ("8422e1bbdaab52938b81fd602effb6f89110e1e57208ad12d9ad767e2e25510c"
     "27140775f9337088b982d83d7fcf0b2fa1edffe51952cbe7365e95c86eaf325c",
     "006ccd2a9e6867e6a2c5cea83d3302cc9de128dd2a9a57dd8ee7b9d7ffe02826"),
    ("ac22415129b61427bf464e17baee8db65940c233b98afce8d17c57beeb7876c2"
     "150d15af1cb1fb824bbd14955f2b57d08d388aab431a391cfc33d5bafb5dbbaf",
     "f8f0c87cf237953c5890aec3998169005dae3eca1fbb04548c635953c817f92a"),
    ("165d697a1ef3d5cf3c38565beefcf88c0f282b8e7dbd28544c483432f1cec767"
     "5debea8ebb4e5fe7d6f6e5db15f15587ac4d4d4a1de7191e0c1ca6664abcc413",
     "ae81e7dedf20a497e10c304a765c1767a42d6e06029758d2d7e8ef7cc4c41179"),
    ("a836e6c9a9ca9f1e8d486273ad56a78c70cf18f0ce10abb1c7172ddd605d7fd2"
     "979854f47ae1ccf204a33102095b4200e5befc0465accc263175485f0e17ea5c",
     "e2705652ff9f5e44d3e841bf1c251cf7dddb77d140870d1ab2ed64f1a9ce8628"),
    ("2cdc11eaeb95daf01189417cdddbf95952993aa9cb9c640eb5058d09702c7462"
     "2c9965a697a3b345ec24ee56335b556e677b30e6f90ac77d781064f866a3c982",
     "80bd07262511cdde4863f8a7434cef696750681cb9510eea557088f76d9e5065"),
]
MAP_LABELS = [
    b"Ristretto is traditionally a short shot of espresso coffee",
    b"made with the normal amount of ground coffee but extracted with",
    b"about half the amount of water in the same amount of time",
    b"by using a finer grind.",
    b"This produces a concentrated shot of coffee per volume.",
    b"Just pulling a normal shot short will produce a weaker shot",
    b"and is not a Ristretto as some believe.",
]

# RFC 9496, Appendix A.3 (continued): inputs that differ only in non-canonical
# field encodings (t and t + p, and the ignored top bit) all give one element.
EQUIVALENT_INPUTS = [
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
    "1200000000000000000000000000000000000000000000000000000000000000",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "0000000000000000000000000000000000000000000000000000000000000080"
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000"
    "1200000000000000000000000000000000000000000000000000000000000080",
]
EQUIVALENT_OUTPUT = "304282791023b73128d277bdcb5c7746ef2eac08dde9f2983379cb8e5ef0517f"

# The four points of E[4], the coset of the identity: (0, 1), (0, -1), (+-SQRT_M1, 0).
TORSION4 = [Element(Fp(0), Fp(1), Fp(1), Fp(0)), Element(Fp(0), Fp(-1), Fp(1), Fp(0)),
            Element(R.SQRT_M1, Fp(0), Fp(1), Fp(0)), Element(-R.SQRT_M1, Fp(0), Fp(1), Fp(0))]


def on_curve(P: Element) -> bool:
    """(X : Y : Z : T) satisfies -X^2 + Y^2 = Z^2 + d T^2 and XY = ZT (extended coordinates)."""
    return (-P.X**2 + P.Y**2 == P.Z**2 + R.d * P.T**2) and P.X * P.Y == P.Z * P.T and P.Z != 0


def random_elements(n, seed):
    rng = random.Random(seed)
    return [from_uniform_bytes(rng.randbytes(64)) for _ in range(n)]


@pytest.fixture(scope="module")
def sodium():
    from costbook.timing.backends import libsodium
    try:
        libsodium.lib()
    except BackendUnavailable as e:
        pytest.skip(str(e))
    return libsodium


# ---------------------------------------------------------------------------
# Constants (RFC 9496, Section 4.1): each from its defining equation

def test_constants_satisfy_their_definitions():
    d, a = R.D, R.A
    assert p == 2**255 - 19 and a == -1
    assert d == Fp(-121665) / Fp(121666)
    assert R.SQRT_M1**2 == -1
    assert R.INVSQRT_A_MINUS_D**2 * (a - d) == 1
    assert R.SQRT_AD_MINUS_ONE**2 == a * d - 1
    assert R.ONE_MINUS_D_SQ == 1 - d**2
    assert R.D_MINUS_ONE_SQ == (d - 1) ** 2
    # The equations fix the square roots up to sign; the RFC's decimal values pick
    # the non-negative root, except for SQRT_AD_MINUS_ONE (odd, so "negative").
    assert not R.is_negative(R.SQRT_M1) and not R.is_negative(R.INVSQRT_A_MINUS_D)
    assert R.is_negative(R.SQRT_AD_MINUS_ONE)
    assert not R.is_negative(R.SQRT_MINUS_A_MINUS_2)
    assert R.SQRT_MINUS_A_MINUS_2**2 == -486664
    assert not d.is_square()                # so the Edwards addition law is complete


def test_group_order_and_generator():
    from sage.all__sagemath_schemes import ZZ
    assert ell == 2**252 + 27742317777372353535851937790883648493
    assert ZZ(ell).is_prime()
    assert on_curve(GENERATOR) and GENERATOR.Y == Fp(4) / 5 and not R.is_negative(GENERATOR.X)
    # ell * B is the identity, computed without the reduction of k mod ell that `*` does
    assert R.from_montgomery(ell * R.to_montgomery(GENERATOR)) == IDENTITY
    assert (ell - 1) * GENERATOR == -GENERATOR


def test_sqrt_ratio_m1_cases():
    u, v = Fp(4), Fp(9)
    assert R.SQRT_RATIO_M1(u, v) == (True, Fp(2) / 3 if not R.is_negative(Fp(2) / 3) else -Fp(2) / 3)
    assert R.SQRT_RATIO_M1(Fp(0), v) == (True, 0)
    assert R.SQRT_RATIO_M1(u, Fp(0)) == (False, 0)
    n = Fp(2)                               # 2 is a non-square mod p (p = 5 mod 8)
    assert not n.is_square()
    ok, r = R.SQRT_RATIO_M1(n, Fp(1))
    assert not ok and r**2 == R.SQRT_M1 * n and not R.is_negative(r)
    rng = random.Random(9496)
    for _ in range(20):
        u, v = Fp(rng.randrange(1, p)), Fp(rng.randrange(1, p))
        ok, r = R.SQRT_RATIO_M1(u, v)
        assert ok == (u / v).is_square() and not R.is_negative(r)
        assert r**2 * v == (u if ok else R.SQRT_M1 * u)


# ---------------------------------------------------------------------------
# Appendix A.1: multiples of the generator

def test_multiples_of_the_generator():
    P = IDENTITY
    for i, h in enumerate(MULTIPLES_OF_B):
        data = bytes.fromhex(h)
        assert encode(P) == data, f"{i}*B by repeated addition"
        assert encode(i * GENERATOR) == data, f"{i}*B by mul_base"
        assert encode(R.mul(GENERATOR + IDENTITY, i)) == data, f"{i}*B by variable-base mul"
        assert encode(R.mul_edwards(GENERATOR, i)) == data, f"{i}*B by mul_edwards"
        Q = decode(data)
        assert Q == P and on_curve(Q) and encode(Q) == data
        P = P + GENERATOR


# ---------------------------------------------------------------------------
# Appendix A.2: invalid encodings

@pytest.mark.parametrize("reason, h", ALL_INVALID, ids=[f"{r}-{h[:8]}" for r, h in ALL_INVALID])
def test_invalid_encodings_are_rejected_with_the_reason(reason, h):
    with pytest.raises(InvalidEncoding, match=reason.replace("*", r"\*")):
        decode(bytes.fromhex(h))


def test_invalid_encoding_is_a_value_error_and_other_inputs_are_refused():
    assert issubclass(InvalidEncoding, ValueError)
    with pytest.raises(ValueError, match="must be 32 bytes, got 31"):
        decode(bytes(31))
    with pytest.raises(TypeError, match="not str"):
        decode("00" * 32)
    with pytest.raises(ValueError, match="must be 64 bytes, got 32"):
        from_uniform_bytes(bytes(32))
    with pytest.raises(TypeError, match="not str"):
        hash_from_bytes("a message")


# ---------------------------------------------------------------------------
# Appendix A.3: element derivation (the one-way map)

@pytest.mark.parametrize("i", range(len(FROM_UNIFORM_BYTES)))
def test_from_uniform_bytes_vectors(i):
    inp, out = FROM_UNIFORM_BYTES[i]
    P = from_uniform_bytes(bytes.fromhex(inp))
    assert encode(P).hex() == out
    assert on_curve(P)


def test_map_inputs_are_hashes_and_hash_from_bytes_matches():
    for label, (inp, out) in zip(MAP_LABELS, FROM_UNIFORM_BYTES):
        assert hashlib.sha512(label).hexdigest() == inp
        assert encode(hash_from_bytes(label)).hex() == out


def test_equivalent_inputs_give_one_element():
    for inp in EQUIVALENT_INPUTS:
        assert encode(from_uniform_bytes(bytes.fromhex(inp))).hex() == EQUIVALENT_OUTPUT


# ---------------------------------------------------------------------------
# The group: law, cosets, round trips

def test_group_law():
    P, Q, S = random_elements(3, "group law")
    rng = random.Random("scalars")
    a, b = rng.randrange(ell), rng.randrange(ell)
    assert (a + b) * P == a * P + b * P
    assert a * (b * P) == (a * b) * P
    assert P + Q == Q + P and (P + Q) + S == P + (Q + S)
    assert P + IDENTITY == P and P - P == IDENTITY and (P - P).is_identity()
    assert P.double() == P + P and on_curve(P.double())
    assert 0 * P == IDENTITY and 1 * P == P and (-1) * P == -P and P * 2 == P + P
    assert R.mul_edwards(P, a) == a * P
    assert P != Q and P != IDENTITY


def test_cosets_have_one_encoding_and_compare_equal():
    for P in random_elements(5, "cosets"):
        for T in TORSION4:
            assert on_curve(T)
            PT = P + T
            assert PT == P and encode(PT) == encode(P) and hash(PT) == hash(P)
            assert 3 * PT == 3 * P
    assert all(T == IDENTITY for T in TORSION4)


def test_round_trips():
    for P in random_elements(10, "round trips") + [IDENTITY, GENERATOR, 7 * GENERATOR]:
        data = encode(P)
        Q = decode(data)
        assert Q == P and encode(Q) == data and on_curve(Q)
    rng = random.Random("random strings")
    accepted = 0
    for _ in range(200):                    # random strings: decode succeeds only on encodings
        data = rng.randbytes(32)
        try:
            Q = decode(data)
        except InvalidEncoding:
            continue
        accepted += 1
        assert encode(Q) == data
    assert 0 < accepted < 200


def test_scalars_must_be_integers():
    with pytest.raises(TypeError):
        GENERATOR * 1.5
    with pytest.raises(TypeError):
        GENERATOR * GENERATOR


def test_random_scalar_is_uniform_nonzero_mod_ell():
    rng = random.Random(1)
    ks = [R.random_scalar(rng) for _ in range(200)]
    assert all(0 < k < ell for k in ks) and len(set(ks)) == 200
    assert max(k.bit_length() for k in ks) == 252     # full size: ell is just above 2^252
    assert 0 < R.random_scalar() < ell


def test_priced_operations_are_tallied():
    P = hash_from_bytes(b"tally")
    data = encode(P)
    with counting() as c:
        Q = 5 * P
        R_ = P * 7
        B = 3 * GENERATOR
        B2 = R.mul_base(4)
        decode(encode(Q))
        from_uniform_bytes(bytes(64))
        hash_from_bytes(b"x")
        Q + R_ + B + B2 - P                  # additions are not priced
        Q == R_
    assert dict(c) == {"ristretto255/mul": 2, "ristretto255/mul_base": 2, "ristretto255/encode": 1,
                       "ristretto255/decode": 1, "ristretto255/from_hash": 2}
    assert encode(P) == data


# ---------------------------------------------------------------------------
# libsodium: an independent implementation

def test_agrees_with_libsodium_on_random_inputs(sodium):
    rng = random.Random("libsodium cross-check")
    P = from_uniform_bytes(rng.randbytes(64))
    P_bytes = encode(P)
    for _ in range(20):
        k = R.random_scalar(rng)
        assert encode(k * GENERATOR) == sodium.crypto_scalarmult_ristretto255_base(k)
        assert encode(k * P) == sodium.crypto_scalarmult_ristretto255(k, P_bytes)
        h = rng.randbytes(64)
        Q = from_uniform_bytes(h)
        assert encode(Q) == sodium.crypto_core_ristretto255_from_hash(h)
        assert encode(P + Q) == sodium.crypto_core_ristretto255_add(P_bytes, encode(Q))


def test_libsodium_agrees_on_the_rfc_vectors(sodium):
    for i, h in enumerate(MULTIPLES_OF_B):
        assert sodium.crypto_core_ristretto255_is_valid_point(bytes.fromhex(h))
        assert sodium.crypto_scalarmult_ristretto255_base(i).hex() == h
    for _, h in ALL_INVALID:
        assert not sodium.crypto_core_ristretto255_is_valid_point(bytes.fromhex(h))
    for inp, out in FROM_UNIFORM_BYTES:
        assert sodium.crypto_core_ristretto255_from_hash(bytes.fromhex(inp)).hex() == out
    for inp in EQUIVALENT_INPUTS:
        assert sodium.crypto_core_ristretto255_from_hash(bytes.fromhex(inp)).hex() == EQUIVALENT_OUTPUT


def test_libsodium_binding_identity_and_errors(sodium):
    B = bytes.fromhex(MULTIPLES_OF_B[1])
    zero = bytes(32)
    # libsodium returns -1 for an identity result; the binding returns its encoding
    assert sodium.crypto_scalarmult_ristretto255_base(0) == zero
    assert sodium.crypto_scalarmult_ristretto255_base(ell) == zero
    assert sodium.crypto_scalarmult_ristretto255(ell, B) == zero
    assert sodium.crypto_scalarmult_ristretto255(5, zero) == zero
    assert sodium.crypto_scalarmult_ristretto255(ell + 2, B).hex() == MULTIPLES_OF_B[2]
    bad = bytes.fromhex(INVALID_ENCODINGS["negative field element"][0])
    with pytest.raises(ValueError, match="not a valid ristretto255 encoding"):
        sodium.crypto_scalarmult_ristretto255(5, bad)
    with pytest.raises(ValueError, match="not a valid ristretto255 encoding"):
        sodium.crypto_core_ristretto255_add(B, bad)
    with pytest.raises(ValueError, match="must be 64 bytes"):
        sodium.crypto_core_ristretto255_from_hash(bytes(32))
    assert sodium.version().startswith("1.") and sodium.sodium_init() == 1     # 1: already initialised


def test_libsodium_missing_names_the_package(monkeypatch):
    from costbook.timing.backends import libsodium
    monkeypatch.setattr(libsodium.ctypes.util, "find_library", lambda name: None)
    with pytest.raises(BackendUnavailable, match="apt-get install libsodium23"):
        libsodium.lib.__wrapped__()


# ---------------------------------------------------------------------------
# Benchmarks

SAGE_KEYS = {"ristretto255/mul", "ristretto255/mul_base", "ristretto255/from_hash",
             "ristretto255/encode", "ristretto255/decode"}


def test_benchmarks_have_the_keys_and_run(sodium):
    from costbook.timing.backends import ristretto255 as bench
    from costbook.prices.keys import FAMILIES
    benches = bench.benchmarks()
    by_backend = {}
    for b in benches:
        by_backend.setdefault(b.backend, set()).add(b.key)
        assert any(f.match(b.key) for f in FAMILIES), b.key
    assert by_backend["sage"] == SAGE_KEYS
    assert {"ristretto255/mul", "ristretto255/mul_base", "ristretto255/from_hash"} <= by_backend["libsodium"]
    assert len(benches) == len({(b.key, b.backend) for b in benches})
    for b in benches:
        op = b.prepare()
        op()


def test_benchmarks_without_libsodium_keep_sage(monkeypatch):
    from costbook.timing.backends import libsodium
    from costbook.timing.backends import ristretto255 as bench

    def missing():
        raise BackendUnavailable("libsodium not found; apt-get install libsodium23")
    monkeypatch.setattr(libsodium, "lib", missing)
    benches = bench.benchmarks()
    assert {b.backend for b in benches} == {"sage"}
    assert {b.key for b in benches} == SAGE_KEYS
