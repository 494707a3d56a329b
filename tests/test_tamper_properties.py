"""Issue 19, item 2: property-based tamper tests (Hypothesis, pinned in requirements.txt).

For each verifier: a valid transcript built once (fixed seeds, smallest sizes), a second valid
transcript to swap fields with, and a kind for every field.  Hypothesis picks a field and a mutation
of its kind (bit flips, +/- the modulus or group order, the identity, a point of small order or
outside the subgroup, a wrong type, a wrong length, the field of the other transcript) and the
verifier must return exactly False, at a CPU cost of at most REJECTION_WORK_RATIO honest
verifications of the same transcript (conftest.rejection_work).  The per-field tests of
tests/test_tamper_*.py stay; these explore the mutations between them.

Runs are reproducible (``derandomize=True``, no example database) and small enough for the whole file
to take well under a minute on two cores.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from conftest import REJECTION_WORK_RATIO, honest_cpu_seconds, rejection_work
from test_tamper_cs03 import torsion_point
from test_tamper_mixnet import small_order
from costbook.groups import pairing_curves as PC
from costbook.groups import ristretto255 as R
from costbook.schemes.cs03 import fixtures as cs03_fixtures
from costbook.schemes.cs03.proof import Parameters, Statement, prove as cs03_prove, verify as cs03_verify
from costbook.schemes.cs03.scheme import encrypt as cs03_encrypt
from costbook.schemes.mixnet import bbsig, bbsplus, dbrsm, dbsm, elgamal, shuffle, sigma
from costbook.schemes.mixnet.curves import groups
from costbook.schemes.punchcard import curves, mergeable, ristretto
from costbook.schemes.punchcard.ristretto import SpentSet
from costbook.schemes.veccom import merkle, model, pointproofs as PP

WRONG_TYPES = (None, "0", 1.5, True, [], b"\x00", object())

BLS = PC.BLS12_381


def examples(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


def differs(a, b) -> bool:
    if type(a) is not type(b):
        return True
    try:
        return bool(a != b)
    except Exception:
        return True


def short(x) -> str:
    """A bounded description of a value for a failure message (huge integers have no decimal repr)."""
    if isinstance(x, int) and x.bit_length() > 256:
        return f"<an int of {x.bit_length()} bits>"
    try:
        return f"{x!r:.80}"
    except ValueError:
        return f"<a {type(x).__name__} holding a huge integer>"


def assert_rejects(h: "Harness", honest_s: float, fields: dict, label: str) -> None:
    verdict, ratio = rejection_work(lambda: h.verify(fields), honest_s)
    assert verdict is False, f"{label}: verdict {verdict!r}"
    assert ratio <= REJECTION_WORK_RATIO, f"{label}: rejecting cost {ratio:.1f} honest verifications"


# --- points that are not in the subgroup ---------------------------------------------------------

@functools.lru_cache(maxsize=None)
def bls_order3():
    """(0, 2) on y^2 = x^3 + 4: a point of order 3 of E(F_p), not in G1."""
    return BLS.E1(0, 2)


@functools.lru_cache(maxsize=None)
def off_subgroup(E, r: int):
    """The first point (x, sqrt(x^3 + b)), x = 1, 2, ..., on E that is not in the subgroup of order r."""
    F = E.base_ring()
    for x in range(1, 1000):
        rhs = F(x) ** 3 + E.a6()
        if rhs.is_square():
            P = E(F(x), rhs.sqrt())
            if not (r * P).is_zero():
                return P
    raise AssertionError("no point found")


# --- mutations, by kind ---------------------------------------------------------------------------
#
# mutate(data, kind, value, other) -> a new value.  `kind` is a tuple: its first entry names the kind,
# the rest are its parameters.  `other` is the same field of the second transcript (or None).

def flip_bit(data, b: bytes) -> bytes:
    if not b:
        return b"\x01"
    i = data.draw(st.integers(0, 8 * len(b) - 1), label="bit")
    out = bytearray(b)
    out[i // 8] ^= 1 << (i % 8)
    return bytes(out)


def mutate(data, kind: tuple, value, other):
    name = kind[0]
    ops = {
        "bytes": ["flip", "truncate", "extend", "empty"],
        "element": ["flip", "truncate", "extend", "identity", "next", "off-subgroup"],   # encoded
        "zbytes": ["flip", "plus q", "truncate", "extend", "max"],                     # encoded scalar
        "scalar": ["plus q", "minus q", "plus one", "negate", "huge", "flip low"],
        "int": ["plus one", "minus one", "plus modulus", "negate", "huge", "zero"],
        "index": ["plus one", "minus one", "minus three", "n", "huge", "bool", "float"],
        "point": ["next", "identity", "small order", "off-subgroup", "other group", "negate"],
        "list": ["entry", "drop", "append", "empty", "swap"],
        "z": ["entry", "extra zero share", "summed as one", "drop prover", "drop response", "no responses"],
        "rist": ["next", "identity", "small order"],
        "tuple": ["component", "drop", "append"],
    }[name]
    ops = ops + ["wrong type"] + (["other transcript"] if other is not None else [])
    op = data.draw(st.sampled_from(ops), label=f"{name} mutation")
    if op == "wrong type":
        return data.draw(st.sampled_from(WRONG_TYPES), label="wrong type")
    if op == "other transcript":
        return other
    if name == "bytes":
        return {"flip": lambda: flip_bit(data, value), "truncate": lambda: value[:-1],
                "extend": lambda: value + b"\x00", "empty": lambda: b""}[op]()
    if name == "element":
        G = kind[1]
        if op == "identity":
            return G.encode(G.mul_base(0)) if G.name == "ristretto255" else PC.compress(
                BLS.E1(0) if G.which == 1 else BLS.E2(0), BLS)
        if op == "next":
            return G.encode(G.op(G.decode(value), G.mul_base(1)))
        if op == "off-subgroup":
            if G.name == "ristretto255":            # no small subgroup: a non-canonical encoding instead
                return bytes([value[0] | 1]) + value[1:]
            P = bls_order3() if G.which == 1 else off_subgroup(BLS.E2, int(BLS.r))
            return PC.compress(G.decode(value) + P, BLS)
        return {"flip": lambda: flip_bit(data, value), "truncate": lambda: value[:-1],
                "extend": lambda: value + b"\x00"}[op]()
    if name == "zbytes":
        G = kind[1]
        if op == "plus q":
            z = int.from_bytes(value, G.scalar_byteorder) + G.order
            return z.to_bytes(G.scalar_bytes + (z.bit_length() > 8 * G.scalar_bytes), G.scalar_byteorder)
        return {"flip": lambda: flip_bit(data, value), "truncate": lambda: value[:-1],
                "extend": lambda: value + b"\x00", "max": lambda: b"\xff" * len(value)}[op]()
    if name == "scalar":
        q = kind[1]
        return {"plus q": lambda: value + q, "minus q": lambda: value - q, "plus one": lambda: (value + 1) % q,
                "negate": lambda: -value if value else -1, "huge": lambda: 1 << 100000,
                "flip low": lambda: value ^ 1}[op]()
    if name == "int":
        modulus = kind[1]
        return {"plus one": lambda: value + 1, "minus one": lambda: value - 1,
                "plus modulus": lambda: value + modulus, "negate": lambda: -value,
                "huge": lambda: 1 << 200000, "zero": lambda: 0}[op]()
    if name == "index":
        n = kind[1]
        return {"plus one": lambda: value + 1, "minus one": lambda: value - 1, "minus three": lambda: -3,
                "n": lambda: n, "huge": lambda: 1 << 70, "bool": lambda: bool(value) if value in (0, 1) else True,
                "float": lambda: float(value)}[op]()
    if name == "point":
        G = kind[1]                 # a mixnet Groups, or None for BLS12-381 G1 (Pointproofs)
        if G is None:
            return {"next": lambda: value + BLS.G1, "identity": lambda: BLS.E1(0),
                    "small order": lambda: value + bls_order3(), "off-subgroup": lambda: bls_order3(),
                    "other group": lambda: BLS.G2, "negate": lambda: -value}[op]()
        which = kind[2]
        if which == "gt":
            return {"next": lambda: value * G.eg1f2, "identity": lambda: G.oneT,
                    "small order": lambda: -value, "off-subgroup": lambda: value * G.C.Fp12(2),
                    "other group": lambda: G.g1, "negate": lambda: value ** 2}[op]()
        E, gen, one, other_gen = ((G.C.E1, G.g1, G.one1, G.f2) if which == "g1" else (G.C.E2, G.f2, G.one2, G.g1))
        off = off_subgroup(E, G.q) if (which == "g2" or G.C.params.h1 != 1) else None
        return {"next": lambda: value + gen, "identity": lambda: one,
                "small order": lambda: value + off if off is not None else value + value,
                "off-subgroup": lambda: off if off is not None else -value,
                "other group": lambda: other_gen, "negate": lambda: -value}[op]()
    if name == "rist":                      # "small order": a point of order 8 added, off every coset
        return {"next": lambda: value + R.GENERATOR, "identity": lambda: R.IDENTITY,
                "small order": lambda: value + torsion_point(8)}[op]()
    if name == "tuple":                     # a fixed-shape tuple, kind[1] the kinds of its components
        if op == "component":
            i = data.draw(st.sampled_from([i for i, k in enumerate(kind[1]) if k is not None]), label="component")
            out = list(value)
            out[i] = mutate(data, kind[1][i], value[i], other[i] if other is not None else None)
            return tuple(out)
        return value[:-1] if op == "drop" else value + value[-1:]
    if name == "list":
        item = kind[1]
        if op == "entry" and value:
            i = data.draw(st.integers(0, len(value) - 1), label="entry")
            out = list(value)
            out[i] = mutate(data, item, value[i], other[i] if other is not None and i < len(other) else None)
            return type(value)(out)
        if op == "swap" and len(value) > 1:
            return type(value)([value[1], value[0]] + list(value[2:]))
        if op == "drop" and value:
            return value[:-1]
        if op == "append" and value:
            return value + value[:1]
        return type(value)()
    if name == "z":                         # the response shares of a (distributed) sigma proof
        q, arity = kind[1], kind[2]
        if op == "entry":
            k = data.draw(st.integers(0, len(value) - 1), label="prover")
            l = data.draw(st.integers(0, arity - 1), label="response")
            share = list(value[k])
            share[l] = mutate(data, ("scalar", q), share[l], None)
            return value[:k] + (tuple(share),) + value[k + 1:]
        return {"extra zero share": lambda: value + ((0,) * arity,),
                "summed as one": lambda: (tuple(sum(col) % q for col in zip(*value)),) if len(value) > 1
                else value + value,
                "drop prover": lambda: value[:-1],
                "drop response": lambda: tuple(zk[:-1] for zk in value),
                "no responses": lambda: ()}[op]()
    raise AssertionError(name)


# --- the harnesses: (honest fields, other transcript's fields, kinds, verify) ----------------------

@dataclasses.dataclass
class Harness:
    honest: dict
    other: dict
    kinds: dict          # path -> kind (paths: "field" or "field.attribute" of a dataclass)
    verify: object       # fields -> verdict


@functools.lru_cache(maxsize=None)
def harness(name: str) -> Harness:
    return BUILDERS[name]()


@functools.lru_cache(maxsize=None)
def honest_s(name: str) -> float:
    """CPU seconds of one honest verification of the harness's transcript (median of three)."""
    h = harness(name)
    return honest_cpu_seconds(lambda: h.verify(h.honest))


