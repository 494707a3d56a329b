r"""BBS+ quasi-signatures on commitments, the querier's tokens in DB-RSM (artifact ``bbsplussig.py``).

Keys as in ``bbsig``: $x$, $X = f_2^x$.  A BBS+ signature on $v$ is $(S, c, r')$ with

$$e(S,\ X f_2^{c}) = e(f_1\, g_1^{v}\, h_1^{r'},\ f_2),\qquad\text{i.e. } S = (f_1 g_1^v h_1^{r'})^{1/(c+x)}.$$

The querier does not know $v$, only the sender's commitment $\gamma = g_1^v h_1^r$.  It picks
$c, \hat r \leftarrow \mathbb{Z}_q$ and returns the *quasi-signature*

$$S = (f_1\, h_1^{\hat r}\, \gamma)^{1/(c+x)},$$

which is a BBS+ signature $(S, c, r' = \hat r + r)$ on $v$: whoever knows $r$ (the mix-servers, in
shares) completes it.  Signing costs 2 $\mathbb{G}_1$ exponentiations and one inversion.

Batch check of quasi-signatures (the artifact's ``bbsplusquasibatchverify``), $\delta_i$ of 80 bits:

$$e\Big(\prod_i S_i^{\delta_i},\ X\Big)\cdot e\Big(\prod_i (S_i^{c_i}\gamma_i^{-1}h_1^{-\hat r_i})^{\delta_i},\ f_2\Big)
 = e(f_1,f_2)^{\sum_i\delta_i},$$

because $S_i^{x} \cdot S_i^{c_i} = f_1 h_1^{\hat r_i}\gamma_i$.  Cost: $4n$ $\mathbb{G}_1$
exponentiations ($2n$ of them by 80-bit weights), 2 pairings, 1 $\mathbb{G}_T$ exponentiation by the
weights' sum (``bbsig.sum_bits``).
"""
from __future__ import annotations

from .bbsig import KAPPA, keygen, sum_bits, valid_key  # noqa: F401  (same keys as Boneh–Boyen)


def quasi_sign(G, x: int, gamma, rng):
    """(S, c, r_hat) on the commitment gamma."""
    c, r_hat = G.random_scalar(rng), G.random_scalar(rng)
    base = G.op(G.op(G.f1, G.exp1(G.h1, r_hat)), gamma)
    return G.exp1(base, G.inv(c + x)), c, r_hat


def verify(G, X, v: int, S, c: int, r_prime: int) -> bool:
    """The full BBS+ check on v (two pairings); False unless X is a key, S a point of G1 other than
    the identity and v, c, r' canonical scalars."""
    if not (valid_key(G, X) and G.in_g1(S, nonidentity=True) and all(G.scalar(x) for x in (v, c, r_prime))):
        return False
    rhs_g1 = G.op(G.op(G.f1, G.exp1(G.g1, v)), G.exp1(G.h1, r_prime))
    return G.pair(S, G.op(X, G.exp2(G.f2, c))) == G.pair(rhs_g1, G.f2)


def batch_verify_quasi(G, X, gammas, sigs, rng) -> bool:
    """sigs[i] = (S_i, c_i, r_hat_i) on gammas[i]."""
    if not (isinstance(gammas, (list, tuple)) and isinstance(sigs, (list, tuple)) and sigs
            and len(gammas) == len(sigs)):
        return False
    if not (valid_key(G, X) and all(G.in_g1(g) for g in gammas)
            and all(isinstance(sig, (list, tuple)) and len(sig) == 3 and G.in_g1(sig[0], nonidentity=True)
                    and G.scalar(sig[1]) and G.scalar(sig[2]) for sig in sigs)):
        return False
    deltas = [rng.getrandbits(KAPPA) | 1 for _ in sigs]
    A = G.prod([G.exp1_short(S, d, KAPPA) for (S, _, _), d in zip(sigs, deltas)], G.g1)
    B = G.prod([G.exp1_short(G.op(G.op(G.exp1(S, c), -gamma), G.exp1(G.h1, -r_hat)), d, KAPPA)
                for (S, c, r_hat), gamma, d in zip(sigs, gammas, deltas)], G.g1)
    return G.pair(A, X) * G.pair(B, G.f2) == G.expT_short(G.ef1f2, sum(deltas), sum_bits(len(sigs)))
