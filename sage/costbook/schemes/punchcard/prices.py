"""The punch cards' price sets: this machine's native prices, and the seed's laptop.

* ``native_prices``: one price per key from a measured file, the native libraries first;
* ``seed_machine_prices``: the seed states only two primitive prices (an exponentiation, 50 µs,
  and a lookup, 0.25 µs) and the repository's ``data.txt`` three more for BLS12-381 (G1 and G2
  exponentiations, a pairing).  The laptop's other prices are scaled from a native library's
  ratio to its anchor, e.g. ``decode = 50 µs x libsodium(decode) / libsodium(mul)``: consistent
  with the seed's machine on the anchors, and a prediction everywhere else.  With the implied
  factors of ``model.implied_factors`` the same set is the "implied" model.

Bounds.  A native price keeps its quartiles.  A stated price has the seed's range where it states
one ("usually between 50 and 55"), else none, and says so.  A scaled price scales the bounds of the
native price it is scaled from by the same factor, with the anchor's stated range:
low = stated_low(anchor) x native_q1(key) / native(anchor), high likewise with the highs; an
implied factor contributes its own bounds (``model.priced_set``: its spread over the leave-one-out
refits).
"""
from __future__ import annotations

from ... import defaults
from ...cost import MissingPrice
from ...derived import entry, price_set
from ...measurements import MeasurementSet
from .seed import CURVES, PRICE_FILE, REPOSITORY_PRICES_US, published_prices

#: which native backends price which curve by default (then CPython's set for the lookups);
#: no Sage fallback: an estimate of this machine prices native libraries only (validation uses Sage)
NATIVE = {curve: defaults.order([curve, "hashset"], fallback=False) for curve in CURVES}


# ---------------------------------------------------------------------------
# Prices on this machine: a measured file, native libraries first

def _entry(e: dict, note: str | None = None) -> dict:
    """The price, unit and bounds (quartiles or stated range) of an entry, with a note."""
    out = {"median": e["median"], "unit": e["unit"]}
    out.update({k: e[k] for k in ("q1", "q3", "low", "high") if k in e})
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


def stated_bounds(curve: str) -> dict:
    """{key: (low, high) seconds} of the stated prices of one curve whose statement gives a range."""
    pub = published_prices()
    return {k: pub.bounds(b, k) for b in pub.backends for k in pub.keys(b)
            if (k.startswith("hashset/") or k.startswith(curve + "/")) and "low" in pub.entry(b, k)}


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
SEED_FILE = "000_f6c47c9ac3110709.txt"


def seed_machine_prices(keys, curve: str, native: MeasurementSet, backends=None,
                        factors: dict | None = None, factor_bounds: dict | None = None) -> MeasurementSet:
    """Prices for the seed's laptop: stated where stated, else scaled from a native library.

    price(key) = stated(anchor) x native(key) / native(anchor), with the anchor of
    ``anchor_for`` and both native prices from the same backend; times factors[kind(key)]
    when `factors` (the implied corrections of ``implied_factors``) are given.  Returns an
    in-memory MeasurementSet with one backend, ``seed-laptop``; every entry says how it was
    obtained.  Bounds as the module docstring says; `factor_bounds` ({kind: (low, high)}) are the
    implied factors' bounds (default: the factors themselves).
    """
    stated, ranges = anchors(curve), stated_bounds(curve)
    keys = sorted(set(keys))
    scaled = [k for k in keys if k not in stated]
    nat = native_prices(set(scaled) | {anchor_for(k) for k in scaled}, curve, native, backends)
    results = {}
    for key in keys:
        if key in stated:
            s, where = stated[key]
            if key in ranges:
                results[key] = entry(s, f"stated: {where}", low=ranges[key][0], high=ranges[key][1])
            else:
                results[key] = entry(s, f"stated: {where}", no_spread=f"{where} states one number, no range")
            continue
        anchor = anchor_for(key)
        t_key, b_key, e_key = _single(nat, key)
        if not nat.has(b_key, anchor):
            raise MissingPrice(f"{native.name}: {b_key} prices {key!r} but not its anchor {anchor!r}")
        t_anchor = nat.seconds(b_key, anchor)
        ratio = t_key / t_anchor
        f = (factors or {}).get(kind_of(key), 1.0)
        f_low, f_high = (factor_bounds or {}).get(kind_of(key), (f, f))
        a_low, a_high = ranges.get(anchor, (stated[anchor][0],) * 2)
        k_low, k_high = nat.bounds(b_key, key)
        basis = f"{anchor} as stated x {b_key} ratio {ratio:.3g}"
        if f != 1.0:
            basis += f" x implied factor {f:.3g} for {kind_of(key)}"
        if e_key.get("note", "").startswith("libsodium has no encode"):
            basis += " (libsodium encode priced as its decode)"
        results[key] = entry(stated[anchor][0] * ratio * f, basis,
                             low=a_low * k_low / t_anchor * f_low, high=a_high * k_high / t_anchor * f_high)
    how = "stated prices, the rest scaled from " + native.name + (" with implied factors" if factors else "")
    return price_set(f"the seed's laptop ({how})", {SEED_BACKEND: results},
                     derivation="implied" if factors else "scaled", seed=SEED_FILE,
                     title="the seed's laptop: its stated prices, every other key scaled from a measured machine",
                     machine=published_prices().provenance["machine"],
                     method="price(key) = stated(anchor) x native(key) / native(anchor)"
                            + (" x the implied factor of its kind" if factors else "")
                            + " (costbook.schemes.punchcard.model.seed_machine_prices)",
                     derived_from=[f"published/{PRICE_FILE}", native.name])
