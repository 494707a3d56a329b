r"""DB-SM: distributed proof of set membership for every input (paper Figure 8; notes §4.3).

**Setting** (the output of the Mix protocol, ``mix_outputs``).  Sender i committed
$\gamma_i = g_1^{v_i} h_1^{r_i}$ and gave each of the m mix-servers additive shares
$v_i^{(k)}, r_i^{(k)}$.  Mix-server k permuted the list by $\tau_k$ (input j to position
$\tau_k(j)$) and published a permutation commitment $a^{(k)}$ (``shuffle.commit_permutation``);
the mix published the outputs $v'_{\tau(i)} = v_i$, $\tau = \tau_m\circ\dots\circ\tau_1$.
The Mix protocol itself runs on threshold Paillier (``mix``); the query here starts from a
stand-in that draws the inputs, shares, permutations and commitments directly.

**Query** (worst case: every input, every output).  For each i the querier Q learns whether

$$\mathrm{PK}\{(v, r, b):\ \gamma_i = g_1^{v} h_1^{r}\ \wedge\ e(\tilde\sigma_i, X)\,e(\tilde\sigma_i, f_2)^{v} = e(g_1,f_2)^{b}\}$$

holds, i.e. whether $\gamma_i$ opens to one of the $v'_j$ (Q signed exactly those), without
learning which.  The steps (Q1, M1-M8, Q2) are in ``query``, the DPK in ``BBRelation``, their
counts in ``step_counts``.
"""
from __future__ import annotations

import operator
import re
from contextlib import nullcontext
from dataclasses import dataclass, field

from ...prices.cost import Counts
from . import bbsig, elgamal, shuffle, sigma
from .curves import SYSTEM_RANDOM, groups

CHEATS = ("permutation", "blinding", "decryption_share", "dpk_response")
NOT_IMPLEMENTED = ("the query starts from a stand-in of the Mix protocol's outputs (mix_outputs); the Mix "
                   "itself is in mix.py, but the two are not joined (the senders' shares of v and r, which "
                   "the artifact carries in single-key Paillier, are drawn directly)",)


def _is_integer(x) -> bool:
    """An int or anything integral (a Sage Integer from a notebook cell), but not a bool or a float."""
    try:
        return not isinstance(x, bool) and operator.index(x) == x
    except TypeError:
        return False


def check_sizes(n: int, m: int) -> None:
    if not _is_integer(n) or n <= 0:
        raise ValueError(f"n (the number of items) must be a positive integer, got {n!r}")
    elgamal.check_m(m)


def check_cheat(cheat, n: int, cheats: tuple = CHEATS) -> None:
    """A cheating run's cheat is one of `cheats` (the protocol's), and a swap needs two items."""
    if cheat is not None and cheat not in cheats:
        raise ValueError(f"unknown cheat {cheat!r}: choose one of {cheats} or None")
    if cheat == "permutation" and n < 2:
        raise ValueError("the 'permutation' cheat swaps two items: it needs n >= 2")


# ---------------------------------------------------------------------------
# The state the Mix protocol leaves behind (stand-in)

@dataclass
class MixOutputs:
    n: int
    m: int
    gammas: list             # gamma_i, input order
    v_out: list              # v'_j, output order
    v_shares: list           # v_shares[k][i]
    r_shares: list
    taus: list               # taus[k][j]: mix-server k sends position j to taus[k][j]
    perm_comms: list         # (a^{(k)}, s^{(k)})
    pk: object
    pks: list
    sks: list
    secrets: dict = field(repr=False)   # v, r: for tests only


def additive_shares(G, x: int, m: int, rng) -> list:
    s = [G.random_scalar(rng) for _ in range(m - 1)]
    return s + [(x - sum(s)) % G.q]


