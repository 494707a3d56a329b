"""Hashing to BLS12-381 G1 and G2, as RFC 9380 specifies it, written out in Sage.

RFC 9380 ("Hashing to Elliptic Curves") builds a random oracle to a group G from
three pieces (Section 3):

    hash_to_curve(msg) = clear_cofactor(map_to_curve(u0) + map_to_curve(u1)),
    where (u0, u1) = hash_to_field(msg, 2).

``hash_to_field`` stretches msg with SHA-256 (``expand_message_xmd``), ``map_to_curve`` is the
simplified SWU map through an isogeny (Wahby and Boneh 2019), and ``clear_cofactor`` multiplies by
h_eff into the prime-order subgroup.  The suites implemented are BLS12381G1_XMD:SHA-256_SSWU_RO_
and BLS12381G2_XMD:SHA-256_SSWU_RO_ (RFC 9380, Section 8.8), and their _NU_ twins.

This is reference code for reading, not for production: the map branches on secret data where
the RFC's straight-line versions do not (``map_to_curve_simple_swu``); the outputs are the same.

Field elements and points are Sage objects: GF(p), GF(p^2) = GF(p)[u]/(u^2 + 1)
(the RFC writes I for u), and points of ``EllipticCurve(GF(p), [0, 4])`` and
``EllipticCurve(GF(p^2), [0, 4*(1 + u)])``.
"""
from __future__ import annotations

import hashlib
import operator
from dataclasses import dataclass
from typing import Callable

from sage.all__sagemath_schemes import GF, EllipticCurve, PolynomialRing

from ..prices.counting import tally

#: the public operations that do not tally, and why no formula prices them (tests/test_groups_tally.py)
UNTALLIED = {
    **dict.fromkeys(("oversize_dst", "expand_message_xmd", "hash_to_field", "coordinates", "sgn0",
                     "map_to_curve_simple_swu", "IsogenyMap.__call__", "clear_cofactor_g1", "frobenius", "psi",
                     "psi2", "clear_cofactor_g2", "map_to_curve", "hash_to_curve", "encode_to_curve"),
                    "a step of RFC 9380's hash_to_curve, priced whole by hash_to_g1 and hash_to_g2"),
}
from . import orders

# ---------------------------------------------------------------------------
# BLS12-381 (RFC 9380, Section 8.8; the pairing-friendly-curves draft, Appendix C)

p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
r = orders.BLS12_381                 # order of G1 and G2
X_BLS = -0xd201000000010000          # the BLS parameter x: p and r are polynomials in it

Fp = GF(p)
Fp2 = GF(p**2, "u", modulus=[1, 0, 1])   # Fp[u] / (u^2 + 1); Sage prints u, the RFC writes I
I = Fp2.gen()

E1 = EllipticCurve(Fp, [0, 4])               # G1 is its subgroup of order r
E2 = EllipticCurve(Fp2, [0, 4 * (1 + I)])    # G2 is its subgroup of order r (the M-twist)

# The isogenous curves E' with A'B' != 0 that simplified SWU maps to.
E1_prime = EllipticCurve(Fp, [
    0x144698a3b8e9433d693a02c96d4982b0ea985383ee66a8d8e8981aefd881ac98936f8da0e0f97f5cf428082d584c1d,
    0x12e2908d11688030018b12e8753eee3b2016c1f0f24f4070a0b9c14fcef35ef55a23215a316ceaa5d1cc48e98e172be0,
])
E2_prime = EllipticCurve(Fp2, [240 * I, 1012 * (1 + I)])

# Z for simplified SWU (Section 6.6.2): a non-square with g'(x) - Z irreducible
# and g'(B' / (Z A')) square, so that the exceptional case still lands on E'.
Z1 = Fp(11)
Z2 = -(2 + I)

