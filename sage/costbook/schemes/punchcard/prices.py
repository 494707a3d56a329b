"""The punch cards' price sets: this machine's native prices, and the seed's laptop.

* ``native_prices``: one price per key from a measured file, the native libraries first;
* ``seed_machine_prices``: the seed states only two primitive prices (an exponentiation, 50 µs,
  and a lookup, 0.25 µs) and the repository's ``data.txt`` three more for BLS12-381 (G1 and G2
  exponentiations, a pairing).  The laptop's other prices are scaled from a library's ratio to its
  anchor, e.g. ``decode = 50 µs x dalek(decode) / dalek(mul)``: consistent with the seed's machine on
  the anchors, and a prediction everywhere else.  The ratio is taken from the seed's own library where
  it can be: curve25519-dalek 2.0.0, timed by ``bench/curve25519-dalek`` (the committed
  ``measurements/seed-libraries`` file); pairing-plus 0.18.0 is counted instead, in its own field
  operations, where it decodes and hashes differently from the native libraries (see "What the seed's
  libraries do" below).  Neither reads the seed's step times.  With the implied factors of
  ``model.implied_factors`` the same set is the "implied" model.

Bounds.  A native price keeps its quartiles.  A stated price has the seed's range where it states
one ("usually between 50 and 55"), else none, and says so.  A scaled price scales the bounds of the
native price it is scaled from by the same factor, with the anchor's stated range:
low = stated_low(anchor) x native_q1(key) / native(anchor), high likewise with the highs; a
price counted in pairing-plus's operations has the anchor's bounds times its ratio; an
implied factor contributes its own bounds (``model.priced_set``: its spread over the leave-one-out
refits).
"""
from __future__ import annotations

from ...prices import defaults
from ...prices.cost import MissingPrice
from ...prices.derived import entry, price_set
from ...groups import orders
from ...prices.measurements import MeasurementSet
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


# ---------------------------------------------------------------------------
# What the seed's libraries do where the native libraries do it differently
#
# A native ratio stands for the seed's operation only when both libraries do the same work.  Three
# kinds of operation differ, read from the seed's pinned libraries (curve25519-dalek 2.0.0, pairing-plus
# 0.18.0, as PunchCard's Cargo.lock pins them):
#
# * pairing-plus decodes a point by decompressing it (a square root) and then checking the
#   subgroup by a full multiplication by the group order r (``in_subgroup``: ``mul(Fr::char())``);
#   the native decoders use an endomorphism check costing a fraction of that.
# * pairing-plus hashes to a curve by two simplified-SWU maps (each an exponentiation by an
#   addition chain, ``osswu_map/chain.rs``) and clears the cofactor by an addition chain: on G1
#   by h_eff = 1 - z (``chain_z``), on G2 by the 636-bit h2 * (3z^2 - 3) (``chain_h2_eff``,
#   "we *do not* use the endomorphism"); the native hashes clear G2's cofactor with the
#   endomorphism.
# * pairing-plus multiplies (the stated 250 and 800 µs) by plain double-and-add, so each of these
#   is priced as its own count of field multiplications over the multiplication's count, times
#   the stated multiplication: a ratio of the library to itself, no native library needed.
# * curve25519-dalek is not counted but measured: its own ratios (``backends.curve25519_dalek``)
#   price what it does (compress and decompress, a Montgomery addition chain for a scalar inversion,
#   a radix-16 basepoint table) where libsodium's would not: its multiplication takes and returns
#   encodings, and it inverts a scalar through a 512-bit product.

#: BLS12-381's base field prime p (also in groups.hash_to_curve, which needs Sage), and r, the
#: group order the subgroup check multiplies by
_P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
_R = orders.BLS12_381

#: field multiplications per F_p operation of each group: G1 works in F_p; G2 in F_p2, whose
#: product is 3 F_p products (Karatsuba) and whose square is 2 (a squaring counted as a product)
_FIELD = {"g1": {"M": 1, "S": 1}, "g2": {"M": 3, "S": 2}}

#: pairing-plus 0.18 source counts (commit 1fefa36): doublings and additions of the cofactor
#: chains (``bls12_381/cofactor.rs``), squarings and products of the SSWU exponentiation chains
#: (``osswu_map/chain.rs``: chain_pm3div4 on F_p, chain_p2m9div16 on F_p2)
_CHAIN_Z = {"dbl": 63, "add": 5}
CLEAR_H = {"g1": {"dbl": _CHAIN_Z["dbl"], "add": _CHAIN_Z["add"] + 1},
           "g2": {"dbl": 504 + 2 * _CHAIN_Z["dbl"], "add": 102 + 2 * _CHAIN_Z["add"]}}