def mix_outputs(G, n: int, m: int, rng) -> MixOutputs:
    """Inputs, commitments, shares, permutations with their commitments, ElGamal keys."""
    check_sizes(n, m)
    v = [G.random_scalar(rng) for _ in range(n)]
    r = [G.random_scalar(rng) for _ in range(n)]
    gammas = [G.op(G.exp1(G.g1, vi), G.exp1(G.h1, ri)) for vi, ri in zip(v, r)]
    vs = list(zip(*(additive_shares(G, x, m, rng) for x in v)))
    rs = list(zip(*(additive_shares(G, x, m, rng) for x in r)))
    taus = [shuffle.random_permutation(n, rng) for _ in range(m)]
    pos = list(range(n))
    for tau in taus:
        pos = [tau[p] for p in pos]
    v_out = [None] * n
    for i, p in enumerate(pos):
        v_out[p] = v[i]
    pk, pks, sks = elgamal.keygen(G, m, rng)
    return MixOutputs(n, m, gammas, v_out, [list(x) for x in vs], [list(x) for x in rs], taus,
                      [shuffle.commit_permutation(G, t, rng) for t in taus], pk, pks, sks,
                      {"v": v, "r": r})


# ---------------------------------------------------------------------------
# The DPK of a Boneh–Boyen signature on a committed value

class BBRelation:
    r"""PK{(v, r, b): gamma = g1^v h1^r and e(s~, X) e(s~, f2)^v = e(g1, f2)^b}, s~ = sig_tilde.

    The DPK is ``sigma``'s distributed protocol with the commitment computed as in the artifact
    (one pairing per prover and item, the $f_2^{-\rho_v}$ folded into the pairing argument).
    """
    tag, arity = "dbsm/dpk-bb", 3

    def __init__(self, X, gamma, sig_tilde):
        self.X, self.gamma, self.sig_tilde = X, gamma, sig_tilde

    def commit(self, G, rho):
        rv, rr, rb = rho
        return (G.pair(self.sig_tilde, G.exp2(G.f2, -rv)) * G.expT(G.eg1f2, rb),
                G.op(G.exp1(G.g1, rv), G.exp1(G.h1, rr)))

    def recommit(self, G, c, z):
        zv, zr, zb = z
        return (G.pair(self.sig_tilde, G.op(G.exp2(self.X, -c), G.exp2(G.f2, -zv))) * G.expT(G.eg1f2, zb),
                G.op(G.exp1(self.gamma, -c), G.op(G.exp1(G.g1, zv), G.exp1(G.h1, zr))))

    def challenge(self, G, T):
        return G.challenge(self.tag, self.X, self.gamma, self.sig_tilde, T)

    def elements(self) -> tuple:
        return self.X, self.gamma, self.sig_tilde


def blinding_relation(G, pk, E, E_bl) -> sigma.LinearRelation:
    """PK{(rho, b): E~_0 = g1^rho E_0^b and E~_1 = pk^rho E_1^b}."""
    return sigma.LinearRelation("dbsm/blinding", E_bl, ((G.g1, E[0]), (pk, E[1])), context=(E,))


def verify_dpk(G, X, gamma, sig_tilde, proof, *, provers: int) -> bool:
    """The querier's check of one DPK, made by `provers` mix-servers (the m of the mix-net, which the
    querier knows: one response share each).  False unless X is a key (a point of G2 other than the
    identity), gamma a point of G1 and sig_tilde one other than the identity."""
    if not (bbsig.valid_key(G, X) and G.in_g1(gamma) and G.in_g1(sig_tilde, nonidentity=True)):
        return False
    return sigma.verify(G, BBRelation(X, gamma, sig_tilde), proof, provers)


# ---------------------------------------------------------------------------
# The query

@dataclass
class DBSMResult:
    verdict: list            # Q's verdict per input item
    checks: dict             # every check, by step, as the honest parties see it
    transcript: dict         # everything published (for re-verification)
    not_implemented: tuple = NOT_IMPLEMENTED


