"""The schemes side by side: what each costs per operation, what dominates it, what the errata
change, and where one design overtakes another.

Every number here comes from the registered models (``costbook.schemes.REGISTRY``), called
through their public functions with the same measurement files the chapters and the CLI use:
the reference file for this book's machine, each scheme's published file for its seed's machine.
The functions return plain data (dataclasses, dicts, floats); the closing chapter formats them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from . import measurements
from .schemes import REGISTRY, get

#: each scheme's name for a reader and its chapter, in the book's order
CHAPTERS = {
    "punchcard": ("punch cards", "sec-punch-cards"),
    "veccom": ("vector commitments", "sec-vector-commitments"),
    "cs03": ("CS03 verifiable encryption", "sec-cs03"),
    "mixnet": ("traceable mixnet", "sec-mixnets"),
}

#: the operations compared, per scheme, at one size each
VECCOM_N = 1000             # the vector length of the seed's Merkle benchmark and of its "270n"
PUNCHES = 10                # the punch-card seed's benchmark
CS03_PARAMS = "conservative"

#: the labels of what a seed-machine number is (the ledger's vocabulary)
PREDICTED = "predicted"
FITTED = "fitted in-sample"
LEAVE_ONE_OUT = "leave-one-out"
COMPUTED = "computed"
AS_PRINTED = "as printed"

#: veccom: the seed's Mac's prices are solved from these three benchmarks
#: (``veccom.model.seed_machine_prices``), so pricing them again is a fit, not a prediction
VECCOM_FITTED_OPS = frozenset({"pointproofs/commit", "pointproofs/verify", "merkle/commit"})


# ---------------------------------------------------------------------------
# Shares of the total per primitive key

@dataclass(frozen=True)
class Share:
    key: str
    seconds: float
    share: float


def shares(breakdown: Sequence[dict]) -> tuple:
    """Per primitive key, its seconds and share of the total, largest first, from priced
    breakdown lines ({"key", "seconds", ...}); the same key in several lines is summed."""
    by_key: dict = {}
    for line in breakdown:
        by_key[line["key"]] = by_key.get(line["key"], 0.0) + line["seconds"]
    total = sum(by_key.values())
    if total <= 0:
        raise ValueError("a breakdown with no cost has no shares")
    return tuple(Share(k, s, s / total) for k, s in sorted(by_key.items(), key=lambda kv: (-kv[1], kv[0])))


def _lines(estimate) -> list:
    """The breakdown lines of a costbook.cost.Estimate, as dicts."""
    return estimate.to_dict()["breakdown"]


# ---------------------------------------------------------------------------
# One row per (scheme, operation)

@dataclass(frozen=True)
class OperationCost:
    scheme: str                   # registry name
    operation: str                # what is done, in words
    size: str                     # at which size (the seed's benchmark)
    reference_s: float            # priced with the reference file (native backends)
    reference_shares: tuple       # Share, largest first
    reference_backends: tuple     # which backends priced it
    seed_s: float                 # on the seed's machine (see seed_kind)
    seed_kind: str                # PREDICTED, FITTED or LEAVE_ONE_OUT
    seed_shares: tuple            # Share on the seed's machine (for mixnet: of the in-sample fit)
    seed_machine: str
    printed_s: float | None = None    # the seed's own measurement of the same operation, if it has one
    # the intervals (every price at its low, then at its high bound; the mixnet's leave-one-out sums
    # take the calibrated prices' bounds over the refits); the seed's is None where the figure has none
    reference_low_s: float | None = None
    reference_high_s: float | None = None
    seed_low_s: float | None = None
    seed_high_s: float | None = None

    @property
    def dominant(self) -> Share:
        return self.reference_shares[0]

    @property
    def seed_dominant(self) -> Share:
        return self.seed_shares[0]


def _bounds(prefix: str, *intervals) -> dict:
    """{prefix_low_s, prefix_high_s}: the sums of the low and high bounds of some estimate dicts
    ({"low_s", "high_s"}), the bounds of their total."""
    return {f"{prefix}_low_s": sum(i["low_s"] for i in intervals),
            f"{prefix}_high_s": sum(i["high_s"] for i in intervals)}


def _backends(breakdown) -> tuple:
    return tuple(dict.fromkeys(line["backend"] for line in breakdown))


def published_source(scheme: str) -> measurements.MeasurementSet:
    """The scheme's published measurement file: what `--source published` means for it."""
    return measurements.load_source(f"published/{get(scheme).PUBLISHED}")


