r"""The pairing groups the traceable-mixnet protocols run on, and the Fiat–Shamir hash.

The protocols of the artifact (Charm ``PairingGroup('BN254')``) use

* $\mathbb{G}_1$ with generators $g_1, h_1, f_1$ (ElGamal, commitments $\gamma = g_1^v h_1^r$,
  signatures),
* $\mathbb{G}_2$ with generator $f_2$ (signature keys $X = f_2^x$),
* $\mathbb{G}_T$ with $e(g_1, f_2)$, $e(h_1, f_2)$, $e(f_1, f_2)$ and an independent $f_T$,

all of prime order $q$ (``r`` in ``costbook.groups.pairing_curves``), written multiplicatively
here as in the paper, although Sage writes $\mathbb{G}_1, \mathbb{G}_2$ additively.

$g_1$ and $f_2$ are the curves' standard generators.  $h_1$, $f_1$ and the base of $f_T$
must have *unknown* discrete logarithms to base $g_1$ (else $\gamma$ does not bind $v$), so they
are derived from a public seed (``hash_to_g1``), as are the independent generators of the
permutation commitments (``shuffle.py``).

Counting: the curve's operations tally themselves; ``Groups`` tallies the ones it owns (scalar
inversions, short exponents, additions of points) and says what it leaves untallied and why.
Setup constants ($h_1, f_1, f_T$, $e(g_1,f_2)$, ...) are computed once per curve with the raw Sage
arithmetic, untallied: they are parameters, not query costs.
"""
from __future__ import annotations

import functools
import hashlib
import random

from sage.all__sagemath_schemes import Integer

from ...prices.counting import tally
from ...groups import checks
from ...groups.pairing_curves import CURVES, PairingCurve

#: the default source of randomness: the operating system's CSPRNG
SYSTEM_RANDOM = random.SystemRandom()


def curve_by_name(name: str) -> PairingCurve:
    if name not in CURVES:
        raise ValueError(f"unknown curve {name!r}: choose one of {sorted(CURVES)}")
    return CURVES[name]


def hash_to_g1(curve: PairingCurve, tag: bytes):
    """A point of G1 with unknown discrete logarithm, from a public tag by try-and-increment:
    x = SHA256(tag || i), the first x with x^3 + b a square, times the cofactor of G1."""
    for i in range(1000):
        x = curve.Fp(int.from_bytes(hashlib.sha256(tag + i.to_bytes(4, "big")).digest(), "big"))
        rhs = x**3 + curve.params.b
        if rhs.is_square():
            P = Integer(curve.params.h1) * curve.E1(x, rhs.sqrt())
            if not P.is_zero():
                return P
    raise RuntimeError("hash_to_g1: no point found")          # probability about 2^-1000