def pointproofs_transcripts():
    N = 4
    pp = PP.setup(N)
    vals, other_vals = model._values(N), model._values(N, "other")
    com, com2 = PP.commit(pp, vals), PP.commit(pp, other_vals)
    return N, pp, vals, other_vals, com, com2


def build_pointproofs():
    N, pp, vals, ovals, com, com2 = pointproofs_transcripts()
    honest = {"commitment": com, "i": 1, "value": vals[1], "proof": PP.prove(pp, vals, 1)}
    other = {"commitment": com2, "i": 2, "value": ovals[2], "proof": PP.prove(pp, ovals, 2)}
    kinds = {"commitment": ("point", None), "i": ("index", N), "value": ("bytes",), "proof": ("point", None)}
    return Harness(honest, other, kinds, lambda f: PP.verify(pp, **f))


def build_pointproofs_encoded():
    h = build_pointproofs()
    _, pp, _, _, _, _ = pointproofs_transcripts()
    G1 = curves.bls12_381().G1
    honest = dict(h.honest, proof=PC.compress(h.honest["proof"], BLS))
    other = dict(h.other, proof=PC.compress(h.other["proof"], BLS))
    kinds = dict(h.kinds, proof=("element", G1))
    return Harness(honest, other, kinds, lambda f: PP.verify_encoded(pp, **f))


