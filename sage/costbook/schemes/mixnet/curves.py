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
are derived from a public seed by try-and-increment: $x = \mathrm{SHA256}(\text{tag}\|i)$,
the first $x$ with $x^3 + b$ a square, times the cofactor of $\mathbb{G}_1$.  The same map gives
the independent generators of the permutation commitments (``shuffle.py``).

Counting.  ``PairingCurve.g1_mul``, ``g2_mul``, ``gt_exp`` and ``pairing`` tally
``<curve>/g1_mul``, ``<curve>/g2_mul``, ``<curve>/gt_exp`` and ``<curve>/pairing`` themselves,
so this adapter only routes through them and never tallies those keys again; the one priced
operation it owns is the inversion of a scalar (``<curve>/scalar_inv``, in BB signing).  Group
additions (products in the paper's notation), $\mathbb{G}_T$ products and hashes are not tallied:
the research notes (§4.0) count them as negligible next to exponentiations.  The existing keys do
not separate fixed-base from variable-base or short (80-bit) exponents from full-size ones, so
every exponentiation is tallied as a full-size variable-base one.

Setup constants ($h_1, f_1, f_T$, $e(g_1,f_2)$, ...) are computed once per curve with the raw Sage
arithmetic, untallied: they are parameters, not query costs.
"""
from __future__ import annotations

import functools
import hashlib
import random

from sage.all__sagemath_schemes import Integer

from ...counting import tally
from ...groups.pairing_curves import CURVES, PairingCurve

#: the default source of randomness: the operating system's CSPRNG
SYSTEM_RANDOM = random.SystemRandom()


def curve_by_name(name: str) -> PairingCurve:
    if name not in CURVES:
        raise ValueError(f"unknown curve {name!r}: choose one of {sorted(CURVES)}")
    return CURVES[name]


def hash_to_g1(curve: PairingCurve, tag: bytes):
    """A point of G1 with unknown discrete logarithm, from a public tag (try-and-increment)."""
    for i in range(1000):
        x = curve.Fp(int.from_bytes(hashlib.sha256(tag + i.to_bytes(4, "big")).digest(), "big"))
        rhs = x**3 + curve.params.b
        if rhs.is_square():
            P = Integer(curve.params.h1) * curve.E1(x, rhs.sqrt())
            if not P.is_zero():
                return P
    raise RuntimeError("hash_to_g1: no point found")          # probability about 2^-1000


class Groups:
    """G1, G2, GT of one pairing curve with the mixnet's generators, in multiplicative notation."""

    def __init__(self, curve: str = "bn254"):
        C = curve_by_name(curve)
        self.C, self.name, self.q = C, C.name, int(C.r)
        self.g1, self.f2 = C.G1, C.G2
        self.h1 = hash_to_g1(C, b"costbook/mixnet/h1")
        self.f1 = hash_to_g1(C, b"costbook/mixnet/f1")
        self.one1, self.one2, self.oneT = C.E1(0), C.E2(0), C.Fp12(1)
        raw_pair = lambda P, Q: C.final_exponentiation(C.miller_loop(P, Q))   # untallied: setup
        self.eg1f2 = raw_pair(self.g1, self.f2)
        self.eh1f2 = raw_pair(self.h1, self.f2)
        self.ef1f2 = raw_pair(self.f1, self.f2)
        self.fT = raw_pair(hash_to_g1(C, b"costbook/mixnet/fT"), self.f2)

    # -- priced operations (tallied by pairing_curves) -----------------------------------------
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

    def inv(self, k) -> int:
        """k^{-1} mod q."""
        k = int(k) % self.q
        if k == 0:
            raise ZeroDivisionError("0 has no inverse mod q")
        tally(f"{self.name}/scalar_inv")
        return pow(k, -1, self.q)

    # -- group law, uniform over the three groups (unpriced) -----------------------------------
    def exp(self, X, k):
        """X^k in whichever of G1, G2, GT X lies in."""
        if X.parent() is self.C.Fp12:
            return self.expT(X, k)
        return self.exp1(X, k) if X.curve() is self.C.E1 else self.exp2(X, k)

    def op(self, X, Y):
        """X·Y in the paper's notation (point addition in G1 and G2)."""
        return X * Y if X.parent() is self.C.Fp12 else X + Y

    def identity(self, X):
        return self.oneT if X.parent() is self.C.Fp12 else X.curve()(0)

    def prod(self, xs, like):
        """The product of the elements xs (the identity of like's group when xs is empty)."""
        out = self.identity(like)
        for x in xs:
            out = self.op(out, x)
        return out

    def multi_exp(self, bases, exps):
        """prod_l bases[l]^exps[l], one tallied exponentiation per term."""
        return self.prod((self.exp(B, e) for B, e in zip(bases, exps)), bases[0])

    # -- scalars and the Fiat–Shamir hash ------------------------------------------------------
    def random_scalar(self, rng=SYSTEM_RANDOM) -> int:
        """A uniform scalar in [1, q)."""
        return rng.randrange(1, self.q)

    def _encode(self, x) -> bytes:
        if isinstance(x, (bytes, str)):
            b = x.encode() if isinstance(x, str) else x
        elif isinstance(x, (list, tuple)):
            b = b"L" + b"".join(self._encode(y) for y in x)
        elif isinstance(x, int) or (hasattr(x, "parent") and x.parent() is Integer(0).parent()):
            b = int(x).to_bytes(64, "big")
        elif x.parent() is self.C.Fp12:
            b = b"".join(c.to_bytes(48, "big") for c in self.C.fp12_coefficients(x))
        elif x.is_zero():
            b = b"O"
        else:
            b = b"".join(int(c).to_bytes(48, "big")
                         for coord in x.xy() for c in coord.polynomial().padded_list(2)) \
                if x.curve() is self.C.E2 else b"".join(int(c).to_bytes(48, "big") for c in x.xy())
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
