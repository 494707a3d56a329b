r"""Boneh–Boyen signatures, as the querier's set-membership tokens in DB-SM (artifact ``bbsig.py``).

Keys $x \leftarrow \mathbb{Z}_q$, $X = f_2^x$.  Signature on $v \in \mathbb{Z}_q$:
$\sigma = g_1^{1/(v+x)}$ (one inversion, one exponentiation).  Verification:

$$e(\sigma,\ X f_2^{v}) = e(g_1, f_2).$$

Batch verification (Ferrara–Green–Hohenberger small exponents, as in the artifact): with random
$\delta_i$ of $\kappa = 80$ bits,

$$e\Big(\prod_i \sigma_i^{\delta_i},\ X\Big)\cdot e\Big(\prod_i \sigma_i^{\delta_i v_i},\ f_2\Big)
  = e(g_1,f_2)^{\sum_i \delta_i},$$

since $\sigma_i^{x + v_i} = g_1$.  A batch with a bad signature passes with probability at most
$2^{-\kappa}$.  Cost: $2n$ $\mathbb{G}_1$ exponentiations ($n$ of them with 80-bit exponents,
``g1_mul/80``), $2(n-1)$ additions, 2 pairings and 1 $\mathbb{G}_T$ exponentiation by
$\sum_i\delta_i$, of at most $80 + \lceil\log_2 n\rceil$ bits (``sum_bits``).
"""
from __future__ import annotations

KAPPA = 80      # bits of the batching exponents (the artifact's kappa_e)


def keygen(G, rng):
    x = G.random_scalar(rng)
    return x, G.exp2(G.f2, x)


def sign(G, x: int, v: int):
    """g1^{1/(v+x)}; v = -x (probability 1/q) has no signature."""
    return G.exp1(G.g1, G.inv(v + x))


def verify(G, X, v: int, sigma) -> bool:
    return G.pair(sigma, G.op(X, G.exp2(G.f2, v))) == G.eg1f2


def sum_bits(n: int) -> int:
    """Bits of a sum of n batching weights of KAPPA bits: at most KAPPA + ceil(log2 n)."""
    return KAPPA + (n - 1).bit_length()


def batch_verify(G, X, vs, sigmas, rng) -> bool:
    if len(vs) != len(sigmas) or not vs:
        raise ValueError("batch_verify: need as many messages as signatures, at least one")
    deltas = [rng.getrandbits(KAPPA) | 1 for _ in vs]
    A = G.prod([G.exp1_short(s, d, KAPPA) for s, d in zip(sigmas, deltas)], G.g1)
    B = G.prod([G.exp1(s, d * v) for s, d, v in zip(sigmas, deltas, vs)], G.g1)
    return G.pair(A, X) * G.pair(B, G.f2) == G.expT_short(G.eg1f2, sum(deltas), sum_bits(len(vs)))