def build_pointproofs_same():
    N, pp, vals, ovals, com, com2 = pointproofs_transcripts()

    def transcript(C, v, S):
        vS = tuple(v[i] for i in S)
        return {"commitment": C, "S": S, "values_S": vS,
                "proof": PP.aggregate_same(pp, C, S, vS, [PP.prove(pp, v, i) for i in S])}
    kinds = {"commitment": ("point", None), "S": ("list", ("index", N)), "values_S": ("list", ("bytes",)),
             "proof": ("point", None)}
    return Harness(transcript(com, vals, (0, 2, 3)), transcript(com2, ovals, (1, 2, 3)), kinds,
                   lambda f: PP.verify_same(pp, **f))


def build_pointproofs_cross():
    N, pp, vals, ovals, com, com2 = pointproofs_transcripts()

    def item(C, v, S):
        vS = tuple(v[i] for i in S)
        return (C, S, vS, PP.aggregate_same(pp, C, S, vS, [PP.prove(pp, v, i) for i in S]))

    def transcript(S1, S2):
        items = (item(com, vals, S1), item(com2, ovals, S2))
        return {"items": items, "proof": PP.aggregate_cross(pp, items)}
    # pi_j is not read by verify_cross (the cross proof replaces it): not mutated
    it = ("tuple", (("point", None), ("list", ("index", N)), ("list", ("bytes",)), None))
    kinds = {"items": ("list", it), "proof": ("point", None)}
    return Harness(transcript((0, 2), (1, 3)), transcript((1, 2), (0, 3)), kinds,
                   lambda f: PP.verify_cross(pp, **f))


