"""The punch cards in the comparison chapter: their rows (``rows``), their seed-machine prices
without a spread, the merge check and forgery, and the lookup against the scan; ``EXPORTS`` are
also reachable as ``costbook.views.compare.<name>``."""
from __future__ import annotations

from costbook.prices import measurements
from costbook.writing.report import fmt_printed
from costbook.views.compare import (PREDICTED, OperationCost, bounds, first_crossing, published_source, shares,
    backends_of)
from costbook.schemes import get

NAME = "punchcard"
PUNCHES = 10                # the punch-card seed's benchmark

EXPORTS = ("PUNCHES", "merge_check", "merge_forgery", "lookup_against_scan")


def rows(reference) -> list:
    model = get(NAME)
    pub_src = published_source(NAME)
    out = []
    for curve in ("ristretto255", "bls12_381"):
        ref = model.estimate(reference, curve=curve, punches=PUNCHES)
        pub = model.estimate(pub_src, curve=curve, punches=PUNCHES)
        measured = model.seed_measured(curve)
        for step, what in (("server_punch", "punch, shop's side"), ("client_punch", "punch, client's side"),
                           ("server_redeem", "redeem, shop's side")):
            r, p = ref["steps"][step]["breakdown"], pub["steps"][step]["breakdown"]
            # the seed's code, and so its measurement, redeems a merged card with the one-pairing check
            check = " (one-pairing check)" if (curve, step) == ("bls12_381", "server_redeem") else ""
            out.append(OperationCost(NAME, f"{what}, {curve}{check}", f"{PUNCHES} punches", ref["steps"][step]["seconds"], shares(r),
                                     backends_of(r), pub["steps"][step]["seconds"], PREDICTED, shares(p),
                                     "the seed's laptop", measured[step][0] if step in measured else None,
                                     **bounds("reference", ref["steps"][step]), **bounds("seed", pub["steps"][step]),
                                     printed=model.seed_printed(curve, step),
                                     options={"curve": curve, "punches": PUNCHES}))
    return out


def prices_without_spread() -> dict:
    """{key: why} of the seed-machine prices the rows use that have no stated spread."""
    out = {}
    for curve in ("ristretto255", "bls12_381"):
        out.update(get(NAME).estimate(published_source(NAME), curve=curve, punches=PUNCHES)["prices_without_spread"])
    return out


def merge_check(reference: measurements.MeasurementSet | None = None) -> list:
    """The mergeable punch card's redemption with one pairing (the seed's code) and with two (the
    check that stops the mix-and-match forgery): pairings and seconds per side, on both machines,
    each with its interval ("<src>_<side>_low_s", "..._high_s")."""
    reference = reference or measurements.load_source("reference")
    model = get(NAME)
    pub = published_source(NAME)
    out = []
    for check in ("single", "two"):
        counts = model.count_steps("bls12_381", PUNCHES, 0, check)
        row = {"check": check,
               "client_pairings": counts["client_redeem"].get("bls12_381/pairing", 0),
               "server_pairings": counts["server_redeem"].get("bls12_381/pairing", 0)}
        for src, s in (("reference", reference), ("seed", pub)):
            e = model.estimate(s, curve="bls12_381", punches=PUNCHES, redeem_check=check)
            for side in ("client", "server"):
                step = e["steps"][f"{side}_redeem"]
                row[f"{src}_{side}_s"] = step["seconds"]
                row.update(bounds(f"{src}_{side}", step))
        out.append(row)
    return out


def merge_forgery(punches: int = PUNCHES, seed: str = "costbook comparison") -> list:
    """The mix-and-match forgery run against both redemption checks: (check, punches performed,
    punches claimed, accepted)."""
    import random
    from . import curves, mergeable
    rng = random.Random(seed)
    E = curves.bls12_381()
    out = []
    for check in mergeable.REDEEM_CHECKS:
        f = mergeable.mix_and_match(mergeable.Server(E, rng, check), punches, rng)
        out.append((check, f.server_punches, f.claimed, f.accepted))
    return out


def lookup_against_scan(reference: measurements.MeasurementSet | None = None, set_size: int = 10**6,
                        punches: int = PUNCHES) -> dict:
    """The punch cards' "8 orders of magnitude": one hash-set lookup against one exponentiation per
    spent card (``punchcard.seed.Speedup``), with the seed's stated prices ("seed") and with the
    measured set `reference` ("reference"; default: the committed reference file), and the smallest
    set at which the scan costs more than the whole redemption.  Chapter 2's two tables and the
    comparison chapter's both read it."""
    reference = reference or measurements.load_source("reference")
    from . import seed
    model = get(NAME)
    stated = seed.published_prices()
    lookup_key = f"hashset/lookup/{set_size}"
    laptop_redeem = ("laptop-ristretto255", seed.step_key("ristretto255", "server_redeem"))
    steps = seed.published_steps()
    laptop = steps.seconds(*laptop_redeem)
    redeem = model.estimate(reference, curve="ristretto255", punches=punches)["steps"]["server_redeem"]
    out = {}
    for name, mul_s, lookup_s, redeem_s in (
            ("seed", stated.seconds("curve25519-dalek", "ristretto255/mul"),
             stated.seconds("rust-hashset", lookup_key), laptop),
            ("reference", reference.seconds("libsodium", "ristretto255/mul"),
             reference.seconds("python", lookup_key), redeem["seconds"])):
        sp = seed.Speedup(set_size, mul_s, lookup_s, redeem_s)
        scan = lambda n: seed.Speedup(n, mul_s, lookup_s, redeem_s).scan_s
        out[name] = {"set_size": set_size, "mul_s": mul_s, "lookup_s": lookup_s, "redeem_s": redeem_s,
                     "scan_s": sp.scan_s, "check_speedup": sp.check_speedup, "orders": sp.orders,
                     "redeem_speedup": sp.redeem_speedup, "redeem_orders": sp.redeem_orders,
                     "scan_exceeds_redeem_n": first_crossing(scan, lambda n: redeem_s, 1, set_size)}
    # the note's three figures as it prints them (the lookup is a range, priced at its midpoint)
    out["seed"]["mul_printed"] = fmt_printed(stated.entry("curve25519-dalek", "ristretto255/mul"))
    out["seed"]["lookup_printed"] = fmt_printed(stated.entry("rust-hashset", lookup_key))
    out["seed"]["redeem_printed"] = fmt_printed(steps.entry(*laptop_redeem))
    # the measured side's redemption as estimated: its interval too
    out["reference"]["redeem"] = redeem
    return out
