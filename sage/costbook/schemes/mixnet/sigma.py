r"""Sigma protocols for linear relations, single-prover and distributed (Fiat–Shamir).

Every proof of knowledge in the DB-SM / DB-RSM protocols has the form

$$\mathrm{PK}\{(w_1,\dots,w_t):\ Y_j = \textstyle\prod_l B_{jl}^{\,w_l}\ \ (j = 1..s)\}$$

with the $Y_j, B_{jl}$ in one of $\mathbb{G}_1, \mathbb{G}_2, \mathbb{G}_T$ (a missing base is
``None``).  The proof ($\rho_l \leftarrow \mathbb{Z}_q$):

$$T_j = \prod_l B_{jl}^{\rho_l},\quad c = H(\text{tag}, Y, B, T),\quad z_l = \rho_l + c\, w_l,$$

sent as $(c, z)$; the verifier recomputes $T_j' = Y_j^{-c}\prod_l B_{jl}^{z_l}$ and accepts iff
$c = H(\text{tag}, Y, B, T')$.

**Distributed (DPK).**  When the witness is shared additively among m provers,
$w_l = \sum_k w_l^{(k)}$, prover k commits $T_j^{(k)} = \prod_l B_{jl}^{\rho_l^{(k)}}$, the
commitments multiply to $T_j = \prod_k T_j^{(k)}$ (the commitment for $\rho = \sum_k \rho^{(k)}$),
every prover derives the same $c$ itself, and prover k answers $z^{(k)} = \rho^{(k)} + c\, w^{(k)}$; the
verifier adds the shares, $z = \sum_k z^{(k)}$, and runs the ordinary check.  This is the shape of
the artifact's ``dpk_bbsig_*`` and ``dpk_bbsplussig_*`` (which use $z = \rho - c w$; the sign does
not matter).  Costs: a prover commits with one exponentiation per present base; the verifier
spends one more per equation with $Y_j \neq 1$ (for $Y_j^{-c}$).

A relation may override ``commit`` and ``recommit`` to compute the same values more cheaply or the
way the artifact does (``dbsm.BBRelation`` folds two exponentiations into a pairing argument).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Proof:
    """A (distributed) sigma proof: the challenge and the response shares z[k][l]."""
    c: int
    z: tuple                # one tuple of responses per prover (one prover for an ordinary proof)

    def responses(self, q: int) -> list:
        """z = sum over provers of the response shares."""
        return [sum(col) % q for col in zip(*self.z)]


class LinearRelation:
    """Y_j = prod_l B_jl^{w_l} for j = 1..s; bases[j][l] is None where w_l does not occur.

    ``members``: the statement's elements the verifier knows to be in their groups without a check,
    because it made them: the setup's constants, and values it computed from elements it has checked
    (a pairing of checked points, a power or an inverse of a checked element).  Every other element
    is checked by ``well_formed`` (``Groups.is_element``: in G_T an exponentiation by r)."""

    def __init__(self, tag: str, lhs, bases, context=(), members=()):
        if not lhs or len(lhs) != len(bases) or len({len(row) for row in bases}) != 1:
            raise ValueError(f"{tag}: need one row of bases, all of one length, per left-hand side")
        self.tag, self.lhs, self.bases, self.context = tag, tuple(lhs), tuple(map(tuple, bases)), context
        self.arity = len(self.bases[0])
        self.members = tuple(members)

    def commit(self, G, rhos) -> tuple:
        return tuple(G.multi_exp(*zip(*((B, r) for B, r in zip(row, rhos) if B is not None)))
                     for row in self.bases)

    def recommit(self, G, c: int, z) -> tuple:
        """T_j' = Y_j^{-c} prod_l B_jl^{z_l} (no exponentiation for Y_j = 1)."""
        return tuple(T if G.is_identity(Y) else G.op(G.exp(Y, -c), T)
                     for Y, T in zip(self.lhs, self.commit(G, z)))

    def challenge(self, G, T) -> int:
        return G.challenge(self.tag, self.lhs, [[B for B in row if B is not None] for row in self.bases],
                           self.context, T)

    def elements(self) -> tuple:
        """The group elements of the statement, which the verifier checks before any work."""
        return self.lhs + tuple(B for row in self.bases for B in row if B is not None)

    def unchecked(self) -> tuple:
        """The elements to check: all but the ``members`` (compared by identity, not by value)."""
        return tuple(X for X in self.elements() if not any(X is K for K in self.members))


