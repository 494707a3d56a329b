"""Group algorithms shared by schemes and benchmarks: multi-scalar multiplication (the bucket
method), pairing products (many Miller loops, one final exponentiation) and fixed-base tables.

Each tallies its own key (``costbook.prices.counting.tally``), so a scheme that calls one cannot
leave it uncounted: ``pippenger`` ``<curve>/<g1|g2>_msm/<k>``, ``pairing_product``
``<curve>/pairing_product/<k>`` (k the number of terms), ``FixedBaseTable.mul``
``<curve>/g1_mul_fixed``.  The benchmarks in ``costbook.timing.backends`` time exactly these
functions.
"""
from __future__ import annotations

from ..prices.counting import tally
from .pairing_curves import BLS12_381, PairingCurve

#: the public operations that do not tally, and why no formula prices them (tests/test_groups_tally.py)
UNTALLIED = {"FixedBaseTable.walk": "the table walk that FixedBaseTable.mul tallies, without the conversion "
                                     "to a Sage point: what the benchmark of <curve>/g1_mul_fixed times"}


def pippenger(points, scalars, zero, order: int, curve: PairingCurve = BLS12_381):
    """sum_i scalars[i] * points[i] in G1 or G2 of `curve` (the group of `zero`) by the bucket method
    (window of about log2(k) - 2 bits), the scalars reduced modulo the group order.  Tallies
    ``<curve>/<g1|g2>_msm/<k>``.

    Per window: each point is added to the bucket of its digit, then the buckets are summed
    with a running sum (2^w additions), and the accumulator is doubled w times.
    """
    k = len(points)
    if k != len(scalars):
        raise ValueError(f"{k} points but {len(scalars)} scalars")
    tally(f"{curve.name}/{'g2' if zero.curve() is curve.E2 else 'g1'}_msm/{k}")
    if k == 0:
        return zero
    order = int(order)
    w = max(1, k.bit_length() - 2)
    scalars = [int(s) % order for s in scalars]
    acc = zero
    for shift in range(((order.bit_length() + w - 1) // w - 1) * w, -1, -w):
        for _ in range(w):
            acc = acc + acc
        buckets = [zero] * (1 << w)
        for P, s in zip(points, scalars):
            d = (s >> shift) & ((1 << w) - 1)
            if d:
                buckets[d] = buckets[d] + P
        running, window = zero, zero
        for d in range((1 << w) - 1, 0, -1):
            running = running + buckets[d]
            window = window + running
        acc = acc + window
    return acc


def pairing_product(pairs, curve: PairingCurve = BLS12_381):
    """prod_k e(P_k, Q_k): one Miller loop per pair and a single final exponentiation.  Tallies
    ``<curve>/pairing_product/<k>``."""
    tally(f"{curve.name}/pairing_product/{len(pairs)}")
    f = curve.Fp12(1)
    for P, Q in pairs:
        f = f * curve.miller_loop(P, Q)
    return curve.final_exponentiation(f)


class FixedBaseTable:
    """k * P for one fixed P in G1 from precomputed multiples: rows[i][d] = d * 2^{w i} * P.

    k = sum_i d_i 2^{w i} with w-bit digits d_i, so k * P = sum_i rows[i][d_i]: ceil(|r| / w)
    additions and no doublings, against about |r| doublings and |r|/2 additions for a plain
    multiplication.  The table has ceil(|r| / w) * 2^w points (8160 for w = 8 on BLS12-381, like
    pairing-plus's precomp_256 with 256 points per base).  Arithmetic is PARI's (``elladd``), the
    same arithmetic as the plain multiplication it is compared with (PARI's ``ellmul``, under Sage's
    ``k * P``).  ``mul`` reduces k modulo r and returns a Sage point; ``walk`` is the table walk
    alone on a reduced scalar (what the benchmark times).
    """

    def __init__(self, P, window: int = 8, curve: PairingCurve = BLS12_381):
        if window < 1:
            raise ValueError(f"window must be at least 1 bit, got {window}")
        self.curve = curve
        self.r = int(curve.r)
        self.E = curve.E1.__pari__()
        self.w = window
        self.zero = self.E.ellmul([P[0], P[1]], 0)
        base = self.E.ellmul([P[0], P[1]], 1)
        self.rows = []
        for _ in range(-(-self.r.bit_length() // window)):
            row = [self.zero, base]
            for _ in range((1 << window) - 2):
                row.append(self.E.elladd(row[-1], base))
            self.rows.append(row)
            base = self.E.elladd(row[-1], base)          # 2^w * base
        self.mask = (1 << window) - 1

    def mul(self, k):
        """k * P as a Sage point (tallied ``<curve>/g1_mul_fixed``)."""
        tally(f"{self.curve.name}/g1_mul_fixed")
        return self._to_sage(self.walk(int(k) % self.r))

    def walk(self, k: int):
        acc = self.zero
        for i, row in enumerate(self.rows):
            d = (k >> (self.w * i)) & self.mask
            if d:
                acc = self.E.elladd(acc, row[d])
        return acc

    def _to_sage(self, Q):
        E1 = self.curve.E1
        return E1(0) if len(Q) == 1 else E1(int(Q[0].lift()), int(Q[1].lift()))
