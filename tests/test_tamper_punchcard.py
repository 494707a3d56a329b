"""Punch cards: tamper every field a verifier receives and check it rejects.

Verifiers: the client checking a punch (new card, Chaum–Pedersen proof, server public key),
the shop checking a redemption (secret(s), unmasked card or pairing value(s), punch count), and
the shop decoding a punch request (an encoding outside the group must be refused).  Field lists
come from the message objects, so a new field without a tamper entry fails the completeness test.
"""
from __future__ import annotations

import copy
import dataclasses
import random

import pytest

from costbook.groups.pairing_curves import InvalidEncoding as BLSInvalidEncoding
from costbook.groups.ristretto255 import InvalidEncoding as RistrettoInvalidEncoding
from costbook.schemes.punchcard import curves, mergeable, ristretto
from costbook.schemes.punchcard.ristretto import SpentSet



def flip_bit(b: bytes) -> bytes:
    return bytes([b[0] ^ 1]) + b[1:]


def next_element(G):
    """An encoded element -> the encoding of that element times the generator."""
    return lambda b: G.encode(G.op(G.decode(b), G.mul_base(1)))


def next_scalar(G):
    return lambda b: G.encode_scalar((G.decode_scalar(b) + 1) % G.order)


def punch_tampers(G) -> dict:
    """Tampers for one half's punch response, as the client verifies it."""
    element = next_element(G)
    return {"card_new": element, "pk": element,
            "proof.V": element, "proof.W": element, "proof.z": next_scalar(G)}


def punch_paths(message: dict) -> set:
    """The leaf fields of a punch response: its top-level keys and the proof's dataclass fields."""
    return ({k for k in message if k != "proof"}
            | {"proof." + f.name for f in dataclasses.fields(message["proof"])})


def tampered(message: dict, path: str, tamper) -> dict:
    out = dict(message)
    if path.startswith("proof."):
        name = path.removeprefix("proof.")
        out["proof"] = dataclasses.replace(message["proof"], **{name: tamper(getattr(message["proof"], name))})
    else:
        out[path] = tamper(message[path])
    assert out != message
    return out


def fresh_server(server):
    """A copy of the shop with its own spent set, so one test's redemption cannot affect another."""
    s = copy.copy(server)
    s.spent = SpentSet(server.spent)
    return s


# --- ristretto255 ------------------------------------------------------------------------

def honest_punch(seed: int) -> tuple:
    """(group, rng, server, card, punched card, proof): a ristretto255 card and an honest punch of it."""
    G = curves.ristretto255()
    rng = random.Random(seed)
    server = ristretto.Server(G, rng)
    card = ristretto.Card(G, rng)
    card_new, proof = server.punch(card.first_message())
    return G, rng, server, card, card_new, proof


@pytest.fixture(scope="module")
def rist():
    G, rng, server, card, card_new, proof = honest_punch(21)
    punch = {"card_new": card_new, "pk": server.pk, "proof": proof}
    assert copy.copy(card).verify_remask(**punch)[1]
    spender = ristretto.Card(G, rng)
    C = spender.first_message()
    for _ in range(2):
        new, p = server.punch(C)
        C, ok = spender.verify_remask(new, server.pk, p)
        assert ok
    secret, U = spender.unmask_redeem()
    redeem = {"card": U, "secret": secret, "punches": 2}
    assert fresh_server(server).redeem(**redeem)
    return G, server, card, punch, redeem


def rist_redeem_tampers(G):
    return {"card": next_element(G), "secret": flip_bit, "punches": lambda n: n + 1}


def test_ristretto_tables_cover_every_field(rist):
    G, _, _, punch, redeem = rist
    assert punch_paths(punch) == set(punch_tampers(G))
    assert set(redeem) == set(rist_redeem_tampers(G))


@pytest.mark.parametrize("path", sorted(punch_tampers(curves.ristretto255())))
def test_ristretto_punch_tamper_rejected(rist, path):
    G, _, card, punch, _ = rist
    client = copy.copy(card)
    _, ok = client.verify_remask(**tampered(punch, path, punch_tampers(G)[path]))
    assert ok is False
    assert client.count == 0 and client.card == card.card        # nothing unmasked on rejection


@pytest.mark.parametrize("field", ["card", "secret", "punches"])
def test_ristretto_redeem_tamper_rejected(rist, field):
    G, server, _, _, redeem = rist
    bad = dict(redeem, **{field: rist_redeem_tampers(G)[field](redeem[field])})
    assert fresh_server(server).redeem(**bad) is False


def test_ristretto_punch_request_outside_the_group_is_refused(rist):
    _, server, _, _, _ = rist
    with pytest.raises(RistrettoInvalidEncoding):
        server.punch(b"\xff" * 32)                      # an integer >= p: no canonical encoding