def build_merkle():
    N = 4
    vals, ovals = model._values(N), model._values(N, "other")
    T, T2 = merkle.Tree(vals), merkle.Tree(ovals)
    honest = {"n": N, "root": T.root, "i": 1, "v": vals[1], "proof": T.prove(1)}
    other = {"n": N, "root": T2.root, "i": 2, "v": ovals[2], "proof": T2.prove(2)}
    kinds = {"n": ("index", 1 << 64), "root": ("bytes",), "i": ("index", N), "v": ("bytes",), "proof": ("bytes",)}
    return Harness(honest, other, kinds, lambda f: merkle.verify(**f))


def punch_transcript(G, seed):
    rng = random.Random(seed)
    server = ristretto.Server(G, rng)
    card = ristretto.Card(G, rng)
    card_new, proof = server.punch(card.first_message())
    return server, card, {"card_new": card_new, "pk": server.pk, "proof.V": proof.V, "proof.W": proof.W,
                          "proof.z": proof.z}


def as_punch(f):
    from costbook.schemes.punchcard.dleq import Proof
    return f["card_new"], f["pk"], Proof(f["proof.V"], f["proof.W"], f["proof.z"])


def build_ristretto_punch():
    G = curves.ristretto255()
    _, card, honest = punch_transcript(G, 301)
    _, _, other = punch_transcript(G, 302)
    el = ("element", G)
    kinds = {"card_new": el, "pk": el, "proof.V": el, "proof.W": el, "proof.z": ("zbytes", G)}
    return Harness(honest, other, kinds, lambda f: copy.copy(card).verify_remask(*as_punch(f))[1])


