r"""Terelius–Wikström proof of a shuffle of ElGamal ciphertexts in $\mathbb{G}_1$
(the artifact's ``commit_perm`` and ``shuffle_elgamal_nizkproof``; notation of Haenni et al.,
"Pseudo-code algorithms for verifiable re-encryption mix-nets", FC 2017).

A mix-server commits to its permutation $\tau$ once, in preprocessing (``commit_permutation``).

**Shuffle.**  Outputs $e'_i = e_{\sigma(i)}\cdot\mathrm{Enc}(1;\rho_i)$ with $\sigma = \tau^{-1}$,
ciphertexts $e = (e_0, e_1) = (g_1^\rho, M pk^\rho)$.  Challenges
$u_j = H(\text{seed}, j)$ with seed $= H(pk, e, e', a)$, and $u'_i = u_{\sigma(i)}$.  The prover
shows knowledge of $\bar r = \sum s_j$, $\hat r$, $\tilde r = \sum s_j u_j$,
$r' = \sum \rho_i u'_i$, $\hat r_i$ and $u'_i$ with

* $\prod_j a_j / \prod_i h_i = g_1^{\bar r}$ (the committed matrix has column sums 1),
* $\hat c_i = g_1^{\hat r_i} \hat c_{i-1}^{u'_i}$, $\hat c_0 = h$, and
  $\hat c_n / h^{\prod_j u_j} = g_1^{\hat r}$ (the $u'$ are a permutation of the $u$),
* $\prod_j a_j^{u_j} = g_1^{\tilde r}\prod_i h_i^{u'_i}$ (the same permutation as committed),
* $\prod_j e_{j,0}^{u_j} = g_1^{-r'}\prod_i e'^{u'_i}_{i,0}$ and
  $\prod_j e_{j,1}^{u_j} = pk^{-r'}\prod_i e'^{u'_i}_{i,1}$ (the ciphertexts follow it),

as one Fiat–Shamir sigma protocol (costs: ``exponentiations``).

To prove a *reverse* permutation with the same commitment (DB-SM), swap the roles of inputs and
outputs: the new list is the "input" $e$, the old list the "output" $e'$, and $\rho_i$ becomes
minus the re-encryption randomness.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from . import elgamal
from .curves import hash_to_g1


@functools.lru_cache(maxsize=None)
def _generators(G, n: int) -> tuple:
    """h, h_1..h_n (untallied setup)."""
    return tuple(hash_to_g1(G.C, b"costbook/mixnet/shuffle/%d" % i) for i in range(n + 1))


def commitment_key(G, n: int):
    gens = _generators(G, n)
    return gens[0], list(gens[1:])


def random_permutation(n: int, rng) -> list:
    tau = list(range(n))
    rng.shuffle(tau)
    return tau


def inverse(tau) -> list:
    sigma = [0] * len(tau)
    for j, t in enumerate(tau):
        sigma[t] = j
    return sigma


def commit_permutation(G, tau, rng):
    r"""(a, s): a_j = g1^{s_j} h_{tau(j)}.

    The permutation commitment, published once, in preprocessing.  With independent generators
    $h, h_1,\dots,h_n$ of unknown logarithms (``curves.hash_to_g1``), a mix-server that sends input
    $j$ to output position $\tau(j)$ publishes $a_j = g_1^{s_j} h_{\tau(j)}$ ($n$ exponentiations).
    """
    _, hs = commitment_key(G, len(tau))
    s = [G.random_scalar(rng) for _ in tau]
    return [G.op(G.exp1(G.g1, sj), hs[t]) for sj, t in zip(s, tau)], s


def reencrypt_permute(G, pk, E, dest, rng):
    """(out, rho): out[dest[j]] = ReEnc(E[j]; rho[j])."""
    out, rho = [None] * len(E), [None] * len(E)
    for j, Ej in enumerate(E):
        out[dest[j]], rho[j] = elgamal.reencrypt(G, pk, Ej, rng)
    return out, rho


@dataclass(frozen=True)
class ShuffleProof:
    chain: tuple        # c_hat_1..c_hat_n
    c: int
    s: tuple            # s1, s2, s3, s4
    s_hat: tuple
    s_prime: tuple


def _challenges(G, pk, e, e_out, a):
    seed = G.challenge("shuffle/seed", pk, e, e_out, a)
    return [G.challenge("shuffle/u", seed, j) for j in range(len(e))], seed


def _check_sizes(e, e_out, a):
    if not (len(e) == len(e_out) == len(a)) or not e:
        raise ValueError(f"shuffle: {len(e)} inputs, {len(e_out)} outputs, {len(a)} commitments")


def prove(G, pk, e, e_out, a, tau, s, rho, rng) -> ShuffleProof:
    """e_out[i] = e[sigma(i)] · Enc(1; rho[i]), sigma = tau^{-1}; (a, s) commit to tau."""
    _check_sizes(e, e_out, a)
    n, q, g = len(e), G.q, G.g1
    h, hs = commitment_key(G, n)
    sigma = inverse(tau)
    u, seed = _challenges(G, pk, e, e_out, a)
    up = [u[sigma[i]] for i in range(n)]
    r_hat = [G.random_scalar(rng) for _ in range(n)]
    chain, prev = [], h
    for i in range(n):
        prev = G.op(G.exp1(g, r_hat[i]), G.exp1(prev, up[i]))
        chain.append(prev)
    w = [G.random_scalar(rng) for _ in range(4)]
    w_hat = [G.random_scalar(rng) for _ in range(n)]
    w_p = [G.random_scalar(rng) for _ in range(n)]
    t = _t_values(G, pk, e_out, hs, h, chain, w, w_hat, w_p, neg_pow=None)
    c = G.challenge("shuffle/c", seed, chain, t)
    v, acc = [0] * n, 1                          # v_i = prod_{l > i} u'_l
    for i in reversed(range(n)):
        v[i] = acc
        acc = acc * up[i] % q
    witness = (sum(s), sum(rh * vi for rh, vi in zip(r_hat, v)),
               sum(sj * uj for sj, uj in zip(s, u)), sum(r * x for r, x in zip(rho, up)))
    return ShuffleProof(tuple(chain), c,
                        tuple((wi + c * x) % q for wi, x in zip(w, witness)),
                        tuple((wi + c * x) % q for wi, x in zip(w_hat, r_hat)),
                        tuple((wi + c * x) % q for wi, x in zip(w_p, up)))


def _t_values(G, pk, e_out, hs, h, chain, s, s_hat, s_p, neg_pow):
    """The prover's t (neg_pow None) or the verifier's t' = t · (statement)^{-c}.

    neg_pow = (c, [cbar, chat, ctilde, A0, A1]) supplies the statement values to divide out."""
    g = G.g1
    prev = [h] + list(chain[:-1])
    t = [G.exp1(g, s[0]), G.exp1(g, s[1]),
         G.op(G.exp1(g, s[2]), G.multi_exp(hs, s_p)),
         G.op(G.exp1(g, -s[3]), G.multi_exp([E[0] for E in e_out], s_p)),
         G.op(G.exp1(pk, -s[3]), G.multi_exp([E[1] for E in e_out], s_p))]
    t_hat = [G.op(G.exp1(g, sh), G.exp1(p, sp)) for sh, sp, p in zip(s_hat, s_p, prev)]
    if neg_pow is not None:
        c, stmt = neg_pow
        t = [G.op(ti, G.exp1(y, -c)) for ti, y in zip(t, stmt)]
        t_hat = [G.op(ti, G.exp1(ch, -c)) for ti, ch in zip(t_hat, chain)]
    return t, t_hat


def well_formed(G, pk, e, e_out, a, proof) -> bool:
    """The shapes and groups of a shuffle statement and proof: n >= 1 ciphertexts in and out and n
    commitments, all in G1, a key other than the identity, a chain of n points of G1, a canonical
    challenge and 4 + n + n canonical responses."""
    seqs = (e, e_out, a)
    if not all(isinstance(x, (list, tuple)) for x in seqs) or not (len(e) == len(e_out) == len(a) >= 1):
        return False
    n = len(e)
    if not (G.in_g1(pk, nonidentity=True) and all(elgamal.is_ciphertext(G, E) for E in (*e, *e_out))
            and all(G.in_g1(x) for x in a)):
        return False
    if not isinstance(proof, ShuffleProof):
        return False
    parts = (proof.chain, proof.s, proof.s_hat, proof.s_prime)
    if not all(isinstance(x, (list, tuple)) for x in parts) or \
            not (len(proof.chain) == len(proof.s_hat) == len(proof.s_prime) == n and len(proof.s) == 4):
        return False
    return (all(G.in_g1(x) for x in proof.chain) and G.scalar(proof.c)
            and all(G.scalar(x) for x in (*proof.s, *proof.s_hat, *proof.s_prime)))


def verify(G, pk, e, e_out, a, proof: ShuffleProof) -> bool:
    if not well_formed(G, pk, e, e_out, a, proof):
        return False
    n = len(e)
    h, hs = commitment_key(G, n)
    u, seed = _challenges(G, pk, e, e_out, a)
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % G.q
    cbar = G.op(G.prod(a, G.g1), -G.prod(hs, G.g1))
    chat = G.op(proof.chain[-1], -G.exp1(h, u_prod))
    stmt = [cbar, chat, G.multi_exp(a, u),
            G.multi_exp([E[0] for E in e], u), G.multi_exp([E[1] for E in e], u)]
    t = _t_values(G, pk, e_out, hs, h, proof.chain, proof.s, proof.s_hat, proof.s_prime,
                  neg_pow=(proof.c, stmt))
    return proof.c == G.challenge("shuffle/c", seed, list(proof.chain), t)


def exponentiations(n: int) -> tuple:
    """(prover, verifier) G1 exponentiations of one proof of shuffle of n ciphertexts, counted from
    ``prove`` and ``verify`` above (the tests compare them with a tallied run).

    The notes (§4.1) read 7n and 9n off the artifact: it reuses the chain across runs for part of
    the work, this code does not."""
    return 7 * n + 5, 9 * n + 11


def light_operations(n: int) -> tuple:
    """(prover additions, verifier additions, G1 elements serialised by either) of one proof of
    shuffle of n ciphertexts: the prover's 5n additions, the verifier's 10n + 2, and the challenge
    hashes' 5n + 1 (seed) + 2n + 5 elements (the tests compare them with a tallied run)."""
    return 5 * n, 10 * n + 2, 7 * n + 6
