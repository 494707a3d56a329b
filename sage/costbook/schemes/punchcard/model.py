"""The punch cards' cost model: counts by running the code, prices, estimates, validation.

Counts.  ``count_steps`` runs one card from setup to redemption (for BLS12-381: the
benchmark of ``lib.rs``, two cards of punches/2 punches merged into one redemption) with
every step inside its own ``costbook.counting.counting()`` block, and returns one count
vector per step: per run of the step, so a punch step is one punch.

Prices.  A count vector is priced against a measurement file.  Three kinds of price set:

* a *measured* file (``reference``, ``local``, ``book``): each key from the first backend of
  a preference list that has it (native libraries by default: libsodium for ristretto255,
  arkworks for BLS12-381, CPython's set for the spent-card set);
* the *seed's machine*: the seed states only two primitive prices (an exponentiation,
  50 µs, and a lookup, 0.25 µs) and the repository's ``data.txt`` three more for BLS12-381
  (G1 and G2 exponentiations, a pairing).  ``seed_machine_prices`` keeps those and prices
  every other key by a native library's ratio to its anchor, e.g.
  ``decode = 50 µs x libsodium(decode) / libsodium(mul)``: consistent with the seed's
  machine on the anchors, and a prediction everywhere else;
* ``sage``: the book's own code, for validation.
"""
from __future__ import annotations

import copy
import functools
import random

from ...cost import Counts, MissingPrice, price
from ...counting import counting
from ...measurements import MeasurementSet, load_source
from . import curves, mergeable, ristretto
from .seed import (CURVES, LABELS, REPOSITORY_PRICES_US, STEPS, VARIANTS, message_size_formulas,
                   published_prices, published_steps, step_key)

#: what `costbook estimate punchcard --source published` prices with (the seed's stated prices)
PUBLISHED = "seed-000-punchcard-laptop"

OPTIONS = {
    "curve": ("ristretto255", CURVES),
    "punches": (10, None),
    "db_size": (0, None),
    "redeem_check": ("single", mergeable.REDEEM_CHECKS),
    "model": ("scaled", ("scaled", "implied")),
}

CLIENT_STEPS = ("client_setup", "client_punch", "client_redeem")
SERVER_STEPS = ("server_setup", "server_punch", "server_redeem")

#: which native backends price which curve by default (then CPython's set for the lookups)
NATIVE = {"ristretto255": ["libsodium", "python"], "bls12_381": ["arkworks", "python"]}


# ---------------------------------------------------------------------------
# Counting

def _rng(curve, punches, extra=""):
    return random.Random(f"costbook/punchcard/{curve}/{punches}/{extra}")


def _freeze(c: Counts) -> Counts:
    return Counts({k: c[k] for k in sorted(c)})


@functools.lru_cache(maxsize=None)
def _count(curve: str, punches: int, db_size: int, redeem_check: str) -> tuple:
    rng = _rng(curve, punches, f"{db_size}/{redeem_check}")
    counts = {}
    punch_counts = {"server_punch": [], "client_punch": []}
    if curve == "ristretto255":
        G = curves.ristretto255()
        with counting() as c:
            server = ristretto.Server(G, rng)
        counts["server_setup"] = c
        server.preload(db_size)
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
        with counting() as c:
            accepted = server.redeem(U, secret, punches)
        counts["server_redeem"] = c
    elif curve == "bls12_381":
        if punches % 2:
            raise ValueError(f"the BLS12-381 benchmark merges two cards of punches/2 punches: "
                             f"punches must be even, got {punches}")
        E = curves.bls12_381()
        with counting() as c:
            server = mergeable.Server(E, rng, redeem_check)
        counts["server_setup"] = c
        server.preload(2 * db_size)          # lib.rs: each card is two secrets' worth of rows
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
        with counting() as c:
            accepted = server.redeem(sa, sb, merged, punches)
        counts["server_redeem"] = c
    else:
        raise ValueError(f"curve must be one of {CURVES}, got {curve!r}")
    assert accepted, "the honest redemption was rejected"
    for step, runs in punch_counts.items():
        # every punch does the same work; the model relies on it, so check it
        if any(dict(r) != dict(runs[0]) for r in runs):
            raise AssertionError(f"{step}: punches differ in their counts: {runs}")
        counts[step] = runs[0]
    return tuple((s, _freeze(counts[s])) for s in STEPS)


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


