r"""BLS12-381 and BN254 (alt_bn128): the groups G1, G2, GT and the optimal ate pairing, in Sage.

Both are curves E : y^2 = x^3 + b over a prime field F_p with embedding degree 12:

* G1 = E(F_p)[r],
* G2 = E'(F_{p^2})[r] on the sextic twist E' : y^2 = x^3 + b', with F_{p^2} = F_p[u]/(u^2 + 1),
* GT = mu_r in F_{p^12}^*, and e : G1 x G2 -> GT.

F_{p^12} is written, as in py_ecc, as F_p[w]/(w^12 - 2 xi w^6 + xi^2 + 1) with xi = 1 (BLS12-381)
or xi = 9 (BN254); then (w^6 - xi)^2 = -1, so u |-> w^6 - xi embeds F_{p^2}.  The *untwisting*
map psi : E' -> E(F_{p^12}) is (x, y) |-> (x / w^2, y / w^3) for BLS12-381 (an M-type twist) and
(x w^2, y w^3) for BN254 (D-type).  With these choices the pairing values below are *equal*, element
for element, to py_ecc's (tests/test_pairing_curves.py), which pins down every convention.

The pairing is the optimal ate pairing in its plainest form (``miller_loop``, ``final_exponentiation``):

    f = Miller loop of Q over the bits of the loop count T (|x| = 0xd201000000010000 for BLS12-381,
        6u + 2 for BN254 followed by the two Frobenius lines),
    e(P, Q) = f ^ ((p^12 - 1) / r).

This is readable reference code, not a fast or constant-time implementation: its prices are
"generic CAS" prices, kept apart from the native libraries in the measurement files.

Parameters: BLS12-381 from the IETF draft-irtf-cfrg-pairing-friendly-curves (sec. 4.2.1) and
zkcrypto/bls12_381; BN254 = alt_bn128 from EIP-196/EIP-197.  Generators as in those documents.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from sage.all__sagemath_schemes import GF, EllipticCurve, Integer, PolynomialRing

from ..prices.counting import tally

#: the public operations that do not tally, and why no formula prices them (tests/test_groups_tally.py)
UNTALLIED = {
    **dict.fromkeys(("PairingCurve.miller_loop", "PairingCurve.final_exponentiation"),
                    "one half of a pairing: the pairings and pairing products that call it are priced whole"),
    **dict.fromkeys(("PairingCurve.in_g1", "PairingCurve.in_g2"),
                    "a subgroup check (r P = 0) of a point already in memory: a scheme prices it where its "
                    "protocol pays for it, as the decoding of the bytes received (<curve>/<g>_decode)"),
    **dict.fromkeys(("PairingCurve.fp2_to_fp12", "PairingCurve.untwist", "PairingCurve.fp12_coefficients"),
                    "a change of representation inside the Miller loop or a serialization: no group operation"),
}
from . import orders


@dataclass(frozen=True)
class CurveParams:
    name: str
    p: int                 # base field prime
    r: int                 # prime order of G1, G2, GT
    b: int                 # E : y^2 = x^3 + b
    b2: tuple              # E': y^2 = x^3 + b2, b2 = b2[0] + b2[1] u
    xi: int                # u = w^6 - xi in F_{p^12}
    twist: str             # "M" (divide by w^2, w^3) or "D" (multiply)
    ate: int               # Miller loop count
    frobenius_tail: bool   # BN curves add the lines through pi(Q) and -pi^2(Q)
    g1: tuple
    g2: tuple              # ((x0, x1), (y0, y1))
    h1: int                # cofactor of G1 in E(F_p)


BLS12_381_X = -0xD201000000010000      # the BLS parameter x (negative)
BN254_U = 4965661367192848881          # the BN parameter u

BLS12_381_PARAMS = CurveParams(
    name="bls12_381",
    p=0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
    r=orders.BLS12_381,
    b=4, b2=(4, 4), xi=1, twist="M", ate=-BLS12_381_X, frobenius_tail=False,
    g1=(0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
        0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1),
    g2=((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
         0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
        (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
         0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE)),
    h1=0x396C8C005555E1568C00AAAB0000AAAB,
)

BN254_PARAMS = CurveParams(
    name="bn254",
    p=0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47,
    r=orders.BN254,
    b=3,
    # b' = 3 / (9 + u), the D-type twist of EIP-197
    b2=(19485874751759354771024239261021720505790618469301721065564631296452457478373,
        266929791119991161246907387137283842545076965332900288569378510910307636690),
    xi=9, twist="D", ate=6 * BN254_U + 2, frobenius_tail=True,
    g1=(1, 2),
    g2=((0x1800DEEF121F1E76426A00665E5C4479674322D4F75EDADD46DEBD5CD992F6ED,
         0x198E9393920D483A7260BFB731FB5D25F1AA493335A9E71297E485B7AEF312C2),
        (0x12C85EA5DB8C6DEB4AAB71808DCB408FE3D1E7690C43D37B4CE6CC0166FA7DAA,
         0x090689D0585FF075EC9E99AD690C3395BC4B313370B38EF355ACDADCD122975B)),
    h1=1,
)


class PairingCurve:
    """One pairing-friendly curve with its three groups and its pairing."""

    def __init__(self, params: CurveParams):
        self.params = params
        self.name = params.name
        p = Integer(params.p)
        self.p, self.r = p, Integer(params.r)
        self.Fp = GF(p)
        self.Fp2 = GF(p**2, "u", modulus=[1, 0, 1])                      # u^2 + 1 = 0
        W = PolynomialRing(self.Fp, "W").gen()
        xi = params.xi
        self.Fp12 = GF(p**12, "w", modulus=W**12 - 2 * xi * W**6 + xi**2 + 1)
        self.w = self.Fp12.gen()
        self.u_in_fp12 = self.w**6 - xi
        self.E1 = EllipticCurve(self.Fp, [0, params.b])
        self.E2 = EllipticCurve(self.Fp2, [0, self.Fp2(list(params.b2))])
        self.G1 = self.E1(*params.g1)
        self.G2 = self.E2(*(self.Fp2(list(c)) for c in params.g2))
        self.final_exponent = (p**12 - 1) // self.r
        self.hard_exponent = (p**4 - p**2 + 1) // self.r      # r divides p^4 - p^2 + 1 (embedding degree 12)
        # psi: (x, y) -> (x * cx, y * cy); the slope of a line scales by cy / cx
        if params.twist == "M":
            self._cx, self._cy = ~self.w**2, ~self.w**3
        else:
            self._cx, self._cy = self.w**2, self.w**3
        self._cslope = self._cy / self._cx
        self._ate_bits = [int(b) for b in bin(params.ate)[3:]]            # below the top bit

    # -- the groups --------------------------------------------------------------------------
    def g1_mul(self, k, P=None):
        """k * P in G1 (P defaults to the generator)."""
        tally(f"{self.name}/g1_mul")
        return Integer(k) * (self.G1 if P is None else P)

    def g2_mul(self, k, Q=None):
        """k * Q in G2 (Q defaults to the generator)."""
        tally(f"{self.name}/g2_mul")
        return Integer(k) * (self.G2 if Q is None else Q)

    def gt_exp(self, f, k):
        """f^k in GT."""
        tally(f"{self.name}/gt_exp")
        return f ** Integer(k)

    def in_g1(self, P) -> bool:
        return P in self.E1 and (self.r * P).is_zero()

    def in_g2(self, Q) -> bool:
        return Q in self.E2 and (self.r * Q).is_zero()

    # -- the pairing -------------------------------------------------------------------------
    def fp2_to_fp12(self, a):
        """F_{p^2} -> F_{p^12}: c0 + c1 u |-> c0 + c1 (w^6 - xi)."""
        c = list(a.polynomial()) + [0, 0]
        return self.Fp12(c[0]) + self.Fp12(c[1]) * self.u_in_fp12

    def untwist(self, Q):
        """psi: E'(F_{p^2}) -> E(F_{p^12})."""
        return self.fp2_to_fp12(Q[0]) * self._cx, self.fp2_to_fp12(Q[1]) * self._cy

    def _line(self, A, B, xP, yP):
        """The line through A and B (tangent if A = B) on E', untwisted, evaluated at P."""
        if A[0] != B[0]:
            slope = (B[1] - A[1]) / (B[0] - A[0])
        elif A[1] == B[1]:
            slope = 3 * A[0]**2 / (2 * A[1])
        else:                                   # vertical line x = x_A
            return xP - self.untwist(A)[0]
        xA, yA = self.untwist(A)
        return self.fp2_to_fp12(slope) * self._cslope * (xP - xA) - (yP - yA)

    @staticmethod
    def _line12(A, B, xP, yP):
        """The same line for two points given by F_{p^12} coordinates (the BN tail)."""
        if A[0] != B[0]:
            slope = (B[1] - A[1]) / (B[0] - A[0])
        elif A[1] == B[1]:
            slope = 3 * A[0]**2 / (2 * A[1])
        else:
            return xP - A[0]
        return slope * (xP - A[0]) - (yP - A[1])

    @staticmethod
    def _add12(A, B):
        """Affine chord addition of two distinct, non-opposite points with F_{p^12} coordinates."""
        slope = (B[1] - A[1]) / (B[0] - A[0])
        x = slope**2 - A[0] - B[0]
        return x, slope * (A[0] - x) - A[1]

    def miller_loop(self, P, Q):
        """f of the optimal ate pairing.  Lines are evaluated at P without denominators (vertical lines
        lie in a proper subfield and vanish under the final exponentiation).  The point arithmetic
        runs on the twist over F_{p^2}, and only the line values live in F_{p^12}."""
        if P.is_zero() or Q.is_zero():
            return self.Fp12(1)
        xP, yP = self.Fp12(P[0]), self.Fp12(P[1])
        R, f = Q, self.Fp12(1)
        for bit in self._ate_bits:
            f = f * f * self._line(R, R, xP, yP)
            R = 2 * R
            if bit:
                f = f * self._line(R, Q, xP, yP)
                R = R + Q
        if self.params.frobenius_tail:
            # BN: two more lines, through pi(Q) and then -pi^2(Q), with pi the p-power Frobenius
            Qx, Qy = self.untwist(Q)
            Q1 = (Qx.frobenius(), Qy.frobenius())
            nQ2 = (Q1[0].frobenius(), -Q1[1].frobenius())
            R12 = self.untwist(R)
            f = f * self._line12(R12, Q1, xP, yP)
            R12 = self._add12(R12, Q1)
            f = f * self._line12(R12, nQ2, xP, yP)
        return f

    def final_exponentiation(self, f):
        """f^((p^12 - 1) / r) = (f^((p^6 - 1)(p^2 + 1)))^((p^4 - p^2 + 1) / r), split as pairing
        libraries split it: the easy part costs two Frobenius maps (PARI's, on F_{p^12}), an inversion
        and two multiplications, leaving the hard part, a plain power of a third of the bits."""
        if f.is_zero():
            return f
        f = f.frobenius(6) / f                   # f^(p^6 - 1)
        f = f.frobenius(2) * f                   # ^(p^2 + 1)
        return f ** self.hard_exponent

    def pairing(self, P, Q):
        """e(P, Q) for P in G1, Q in G2."""
        tally(f"{self.name}/pairing")
        if P not in self.E1 or Q not in self.E2:
            raise ValueError(f"{self.name}: pairing arguments must be points of E and of the twist E'")
        return self.final_exponentiation(self.miller_loop(P, Q))

    # -- conversions ------------------------------------------------------------------------
    def fp12_coefficients(self, f) -> list:
        """Coefficients of f in the basis 1, w, ..., w^11 (py_ecc's FQ12 order)."""
        c = [int(x) for x in f.polynomial()]
        return c + [0] * (12 - len(c))

    def to_bytes(self, x) -> bytes:
        """An element of G1, G2 or GT as fixed-width bytes for a Fiat–Shamir hash: affine coordinates
        (over F_{p^2}: c0 then c1 of each) or GT's 12 coefficients, 48 bytes each; b"O" for the point
        at infinity.  Tallies ``<curve>/{g1,g2,gt}_to_bytes``."""
        if x.parent() is self.Fp12:
            tally(f"{self.name}/gt_to_bytes")
            return b"".join(c.to_bytes(48, "big") for c in self.fp12_coefficients(x))
        g2 = x.curve() is self.E2
        tally(f"{self.name}/{'g2' if g2 else 'g1'}_to_bytes")
        if x.is_zero():
            return b"O"
        if g2:
            return b"".join(int(c).to_bytes(48, "big") for coord in x.xy() for c in coord.polynomial().padded_list(2))
        return b"".join(int(c).to_bytes(48, "big") for c in x.xy())

    @cached_property
    def gt_generator(self):
        return self.pairing(self.G1, self.G2)