def _cs03_rows(reference) -> list:
    model = get("cs03")
    ref = model.estimate(reference, params=CS03_PARAMS, model="spec")
    pub = model.estimate(published_source("cs03"), params=CS03_PARAMS, model="spec")
    size = f"|n| = {ref['n_bits']}"
    rows = []
    for what, steps in (("encrypt + prove (P)", ("encrypt", "prove")), ("verify (V)", ("verify",)),
                        ("decrypt", ("decrypt",))):
        r = [line for s in steps for line in ref["steps"][s]["breakdown"]]
        p = [line for s in steps for line in pub["steps"][s]["breakdown"]]
        rows.append(OperationCost("cs03", what, size, sum(ref["ms"][s] for s in steps) / 1e3, shares(r), _backends(r),
                                  sum(pub["ms"][s] for s in steps) / 1e3, PREDICTED, shares(p),
                                  "crypto-bigint prices of the seed",
                                  **_bounds("reference", *(ref["steps"][s] for s in steps)),
                                  **_bounds("seed", *(pub["steps"][s] for s in steps))))
    return rows


def _punchcard_rows(reference) -> list:
    model = get("punchcard")
    pub_src = published_source("punchcard")
    rows = []
    for curve in ("ristretto255", "bls12_381"):
        ref = model.estimate(reference, curve=curve, punches=PUNCHES)
        pub = model.estimate(pub_src, curve=curve, punches=PUNCHES)
        measured = model.seed_measured(curve)
        for step, what in (("server_punch", "punch, shop's side"), ("client_punch", "punch, client's side"),
                           ("server_redeem", "redeem, shop's side")):
            r, p = ref["steps"][step]["breakdown"], pub["steps"][step]["breakdown"]
            # the seed's code, and so its measurement, redeems a merged card with the one-pairing check
            check = " (one-pairing check)" if (curve, step) == ("bls12_381", "server_redeem") else ""
            rows.append(OperationCost("punchcard", f"{what}, {curve}{check}", f"{PUNCHES} punches", ref["steps"][step]["seconds"], shares(r),
                                      _backends(r), pub["steps"][step]["seconds"], PREDICTED, shares(p),
                                      "the seed's laptop", measured[step][0] if step in measured else None,
                                      **_bounds("reference", ref["steps"][step]), **_bounds("seed", pub["steps"][step])))
    return rows


def _veccom_rows(reference) -> list:
    model = get("veccom")
    ref = model.estimate(reference, n=VECCOM_N)
    pub = model.estimate(published_source("veccom"), n=VECCOM_N)
    rows = []
    for op in ("pointproofs/commit", "pointproofs/prove", "pointproofs/verify", "merkle/commit", "merkle/verify"):
        r, p = ref["ops"][op]["breakdown"], pub["ops"][op]["breakdown"]
        scheme, what = op.split("/")
        bench_s, bench_n = model.bench(scheme, what)
        rows.append(OperationCost("veccom", f"{scheme.capitalize()} {what}", f"n = {VECCOM_N:,}", ref["ops"][op]["seconds"],
                                  shares(r), _backends(r), pub["ops"][op]["seconds"],
                                  FITTED if op in VECCOM_FITTED_OPS else PREDICTED, shares(p), "the seed's Mac",
                                  bench_s if bench_n == VECCOM_N else None,
                                  **_bounds("reference", ref["ops"][op]), **_bounds("seed", pub["ops"][op])))
    return rows


