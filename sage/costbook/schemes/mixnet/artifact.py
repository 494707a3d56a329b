r"""The artifact's code as a cost model: every timed step of the sample report, counted and priced.

The seed's mixnet timings come from the artifact's Python code (Charm on PBC for BN254, gmpy2
for Paillier) run on an Intel Xeon W-1270.  ``steps`` lists, for every timed line of its sample
report, the operations that line's code performs per item and once, read off the code (research
notes §4.1-4.4, re-checked against the repository), in the book's primitive keys (the table in
``symbol_counts``): the scheme's cost formula, so both live in counts.py.  Hashes are left out as
negligible, but for the Paillier shuffle proof's challenge, whose input the artifact builds in
quadratic time (``shuffle_hash_copies``).

**Calibration.**  Nobody published the Xeon's primitive prices, so ``calibrate`` infers them from
the report's step lines by non-negative least squares, refits without each line in turn to
predict it out of sample, and takes each price's bounds from the refits' spread.

With the calibrated prices the module reproduces the report's totals (``reproduce``,
``loo_totals``, ``report_subtotals``), prices other sizes and the baselines' speedups
(``whatif``), prices the same operations on this machine and on BLS12-381 (``this_machine``,
``curve_switch_on_artifact``), and compares the Sage code's counts with the artifact's
(``crosscheck``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from ...prices import defaults
from ...prices.cost import Counts, price
from ...prices.keys import sizes
from ...prices.derived import loo_pivot, nnls_relative, price_set, spread_of
from ...prices.timed import named, timed
from .seed import (M_SEED, N_SEED, PUBLISHED, collab_zksnark_s, cpsnark_set_s, published_sources,
    published_times)
from .counts import (CIPHERTEXT_BYTES, COPY_KEY, ENC_PRODUCTS, KAPPA, N2_BITS, N_BITS, NS_BITS,  # noqa: F401
    PROOF_ONLY, R_BITS, SCALAR_BITS, SECURITY_MODELS, TABLE_BLOCK, TABLE_KEY, TABLE_STEPS, TOTALS, Step,
    concat_copies, shuffle_hash_copies, steps, symbol_counts, totals)

BACKEND = "sample-report-bn254"
CALIBRATED = "xeon-calibrated"      # the backend name of the calibrated prices


# ---------------------------------------------------------------------------
# Calibration: the Xeon's prices, inferred from the report
#
# The report lines made only of products (combining decryption shares, homomorphic addition and
# blinding) are fitted like the others, with two prices of their own: M2, a product mod N^2, and
# A1, a product in G1.  A step of a table exponentiation is a product too, but not the same price:
# its entry comes from a table of hundreds of megabytes and costs more than a bare product, so
# encryptions have their own price T2 per table step.  The two small parts of combining Paillier
# shares, Paillier's L and a product mod N, are priced as fractions of M2: their ratios to a product
# mod N^2 on the reference machine (``reference_ratios``).

#: the unknown prices: how each key's price is built from them (seconds = coefficient x parameter)
PARAMETERS = ("E1v", "E1f", "E2v", "E2f", "ETv", "ETf", "P", "mu_N2", "mu_N", "T2", "M2", "A1", "copy")

#: keys priced as a fraction of M2 (a product mod N^2): their ratio to it on the reference machine
RATIO_OF_M2 = (f"modmul/{N_BITS}", f"intdiv/{N2_BITS}/{N_BITS}")


@functools.lru_cache(maxsize=1)
def reference_ratios() -> dict:
    """{key: its price / the price of a product mod N^2} on the committed reference machine (GMP),
    for the keys of RATIO_OF_M2: the small parts of combining Paillier shares, which no report line
    separates from the products around them."""
    from ...prices.measurements import load, reference_path
    ref = load(reference_path())
    base = ref.seconds("gmp", f"modmul/{N2_BITS}")
    return {k: ref.seconds("gmp", k) / base for k in RATIO_OF_M2}


def key_basis(key: str) -> tuple:
    """(parameter, coefficient): the price of `key` in terms of one calibration parameter."""
    if key == COPY_KEY:
        return "copy", 1                                                       # per byte
    s = sizes(key)
    if key.startswith("modexp/"):
        return ("mu_N2" if s["mod"] == N2_BITS else "mu_N"), s["exp"]          # per exponent bit
    if key == TABLE_KEY:
        return "T2", TABLE_STEPS                                                # per table step
    if key == f"modmul/{N2_BITS}":
        return "M2", 1
    if key in RATIO_OF_M2:
        return "M2", reference_ratios()[key]
    op = key.split("/", 1)[1]
    if op == "g1_add":
        return "A1", 1
    if op.startswith("g1_mul/"):
        return "E1v", s["bits"] / SCALAR_BITS
    return {"g1_mul": "E1v", "g1_mul_fixed": "E1f", "g2_mul": "E2v", "g2_mul_fixed": "E2f",
            "gt_exp": "ETv", "gt_exp_fixed": "ETf", "pairing": "P"}[op], 1


def design_row(counts: Counts) -> list:
    row = [0.0] * len(PARAMETERS)
    for k, v in counts.items():
        p, coeff = key_basis(k)
        row[PARAMETERS.index(p)] += v * coeff
    return row


def reported(step_list=None) -> dict:
    """{step key: (seconds printed, report line)} for the steps of the sample report."""
    pub, _ = published_sources()
    out = {}
    for s in step_list or steps():
        e = pub.entry(BACKEND, s.key())
        out[s.key()] = (pub.seconds(BACKEND, s.key()), e["line"])
    return out


@dataclass
class Calibration:
    prices: dict             # parameter -> seconds
    source: object           # a MeasurementSet with a price for every key the steps use
    rows: list               # (step, reported s, line, predicted s, leave-one-out s or None)
    bounds: dict | None = None   # parameter -> (low, high) seconds over the leave-one-out refits
    byte_copying: bool = True    # whether the steps count the Paillier shuffle hash's byte copying
    pivots: dict | None = None   # step key -> derived.Pivot: the price its leave-one-out refit moved most

    def worst(self, loo: bool = False) -> float:
        col = 4 if loo else 3
        return max(abs(r[col] / r[1] - 1) for r in self.rows if r[0].fitted and r[col] is not None)


def calibrate(loo: bool = True, byte_copying: bool = True) -> Calibration:
    r"""The Xeon's prices from the report, with leave-one-out predictions; `byte_copying=False` fits
    the counts without the shuffle hash's byte copying (its price is 0).

    It solves for the prices of ``PARAMETERS`` by non-negative least squares on the relative errors
    of all step lines (each line = its counts · prices), assuming what the arithmetic says: a
    variable-base exponentiation costs in proportion to its exponent length (so $E_{1v}[80] =
    \tfrac{80}{254}E_{1v}$ and $X_2[b] = b\,\mu_{N^2}$).  With more lines than unknowns the fit is
    over-determined; refitting without each line in turn and predicting it is the honest measure of
    how well the counts explain the report.

    Bounds: the report prints one number per line, so the prices' spread is the fit's own: each
    price's bounds are its smallest and largest value over the fit to all lines and the refits that
    leave one line out (``Calibration.bounds``).  A price that one line alone determines drops
    towards 0 when that line is left out: its interval then says how little the report pins it."""
    step_list = steps(byte_copying=byte_copying)
    rep = reported(step_list)
    fit = [s for s in step_list if s.fitted]
    rows = [design_row(s.counts) for s in fit]
    targets = [rep[s.key()][0] for s in fit]
    x = nnls_relative(rows, targets)
    theta = dict(zip(PARAMETERS, map(float, x)))
    loo_pred, refits, pivots = {}, [x], {}
    by_key = {s.key(): r for s, r in zip(fit, rows)}
    # the refits give the prices' bounds, so they are done with or without `loo`
    for i, s in enumerate(fit):
        xi = nnls_relative(rows[:i] + rows[i + 1:], targets[:i] + targets[i + 1:])
        refits.append(xi)
        if loo:
            loo_pred[s.key()] = float(sum(a * b for a, b in zip(rows[i], xi)))
            pivots[s.key()] = loo_pivot(by_key, s.key(), x, xi, PARAMETERS)
    low, high = spread_of(refits)
    bounds = {p: (lo, hi) for p, lo, hi in zip(PARAMETERS, low, high)}
    source = priced_source(theta, step_list, bounds)
    out_rows = []
    for s in step_list:
        sec, line = rep[s.key()]
        out_rows.append((s, sec, line, price(s.counts, source).total, loo_pred.get(s.key())))
    return Calibration(theta, source, out_rows, bounds, byte_copying, pivots if loo else None)


def priced_source(theta: dict, step_list=None, bounds: dict | None = None):
    """A measurement set pricing every key of the steps from the calibrated parameters; with
    `bounds` ({parameter: (low, high)}) each price carries them, else it says it has no spread."""
    keys = sorted({k for s in (step_list or steps()) for k in s.counts})
    results = {}
    for k in keys:
        p, coeff = key_basis(k)
        results[k] = {"median": theta[p] * coeff, "unit": "s", "basis": f"{coeff:g} x {p}"}
        if bounds:
            lo, hi = bounds[p]
            results[k].update(low=min(lo, theta[p]) * coeff, high=max(hi, theta[p]) * coeff)
        else:
            results[k].update(low=theta[p] * coeff, high=theta[p] * coeff, no_spread="no bounds given for the fit")
    return price_set("calibrated/seed-003-xeon-w1270", {CALIBRATED: results}, derivation="calibrated",
                     seed="003_408d339122fdb1f8.txt",
                     title="the artifact machine's primitive prices, inferred from the sample report",
                     machine="Intel Xeon W-1270, 3.40 GHz, one core (inferred, not measured)",
                     method="non-negative least squares on the relative errors of the report's step lines "
                            "(costbook.schemes.mixnet.artifact.calibrate)",
                     derived_from=[f"published/{PUBLISHED}"])


# ---------------------------------------------------------------------------
# The seed reproduced: totals per party, and the comparisons with the baselines

def total_key(section: str, party: str, n: int = N_SEED, m: int = M_SEED) -> str:
    return f"step/mixnet/{section}/{party}/n{n}_m{m}"


def party_times(source, n: int = N_SEED, m: int = M_SEED, curve: str = "bn254", backends=None,
                derive: bool = False, security: str = "malicious", byte_copying: bool = True) -> dict:
    """{(section, party): Estimate} of the artifact's counts at (n, m), priced with `source`
    (`byte_copying`: see ``steps``)."""
    return {sp: price(c, source, backends, label=TOTALS[sp], derive=derive)
            for sp, c in totals(steps(n, m, curve, security, byte_copying)).items()}


def reproduce(cal: Calibration | None = None) -> list:
    """The report's five totals against the calibrated model: (label, published s, line, model s)."""
    cal = cal or calibrate()
    pub, _ = published_sources()
    model = party_times(cal.source, byte_copying=cal.byte_copying)
    return [(label, pub.seconds(BACKEND, total_key(*sp)), pub.entry(BACKEND, total_key(*sp))["line"],
             model[sp].total) for sp, label in TOTALS.items()]


