"""Traceable mixnets (seed 003): the published comparisons, the baselines as cost models, the RSA
accumulator witness, and the curve switch.

The seed compares, for n items and m mix-servers on the artifact's Xeon, DB-SM and DB-RSM per
mix-server with a collaborative zkSNARK per prover, and DB-SM with cpSNARK-Set (single prover, set
membership only: one proof and one membership witness per item).

``published_ratios`` recomputes the three ratios from the published files (the numbers the seed
states, each with its line); the baselines are cost models in n (``collab_zksnark_s``,
``cpsnark_set_s``), so the ratios can be redone for other n and for prices measured elsewhere.  The
O(n) membership witness of an RSA accumulator is implemented here (``RSAAccumulator``) and measured
on this machine.

``dpk_counts`` are the per-item operation counts of the two DPKs (the only steps that use the
elliptic curve, read off the artifact's code in the research notes, §4.3-4.4), priced on BN254 and
on BLS12-381 to check the seed's expectation of what the switch costs on the DPKs and overall.
Every count ``estimate`` prices is in counts.py.
"""
from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import dataclass

from ...prices import defaults
from ...prices.cost import Counts, price
from ...prices.counting import counting
from ...calibration.intervals import fmt_named, spreadless
from ...prices.timed import Timed, named, timed
from ...prices.keys import modexp_key, modexp_keys
from ...writing.report import fmt_time
from .. import Bounds, StepGroup, check_validation_options, option_words, options, value_words
from . import artifact
from .counts import (DPK_OPS, PARTY_NAMES, PROTOCOL_NAMES, WITNESS_LABEL, dpk_counts, sage_label,  # noqa: F401
    witness_counts)
from .seed import (BASELINES, COLLAB_FACTOR, M_SEED, N_SEED, PUBLISHED, collab_zksnark_s, Parameters, cpsnark_set_s,
    published_sources, published_times)

OPTIONS = options(Parameters)
#: with the published source the estimate is the seed's own numbers (its artifact ran BN254), so a curve
#: chooses nothing there: it applies to sources that price the counts
OPTION_APPLIES = {"curve": {"source": ("measured", "calibrated")}}
OPTION_WORDS = option_words(Parameters)
VALUE_WORDS = value_words(Parameters)

#: what `estimate` prices with a file that prices the counts, as the chapter's live estimate groups it
#: (the seed's machine prices the report's totals alone: its counts with the prices inferred from it)
STEP_GROUPS = (
    StepGroup("The artifact's sample report, rebuilt from its operation counts", tuple(artifact.TOTALS.values()),
              "One mix-server's and the verifier's totals, as the report prints them (the artifact's code: "
              "fixed-base tables, batched share proofs)."),
    StepGroup("DB-SM and DB-RSM as written in Sage, from the counts of their run",
              tuple(sage_label(p, party) for p in PROTOCOL_NAMES for party in PARTY_NAMES),
              "\"querier + m mix-servers\" is the whole query, m mix-servers' work and the querier's; the report's rows "
              "above are one mix-server's: compare per mix-server with per mix-server."),
    StepGroup("The cpSNARK-Set baseline's O(n) part", (WITNESS_LABEL,),
              "One exponentiation with an exponent of about (n − 1)·64 bits, for every proof."),
)


@dataclass(frozen=True)
class Ratio:
    name: str
    baseline: str
    baseline_s: float
    ours: str
    ours_s: float
    seed_says: str
    seed_line: int

    @property
    def ratio(self) -> float:
        return self.baseline_s / self.ours_s


def published_ratios() -> list:
    """The seed's three comparisons, each computed from the published numbers."""
    t = published_times()
    n = N_SEED
    collab_sm = collab_zksnark_s(n, t["zksnark_sm_prove_s"])
    collab_rsm = collab_zksnark_s(n, t["zksnark_rsm_prove_s"])
    cp = cpsnark_set_s(n, t["cpsnark_prove_s"], t["cpsnark_witness_s"])
    return [
        Ratio("DB-SM vs collaborative zkSNARK", "2 x n x Groth16 prove", collab_sm, "DB-SM per mix-server",
              t["dbsm_mixer_s"], "86x", 143),
        Ratio("DB-RSM vs collaborative zkSNARK", "2 x n x Groth16 prove", collab_rsm, "DB-RSM per mix-server",
              t["dbrsm_mixer_s"], "18x", 147),
        Ratio("DB-SM vs cpSNARK-Set", "n x (prove + witness)", cp, "DB-SM per mix-server",
              t["dbsm_mixer_s"], "20x", 271),
    ]