# Effective cofactors (Section 8.8): clear_cofactor(P) = h_eff * P.
H_EFF_G1 = 0xd201000000010001    # = 1 - x, Scott's trick (WB19, Section 5), not the full cofactor
H_EFF_G2 = int("bc69f08f2ee75b3584c6a0ea91b352888e2a8e9145ad7689986ff031508ffe1329c2f178731db956d82bf0"
               "15d1212b02ec0ec69d7477c1ae954cbc06689f6a359894c0adebbf6b4e8020005aaa95551", 16)

SUITE_G1 = "BLS12381G1_XMD:SHA-256_SSWU_RO_"
SUITE_G2 = "BLS12381G2_XMD:SHA-256_SSWU_RO_"
SUITE_G1_NU = "BLS12381G1_XMD:SHA-256_SSWU_NU_"
SUITE_G2_NU = "BLS12381G2_XMD:SHA-256_SSWU_NU_"

L = 64          # bytes per Fp element: ceil((ceil(log2 p) + k) / 8) = ceil((381 + 128) / 8)


# ---------------------------------------------------------------------------
# expand_message_xmd and hash_to_field (Section 5)

B_IN_BYTES = 32     # SHA-256 output
S_IN_BYTES = 64     # SHA-256 input block
MAX_DST_BYTES = 255


def _as_bytes(name: str, value) -> bytes:
    if isinstance(value, str):
        raise TypeError(f"{name} must be bytes, not str; encode it first, e.g. {name}.encode()")
    try:
        return bytes(memoryview(value))
    except TypeError:
        raise TypeError(f"{name} must be bytes, not {type(value).__name__}") from None


def _check_dst(dst) -> bytes:
    dst = _as_bytes("dst", dst)
    if len(dst) > MAX_DST_BYTES:
        raise ValueError(f"DST is {len(dst)} bytes, but expand_message_xmd takes at most "
                         f"{MAX_DST_BYTES} (RFC 9380, Section 5.3.1); shorten a longer tag "
                         "with oversize_dst() as Section 5.3.3 requires")
    if not dst:
        raise ValueError("DST must not be empty (RFC 9380, Section 3.1: tags MUST have nonzero length)")
    return dst


def oversize_dst(long_dst: bytes) -> bytes:
    """The short tag SHA-256("H2C-OVERSIZE-DST-" || DST) for a DST over 255 bytes (Section 5.3.3)."""
    return hashlib.sha256(b"H2C-OVERSIZE-DST-" + _as_bytes("long_dst", long_dst)).digest()