BLS12_381 = PairingCurve(BLS12_381_PARAMS)
BN254 = PairingCurve(BN254_PARAMS)
CURVES = {"bls12_381": BLS12_381, "bn254": BN254}


# -- BLS12-381 point encodings (the ZCash format that arkworks, blst and zkcrypto use) ----------

class InvalidEncoding(ValueError):
    """Bytes that are not the compressed encoding of a point of G1 or G2."""


_C, _I, _S = 0x80, 0x40, 0x20    # compression, infinity and sign flags in the first byte


def _lexicographically_largest(a, p) -> bool:
    """For y in F_p or F_{p^2}: is y > -y, comparing c1 first, then c0 (the ZCash sign rule)."""
    c = [int(x) for x in (a.polynomial() if hasattr(a, "polynomial") else [a])] + [0, 0]
    half = (p - 1) // 2
    if len(c) > 2 and c[1] != 0:
        return c[1] > half
    return c[0] > half


def compress(P, curve: PairingCurve = BLS12_381) -> bytes:
    """48-byte (G1) or 96-byte (G2) compressed encoding.  Tallies ``<curve>/<g1|g2>_encode``."""
    tally(f"{curve.name}/{'g2' if P.curve() == curve.E2 else 'g1'}_encode")
    return compress_untallied(P, curve)