def speedups(per_mixer_s: dict, n: int, zk_prove_s: float, cp_prove_s: float, cp_witness_s_at_seed: float) -> dict:
    """Speedup of DB-SM and DB-RSM per mix-server over the baselines at set size n.

    The cpSNARK-Set witness is O(n) (``model.witness_counts``): the seed's witness time at N_SEED
    scales with the (n-1) primes in its exponent."""
    zk = collab_zksnark_s(n, zk_prove_s)
    cp = cpsnark_set_s(n, cp_prove_s, cp_witness_s_at_seed * (n - 1) / (N_SEED - 1))
    return {"dbsm_vs_zksnark": zk / per_mixer_s["dbsm"], "dbrsm_vs_zksnark": zk / per_mixer_s["dbrsm"],
            "dbsm_vs_cpsnark": cp / per_mixer_s["dbsm"], "zksnark_s": zk, "cpsnark_s": cp}


#: the ratios ``speedups`` returns (the rest are the baselines' times)
SPEEDUPS = ("dbsm_vs_zksnark", "dbrsm_vs_zksnark", "dbsm_vs_cpsnark")


def whatif(cal: Calibration, ns=(N_SEED,), ms=(M_SEED,), security: str = "malicious") -> list:
    """Per-mix-server times and speedups over the baselines on the artifact's machine, for each
    (n, m): the calibrated prices and the baselines' published unit prices, all from one machine.

    Each time has its interval ("<name>_low_s", "<name>_high_s": the calibrated prices' bounds); the
    baselines' are their published single numbers (low = high), and each speedup's interval
    ("<ratio>_low", "<ratio>_high") comes from the per-mix-server times' (``speedup_intervals``)."""
    t = published_times()
    rows = []
    for n in ns:
        for m in ms:
            pt = party_times(cal.source, n, m, security=security, byte_copying=cal.byte_copying)
            per = {s: pt[(s, "mixer")].total for s in ("mix", "dbsm", "dbrsm")}
            row = timed({"n": n, "m": m}, *(named(f"{section}_{party}", est) for (section, party), est in pt.items()))
            fast = speedups(per, n, t["zksnark_sm_prove_s"], t["cpsnark_prove_s"], t["cpsnark_witness_s"])
            for base in ("zksnark", "cpsnark"):
                fast[f"{base}_low_s"] = fast[f"{base}_high_s"] = fast[f"{base}_s"]
            spread = {s: (pt[(s, "mixer")].total, pt[(s, "mixer")].low, pt[(s, "mixer")].high) for s in ("dbsm", "dbrsm")}
            for k, (_, lo, hi) in speedup_intervals(spread, n).items():
                fast[f"{k}_low"], fast[f"{k}_high"] = lo, hi
            rows.append(row | fast)
    return rows


