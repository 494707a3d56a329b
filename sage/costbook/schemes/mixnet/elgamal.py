r"""ElGamal in $\mathbb{G}_1$ with m-of-m threshold keys (the artifact's ``elgamal.py``).

Keys.  Mix-server k holds $sk_k \leftarrow \mathbb{Z}_q$ and publishes $pk_k = g_1^{sk_k}$; the
joint key is $pk = \prod_k pk_k = g_1^{sk}$ with $sk = \sum_k sk_k$ (additive shares, all m needed).

* $\mathrm{Enc}(M;\rho) = (g_1^\rho,\ M\,pk^\rho)$ — 2 exponentiations;
* $\mathrm{ReEnc}(E;\rho') = E \cdot \mathrm{Enc}(1;\rho')$ — 2 exponentiations, 2 additions
  ($\mathrm{Enc}(1;\rho') = (g_1^{\rho'}, pk^{\rho'})$ needs none);
* homomorphic product $E \cdot E' = \mathrm{Enc}(M M'; \rho + \rho')$ and power
  $E^b = \mathrm{Enc}(M^b; b\rho)$ (2 exponentiations);
* threshold decryption: share $D_k = E_0^{sk_k}$ with a Chaum–Pedersen proof
  $\mathrm{PK}\{s: pk_k = g_1^s \wedge D_k = E_0^s\}$ (1 + 2 exponentiations; verification 4),
  then $M = E_1 / \prod_k D_k$.

The artifact batches the n share proofs of one mix-server into one proof with random 80-bit
weights (notes §4.1); here each share has its own proof, so a bad share is pinned to its item.
"""
from __future__ import annotations

from . import sigma


def check_m(m: int) -> int:
    if isinstance(m, bool) or not hasattr(m, "__index__") or m < 2:
        raise ValueError(f"m (the number of mix-servers) must be an integer >= 2, got {m!r}")
    return m


def keygen(G, m: int, rng):
    """(pk, [pk_k], [sk_k]) for m mix-servers."""
    check_m(m)
    sks = [G.random_scalar(rng) for _ in range(m)]
    pks = [G.exp1(G.g1, s) for s in sks]
    return G.prod(pks, G.g1), pks, sks


def encrypt(G, pk, M, rng=None, rho=None):
    """(Enc(M; rho), rho); rho is drawn from rng unless given (to recompute a ciphertext)."""
    rho = G.random_scalar(rng) if rho is None else rho
    return (G.exp1(G.g1, rho), G.op(M, G.exp1(pk, rho))), rho


def reencrypt(G, pk, E, rng):
    """(E · Enc(1; rho'), rho')."""
    rho = G.random_scalar(rng)
    return mult(G, E, (G.exp1(G.g1, rho), G.exp1(pk, rho))), rho


def mult(G, E, F):
    return G.op(E[0], F[0]), G.op(E[1], F[1])


def power(G, E, b):
    return G.exp1(E[0], b), G.exp1(E[1], b)


def share_relation(G, pk_k, E, D) -> sigma.LinearRelation:
    """PK{s: pk_k = g1^s and D = E_0^s}."""
    return sigma.LinearRelation("elgamal/decryption-share", (pk_k, D), ((G.g1,), (E[0],)), context=(E,))


def share_decrypt(G, E, sk_k, pk_k, rng):
    """(D_k, proof) for mix-server k."""
    D = G.exp1(E[0], sk_k)
    return D, sigma.prove(G, share_relation(G, pk_k, E, D), (sk_k,), rng)


def is_ciphertext(G, E) -> bool:
    """A pair of points of G1."""
    return isinstance(E, (tuple, list)) and len(E) == 2 and G.in_g1(E[0]) and G.in_g1(E[1])


def verify_share(G, E, pk_k, D, proof) -> bool:
    """False unless E is a ciphertext, pk_k a key other than the identity and D a point of G1; then the
    Chaum–Pedersen proof (one prover)."""
    if not (is_ciphertext(G, E) and G.in_g1(pk_k, nonidentity=True) and G.in_g1(D)):
        return False
    return sigma.verify(G, share_relation(G, pk_k, E, D), proof)


def combine(G, E, shares):
    """M = E_1 / prod_k D_k."""
    return G.op(E[1], -G.prod(shares, E[0]))