def compress_untallied(P, curve: PairingCurve = BLS12_381) -> bytes:
    """``compress`` without the tally, for a caller that says why its encoding is not priced (a
    transcript serializing points already in affine form)."""
    p = int(curve.p)
    g2 = P.curve() == curve.E2
    size = 96 if g2 else 48
    if P.is_zero():
        return bytes([_C | _I]) + bytes(size - 1)
    x = P[0]
    if g2:
        c = [int(v) for v in x.polynomial()] + [0, 0]
        body = c[1].to_bytes(48, "big") + c[0].to_bytes(48, "big")
    else:
        body = int(x).to_bytes(48, "big")
    flags = _C | (_S if _lexicographically_largest(P[1], p) else 0)
    return bytes([body[0] | flags]) + body[1:]


def decompress(data: bytes, group: str, curve: PairingCurve = BLS12_381):
    """Inverse of compress, with every check: flags, canonical x, on the curve, in the subgroup.
    Tallies ``<curve>/<group>_decode``, malformed input included (its checks are the work)."""
    if group not in ("g1", "g2"):
        raise ValueError(f"group must be 'g1' or 'g2', got {group!r}")
    tally(f"{curve.name}/{group}_decode")
    size = {"g1": 48, "g2": 96}[group]
    if len(data) != size:
        raise InvalidEncoding(f"{group} encoding must be {size} bytes, got {len(data)}")
    flags, data = data[0] & 0xE0, bytes([data[0] & 0x1F]) + data[1:]
    if not flags & _C:
        raise InvalidEncoding("compression flag not set (uncompressed encodings are not accepted)")
    E = curve.E2 if group == "g2" else curve.E1
    if flags & _I:
        if flags & _S or any(data):
            raise InvalidEncoding("infinity flag set but the rest is not zero")
        return E(0)
    p = int(curve.p)
    words = [int.from_bytes(data[i:i + 48], "big") for i in range(0, size, 48)]
    if any(w >= p for w in words):
        raise InvalidEncoding("x coordinate is not a canonical field element (>= p)")
    x = curve.Fp2([words[1], words[0]]) if group == "g2" else curve.Fp(words[0])
    rhs = x**3 + E.a6()
    if not rhs.is_square():
        raise InvalidEncoding("x is not the x coordinate of a point on the curve")
    y = rhs.sqrt()
    if _lexicographically_largest(y, p) != bool(flags & _S):
        y = -y
    P = E(x, y)
    if not (curve.r * P).is_zero():
        raise InvalidEncoding(f"point is on the curve but not in the prime-order subgroup {group.upper()}")
    return P
