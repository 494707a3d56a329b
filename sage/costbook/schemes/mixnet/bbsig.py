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


def valid_key(G, X) -> bool:
    """X is a point of G2 other than the identity (X = f2^0 would let anyone sign: sigma = g1^{1/v})."""
    return G.in_g2(X, nonidentity=True)


def verify(G, X, v: int, sigma) -> bool:
    """False unless X is a key (``valid_key``), v a canonical scalar in [0, q) (a signature on v is not
    one on v + q) and sigma a point of G1 other than the identity; then the pairing check."""
    if not (valid_key(G, X) and G.scalar(v) and G.in_g1(sigma, nonidentity=True)):
        return False
    return G.pair(sigma, G.op(X, G.exp2(G.f2, v))) == G.eg1f2


def sum_bits(n: int) -> int:
    """Bits of a sum of n batching weights of KAPPA bits: at most KAPPA + ceil(log2 n)."""
    return KAPPA + (n - 1).bit_length()


def batch_verify(G, X, vs, sigmas, rng) -> bool:
    """False unless there are as many messages as signatures, at least one, each as ``verify`` wants
    it; then the batch check."""
    if not (isinstance(vs, (list, tuple)) and isinstance(sigmas, (list, tuple)) and vs
            and len(vs) == len(sigmas)):
        return False
    if not (valid_key(G, X) and all(G.scalar(v) for v in vs)
            and all(G.in_g1(s, nonidentity=True) for s in sigmas)):
        return False
    deltas = [rng.getrandbits(KAPPA) | 1 for _ in vs]
    A = G.prod([G.exp1_short(s, d, KAPPA) for s, d in zip(sigmas, deltas)], G.g1)
    B = G.prod([G.exp1(s, d * v) for s, d, v in zip(sigmas, deltas, vs)], G.g1)
    return G.pair(A, X) * G.pair(B, G.f2) == G.expT_short(G.eg1f2, sum(deltas), sum_bits(len(vs)))