def mixnet_leave_one_out_totals(cal=None) -> dict:
    """{(section, party): artifact.LooTotal}: each report total as the sum of its lines' leave-one-out
    predictions, with its interval (the artifact model's own `loo_totals`, keyed the way the rows are)."""
    from .schemes.mixnet import artifact
    by_label = {t.label: t for t in artifact.loo_totals(cal)}
    return {sp: by_label[label] for sp, label in artifact.TOTALS.items()}


def _mixnet_rows(reference) -> list:
    from .schemes.mixnet import artifact
    model = get("mixnet")
    cal = artifact.calibrate()
    loo = mixnet_leave_one_out_totals(cal)
    fitted = artifact.party_times(cal.source)
    printed = {label: pub_s for label, pub_s, _line, _mod in artifact.reproduce(cal)}
    rows = []
    for r in artifact.this_machine(reference):
        sp = (r["section"], r["party"])
        lines = _lines(r["estimate"])
        rows.append(OperationCost("mixnet", r["label"], f"n = {model.N_SEED:,}, m = {model.M_SEED}", r["bn254_s"],
                                  shares(lines), _backends(lines), loo[sp].loo_s, LEAVE_ONE_OUT, shares(_lines(fitted[sp])),
                                  "the artifact's Xeon W-1270", printed[r["label"]],
                                  reference_low_s=r["bn254_low_s"], reference_high_s=r["bn254_high_s"],
                                  seed_low_s=loo[sp].low_s, seed_high_s=loo[sp].high_s))
    return rows


ROWS = {"cs03": _cs03_rows, "punchcard": _punchcard_rows, "veccom": _veccom_rows, "mixnet": _mixnet_rows}


def operation_costs(reference: measurements.MeasurementSet | None = None) -> list:
    """OperationCost rows for every registered scheme, priced with `reference` (default: the
    committed reference file) and on the seed's machine."""
    reference = reference or measurements.load_source("reference")
    missing = sorted(set(REGISTRY) - (set(ROWS) & set(CHAPTERS)))
    if missing:
        raise KeyError(f"no comparison rows for registered scheme(s) {', '.join(missing)}: add them to compare.ROWS")
    return [row for scheme in CHAPTERS for row in ROWS[scheme](reference)]


def seed_prices_without_spread() -> dict:
    """{scheme: {key: why}}: the prices on the seed's machine, among those the rows of
    ``operation_costs`` use, that have no stated spread (they enter both bounds at their value).
    The mixnet is absent: its seed-machine prices are calibrated, each with its spread over the refits."""
    out = {"punchcard": {}}
    for curve in ("ristretto255", "bls12_381"):
        out["punchcard"].update(get("punchcard").estimate(published_source("punchcard"), curve=curve,
                                                          punches=PUNCHES)["prices_without_spread"])
    out["veccom"] = get("veccom").estimate(published_source("veccom"), n=VECCOM_N)["prices_without_spread"]
    out["cs03"] = get("cs03").estimate(published_source("cs03"), params=CS03_PARAMS, model="spec")["prices_without_spread"]
    return {scheme: dict(sorted(keys.items())) for scheme, keys in out.items() if keys}


# ---------------------------------------------------------------------------
# Errata

def cs03_errata(reference: measurements.MeasurementSet | None = None) -> list:
    """Per parameter set and quantity (P, V, decrypt): the seed's counts and the scheme's counts,
    both priced with the seed's crypto-bigint prices and with the reference file (seconds), each with
    its interval ("<src>_<model>_low_s", "..._high_s")."""
    reference = reference or measurements.load_source("reference")
    model = get("cs03")
    pub = published_source("cs03")
    rows = []
    for params in model.PARAMETER_SETS:
        est = {(src, mdl): model.estimate(s, params=params, model=mdl)
               for src, s in (("seed", pub), ("reference", reference)) for mdl in ("seed", "spec")}
        for q, steps in (("P = encrypt + prove", ("encrypt", "prove")), ("V = verify", ("verify",)),
                         ("decrypt", ("decrypt",))):
            row = {"params": params, "n_bits": est[("seed", "seed")]["n_bits"], "quantity": q}
            for (src, mdl), e in est.items():
                row[f"{src}_{mdl}_s"] = sum(e["ms"][s] for s in steps) / 1e3
                for bound, b in _bounds(f"{src}_{mdl}", *(e["steps"][s] for s in steps)).items():
                    row[bound] = b
            rows.append(row)
    return rows