def fresh(server):
    s = copy.copy(server)
    s.spent = SpentSet(server.spent)
    return s


def build_ristretto_redeem():
    G = curves.ristretto255()

    def transcript(seed):
        rng = random.Random(seed)
        server = ristretto.Server(G, rng)
        out = ristretto.run(G, punches=2, rng=rng, server=fresh(server))
        assert out["accepted"]
        return server, {"card": out["U"], "secret": out["secret"], "punches": 2}
    server, honest = transcript(303)
    _, other = transcript(304)
    other["punches"] = 3
    kinds = {"card": ("element", G), "secret": ("bytes",), "punches": ("index", 1 << 33)}
    return Harness(honest, other, kinds, lambda f: fresh(server).redeem(**f))


def build_mergeable_punch(which: int):
    E = curves.bls12_381()
    G = E.G1 if which == 1 else E.G2

    def transcript(seed):
        rng = random.Random(seed)
        server = mergeable.Server(E, rng)
        card = mergeable.Card(E, rng)
        n1, n2, p1, p2 = server.punch(*card.first_message())
        new, pk, p = (n1, server.pk1, p1) if which == 1 else (n2, server.pk2, p2)
        return (card.g1 if which == 1 else card.g2), {"card_new": new, "pk": pk, "proof.V": p.V,
                                                      "proof.W": p.W, "proof.z": p.z}
    half, honest = transcript(305)
    _, other = transcript(306)
    el = ("element", G)
    kinds = {"card_new": el, "pk": el, "proof.V": el, "proof.W": el, "proof.z": ("zbytes", G)}

    def verify(f):
        new, pk, proof = as_punch(f)
        return copy.copy(half).verify_remask(new, pk, proof)[1]
    return Harness(honest, other, kinds, verify)


def build_mergeable_redeem():
    E = curves.bls12_381()
    rng = random.Random(307)
    server = mergeable.Server(E, rng, "two")

    def transcript():
        a, b = mergeable.Card(E, rng), mergeable.Card(E, rng)
        mergeable.punch_card(server, a, 1)
        mergeable.punch_card(server, b, 1)
        sa, sb, merged = mergeable.merge(a, b, "two")
        return {"secret_a": sa, "secret_b": sb, "merged": merged, "punches": 2}
    honest, other = transcript(), transcript()
    kinds = {"secret_a": ("bytes",), "secret_b": ("bytes",), "merged": ("list", ("bytes",)),
             "punches": ("index", 1 << 33)}
    return Harness(honest, other, kinds, lambda f: fresh(server).redeem(**f))


def mixnet():
    return groups("bn254")


def build_bbsig():
    G = mixnet()
    rng = random.Random(308)
    x, X = bbsig.keygen(G, rng)
    x2, X2 = bbsig.keygen(G, rng)
    honest = {"X": X, "v": 5, "sigma": bbsig.sign(G, x, 5)}
    other = {"X": X2, "v": 6, "sigma": bbsig.sign(G, x2, 6)}
    kinds = {"X": ("point", G, "g2"), "v": ("scalar", G.q), "sigma": ("point", G, "g1")}
    return Harness(honest, other, kinds, lambda f: bbsig.verify(G, **f))


def build_bbsig_batch():
    G = mixnet()
    rng = random.Random(309)
    x, X = bbsig.keygen(G, rng)
    honest = {"X": X, "vs": [5, 6], "sigmas": [bbsig.sign(G, x, v) for v in (5, 6)]}
    other = {"X": X, "vs": [7, 8], "sigmas": [bbsig.sign(G, x, v) for v in (7, 8)]}
    kinds = {"X": ("point", G, "g2"), "vs": ("list", ("scalar", G.q)), "sigmas": ("list", ("point", G, "g1"))}
    return Harness(honest, other, kinds, lambda f: bbsig.batch_verify(G, rng=random.Random(1), **f))