# ---------------------------------------------------------------------------
# Message sizes, from the real messages

def message_sizes(curve: str = "ristretto255", redeem_check: str = "single") -> dict:
    """Bytes each step sends, measured as len() of the messages the Sage code produces."""
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


# ---------------------------------------------------------------------------
# Prices on this machine: a measured file, native libraries first

def _entry(e: dict, note: str | None = None) -> dict:
    out = {"median": e["median"], "unit": e["unit"]}
    if note or e.get("note"):
        out["note"] = note or e["note"]
    return out


def native_prices(keys, curve: str, source: MeasurementSet, backends=None) -> MeasurementSet:
    """One price per key from `source`: the first backend of the preference list that has it.

    The preference list is `backends`, or the native libraries of `curve` (``NATIVE``).
    libsodium has no call that only encodes a ristretto255 element; there, an encoding is
    priced as libsodium's decoding (each is one inverse square root and a few
    multiplications) and the entry says so.  Any other missing key is an error.
    """
    order = [b for b in (backends or NATIVE[curve])]
    results: dict = {}
    for key in sorted(set(keys)):
        for b in order:
            if source.has(b, key):
                results.setdefault(b, {})[key] = _entry(source.entry(b, key))
                break
        else:
            proxy = "ristretto255/decode"
            if key == "ristretto255/encode" and "libsodium" in order and source.has("libsodium", proxy):
                results.setdefault("libsodium", {})[key] = _entry(
                    source.entry("libsodium", proxy),
                    "libsodium has no encode-only call: priced as its decode (one inverse square root each)")
                continue
            raise MissingPrice(f"{source.name}: no price for {key!r} in backend(s) {', '.join(order)}; "
                               f"measure it (costbook measure) or choose other backends")
    return MeasurementSet(name=source.name, kind=source.kind, provenance=source.provenance, results=results)


def _single(mset: MeasurementSet, key: str) -> tuple:
    """(seconds, backend, entry) of a key in a set that prices each key once."""
    for b in mset.backends:
        if mset.has(b, key):
            return mset.seconds(b, key), b, mset.entry(b, key)
    raise MissingPrice(f"{mset.name}: no price for {key!r}")


# ---------------------------------------------------------------------------
# Prices on the seed's machine

def kind_of(key: str) -> str:
    """The kind of operation a key is, for grouping: mul, mul_base, decode, encode, hash, ..."""
    op = key.split("/")[1]
    if key.startswith("hashset/"):
        return "lookup"
    for kind, names in (("mul", ("mul", "g1_mul", "g2_mul")), ("mul_base", ("mul_base",)),
                        ("decode", ("decode", "g1_decode", "g2_decode")),
                        ("encode", ("encode", "g1_encode", "g2_encode")),
                        ("hash", ("from_hash", "hash_to_g1", "hash_to_g2")),
                        ("inversion", ("scalar_inv",)), ("pairing", ("pairing",)), ("gt_exp", ("gt_exp",))):
        if op in names:
            return kind
    raise KeyError(f"no kind for {key!r}")


def anchor_for(key: str) -> str:
    """The stated price a key is scaled from on the seed's machine."""
    if key.startswith("hashset/lookup/"):
        return "hashset/lookup/1000000"
    if key.startswith("ristretto255/"):
        return "ristretto255/mul"
    if key.startswith("bls12_381/"):
        op = key.split("/", 1)[1]
        if "g2" in op:
            return "bls12_381/g2_mul"
        if op == "pairing" or "gt" in op:
            return "bls12_381/pairing"
        return "bls12_381/g1_mul"          # G1 operations and scalar-field arithmetic
    raise MissingPrice(f"no anchor on the seed's machine for {key!r}")


def anchors(curve: str) -> dict:
    """The stated prices (seconds, where) that apply to one curve."""
    pub = published_prices()
    out = {}
    for b in pub.backends:
        for k in pub.keys(b):
            if k.startswith("hashset/") or k.startswith(curve + "/"):
                out[k] = (pub.seconds(b, k), f"seed 000, line {pub.entry(b, k)['line']}")
    if curve == "bls12_381":
        for k, (us, where) in REPOSITORY_PRICES_US.items():
            out[k] = (us * 1e-6, f"PunchCard {where}")
    return out