def merge_check(reference: measurements.MeasurementSet | None = None) -> list:
    """The mergeable punch card's redemption with one pairing (the seed's code) and with two (the
    check that stops the mix-and-match forgery): pairings and seconds per side, on both machines,
    each with its interval ("<src>_<side>_low_s", "..._high_s")."""
    reference = reference or measurements.load_source("reference")
    model = get("punchcard")
    pub = published_source("punchcard")
    rows = []
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
                row.update(_bounds(f"{src}_{side}", step))
        rows.append(row)
    return rows


def merge_forgery(punches: int = PUNCHES, seed: str = "costbook comparison") -> list:
    """The mix-and-match forgery run against both redemption checks: (check, punches performed,
    punches claimed, accepted)."""
    import random
    from .schemes.punchcard import curves, mergeable
    rng = random.Random(seed)
    E = curves.bls12_381()
    out = []
    for check in mergeable.REDEEM_CHECKS:
        f = mergeable.mix_and_match(mergeable.Server(E, rng, check), punches, rng)
        out.append((check, f.server_punches, f.claimed, f.accepted))
    return out


# ---------------------------------------------------------------------------
# Crossovers

def first_crossing(f: Callable[[int], float], g: Callable[[int], float], lo: int, hi: int) -> int | None:
    """The smallest integer x in [lo, hi] with f(x) > g(x), by bisection; None if f(hi) <= g(hi).

    Assumes one crossing (f - g changes sign at most once, from <= 0 to > 0), which holds for the
    monotone cost curves compared here; the tests check the answer against both neighbours."""
    if lo > hi:
        raise ValueError(f"empty range [{lo}, {hi}]")
    if f(lo) > g(lo):
        return lo
    if f(hi) <= g(hi):
        return None
    while hi - lo > 1:                  # invariant: f(lo) <= g(lo), f(hi) > g(hi)
        mid = (lo + hi) // 2
        if f(mid) > g(mid):
            hi = mid
        else:
            lo = mid
    return hi


def veccom_crossovers(reference: measurements.MeasurementSet | None = None) -> dict:
    """Merkle against Pointproofs in n: the first n where a Merkle proof is larger; the verify
    times at both ends of the model's range of n (and the first n where Merkle's is larger, if any)."""
    reference = reference or measurements.load_source("reference")
    model = get("veccom")
    lo, hi = model.OPTIONS["n"][1].low, model.OPTIONS["n"][1].high
    size = lambda scheme: (lambda n: model.sizes(n)[scheme]["proof"])

    def verify(scheme, source):
        return lambda n: model.estimate(source, n=n)["ops"][f"{scheme}/verify"]["seconds"]

    out = {"n_low": lo, "n_high": hi,
           "proof_size_n": first_crossing(size("merkle"), size("pointproofs"), lo, hi),
           "proof_bytes": {n: {s: model.sizes(n)[s]["proof"] for s in ("merkle", "pointproofs")} for n in (lo, hi)}}
    for name, src in (("reference", reference), ("seed", published_source("veccom"))):
        out[f"{name}_verify_s"] = {n: {s: verify(s, src)(n) for s in ("merkle", "pointproofs")} for n in (lo, hi)}
        out[f"{name}_verify_n"] = first_crossing(verify("merkle", src), verify("pointproofs", src), lo, hi)
    return out