def build_bbsplus():
    G = mixnet()
    rng = random.Random(310)
    x, X = bbsig.keygen(G, rng)

    def transcript(v, r):
        S, c, r_hat = bbsplus.quasi_sign(G, x, G.op(G.exp1(G.g1, v), G.exp1(G.h1, r)), rng)
        return {"X": X, "v": v, "S": S, "c": c, "r_prime": (r_hat + r) % G.q}
    kinds = {"X": ("point", G, "g2"), "v": ("scalar", G.q), "S": ("point", G, "g1"), "c": ("scalar", G.q),
             "r_prime": ("scalar", G.q)}
    return Harness(transcript(11, 13), transcript(12, 14), kinds, lambda f: bbsplus.verify(G, **f))


def build_share():
    G = mixnet()
    rng = random.Random(311)
    pk, pks, sks = elgamal.keygen(G, 2, rng)

    def transcript(k):
        E, _ = elgamal.encrypt(G, pk, G.exp1(G.g1, 3 + k), rng)
        D, proof = elgamal.share_decrypt(G, E, sks[k], pks[k], rng)
        return {"E": E, "pk_k": pks[k], "D": D, "proof.c": proof.c, "proof.z": proof.z}
    kinds = {"E": ("list", ("point", G, "g1")), "pk_k": ("point", G, "g1"), "D": ("point", G, "g1"),
             "proof.c": ("scalar", G.q), "proof.z": ("z", G.q, 1)}

    def verify(f):
        return elgamal.verify_share(G, f["E"], f["pk_k"], f["D"], sigma.Proof(f["proof.c"], f["proof.z"]))
    return Harness(transcript(0), transcript(1), kinds, verify)


def build_dpk():
    from conftest import dbsm_dpk_statement
    G = mixnet()
    rng = random.Random(312)
    x, X = bbsig.keygen(G, rng)
    m = 2

    def transcript():
        gamma, sig_tilde, pf = dbsm_dpk_statement(G, x, X, m, rng)
        return {"X": X, "gamma": gamma, "sig_tilde": sig_tilde, "proof.c": pf.c, "proof.z": pf.z, "provers": m}
    kinds = {"X": ("point", G, "g2"), "gamma": ("point", G, "g1"), "sig_tilde": ("point", G, "g1"),
             "proof.c": ("scalar", G.q), "proof.z": ("z", G.q, 3), "provers": ("index", 1 << 20)}

    def verify(f):
        return dbsm.verify_dpk(G, f["X"], f["gamma"], f["sig_tilde"], sigma.Proof(f["proof.c"], f["proof.z"]),
                               provers=f["provers"])
    return Harness(transcript(), transcript(), kinds, verify)


def build_z1_share():
    """A DB-RSM mix-server's share z1^(k) = h2'^b h3'^d with the PoK of its opening: a Sigma statement
    whose left-hand side is a G_T element received from another mix-server."""
    G = mixnet()
    rng = random.Random(315)
    h2p = G.eg1f2 ** -1

    def transcript():
        b, d = G.random_scalar(rng), G.random_scalar(rng)
        z1k = G.expT(h2p, b) * G.expT(G.fT, d)
        pf = sigma.prove(G, dbrsm.z1_relation(G, z1k), (b, d), rng)
        return {"z1k": z1k, "proof.c": pf.c, "proof.z": pf.z}
    kinds = {"z1k": ("point", G, "gt"), "proof.c": ("scalar", G.q), "proof.z": ("z", G.q, 2)}

    def verify(f):
        return sigma.verify(G, dbrsm.z1_relation(G, f["z1k"]), sigma.Proof(f["proof.c"], f["proof.z"]))
    return Harness(transcript(), transcript(), kinds, verify)


