"""Mix-nets: tamper every field of every message a verifier receives and check it rejects.

DB-SM (signatures, shuffle, blinding, decryption-share and DPK proofs), DB-RSM (sender
openings, quasi-signatures, shuffle, blinding, z1-share proofs, the DPK with its blinded
values) and the Paillier Mix (proof of shuffle, batched share proof), with their statements
and public keys.  Each message's field list comes from the verifier's signature and the proof
dataclasses, so a new field without a tamper entry (or a listed exemption) fails.

Each table runs in one test that collects every tamper the verifier does not reject (an
unrelated exception counts as not rejected), so one run reports all the gaps at once.
"""
from __future__ import annotations

import dataclasses
import inspect
import random
import re

import pytest

from costbook.schemes.mixnet import bbsig, bbsplus, dbrsm, dbsm, elgamal, mix, shuffle, sigma
from costbook.schemes.mixnet import paillier as pai
from costbook.schemes.mixnet.curves import groups
from test_mixnet_paillier import primes          # the committed small safe primes (a 256-bit N)

N_ITEMS, M_SERVERS = 2, 2


@pytest.fixture(scope="module")
def G():
    return groups("bn254")


# --- tamper vocabulary ---------------------------------------------------------------------

def bump(G, X):
    """A group element times its group's generator (G1, G2 or GT)."""
    if X.parent() is G.C.Fp12:
        return X * G.eg1f2
    return G.op(X, G.g1 if X.curve() is G.C.E1 else G.f2)


def at(xs, i, value):
    """xs with position i replaced (same container type)."""
    out = list(xs)
    out[i] = value
    return type(xs)(out) if isinstance(xs, tuple) else out


def swap01(xs):
    return at(at(xs, 0, xs[1]), 1, xs[0])


def list_tampers(name, change):
    """Change the first entry, swap the first two."""
    return {f"{name}[0]": lambda a: dict(a, **{name: at(a[name], 0, change(a[name][0]))}),
            f"{name}: swap two": lambda a: dict(a, **{name: swap01(a[name])})}