SEED_BACKEND = "seed-laptop"


def seed_machine_prices(keys, curve: str, native: MeasurementSet, backends=None,
                        factors: dict | None = None) -> MeasurementSet:
    """Prices for the seed's laptop: stated where stated, else scaled from a native library.

    price(key) = stated(anchor) x native(key) / native(anchor), with the anchor of
    ``anchor_for`` and both native prices from the same backend; times factors[kind(key)]
    when `factors` (the implied corrections of ``implied_factors``) are given.  Returns an
    in-memory MeasurementSet with one backend, ``seed-laptop``; every entry says how it was
    obtained.
    """
    stated = anchors(curve)
    keys = sorted(set(keys))
    scaled = [k for k in keys if k not in stated]
    nat = native_prices(set(scaled) | {anchor_for(k) for k in scaled}, curve, native, backends)
    results = {}
    for key in keys:
        if key in stated:
            s, where = stated[key]
            results[key] = {"median": s * 1e6, "unit": "us", "note": f"stated: {where}"}
            continue
        anchor = anchor_for(key)
        t_key, b_key, e_key = _single(nat, key)
        if not nat.has(b_key, anchor):
            raise MissingPrice(f"{native.name}: {b_key} prices {key!r} but not its anchor {anchor!r}")
        ratio = t_key / nat.seconds(b_key, anchor)
        f = (factors or {}).get(kind_of(key), 1.0)
        note = f"{anchor} as stated x {b_key} ratio {ratio:.3g}"
        if f != 1.0:
            note += f" x implied factor {f:.3g} for {kind_of(key)}"
        if e_key.get("note", "").startswith("libsodium has no encode"):
            note += " (libsodium encode priced as its decode)"
        results[key] = {"median": stated[anchor][0] * ratio * f * 1e6, "unit": "us", "note": note}
    how = "stated prices, the rest scaled from " + native.name + (" with implied factors" if factors else "")
    return MeasurementSet(name=f"the seed's laptop ({how})", kind="published",
                          provenance={"seed": "000_f6c47c9ac3110709.txt", "derived_from": native.name},
                          results={SEED_BACKEND: results})


def implied_factors(curve: str, native: MeasurementSet, backends=None, punches: int = 10) -> dict:
    """What the seed's own step times imply about its unstated primitive prices.

    One multiplier per kind of unstated operation (e.g. all decodings), applied to its
    scaled price, fitted by non-negative least squares in relative terms to the six laptop
    steps.  Kinds too small to matter (hash-set lookups) keep factor 1.  Returns the
    factors, the fitted prices and the relative residual of every step.
    """
    import numpy as np
    from scipy.optimize import nnls

    counts = count_steps(curve, punches, 0)
    keys = {k for c in counts.values() for k in c}
    base = seed_machine_prices(keys, curve, native, backends)
    stated = anchors(curve)
    kinds = sorted({kind_of(k) for k in keys if k not in stated and kind_of(k) != "lookup"})
    measured = {s: t for s, (t, _) in seed_measured(curve).items()}
    A, b = [], []
    for s in STEPS:
        fixed = sum(n * base.seconds(SEED_BACKEND, k) for k, n in counts[s].items()
                    if k in stated or kind_of(k) == "lookup")
        row = [sum(n * base.seconds(SEED_BACKEND, k) for k, n in counts[s].items()
                   if k not in stated and kind_of(k) == kind) for kind in kinds]
        # relative residuals: every step weighs the same, whatever its length
        A.append([x / measured[s] for x in row])
        b.append((measured[s] - fixed) / measured[s])
    x, _ = nnls(np.array(A), np.array(b))
    factors = dict(zip(kinds, map(float, x)))
    fitted = seed_machine_prices(keys, curve, native, backends, factors)
    residuals = {s: measured[s] / price(counts[s], fitted, SEED_BACKEND).total - 1 for s in STEPS}
    return {"factors": factors, "prices": fitted, "residuals": residuals, "kinds": kinds}


# ---------------------------------------------------------------------------
# Estimates

MODELS = ("scaled", "implied")


def price_steps(counts: dict, mset: MeasurementSet, backends=None) -> dict:
    return {s: price(c, mset, backends, label=LABELS[s]) for s, c in counts.items()}