#: this machine's native backends for the artifact's operations: mcl for the curves, GMP for Paillier
NATIVE = defaults.SAME_LIBRARY["artifact"]


def this_machine(source, n: int = N_SEED, m: int = M_SEED, backends=NATIVE) -> list:
    """The artifact's cryptographic operations priced with `source` on BN254 and BLS12-381: per
    (section, party), seconds on each curve and their ratio (fixed-base operations without a
    measured table are priced as variable-base ones, an upper bound, and say so).  The Paillier
    shuffle hash's quadratic byte copying is left out: it is the artifact's Python, not the
    libraries', and a port would build the hash input in linear time."""
    bn = party_times(source, n, m, "bn254", backends, derive=True, byte_copying=False)
    bls = party_times(source, n, m, "bls12_381", backends, derive=True, byte_copying=False)
    return [timed({"section": sp[0], "party": sp[1], "label": TOTALS[sp]}, named("bn254", bn[sp]),
                  named("bls12_381", bls[sp]), ratio=bls[sp].total / bn[sp].total, estimate=bn[sp])
            for sp in TOTALS]


def curve_switch_on_artifact(cal: Calibration, here, backends=NATIVE) -> list:
    """The README's claim in the artifact's own setting: each BN254 operation's calibrated price
    scaled by this machine's BLS12-381 / BN254 price ratio of that operation (Paillier unchanged).
    Per (section, party): the calibrated BN254 seconds, the scaled BLS12-381 seconds, the ratio."""
    bn_keys = sorted({k for s in steps() for k in s.counts if k.startswith("bn254/")})
    scaled = {}
    for k in bn_keys:
        bls = "bls12_381/" + k.split("/", 1)[1]
        ratio = (price({bls: 1}, here, backends, derive=True).total /
                 price({k: 1}, here, backends, derive=True).total)
        lo, hi = cal.source.bounds(CALIBRATED, k)        # the calibrated bounds, scaled alike
        scaled[bls] = {"median": cal.source.seconds(CALIBRATED, k) * ratio, "unit": "s", "low": lo * ratio,
                       "high": hi * ratio, "basis": f"{k} calibrated x {ratio:.3f} (BLS12-381 / BN254 here)"}
    results = dict(cal.source.results[CALIBRATED])
    results.update(scaled)
    both = price_set("calibrated, BLS12-381 scaled", {CALIBRATED: results}, derivation="scaled",
                     seed=cal.source.provenance["seed"],
                     title="the artifact machine's prices with BLS12-381 operations scaled from BN254",
                     machine=cal.source.provenance["machine"],
                     method="each calibrated BN254 price x the BLS12-381 / BN254 price ratio of the same "
                            f"operation on {here.name} (costbook.schemes.mixnet.artifact.curve_switch_on_artifact)",
                     derived_from=[cal.source.name, here.name])
    bn = party_times(cal.source, curve="bn254", byte_copying=cal.byte_copying)
    bls = party_times(both, curve="bls12_381", byte_copying=cal.byte_copying)
    return [timed({"label": TOTALS[sp]}, named("bn254", bn[sp]), named("bls12_381", bls[sp]),
                  ratio=bls[sp].total / bn[sp].total) for sp in TOTALS]