def build_shuffle():
    G = mixnet()
    rng = random.Random(313)
    pk, _, _ = elgamal.keygen(G, 2, rng)
    tau = [1, 0]
    a, s = shuffle.commit_permutation(G, tau, rng)

    def transcript(k):
        cur = [elgamal.encrypt(G, pk, G.exp1(G.g1, 5 + 2 * k + j), rng)[0] for j in range(2)]
        new, rho = shuffle.reencrypt_permute(G, pk, cur, shuffle.inverse(tau), rng)
        pf = shuffle.prove(G, pk, new, cur, a, tau, s, [-p for p in rho], rng)
        f = {"pk": pk, "e": new, "e_out": cur, "a": a, "proof.chain": pf.chain, "proof.c": pf.c,
             "proof.s": pf.s, "proof.s_hat": pf.s_hat, "proof.s_prime": pf.s_prime}
        assert verify(f)
        return f
    g1, sc = ("point", G, "g1"), ("scalar", G.q)
    kinds = {"pk": g1, "e": ("list", ("list", g1)), "e_out": ("list", ("list", g1)), "a": ("list", g1),
             "proof.chain": ("list", g1), "proof.c": sc, "proof.s": ("list", sc), "proof.s_hat": ("list", sc),
             "proof.s_prime": ("list", sc)}

    def verify(f):
        pf = shuffle.ShuffleProof(f["proof.chain"], f["proof.c"], f["proof.s"], f["proof.s_hat"],
                                  f["proof.s_prime"])
        return shuffle.verify(G, f["pk"], f["e"], f["e_out"], f["a"], pf)
    return Harness(transcript(0), transcript(1), kinds, verify)


def build_cs03():
    sk, aux = cs03_fixtures.load(3072)
    rng = random.Random(314)
    pk = sk.pk

    def transcript(label):
        m = R.random_scalar(rng)
        Ct, w = cs03_encrypt(pk, m, label, rng)
        st_ = Statement(pk, aux, Ct, label, R.GENERATOR * m)
        pi = cs03_prove(st_, w, Parameters(), rng)
        return {"st": st_, "pi": pi}
    n2, N = pk.n2, aux.N
    kinds = {"pi.com": ("int", N), "pi.c": ("int", 1 << 252), "pi.r_t": ("int", pk.n), "pi.s_t": ("int", N),
             "pi.m_t": ("int", pk.n), "st.label": ("bytes",), "st.delta": ("rist",),
             "st.C": ("ciphertext", n2)}
    honest, other = transcript(b"one"), transcript(b"two")
    return Harness(honest, other, kinds, lambda f: cs03_verify(f["st"], f["pi"]))


BUILDERS = {
    "pointproofs.verify": build_pointproofs,
    "pointproofs.verify_encoded": build_pointproofs_encoded,
    "pointproofs.verify_same": build_pointproofs_same,
    "pointproofs.verify_cross": build_pointproofs_cross,
    "merkle.verify": build_merkle,
    "punchcard.ristretto.verify_remask": build_ristretto_punch,
    "punchcard.ristretto.redeem": build_ristretto_redeem,
    "punchcard.mergeable.verify_remask.G1": lambda: build_mergeable_punch(1),
    "punchcard.mergeable.verify_remask.G2": lambda: build_mergeable_punch(2),
    "punchcard.mergeable.redeem": build_mergeable_redeem,
    "mixnet.bbsig.verify": build_bbsig,
    "mixnet.bbsig.batch_verify": build_bbsig_batch,
    "mixnet.bbsplus.verify": build_bbsplus,
    "mixnet.elgamal.verify_share": build_share,
    "mixnet.dbsm.verify_dpk": build_dpk,
    "mixnet.shuffle.verify": build_shuffle,
    "mixnet.dbrsm.z1_share": build_z1_share,
    "cs03.verify": build_cs03,
}