def commit_share(G, rel, rng):
    """One prover's commitment: (its rhos, its T^{(k)})."""
    rhos = [G.random_scalar(rng) for _ in range(rel.arity)]
    return rhos, rel.commit(G, rhos)


def combine_commitments(G, shares) -> tuple:
    """T_j = prod_k T_j^{(k)}."""
    return tuple(G.prod(col, col[0]) for col in zip(*shares))


def respond(G, rhos, witness, c: int) -> tuple:
    return tuple((r + c * w) % G.q for r, w in zip(rhos, witness))


def prove_distributed(G, rel, witness_shares, rng) -> Proof:
    """All m provers' moves: commit, combine, challenge, respond (witness_shares[k][l])."""
    if any(len(w) != rel.arity for w in witness_shares):
        raise ValueError(f"{rel.tag}: each witness share must have {rel.arity} components")
    commits = [commit_share(G, rel, rng) for _ in witness_shares]
    # each prover combines the published commitments and derives the challenge itself
    challenges = {rel.challenge(G, combine_commitments(G, [T for _, T in commits])) for _ in witness_shares}
    (c,) = challenges
    return Proof(c, tuple(respond(G, rhos, w, c) for (rhos, _), w in zip(commits, witness_shares)))


def prove(G, rel, witness, rng) -> Proof:
    return prove_distributed(G, rel, [witness], rng)


def well_formed(G, rel, proof, provers: int = 1) -> bool:
    """The proof has its shape before any work: a canonical challenge, exactly `provers` response
    shares (the number of provers is fixed by the statement, not read off the proof: an extra share,
    or the shares sent summed as one, is refused), each of the relation's arity, each response a
    canonical scalar in [0, q) (z + q is refused, not reduced); each equation's elements are of one
    group (a G1 point where a G_T value belongs is refused, not added to it); and the statement's
    elements are elements of their groups (``Groups.is_element``; those a relation made itself are not checked
    again, ``LinearRelation.members``): a left-hand side -Y in F_{p^12}, of order 2r, is refused."""
    if not isinstance(proof, Proof) or not G.scalar(proof.c):
        return False
    if isinstance(provers, bool) or not isinstance(provers, int) or provers < 1:
        return False
    if not (isinstance(proof.z, (tuple, list)) and len(proof.z) == provers):
        return False
    if not all(isinstance(zk, (tuple, list)) and len(zk) == rel.arity and all(G.scalar(x) for x in zk)
               for zk in proof.z):
        return False
    if isinstance(rel, LinearRelation):         # each equation in one group: a G1 point for a G_T value
        for Y, row in zip(rel.lhs, rel.bases):  # would reach the group law of another group
            if len({G.group_of(X) for X in (Y,) + tuple(B for B in row if B is not None)}) != 1:
                return False
        return all(G.is_element(X) for X in rel.unchecked())
    return all(G.is_element(X) for X in rel.elements())


def verify(G, rel, proof: Proof, provers: int = 1) -> bool:
    """Accept iff the proof has its shape (``well_formed``: one response share per prover, `provers` of
    them, 1 for an ordinary proof) and c = H(tag, Y, B, T') for T' recomputed from the summed responses.

    Shares moved between provers (z^(1) + d, z^(2) - d) have the same sum and are accepted: the
    verifier sees only the sum, and no prover's share of the statement is published to check a share
    against; that changes the transcript, not what it proves."""
    if not well_formed(G, rel, proof, provers):
        return False
    return proof.c == rel.challenge(G, rel.recommit(G, proof.c, proof.responses(G.q)))