# ---------------------------------------------------------------------------
# The RSA accumulator and its O(n) membership witness

def hash_to_prime(x: bytes, bits: int = 64) -> int:
    """The smallest prime >= a `bits`-bit SHA-256 digest of x (top bit set): a simple hash to primes."""
    from sage.all__sagemath_flint import next_prime
    h = int.from_bytes(hashlib.sha256(x).digest(), "big") >> (256 - bits)
    return int(next_prime(h | (1 << (bits - 1))))


class RSAAccumulator:
    """acc = g^{prod p_j} mod N over primes p_j; the witness of p_i is g^{prod_{j != i} p_j}.

    N is an RSA modulus whose factors nobody keeps (here: generated and discarded).  Without them
    the exponent cannot be reduced, so a witness costs one exponentiation with an exponent of
    about (n - 1) |p| bits: O(n).  Membership: w^{p_i} = acc.
    """

    def __init__(self, elements: list, modulus_bits: int = 2048, rng: random.Random | None = None):
        from sage.all__sagemath_flint import random_prime
        from sage.all__sagemath_modules import IntegerModRing
        if not elements:
            raise ValueError("an accumulator needs at least one element")
        rng = rng or random.SystemRandom()
        half = modulus_bits // 2
        p = random_prime(2**half, lbound=2**(half - 1) * 3 // 2, proof=False)
        q = random_prime(2**half, lbound=2**(half - 1) * 3 // 2, proof=False)
        self.N = int(p * q)                   # p, q go out of scope here: unknown from now on
        self.Z = IntegerModRing(self.N)
        self.g = self.Z(rng.randrange(2, self.N)) ** 2
        self.primes = [hash_to_prime(e) for e in elements]
        self.value = self.g ** math.prod(self.primes)

    def witness(self, i: int):
        """g^{prod_{j != i} p_j}: one exponentiation with an exponent of about (n-1)*64 bits."""
        rest = math.prod(self.primes[:i]) * math.prod(self.primes[i + 1:])
        return self.g ** rest

    def witness_key(self, i: int = 0) -> str:
        """The modexp key a witness costs (modulus bits / exponent bits)."""
        rest = math.prod(self.primes[:i]) * math.prod(self.primes[i + 1:])
        return modexp_key(-(-self.N.bit_length() // 64) * 64, rest.bit_length())

    def verify(self, w, element: bytes) -> bool:
        return w ** hash_to_prime(element) == self.value


# ---------------------------------------------------------------------------
# The DPKs on BN254 and BLS12-381

def curve_switch(source, backend: str = "mcl") -> list:
    """BLS12-381 / BN254 price ratio of each DPK, per item, with one backend's prices."""
    rows = []
    for protocol in DPK_OPS:
        for side in ("prove", "verify"):
            bn = price(dpk_counts(protocol, side, "bn254"), source, backend)
            bls = price(dpk_counts(protocol, side, "bls12_381"), source, backend)
            rows.append(timed({"protocol": protocol, "side": side}, named("bn254", bn), named("bls12_381", bls),
                              ratio=bls.total / bn.total))
    return rows


def overall_switch(dpk_ratio: float, dpk_share: float) -> float:
    """Per-prover slowdown when only the DPK part (a share of the time) gets dpk_ratio slower."""
    return 1 + dpk_share * (dpk_ratio - 1)


def dpk_shares() -> dict:
    """The DPK share of the per-mix-server time in the sample report (n = 10^4, m = 4)."""
    ours, _ = published_sources()
    b, tag = "sample-report-bn254", f"n{N_SEED}_m{M_SEED}"
    return {p: ours.seconds(b, f"step/mixnet/{p}/dpk_prove/mixer/{tag}") / ours.seconds(b, f"step/mixnet/{p}/mixer/{tag}")
            for p in ("dbsm", "dbrsm")}


# ---------------------------------------------------------------------------
# costbook estimate mixnet

def estimate(source, backends=None, n: int = N_SEED, m: int = M_SEED, curve: str = "bn254",
             security: str = "malicious") -> dict:
    """The published comparisons, and the baselines at n priced with `source` where it can.

    With the published source the three ratios come out of the seed's numbers; with a measured
    file the cpSNARK-Set witness is priced from this machine's modular exponentiation.
    """
    Parameters(n, m, curve, security)            # checked: bounds and choices
    out = Timed({"scheme": "mixnet", "n": n, "m": m, "security": security, "source": source.name})
    if source.kind == "published":
        if backends:
            raise ValueError("--backend does not apply to the published source: the seed's ratios and the "
                             "report come from its own numbers (choose backends with --source reference or a file)")
        out["ratios"] = [{"name": r.name, "baseline_s": r.baseline_s, "ours_s": r.ours_s, "ratio": r.ratio,
                          "seed_says": r.seed_says, "seed_line": r.seed_line} for r in published_ratios()]
        out["published"] = published_times()
        out["intervals"] = ("'ratios' and 'published' echo the seed's figures, single numbers without a "
                            "range; the model's times carry the calibrated prices' leave-one-out bounds")
        out["reproduced"] = reproduction(n, m, security)
        return out
    order = backends or defaults.order(["modexp"], source=source)
    w = price(witness_counts(n), source, order, label=WITNESS_LABEL, derive=True)
    out |= named("rsa_accumulator_witness", w)
    out["rsa_accumulator_witness"] = w.to_dict()
    out["curve_switch"] = curve_switch(source) if "mcl" in source.backends else None
    priced = [w]
    for proto in ("dbsm", "dbrsm"):
        est, notes = protocol_estimate(source, proto, n, m, curve, backends, with_notes=True)
        priced += est.values()
        out[f"{proto}_sage_code"] = timed({"curve": curve}, *(named(party, e) for party, e in est.items()), notes=notes)
    # the cryptographic operations only: the artifact's quadratic hash-input copying is its Python's
    # (priced on the Xeon by the calibration), not the native libraries' these prices measure
    parties = artifact.party_times(source, n, m, curve, list(artifact.NATIVE), True, security, byte_copying=False)
    priced += parties.values()
    out["artifact_counts"] = timed(
        {"curve": curve, "backends": list(artifact.NATIVE), "security": security, "byte_copying": False},
        *(named(f"{sec}_{party}", e) for (sec, party), e in parties.items()))
    out["prices_without_spread"] = spreadless(source, priced)
    return out


def reproduction(n: int = N_SEED, m: int = M_SEED, security: str = "malicious") -> dict:
    """The artifact's counts priced with the Xeon's calibrated prices (``artifact.calibrate``): the
    report's totals at the seed's (n, m) against the model, and the three comparisons from the model."""
    cal = artifact.calibrate()
    out = {"calibrated_prices_s": cal.prices, "calibrated_price_bounds_s": cal.bounds,
           "worst_step_error": cal.worst(), "worst_step_error_leave_one_out": cal.worst(loo=True)}
    if (n, m, security) == (N_SEED, M_SEED, "malicious"):
        # out of sample first: each total as the sum of its lines' leave-one-out predictions
        totals = artifact.loo_totals(cal)
        out["totals"] = [{"what": t.label, "published_s": t.published_s, "line": t.line,
                          "leave_one_out_s": t.loo_s, "leave_one_out_error": t.loo_s / t.published_s - 1,
                          "leave_one_out_low_s": t.low_s, "leave_one_out_high_s": t.high_s,
                          "model_s": t.fitted_s, "model_low_s": t.low_s, "model_high_s": t.high_s,
                          "error": t.fitted_s / t.published_s - 1, "inside": t.low_s <= t.published_s <= t.high_s}
                         for t in totals]
        out["ratios_leave_one_out"] = {k: {"ratio": v, "low": lo, "high": hi}
                                       for k, (v, lo, hi) in artifact.loo_speedups(totals).items()}
    # plain JSON, not Timed: times of the calibration's own fit, which no prediction interval widens
    out["at_n_m"] = dict(artifact.whatif(cal, ns=(n,), ms=(m,), security=security)[0])
    return out


def format_estimate(result: dict) -> str:
    lines = [f"traceable mixnets, n = {result['n']}, m = {result['m']}, priced with {result['source']}"]
    for r in result.get("ratios", []):
        lines.append(f"  {r['name']}: {fmt_time(r['baseline_s'])} / {fmt_time(r['ours_s'])} = {r['ratio']:.2f}x "
                     f"(seed says {r['seed_says']}, line {r['seed_line']})")
    if "rsa_accumulator_witness_s" in result:
        lines.append(f"  one RSA-accumulator witness (n = {result['n']}): {fmt_named(result, 'rsa_accumulator_witness')}")
    for row in result.get("curve_switch") or []:
        lines.append(f"  {row['protocol']} DPK {row['side']}: BLS12-381 / BN254 = {row['ratio']:.2f}x "
                     f"({fmt_named(row, 'bls12_381')} / {fmt_named(row, 'bn254')})")
    for key in ("dbsm_sage_code", "dbrsm_sage_code"):
        if key in result:
            r = result[key]
            lines.append(f"  {key} on {r['curve']}: per mix-server {fmt_named(r, 'mixer')}, querier {fmt_named(r, 'querier')}"
                         + (f" ({'; '.join(r['notes'])})" if r.get("notes") else ""))
    if "artifact_counts" in result:
        r = result["artifact_counts"]
        lines.append(f"  the artifact's counts on {r['curve']} ({', '.join(r['backends'])}; without its hash-input "
                     "byte copying): " + ", ".join(
            f"{k[:-2].replace('_', ' ')} {fmt_named(r, k[:-2])}" for k in r
            if k.endswith("_s") and not k.endswith(("_low_s", "_high_s"))))
    if result.get("prices_without_spread"):
        lines.append("  prices without a spread (their bounds are their value): "
                     + ", ".join(result["prices_without_spread"]))
    if "reproduced" in result:
        rep = result["reproduced"]
        for t in rep.get("totals", []):
            lines.append(f"  {t['what']}: published {fmt_time(t['published_s'])} (line {t['line']}); leave-one-out "
                         f"{fmt_time(t['leave_one_out_s'])} {t['leave_one_out_error']:+.1%}, in-sample "
                         f"{fmt_time(t['model_s'])} {t['error']:+.1%}, both in "
                         f"[{fmt_time(t['model_low_s'])}, {fmt_time(t['model_high_s'])}] (the prices' spread over the refits); "
                         f"published inside: {'yes' if t['inside'] else 'no'}")
        ratio = lambda r: f"{r['ratio']:.1f}x [{r['low']:.1f}–{r['high']:.1f}]"
        if "ratios_leave_one_out" in rep:
            r = rep["ratios_leave_one_out"]
            lines.append(f"  leave-one-out: DB-SM vs zkSNARK {ratio(r['dbsm_vs_zksnark'])}, DB-RSM vs zkSNARK "
                         f"{ratio(r['dbrsm_vs_zksnark'])}, DB-SM vs cpSNARK-Set {ratio(r['dbsm_vs_cpsnark'])}")
        a = rep["at_n_m"]
        lines.append(f"  from the model at n = {a['n']}, m = {a['m']}: per mix-server DB-SM {fmt_named(a, 'dbsm_mixer')}, "
                     f"DB-RSM {fmt_named(a, 'dbrsm_mixer')}")
        at = lambda k: ratio({"ratio": a[k], "low": a[f"{k}_low"], "high": a[f"{k}_high"]})
        lines.append(f"  from the model: DB-SM vs zkSNARK {at('dbsm_vs_zksnark')}, DB-RSM vs zkSNARK "
                     f"{at('dbrsm_vs_zksnark')}, DB-SM vs cpSNARK-Set {at('dbsm_vs_cpsnark')}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The protocols in Sage (dbsm, dbrsm): counts priced, and validated against runs

SHORT_EXPONENT = re.compile(r"(?P<full>[a-z0-9_]+/(g1_mul|gt_exp))/[0-9]+")


def price_sage_counts(counts, source, order, label: str = ""):
    """(Estimate, notes): the Sage code's counts priced with `source` in the backends `order`, as
    ``as_priced`` keeps them."""
    kept, notes = as_priced(counts, source, order)
    return price(kept, source, order, label=label), notes


def as_priced(counts, source, order):
    """(Counts, notes): the Sage code's counts as `source` prices them in the backends `order`.

    A file without prices for the light operations nor for a short exponentiation in Sage (the
    reference machine's): a light operation is kept only where the library
    that prices the curve's exponentiations prices it too (so that two curves compare like with like),
    else left out; a short exponentiation without a price is priced as the full-size one (an upper
    bound); each note says which key and why.  Any other missing price is an error, as always."""
    from .dbsm import is_light
    kept, notes = Counts(), []
    for key, k in counts.items():
        short = SHORT_EXPONENT.fullmatch(key)
        if is_light(key):
            curve = key.split("/")[0]
            home = next((b for b in order if source.has(b, f"{curve}/g1_mul")), None)
            if home is not None and source.has(home, key):
                kept.add(key, k)
            else:
                notes.append(f"{key} left out (no price from {home or 'any backend'}, which prices the "
                             f"curve's exponentiations, in {source.name})")
        elif any(source.has(b, key) for b in order):
            kept.add(key, k)
        elif short:
            kept.add(short["full"], k)
            notes.append(f"{key} priced as {short['full']}, an upper bound (no price in {source.name})")
        else:
            kept.add(key, k)
    return kept, notes


def priced_as(label: str, counts, source, order) -> Counts:
    """The counts ``estimate`` prices under `label` with `source` in the backends `order`, from the
    formula's (``counts.step_counts``): a party of the Sage code as ``as_priced`` keeps it, any other
    label as it is.  The scheme contract compares the two with it (tests/test_scheme_contract.py)."""
    sage = {sage_label(protocol, party) for protocol in PROTOCOL_NAMES for party in PARTY_NAMES}
    return as_priced(counts, source, order)[0] if label in sage else counts


def _curve_order(source, backends) -> list:
    # one library for both curves first (defaults.SAME_LIBRARY), then the usual order
    return list(backends) if backends else [b for b in dict.fromkeys(
        defaults.SAME_LIBRARY["curves"] + tuple(defaults.order(["bls12_381", "ristretto255"])))
        if b in source.backends]


def protocol_estimate(source, protocol: str = "dbsm", n: int = N_SEED, m: int = M_SEED,
                      curve: str = "bn254", backends=None, with_notes: bool = False):
    """Per-mix-server and querier seconds of one query, from the Sage code's counts: {party: Estimate},
    and with `with_notes` also the notes of ``price_sage_counts`` (what was left out or bounded).

    DB-RSM counts cover its implemented parts only (the threshold-Paillier work is missing), so
    its estimate is a lower bound."""
    from . import dbrsm, dbsm
    counts = {"dbsm": dbsm, "dbrsm": dbrsm}[protocol].party_counts(int(n), int(m), curve)
    order = _curve_order(source, backends)
    est, notes = {}, []
    for party, c in counts.items():
        est[party], said = price_sage_counts(c, source, order, label=sage_label(protocol, party))
        notes += [s for s in said if s not in notes]
    return (est, notes) if with_notes else est


def step_estimates(source, n: int = N_SEED, m: int = M_SEED, curve: str = "bn254", backends=None):
    """({step: Estimate}, notes): each DB-SM step of one party (``dbsm.step_counts``) priced as in
    ``protocol_estimate``."""
    from . import dbsm
    order = _curve_order(source, backends)
    est, notes = {}, []
    for step, c in dbsm.step_counts(int(n), int(m), curve).items():
        est[step], said = price_sage_counts(c, source, order, label=step)
        notes += [s for s in said if s not in notes]
    return est, notes


#: the sizes a validation runs (its chapter's table; --n and --m pick another).  One: n = m = 2, the
#: smallest at which every step does all of its kinds of work (every term of every step's counts is
#: non-zero there, the (m - 1) terms of the checks of the other mix-servers included).  How the counts
#: grow with n and m is not what a timing shows: tests/test_mixnet_light_ops.py tallies each step of
#: both protocols through the clock the validation times them with at (2, 2), (3, 2) and (2, 3)
#: (DB-RSM also at (1, 2)) and requires exactly the stated counts.  What the timing adds is that those
#: counts, priced, are the steps' time, which holds or fails alike at any size: larger sizes would make
#: the run longer and check nothing more.
VALIDATION_SIZES = ((2, 2),)
#: the sizes a validation (and the contract's count) runs the Sage protocol at
VALIDATION_BOUNDS = {"n": Bounds(1, 8), "m": Bounds(2, 4)}
#: backend -> the keys the quick profile measures for it (costbook.timing.priced): what its estimates read
#: at every point of its page (the artifact's mcl and GMP: Paillier's and the accumulator's arithmetic),
#: and chapter 5's Sage prices next to the artifact's
PRICED_KEYS = {
    "gmp": (*modexp_keys((2048,)), "intdiv/4099/2050", "modexp/2038/441", "modexp/2050/80", "modexp/2050/180",
            "modexp/4099/80", "modexp/4099/82", "modexp/4099/180", "modexp/4099/2130", "modexp/4099/2170",
            "modexp/4099/4099", "modexp_fixed/4099/1025/13", "modmul/2050", "modmul/4099"),
    "mcl": tuple(f"{c}/{op}" for c in ("bls12_381", "bn254")
                 for op in ("g1_add", "g1_mul", "g1_mul/80", "g1_mul/180", "g2_mul", "gt_exp", "pairing")),
    "sage": (*(f"{c}/{op}" for c in ("bls12_381", "bn254") for op in ("g1_mul", "g2_mul", "gt_exp", "pairing")),
             "bn254/scalar_inv"),
    "arkworks": ("bls12_381/scalar_inv",),
}
# What a validation's error is made of (its prediction interval's margin comes from the committed runs
# at the other sizes and of the other schemes, costbook.calibration.uncertainty).  Every step is its
# pairing-group operations, additions and Fiat–Shamir serialisations, plus two measured terms: the
# interpreter's work around them, measured by replaying the run without its priced operations
# (costbook.prices.replay), and its cold start (_cold_start_probe).  A step starts where the step
# before it left the caches: the first multiplication after the previous run's pairings runs slow,
# which shows in a short step such as DB-RSM's Q0 (nothing but 3n multiplications and their checks)
# and DB-SM's Q1; with its cold start measured beside it such a step is predicted like the others.
# What is left is context: timed in place, G1 multiplications run slower than in their own benchmark
# loop, by an amount that varies with the process; the margin carries that.


def run_counts(steps: dict, m: int) -> dict:
    """Per-step counts of a whole run: an M step is done by each of the m mix-servers."""
    return {name: c * (m if name.startswith("M") else 1) for name, c in steps.items()}


def validate(n=None, m=None, **_ignored) -> dict:
    """Time every priced step of a DB-SM and a DB-RSM query of the Sage code at small (n, m) (default:
    each of VALIDATION_SIZES; --n and --m pick one, in VALIDATION_BOUNDS), against its counts priced
    with Sage prices measured in the same rounds (``validation.validate_clocked_together``: every run in
    one set of rounds), each step's interpreter work measured by a replay (``costbook.prices.replay``)."""
    from ...calibration.validation import runs_result, validate_clocked_together
    if n is None and m is None:
        sizes = VALIDATION_SIZES
    else:
        n, m = int(n if n is not None else 2), int(m if m is not None else 2)
        check_validation_options("mixnet", VALIDATION_BOUNDS, {"n": n, "m": m})
        sizes = ((n, m),)
    cases = [(protocol, n, m) for protocol in ("DB-SM", "DB-RSM") for n, m in sizes]
    # every run in one set of rounds: the curve operations both protocols price are timed once a round
    checked = validate_clocked_together([_validation_case(*case) for case in cases], "sage",
                                        cold_start=_cold_start_probe())
    runs = [{"protocol": protocol, "n": n, "m": m, "checks": [c.to_dict() for c in checks]}
            for (protocol, n, m), checks in zip(cases, checked)]
    return {"scheme": "mixnet", "backend": "sage", **runs_result(runs, scheme="mixnet")}


def _validation_case(protocol: str, n: int, m: int) -> tuple:
    """One protocol's run at (n, m) for ``validation.validate_clocked_together``: (run(clock), its
    whole run's counts per step, replay(clock))."""
    from ...prices.replay import Replay
    from . import dbrsm, dbsm
    from .curves import groups
    G = groups("bn254")
    rng = random.Random(f"costbook mixnet validation/{protocol}/{n}/{m}")
    mo = dbsm.mix_outputs(G, n, m, rng)
    if protocol == "DB-SM":
        query, counts = (lambda r, **clock: dbsm.query(G, mo, r, **clock)), dbsm.step_counts(n, m, "bn254")
    else:
        pfs = dbrsm.sender_proofs(G, mo, rng)
        query, counts = (lambda r, **clock: dbrsm.query(G, mo, pfs, r, **clock)), dbrsm.step_counts(n, m, "bn254")
    # the interpreter's work of each step: a run replayed with its priced calls answered from a record
    replay = Replay(G.priced_calls(), seed=f"costbook mixnet replay/{protocol}/{n}/{m}")
    replay.record(query)
    return (lambda clock: query(rng, clock=clock), run_counts(counts, m),
            lambda clock: replay.replay(lambda r: query(r, clock=clock)))


def _cold_start_probe() -> tuple:
    """A step's cold start in these runs (``validation.validate_clocked_together``): (before, first),
    a pairing, the work every run's last steps end with and what each timed run starts after, and two
    G1 multiplications, which the probe times right after a pairing and again warm.  The first
    multiplication after a pairing is slower than the next (after a G_T exponentiation barely, after a
    sweep over a large array not at all): that shows in a short step such as Q0, hardly in an M step."""
    from .curves import groups
    C = groups("bn254").C
    P, Q = C.G1, C.G2
    rng = random.Random("costbook mixnet cold start")
    k1, k2 = (rng.randrange(1, C.r) for _ in range(2))
    return (lambda: C.pairing(P, Q)), (lambda: (C.g1_mul(k1, P), C.g1_mul(k2, P)))


def format_validation(result: dict) -> str:
    from ...calibration.validation import format_runs
    return format_runs(result, ["protocol", "n", "m"])


# ---------------------------------------------------------------------------
# The reproduction ledger (costbook.views.ledger): every figure seed 003 prints, and its sample report

REPORT_KEY = "repo-traceable-mixnets"           # the sample report is a file of the artifact's repository
REPORT_FIGURES = 2                               # the report prints 2 significant figures


def _scaled_claims() -> list:
    """The seed's own scalings of the baselines to n = 10^4 proofs: (figure id, lines, what, printed, seconds)."""
    t, n = published_times(), N_SEED
    r = published_ratios()
    return [
        ("claim:mixnet:groth16 prove x n", (241,), "Groth16 prove x n (single prover)", "21700 s", n * t["zksnark_sm_prove_s"]),
        ("claim:mixnet:collab zksnark sm", (143, 241), "collaborative zkSNARK, set membership, per prover",
         "43400 s", r[0].baseline_s),
        ("claim:mixnet:collab zksnark rsm", (147,), "collaborative zkSNARK, reverse set membership, per prover",
         "43400 s", r[1].baseline_s),
        ("claim:mixnet:groth16 verify x n", (242,), "Groth16 verify x n", "50 s", n * t["zksnark_verify_s"]),
        ("claim:mixnet:cpsnark prove x n", (269, 143), "cpSNARK-Set prove x n", "2200 s", n * t["cpsnark_prove_s"]),
        ("claim:mixnet:cpsnark verify x n", (270,), "cpSNARK-Set verify x n", "310 s", n * t["cpsnark_verify_s"]),
        ("claim:mixnet:cpsnark witness x n", (271,), "RSA-accumulator witness x n", "7830 s", n * t["cpsnark_witness_s"]),
        ("claim:mixnet:cpsnark total", (271,), "cpSNARK-Set prover total, n x (prove + witness)", "10030 s", r[2].baseline_s),
    ]


#: seed 003 line 219: verification times "a miniscule (<0.03) fraction of the zkSNARK prover times"
VERIFY_FRACTION_LINE = 219


def ledger_claims() -> dict:
    """The figures seed 003 prints that are not in a published file: its ratios and scaled baselines."""
    out = {f"claim:mixnet:ratio {r.seed_says}": ("seed-mixnet", r.seed_line) for r in published_ratios()}
    out["claim:mixnet:verify fraction"] = ("seed-mixnet", VERIFY_FRACTION_LINE)
    out.update({f: ("seed-mixnet", lines[0]) for f, lines, *_ in _scaled_claims()})
    return out


def ledger_rows() -> list:
    """The seed's figures, the report's lines, sub-totals and totals: out-of-sample rows first."""
    from ...views import ledger as L
    from . import artifact as A
    ours, base = published_sources()
    note_file = ours.provenance["seed"]
    rows = L.echoed_rows("mixnet", base, quantity=lambda b, k, e: f"{b} {k.split('/', 1)[1].replace('/', ' ')}, published price")
    cal = A.calibrate()
    doc = "sample report"          # sample-reports/report-db-sm-rsm-n10000-m4 at the cited commit

    def pair(figure, seed_file, line, what, printed, loo, fitted, how, document=""):
        common = dict(figure=figure, document=document, significant=REPORT_FIGURES)
        return [L.row("mixnet", seed_file, line, what, printed, loo, "leave-one-out", how, **common),
                L.row("mixnet", seed_file, line, what, printed, fitted, "fitted", "in-sample NNLS fit", **common)]

    totals = {A.total_key(*sp): t for sp, t in zip(A.TOTALS, A.loo_totals(cal))}
    for b, seed_file, document in (("traceable-mixnets-bn254", note_file, ""), (A.BACKEND, REPORT_KEY, doc)):
        for k in ours.keys(b):
            if k in totals:
                label, pub, line, loo, fitted = totals[k][:5]
                e = ours.entry(b, k)
                rows += pair(L.entry_figure(ours, b, k), seed_file, e["line"], f"total: {label}", L.entry_printed(e),
                             loo, fitted, "sum of the lines' leave-one-out predictions", document)
    for s, pub, line, pred, loo in cal.rows:
        e = ours.entry(A.BACKEND, s.key())
        what = f"{s.section} {s.party}: {s.label}"
        if s.fitted:
            printed = L.entry_printed(e)
            rows += pair(L.entry_figure(ours, A.BACKEND, s.key()), REPORT_KEY, line, what, printed,
                         loo, pred, L.loo_note("refit without this line", printed, loo, cal.pivots[s.key()]), doc)
        else:
            rows.append(L.row("mixnet", REPORT_KEY, line, what, L.entry_printed(e), pred, "predicted",
                              "left out of the fit", L.entry_figure(ours, A.BACKEND, s.key()), doc,
                              REPORT_FIGURES))
    for key, pub, line, loo, fitted in A.report_subtotals(cal):
        rows += pair(L.entry_figure(ours, A.BACKEND, key), REPORT_KEY, line,
                     f"sub-total: {key.split('/')[2]} {key.split('/')[3]} ({key.split('/')[4]})",
                     L.entry_printed(ours.entry(A.BACKEND, key)), loo, fitted,
                     "sum of the lines since the previous total, leave-one-out", doc)
    for r in published_ratios():
        erratum = L.SEED_ERRATA.get(("mixnet", r.seed_line), "")
        rows.append(L.row("mixnet", note_file, r.seed_line, f"{r.name}: {r.baseline} / {r.ours}", r.seed_says,
                          r.ratio, "computed", erratum or f"{r.baseline_s:.0f} s / {r.ours_s:.0f} s",
                          f"claim:mixnet:ratio {r.seed_says}"))
    for figure, lines, what, printed, seconds in _scaled_claims():
        rows.append(L.row("mixnet", note_file, list(lines), what, printed, seconds, "computed", "", figure))
    # a bound, not a value: which prover time it divides by is not stated, so nothing is computed
    verifiers = max(ours.seconds(b, A.total_key(sec, "verifier")) for b, sec in
                    (("traceable-mixnets-bn254", "dbsm"), (A.BACKEND, "dbrsm")))
    p = published_ratios()[0].baseline_s
    rows.append(L.row("mixnet", note_file, VERIFY_FRACTION_LINE, "verifier time / zkSNARK prover time (a bound)",
                      "<0.03", None, "echoed", f"largest verifier time / collaborative prover: {verifiers:.0f} s / "
                      f"{p:.0f} s = {verifiers / p:.3f}; against one prover {2 * verifiers / p:.3f}",
                      "claim:mixnet:verify fraction"))
    return rows


# ---------------------------------------------------------------------------
# The scheme contract (tests/test_scheme_contract.py): the counts estimate prices against the code's

#: the smallest queries (on BN254; the BLS12-381 code is the same code on another curve): n and m vary
COUNT_POINTS = ({"n": 1, "m": 2, "curve": "bn254"}, {"n": 2, "m": 3, "curve": "bn254"})


def code_counts(source, n: int = N_SEED, m: int = M_SEED, curve: str = "bn254", security: str = "malicious") -> dict:
    """{label of each party's price call (``protocol_estimate``): the counts one honest query of the Sage
    code at (n, m) tallies, as `source` prices them (``as_priced``)}: a mix-server's, the querier's and
    the whole query's (every tally of the query, its m mix-servers and querier)."""
    from contextlib import contextmanager
    from . import dbrsm, dbsm
    from .curves import groups
    Parameters(n, m, curve, security)
    check_validation_options("mixnet", VALIDATION_BOUNDS, {"n": n, "m": m})
    G, order = groups(curve), _curve_order(source, None)
    out = {}
    for protocol, module in (("dbsm", dbsm), ("dbrsm", dbrsm)):
        rng = random.Random(f"costbook mixnet contract/{protocol}/{n}/{m}")
        steps = {}

        @contextmanager
        def clock(step):
            with counting() as c:
                yield
            steps[step] = steps.get(step, Counts()) + c
        mo = dbsm.mix_outputs(G, n, m, rng)
        pfs = dbrsm.sender_proofs(G, mo, rng) if protocol == "dbrsm" else None
        with counting() as whole:
            (dbsm.query(G, mo, rng, clock=clock) if protocol == "dbsm" else dbrsm.query(G, mo, pfs, rng, clock=clock))
        parties = {"mixer": sum((c for s, c in steps.items() if s.startswith("M")), Counts()) * (1 / m),
                   "querier": sum((c for s, c in steps.items() if s.startswith("Q")), Counts()), "total": whole}
        for party, c in parties.items():
            out[sage_label(protocol, party)] = as_priced(c, source, order)[0]
    return out