#: examples per verifier: the pairing-based ones cost 50-300 ms a call, the others a few ms
EXAMPLES = {"punchcard.mergeable.redeem": 20, "punchcard.mergeable.verify_remask.G2": 40,
            "pointproofs.verify_same": 40, "pointproofs.verify_cross": 30, "cs03.verify": 50}


def apply(data, h: Harness):
    """One mutated transcript: (fields, label)."""
    path = data.draw(st.sampled_from(sorted(h.kinds)), label="field")
    kind = h.kinds[path]
    if path.startswith(("st.", "pi.")):                 # CS03: nested dataclasses
        top, attr = path.split(".")
        old, other = getattr(h.honest[top], attr), getattr(h.other[top], attr)
        if kind[0] == "ciphertext":
            part = data.draw(st.sampled_from(["u", "e", "v"]), label="component")
            new_part = mutate(data, ("int", kind[1]), getattr(old, part), getattr(other, part))
            new = dataclasses.replace(old, **{part: new_part})
        else:
            new = mutate(data, kind, old, other)
        assume(differs(new, old))
        fields = dict(h.honest, **{top: dataclasses.replace(h.honest[top], **{attr: new})})
        return fields, f"{path} = {short(new)}"
    old = h.honest[path]
    new = mutate(data, kind, old, h.other.get(path))
    assume(differs(new, old))
    return dict(h.honest, **{path: new}), f"{path} = {short(new)}"


def test_every_harness_verifies_its_honest_transcript():
    """(The other transcript is valid for its own party: a punch for its own card, a redemption at its
    own shop; its fields are what a swap brings in.)"""
    for name in BUILDERS:
        h = harness(name)
        assert h.verify(h.honest) is True, name


def property_test(name: str):
    @examples(EXAMPLES.get(name, 60))
    @given(data=st.data())
    def test(data):
        h = harness(name)
        fields, label = apply(data, h)
        assert_rejects(h, honest_s(name), fields, f"{name}: {label}")
    return test


for _name in BUILDERS:
    globals()[f"test_mutated_{_name.replace('.', '_')}_is_rejected"] = property_test(_name)


# --- elements off the prime-order group, with a proof the honest prover's code made for them ---------
#
# A mutation of a finished transcript changes what the challenge hashes, so it is refused whatever the
# membership checks do.  These tests give the prover the statement off the group instead: its code
# proves it, and only the verifier's membership check stands between that proof and acceptance.

@examples(12)
@given(torsion=st.integers(0, 7), seed=st.integers(0, 2**32 - 1))
def test_cs03_delta_off_gamma_is_refused_whoever_proves(torsion, seed):
    """delta = m gamma + j T8 (T8 of order 8): j T8 is in E[4] for even j, the same element of
    ristretto255 (accepted); for odd j the point is in no coset (refused, whatever c)."""
    sk, aux = cs03_fixtures.load(3072)
    rng = random.Random(seed)
    m = R.random_scalar(rng)
    Ct, w = cs03_encrypt(sk.pk, m, b"torsion", rng)
    delta = R.GENERATOR * m + R._mul(torsion_point(8), torsion)
    st_ = Statement(sk.pk, aux, Ct, b"torsion", delta)
    assert cs03_verify(st_, cs03_prove(st_, w, Parameters(), rng)) is (torsion % 2 == 0)


@examples(24)
@given(order=st.sampled_from([1, 2, 3, 6]), seed=st.integers(0, 2**32 - 1))
def test_a_gt_statement_off_gt_is_refused_whoever_proves(order, seed):
    """A z1-share statement whose left-hand side is z1^(k) times an element of F_p^* of order t (t = 2:
    -z1^(k)): the honest prover's code proves the opening for it; accepted only for t = 1."""
    G = mixnet()
    rng = random.Random(seed)
    b, d = G.random_scalar(rng), G.random_scalar(rng)
    Y = G.expT(G.eg1f2 ** -1, b) * G.expT(G.fT, d) * small_order(G, order)
    rel = dbrsm.z1_relation(G, Y)
    assert sigma.verify(G, rel, sigma.prove(G, rel, (b, d), rng)) is (order == 1)