def priced_set(curve: str, source: MeasurementSet, keys, backends=None, model: str = "scaled",
               native: str = "book") -> MeasurementSet:
    """The prices an estimate uses: the seed's machine for a published source, else `source`."""
    if source.kind == "published":
        nat = load_source(native)
        factors = implied_factors(curve, nat, backends)["factors"] if model == "implied" else None
        return seed_machine_prices(keys, curve, nat, backends, factors)
    return native_prices(keys, curve, source, backends)


def estimate(source: MeasurementSet, backends=None, curve: str = "ristretto255", punches: int = 10,
             db_size: int = 0, redeem_check: str = "single", model: str = "scaled",
             native: str = "book", **_ignored) -> dict:
    """Per-step times of the punch cards priced with `source` (JSON-ready).

    A published `source` (the seed's prices) is completed to the seed's machine
    (``seed_machine_prices``; `model` "implied" adds the factors its steps imply), scaling
    the `native` file's ratios; a measured one is used with `backends` (default: the native
    libraries) as the preference list.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    counts = count_steps(curve, punches, db_size, redeem_check)
    keys = {k for c in counts.values() for k in c}
    prices = priced_set(curve, source, keys, backends, model, native)
    est = price_steps(counts, prices)
    card = per_redemption(counts, curve, punches)
    out = {
        "scheme": "punchcard", "curve": curve, "punches": punches, "db_size": db_size,
        "redeem_check": redeem_check if curve == "bls12_381" else None,
        "model": model if source.kind == "published" else None,
        "source": source.name, "priced_with": prices.name,
        "prices": {k: {"seconds": _single(prices, k)[0], "backend": _single(prices, k)[1],
                       **({"note": _single(prices, k)[2]["note"]} if "note" in _single(prices, k)[2] else {})}
                   for k in sorted(keys)},
        "steps": {s: {"seconds": est[s].total, "counts": dict(counts[s]),
                      "breakdown": est[s].to_dict()["breakdown"]} for s in STEPS},
        "per_redemption": {side: price(c, prices).total for side, c in card.items()},
        "message_bytes": message_sizes(curve, redeem_check),
    }
    if source.kind == "published" and (curve, redeem_check) != ("bls12_381", "two"):
        published = seed_measured(curve, db_size)
        if published and punches == 10:
            out["seed_measured"] = {s: {"seconds": t, "variant": v} for s, (t, v) in published.items()}
    return out


def seed_measured(curve: str, db_size: int = 0, machine: str = "laptop") -> dict:
    """The seed's measured per-step times for a machine/curve/database (empty if not published)."""
    steps = published_steps()
    for variant, (m, c, db) in VARIANTS.items():
        if (m, c, db) == (machine, curve, db_size) and variant in steps.backends:
            return {s: (steps.seconds(variant, step_key(curve, s)), variant) for s in STEPS}
    return {}


def format_estimate(result: dict) -> str:
    from ...report import Table, fmt_time
    head = (f"punch card on {result['curve']}, {result['punches']} punches, "
            f"database of {result['db_size']:,} spent cards"
            + (f", {result['redeem_check']}-pairing redemption check" if result.get("redeem_check") else "")
            + f"\npriced with: {result['priced_with']}")
    measured = result.get("seed_measured", {})
    cols = ["step", "predicted", "bytes sent"] + (["seed measured", "measured/predicted - 1"] if measured else [])
    t = Table(cols)
    for s in STEPS:
        p = result["steps"][s]["seconds"]
        row = [LABELS[s], fmt_time(p), result["message_bytes"][s]]
        if measured:
            m = measured[s]["seconds"]
            row += [fmt_time(m), f"{m / p - 1:+.1%}"]
        t.add(*row)
    pc = result["per_redemption"]
    tail = (f"one redemption of {result['punches']} punches, setup to redeem: client {fmt_time(pc['client'])}, "
            f"server {fmt_time(pc['server'])}")
    return "\n".join([head, t.to_text(), tail])


# ---------------------------------------------------------------------------
# Validation: the Sage code, timed step by step, against its counts priced in Sage