def lookup_against_scan(reference: measurements.MeasurementSet | None = None, set_size: int = 10**6) -> dict:
    """The punch cards' "8 orders of magnitude": one hash-set lookup against one exponentiation per
    spent card (``punchcard.seed.Speedup``), with the seed's stated prices and the reference
    machine's, and the smallest set at which the scan costs more than the whole redemption."""
    reference = reference or measurements.load_source("reference")
    from .schemes.punchcard import seed
    model = get("punchcard")
    stated = seed.published_prices()
    lookup_key = f"hashset/lookup/{set_size}"
    laptop = seed.published_steps().seconds("laptop-ristretto255", seed.step_key("ristretto255", "server_redeem"))
    here = model.estimate(reference, curve="ristretto255", punches=PUNCHES)["steps"]["server_redeem"]["seconds"]
    out = {}
    for name, mul_s, lookup_s, redeem_s in (
            ("seed", stated.seconds("curve25519-dalek", "ristretto255/mul"),
             stated.seconds("rust-hashset", lookup_key), laptop),
            ("reference", reference.seconds("libsodium", "ristretto255/mul"),
             reference.seconds("python", lookup_key), here)):
        sp = seed.Speedup(set_size, mul_s, lookup_s, redeem_s)
        scan = lambda n: seed.Speedup(n, mul_s, lookup_s, redeem_s).scan_s
        out[name] = {"set_size": set_size, "mul_s": mul_s, "lookup_s": lookup_s, "redeem_s": redeem_s,
                     "scan_s": sp.scan_s, "check_speedup": sp.check_speedup, "orders": sp.orders,
                     "redeem_speedup": sp.redeem_speedup, "redeem_orders": sp.redeem_orders,
                     "scan_exceeds_redeem_n": first_crossing(scan, lambda n: redeem_s, 1, set_size)}
    return out


#: how far the mixnet's m is followed beyond the model's bound to find where the baselines win
M_EXTRAPOLATE = 4096


def mixnet_sweep(ns=(10**4,), ms=(4,), security: str = "malicious", cal=None) -> list:
    """``artifact.whatif`` rows (per-mix-server seconds and speedups over the baselines) on the
    artifact's machine with its inferred prices."""
    from .schemes.mixnet import artifact
    return artifact.whatif(cal or artifact.calibrate(loo=False), ns=tuple(ns), ms=tuple(ms), security=security)


MIXNET_COMPARISONS = {"dbsm_vs_zksnark": ("DB-SM", "collaborative zkSNARK"),
                      "dbrsm_vs_zksnark": ("DB-RSM", "collaborative zkSNARK"),
                      "dbsm_vs_cpsnark": ("DB-SM", "cpSNARK-Set")}


def mixnet_crossovers(security: str = "malicious") -> dict:
    """Per comparison: the smallest m (at the seed's n) and the smallest n (at the seed's m) at which
    the baseline is faster than one mix-server of the traceable mixnet, or None.  m is followed up
    to M_EXTRAPOLATE (beyond the model's bound, which the result names); n within the model's range."""
    from .schemes.mixnet import artifact
    model = get("mixnet")
    cal = artifact.calibrate(loo=False)
    m_bound, n_bound = model.OPTIONS["m"][1], model.OPTIONS["n"][1]
    speed = lambda key, n, m: mixnet_sweep((n,), (m,), security, cal)[0][key]
    out = {"m_bound": m_bound.high, "n_low": n_bound.low, "n_high": n_bound.high, "m_extrapolate": M_EXTRAPOLATE}
    for key in MIXNET_COMPARISONS:
        # the baseline wins where the speedup drops below 1, i.e. where 1 > speedup
        out[key] = {
            "m": first_crossing(lambda m: 1.0, lambda m: speed(key, model.N_SEED, m), m_bound.low, M_EXTRAPOLATE),
            "n": first_crossing(lambda n: 1.0, lambda n: speed(key, n, model.M_SEED), n_bound.low, n_bound.high),
            "at_seed": speed(key, model.N_SEED, model.M_SEED),
            "n_range": (speed(key, n_bound.low, model.M_SEED), speed(key, n_bound.high, model.M_SEED)),
        }
    return out

