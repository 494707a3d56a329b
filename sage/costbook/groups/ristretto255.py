"""ristretto255, the prime-order group of RFC 9496, written out in Sage.

edwards25519 is the twisted Edwards curve

    E:  a x^2 + y^2 = 1 + d x^2 y^2,   a = -1,  d = -121665/121666,

over GF(p), p = 2^255 - 19.  It has 8*ell points, ell = 2^252 + 27742...493 a
prime, so protocols that need a group of prime order must somehow get rid of
the cofactor 8.  Ristretto (Hamburg's Decaf, adapted to cofactor 8 by de
Valence et al.) does it by *quotienting*: an element of ristretto255 is a coset
P + E[4] with P in the even subgroup 2E, and 2E / E[4] has exactly ell
elements.  Everything below works on one representative point of the coset
and never lets the choice show: ``encode``, ``decode``, ``==`` (``Element``) and
``from_uniform_bytes`` are RFC 9496's Sections 4.3.1 to 4.3.4.

Points are kept in extended twisted Edwards coordinates (X : Y : Z : T) with
x = X/Z, y = Y/Z, x*y = T/Z (Hisil, Wong, Carter, Dawson 2008), as Sage field
elements of ``GF(2^255 - 19)``.  This is reference code for reading, not for
production: it branches on secret data where the RFC's CT_SELECT does not, and
Sage's arithmetic is not constant time.  The outputs are the same.

Priced operations tally their key (``costbook.prices.counting.tally``): ``ristretto255/mul``
(k*P), ``ristretto255/mul_base`` (k*GENERATOR), ``ristretto255/from_hash`` (the one-way map),
``ristretto255/encode`` and ``ristretto255/decode`` (also the membership check ``in_group`` of an
element taken from outside).  Additions, negations and equality tests are not priced.
"""
from __future__ import annotations

import functools
import hashlib
import operator
import random

from sage.all__sagemath_schemes import GF, EllipticCurve

from ..prices.counting import tally

#: the public operations that do not tally, and why no formula prices them (tests/test_groups_tally.py)
UNTALLIED = {
    **dict.fromkeys(("Element.__add__", "Element.__sub__", "Element.__neg__", "Element.double"),
                    "a point addition, negation or doubling: no priced primitive on ristretto255 (a native "
                    "library adds in about 1% of a multiplication's time); a step adding many points shows it "
                    "in its validation"),
    **dict.fromkeys(("Element.__eq__", "Element.is_identity", "is_element"),
                    "a comparison or curve-equation check of a few field products (membership is in_group, "
                    "which decodes, tallied)"),
    **dict.fromkeys(("is_negative", "ct_abs", "SQRT_RATIO_M1"),
                    "a field helper of RFC 9496's encoding and decoding, priced inside them"),
    **dict.fromkeys(("to_montgomery", "from_montgomery"),
                    "a change of coordinates inside the multiplication, priced with it"),
    "mul": "the function form of Element.__mul__ (P * k), which tallies ristretto255/mul",
    "random_scalar": "draws a scalar: no group operation",
}
from . import orders

# ---------------------------------------------------------------------------
# The field and the constants (RFC 9496, Section 4.1)

p = 2**255 - 19
Fp = GF(p)

#: the order of ristretto255 (and of the prime-order subgroup of edwards25519)
ell = orders.RISTRETTO255

# The RFC gives each constant as a decimal number; tests/test_ristretto255.py
# checks each against its defining equation.  For the square roots the value
# also fixes the sign: SQRT_M1 and INVSQRT_A_MINUS_D are the non-negative roots,
# SQRT_AD_MINUS_ONE happens to be the negative (odd) one.
D = Fp(37095705934669439343138083508754565189542113879843219016388785533085940283555)
SQRT_M1 = Fp(19681161376707505956807079304988542015446066515923890162744021073123829784752)
SQRT_AD_MINUS_ONE = Fp(25063068953384623474111414158702152701244531502492656460079210482610430750235)
INVSQRT_A_MINUS_D = Fp(54469307008909316920995813868745141605393597292927456921205312896311721017578)
ONE_MINUS_D_SQ = Fp(1159843021668779879193775521855586647937357759715417654439879720876111806838)
D_MINUS_ONE_SQ = Fp(40440834346308536858101042469323190826248399146238708352240133220865137265952)