class Groups:
    """G1, G2, GT of one pairing curve with the mixnet's generators, in multiplicative notation.

    Counting.  ``PairingCurve.g1_mul``, ``g2_mul``, ``gt_exp``, ``pairing`` and ``to_bytes`` tally
    ``<curve>/g1_mul``, ``<curve>/g2_mul``, ``<curve>/gt_exp``, ``<curve>/pairing`` and
    ``<curve>/{g1,g2,gt}_to_bytes`` themselves, so this class only routes through them and never
    tallies those keys again.  The operations it owns and tallies: the inversion of a scalar
    (``<curve>/scalar_inv``, in BB signing); exponentiations by a short exponent of a stated size
    (``<curve>/g1_mul/<bits>``, ``<curve>/gt_exp/<bits>``: the 80-bit weights of batch checks and
    their sum); and each addition of two points of G1 or G2 (``<curve>/g1_add``, ``<curve>/g2_add``;
    products in the paper's notation).  The research notes (§4.0) count additions as negligible, but
    Sage adds in affine coordinates (one field inversion each) and the proofs do about one per
    exponentiation, so together they show in a timed run, as do the Fiat–Shamir serialisations.  A
    point of the identity is never built anew (``identity``) and a product of k elements costs k - 1
    additions (``prod``), so that every tallied addition is a real one.  Not tallied, because each is
    a negligible share of every priced step: G_T products (always next to a pairing), negations of
    points (a few per proof), and the rest of a challenge besides its group elements (the SHA-512
    pass over its input and the framing of tags, integers and lists).  Every exponentiation of full
    size is tallied as a variable-base one (no fixed-base tables here).
    """

    def __init__(self, curve: str = "bn254"):
        C = curve_by_name(curve)
        self.C, self.name, self.q = C, C.name, int(C.r)
        self.g1, self.f2 = C.G1, C.G2
        self._point = type(C.G1)
        self.h1 = hash_to_g1(C, b"costbook/mixnet/h1")
        self.f1 = hash_to_g1(C, b"costbook/mixnet/f1")
        self.one1, self.one2, self.oneT = C.E1(0), C.E2(0), C.Fp12(1)
        raw_pair = lambda P, Q: C.final_exponentiation(C.miller_loop(P, Q))   # untallied: setup
        self.eg1f2 = raw_pair(self.g1, self.f2)
        self.eh1f2 = raw_pair(self.h1, self.f2)
        self.ef1f2 = raw_pair(self.f1, self.f2)
        self.fT = raw_pair(hash_to_g1(C, b"costbook/mixnet/fT"), self.f2)

    # -- priced operations (tallied by pairing_curves) -----------------------------------------
    def priced_calls(self) -> list:
        """(object, method) of every call that tallies a priced operation, for ``costbook.prices.replay``: the
        curve's multiplications, pairing and serialisation, and this group's short exponents,
        inversions and additions (a product in GT goes through ``op`` untallied and stays real)."""
        return [(self.C, name) for name in ("g1_mul", "g2_mul", "gt_exp", "pairing", "to_bytes")] + \
               [(self, name) for name in ("_short", "inv", "op")]

    def exp1(self, P, k):
        """P^k in G1."""
        return self.C.g1_mul(int(k) % self.q, P)

    def exp2(self, Q, k):
        """Q^k in G2."""
        return self.C.g2_mul(int(k) % self.q, Q)

    def expT(self, f, k):
        """f^k in GT."""
        return self.C.gt_exp(f, int(k) % self.q)

    def pair(self, P, Q):
        return self.C.pairing(P, Q)

    def exp1_short(self, P, k: int, bits: int):
        """P^k in G1 for an exponent of at most `bits` bits (tallied as such; full-size if bits >= |q|)."""
        return self._short("g1_mul", self.exp1, lambda: Integer(k) * P, P, k, bits)

    def expT_short(self, f, k: int, bits: int):
        """f^k in GT for an exponent of at most `bits` bits (tallied as such; full-size if bits >= |q|)."""
        return self._short("gt_exp", self.expT, lambda: f ** Integer(k), f, k, bits)

    def _short(self, op: str, full, short, X, k: int, bits: int):
        if bits >= self.q.bit_length():
            return full(X, k)
        if not 0 <= k < 1 << bits:
            raise ValueError(f"{op}/{bits}: exponent {k} does not fit in {bits} bits")
        tally(f"{self.name}/{op}/{bits}")
        return short()

    def inv(self, k) -> int:
        """k^{-1} mod q."""
        k = int(k) % self.q
        if k == 0:
            raise ZeroDivisionError("0 has no inverse mod q")
        tally(f"{self.name}/scalar_inv")
        return pow(k, -1, self.q)

    # -- group law, uniform over the three groups (additions of points tallied) ---------------
    def exp(self, X, k):
        """X^k in whichever of G1, G2, GT X lies in."""
        if X.parent() is self.C.Fp12:
            return self.expT(X, k)
        return self.exp1(X, k) if X.curve() is self.C.E1 else self.exp2(X, k)

    def op(self, X, Y):
        """X·Y in the paper's notation (point addition in G1 and G2, tallied)."""
        if X.parent() is self.C.Fp12:
            return X * Y
        tally(f"{self.name}/{'g1' if X.curve() is self.C.E1 else 'g2'}_add")
        return X + Y

    def identity(self, X):
        """The identity of X's group (built once: a new point costs as much as an addition)."""
        if X.parent() is self.C.Fp12:
            return self.oneT
        return self.one1 if X.curve() is self.C.E1 else self.one2

    def is_identity(self, X) -> bool:
        return X == 1 if X.parent() is self.C.Fp12 else X.is_zero()

    def prod(self, xs, like):
        """The product of the elements xs: len(xs) - 1 operations (the identity of like's group when
        xs is empty)."""
        out = None
        for x in xs:
            out = x if out is None else self.op(out, x)
        return self.identity(like) if out is None else out

    def multi_exp(self, bases, exps):
        """prod_l bases[l]^exps[l], one tallied exponentiation per term."""
        return self.prod((self.exp(B, e) for B, e in zip(bases, exps)), bases[0])

    # -- membership of what a verifier receives (G1, G2 untallied: see ``in_g1``; G_T tallied) ------
    def in_g1(self, P, nonidentity: bool = False) -> bool:
        """P is a point of G1.  On BN254 (cofactor 1) every point of E(F_p) is, so the check is a type
        check; on BLS12-381 it costs r P, one multiplication, made untallied (the BLS12-381 runs of
        these protocols are not the ones whose counts are priced; the counts stay those of BN254's
        protocol)."""
        if not (isinstance(P, self._point) and P.curve() is self.C.E1):
            return False
        if nonidentity and P.is_zero():
            return False
        return self.C.params.h1 == 1 or bool((self.C.r * P).is_zero())

    def in_g2(self, Q, nonidentity: bool = False) -> bool:
        """Q is a point of G2 (r Q = 0; G2 has a cofactor on both curves).  G2 elements a verifier
        receives are keys, sent once and used for many checks, so the result is remembered and the
        multiplication is not in the per-check counts."""
        if not (isinstance(Q, self._point) and Q.curve() is self.C.E2):
            return False
        if nonidentity and Q.is_zero():
            return False
        return self._in_g2_memo(Q)

    @functools.lru_cache(maxsize=1024)
    def _in_g2_memo(self, Q) -> bool:
        return bool((self.C.r * Q).is_zero())

    def in_fp12(self, f) -> bool:
        """f is a nonzero element of F_{p^12}: the type a G_T value has, not yet membership (``in_gt``)."""
        return getattr(f, "parent", None) is not None and f.parent() is self.C.Fp12 and f != 0

    def in_gt(self, f) -> bool:
        """f is an element of G_T, the subgroup of order r of F_{p^12}^*: f^r = 1, one exponentiation by
        r (tallied ``<curve>/gt_exp``: it is one, with a full-size exponent).

        F_{p^12}^* is cyclic and r divides its order p^12 - 1, so {f : f^r = 1} is exactly its one
        subgroup of order r.  The cheaper cyclotomic test (f^{p^4} f = f^{p^2}, Frobenius maps only)
        shows only that the order of f divides Phi_12(p) = p^4 - p^2 + 1, which is r times a cofactor
        of about 3 |p| bits on BN254 and BLS12-381, so it does not suffice alone.  Without any test, -Y
        (order 2r) would pass for Y: a Sigma proof about it verifies whenever (-1)^c = 1, half the
        challenges, since the exponents are reduced mod r as only in G_T they may be."""
        return self.in_fp12(f) and self.C.gt_exp(f, self.q) == 1

    def group_of(self, X):
        """"g1", "g2" or "gt" as X's type says (not a membership check), None for anything else."""
        if isinstance(X, self._point):
            return "g1" if X.curve() is self.C.E1 else "g2" if X.curve() is self.C.E2 else None
        return "gt" if self.in_fp12(X) else None

    def is_element(self, X) -> bool:
        """X is an element of G1, G2 or G_T (as ``in_g1``, ``in_g2``, ``in_gt`` check them)."""
        return self.in_g1(X) or self.in_g2(X) or self.in_gt(X)

    def scalar(self, k) -> bool:
        """k is a canonical scalar: an integer (not a bool) in [0, q)."""
        return checks.scalar(k, self.q) is not None

    # -- scalars and the Fiat–Shamir hash ------------------------------------------------------
    def random_scalar(self, rng=SYSTEM_RANDOM) -> int:
        """A uniform scalar in [1, q)."""
        return rng.randrange(1, self.q)

    def _encode(self, x) -> bytes:
        if isinstance(x, (bytes, str)):
            b = x.encode() if isinstance(x, str) else x
        elif isinstance(x, (list, tuple)):
            b = b"L" + b"".join(self._encode(y) for y in x)
        elif isinstance(x, (int, Integer)):
            b = int(x).to_bytes(64, "big")
        else:
            b = self.C.to_bytes(x)          # a group element (tallied)
        return len(b).to_bytes(4, "big") + b

    def challenge(self, tag: str, *items) -> int:
        """Fiat–Shamir: SHA-512 of the tag and the length-prefixed encodings of items, mod q.
        Unlike Charm's group.hash (notes §4.1) it covers every item, lists included."""
        data = self._encode((self.name, tag) + items)
        return int.from_bytes(hashlib.sha512(data).digest(), "big") % self.q


@functools.lru_cache(maxsize=None)
def groups(curve: str = "bn254") -> Groups:
    """The Groups of a curve, built once (its setup constants are untallied)."""
    return Groups(curve)
