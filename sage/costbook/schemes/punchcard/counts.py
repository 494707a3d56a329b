"""The punch cards' cost formula: the counts of each step, tallied by running the code, and the sizes.

``count_steps`` runs one card from setup to redemption (for BLS12-381: the benchmark of ``lib.rs``,
two cards of punches/2 punches merged into one redemption) with every step inside its own
``costbook.prices.counting.counting()`` block, and returns one count vector per step: per run of the
step, so a punch step is one punch.  The counts are tallied, never typed: the protocol modules
(ristretto.py, mergeable.py) are the formula.  ``per_redemption`` and ``spent_set_lookup`` are
sums and parts of those counts; ``message_sizes`` measures the real messages.

``step_counts(**options)`` is the entry every scheme's counts.py has: {label of each price call
``model.estimate`` makes: the Counts it prices}.  model.py prices these counts; nothing here prices.
"""
from __future__ import annotations

import functools
import random

from ...prices.cost import Counts
from ...prices.counting import counting
from . import curves, mergeable, ristretto
from .seed import CURVES, LABELS, STEPS, Parameters, check_merged_punches, message_size_formulas

#: one card's whole life (``per_redemption``): the names the chapter's table of a card's cost prints
CARD_LABELS = {"client": "Client, setup to redemption", "server": "Server, punches and redemption"}
#: the server redemption's probe of the spent-card set: the one cost that grows with the set
LOOKUP_LABEL = "Server redeem's spent-card lookup"



def _rng(curve, punches, extra=""):
    return random.Random(f"costbook/punchcard/{curve}/{punches}/{extra}")


def _freeze(c: Counts) -> Counts:
    return Counts({k: c[k] for k in sorted(c)})


@functools.lru_cache(maxsize=None)
def _count(curve: str, punches: int, db_size: int, redeem_check: str) -> tuple:
    counts, redeem_with = _run(curve, punches, redeem_check)
    counts = {**counts, "server_redeem": redeem_with(db_size)}
    return tuple((s, _freeze(counts[s])) for s in STEPS)


@functools.lru_cache(maxsize=None)
def _spent_rows(rows: int) -> ristretto.SpentSet:
    """A spent-card set preloaded with `rows` dummy secrets, shared by every count at that size
    (building a million-row set costs more than the protocol run it serves)."""
    spent = ristretto.SpentSet()
    spent.preload(rows)
    return spent