def small_order(G, t: int):
    """An element of F_p^* (so of F_{p^12}^*) of order exactly t, for t dividing p - 1: an element
    times it leaves G_T (its order gains the factor t) unless t = 1."""
    p = G.C.params.p
    assert (p - 1) % t == 0
    if t == 1:
        return G.oneT
    for a in range(2, 1000):
        zeta = G.C.Fp12(pow(a, (p - 1) // t, p))
        if all(zeta ** (t // f) != 1 for f in (2, 3, 5, 7) if t % f == 0):
            return zeta
    raise AssertionError(f"no element of order {t}")


def ciphertext_tampers(G, name):
    """An ElGamal pair: each component times the generator."""
    return {f"{name}[{i}]": (lambda i: lambda a: dict(a, **{name: at(a[name], i, bump(G, a[name][i]))}))(i)
            for i in (0, 1)}


def field_tamper(arg, field, change):
    return lambda a: dict(a, **{arg: dataclasses.replace(a[arg], **{field: change(getattr(a[arg], field))})})


def sigma_proof_tampers(G, proof, arg="proof"):
    """A (distributed) sigma proof: the challenge, every response share, and the shape of z."""
    out = {f"{arg}.c": field_tamper(arg, "c", lambda c: (c + 1) % G.q)}
    for k, zk in enumerate(proof.z):
        for l in range(len(zk)):
            out[f"{arg}.z[{k}][{l}]"] = field_tamper(
                arg, "z", (lambda k, l: lambda z: at(z, k, at(z[k], l, (z[k][l] + 1) % G.q)))(k, l))
    if len(proof.z[0]) > 1:
        out[f"{arg}.z: swap two responses"] = field_tamper(arg, "z", lambda z: at(z, 0, swap01(z[0])))
    out[f"{arg}.z: drop a response"] = field_tamper(arg, "z", lambda z: at(z, 0, z[0][:-1]))
    if len(proof.z) > 1:
        out[f"{arg}.z: drop a prover's share"] = field_tamper(arg, "z", lambda z: z[:-1])
    return out


# --- the table check -----------------------------------------------------------------------

def message_fields(func, args: dict) -> set:
    """The verifier's arguments, with a dataclass argument split into its fields."""
    names = set()
    for p in inspect.signature(func).parameters:
        if p in ("G", "rng"):
            continue
        if dataclasses.is_dataclass(args[p]):
            names |= {f"{p}.{f.name}" for f in dataclasses.fields(args[p])}
        else:
            names.add(p)
    return names


def field_of(tamper_name: str) -> str:
    """'proof.z[0][1]' -> 'proof.z'; 'e: swap two' -> 'e'; 'proof.reencryption.c' -> 'proof.reencryption'."""
    name = re.sub(r"\[\d+\].*", "", tamper_name.split(":")[0])
    return ".".join(name.split(".")[:2])


def assert_table(func, verify, args: dict, tampers: dict, exempt: dict = {}):
    """Every field has a tamper or an exemption; the honest message verifies; no tamper does."""
    assert {field_of(t) for t in tampers} | set(exempt) == message_fields(func, args)
    assert verify(args) is True
    not_rejected = {}
    for name, tamper in tampers.items():
        bad = tamper(args)
        assert bad != args, f"tamper {name!r} changes nothing"
        try:
            verdict = verify(bad)
        except Exception as e:                  # not a rejection: an unrelated crash
            verdict = f"{type(e).__name__}: {e}"
        if verdict is not False:
            not_rejected[name] = verdict
    assert not not_rejected, f"tampered fields not rejected: {not_rejected}"


# --- DB-SM ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sm(G):
    rng = random.Random(31)
    mo = dbsm.mix_outputs(G, N_ITEMS, M_SERVERS, rng)
    res = dbsm.query(G, mo, rng)
    assert all(res.verdict)
    return mo, res.transcript


def test_dbsm_signature_batch(G, sm):
    mo, t = sm
    args = {"X": t["X"], "vs": list(mo.v_out), "sigmas": list(t["sigs"])}
    tampers = {"X": lambda a: dict(a, X=bump(G, a["X"]))}
    tampers |= list_tampers("vs", lambda v: (v + 1) % G.q)
    tampers |= list_tampers("sigmas", lambda s: bump(G, s))
    assert_table(bbsig.batch_verify, lambda a: bbsig.batch_verify(G, rng=random.Random(1), **a), args, tampers)


def shuffle_tampers(G, pk_name="pk", pk_change=None):
    out = {pk_name: lambda a: dict(a, **{pk_name: (pk_change or (lambda x: bump(G, x)))(a[pk_name])})}
    for name in ("e", "e_out"):
        out |= list_tampers(name, lambda E: at(E, 0, bump(G, E[0])))
        out[f"{name}[0] second component"] = (lambda name: lambda a: dict(
            a, **{name: at(a[name], 0, at(a[name][0], 1, bump(G, a[name][0][1])))}))(name)
    out |= list_tampers("a", lambda x: bump(G, x))
    out["proof.chain[0]"] = field_tamper("proof", "chain", lambda ch: at(ch, 0, bump(G, ch[0])))
    out["proof.chain: drop one"] = field_tamper("proof", "chain", lambda ch: ch[:-1])
    out["proof.c"] = field_tamper("proof", "c", lambda c: (c + 1) % G.q)
    for i in range(4):
        out[f"proof.s[{i}]"] = field_tamper("proof", "s", (lambda i: lambda s: at(s, i, (s[i] + 1) % G.q))(i))
    for name in ("s_hat", "s_prime"):
        out[f"proof.{name}[0]"] = field_tamper("proof", name, lambda s: at(s, 0, (s[0] + 1) % G.q))
        out[f"proof.{name}: swap two"] = field_tamper("proof", name, swap01)
        out[f"proof.{name}: drop one"] = field_tamper("proof", name, lambda s: s[:-1])
    return out


def test_dbsm_shuffle(G, sm):
    mo, t = sm
    new, cur, proof = t["shuffles"][0]
    args = {"pk": mo.pk, "e": new, "e_out": cur, "a": mo.perm_comms[0][0], "proof": proof}
    assert_table(shuffle.verify, lambda a: shuffle.verify(G, **a), args, shuffle_tampers(G))


def test_dbsm_blinding_proof(G, sm):
    mo, t = sm
    E = t["shuffles"][0][0][0]                  # the first mix-server's output = the blinded input
    args = {"pk": mo.pk, "E": E, "E_bl": t["E_blinded"][1][0], "proof": t["pok_blinding"][1][0]}
    tampers = {"pk": lambda a: dict(a, pk=bump(G, a["pk"]))}
    tampers |= ciphertext_tampers(G, "E") | ciphertext_tampers(G, "E_bl") | sigma_proof_tampers(G, args["proof"])

    def verify(a):
        return sigma.verify(G, dbsm.blinding_relation(G, a["pk"], a["E"], a["E_bl"]), a["proof"])
    assert_table(lambda pk, E, E_bl, proof: None, verify, args, tampers)


def share_tampers(G, proof):
    return ({"pk_k": lambda a: dict(a, pk_k=bump(G, a["pk_k"])), "D": lambda a: dict(a, D=bump(G, a["D"]))}
            | ciphertext_tampers(G, "E") | sigma_proof_tampers(G, proof))


def test_dbsm_decryption_share_proof(G, sm):
    mo, t = sm
    args = {"E": t["E_bar"][0], "pk_k": mo.pks[1], "D": t["shares"][1][0], "proof": t["share_proofs"][1][0]}
    assert_table(elgamal.verify_share, lambda a: elgamal.verify_share(G, **a), args,
                 share_tampers(G, args["proof"]))


def test_dbsm_dpk(G, sm):
    mo, t = sm
    args = {"X": t["X"], "gamma": mo.gammas[0], "sig_tilde": t["sig_tilde"][0], "proof": t["dpk"][0],
            "provers": M_SERVERS}
    tampers = {k: (lambda k: lambda a: dict(a, **{k: bump(G, a[k])}))(k) for k in ("X", "gamma", "sig_tilde")}
    tampers |= sigma_proof_tampers(G, args["proof"])
    tampers |= {"provers: one more": lambda a: dict(a, provers=a["provers"] + 1),
                "provers: one fewer": lambda a: dict(a, provers=a["provers"] - 1)}
    assert_table(dbsm.verify_dpk, lambda a: dbsm.verify_dpk(G, **a), args, tampers)


# --- DB-RSM --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rsm(G):
    rng = random.Random(32)
    mo = dbsm.mix_outputs(G, N_ITEMS, M_SERVERS, rng)
    openings = dbrsm.sender_proofs(G, mo, rng)
    res = dbrsm.query(G, mo, openings, rng)
    assert all(res.verdict)
    return mo, openings, res.transcript, rng


def test_dbrsm_sender_opening_proof(G, rsm):
    mo, openings, _, _ = rsm
    args = {"gamma": mo.gammas[0], "proof": openings[0]}
    tampers = {"gamma": lambda a: dict(a, gamma=bump(G, a["gamma"]))} | sigma_proof_tampers(G, openings[0])
    assert_table(lambda gamma, proof: None,
                 lambda a: sigma.verify(G, dbrsm.opening_relation(G, a["gamma"]), a["proof"]), args, tampers)


def test_dbrsm_quasi_signature_batch(G, rsm):
    mo, _, t, _ = rsm
    args = {"X": t["X"], "gammas": list(mo.gammas), "sigs": list(t["sigs"])}
    tampers = {"X": lambda a: dict(a, X=bump(G, a["X"]))}
    tampers |= list_tampers("gammas", lambda g: bump(G, g))
    tampers |= {"sigs: swap two": lambda a: dict(a, sigs=swap01(a["sigs"]))}
    for i, part in enumerate(("S", "c", "r_hat")):
        change = (lambda x: bump(G, x)) if i == 0 else (lambda x: (x + 1) % G.q)
        tampers[f"sigs[0] {part}"] = (lambda i, change: lambda a: dict(
            a, sigs=at(a["sigs"], 0, at(a["sigs"][0], i, change(a["sigs"][0][i])))))(i, change)
    assert_table(bbsplus.batch_verify_quasi, lambda a: bbsplus.batch_verify_quasi(G, rng=random.Random(1), **a),
                 args, tampers)


def test_dbrsm_shuffle(G, rsm):
    mo, _, t, _ = rsm
    cur, new, proof = t["shuffles"][1]
    args = {"pk": mo.pk, "e": cur, "e_out": new, "a": mo.perm_comms[1][0], "proof": proof}
    assert_table(shuffle.verify, lambda a: shuffle.verify(G, **a), args, shuffle_tampers(G))


def test_dbrsm_blinding_proof(G, rsm):
    mo, _, _, rng = rsm
    b = G.random_scalar(rng)
    B, rr = elgamal.encrypt(G, mo.pk, G.exp1(G.g1, b), rng)
    args = {"pk": mo.pk, "B": B, "proof": sigma.prove(G, dbrsm.blinding_relation(G, mo.pk, B), (rr, b), rng)}
    tampers = {"pk": lambda a: dict(a, pk=bump(G, a["pk"]))} | ciphertext_tampers(G, "B")
    tampers |= sigma_proof_tampers(G, args["proof"])
    assert_table(lambda pk, B, proof: None,
                 lambda a: sigma.verify(G, dbrsm.blinding_relation(G, a["pk"], a["B"]), a["proof"]), args, tampers)


def test_dbrsm_z1_share_proof(G, rsm):
    _, _, t, _ = rsm
    args = {"z1k": t["z1_shares"][1][0], "proof": t["z1_proofs"][1][0]}
    tampers = {"z1k": lambda a: dict(a, z1k=bump(G, a["z1k"])),
               "z1k: negated (order 2r, not in GT)": lambda a: dict(a, z1k=-a["z1k"]),
               "z1k: times a cube root of unity": lambda a: dict(a, z1k=a["z1k"] * small_order(G, 3))}
    tampers |= sigma_proof_tampers(G, args["proof"])
    assert_table(lambda z1k, proof: None,
                 lambda a: sigma.verify(G, dbrsm.z1_relation(G, a["z1k"]), a["proof"]), args, tampers)


def test_dbrsm_dpk_with_blinded_values(G, rsm):
    mo, _, t, _ = rsm
    # one output's DPK: the querier's verifier takes lists; the tampers act on that one entry
    args = {"X": t["X"], "v": mo.v_out[0], "blinded": t["blinded"][0], "proof": t["dpk"][0]}
    tampers = {"X": lambda a: dict(a, X=bump(G, a["X"])), "v": lambda a: dict(a, v=(a["v"] + 1) % G.q),
               "blinded.S": field_tamper("blinded", "S", lambda S: bump(G, S)),
               "blinded.c": field_tamper("blinded", "c", lambda c: (c + 1) % G.q),
               "blinded.r": field_tamper("blinded", "r", lambda r: (r + 1) % G.q),
               "blinded.z1": field_tamper("blinded", "z1", lambda z: bump(G, z)),
               "blinded.z1: negated (order 2r, not in GT)": field_tamper("blinded", "z1", lambda z: -z)}
    tampers |= sigma_proof_tampers(G, args["proof"])

    def verify(a):
        verdicts = dbrsm.verify_dpk(G, a["X"], [a["v"]], [a["blinded"]], [a["proof"]], provers=M_SERVERS)
        assert len(verdicts) == 1
        return verdicts[0]
    assert_table(lambda X, v, blinded, proof: None, verify, args, tampers)


def test_dbrsm_dpk_list_shape(G, rsm):
    """The querier's lists: outputs swapped or one dropped change the per-output verdicts."""
    mo, _, t, _ = rsm
    X, v, bl, pf = t["X"], list(mo.v_out), list(t["blinded"]), list(t["dpk"])
    check = lambda X, v, bl, pf: dbrsm.verify_dpk(G, X, v, bl, pf, provers=M_SERVERS)
    assert check(X, v, bl, pf) == [True] * N_ITEMS
    assert check(X, swap01(v), bl, pf) == [False] * N_ITEMS
    assert check(X, v, bl, swap01(pf)) == [False] * N_ITEMS
    assert check(X, v, swap01(bl), pf) == [False] * N_ITEMS
    assert check(X, v, bl, pf[:-1]) == [False] * N_ITEMS            # one proof short: no verdict is True


# --- the Paillier Mix ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def paillier_mix(G):
    rng = random.Random("costbook/tests/tamper/mix")
    p, q = primes()
    st, res = mix.run_mix([rng.randrange(1 << 64) for _ in range(N_ITEMS)], M_SERVERS, p, q, rng=rng)
    assert res.accepted
    return st, res.transcript


#: PublicKey fields the Paillier shuffle verifier does not read
SHUFFLE_PK_EXEMPT = {
    "pk.v": "the base of the decryption-share keys; only the share proof reads it",
    "pk.vks": "the decryption-share keys; only the share proof reads them",
    "pk.share_bits": "the length of 4 d_k, for the share proof's bounds; the shuffle does not use it",
}


def paillier_pk_tamper(field, change):
    return field_tamper("pk", field, change)


def sigma_integer_tampers(arg, proof):
    out = {f"proof.{arg}.c": lambda a: dict(a, proof=dataclasses.replace(
        a["proof"], **{arg: dataclasses.replace(getattr(a["proof"], arg), c=getattr(a["proof"], arg).c ^ 1)}))}
    for l in range(len(proof.z)):
        out[f"proof.{arg}.z[{l}]"] = (lambda l: lambda a: dict(a, proof=dataclasses.replace(
            a["proof"], **{arg: dataclasses.replace(getattr(a["proof"], arg),
                                                    z=at(getattr(a["proof"], arg).z, l, getattr(a["proof"], arg).z[l] + 1))})))(l)
    return out


def test_mix_paillier_shuffle(G, paillier_mix):
    st, t = paillier_mix
    pk = st.pk
    c_in, c_out, proof = t["shuffles"][1]
    args = {"pk": pk, "c_in": c_in, "c_out": c_out, "a": st.perm_comms[1][0], "proof": proof}
    ct = lambda c: c * (1 + pk.N) % pk.N2       # another ciphertext: plaintext + 1
    tampers = {"pk.N": paillier_pk_tamper("N", lambda N: N + 2),
               "pk.N: with N2 = N'^2": lambda a: dict(a, pk=dataclasses.replace(pk, N=pk.N + 2, N2=(pk.N + 2) ** 2)),
               "pk.N2": paillier_pk_tamper("N2", lambda N2: N2 + 2),
               "pk.hN": paillier_pk_tamper("hN", lambda h: h * 4 % pk.N2)}
    tampers |= list_tampers("c_in", ct) | list_tampers("c_out", ct)
    tampers |= list_tampers("a", lambda x: bump(G, x))
    tampers |= {"proof.b1": field_tamper("proof", "b1", lambda b: bump(G, b)),
                "proof.b2": field_tamper("proof", "b2", ct),
                "proof.z: drop one": field_tamper("proof", "z", lambda z: z[:-1])}
    for i in range(4):
        tampers[f"proof.z[{i}]"] = field_tamper("proof", "z", (lambda i: lambda z: at(z, i, z[i] * 4 % pk.N))(i))
    tampers |= sigma_integer_tampers("equal_exponents", proof.equal_exponents)
    tampers |= sigma_integer_tampers("reencryption", proof.reencryption)
    assert_table(mix.verify_shuffle, lambda a: mix.verify_shuffle(G, **a), args, tampers, SHUFFLE_PK_EXEMPT)


#: PublicKey fields the share-proof verifier does not bind
SHARES_PK_EXEMPT = {
    "pk.hN": "the re-encryption base; only the shuffle proof reads it",
    "pk.share_bits": "a public length that only bounds z from above (|z| < 2^(rho bits + 1)); a "
                     "changed length that still bounds the honest z accepts it, and a much smaller "
                     "one rejects it (checked separately)",
}


def test_mix_paillier_share_proof(G, paillier_mix):
    st, t = paillier_mix
    pk, k = st.pk, 1
    cts = t["shuffles"][-1][1]
    args = {"pk": pk, "k": k, "cts": cts, "shares": t["shares"][k], "proof": t["share_proofs"][k]}
    ct = lambda c: c * 4 % pk.N2                # another unit of Z_(N^2)
    tampers = {"pk.N": paillier_pk_tamper("N", lambda N: N + 2),
               "pk.N2": paillier_pk_tamper("N2", lambda N2: N2 + 2),
               "pk.v": paillier_pk_tamper("v", ct),
               "pk.vks": paillier_pk_tamper("vks", lambda vks: at(vks, k, ct(vks[k]))),
               "pk.vks: swap two": paillier_pk_tamper("vks", swap01),
               "k": lambda a: dict(a, k=(a["k"] + 1) % pk.m),
               "proof.c": field_tamper("proof", "c", lambda c: c ^ 1),
               "proof.z": field_tamper("proof", "z", lambda z: z + 1)}
    tampers |= list_tampers("cts", ct) | list_tampers("shares", ct)
    assert_table(pai.verify_shares, lambda a: pai.verify_shares(**a), args, tampers, SHARES_PK_EXEMPT)


def test_mix_paillier_share_proof_range_bound(G, paillier_mix):
    """share_bits only bounds z: halving it puts the honest z out of range."""
    st, t = paillier_mix
    pk, k = st.pk, 1
    short = dataclasses.replace(pk, share_bits=pk.share_bits // 2)
    assert pai.verify_shares(short, k, t["shuffles"][-1][1], t["shares"][k], t["share_proofs"][k]) is False


def test_mix_permutation_commitment_proof(G, paillier_mix):
    """P2/P3: the Terelius–Wikström proof that a^(k) commits to a permutation (a shuffle of
    trivial ciphertexts under the key g1), with the same verifier as the ElGamal shuffles."""
    st, _ = paillier_mix
    trivial = mix._trivial(G, N_ITEMS)
    args = {"pk": G.g1, "e": trivial, "e_out": trivial, "a": st.perm_comms[1][0], "proof": st.perm_proofs[1]}
    # the trivial ciphertexts are all equal, so swapping two of them changes nothing
    tampers = {k: v for k, v in shuffle_tampers(G).items() if k not in ("e: swap two", "e_out: swap two")}
    assert_table(shuffle.verify, lambda a: shuffle.verify(G, **a), args, tampers)


# --- G_T membership: a statement off the subgroup, proved by the honest prover's code ----------------

@pytest.mark.parametrize("t", [2, 3])
def test_a_z1_share_off_gt_is_refused_even_with_a_proof_made_for_it(G, t):
    """z1^(k) times an element of order t (-z1^(k) for t = 2) is not in G_T.  The honest prover's code
    proves the share's opening for it; without the membership check the verifier's (Y z)^{-c} loses z
    whenever t divides c, and accepted one proof in t.  Refused for every try, and the check is what
    refuses it; the share itself still verifies."""
    rng = random.Random(f"z1 off GT {t}")
    b, d = G.random_scalar(rng), G.random_scalar(rng)
    h2p = G.eg1f2 ** -1
    z1k = G.expT(h2p, b) * G.expT(G.fT, d)
    assert sigma.verify(G, dbrsm.z1_relation(G, z1k), sigma.prove(G, dbrsm.z1_relation(G, z1k), (b, d), rng))
    bad = z1k * small_order(G, t)
    assert bad ** G.q != 1                   # not in G_T
    for _ in range(6):                       # with t = 2, one of 64 runs of old code could miss
        rel = dbrsm.z1_relation(G, bad)
        assert sigma.verify(G, rel, sigma.prove(G, rel, (b, d), rng)) is False
        assert sigma.well_formed(G, rel, sigma.prove(G, rel, (b, d), rng)) is False


def test_gt_membership_is_exactly_order_r(G):
    """in_gt: every pairing value and product of them; nothing of another order (-1, a cube root of
    unity, a random element of F_{p^12}), nor 0 or a non-element; one GT exponentiation each."""
    from costbook.prices.counting import counting
    x = G.eg1f2 * G.fT
    assert G.in_gt(x) and G.in_gt(G.oneT) and G.in_gt(x ** -1)
    for bad in (-x, -G.oneT, x * small_order(G, 3), G.C.Fp12.random_element(), G.C.Fp12(0), G.g1, 5, None):
        assert G.in_gt(bad) is False
    with counting() as c:
        G.in_gt(x)
    assert dict(c) == {"bn254/gt_exp": 1}