# ---------------------------------------------------------------------------
# Cross-check: the Sage code's counts (counted by running it) against the artifact's

#: Sage step -> the artifact's report lines that do the same work
SAGE_STEPS = {
    "dbsm": {"Q1 sign and encrypt": ["sign"], "M1 check signatures": ["check_sigs"],
             "M2 re-encrypt, reverse-permute, prove": ["reencrypt", "shuffle_prove"],
             "M3 verify others' shuffles": ["shuffle_verify"], "M4 blind + PoK": ["blind"],
             "M5 verify others' PoKs": ["blind_verify"],
             "M7 decryption shares + proofs, verify others": ["decrypt_shares", "decrypt_verify"],
             "M8 DPK commit and response": ["dpk_commit"], "Q2 verify DPKs": ["dpk_verify"]},
    "dbrsm": {"Q0 verify opening PoKs": ["verify_openings"], "Q1 quasi-sign and encrypt": ["sign"],
              "M1 check signatures": ["check_sigs"], "M3 re-encrypt, permute, prove": ["reencrypt", "shuffle_prove"],
              "M4 verify others' shuffles": ["shuffle_verify"], "M5 blinding encryptions + PoK": ["blind"],
              "M6 verify others' PoKs": ["blind_verify"],
              "M8 decryption shares + proofs, verify others": ["decrypt_shares", "decrypt_verify"],
              "M10 z1 shares + PoK": ["z1_shares"], "M11 verify others' z1 PoKs": ["z1_verify"],
              "M12 generators": ["generators"], "M13 DPK commit and response": ["dpk_commit"],
              "Q2 generators + verify DPKs": ["dpk_verify"]},
}