# --- mergeable BLS12-381 -----------------------------------------------------------------

@pytest.fixture(scope="module")
def merg():
    E = curves.bls12_381()
    rng = random.Random(22)
    servers = {check: mergeable.Server(E, rng, check) for check in mergeable.REDEEM_CHECKS}
    server = servers["single"]
    card = mergeable.Card(E, rng)
    new1, new2, p1, p2 = server.punch(*card.first_message())
    punch = {1: {"card_new": new1, "pk": server.pk1, "proof": p1},
             2: {"card_new": new2, "pk": server.pk2, "proof": p2}}
    redeems = {}
    for check, srv in servers.items():
        a, b = mergeable.Card(E, rng), mergeable.Card(E, rng)
        mergeable.punch_card(srv, a, 1)
        mergeable.punch_card(srv, b, 1)
        sa, sb, merged = mergeable.merge(a, b, check)
        redeems[check] = {"secret_a": sa, "secret_b": sb, "merged": merged, "punches": 2}
        assert fresh_server(srv).redeem(**redeems[check])
    return E, servers, card, punch, redeems


def verify_merged_punch(card, punch):
    client = copy.copy(card)
    client.g1, client.g2 = copy.copy(card.g1), copy.copy(card.g2)
    *_, ok = client.verify_remask(punch[1]["card_new"], punch[2]["card_new"], punch[1]["pk"],
                                  punch[2]["pk"], punch[1]["proof"], punch[2]["proof"])
    return ok, client


def merged_punch_cases():
    E = curves.bls12_381()
    return [(half, path) for half, G in ((1, E.G1), (2, E.G2)) for path in sorted(punch_tampers(G))]


def gt_times_generator(E):
    g = E.pair(E.G1.mul_base(1), E.G2.mul_base(1))
    return lambda t: E.encode_gt(E.decode_gt(t) * g)


def merged_tampers(E, n: int) -> dict:
    """Tampers of the tuple of pairing values: each entry, and the tuple's shape."""
    out = {f"merged[{i}]": (lambda i: lambda m: m[:i] + (gt_times_generator(E)(m[i]),) + m[i + 1:])(i)
           for i in range(n)}
    out["merged: drop the last"] = lambda m: m[:-1]
    out["merged: append a copy"] = lambda m: m + m[-1:]
    if n > 1:
        out["merged: swap T and T'"] = lambda m: m[::-1]
    return out


def redeem_tampers(E, n: int) -> dict:
    merged = merged_tampers(E, n)
    out = {"secret_a": ("secret_a", flip_bit), "secret_b": ("secret_b", flip_bit),
           "punches": ("punches", lambda k: k + 1)}
    out.update({name: ("merged", f) for name, f in merged.items()})
    return out


def test_mergeable_tables_cover_every_field(merg):
    E, _, _, punch, redeems = merg
    for half, G in ((1, E.G1), (2, E.G2)):
        assert punch_paths(punch[half]) == set(punch_tampers(G))
    for check, message in redeems.items():
        covered = {field for field, _ in redeem_tampers(E, len(message["merged"])).values()}
        assert covered == set(message)
        entries = {name for name in redeem_tampers(E, len(message["merged"])) if name.startswith("merged[")}
        assert entries == {f"merged[{i}]" for i in range(len(message["merged"]))}


@pytest.mark.parametrize("half,path", merged_punch_cases())
def test_mergeable_punch_tamper_rejected(merg, half, path):
    E, _, card, punch, _ = merg
    G = E.G1 if half == 1 else E.G2
    bad = dict(punch)
    bad[half] = tampered(punch[half], path, punch_tampers(G)[path])
    ok, client = verify_merged_punch(card, bad)
    assert ok is False
    # the untampered half is still remasked (as the Rust code does); the tampered one is not
    assert (client.g1 if half == 1 else client.g2).count == 0


@pytest.mark.parametrize("check", mergeable.REDEEM_CHECKS)
def test_mergeable_redeem_tamper_rejected(merg, check):
    E, servers, _, _, redeems = merg
    message = redeems[check]
    for name, (field, tamper) in redeem_tampers(E, len(message["merged"])).items():
        bad = dict(message, **{field: tamper(message[field])})
        assert bad != message
        assert fresh_server(servers[check]).redeem(**bad) is False, name


@pytest.mark.parametrize("half", [1, 2])
def test_mergeable_punch_request_outside_the_group_is_refused(merg, half):
    E, servers, card, _, _ = merg
    C1, C2 = card.first_message()
    # compression flag set, x = all ones: x >= p, so no point of either group
    bad = b"\x9f" + b"\xff" * (len(C1 if half == 1 else C2) - 1)
    with pytest.raises(BLSInvalidEncoding):
        servers["single"].punch(*((bad, C2) if half == 1 else (C1, bad)))