A = Fp(-1)          # the twisted Edwards coefficient a of edwards25519
d = D               # the curve's d, under the name the formulas use

ONE = Fp(1)


class InvalidEncoding(ValueError):
    """A byte string that is not the canonical encoding of a ristretto255 element."""


# ---------------------------------------------------------------------------
# Field helpers: signs and square roots (RFC 9496, Sections 4.1 and 4.2)

def is_negative(x) -> bool:
    """IS_NEGATIVE: a field element is negative iff its canonical value is odd."""
    return bool(int(x) & 1)


def ct_abs(x):
    """CT_ABS: of x and -x, the one that is not negative."""
    return -x if is_negative(x) else x


def SQRT_RATIO_M1(u, v):
    """(was_square, r) with r the non-negative square root of u/v, or of SQRT_M1*u/v.

    Returns
      (True,  +sqrt(u/v))            if u and v are nonzero and u/v is square,
      (True,  0)                     if u is zero,
      (False, 0)                     if v is zero and u is not,
      (False, +sqrt(SQRT_M1 * u/v))  if u and v are nonzero and u/v is not square.

    One exponentiation and no inversion.  With r = u v^3 (u v^7)^((p-5)/8),
    v r^2 = u (u/v)^((p-1)/4), and (u/v)^((p-1)/4) is a fourth root of unity:
    +-1 if u/v is a square, +-SQRT_M1 if not.  Multiplying r by SQRT_M1 turns
    the cases -u and -SQRT_M1*u into u and SQRT_M1*u, so r ends as a root of
    u/v or of SQRT_M1*u/v (a square when u/v is not, since SQRT_M1 is not a
    square for p = 5 mod 8).  The sign is then fixed to non-negative.
    """
    r = (u * v**3) * (u * v**7) ** ((p - 5) // 8)
    check = v * r**2
    correct_sign_sqrt = check == u
    flipped_sign_sqrt = check == -u
    flipped_sign_sqrt_i = check == -u * SQRT_M1
    if flipped_sign_sqrt or flipped_sign_sqrt_i:
        r = SQRT_M1 * r
    return correct_sign_sqrt or flipped_sign_sqrt, ct_abs(r)


def _field_bytes(x) -> bytes:
    """The 32-byte little-endian encoding of a field element."""
    return int(x).to_bytes(32, "little")


def _as_bytes(name: str, value, length: int) -> bytes:
    if isinstance(value, str):
        raise TypeError(f"{name} must be bytes, not str (for hex, use bytes.fromhex)")
    try:
        data = bytes(memoryview(value))
    except TypeError:
        raise TypeError(f"{name} must be bytes, not {type(value).__name__}") from None
    if len(data) != length:
        raise ValueError(f"{name} must be {length} bytes, got {len(data)}")
    return data


def _scalar(k) -> int:
    """An integer scalar reduced mod ell (the group has order ell, so only k mod ell matters)."""
    return operator.index(k) % ell


# ---------------------------------------------------------------------------
# Elements and the group law

class Element:
    """A ristretto255 element, held as one point (X : Y : Z : T) of its coset in edwards25519.

    Two elements are equal when their cosets are (RFC 9496, Section 4.3.3): ``==`` compares
    cosets, not points, so never compare coordinates; compare elements or their encodings.
    """
    __slots__ = ("X", "Y", "Z", "T")

    def __init__(self, X, Y, Z, T):
        self.X, self.Y, self.Z, self.T = X, Y, Z, T

    # The group law.  Edwards addition is complete on edwards25519 (d is not a
    # square), so one formula covers doubling, the identity and inverses alike;
    # and the coset of P + Q depends only on the cosets of P and Q, so adding
    # representatives adds elements.

    def __add__(self, other: "Element") -> "Element":
        """Unified addition, add-2008-hwcd-3 for a = -1 (8M and one by 2d): no special cases."""
        if not isinstance(other, Element):
            return NotImplemented
        X1, Y1, Z1, T1 = self.X, self.Y, self.Z, self.T
        X2, Y2, Z2, T2 = other.X, other.Y, other.Z, other.T
        a_ = (Y1 - X1) * (Y2 - X2)
        b_ = (Y1 + X1) * (Y2 + X2)
        c_ = 2 * d * T1 * T2
        d_ = 2 * Z1 * Z2
        e, f, g, h = b_ - a_, d_ - c_, d_ + c_, b_ + a_
        return Element(e * f, g * h, f * g, e * h)

    def __neg__(self) -> "Element":
        """-(x, y) = (-x, y) on a twisted Edwards curve."""
        return Element(-self.X, self.Y, self.Z, -self.T)

    def __sub__(self, other: "Element") -> "Element":
        if not isinstance(other, Element):
            return NotImplemented
        return self + (-other)

    def double(self) -> "Element":
        """2P by dbl-2008-hwcd (4M + 4S), cheaper than P + P; T1 is not needed."""
        X1, Y1, Z1 = self.X, self.Y, self.Z
        a_ = X1**2
        b_ = Y1**2
        c_ = 2 * Z1**2
        d_ = -a_                        # a * X1^2 with a = -1
        e = (X1 + Y1) ** 2 - a_ - b_    # 2 X1 Y1
        g = d_ + b_
        f = g - c_
        h = d_ - b_
        return Element(e * f, g * h, f * g, e * h)

    def __eq__(self, other) -> bool:
        """Coset equality: x1*y2 == y1*x2 or y1*y2 == x1*x2 (projective: Z cancels)."""
        if not isinstance(other, Element):
            return NotImplemented
        return (self.X * other.Y == self.Y * other.X
                or self.Y * other.Y == self.X * other.X)

    def __hash__(self):
        return hash(_encode(self))      # equal elements have equal encodings

    def is_identity(self) -> bool:
        return self == IDENTITY

    # Scalar multiplication: integers act on the left or the right.

    def __mul__(self, k) -> "Element":
        """k*P for an integer k (tallied ``ristretto255/mul``; ``mul_base`` for the generator)."""
        try:
            k = _scalar(k)
        except TypeError:
            return NotImplemented
        if self is GENERATOR:
            return mul_base(k)
        tally("ristretto255/mul")
        return _mul(self, k)

    __rmul__ = __mul__

    def encode(self) -> bytes:
        return encode(self)

    def __bytes__(self) -> bytes:
        return _encode(self)

    def __repr__(self) -> str:
        return f"ristretto255.Element({_encode(self).hex()})"


def is_element(P) -> bool:
    """P is an Element whose coordinates are a point of edwards25519 in extended coordinates
    (-X^2 + Y^2 = Z^2 + d T^2, X Y = Z T, Z != 0).  A few field products, not tallied.

    That is not yet a ristretto255 element: only the points of the even subgroup 2E represent one
    (an element is a coset P + E[4] with P in 2E).  A point of 2E plus a point of order 8 is on the
    curve, but in no coset: k times it lands in the element of kP or off it as k is even or odd, so
    a proof about it can pass for one challenge in two.  A verifier that takes an Element from
    outside checks ``in_group``."""
    if not isinstance(P, Element):
        return False
    X, Y, Z, T = P.X, P.Y, P.Z, P.T
    if not all(getattr(c, "parent", None) is not None and c.parent() is Fp for c in (X, Y, Z, T)):
        return False
    return Z != 0 and -X**2 + Y**2 == Z**2 + d * T**2 and X * Y == Z * T


def in_group(P) -> bool:
    """P represents a ristretto255 element: a point of edwards25519 in the even subgroup 2E.

    Checked as a verifier that receives the element's 32 bytes checks them: by decoding them
    (tallied ``ristretto255/decode``; the bytes are those ``bytes(P)`` gives, the ones a transcript
    hashes, so the encoding is the message and not a priced step).  Decoding accepts exactly the
    canonical encodings and returns a point of 2E; P is in the group iff that point is in P's coset.
    A point P off 2E fails either way: its bytes decode to nothing, or to a point Q of 2E, and
    Q - P is then not in E[4] (which lies in 2E), so the coset test (x1 y2 = y1 x2 or y1 y2 = x1 x2,
    valid for any two points: it says Q - P is one of the four points of E[4]) is false."""
    if not is_element(P):
        return False
    try:
        return decode(_encode(P)) == P
    except (InvalidEncoding, ArithmeticError):
        return False


#: the neutral element, the coset of (0, 1) (it also holds (0, -1) and (+-SQRT_M1, 0))
IDENTITY = Element(Fp(0), ONE, ONE, Fp(0))


def _edwards_x(y):
    """The non-negative x with (x, y) on edwards25519: x^2 = (y^2 - 1)/(d y^2 + 1), as a = -1."""
    ok, x = SQRT_RATIO_M1(y**2 - 1, d * y**2 + 1)
    if not ok:
        raise ValueError(f"no point of edwards25519 has y = {y}")
    return x


def _affine(x, y) -> Element:
    return Element(x, y, ONE, x * y)


#: the generator: the coset of edwards25519's base point B, y = 4/5, x non-negative (RFC 8032)
GENERATOR = _affine(_edwards_x(Fp(4) / 5), Fp(4) / 5)


# ---------------------------------------------------------------------------
# Decode, encode (RFC 9496, Sections 4.3.1 and 4.3.2)

def decode(data: bytes) -> Element:
    """The element encoded by 32 bytes (RFC 9496, Section 4.3.1): one point of the coset; raises
    InvalidEncoding (a ValueError) naming the reason for anything but a canonical string.

    The bytes hold one field element s.  Inverting ``encode``, the point is

        y = (1 - s^2) / (1 + s^2),   x = |2 s / sqrt(v)|,   v = -d (1 - s^2)^2 - (1 + s^2)^2,

    computed as the RFC does, with one SQRT_RATIO_M1 (of 1 / (v (1 + s^2)^2))
    and no inversion.  A string is accepted iff s is canonical (< p) and
    non-negative, sqrt(v) exists, t = xy is non-negative and y != 0: exactly
    the strings that ``encode`` produces, one per element.
    """
    tally("ristretto255/decode")
    data = _as_bytes("a ristretto255 encoding", data, 32)
    s_int = int.from_bytes(data, "little")
    if s_int >= p:
        raise InvalidEncoding(f"non-canonical field element: {data.hex()} is an integer >= p = 2^255 - 19")
    s = Fp(s_int)
    if is_negative(s):
        raise InvalidEncoding(f"negative field element: {data.hex()} encodes an odd s, "
                              "and encode only writes non-negative (even) s")
    ss = s**2
    u1 = ONE - ss
    u2 = ONE + ss
    u2_sqr = u2**2
    v = -(d * u1**2) - u2_sqr
    was_square, invsqrt = SQRT_RATIO_M1(ONE, v * u2_sqr)
    den_x = invsqrt * u2
    den_y = invsqrt * den_x * v
    x = ct_abs(2 * s * den_x)
    y = u1 * den_y
    t = x * y
    if not was_square:
        raise InvalidEncoding(f"no point: with s from {data.hex()}, x^2 would be a non-square "
                              "(v (1 + s^2)^2 has no square root)")
    if is_negative(t):
        raise InvalidEncoding(f"not a canonical encoding: with s from {data.hex()}, x*y is negative, "
                              "and encode never writes such an s")
    if y == 0:
        raise InvalidEncoding(f"not a canonical encoding: {data.hex()} is s = -1, which gives y = 0, "
                              "and encode never writes such an s")
    return Element(x, y, ONE, t)


def _encode(P: Element) -> bytes:
    """ENCODE without the tally (also used for hashing and printing elements)."""
    x0, y0, z0, t0 = P.X, P.Y, P.Z, P.T
    u1 = (z0 + y0) * (z0 - y0)
    u2 = x0 * y0
    # was_square is not needed: u1 u2^2 is a square for the points of 2E, or zero
    # for the identity's coset, which then comes out as s = 0.
    _, invsqrt = SQRT_RATIO_M1(ONE, u1 * u2**2)
    den1 = invsqrt * u1
    den2 = invsqrt * u2
    z_inv = den1 * den2 * t0
    # Choose the representative, so that all four points of the coset encode
    # alike.  t0 * z_inv is the affine x*y: if it is negative, move to
    # (x, y) + (SQRT_M1, 0) = (SQRT_M1 y, SQRT_M1 x), which has x*y >= 0 ...
    if is_negative(t0 * z_inv):
        x, y = y0 * SQRT_M1, x0 * SQRT_M1
        den_inv = den1 * INVSQRT_A_MINUS_D
    else:
        x, y = x0, y0
        den_inv = den2
    # ... and x * z_inv is the affine x: if it is negative, move to
    # (x, y) + (0, -1) = (-x, -y).  Only y enters s, so only y is negated.
    if is_negative(x * z_inv):
        y = -y
    s = ct_abs(den_inv * (z0 - y))
    return _field_bytes(s)


def encode(P: Element) -> bytes:
    """The canonical 32-byte encoding of an element (RFC 9496, Section 4.3.2): the field element s,
    non-negative, the same 32 bytes for all four points of a coset.

    One SQRT_RATIO_M1 computes 1/sqrt(u1 u2^2) with u1 = (Z+Y)(Z-Y), u2 = XY;
    from it the representative is chosen (rotated by the 4-torsion if xy is
    negative, negated if x is) and s = |(Z - y) / sqrt(...)| is written out.
    """
    tally("ristretto255/encode")
    return _encode(P)


# ---------------------------------------------------------------------------
# The one-way map (RFC 9496, Section 4.3.4)

def _elligator(t) -> Element:
    """MAP: Ristretto's Elligator map of one field element t to a point (Section 4.3.4).

    Elligator 2 on the Jacobi quartic, pushed to edwards25519 by the isogeny;
    written as the RFC writes it, with one SQRT_RATIO_M1 and no inversion.
    """
    r = SQRT_M1 * t**2
    u = (r + ONE) * ONE_MINUS_D_SQ
    v = (-ONE - r * d) * (r + d)
    was_square, s = SQRT_RATIO_M1(u, v)
    if was_square:
        c = -ONE
    else:
        s, c = -ct_abs(s * t), r
    N = c * (r - ONE) * D_MINUS_ONE_SQ - v
    w0 = 2 * s * v
    w1 = N * SQRT_AD_MINUS_ONE
    w2 = ONE - s**2
    w3 = ONE + s**2
    return Element(w0 * w3, w2 * w1, w1 * w3, w0 * w2)


def _map_input(half: bytes):
    """32 bytes to a field element: little-endian, top bit masked off, then reduced mod p.

    (Unlike ``decode``, this accepts non-canonical values: the RFC's
    equivalence vectors check that t and t + p map alike.)
    """
    return Fp(int.from_bytes(half, "little") & ((1 << 255) - 1))


def from_uniform_bytes(data: bytes) -> Element:
    """The element derivation function: MAP(first 32 bytes) + MAP(last 32 bytes).

    One Elligator map reaches only about half of the group, non-uniformly;
    the sum of two independent ones is statistically close to uniform, so with
    64 uniform bytes in, this is a hash to the group (a random oracle when
    the bytes come from one).
    """
    tally("ristretto255/from_hash")
    data = _as_bytes("the input of from_uniform_bytes", data, 64)
    return _elligator(_map_input(data[:32])) + _elligator(_map_input(data[32:]))


def hash_from_bytes(msg: bytes) -> Element:
    """from_uniform_bytes(SHA-512(msg)), as curve25519-dalek's RistrettoPoint::hash_from_bytes::<Sha512>.

    No domain separation tag is added; protocols that need one put it in msg.
    """
    if isinstance(msg, str):
        raise TypeError("msg must be bytes, not str; encode it first, e.g. msg.encode()")
    return from_uniform_bytes(hashlib.sha512(msg).digest())


# ---------------------------------------------------------------------------
# Scalar multiplication
#
# Variable base goes through Curve25519 in Montgomery form,
#     M:  v^2 = u^3 + 486662 u^2 + u,
# birationally equivalent to edwards25519 (RFC 7748, Section 4.1) by
#     (u, v) = ((1 + y)/(1 - y), sqrt(-486664) u/x),   (x, y) = (sqrt(-486664) u/v, (u - 1)/(u + 1)),
# where Sage's k*P on an EllipticCurve is PARI's ellmul, in C.  Why the detour:
# a k*P this way, conversions included, is faster than with the Edwards formulas
# above in a 4-bit window (``mul_edwards``), where each Sage field multiplication
# is mostly Python object overhead.  Any point of the coset may go in:
# k*(P + T) = kP + kT with kT in E[4], the same coset as kP.

MONTGOMERY_A = 486662
CURVE25519 = EllipticCurve(Fp, [0, MONTGOMERY_A, 0, 1, 0])
SQRT_MINUS_A_MINUS_2 = ct_abs((-Fp(MONTGOMERY_A + 2)).sqrt())     # sqrt(-486664), non-negative


def to_montgomery(P: Element):
    """The point of CURVE25519 corresponding to the Edwards point (X : Y : Z : T)."""
    X, Y, Z = P.X, P.Y, P.Z
    if Y == Z:                                  # (0, 1), the identity: the point at infinity
        return CURVE25519(0)
    if X == 0:                                  # (0, -1), of order 2: (0, 0)
        return CURVE25519(0, 0)
    # u = (Z + Y)/(Z - Y), v = c u Z/X with c = sqrt(-486664): one shared inversion
    inv = ~((Z - Y) * X)
    u = (Z + Y) * X * inv
    v = SQRT_MINUS_A_MINUS_2 * (Z + Y) * Z * inv
    return CURVE25519.point((u, v, ONE), check=False)


def from_montgomery(Q) -> Element:
    """The Edwards point of a point of CURVE25519, in extended coordinates (no inversion)."""
    if Q.is_zero():
        return IDENTITY
    u, v = Q.xy()
    if v == 0:                                  # u = 0, the point of order 2
        return Element(Fp(0), -ONE, ONE, Fp(0))
    c = SQRT_MINUS_A_MINUS_2                    # x = c u/v, y = (u - 1)/(u + 1), over Z = v (u + 1)
    return Element(c * u * (u + 1), (u - 1) * v, v * (u + 1), c * u * (u - 1))


def _mul(P: Element, k: int) -> Element:
    """k*P without the tally, through Curve25519 and PARI."""
    return from_montgomery(k * to_montgomery(P))


def mul(P: Element, k) -> Element:
    """k * P (tallied ``ristretto255/mul``), the same as ``k * P``."""
    return P * k


def mul_edwards(P: Element, k) -> Element:
    """k*P with the Edwards formulas: 4-bit fixed windows, 256 doublings, 64 additions.

    Not used for pricing or protocols (see the comment above on speed); kept
    because it is the textbook algorithm, and the tests check it against ``_mul``.  Tallied
    ``ristretto255/mul``, as any multiplication.
    """
    k = _scalar(k)
    tally("ristretto255/mul")
    table = [IDENTITY, P]                       # table[j] = j*P for j < 16
    for _ in range(14):
        table.append(table[-1] + P)
    Q = IDENTITY
    for shift in range(252, -1, -4):            # k < ell < 2^253: 64 windows of 4 bits
        Q = Q.double().double().double().double()
        Q = Q + table[(k >> shift) & 15]
    return Q


@functools.lru_cache(maxsize=None)
def _base_table() -> tuple:
    """rows[i][j] = j * 16^i * GENERATOR for i < 64, j < 16 (built once, ~1000 additions)."""
    rows = []
    B_i = GENERATOR                             # 16^i * GENERATOR
    for _ in range(64):
        row = [IDENTITY, B_i]
        for _ in range(14):
            row.append(row[-1] + B_i)
        rows.append(tuple(row))
        B_i = row[-1] + B_i
    return tuple(rows)


def _mul_base(k: int) -> Element:
    """k*GENERATOR without the tally: k = sum k_i 16^i, so k*B = sum rows[i][k_i], 64 additions.

    No doublings, so faster than ``_mul``.  Native libraries use
    the same idea (libsodium's ref10 code keeps a radix-16 table with signed
    digits, half the size, for four doublings).
    """
    rows = _base_table()
    Q = IDENTITY
    for i in range(64):
        Q = Q + rows[i][(k >> (4 * i)) & 15]
    return Q


def mul_base(k) -> Element:
    """k * GENERATOR (tallied ``ristretto255/mul_base``); ``k * GENERATOR`` comes here too."""
    tally("ristretto255/mul_base")
    return _mul_base(_scalar(k))


def random_scalar(rng=None) -> int:
    """A uniform nonzero scalar mod ell, from `rng` (a random.Random; default the OS CSPRNG)."""
    rng = rng if rng is not None else random.SystemRandom()
    return rng.randrange(1, ell)