SSWU_CHAIN = {"g1": {"S": 377, "M": 80}, "g2": {"S": 754, "M": 140}}


def _pow_cost(e: int) -> dict:
    """ff's Field::pow: square-and-multiply from the leading one bit."""
    return {"S": e.bit_length() - 1, "M": bin(e).count("1")}


def _group_op(group: str, op: str) -> int:
    """Field multiplications of one Jacobian operation (EFD formulas pairing-plus implements):
    dbl-2009-l 2M+5S, add-2007-bl 11M+5S, madd-2007-bl (affine addend) 7M+4S."""
    f = _FIELD[group]
    m, s = {"dbl": (2, 5), "add": (11, 5), "madd": (7, 4)}[op]
    return m * f["M"] + s * f["S"]


def _field_ops(group: str, counts: dict) -> int:
    f = _FIELD[group]
    return counts.get("S", 0) * f["S"] + counts.get("M", 0) * f["M"]


def pairing_plus_costs(group: str) -> dict:
    """{operation: field multiplications} of pairing-plus 0.18 on G1 or G2 ("g1"/"g2")."""
    dbl, add, madd = (_group_op(group, o) for o in ("dbl", "add", "madd"))
    bits = _R.bit_length() - 1
    # mul_assign on a random 255-bit scalar: a doubling per bit after the first, an addition per
    # further set bit (half of them)
    mul = bits * dbl + (bits // 2) * add
    # the subgroup check: an affine point times r, by the same double-and-add (mixed additions)
    subgroup = bits * dbl + (bin(_R).count("1") - 1) * madd
    # decompression's square root: y = a^((p-3)/4)-based; on F_p2 (Algorithm 9 of ePrint
    # 2012/685) a second exponentiation by (p-1)/2
    sqrt = _field_ops(group, _pow_cost((_P - 3) // 4))
    if group == "g2":
        sqrt += _field_ops(group, _pow_cost((_P - 1) // 2))
    # hash to curve: two SSWU maps, their sum, the cofactor chain (hash_to_field's SHA-256 and the
    # isogeny's few dozen products are left out)
    hash_ = 2 * _field_ops(group, SSWU_CHAIN[group]) + add + CLEAR_H[group]["dbl"] * dbl + CLEAR_H[group]["add"] * add
    return {"mul": mul, "subgroup_check": subgroup, "sqrt": sqrt, "decode": subgroup + sqrt, "hash": hash_}


#: the keys priced by what the seed's library does: key -> (group, operation of pairing_plus_costs)
PAIRING_PLUS_KEYS = {"bls12_381/g1_decode": ("g1", "decode"), "bls12_381/g2_decode": ("g2", "decode"),
                     "bls12_381/hash_to_g1": ("g1", "hash"), "bls12_381/hash_to_g2": ("g2", "hash")}

#: the seed's library measured, per curve: a loader of (its backend in the file, the committed file,
#: the library's name and version)
def _dalek():
    from ...timing.backends import curve25519_dalek
    return curve25519_dalek.BACKEND, curve25519_dalek.load_committed(), curve25519_dalek.LIBRARY


SEED_LIBRARY_MEASURED = {"ristretto255": _dalek}


def seed_library_of(curve: str) -> tuple:
    """(the keys priced by pairing-plus's counts, (backend, MeasurementSet) of the seed's library
    measured, or None) that apply to `curve`."""
    measured = SEED_LIBRARY_MEASURED.get(curve)
    return ({k for k in PAIRING_PLUS_KEYS if k.startswith(curve + "/")}, measured()[:2] if measured else None)


def seed_library_basis(key: str) -> str | None:
    """Which library behaviour a key's seed-laptop price stands for, if not the native library's."""
    if key in PAIRING_PLUS_KEYS:
        group, op = PAIRING_PLUS_KEYS[key]
        what = {"decode": "a square root, then a subgroup check multiplying by r",
                "hash": "2 SSWU maps, then the cofactor addition chain"}[op]
        return f"pairing-plus: {what}"
    if key.split("/")[0] in SEED_LIBRARY_MEASURED:
        _, mset, library = SEED_LIBRARY_MEASURED[key.split("/")[0]]()
        machine = mset.provenance.get("machine", {})
        return f"{library}, measured on a {machine.get('cores', '?')}-core {machine.get('cpu', 'machine')}"
    return None


SEED_BACKEND = "seed-laptop"
SEED_FILE = "000_f6c47c9ac3110709.txt"


def seed_machine_prices(keys, curve: str, native: MeasurementSet, backends=None,
                        factors: dict | None = None, factor_bounds: dict | None = None,
                        seed_library: bool = True) -> MeasurementSet:
    """Prices for the seed's laptop: stated where stated, else scaled from a native library.

    price(key) = stated(anchor) x native(key) / native(anchor), with the anchor of
    ``anchor_for`` and both prices from the same backend: by default (``seed_library``) the seed's
    own library where it was measured (``SEED_LIBRARY_MEASURED``: curve25519-dalek) or counted
    (``PAIRING_PLUS_KEYS``: pairing-plus's own operation counts), else a native library;
    `seed_library=False` gives the plain native ratios, for comparison.
    Times factors[kind(key)] when `factors` (the implied corrections of ``implied_factors``) are given.  Returns an
    in-memory MeasurementSet with one backend, ``seed-laptop``; every entry says how it was
    obtained.  Bounds as the module docstring says; `factor_bounds` ({kind: (low, high)}) are the
    implied factors' bounds (default: the factors themselves).
    """
    stated, ranges = anchors(curve), stated_bounds(curve)
    keys = sorted(set(keys))
    scaled = [k for k in keys if k not in stated]
    counted, measured = seed_library_of(curve) if seed_library else (set(), None)
    natives = {k for k in scaled if k not in counted}
    # keys the seed's library was measured for take its ratios; the rest a native library's
    from_library = {k for k in natives if measured is not None and measured[1].has(measured[0], k)}
    nat = native_prices(natives - from_library | {anchor_for(k) for k in natives - from_library}, curve,
                        native, backends)
    lib = (native_prices(from_library | {anchor_for(k) for k in from_library}, curve, measured[1], [measured[0]])
           if from_library else None)
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
        f = (factors or {}).get(kind_of(key), 1.0)
        f_low, f_high = (factor_bounds or {}).get(kind_of(key), (f, f))
        a_low, a_high = ranges.get(anchor, (stated[anchor][0],) * 2)
        if key in counted:
            # the library's own operation count over its multiplication's: no native spread
            group, op = PAIRING_PLUS_KEYS[key]
            costs = pairing_plus_costs(group)
            ratio = costs[op] / costs["mul"]
            basis = f"{anchor} as stated x {costs[op]} / {costs['mul']} field products ({seed_library_basis(key)})"
            if f != 1.0:
                basis += f" x implied factor {f:.3g} for {kind_of(key)}"
            results[key] = entry(stated[anchor][0] * ratio * f, basis,
                                 low=a_low * ratio * f_low, high=a_high * ratio * f_high)
            continue
        src = lib if key in from_library else nat
        t_key, b_key, e_key = _single(src, key)
        if not src.has(b_key, anchor):
            raise MissingPrice(f"{src.name}: {b_key} prices {key!r} but not its anchor {anchor!r}")
        t_anchor = src.seconds(b_key, anchor)
        ratio = t_key / t_anchor
        k_low, k_high = src.bounds(b_key, key)
        basis = f"{anchor} as stated x {b_key} ratio {ratio:.3g}"
        if key in from_library:
            basis += " (the seed's library, measured)"
        if f != 1.0:
            basis += f" x implied factor {f:.3g} for {kind_of(key)}"
        if e_key.get("note", "").startswith("libsodium has no encode"):
            basis += " (libsodium encode priced as its decode)"
        results[key] = entry(stated[anchor][0] * ratio * f, basis,
                             low=a_low * k_low / t_anchor * f_low, high=a_high * k_high / t_anchor * f_high)
    how = ("stated prices, the rest scaled from " + native.name + ("" if seed_library else " by native ratios only")
           + (" with implied factors" if factors else ""))
    return price_set(f"the seed's laptop ({how})", {SEED_BACKEND: results},
                     derivation="implied" if factors else "scaled", seed=SEED_FILE,
                     title="the seed's laptop: its stated prices, every other key scaled from a measured machine",
                     machine=published_prices().provenance["machine"],
                     method="price(key) = stated(anchor) x native(key) / native(anchor)"
                            + (", or the seed library's own operation count / its multiplication's"
                               if seed_library else "")
                            + (" x the implied factor of its kind" if factors else "")
                            + " (costbook.schemes.punchcard.model.seed_machine_prices)",
                     derived_from=[f"published/{PRICE_FILE}", native.name] + ([measured[1].name] if from_library else []))