def sage_steps(curve: str = "ristretto255", punches: int = 10, db_size: int = 0,
               redeem_check: str = "single") -> dict:
    """Zero-argument callables, one per step, each doing exactly that step's work once."""
    rng = _rng(curve, punches, "validate")
    if curve == "ristretto255":
        G = curves.ristretto255()
        server = ristretto.Server(G, rng)
        server.preload(db_size)
        card = ristretto.Card(G, rng)
        C = card.first_message()
        for _ in range(punches - 1):
            new, proof = server.punch(C)
            C, _ = card.verify_remask(new, server.pk, proof)
        new, proof = server.punch(C)
        done = copy.copy(card)
        done.verify_remask(new, server.pk, proof)
        secret, U = copy.copy(done).unmask_redeem()

        def server_redeem():
            server.spent.discard(secret)
            assert server.redeem(U, secret, punches)

        return {
            "server_setup": lambda: ristretto.Server(G, rng),
            "client_setup": lambda: ristretto.Card(G, rng).first_message(),
            "server_punch": lambda: server.punch(C),
            "client_punch": lambda: copy.copy(card).verify_remask(new, server.pk, proof),
            "client_redeem": lambda: copy.copy(done).unmask_redeem(),
            "server_redeem": server_redeem,
        }
    E = curves.bls12_381()
    server = mergeable.Server(E, rng, redeem_check)
    server.preload(2 * db_size)
    a, b = mergeable.Card(E, rng), mergeable.Card(E, rng)
    mergeable.punch_card(server, a, punches // 2)
    mergeable.punch_card(server, b, punches // 2 - 1)
    C1, C2 = b.g1.encode(), b.g2.encode()
    n1, n2, p1, p2 = server.punch(C1, C2)
    b_done = _copy_card(b)
    b_done.verify_remask(n1, n2, server.pk1, server.pk2, p1, p2)
    sa, sb, merged = mergeable.merge(_copy_card(a), _copy_card(b_done), redeem_check)

    def server_redeem():
        server.spent.discard(sa)
        server.spent.discard(sb)
        assert server.redeem(sa, sb, merged, punches)

    return {
        "server_setup": lambda: mergeable.Server(E, rng, redeem_check),
        "client_setup": lambda: mergeable.Card(E, rng).first_message(),
        "server_punch": lambda: server.punch(C1, C2),
        "client_punch": lambda: _copy_card(b).verify_remask(n1, n2, server.pk1, server.pk2, p1, p2),
        "client_redeem": lambda: mergeable.merge(_copy_card(a), _copy_card(b_done), redeem_check),
        "server_redeem": server_redeem,
    }


def _copy_card(card: mergeable.Card) -> mergeable.Card:
    new = copy.copy(card)
    new.g1, new.g2 = copy.copy(card.g1), copy.copy(card.g2)
    return new


VALIDATION_BACKENDS = ("sage",)


def validate(curve: str = "ristretto255", punches: int = 10, db_size: int = 0,
             redeem_check: str = "single", profile=None, **_ignored) -> dict:
    """Time each step of the Sage code and compare it with its counts priced in Sage, now."""
    from ...validation import VALIDATION_PROFILE, validate_steps
    counts = count_steps(curve, punches, db_size, redeem_check)
    steps = sage_steps(curve, punches, db_size, redeem_check)
    checks = validate_steps(steps, counts, "sage", profile or VALIDATION_PROFILE)
    return {"scheme": "punchcard", "curve": curve, "punches": punches, "db_size": db_size,
            "redeem_check": redeem_check if curve == "bls12_381" else None, "backend": "sage",
            "steps": [c.to_dict() for c in checks],
            "worst_error": max(abs(c.error) for c in checks)}


def format_validation(result: dict) -> str:
    from ...report import Table, fmt_time
    t = Table(["step", "predicted", "measured (fastest sample)", "quartiles", "error"],
              caption=f"punch card on {result['curve']}, Sage code, predicted from counts x Sage prices "
                      f"measured in the same run")
    for c in result["steps"]:
        t.add(LABELS[c["step"]], fmt_time(c["predicted_s"]), fmt_time(c["measured_s"]),
              f"{fmt_time(c['measured_q1_s'])} – {fmt_time(c['measured_q3_s'])}", f"{c['error']:+.1%}")
    return t.to_text() + f"\nworst |error|: {result['worst_error']:.1%}"