def expand_message_xmd(msg: bytes, dst: bytes, len_in_bytes: int) -> bytes:
    """len_in_bytes uniform bytes from msg and the tag dst, with SHA-256 (Section 5.3.1).

    b_0 = H(Z_pad || msg || I2OSP(len_in_bytes, 2) || 0x00 || DST'),
    b_1 = H(b_0 || 0x01 || DST'),  b_i = H((b_0 XOR b_(i-1)) || I2OSP(i, 1) || DST'),
    where DST' = DST || I2OSP(len(DST), 1) and Z_pad is one block of zeros.
    """
    msg = _as_bytes("msg", msg)
    dst = _check_dst(dst)
    len_in_bytes = operator.index(len_in_bytes)
    if len_in_bytes < 0:
        raise ValueError(f"len_in_bytes must be >= 0, got {len_in_bytes}")
    ell = -(-len_in_bytes // B_IN_BYTES)            # ceil(len_in_bytes / b_in_bytes)
    # The block counter is one byte, hence ell <= 255; for SHA-256 this bound
    # (8160 bytes) is tighter than the RFC's other one, len_in_bytes <= 65535.
    if ell > 255 or len_in_bytes > 65535:
        raise ValueError(f"len_in_bytes = {len_in_bytes} is too large: expand_message_xmd with "
                         f"SHA-256 produces at most 255 * {B_IN_BYTES} = {255 * B_IN_BYTES} bytes "
                         "(RFC 9380, Section 5.3.1)")
    dst_prime = dst + bytes([len(dst)])
    # Z_pad fills SHA-256's first block; with a Merkle-Damgard hash this is what
    # the indifferentiability proof needs (RFC 9380, Sections 5.3.1 and 10.6).
    z_pad = bytes(S_IN_BYTES)
    msg_prime = z_pad + msg + len_in_bytes.to_bytes(2, "big") + b"\x00" + dst_prime
    b_0 = hashlib.sha256(msg_prime).digest()
    b = [hashlib.sha256(b_0 + b"\x01" + dst_prime).digest()]
    for i in range(2, ell + 1):
        # hashing b_0 XOR b_(i-1) rather than b_0 itself spreads the inputs of the
        # successive calls apart (Section 10.6); the counter byte keeps them distinct
        mixed = bytes(x ^ y for x, y in zip(b_0, b[-1]))
        b.append(hashlib.sha256(mixed + bytes([i]) + dst_prime).digest())
    return b"".join(b)[:len_in_bytes]


def hash_to_field(msg: bytes, count: int, dst: bytes, F=Fp) -> list:
    """count elements of F = GF(p^m), m = 1 or 2, each coordinate OS2IP(64 bytes) mod p (Section 5.2):
    128 more bits than p has, so the bias is < 2^-128."""
    m = F.degree()
    uniform_bytes = expand_message_xmd(msg, dst, count * m * L)
    out = []
    for i in range(count):
        e = [int.from_bytes(uniform_bytes[L * (j + i * m): L * (j + i * m + 1)], "big") % p
             for j in range(m)]
        out.append(F(e) if m > 1 else F(e[0]))       # Fp2([e0, e1]) = e0 + e1 * I
    return out


def coordinates(x) -> list[int]:
    """The coordinates (x_0, ..., x_(m-1)) of x in GF(p^m) as integers, in the basis (1, I)."""
    return [int(c) for c in x.list()] if x.parent().degree() > 1 else [int(x)]


# ---------------------------------------------------------------------------
# sgn0 and the simplified SWU map (Sections 4.1 and 6.6.2)

def sgn0(x) -> int:
    """The "sign" of x in GF(p) or GF(p^2): parity of the first nonzero coordinate (Section 4.1).

    Exactly one of y, -y has sgn0 = 0 when y != 0, which is what lets the map
    choose a square root without caring which one the square-root routine found.
    """
    x0, *rest = coordinates(x)
    if x0 != 0 or not rest:
        return x0 % 2
    return rest[0] % 2


def map_to_curve_simple_swu(u, E_prime, Z):
    """A point of E': y^2 = g(x) = x^3 + A x + B with A*B != 0, from u in F (Section 6.6.2).

    x1 = (-B/A) (1 + 1/(Z^2 u^4 + Z u^2)) and x2 = Z u^2 x1 satisfy
    g(x2) = Z^3 u^6 g(x1); as Z is not a square, exactly one of g(x1), g(x2) is a
    square (or g(x1) = 0), so one of them is an x-coordinate on E'.

    Not constant time: the RFC's straight-line versions (Appendix F, with ``sqrt_ratio``) avoid
    secret-dependent branches; here the map branches on ``is_square`` and calls Sage's square root,
    the formulation of Section 6.6.2.  The output is the same: x is determined by which of g(x1),
    g(x2) is square, and the sign of y is fixed by sgn0, so it does not matter which square root
    Sage returns.  Timing leaks do, in production.
    """
    A, B = E_prime.a4(), E_prime.a6()

    def g(x):
        return x**3 + A * x + B

    tv1 = Z**2 * u**4 + Z * u**2
    if tv1 == 0:
        # the exceptional inputs (u = 0 among them): B / (Z A) is chosen so g of it is square
        x1 = B / (Z * A)
    else:
        x1 = (-B / A) * (1 + 1 / tv1)
    gx1 = g(x1)
    if gx1.is_square():
        x, y = x1, gx1.sqrt()
    else:
        x2 = Z * u**2 * x1
        x, y = x2, g(x2).sqrt()
    if sgn0(u) != sgn0(y):     # u and -u give the same x; the sign of y tells them apart
        y = -y
    return E_prime(x, y)


# ---------------------------------------------------------------------------
# The isogeny maps E' -> E (Appendix E.2 and E.3)

@dataclass(frozen=True)
class IsogenyMap:
    """(x', y') |-> (x_num(x') / x_den(x'), y' * y_num(x') / y_den(x')), a rational map E' -> E.

    The polynomials are Sage polynomials in x over the base field; their
    coefficients k_(i,j) are the constants of RFC 9380, Appendix E.
    """
    E_prime: object
    E: object
    x_num: object
    x_den: object
    y_num: object
    y_den: object

    def __call__(self, P):
        if P.is_zero():
            return self.E(0)
        xp, yp = P.xy()
        x_den, y_den = self.x_den(xp), self.y_den(xp)
        if x_den == 0 or y_den == 0:
            # x' is the x-coordinate of a kernel point: the image is the identity (Section 6.6.3)
            return self.E(0)
        return self.E(self.x_num(xp) / x_den, yp * self.y_num(xp) / y_den)


def _poly(F, coefficients):
    """The polynomial sum k_j x^j over F, given k_0, k_1, ... (lowest degree first, as the RFC lists them)."""
    return PolynomialRing(F, "x")([F(k) for k in coefficients])


# 11-isogeny E1' -> E1, Appendix E.2.  x_den and y_den are monic: their leading 1 is appended.
ISO_11 = IsogenyMap(E1_prime, E1,
    x_num=_poly(Fp, [
        0x11a05f2b1e833340b809101dd99815856b303e88a2d7005ff2627b56cdb4e2c85610c2d5f2e62d6eaeac1662734649b7,
        0x17294ed3e943ab2f0588bab22147a81c7c17e75b2f6a8417f565e33c70d1e86b4838f2a6f318c356e834eef1b3cb83bb,
        0xd54005db97678ec1d1048c5d10a9a1bce032473295983e56878e501ec68e25c958c3e3d2a09729fe0179f9dac9edcb0,
        0x1778e7166fcc6db74e0609d307e55412d7f5e4656a8dbf25f1b33289f1b330835336e25ce3107193c5b388641d9b6861,
        0xe99726a3199f4436642b4b3e4118e5499db995a1257fb3f086eeb65982fac18985a286f301e77c451154ce9ac8895d9,
        0x1630c3250d7313ff01d1201bf7a74ab5db3cb17dd952799b9ed3ab9097e68f90a0870d2dcae73d19cd13c1c66f652983,
        0xd6ed6553fe44d296a3726c38ae652bfb11586264f0f8ce19008e218f9c86b2a8da25128c1052ecaddd7f225a139ed84,
        0x17b81e7701abdbe2e8743884d1117e53356de5ab275b4db1a682c62ef0f2753339b7c8f8c8f475af9ccb5618e3f0c88e,
        0x80d3cf1f9a78fc47b90b33563be990dc43b756ce79f5574a2c596c928c5d1de4fa295f296b74e956d71986a8497e317,
        0x169b1f8e1bcfa7c42e0c37515d138f22dd2ecb803a0c5c99676314baf4bb1b7fa3190b2edc0327797f241067be390c9e,
        0x10321da079ce07e272d8ec09d2565b0dfa7dccdde6787f96d50af36003b14866f69b771f8c285decca67df3f1605fb7b,
        0x6e08c248e260e70bd1e962381edee3d31d79d7e22c837bc23c0bf1bc24c6b68c24b1b80b64d391fa9c8ba2e8ba2d229,
    ]),
    x_den=_poly(Fp, [
        0x8ca8d548cff19ae18b2e62f4bd3fa6f01d5ef4ba35b48ba9c9588617fc8ac62b558d681be343df8993cf9fa40d21b1c,
        0x12561a5deb559c4348b4711298e536367041e8ca0cf0800c0126c2588c48bf5713daa8846cb026e9e5c8276ec82b3bff,
        0xb2962fe57a3225e8137e629bff2991f6f89416f5a718cd1fca64e00b11aceacd6a3d0967c94fedcfcc239ba5cb83e19,
        0x3425581a58ae2fec83aafef7c40eb545b08243f16b1655154cca8abc28d6fd04976d5243eecf5c4130de8938dc62cd8,
        0x13a8e162022914a80a6f1d5f43e7a07dffdfc759a12062bb8d6b44e833b306da9bd29ba81f35781d539d395b3532a21e,
        0xe7355f8e4e667b955390f7f0506c6e9395735e9ce9cad4d0a43bcef24b8982f7400d24bc4228f11c02df9a29f6304a5,
        0x772caacf16936190f3e0c63e0596721570f5799af53a1894e2e073062aede9cea73b3538f0de06cec2574496ee84a3a,
        0x14a7ac2a9d64a8b230b3f5b074cf01996e7f63c21bca68a81996e1cdf9822c580fa5b9489d11e2d311f7d99bbdcc5a5e,
        0xa10ecf6ada54f825e920b3dafc7a3cce07f8d1d7161366b74100da67f39883503826692abba43704776ec3a79a1d641,
        0x95fc13ab9e92ad4476d6e3eb3a56680f682b4ee96f7d03776df533978f31c1593174e4b4b7865002d6384d168ecdd0a,
        1,
    ]),
    y_num=_poly(Fp, [
        0x90d97c81ba24ee0259d1f094980dcfa11ad138e48a869522b52af6c956543d3cd0c7aee9b3ba3c2be9845719707bb33,
        0x134996a104ee5811d51036d776fb46831223e96c254f383d0f906343eb67ad34d6c56711962fa8bfe097e75a2e41c696,
        0xcc786baa966e66f4a384c86a3b49942552e2d658a31ce2c344be4b91400da7d26d521628b00523b8dfe240c72de1f6,
        0x1f86376e8981c217898751ad8746757d42aa7b90eeb791c09e4a3ec03251cf9de405aba9ec61deca6355c77b0e5f4cb,
        0x8cc03fdefe0ff135caf4fe2a21529c4195536fbe3ce50b879833fd221351adc2ee7f8dc099040a841b6daecf2e8fedb,
        0x16603fca40634b6a2211e11db8f0a6a074a7d0d4afadb7bd76505c3d3ad5544e203f6326c95a807299b23ab13633a5f0,
        0x4ab0b9bcfac1bbcb2c977d027796b3ce75bb8ca2be184cb5231413c4d634f3747a87ac2460f415ec961f8855fe9d6f2,
        0x987c8d5333ab86fde9926bd2ca6c674170a05bfe3bdd81ffd038da6c26c842642f64550fedfe935a15e4ca31870fb29,
        0x9fc4018bd96684be88c9e221e4da1bb8f3abd16679dc26c1e8b6e6a1f20cabe69d65201c78607a360370e577bdba587,
        0xe1bba7a1186bdb5223abde7ada14a23c42a0ca7915af6fe06985e7ed1e4d43b9b3f7055dd4eba6f2bafaaebca731c30,
        0x19713e47937cd1be0dfd0b8f1d43fb93cd2fcbcb6caf493fd1183e416389e61031bf3a5cce3fbafce813711ad011c132,
        0x18b46a908f36f6deb918c143fed2edcc523559b8aaf0c2462e6bfe7f911f643249d9cdf41b44d606ce07c8a4d0074d8e,
        0xb182cac101b9399d155096004f53f447aa7b12a3426b08ec02710e807b4633f06c851c1919211f20d4c04f00b971ef8,
        0x245a394ad1eca9b72fc00ae7be315dc757b3b080d4c158013e6632d3c40659cc6cf90ad1c232a6442d9d3f5db980133,
        0x5c129645e44cf1102a159f748c4a3fc5e673d81d7e86568d9ab0f5d396a7ce46ba1049b6579afb7866b1e715475224b,
        0x15e6be4e990f03ce4ea50b3b42df2eb5cb181d8f84965a3957add4fa95af01b2b665027efec01c7704b456be69c8b604,
    ]),
    y_den=_poly(Fp, [
        0x16112c4c3a9c98b252181140fad0eae9601a6de578980be6eec3232b5be72e7a07f3688ef60c206d01479253b03663c1,
        0x1962d75c2381201e1a0cbd6c43c348b885c84ff731c4d59ca4a10356f453e01f78a4260763529e3532f6102c2e49a03d,
        0x58df3306640da276faaae7d6e8eb15778c4855551ae7f310c35a5dd279cd2eca6757cd636f96f891e2538b53dbf67f2,
        0x16b7d288798e5395f20d23bf89edb4d1d115c5dbddbcd30e123da489e726af41727364f2c28297ada8d26d98445f5416,
        0xbe0e079545f43e4b00cc912f8228ddcc6d19c9f0f69bbb0542eda0fc9dec916a20b15dc0fd2ededda39142311a5001d,
        0x8d9e5297186db2d9fb266eaac783182b70152c65550d881c5ecd87b6f0f5a6449f38db9dfa9cce202c6477faaf9b7ac,
        0x166007c08a99db2fc3ba8734ace9824b5eecfdfa8d0cf8ef5dd365bc400a0051d5fa9c01a58b1fb93d1a1399126a775c,
        0x16a3ef08be3ea7ea03bcddfabba6ff6ee5a4375efa1f4fd7feb34fd206357132b920f5b00801dee460ee415a15812ed9,
        0x1866c8ed336c61231a1be54fd1d74cc4f9fb0ce4c6af5920abc5750c4bf39b4852cfe2f7bb9248836b233d9d55535d4a,
        0x167a55cda70a6e1cea820597d94a84903216f763e13d87bb5308592e7ea7d4fbc7385ea3d529b35e346ef48bb8913f55,
        0x4d2f259eea405bd48f010a01ad2911d9c6dd039bb61a6290e591b36e636a5c871a5c29f4f83060400f8b49cba8f6aa8,
        0xaccbb67481d033ff5852c1e48c50c477f94ff8aefce42d28c0f9a88cea7913516f968986f7ebbea9684b529e2561092,
        0xad6b9514c767fe3c3613144b45f1496543346d98adf02267d5ceef9a00d9b8693000763e3b90ac11e99b138573345cc,
        0x2660400eb2e4f3b628bdd0d53cd76f2bf565b94e72927c1cb748df27942480e420517bd8714cc80d1fadc1326ed06f7,
        0xe0fa1d816ddc03e6b24255e0d7819c171c40f65e273b853324efcd6356caa205ca2f570f13497804415473a1d634b8f,
        1,
    ]),
)


def _fp2(c0, c1=0):
    """c0 + c1 * I in Fp2, as RFC 9380 writes its constants."""
    return Fp2([c0, c1])


# 3-isogeny E2' -> E2, Appendix E.3.  Many constants are small numbers mod p written
# as p - k (e.g. k_(2,0) = -72 I, k_(2,1) = 12 - 12 I); they are kept as the RFC prints them.
ISO_3 = IsogenyMap(E2_prime, E2,
    x_num=_poly(Fp2, [
        _fp2(0x5c759507e8e333ebb5b7a9a47d7ed8532c52d39fd3a042a88b58423c50ae15d5c2638e343d9c71c6238aaaaaaaa97d6,
             0x5c759507e8e333ebb5b7a9a47d7ed8532c52d39fd3a042a88b58423c50ae15d5c2638e343d9c71c6238aaaaaaaa97d6),
        _fp2(0,
             0x11560bf17baa99bc32126fced787c88f984f87adf7ae0c7f9a208c6b4f20a4181472aaa9cb8d555526a9ffffffffc71a),
        _fp2(0x11560bf17baa99bc32126fced787c88f984f87adf7ae0c7f9a208c6b4f20a4181472aaa9cb8d555526a9ffffffffc71e,
             0x8ab05f8bdd54cde190937e76bc3e447cc27c3d6fbd7063fcd104635a790520c0a395554e5c6aaaa9354ffffffffe38d),
        _fp2(0x171d6541fa38ccfaed6dea691f5fb614cb14b4e7f4e810aa22d6108f142b85757098e38d0f671c7188e2aaaaaaaa5ed1),
    ]),
    x_den=_poly(Fp2, [
        _fp2(0,
             0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaa63),
        _fp2(0xc,
             0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaa9f),
        1,
    ]),
    y_num=_poly(Fp2, [
        _fp2(0x1530477c7ab4113b59a4c18b076d11930f7da5d4a07f649bf54439d87d27e500fc8c25ebf8c92f6812cfc71c71c6d706,
             0x1530477c7ab4113b59a4c18b076d11930f7da5d4a07f649bf54439d87d27e500fc8c25ebf8c92f6812cfc71c71c6d706),
        _fp2(0,
             0x5c759507e8e333ebb5b7a9a47d7ed8532c52d39fd3a042a88b58423c50ae15d5c2638e343d9c71c6238aaaaaaaa97be),
        _fp2(0x11560bf17baa99bc32126fced787c88f984f87adf7ae0c7f9a208c6b4f20a4181472aaa9cb8d555526a9ffffffffc71c,
             0x8ab05f8bdd54cde190937e76bc3e447cc27c3d6fbd7063fcd104635a790520c0a395554e5c6aaaa9354ffffffffe38f),
        _fp2(0x124c9ad43b6cf79bfbf7043de3811ad0761b0f37a1e26286b0e977c69aa274524e79097a56dc4bd9e1b371c71c718b10),
    ]),
    y_den=_poly(Fp2, [
        _fp2(0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffa8fb,
             0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffa8fb),
        _fp2(0,
             0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffa9d3),
        _fp2(0x12,
             0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaa99),
        1,
    ]),
)


# ---------------------------------------------------------------------------
# Clearing the cofactor (Section 7; Appendix G.3 for G2)

def clear_cofactor_g1(P):
    """h_eff * P with h_eff = 1 - x = 0xd201000000010001: a point of G1 for any P on E1."""
    return H_EFF_G1 * P


def frobenius(a):
    """a^p in Fp2, i.e. the conjugate a0 - a1 I of a = a0 + a1 I."""
    a0, a1 = a.list()
    return Fp2([a0, -a1])


# psi = (twist)^-1 o Frobenius o twist: an endomorphism of E2 acting on G2 as
# multiplication by p.  Its constants, straight from their definitions.
PSI_C1 = 1 / (1 + I) ** ((p - 1) // 3)
PSI_C2 = 1 / (1 + I) ** ((p - 1) // 2)
PSI2_C1 = 1 / Fp2(2) ** ((p - 1) // 3)


def psi(P):
    """psi(x, y) = (c1 * frobenius(x), c2 * frobenius(y)) on E2."""
    if P.is_zero():
        return P
    x, y = P.xy()
    return E2(PSI_C1 * frobenius(x), PSI_C2 * frobenius(y))


def psi2(P):
    """psi(psi(P)) in one step: (c * x, -y), c = 1 / 2^((p - 1)/3)."""
    if P.is_zero():
        return P
    x, y = P.xy()
    return E2(PSI2_C1 * x, -y)


def clear_cofactor_g2(P):
    """h_eff * P for the G2 h_eff, computed as Budroni and Pintore do (Appendix G.3).

    h_eff * P = (x^2 - x - 1) P + (x - 1) psi(P) + psi^2(2P), with x the BLS
    parameter: two multiplications by the 64-bit x instead of one by the
    636-bit h_eff.  (The step order below is the RFC's.)
    """
    c1 = X_BLS
    t1 = c1 * P
    t2 = psi(P)
    t3 = psi2(2 * P)
    t3 = t3 - t2
    t2 = c1 * (t1 + t2)
    t3 = t3 + t2
    t3 = t3 - t1
    return t3 - P


# ---------------------------------------------------------------------------
# The suites and the public encodings (Sections 3 and 8.8)

@dataclass(frozen=True)
class Suite:
    """What a BLS12-381 hash-to-curve suite fixes: the field, Z, the isogeny and clear_cofactor."""
    name: str
    F: object
    Z: object
    iso_map: IsogenyMap
    clear_cofactor: Callable


G1_SUITE = Suite(SUITE_G1, Fp, Z1, ISO_11, clear_cofactor_g1)
G2_SUITE = Suite(SUITE_G2, Fp2, Z2, ISO_3, clear_cofactor_g2)


def map_to_curve(u, suite: Suite):
    """Simplified SWU onto E', then the isogeny to E (Section 6.6.3): a point of E, not yet of G.
    Simplified SWU needs y^2 = x^3 + A x + B with A*B != 0, but BLS12-381 has A = 0; so it maps to a
    curve E' isogenous to E (an 11-isogeny for G1, a 3-isogeny for G2) and pushes the point through
    the isogeny ``iso_map``."""
    return suite.iso_map(map_to_curve_simple_swu(u, suite.iso_map.E_prime, suite.Z))


def hash_to_curve(msg: bytes, dst: bytes, suite: Suite):
    """The random-oracle encoding (Section 3): clear_cofactor(map(u0) + map(u1)).  Adding two mapped
    points before clearing is what makes the output distribution statistically close to uniform.

    (Adding on E' and mapping once through the isogeny would save one iso_map,
    Section 6.6.3; mapping each point keeps Q0 and Q1 comparable with the RFC's vectors.)
    """
    u0, u1 = hash_to_field(msg, 2, dst, suite.F)
    Q0 = map_to_curve(u0, suite)
    Q1 = map_to_curve(u1, suite)
    return suite.clear_cofactor(Q0 + Q1)


def encode_to_curve(msg: bytes, dst: bytes, suite: Suite):
    """The nonuniform encoding (Section 3): clear_cofactor(map(u)) for a single u, not close to
    uniform (the NU suites)."""
    (u,) = hash_to_field(msg, 1, dst, suite.F)
    return suite.clear_cofactor(map_to_curve(u, suite))


def hash_to_g1(msg: bytes, dst: bytes):
    """BLS12381G1_XMD:SHA-256_SSWU_RO_: msg to a point of G1 on E1 (priced as bls12_381/hash_to_g1)."""
    tally("bls12_381/hash_to_g1")
    return hash_to_curve(msg, dst, G1_SUITE)


def hash_to_g2(msg: bytes, dst: bytes):
    """BLS12381G2_XMD:SHA-256_SSWU_RO_: msg to a point of G2 on E2 (priced as bls12_381/hash_to_g2)."""
    tally("bls12_381/hash_to_g2")
    return hash_to_curve(msg, dst, G2_SUITE)


def encode_to_g1(msg: bytes, dst: bytes):
    """BLS12381G1_XMD:SHA-256_SSWU_NU_ (nonuniform).  Tallies ``bls12_381/encode_to_g1``, which no
    measurement prices yet: a scheme that uses it is refused by the scheme contract until one does."""
    tally("bls12_381/encode_to_g1")
    return encode_to_curve(msg, dst, G1_SUITE)


def encode_to_g2(msg: bytes, dst: bytes):
    """BLS12381G2_XMD:SHA-256_SSWU_NU_ (nonuniform).  Tallies ``bls12_381/encode_to_g2`` (see
    ``encode_to_g1``)."""
    tally("bls12_381/encode_to_g2")
    return encode_to_curve(msg, dst, G2_SUITE)