def others(m):
    """(checker, author) pairs: each mix-server checks every other one's proof."""
    return [(k, j) for k in range(m) for j in range(m) if j != k]


def no_clock(step: str):
    """The default step clock of query(): times nothing (validation passes a StepClock)."""
    return nullcontext()


def query(G, mo: MixOutputs, rng=SYSTEM_RANDOM, cheat=None, clock=no_clock) -> DBSMResult:
    r"""One DB-SM query over all n inputs; cheat makes mix-server 0 misbehave in one step.

    | step | who | math |
    |---|---|---|
    | Q1 | Q | $x$, $X = f_2^x$; $\sigma_j = g_1^{1/(v'_j + x)}$ (``bbsig``); $E_j = \mathrm{Enc}(\sigma_j;\rho_j)$; publish $X,\sigma,E,\rho$ |
    | M1 | each $M_k$ | batch-verify the $\sigma_j$; recompute each $E_j$ from $\rho_j$ |
    | M2 | $M_m,\dots,M_1$ | $E \leftarrow$ ReEnc, reverse permutation ($E^{new}_j = \mathrm{ReEnc}(E_{\tau_k(j)})$) + shuffle proof against $a^{(k)}$ (inputs/outputs swapped) |
    | M3 | each $M_k$ | verify the m − 1 other shuffle proofs |
    | M4 | each $M_k$ | $b_{ik}$; $\tilde E_{ik} = \mathrm{ReEnc}(E_i^{b_{ik}};\rho)$; PoK$\{(\rho,b): \tilde E_0 = g_1^\rho E_0^b \wedge \tilde E_1 = pk^\rho E_1^b\}$ |
    | M5 | each $M_k$ | verify the m − 1 others' PoKs |
    | M6 | each $M_k$ | $\bar E_i = \prod_k \tilde E_{ik} = \mathrm{Enc}(\sigma_i^{b_i})$, $b_i = \sum_k b_{ik}$ |
    | M7 | each $M_k$ | decryption share of $\bar E_i$ with its Chaum–Pedersen proof; verify the others'; $\tilde\sigma_i = \sigma_i^{b_i} = g_1^{b_i/(v_i+x)}$ |
    | M8 | each $M_k$ | DPK commit $C_1^{(k)} = e(\tilde\sigma_i, f_2^{-\rho_v})\,e(g_1,f_2)^{\rho_b}$, $C_2^{(k)} = g_1^{\rho_v}h_1^{\rho_r}$; $c_i = H(\dots, \prod_k C^{(k)})$; $z^{(k)} = \rho^{(k)} + c_i\,(v_i^{(k)}, r_i^{(k)}, b_{ik})$ |
    | Q2 | Q | $z = \sum_k z^{(k)}$; accept iff $c_i = H(\dots,\ e(\tilde\sigma_i, X^{-c_i} f_2^{-z_v})\,e(g_1,f_2)^{z_b},\ \gamma_i^{-c_i} g_1^{z_v} h_1^{z_r})$ |

    ``clock(step)`` brackets each priced step, named as in ``step_counts`` (an M step here covers
    all m mix-servers), for the per-step validation."""
    n, m, pk = mo.n, mo.m, mo.pk
    check_cheat(cheat, n)
    with clock("Q1 sign and encrypt"):
        x, X = bbsig.keygen(G, rng)
        sigs = [bbsig.sign(G, x, v) for v in mo.v_out]
        E, rho = map(list, zip(*(elgamal.encrypt(G, pk, s, rng) for s in sigs)))
    with clock("M1 check signatures"):
        sigs_ok = all([bbsig.batch_verify(G, X, mo.v_out, sigs, rng)
                       and all(elgamal.encrypt(G, pk, s, rho=p)[0] == Ej for s, p, Ej in zip(sigs, rho, E))
                       for _ in range(m)])
    with clock("M2 re-encrypt, reverse-permute, prove"):      # mix-servers m..1
        stages, cur = [None] * m, E
        for k in reversed(range(m)):
            tau = mo.taus[k]
            new, rho_re = shuffle.reencrypt_permute(G, pk, cur, shuffle.inverse(tau), rng)
            a, s = mo.perm_comms[k]
            proof = shuffle.prove(G, pk, new, cur, a, tau, s, [-p for p in rho_re], rng)
            if cheat == "permutation" and k == 0:
                new[0], new[1] = new[1], new[0]
            stages[k], cur = (new, cur, proof), new
    with clock("M3 verify others' shuffles"):
        shuffle_ok = [all(shuffle.verify(G, pk, stages[j][0], stages[j][1], mo.perm_comms[j][0], stages[j][2])
                          for k in range(m) if k != j) for j in range(m)]
    with clock("M4 blind + PoK"):               # encrypted blinded signatures, PoKs of the factors
        b = [[G.random_scalar(rng) for _ in range(n)] for _ in range(m)]
        E_bl, pok_bl = [], []
        for k in range(m):
            row, proofs = [], []
            for i, Ei in enumerate(cur):
                used_b = b[k][i] + (1 if cheat == "blinding" and k == 0 and i == 0 else 0)
                Et, rr = elgamal.reencrypt(G, pk, elgamal.power(G, Ei, used_b), rng)
                row.append(Et)
                proofs.append(sigma.prove(G, blinding_relation(G, pk, Ei, Et), (rr, b[k][i]), rng))
            E_bl.append(row)
            pok_bl.append(proofs)
    with clock("M5 verify others' PoKs"):
        blinding_ok = [all(sigma.verify(G, blinding_relation(G, pk, cur[i], E_bl[j][i]), pok_bl[j][i])
                           for k, j in others(m)) for i in range(n)]
    # M6, timed and priced with M7: alone it is a few additions per item, too short to time apart from
    # the interpreter's work around them
    with clock("M7 decryption shares + proofs, verify others"):
        E_bar = [[_product(G, [E_bl[k][i] for k in range(m)]) for i in range(n)]
                 for _ in range(m)][0]                  # each mix-server computes the same products
        D, pf_D = [[None] * n for _ in range(m)], [[None] * n for _ in range(m)]
        for k in range(m):
            for i in range(n):
                D[k][i], pf_D[k][i] = elgamal.share_decrypt(G, E_bar[i], mo.sks[k], mo.pks[k], rng)
        if cheat == "decryption_share":
            D[0][0] = G.op(D[0][0], G.g1)
        decryption_ok = [all(elgamal.verify_share(G, E_bar[i], mo.pks[j], D[j][i], pf_D[j][i])
                             for k, j in others(m)) for i in range(n)]
        sig_tilde = [[elgamal.combine(G, E_bar[i], [D[k][i] for k in range(m)]) for i in range(n)]
                     for _ in range(m)][0]          # each mix-server combines the shares itself
    with clock("M8 DPK commit and response"):   # one DPK per item, witness shares (v_i^(k), r_i^(k), b_ik)
        dpk = [sigma.prove_distributed(G, BBRelation(X, mo.gammas[i], sig_tilde[i]),
                                       [(mo.v_shares[k][i], mo.r_shares[k][i], b[k][i]) for k in range(m)], rng)
               for i in range(n)]
    if cheat == "dpk_response":
        z = [list(zk) for zk in dpk[0].z]
        z[0][0] = (z[0][0] + 1) % G.q
        dpk[0] = sigma.Proof(dpk[0].c, tuple(map(tuple, z)))
    with clock("Q2 verify DPKs"):
        dpk_ok = [verify_dpk(G, X, mo.gammas[i], sig_tilde[i], dpk[i], provers=m) for i in range(n)]
    all_ok = sigs_ok and all(shuffle_ok)
    verdict = [all_ok and blinding_ok[i] and decryption_ok[i] and dpk_ok[i] for i in range(n)]
    return DBSMResult(
        verdict,
        {"signatures": sigs_ok, "shuffle": shuffle_ok, "blinding": blinding_ok,
         "decryption": decryption_ok, "dpk": dpk_ok},
        {"X": X, "sigs": sigs, "E": E, "rho": rho, "shuffles": stages, "E_blinded": E_bl,
         "pok_blinding": pok_bl, "E_bar": E_bar, "shares": D, "share_proofs": pf_D,
         "sig_tilde": sig_tilde, "dpk": dpk})