@functools.lru_cache(maxsize=None)
def _run(curve: str, punches: int, redeem_check: str) -> tuple:
    """One card from setup to its redemption message: (the counts of every step but the server's
    redemption, a function counting that redemption against a spent set of a given size).

    The spent set is the only state the redemption reads that the set's size changes, so one run
    serves every size: each redemption is counted against the shared preloaded set, whose size is
    restored after it."""
    rng = _rng(curve, punches, redeem_check)
    counts = {}
    punch_counts = {"server_punch": [], "client_punch": []}
    if curve == "ristretto255":
        G = curves.ristretto255()
        with counting() as c:
            server = ristretto.Server(G, rng)
        counts["server_setup"] = c
        rows_per_card = 1
        with counting() as c:
            card = ristretto.Card(G, rng)
            C = card.first_message()
        counts["client_setup"] = c
        for _ in range(punches):
            with counting() as c:
                new, proof = server.punch(C)
            punch_counts["server_punch"].append(c)
            with counting() as c:
                C, ok = card.verify_remask(new, server.pk, proof)
            punch_counts["client_punch"].append(c)
            assert ok
        with counting() as c:
            secret, U = card.unmask_redeem()
        counts["client_redeem"] = c
        message, secrets = (U, secret, punches), (secret,)
    elif curve == "bls12_381":
        check_merged_punches(curve, punches)       # the chapter's code calls this below Parameters
        E = curves.bls12_381()
        with counting() as c:
            server = mergeable.Server(E, rng, redeem_check)
        counts["server_setup"] = c
        rows_per_card = 2                    # lib.rs: each card is two secrets' worth of rows
        with counting() as c:                # lib.rs times the first card's setup only
            a = mergeable.Card(E, rng)
            first = a.first_message()
        counts["client_setup"] = c
        b = mergeable.Card(E, rng)
        for card, (C1, C2) in ((a, first), (b, b.first_message())):
            for _ in range(punches // 2):
                with counting() as c:
                    n1, n2, p1, p2 = server.punch(C1, C2)
                punch_counts["server_punch"].append(c)
                with counting() as c:
                    C1, C2, ok = card.verify_remask(n1, n2, server.pk1, server.pk2, p1, p2)
                punch_counts["client_punch"].append(c)
                assert ok
        with counting() as c:
            sa, sb, merged = mergeable.merge(a, b, redeem_check)
        counts["client_redeem"] = c
        message, secrets = (sa, sb, merged, punches), (sa, sb)
    else:
        raise ValueError(f"curve must be one of {CURVES}, got {curve!r}")
    for step, runs in punch_counts.items():
        # every punch does the same work; the model relies on it, so check it
        if any(dict(r) != dict(runs[0]) for r in runs):
            raise AssertionError(f"{step}: punches differ in their counts: {runs}")
        counts[step] = runs[0]

    def redeem_with(db_size: int) -> Counts:
        server.spent = _spent_rows(rows_per_card * db_size)
        try:
            with counting() as c:
                accepted = server.redeem(*message)
            assert accepted, "the honest redemption was rejected"
        finally:
            server.spent.difference_update(secrets)      # the shared set's dummy rows only again
        return c
    return counts, redeem_with


def count_steps(curve: str = "ristretto255", punches: int = 10, db_size: int = 0,
                redeem_check: str = "single") -> dict:
    """dict step -> Counts per run of the step, counted by running the Sage code once."""
    if punches < 1:
        raise ValueError(f"punches must be at least 1, got {punches}")
    if db_size < 0:
        raise ValueError(f"db_size must be >= 0, got {db_size}")
    if curve == "ristretto255":
        redeem_check = "single"          # one card, one check: the option is for the merge
    return {s: Counts(c) for s, c in _count(curve, int(punches), int(db_size), redeem_check)}


def per_redemption(counts: dict, curve: str, punches: int) -> dict:
    """Client and server work for one redemption worth `punches` punches.

    ristretto255: one card, set up, punched `punches` times, redeemed.  BLS12-381: the
    benchmark's two cards of punches/2 punches each, merged into one redemption.  The
    server's setup is once per shop, not per card, and is left out."""
    cards = 2 if curve == "bls12_381" else 1
    client = counts["client_setup"] * cards + counts["client_punch"] * punches + counts["client_redeem"]
    server = counts["server_punch"] * punches + counts["server_redeem"]
    return {"client": client, "server": server}


def spent_set_lookup(counts: dict) -> Counts:
    """The part of the server's redemption that probes the set of spent cards (its hashset keys)."""
    return Counts({k: n for k, n in counts["server_redeem"].items() if k.startswith("hashset/")})


# ---------------------------------------------------------------------------
# Message sizes, from the real messages

def message_sizes(curve: str = "ristretto255", redeem_check: str = "single") -> dict:
    """Bytes each step sends, measured as len() of the messages the Sage code produces."""
    return dict(_message_sizes(curve, redeem_check))


@functools.lru_cache(maxsize=None)          # a run of the protocol each: the same for every estimate
def _message_sizes(curve: str, redeem_check: str) -> tuple:
    return tuple(_sizes_of_one_run(curve, redeem_check).items())


def _sizes_of_one_run(curve: str, redeem_check: str) -> dict:
    rng = _rng(curve, 2, "sizes")
    if curve == "ristretto255":
        G = curves.ristretto255()
        server, card = ristretto.Server(G, rng), ristretto.Card(G, rng)
        C = card.first_message()
        new, proof = server.punch(C)
        card.verify_remask(new, server.pk, proof)
        secret, U = card.unmask_redeem()
        return {"server_setup": len(server.pk), "client_setup": 0, "client_punch": len(C),
                "server_punch": len(new) + len(proof.to_bytes()),
                "client_redeem": len(secret) + len(U), "server_redeem": 0}
    E = curves.bls12_381()
    server = mergeable.Server(E, rng, redeem_check)
    a, b = mergeable.Card(E, rng), mergeable.Card(E, rng)
    C1, C2 = a.first_message()
    n1, n2, p1, p2 = server.punch(C1, C2)
    a.verify_remask(n1, n2, server.pk1, server.pk2, p1, p2)
    sa, sb, merged = mergeable.merge(a, b, redeem_check)
    return {"server_setup": len(server.pk1) + len(server.pk2), "client_setup": 0,
            "client_punch": len(C1) + len(C2),
            "server_punch": len(n1) + len(n2) + len(p1.to_bytes()) + len(p2.to_bytes()),
            "client_redeem": len(sa) + len(sb) + sum(map(len, merged)), "server_redeem": 0}


def encoding_sizes(curve: str) -> dict:
    """Element and scalar sizes of the implementation, for the size formulas."""
    if curve == "ristretto255":
        G = curves.ristretto255()
        return {"e": G.element_bytes, "s": G.scalar_bytes}
    E = curves.bls12_381()
    return {"e": 0, "s": E.G1.scalar_bytes, "e1": E.G1.element_bytes, "e2": E.G2.element_bytes,
            "gt": E.gt_bytes}


def size_formulas(curve: str) -> dict:
    return message_size_formulas(**encoding_sizes(curve))[curve]


def step_counts(curve: str = "ristretto255", punches: int = 10, db_size: int = 0, redeem_check: str = "single",
                model: str = "scaled") -> dict:
    """{label: Counts} of each step ``model.estimate`` prices at these options: every step (a punch
    step is one punch), one card's whole life on each side, and the spent-card lookup.  `model`
    chooses the seed machine's prices, not counts: it is accepted and ignored."""
    Parameters(curve, punches, db_size, redeem_check, model)
    counts = count_steps(curve, punches, db_size, redeem_check)
    return {**{LABELS[s]: c for s, c in counts.items()},
            **{CARD_LABELS[side]: c for side, c in per_redemption(counts, curve, punches).items()},
            LOOKUP_LABEL: spent_set_lookup(counts)}