#: where the per-item curve operations differ, and why
CROSSCHECK_DIFFERENCES = {
    "dbsm": {"M7 decryption shares + proofs, verify others":
             "the artifact batches a mix-server's n share proofs into one with 80-bit weights; the Sage "
             "code proves each share, so a bad share is pinned to its item (4 instead of 2 exponentiations "
             "per item and other mix-server)"},
    "dbrsm": {"M3 re-encrypt, permute, prove": "the Paillier shuffles' G1 part (not implemented in Sage)",
              "M4 verify others' shuffles": "the Paillier shuffles' G1 part (not implemented in Sage)",
              "M8 decryption shares + proofs, verify others": "batched share proofs in the artifact (see DB-SM M7)",
              "M11 verify others' z1 PoKs": "the Sage verifier checks that each other mix-server's share z1^(k) "
                                            "is in GT (z^r = 1, one GT exponentiation per item and other "
                                            "mix-server); the artifact does not"},
}

#: where the per-item curve operations agree in number but not in what they are
CROSSCHECK_COINCIDENCES = {
    "dbrsm": {"Q2 generators + verify DPKs": "the same number for different work: the artifact's verifier does "
                                             "one GT exponentiation more in its DPK check (9 fixed-base and 6 "
                                             "variable-base), the Sage one checks that z1 is in GT (z^r = 1)"},
}


def _per_group(counts: Counts) -> dict:
    """Curve operations by group, fixed-base and short exponents included: {G1, G2, GT, pairing}."""
    out = {"G1": 0, "G2": 0, "GT": 0, "pairing": 0}
    for k, v in counts.items():
        op = k.split("/")[1] if "/" in k else ""
        g = {"g1_mul": "G1", "g1_mul_fixed": "G1", "g2_mul": "G2", "g2_mul_fixed": "G2", "gt_exp": "GT",
             "gt_exp_fixed": "GT", "pairing": "pairing"}.get(op)
        if g:
            out[g] += v
    return out


def crosscheck(n: int = N_SEED, m: int = M_SEED) -> dict:
    """Per Sage step: curve operations per item (the difference between n + 1 and n items, so that
    one-off terms drop out) in the Sage code and in the artifact, whether they should agree, and why
    not (``CROSSCHECK_DIFFERENCES``) or why they agree only in number (``CROSSCHECK_COINCIDENCES``)."""
    from . import dbrsm, dbsm
    out = {}
    for section, module in (("dbsm", dbsm), ("dbrsm", dbrsm)):
        sage = [module.step_counts(k, m) for k in (n, n + 1)]
        art = [{s.slug: s for s in steps(k, m) if s.section == section} for k in (n, n + 1)]
        rows = []
        for name, slugs in SAGE_STEPS[section].items():
            per = lambda d: {g: b - a for (g, a), b in zip(d[0].items(), d[1].values())}
            s = per([_per_group(c[name]) for c in sage])
            a = per([_per_group(sum((x[sl].counts for sl in slugs), Counts())) for x in art])
            diff = CROSSCHECK_DIFFERENCES[section].get(name)
            why = diff or CROSSCHECK_COINCIDENCES.get(section, {}).get(name, "")
            rows.append({"sage_step": name, "artifact_lines": slugs, "sage": s, "artifact": a,
                         "same": diff is None, "why": why})
        out[section] = rows
    return out