def _product(G, ciphertexts):
    """prod_k E_k, componentwise: 2 (len - 1) additions."""
    out = ciphertexts[0]
    for E in ciphertexts[1:]:
        out = elgamal.mult(G, out, E)
    return out


def run_dbsm(n: int, m: int, curve: str = "bn254", rng=SYSTEM_RANDOM, cheat=None) -> DBSMResult:
    """Mix stand-in, then one DB-SM query; result.verdict[i] is the querier's verdict on input i."""
    check_sizes(n, m)
    n, m = int(n), int(m)
    check_cheat(cheat, n)
    G = groups(curve)
    return query(G, mix_outputs(G, n, m, rng), rng, cheat)


# ---------------------------------------------------------------------------
# Operation counts per party (stated, not measured: the tests compare them with a run)

#: The light operations (group additions, Fiat–Shamir serialisations) among a run's keys.
LIGHT_KEYS = re.compile(r"[a-z0-9_]+/(g[12]_add|g[12t]_to_bytes)$")


def is_light(key: str) -> bool:
    return LIGHT_KEYS.match(key) is not None


def step_counts(n: int, m: int, curve: str = "bn254") -> dict:
    r"""{step: Counts} for one mix-server (M*) and for the querier (Q*), one query over n items
    (a price list without the light operations: ``model.price_sage_counts``).

    The tests check that a run tallies exactly these.  $S_P = 7n + 5$ and
    $S_V = 9n + 11$ are the shuffle prover and verifier (``shuffle``).  Per mix-server:

    * M1: $3n$ g1_mul and $n$ g1_mul/80 (the batch weights), 2 pairing, 1 gt_exp by the weights' sum
      (``bbsig.sum_bits``);  M2: $2n + S_P$ g1_mul;  M3: $(m-1) S_V$ g1_mul;
    * M4: $8n$ g1_mul;  M5: $6n(m-1)$;  M7 (with M6): $3n + 4n(m-1)$;
    * M8: $n$ pairing, $n$ g2_mul, $n$ gt_exp, $2n$ g1_mul.

    Querier: Q1: $n$ scalar_inv, $3n$ g1_mul, 1 g2_mul;  Q2: $n$ pairing, $2n$ g2_mul, $n$ gt_exp,
    $3n$ g1_mul.  All linear in n; the mix-server's grows linearly in m through M3, M5, M7.

    Besides these, every step adds points and serialises group elements for its Fiat–Shamir challenges
    (``LIGHT_KEYS``; in Sage they show in the time of a $\mathbb{G}_1$-only step, see ``curves``).
    M6 is timed and priced with M7 (alone it is a few additions per item, too short to time apart
    from the interpreter's work around them).  Additions: a ciphertext product
    or re-encryption 2, an ElGamal encryption 1, a product of $k$ elements $k - 1$; a shuffle proof
    $5n$ (prover) and $10n + 2$ (verifier); a blinding PoK 4 (prove and verify alike); a decryption-share
    proof none, its check 2, and $\tilde\sigma_i$ $m$.  Serialised $\mathbb{G}_1$ elements per
    challenge: a shuffle proof's $5n + 1$ (seed) $+\ 2n + 5$; a blinding PoK's 10, a share proof's 8, the
    DPK's 3 (with one $\mathbb{G}_2$ and one $\mathbb{G}_T$ element).  Each mix-server combines the
    blinded ciphertexts (M6), the decryption shares and the DPK commitments itself, and derives the
    DPK challenge itself, as the protocol has it; per step that gives (per mix-server, then querier):

    * M1: $3n - 2$ g1_add;  M2: $7n$ g1_add, $7n + 6$ g1_to_bytes;  M3: $(m-1)(10n + 2)$ and
      $(m-1)(7n + 6)$;  M4: $4n$ and $10n$;  M5: $4n(m-1)$ and $10n(m-1)$;
      M7 with M6: $2n(m-1)$ (the products) $+\ 2n(m-1) + nm$ g1_add and $8nm$ g1_to_bytes;
      M8: $nm$ g1_add, $3n$ g1_to_bytes, $n$ g2_to_bytes, $n$ gt_to_bytes;
    * Q1: $n$ g1_add;  Q2: $2n$ g1_add, $n$ g2_add, $3n$ g1_to_bytes, $n$ g2_to_bytes, $n$ gt_to_bytes.

    Not counted (negligible in every step, see ``curves``): $\mathbb{G}_T$ products, negations, the
    SHA-512 pass over each challenge's input and the framing of its integers, tags and lists.
    """
    check_sizes(n, m)
    c = lambda **kw: Counts({f"{curve}/{k}": v for k, v in kw.items() if v})
    sp, sv = shuffle.exponentiations(n)
    sh_add_p, sh_add_v, sh_bytes = shuffle.light_operations(n)
    batch_weights = Counts({f"{curve}/g1_mul/{bbsig.KAPPA}": n, f"{curve}/gt_exp/{bbsig.sum_bits(n)}": 1})
    return {
        "Q1 sign and encrypt": c(scalar_inv=n, g1_mul=3 * n, g2_mul=1, g1_add=n),
        "M1 check signatures": c(g1_mul=3 * n, pairing=2, g1_add=3 * n - 2) + batch_weights,
        "M2 re-encrypt, reverse-permute, prove": c(g1_mul=2 * n + sp, g1_add=2 * n + sh_add_p, g1_to_bytes=sh_bytes),
        "M3 verify others' shuffles": c(g1_mul=(m - 1) * sv, g1_add=(m - 1) * sh_add_v,
                                        g1_to_bytes=(m - 1) * sh_bytes),
        "M4 blind + PoK": c(g1_mul=8 * n, g1_add=4 * n, g1_to_bytes=10 * n),
        "M5 verify others' PoKs": c(g1_mul=6 * n * (m - 1), g1_add=4 * n * (m - 1), g1_to_bytes=10 * n * (m - 1)),
        "M7 decryption shares + proofs, verify others": c(g1_mul=3 * n + 4 * n * (m - 1),
                                                          g1_add=4 * n * (m - 1) + n * m, g1_to_bytes=8 * n * m),
        "M8 DPK commit and response": c(pairing=n, g2_mul=n, gt_exp=n, g1_mul=2 * n, g1_add=n * m,
                                        g1_to_bytes=3 * n, g2_to_bytes=n, gt_to_bytes=n),
        "Q2 verify DPKs": c(pairing=n, g2_mul=2 * n, gt_exp=n, g1_mul=3 * n, g1_add=2 * n, g2_add=n,
                            g1_to_bytes=3 * n, g2_to_bytes=n, gt_to_bytes=n),
    }


def party_counts(n: int, m: int, curve: str = "bn254") -> dict:
    """{"mixer": per mix-server, "querier": Q, "total": Q + m mixers}."""
    return sum_parties(step_counts(n, m, curve), m)


def sum_parties(steps: dict, m: int) -> dict:
    """Add up step counts whose names start with M (per mix-server) or Q (querier)."""
    mixer = sum((v for k, v in steps.items() if k.startswith("M")), Counts())
    querier = sum((v for k, v in steps.items() if k.startswith("Q")), Counts())
    return {"mixer": mixer, "querier": querier, "total": querier + m * mixer}
