"""Vector commitments: tamper every input a verifier is given (public parameters, commitment,
index or positions, values, proof; each entry of an aggregate) and check it rejects.

Each verifier's argument list comes from its signature, so a new argument without a tamper
entry (or an exemption with its reason) fails the completeness test.
"""
from __future__ import annotations

import dataclasses
import inspect

import pytest

from costbook.groups import pairing_curves as PC
from costbook.schemes.veccom import merkle, model, pointproofs as PP

C = PC.BLS12_381
N = 4
VALS = model._values(N)
I = 1                                   # an inner position, so index tampers stay in range

#: Params fields the single-position verifier does not read, with the reason
PARAMS_EXEMPT = {"g1": "the prover's bases; no verifier reads them"}


def flip_bit(b: bytes) -> bytes:
    return bytes([b[0] ^ 1]) + b[1:]


def g1_next(P):
    return P + C.G1


def change_one(xs, f):
    return (f(xs[0]),) + tuple(xs[1:])


def swap_two(xs):
    return (xs[1], xs[0]) + tuple(xs[2:])


@pytest.fixture(scope="module")
def pp():
    return PP.setup(N)


@pytest.fixture(scope="module")
def com(pp):
    return PP.commit(pp, VALS)


def args_of(f):
    return [p for p in inspect.signature(f).parameters if p != "pp"]


# --- one position ---------------------------------------------------------------------------

def single_tampers(pp):
    return {
        "commitment": lambda a: dict(a, commitment=g1_next(a["commitment"])),
        "i": lambda a: dict(a, i=a["i"] + 1),
        "value": lambda a: dict(a, value=flip_bit(a["value"])),
        "proof": lambda a: dict(a, proof=g1_next(a["proof"])),
        "pp.g2": lambda a: dict(a, pp=dataclasses.replace(
            pp, g2=tuple(g + C.G2 if k == pp.n - 1 - I else g for k, g in enumerate(pp.g2)))),
        "pp.gt": lambda a: dict(a, pp=dataclasses.replace(pp, gt=pp.gt * pp.gt)),
        "pp.n": lambda a: dict(a, pp=dataclasses.replace(pp, n=pp.n - 1)),   # selects another g2 power
    }


def test_single_table_covers_every_input(pp):
    fields = set(args_of(PP.verify)) | {"pp." + f.name for f in dataclasses.fields(pp)}
    assert set(single_tampers(pp)) | {"pp." + f for f in PARAMS_EXEMPT} == fields


@pytest.mark.parametrize("name", sorted(single_tampers(PP.setup(N))))
def test_single_opening_tamper_rejected(pp, com, name):
    honest = {"pp": pp, "commitment": com, "i": I, "value": VALS[I], "proof": PP.prove(pp, VALS, I)}
    assert PP.verify(**honest)
    assert PP.verify(**single_tampers(pp)[name](honest)) is False


def test_encoded_proof_tamper_rejected(pp, com):
    proof = PC.compress(PP.prove(pp, VALS, I), C)
    assert PP.verify_encoded(pp, com, I, VALS[I], proof)
    for bit in (0, 1, 8 * len(proof) - 1):      # the flags, and the low bit of x
        bad = bytearray(proof)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert PP.verify_encoded(pp, com, I, VALS[I], bytes(bad)) is False


# --- same-commitment aggregate --------------------------------------------------------------

S = (0, 2, 3)


def same_tampers():
    """Tampers of (commitment, S, values_S, proof); positions and values in step where needed."""
    return {
        "commitment": lambda a: dict(a, commitment=g1_next(a["commitment"])),
        "proof": lambda a: dict(a, proof=g1_next(a["proof"])),
        "S: change one": lambda a: dict(a, S=(1,) + a["S"][1:]),
        "S: swap two": lambda a: dict(a, S=swap_two(a["S"])),
        "S: drop one (with its value)": lambda a: dict(a, S=a["S"][:-1], values_S=a["values_S"][:-1]),
        "values_S: change one": lambda a: dict(a, values_S=change_one(a["values_S"], flip_bit)),
        "values_S: swap two": lambda a: dict(a, values_S=swap_two(a["values_S"])),
    }