# ---------------------------------------------------------------------------
# The report's totals and sub-totals out of sample: sums of the lines' leave-one-out predictions

def _line_predictions(cal: Calibration) -> dict:
    """{step key: (leave-one-out s, fitted s)}; a line left out of the fit is predicted in both."""
    return {s.key(): (loo if loo is not None else pred, pred) for s, _, _, pred, loo in cal.rows}


class LooTotal(NamedTuple):
    """A report total out of sample: the sum of its lines' leave-one-out predictions, beside the
    in-sample sum, with the interval of both (each line's counts priced at the calibrated prices'
    bounds, their spread over all the refits; a line's leave-one-out prediction lies inside it)."""
    label: str
    published_s: float
    line: int
    loo_s: float
    fitted_s: float
    low_s: float
    high_s: float


def loo_totals(cal: Calibration | None = None) -> list:
    """The report's five totals as ``LooTotal`` rows, in ``TOTALS`` order."""
    cal = cal or calibrate()
    lines = _line_predictions(cal)
    out = []
    for label, pub, line, fitted in reproduce(cal):
        sp = next(sp for sp, lb in TOTALS.items() if lb == label)
        steps_of = [s for s, *_ in cal.rows if (s.section, s.party) == sp]
        priced = [price(s.counts, cal.source) for s in steps_of]
        out.append(LooTotal(label, pub, line, sum(lines[s.key()][0] for s in steps_of), fitted,
                            sum(e.low for e in priced), sum(e.high for e in priced)))
    return out


def speedup_intervals(per_mixer: dict, n: int = N_SEED) -> dict:
    """The three speedups over the baselines from per-mix-server times given as (s, low s, high s):
    {ratio: (value, low, high)}, the low end from the high times (a baseline is a published single
    number, so only our side spreads)."""
    t = published_times()
    at = lambda i: speedups({k: v[i] for k, v in per_mixer.items()}, n, t["zksnark_sm_prove_s"],
                            t["cpsnark_prove_s"], t["cpsnark_witness_s"])
    mid, slow, fast = at(0), at(2), at(1)
    return {k: (mid[k], slow[k], fast[k]) for k in SPEEDUPS}


def loo_speedups(totals: list | None = None) -> dict:
    """The three speedups from the leave-one-out totals (``loo_totals``, computed if not given), each
    (value, low, high) from the per-mix-server totals' intervals (``speedup_intervals``)."""
    per = {sp[0]: t for sp, t in zip(TOTALS, totals or loo_totals()) if sp[1] == "mixer"}
    return speedup_intervals({s: (per[s].loo_s, per[s].low_s, per[s].high_s) for s in ("dbsm", "dbrsm")})


def report_subtotals(cal: Calibration | None = None) -> list:
    """The report's intermediate totals (get_blsigs, dpk_bbsig... 'mixer 0 total time'), each the sum of
    the step lines of its section and party printed since the previous total: (published key, published
    s, report line, leave-one-out s, fitted s)."""
    cal = cal or calibrate()
    pub, _ = published_sources()
    lines = _line_predictions(cal)
    step_line = {s.key(): (s, line) for s, _, line, _, _ in cal.rows}
    totals_keys = {total_key(*sp) for sp in TOTALS}
    groups = sorted(((pub.entry(BACKEND, k)["line"], k) for k in pub.keys(BACKEND)
                     if k not in step_line and k not in totals_keys))
    out = []
    for line, key in groups:
        section, _, party = key.split("/")[2:5]
        earlier = [l for l, k in groups if l < line and k.split("/")[2:5:2] == [section, party]]
        start = max(earlier, default=0)
        keys = [k for k, (s, l) in step_line.items() if s.section == section and s.party == party and start < l <= line]
        if not keys:
            raise ValueError(f"report line {line} ({key}): no step lines to sum")
        out.append((key, pub.seconds(BACKEND, key), line, sum(lines[k][0] for k in keys), sum(lines[k][1] for k in keys)))
    return out
