r"""The Mix protocol (paper Figure 7; notes §4.2) on threshold Paillier, at small sizes.

**Preprocessing.**  Threshold Paillier keys (``paillier.keygen``).  Mix-server k draws $\tau_k$
and publishes the permutation commitment $a^{(k)}_j = g_1^{s_j} h_{\tau_k(j)}$ in $\mathbb{G}_1$
(``shuffle.commit_permutation``) with a proof that it opens to a permutation matrix (the artifact's
``perm_nizkproof``: the permutation part of Terelius–Wikström; here ``shuffle.prove`` on $n$
trivial ciphertexts, whose shuffle part is then vacuous).  The others verify it.

**Mix.**  Sender i publishes $c_i = \mathrm{Enc}(v_i)$.  Then, for $k = 1..m$ in turn,

| step | who | math |
|---|---|---|
| M1 | $M_k$ | $c'_{\tau_k(j)} = c_j\,h_N^{\rho_j}$ (re-encrypt, permute) |
| M2 | $M_k$ | proof of shuffle consistent with $a^{(k)}$ (``prove_shuffle``) |
| M3 | each other $M_l$ | verify it |

and on the final list $c_1..c_n$: M4 each $M_k$ publishes $c_{ik} = c_i^{4d_k}$ with one batched
proof (``paillier.prove_shares``); M5 the others verify it; everyone combines
$v'_i = L(\prod_k c_{ik})/4$.  Output $v'_{\tau(i)} = v_i$, $\tau = \tau_m\circ\dots\circ\tau_1$.

**Proof of shuffle**: Wikström, "A commitment-consistent proof of a shuffle", ACISP 2009,
Protocol 15 with its sub-protocols (the artifact's ``shuffle_paillier_*``): ``prove_shuffle``
states it and where this code deviates from the artifact.  Counts: ``step_counts``.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field

from sage.all__sagemath_schemes import Integer

from ...prices.cost import Counts
from ...prices.counting import tally
from ...prices.keys import modexp_key
from . import paillier as pai, shuffle
from .dbsm import check_cheat, check_sizes
from .curves import SYSTEM_RANDOM, curve_by_name, groups
from .paillier import KAPPA_C, KAPPA_E, KAPPA_R, Sizes, hash_int

CHEATS = ("permutation", "ciphertext", "decryption_share")
NOT_IMPLEMENTED = ()
SLACK = KAPPA_C + KAPPA_R          # commitment randomness exceeds its witness by this many bits


# ---------------------------------------------------------------------------
# Tallied exponentiations in the three groups of the proof

def g1_pow(G, P, k: int, bits: int):
    """P^k in G1; a nominal size below |q| tallies the short-scalar key."""
    if bits >= G.q.bit_length():
        return G.exp1(P, k)
    tally(f"{G.name}/g1_mul/{bits}")
    return Integer(k) * P


@functools.lru_cache(maxsize=None)
def fo_key(N: int, n: int) -> tuple:
    """G_0, G_1..G_max(n,2): squares mod N from a public seed (untallied setup)."""
    def residue(i):
        stream, j = b"", 0
        while len(stream) * 8 < N.bit_length() + 128:
            stream += hashlib.sha512(b"costbook/mixnet/fo/%d/%d/%d" % (N, i, j)).digest()
            j += 1
        return pow(int.from_bytes(stream, "big") % N, 2, N)
    return tuple(residue(i) for i in range(max(n, 2) + 1))


@dataclass(frozen=True)
class Eq:
    """lhs = prod base^(sum of witnesses idx) in `where`: "g1", "n2" (mod N^2) or "n" (mod N)."""
    where: str
    lhs: object
    terms: tuple        # ((base, (witness indices...)), ...)


@dataclass(frozen=True)
class SigmaProof:
    c: int
    z: tuple


class IntegerSigma:
    """A Fiat–Shamir sigma proof of a conjunction of Eqs with integer witnesses of known sizes."""

    def __init__(self, G, pk: pai.PublicKey, tag: str, eqs, wbits, context=()):
        self.G, self.pk, self.tag, self.eqs, self.context = G, pk, tag, tuple(eqs), context
        self.obits = [b + SLACK for b in wbits]          # bits of omega (and nominal bits of z)

    def _exp(self, where, base, e, bits):
        pk = self.pk
        if where == "g1":
            return g1_pow(self.G, base, e, bits)
        if where == "n2" and base == 1 + pk.N:
            return (1 + e * pk.N) % pk.N2                # (1+N)^e = 1 + eN: free
        return pai._pow(base, e, pk.N2 if where == "n2" else pk.N, bits)

    def _mul(self, where, x, y):
        if where == "g1":
            return self.G.op(x, y)
        return x * y % (self.pk.N2 if where == "n2" else self.pk.N)

    def _evaluate(self, eq, exps):
        out = None
        for base, idx in eq.terms:
            bits = max(self.obits[i] for i in idx) + (len(idx) > 1)
            t = self._exp(eq.where, base, sum(exps[i] for i in idx), bits)
            out = t if out is None else self._mul(eq.where, out, t)
        return out

    def _challenge(self, T) -> int:
        g1 = [(eq.lhs, t) for eq, t in zip(self.eqs, T) if eq.where == "g1"]
        ints = [(eq.lhs, t) for eq, t in zip(self.eqs, T) if eq.where != "g1"]
        g1_part = self.G.challenge(self.tag, g1) if g1 else 0
        return hash_int(KAPPA_C, self.tag, g1_part, ints, list(self.context))

    def prove(self, witness, rng) -> SigmaProof:
        omega = [rng.getrandbits(b) for b in self.obits]
        c = self._challenge([self._evaluate(eq, omega) for eq in self.eqs])
        return SigmaProof(c, tuple(o + c * w for o, w in zip(omega, witness)))

    def verify(self, proof: SigmaProof) -> bool:
        if len(proof.z) != len(self.obits) or not 0 <= proof.c < 1 << KAPPA_C:
            return False
        if any(not 0 <= z < 1 << (b + 1) for z, b in zip(proof.z, self.obits)):
            return False
        T = []
        for eq in self.eqs:                              # T' = prod base^z / lhs^c
            y = self._exp(eq.where, eq.lhs, proof.c, KAPPA_C)
            inv = -y if eq.where == "g1" else \
                pow(y, -1, self.pk.N2 if eq.where == "n2" else self.pk.N)
            T.append(self._mul(eq.where, self._evaluate(eq, proof.z), inv))
        return proof.c == self._challenge(T)


# ---------------------------------------------------------------------------
# The Paillier proof of shuffle

@dataclass(frozen=True)
class ShuffleProof:
    b1: object
    b2: int
    z: tuple            # z1, z2, z3, z4 (FO commitments mod N)
    equal_exponents: SigmaProof
    reencryption: SigmaProof


def _statement(G, pk, c_in, c_out, a):
    """The challenge vector u and the values both sides compute: A = prod a^u, C = prod c^u."""
    n = len(c_in)
    if not (n == len(c_out) == len(a)) or n == 0:
        raise ValueError(f"Paillier shuffle: {len(c_in)} inputs, {len(c_out)} outputs, {len(a)} commitments")
    seed = hash_int(256, "mix/shuffle/u", G.challenge("mix/shuffle/a", a), pk.N, list(c_in), list(c_out))
    u = [hash_int(KAPPA_E, "mix/shuffle/u_j", seed, j) for j in range(n)]
    A = G.prod([g1_pow(G, aj, uj, KAPPA_E) for aj, uj in zip(a, u)], G.g1)
    C = 1
    for cj, uj in zip(c_in, u):
        C = C * pai._pow(cj, uj, pk.N2, KAPPA_E) % pk.N2
    return u, A, C, seed


def _relations(G, pk, n, A, C, b1, b2, z, c_out, seed):
    """The two sigma relations (equal exponents, re-encryption) over their witnesses."""
    h, hs = shuffle.commitment_key(G, max(n, 2))
    Fo = fo_key(pk.N, n)
    qb, s = G.q.bit_length(), pk.sizes
    yb = s.kappa + KAPPA_R                                   # FO randomness
    rb = s.r + KAPPA_E + KAPPA_R                             # r = sum rho_i u'_i, n < 2^20
    one = 1 + pk.N
    # equal exponents: witnesses e0, t0, t1, t2, y1, y2, u'_1..u'_n
    U = [(6 + i,) for i in range(n)]
    eq = IntegerSigma(G, pk, "mix/shuffle/equal-exponents", [
        Eq("g1", A, ((G.g1, (0,)),) + tuple((hs[i], U[i]) for i in range(n))),
        Eq("g1", b1, ((G.g1, (1,)), (hs[0], (2,)), (hs[1], (3,)))),
        Eq("n2", b2, ((one, (2,)), (pk.hN, (3,))) + tuple((c_out[i], U[i]) for i in range(n))),
        Eq("n", z[0], ((Fo[0], (4,)),) + tuple((Fo[1 + i], U[i]) for i in range(n))),
        Eq("n", z[1], ((Fo[0], (5,)), (Fo[1], (2,)), (Fo[2], (3,)))),
    ], [qb, qb, qb, qb, yb, yb] + [KAPPA_E] * n, context=(seed, b2))
    # re-encryption: witnesses t0, t1, t2, r, y3, y4
    b2_over_C = b2 * pow(C, -1, pk.N2) % pk.N2
    re = IntegerSigma(G, pk, "mix/shuffle/reencryption", [
        Eq("g1", b1, ((G.g1, (0,)), (hs[0], (1,)), (hs[1], (2,)))),
        Eq("n2", b2_over_C, ((one, (1,)), (pk.hN, (2, 3)))),
        Eq("n", z[2], ((Fo[0], (4,)), (Fo[1], (3,)))),
        Eq("n", z[3], ((Fo[0], (5,)), (Fo[1], (1,)), (Fo[2], (2,)))),
    ], [qb, qb, qb, rb, yb, yb], context=(seed, b2, C))
    return eq, re


def prove_shuffle(G, pk, c_in, c_out, a, tau, s, rho, rng=SYSTEM_RANDOM) -> ShuffleProof:
    r"""c_out[tau[j]] = c_in[j] h_N^{rho[j]}; (a, s) = commit_permutation(tau).

    **Proof of shuffle** (Wikström, ACISP 2009, Protocol 15).  With the
    challenge vector $u_j \in [0, 2^{80})$ and $u'_i = u_{\sigma(i)}$, $\sigma = \tau^{-1}$, both sides
    form $A = \prod_j a_j^{u_j} = g_1^{e_0}\prod_i h_i^{u'_i}$ ($e_0 = \sum_j s_j u_j$) and
    $C = \prod_j c_j^{u_j}$; a correct shuffle has $\prod_i c'^{\,u'_i}_i = C\,h_N^{r}$ with
    $r = \sum_i \rho_i u'_i$.  The prover blinds with $t_0, t_1, t_2 \in \mathbb{Z}_q$:

    $$b_1 = g_1^{t_0} h_1^{t_1} h_2^{t_2},\qquad b_2 = (1+N)^{t_1} h_N^{t_2} \prod_i c'^{\,u'_i}_i \bmod N^2,$$

    and proves, as two Fiat–Shamir sigma proofs with integer responses,

    * *equal exponents*: $\mathrm{PK}\{(e_0,t_0,t_1,t_2,u',y_1,y_2):\ A = g_1^{e_0}\prod h_i^{u'_i},\
      b_1 = g_1^{t_0}h_1^{t_1}h_2^{t_2},\ b_2 = (1+N)^{t_1}h_N^{t_2}\prod c'^{u'_i}_i,\
      z_1 = G_0^{y_1}\prod G_i^{u'_i},\ z_2 = G_0^{y_2}G_1^{t_1}G_2^{t_2}\}$,
    * *re-encryption*: $\mathrm{PK}\{(t_0,t_1,t_2,r,y_3,y_4):\ b_1 = g_1^{t_0}h_1^{t_1}h_2^{t_2},\
      b_2/C = (1+N)^{t_1}h_N^{t_2+r},\ z_3 = G_0^{y_3}G_1^{r},\ z_4 = G_0^{y_4}G_1^{t_1}G_2^{t_2}\}$,

    where $z_1..z_4$ are Fujisaki–Okamoto commitments modulo $N$ (generators $G_0, G_1, \dots$:
    squares mod $N$ derived from a public seed, so no mix-server knows their relations; the order of
    $QR_N$ is unknown to all of them).  The same exponents live in $\mathbb{G}_1$ (order $q$) and in
    $\mathbb{Z}^*_{N^2}$ (unknown order), so responses are integers, $z = \omega + c\,w$ with $\omega$
    of $|w| + \kappa_c + \kappa_r$ bits: 180 bits for the $u'_i$ (80-bit witnesses), and the FO
    commitments make the extracted witnesses the same integers in both groups.

    *Deviations from the artifact*: the challenge vector $u$ is Fiat–Shamir over the statement (the
    artifact's prover draws it itself, so nothing forces it); $(1+N)^t$ is computed as $1 + tN$
    (free) instead of an exponentiation; responses are not truncated mod $2^{\text{bits}}$ (the
    artifact's ``t_mod_2exp`` breaks a proof with probability about $2^{-20}$).  The permutation
    commitment's proof uses this book's Terelius–Wikström code (``shuffle``), generators $g_1$ for
    randomness and $h_i$ for messages, so $b_1$ uses $h_1, h_2$ as the artifact's ``gs[0], gs[1]``.
    """
    n = len(c_in)
    if n >= 1 << 20:
        raise ValueError("Paillier shuffle: n must be below 2^20 (the size of r is fixed)")
    u, A, C, seed = _statement(G, pk, c_in, c_out, a)
    sigma = shuffle.inverse(tau)
    up = [u[sigma[i]] for i in range(n)]
    e0 = sum(sj * uj for sj, uj in zip(s, u)) % G.q
    r = sum(rho[sigma[i]] * up[i] for i in range(n))
    _, hs = shuffle.commitment_key(G, max(n, 2))
    Fo = fo_key(pk.N, n)
    qb, s_ = G.q.bit_length(), pk.sizes
    yb = s_.kappa + KAPPA_R
    t0, t1, t2 = (G.random_scalar(rng) for _ in range(3))
    y = [rng.getrandbits(yb) for _ in range(4)]
    X2 = lambda b, e, bits: pai._pow(b, e, pk.N2, bits)
    X1 = lambda b, e, bits: pai._pow(b, e, pk.N, bits)
    b1 = G.multi_exp([G.g1, hs[0], hs[1]], [t0, t1, t2])
    b2 = (1 + t1 * pk.N) * X2(pk.hN, t2, qb) % pk.N2
    for ci, ui in zip(c_out, up):
        b2 = b2 * X2(ci, ui, KAPPA_E) % pk.N2
    z1 = X1(Fo[0], y[0], yb)
    for i in range(n):
        z1 = z1 * X1(Fo[1 + i], up[i], KAPPA_E) % pk.N
    z2 = X1(Fo[0], y[1], yb) * X1(Fo[1], t1, qb) * X1(Fo[2], t2, qb) % pk.N
    z3 = X1(Fo[0], y[2], yb) * X1(Fo[1], r, s_.r + KAPPA_E + KAPPA_R) % pk.N
    z4 = X1(Fo[0], y[3], yb) * X1(Fo[1], t1, qb) * X1(Fo[2], t2, qb) % pk.N
    z = (z1, z2, z3, z4)
    eq, re = _relations(G, pk, n, A, C, b1, b2, z, c_out, seed)
    return ShuffleProof(b1, b2, z,
                        eq.prove([e0, t0, t1, t2, y[0], y[1]] + up, rng),
                        re.prove([t0, t1, t2, r, y[2], y[3]], rng))


def _sigma_shape(proof) -> bool:
    return (isinstance(proof, SigmaProof) and pai._int(proof.c) and isinstance(proof.z, (tuple, list))
            and all(pai._int(z) for z in proof.z))


def verify_shuffle(G, pk, c_in, c_out, a, proof: ShuffleProof) -> bool:
    """False for a malformed key, lists of unequal or zero length, commitments or b1 outside G1, or a
    proof without its shape; else the two integer sigma proofs."""
    if not (pai.well_formed_key(pk) and all(isinstance(x, (list, tuple)) for x in (c_in, c_out, a))
            and len(c_in) == len(c_out) == len(a) >= 1 and all(G.in_g1(x) for x in a)):
        return False
    if not (isinstance(proof, ShuffleProof) and G.in_g1(proof.b1) and pai._int(proof.b2)
            and isinstance(proof.z, (tuple, list)) and all(pai._int(z) for z in proof.z)
            and _sigma_shape(proof.equal_exponents) and _sigma_shape(proof.reencryption)):
        return False
    if not pai.are_ciphertexts(pk, [*c_in, *c_out]):
        return False
    n = len(c_in)
    u, A, C, seed = _statement(G, pk, c_in, c_out, a)
    if len(proof.z) != 4:
        return False
    # every value the relations invert must be a unit: the ciphertexts, b2 mod N^2, z1..z4 mod N
    if not pai.are_ciphertexts(pk, [*c_in, *c_out, proof.b2]) or \
            not all(pai.is_ciphertext(pk, zi) and zi < pk.N for zi in proof.z):
        return False
    eq, re = _relations(G, pk, n, A, C, proof.b1, proof.b2, proof.z, c_out, seed)
    return eq.verify(proof.equal_exponents) and re.verify(proof.reencryption)


# ---------------------------------------------------------------------------
# The protocol

@dataclass
class MixSetup:
    pk: pai.PublicKey
    d_shares: list = field(repr=False)
    taus: list = field(repr=False)           # taus[k][j]: mix-server k sends position j to taus[k][j]
    perm_comms: list = field(repr=False)     # (a^{(k)}, s^{(k)})
    perm_proofs: list = field(repr=False)
    perm_ok: list = field(default_factory=list)   # perm_ok[k]: the others accepted a^{(k)}


def _trivial(G, n):
    return [(G.one1, G.one1)] * n


def setup(G, n: int, m: int, p: int | None = None, q: int | None = None, bits: int = 1024,
          rng=SYSTEM_RANDOM) -> MixSetup:
    """Keys; each mix-server's permutation, its commitment and the proof that it is one (P1-P3)."""
    check_sizes(n, m)
    pk, ds = pai.keygen(m, p, q, bits, rng)
    taus = [shuffle.random_permutation(n, rng) for _ in range(m)]
    comms = [shuffle.commit_permutation(G, t, rng) for t in taus]
    # the permutation part of Terelius–Wikström: a shuffle of n trivial ciphertexts under a^{(k)}
    proofs = [shuffle.prove(G, G.g1, _trivial(G, n), _trivial(G, n), a, t, s, [0] * n, rng)
              for t, (a, s) in zip(taus, comms)]
    ok = [all(shuffle.verify(G, G.g1, _trivial(G, n), _trivial(G, n), comms[j][0], proofs[j])
              for k in range(m) if k != j) for j in range(m)]
    return MixSetup(pk, ds, taus, comms, proofs, ok)


@dataclass
class MixResult:
    outputs: list | None         # v'_1..v'_n, or None if a check failed
    accepted: bool
    checks: dict                 # per check, one verdict per mix-server (as the others see it)
    transcript: dict
    not_implemented: tuple = NOT_IMPLEMENTED


def mix(G, st: MixSetup, v, rng=SYSTEM_RANDOM, cheat=None) -> MixResult:
    """Senders encrypt v; mix-servers 1..m shuffle and prove; threshold decryption with proofs.
    cheat makes mix-server 0 misbehave in one step."""
    pk, n, m = st.pk, len(v), st.pk.m
    check_cheat(cheat, n, CHEATS)
    if n != len(st.taus[0]):
        raise ValueError(f"mix: {n} inputs for a setup of {len(st.taus[0])}")
    cur = [pai.encrypt(pk, vi, rng)[0] for vi in v]                      # S: senders
    stages = []
    for k in range(m):                                                     # M1, M2
        tau = list(st.taus[k])
        if cheat == "permutation" and k == 0:
            tau[0], tau[1] = tau[1], tau[0]                                # not the committed one
        out, rho = [None] * n, [None] * n
        for j, cj in enumerate(cur):
            out[tau[j]], rho[j] = pai.reencrypt(pk, cj, rng)
        a, s = st.perm_comms[k]
        proof = prove_shuffle(G, pk, cur, out, a, tau, s, rho, rng)
        if cheat == "ciphertext" and k == 0:
            out[0] = pai.reencrypt(pk, pai.add(pk, out[0], pai.encrypt(pk, 1, r=0)[0]), rng)[0]
        stages.append((cur, out, proof))
        cur = out
    shuffle_ok = [all(verify_shuffle(G, pk, stages[j][0], stages[j][1], st.perm_comms[j][0], stages[j][2])
                      for k in range(m) if k != j) for j in range(m)]               # M3
    shares, share_proofs = [], []
    for k in range(m):                                                     # M4
        sh = [pai.share_decrypt(pk, c, st.d_shares[k]) for c in cur]
        if cheat == "decryption_share" and k == 0:
            sh[0] = sh[0] * (1 + pk.N) % pk.N2
        shares.append(sh)
        share_proofs.append(pai.prove_shares(pk, k, st.d_shares[k], cur, sh, rng))
    decryption_ok = [all(pai.verify_shares(pk, j, cur, shares[j], share_proofs[j])
                         for k in range(m) if k != j) for j in range(m)]          # M5
    checks = {"permutation_commitments": list(st.perm_ok), "shuffle": shuffle_ok,
              "decryption": decryption_ok}
    accepted = all(all(c) for c in checks.values())
    outputs = [pai.combine(pk, col) for col in zip(*shares)] if accepted else None
    return MixResult(outputs, accepted, checks,
                     {"inputs": stages[0][0], "shuffles": stages, "shares": shares,
                      "share_proofs": share_proofs})


def expected_outputs(v, taus) -> list:
    """v'_{tau(i)} = v_i with tau = tau_m o ... o tau_1."""
    out = list(v)
    for tau in taus:
        nxt = [None] * len(out)
        for j, x in enumerate(out):
            nxt[tau[j]] = x
        out = nxt
    return out


def run_mix(v, m: int, p: int | None = None, q: int | None = None, bits: int = 1024,
            curve: str = "bn254", rng=SYSTEM_RANDOM, cheat=None):
    """(setup, result) of one Mix of the plaintexts v among m mix-servers."""
    check_sizes(len(v), m)
    check_cheat(cheat, len(v), CHEATS)
    G = groups(curve)
    st = setup(G, len(v), int(m), p, q, bits, rng)
    return st, mix(G, st, v, rng, cheat)


# ---------------------------------------------------------------------------
# Counts (stated; the tests compare them with a run)

def _q_bits(curve: str) -> int:
    return int(curve_by_name(curve).r).bit_length()          # 254 for bn254, 255 for bls12_381


def shuffle_counts(n: int, sizes, curve: str = "bn254") -> tuple:
    """(prover, verifier) of one Paillier proof of shuffle over n ciphertexts; sizes is a
    PublicKey, a paillier.Sizes or |N^2| (then |N| = ceil(|N^2|/2))."""
    s, q_bits = Sizes.of(sizes), _q_bits(curve)
    x2 = lambda b: modexp_key(s.n2, b)
    x1 = lambda b: modexp_key(s.kappa, b)
    g1 = lambda b: f"{curve}/g1_mul" if b >= q_bits else f"{curve}/g1_mul/{b}"
    qb, yb, rb, e = q_bits, s.kappa + KAPPA_R, s.r + KAPPA_E + KAPPA_R, KAPPA_E
    qo, yo, ro, eo = qb + SLACK, yb + SLACK, rb + SLACK, e + SLACK
    both = Counts({g1(e): n, x2(e): n})                                     # A and C
    # the products of the two sigma relations, evaluated at omega (prover) or z (verifier)
    sigma = Counts({g1(qo): 1, g1(eo): n}) + Counts({g1(qo): 3}) \
        + Counts({x2(qo): 1, x2(eo): n}) + Counts({x1(yo): 1, x1(eo): n}) \
        + Counts({x1(yo): 1, x1(qo): 2}) \
        + Counts({g1(qo): 3}) + Counts({x2(max(qo, ro) + 1): 1}) \
        + Counts({x1(yo): 1, x1(ro): 1}) + Counts({x1(yo): 1, x1(qo): 2})
    prover = both + sigma + Counts({
        g1(qb): 3,                                                          # b1
        x2(qb): 1, x2(e): n,                                                # b2
        x1(yb): 4, x1(e): n, x1(qb): 4, x1(rb): 1})                         # z1..z4
    c = KAPPA_C
    verifier = both + sigma + Counts({g1(c): 3, x2(c): 2, x1(c): 4})       # lhs^c, 9 equations
    # light: A's product n - 1, b1's 2 (prover), the G1 equations' terms - 1 (n + 2, then 2), one
    # more per G1 equation for the verifier's lhs^-c (3); hashed: the a_j, then 2 + 2 and 1 + 1
    # G1 left-hand sides and commitments
    hashed = Counts({f"{curve}/g1_to_bytes": n + 4 + 2})
    prover += Counts({f"{curve}/g1_add": (n - 1) + 2 + (n + 2) + 2}) + hashed
    verifier += Counts({f"{curve}/g1_add": (n - 1) + (n + 2) + 2 + 3}) + hashed
    return prover, verifier


def step_counts(n: int, m: int, sizes, curve: str = "bn254") -> dict:
    r"""{step: Counts} per mix-server (P*, M*) and for all senders together (S).

    Exponentiations mod $N^2$ and mod $N$ tally ``modexp/<|N^2|>/<bits>`` and
    ``modexp/<|N|>/<bits>`` at nominal exponent sizes (``paillier``); in $\mathbb{G}_1$ an exponent
    of fewer bits than $q$ tallies ``<curve>/g1_mul/<bits>`` (80-bit challenges, 180-bit responses),
    a full-size one ``<curve>/g1_mul``.  The $\mathbb{G}_1$ part also tallies its light operations
    (``dbsm.LIGHT_KEYS``): additions and the elements serialised for its Fiat–Shamir challenges.  A
    Paillier proof of shuffle adds $n - 1$ ($A$), 2 ($b_1$) and, per $\mathbb{G}_1$ equation evaluated,
    its terms − 1 ($n$ for $A$'s, 2 for $b_1$'s; the verifier one more for dividing by $\mathrm{lhs}^c$):
    $2n + 5$ for the prover, $2n + 6$ for the verifier; both hash the $n$ commitments $a_j$ and each
    sigma proof's $\mathbb{G}_1$ left-hand sides and commitments (4 and 2): $n + 6$ elements.  The
    permutation commitment adds $h_{\tau(j)}$, $n$; its Terelius–Wikström proof adds $5n$ (verifier
    $10n + 2$) and hashes $7n + 6$ elements (``dbsm``'s shuffle counts).  Modular arithmetic has no
    light keys.  All of them are stated here; the tests compare a run.
    """
    check_sizes(n, m)
    sp, sv = shuffle_counts(n, sizes, curve)
    pp, pv = pai.share_proof_counts(n, sizes)
    tw_p, tw_v = shuffle.exponentiations(n)
    # Terelius–Wikström on trivial ciphertexts: the light operations of a shuffle of DB-SM
    tw_add_p, tw_add_v, tw_hashed = shuffle.light_operations(n)
    g1 = lambda **kw: Counts({f"{curve}/g1_{k}": v for k, v in kw.items() if v})
    return {
        "P1 commit to the permutation": g1(mul=n, add=n),
        "P2 prove the commitment opens to a permutation": g1(mul=tw_p, add=tw_add_p, to_bytes=tw_hashed),
        "P3 verify the others' permutation commitments": g1(mul=(m - 1) * tw_v, add=(m - 1) * tw_add_v,
                                                            to_bytes=(m - 1) * tw_hashed),
        "S encrypt the inputs (all senders)": pai.encryption_counts(n, sizes),
        "M1 re-encrypt and permute": pai.encryption_counts(n, sizes),
        "M2 prove the shuffle": sp,
        "M3 verify the others' shuffles": (m - 1) * sv,
        "M4 decryption shares and their batched proof": pai.share_decryption_counts(n, sizes) + pp,
        "M5 verify the others' share proofs": (m - 1) * pv,
    }


def party_counts(n: int, m: int, sizes, curve: str = "bn254") -> dict:
    """{"mixer": per mix-server (preprocessing included), "senders": S, "total": S + m mixers}."""
    steps = step_counts(n, m, sizes, curve)
    mixer = sum((c for k, c in steps.items() if k[0] in "PM"), Counts())
    senders = sum((c for k, c in steps.items() if k[0] == "S"), Counts())
    return {"mixer": mixer, "senders": senders, "total": senders + m * mixer}