@pytest.fixture(scope="module")
def same(pp, com):
    vals = tuple(VALS[i] for i in S)
    proof = PP.aggregate_same(pp, com, S, vals, [PP.prove(pp, VALS, i) for i in S])
    args = {"commitment": com, "S": S, "values_S": vals, "proof": proof}
    assert PP.verify_same(pp, **args)
    return args


def test_same_table_covers_every_input():
    assert {name.split(":")[0] for name in same_tampers()} == set(args_of(PP.verify_same))


@pytest.mark.parametrize("name", sorted(same_tampers()))
def test_same_aggregate_tamper_rejected(pp, same, name):
    assert PP.verify_same(pp, **same_tampers()[name](same)) is False


# --- cross-commitment aggregate -------------------------------------------------------------

#: fields of a cross-aggregate item, in tuple order
ITEM_FIELDS = ("C_j", "S_j", "values_j", "pi_j")
ITEM_EXEMPT = {"pi_j": "the per-commitment aggregate; the cross proof replaces it and "
                       "verify_cross does not read it (aggregate_cross does)"}


def item_tampers():
    return {
        "C_j": lambda it: (g1_next(it[0]),) + it[1:],
        "S_j": lambda it: (it[0], swap_two(it[1])) + it[2:],
        "values_j": lambda it: it[:2] + (change_one(it[2], flip_bit),) + it[3:],
    }


@pytest.fixture(scope="module")
def cross(pp, com):
    other_vals = model._values(N, "other")
    other = PP.commit(pp, other_vals)
    items = []
    for Cj, vals, Sj in ((com, VALS, (0, 2)), (other, other_vals, (1, 3))):
        vj = tuple(vals[i] for i in Sj)
        items.append((Cj, Sj, vj, PP.aggregate_same(pp, Cj, Sj, vj, [PP.prove(pp, vals, i) for i in Sj])))
    items = tuple(items)
    proof = PP.aggregate_cross(pp, items)
    assert PP.verify_cross(pp, items, proof)
    return items, proof


def test_cross_table_covers_every_item_field(cross):
    items, _ = cross
    assert all(len(it) == len(ITEM_FIELDS) for it in items)
    assert set(item_tampers()) | set(ITEM_EXEMPT) == set(ITEM_FIELDS)
    assert set(args_of(PP.verify_cross)) == {"items", "proof"}


@pytest.mark.parametrize("j", [0, 1])
@pytest.mark.parametrize("field", sorted(item_tampers()))
def test_cross_item_tamper_rejected(pp, cross, j, field):
    items, proof = cross
    bad = items[:j] + (item_tampers()[field](items[j]),) + items[j + 1:]
    assert PP.verify_cross(pp, bad, proof) is False


@pytest.mark.parametrize("name,tamper", [("drop an item", lambda items: items[:1]),
                                         ("swap the items", lambda items: items[::-1])])
def test_cross_list_tamper_rejected(pp, cross, name, tamper):
    items, proof = cross
    assert PP.verify_cross(pp, tamper(items), proof) is False


def test_cross_proof_tamper_rejected(pp, cross):
    items, proof = cross
    assert PP.verify_cross(pp, items, g1_next(proof)) is False


# --- Merkle tree ----------------------------------------------------------------------------

def merkle_tampers():
    return {
        "n": lambda a: dict(a, n=a["n"] - 1),          # same depth, another domain separator
        "root": lambda a: dict(a, root=flip_bit(a["root"])),
        "i": lambda a: dict(a, i=a["i"] + 1),
        "v": lambda a: dict(a, v=flip_bit(a["v"])),
        "proof": lambda a: dict(a, proof=flip_bit(a["proof"])),
        "proof: last sibling": lambda a: dict(a, proof=a["proof"][:-1] + bytes([a["proof"][-1] ^ 1])),
    }


def test_merkle_table_covers_every_input():
    assert {name.split(":")[0] for name in merkle_tampers()} == set(args_of(merkle.verify))


@pytest.mark.parametrize("name", sorted(merkle_tampers()))
def test_merkle_tamper_rejected(name):
    T = merkle.Tree(VALS)
    honest = {"n": N, "root": T.root, "i": I, "v": VALS[I], "proof": T.prove(I)}
    assert merkle.verify(**honest)
    assert merkle.verify(**merkle_tampers()[name](honest)) is False
