"""CS03 cost models: the seed's counts and the scheme's own (counts.py), priced by the cost core.

Two models of the same four steps (encrypt, prove, verify, decrypt):

* ``seed_counts``: the exponentiations the seed note (002) counts, all in Z_{n^2}, with
  its exponent lengths ("log(n)-bit", 256-bit, "2k-bit" = 512, "n^2-bit").  Priced with the
  seed's rounded crypto-bigint prices they give the seed's printed estimates exactly.
* ``spec_counts``: what the Sage implementation in this package actually computes, exponent
  by exponent, in Z_{n^2}, Z_N and Gamma, as a formula in L = |n|, |N|, k, k', |rho|.  The
  chapter checks it against the counts tallied by running the code.

``estimate`` prices either model with any measurement file (the CLI's ``costbook
estimate cs03``); ``validate`` times the implementation step by step against its counts.
"""
from __future__ import annotations

import random

from ...prices.cost import Counts, price
from ...prices.counting import counting
from ...calibration.intervals import fmt_interval, fmt_of, spreadless
from ...prices.timed import Timed, time_keys, timed
from ...prices.keys import modexp_keys, sizes
from ...prices import defaults, measurements
from ...writing.report import fmt_time
from .. import StepGroup, option_words, options, value_words
from . import seed
from .counts import seed_counts, seed_sizes, spec_counts, spec_sizes  # noqa: F401 - also model's names
from .counts import model_counts
from .seed import ESTIMATES, PARAMETER_SETS, PUBLISHED, SEED_PRINTED_SIZES, Parameters, ParameterSet  # noqa: F401

STEPS = ("encrypt", "prove", "verify", "decrypt")

OPTIONS = options(Parameters)
#: backend -> the keys the quick profile measures for it (costbook.timing.priced): what its estimates read
#: (GMP's constant-time powering, libsodium) at every point of its page, and chapter 4's prices in each modexp
#: backend (GMP's plain powering, PARI and Sage next to it), with the sizes around them that the rules for
#: other sizes read
PRICED_KEYS = {
    "gmp-sec": modexp_keys((2048, 3072, 4096, 6144, 8192)),
    "gmp": modexp_keys((4096, 6144, 8192)),
    "pari": modexp_keys((3072, 4096, 6144, 8192)),
    "sage": modexp_keys((2048, 3072, 4096, 6144, 8192)),
    "libsodium": ("ristretto255/decode", "ristretto255/mul"),
}
OPTION_WORDS = option_words(Parameters)
VALUE_WORDS = value_words(Parameters)

#: the steps `estimate` prices (each labelled with its name in the chapter's tables), as the
#: chapter's live estimate groups them
STEP_GROUPS = (
    StepGroup("CS03's four steps, with {model} counts", STEPS),
)

#: options that only the spec model uses: given with the seed model, the CLI refuses them (the
#: seed's masks are 2k bits, it has no k', |rho| or CRT decryption) instead of dropping them
OPTION_APPLIES = {"k_prime": {"model": ("spec",)}, "rho_bits": {"model": ("spec",)}, "crt": {"model": ("spec",)}}

#: the published source's backends: the seed's rounded prices (what its own arithmetic multiplies)
PUBLISHED_BACKENDS = ["crypto-bigint-rounded", "curve25519-dalek"]


# ---------------------------------------------------------------------------
# Pricing

def _pricing_source(source: measurements.MeasurementSet, backends, needs_gamma: bool):
    """The set and backend list to price with.  A published source has no price for Gamma's
    operations; they take the one published elsewhere (``seed.GAMMA_PRICES``: a negligible share of the
    total)."""
    if backends is not None:
        return source, list(backends)
    if source.kind == "published":
        source = rounded_with_ranges(source)
        order = [b for b in PUBLISHED_BACKENDS if b in source.backends]
        gamma_backends = [seed.GAMMA_PRICES[1], seed.GAMMA_SCALED[0]]
        if needs_gamma and not any(b in source.backends for b in gamma_backends):
            source = measurements.combine(source, seed.gamma_prices())
            order.extend(gamma_backends)
        return source, order or None
    return source, defaults.order(["modexp", "ristretto255"], source=source) or None


def rounded_with_ranges(source: measurements.MeasurementSet) -> measurements.MeasurementSet:
    """`source` with each rounded price bounded by the interval its benchmark prints (criterion's,
    on the same key of ``crypto-bigint``), widened to contain the rounded value: the seed multiplies
    the rounded numbers, and the benchmark's spread is how well they are known.  Unchanged when the
    source has no such pair of backends."""
    rounded, bench = PUBLISHED_BACKENDS[0], "crypto-bigint"
    if rounded not in source.backends or bench not in source.backends:
        return source
    entries = {}
    for key, e in source.results[rounded].items():
        e = dict(e)
        if source.has(bench, key) and "low" in source.entry(bench, key) and "low" not in e:
            scale = measurements.UNITS[e["unit"]]
            low, high = source.bounds(bench, key)
            e.update(low=min(low / scale, e["median"]), high=max(high / scale, e["median"]),
                     range_from=f"{bench} {key}: the benchmark's interval, widened to contain the rounded price")
        entries[key] = e
    return measurements.validate({**source.to_json(), "results": {**source.results, rounded: entries}},
                                 source.path or "<memory>")


def price_steps(counts: dict, source, backends=None) -> dict:
    """{step: Estimate} for a dict of step counts; derived modexp prices allowed and noted."""
    needs_gamma = any(not key.startswith("modexp/") for c in counts.values() for key in c)
    mset, order = _pricing_source(source, backends, needs_gamma)
    return {step: price(c, mset, order, label=step, derive=True) for step, c in counts.items()}


def price_models(source, backends=None, k: int = 256, k_prime: int = 128, rho_bits: int = 256) -> dict:
    """Both models for both parameter sets: {name: (seed's estimates, spec estimates, spec CRT decrypt)}."""
    out = {}
    for name, ps in PARAMETER_SETS.items():
        seed = price_steps(seed_counts(ps.n_bits, k), source, backends)
        spec = price_steps(spec_counts(ps.n_bits, k, k_prime, rho_bits), source, backends)
        crt = price_steps({"decrypt": spec_counts(ps.n_bits, k, k_prime, rho_bits, crt=True)["decrypt"]},
                          source, backends)["decrypt"]
        out[name] = (seed, spec, crt)
    return out


def estimate(source, backends=None, **options) -> dict:
    """The CLI's `costbook estimate cs03`: per-step estimates, P, V and sizes, JSON-ready.
    `options` are the fields of ``seed.Parameters`` (checked there)."""
    p = Parameters(**options)
    L, k, k_prime, rho_bits, use_crt = p.n_bits, p.challenge_bits, p.k_prime, p.rho_bits, p.use_crt
    steps = price_steps(model_counts(p.model, L, k, k_prime, rho_bits, use_crt), source, backends)
    sizes = seed_sizes(L, k) if p.model == "seed" else spec_sizes(L, k, k_prime, rho_bits)
    P, V = time_keys("P", "ms"), time_keys("V", "ms")        # the prover's and the verifier's time
    return timed({
        "scheme": "cs03", "model": p.model, "params": p.params, "n_bits": L, "k": k,
        **({"k_prime": k_prime, "rho_bits": rho_bits, "crt": use_crt} if p.model == "spec" else {}),
        "source": steps["encrypt"].source,
        "steps": {s: e.to_dict() for s, e in steps.items()},
        "ms": {s: e.ms for s, e in steps.items()}},
        Timed({P.value: steps["encrypt"].ms + steps["prove"].ms,
               P.low: (steps["encrypt"].low + steps["prove"].low) * 1e3,
               P.high: (steps["encrypt"].high + steps["prove"].high) * 1e3,
               V.value: steps["verify"].ms, V.low: steps["verify"].low * 1e3, V.high: steps["verify"].high * 1e3},
              [P, V]),
        prices_without_spread=spreadless(_pricing_source(source, backends, True)[0], steps.values()),
        sizes_bytes={k_: v for k_, v in sizes.items() if k_ != "proof_parts"})


def format_estimate(result: dict) -> str:
    head = (f"CS03, {result['model']} model, {result['params']} (n of {result['n_bits']} bits), "
            f"priced with {result['source']}")
    rows = [f"  {s:<8} {fmt_of(step):>10}" for s, step in result["steps"].items()]
    ms = lambda q: fmt_interval(result[f"{q}_ms"] / 1e3, result[f"{q}_low_ms"] / 1e3, result[f"{q}_high_ms"] / 1e3)
    tail = [f"  P = encrypt + prove = {ms('P')},  V = verify = {ms('V')}",
            f"  |C| = {result['sizes_bytes']['ciphertext']} B, |proof| = {result['sizes_bytes']['proof']} B"]
    if result.get("prices_without_spread"):
        tail.append("  prices without a spread (their bounds are their value): "
                    + ", ".join(result["prices_without_spread"]))
    return "\n".join([head] + rows + tail)


def reproduce_seed() -> list:
    """The seed's printed estimates next to the seed's formulas priced with its rounded prices.

    Returns rows (params, quantity, computed, printed, seed line) for every printed number.
    """
    prices, printed = seed.published_source(), seed.printed_estimates()
    rows = []
    for ps in PARAMETER_SETS.values():
        est = price_steps(seed_counts(ps.n_bits), prices, ["crypto-bigint-rounded"])
        computed = {s: est[s].ms for s in STEPS}
        computed["prover_total"] = computed["encrypt"] + computed["prove"]
        computed["verifier_total"] = computed["verify"]
        backend = f"seed-estimate-{ps.name}"
        for q, value in computed.items():
            entry = printed.entry(backend, f"step/cs03/{q}")
            rows.append((ps.name, q, value, printed.seconds(backend, f"step/cs03/{q}") * 1e3, entry["line"], "ms"))
        for q, value in seed_sizes(ps.n_bits).items():
            pub, line = SEED_PRINTED_SIZES[ps.name][q]
            rows.append((ps.name, f"{q} size", value, pub, line, "B"))
    return rows


# ---------------------------------------------------------------------------
# Running the implementation: counts by tally, and validation

def run_steps(bits: int, params=None, seed: int = 2003, crt: bool = False):
    """Run encrypt, prove, verify and decrypt once on the fixture key of `bits` bits.

    Returns (tallied counts per step, callables that repeat each step) with a seeded RNG,
    so the counts are reproducible.
    """
    from . import fixtures
    from .proof import Parameters, Statement, prove, verify
    from .scheme import decrypt, encrypt
    from ...groups import ristretto255 as Gamma
    params = params or Parameters()
    sk, aux = fixtures.load(bits)
    pk, rng = sk.pk, random.Random(seed)
    m, label = Gamma.random_scalar(rng), b"costbook cs03 validation"
    counts = {}
    with counting() as c:
        C, w = encrypt(pk, m, label, rng)
    counts["encrypt"] = c
    st = Statement(pk, aux, C, label, Gamma.GENERATOR * m)
    with counting() as c:
        pi = prove(st, w, params, rng)
    counts["prove"] = c
    with counting() as c:
        ok = verify(st, pi, params)
    counts["verify"] = c
    with counting() as c:
        got = decrypt(sk, C, label, crt=crt)
    counts["decrypt"] = c
    if not ok or got != m:
        raise AssertionError("CS03 run failed: the honest proof must verify and decrypt to m")
    steps = {
        "encrypt": lambda: encrypt(pk, m, label, rng),
        "prove": lambda: prove(st, w, params, rng),
        "verify": lambda: verify(st, pi, params),
        "decrypt": lambda: decrypt(sk, C, label, crt=crt),
    }
    return counts, steps


#: the parameter set a validation runs by default (its chapter's table and the tests; --params picks the
#: other; validate(params="both") from Python runs both): the smaller modulus.  The two sets run the
#: same code, step for step, with a 3072- or a 4096-bit modulus, and every exponentiation of either is
#: a key measured in the same rounds, so the conservative set checks the same claim (the
#: exponentiations are the cost) only at more time: a validation runs at the smallest size that
#: checks its claim.
VALIDATION_PARAMS = "aggressive"


def validate(params=VALIDATION_PARAMS, **_ignored) -> dict:
    """Time each step of the Sage implementation against its tallied counts priced now (Sage backend)."""
    from ...calibration.validation import validation_runs
    sets = list(PARAMETER_SETS.values()) if params in ("both", None) else [PARAMETER_SETS[params]]

    def cases():
        for ps in sets:
            counts, steps = run_steps(ps.n_bits)
            yield {"params": ps.name, "n_bits": ps.n_bits}, steps, counts
    return {"scheme": "cs03", "backend": "sage", **validation_runs(cases(), scheme="cs03")}


def format_validation(result: dict) -> str:
    from ...calibration.validation import format_runs
    return format_runs(result, ["params"])


# ---------------------------------------------------------------------------
# The reproduction ledger (costbook.views.ledger): every figure seed 002 prints

#: the seed's "about 2x" (line 60): its crypto-bigint U2048^U2048 against openssl's RSA-4096 signature
TWO_X_LINE = 60


def ledger_claims() -> dict:
    """The figures seed 002 prints that are not in a published file: sizes and the 2x comparison."""
    out = {f"claim:cs03:{ps}:{q} size": ("seed-cs03", line)
           for ps, sizes in SEED_PRINTED_SIZES.items() for q, (_, line) in sizes.items()}
    out["claim:cs03:u2048 vs openssl"] = ("seed-cs03", TWO_X_LINE)
    return out


def ledger_rows() -> list:
    from ...views import ledger as L
    prices, printed = seed.published_source(), seed.printed_estimates()
    rows = L.echoed_rows("cs03", prices, ["crypto-bigint", "openssl"],
                         lambda b, k, e: f"{b} {k.replace('modexp/', 'modexp ')}: the seed's benchmark")
    for k in prices.keys("crypto-bigint-rounded"):       # the seed rounds its benchmark to the price it multiplies
        e = prices.entry("crypto-bigint-rounded", k)
        rows.append(L.row("cs03", seed.SEED_FILE, e["line"], f"rounded price {k.replace('modexp/', 'modexp ')}",
                          L.entry_printed(e), prices.seconds("crypto-bigint", k) * 1e3, "computed",
                          f"the benchmark (line {prices.entry('crypto-bigint', k)['line']}) rounded",
                          L.entry_figure(prices, "crypto-bigint-rounded", k)))
    for ps, q, value, _, line, unit in reproduce_seed():
        if unit == "B":
            rows.append(L.row("cs03", seed.SEED_FILE, line, f"{ps}: {q}", f"{SEED_PRINTED_SIZES[ps][q.split()[0]][0]} B",
                              value, "computed", figure=f"claim:cs03:{ps}:{q}"))
        else:
            b = f"seed-estimate-{ps}"
            e = printed.entry(b, f"step/cs03/{q}")
            rows.append(L.row("cs03", seed.SEED_FILE, line, f"{ps}: {q.replace('_', ' ')} estimate", L.entry_printed(e),
                              value, "computed", "PARI prints 35 decimals; the digits shown are the significant ones",
                              L.entry_figure(printed, b, f"step/cs03/{q}")))
    ratio = prices.seconds("crypto-bigint", "modexp/2048/2048") / prices.seconds("openssl", "rsa/4096/sign")
    rows.append(L.row("cs03", seed.SEED_FILE, TWO_X_LINE, "crypto-bigint U2048^U2048 / openssl RSA-4096 sign",
                      "2x", ratio, "computed", "'about 2x'", "claim:cs03:u2048 vs openssl"))
    return rows


# ---------------------------------------------------------------------------
# The scheme contract (tests/test_scheme_contract.py): the counts estimate prices against the code's

#: the spec model on the fixture keys (the code runs on committed keys of 3072 and 4096 bits)
COUNT_POINTS = ({"model": "spec", "params": "aggressive"},
                {"model": "spec", "params": "aggressive", "k": 128, "k_prime": 64, "rho_bits": 253, "crt": "yes"})
#: a tallied exponent is a random draw below its range's bound: at most this many bits shorter
DRAW_BITS = 8


def _nominal(tallied: Counts, formula: Counts) -> Counts:
    """The tallied exponentiations named by the formula's nominal lengths, modulus by modulus: the
    k-th shortest tallied exponent takes the k-th shortest nominal length when it is at most
    DRAW_BITS shorter; anything else keeps its own key (and so differs from the formula).  A
    multiplication by Gamma's generator (``ristretto255/mul_base``) is named ``ristretto255/mul``: the
    formula prices every exponentiation in Gamma as a variable-base one (``spec_counts``)."""
    out = Counts()
    rings = {}
    tallied = sum((Counts({k.replace("ristretto255/mul_base", "ristretto255/mul"): n}) for k, n in tallied.items()),
                  Counts())
    for side, counts in (("got", tallied), ("want", formula)):
        for key, n in counts.items():
            ring = sizes(key)["mod"] if key.startswith("modexp/") else key
            rings.setdefault(ring, {"got": [], "want": []})[side].extend([key] * int(n))
    for ring, sides in rings.items():
        bits = lambda k: sizes(k)["exp"] if k.startswith("modexp/") else 0
        got, want = sorted(sides["got"], key=bits), sorted(sides["want"], key=bits)
        fits = len(got) == len(want) and all(0 <= bits(w) - bits(g) <= DRAW_BITS for g, w in zip(got, want))
        for g, w in zip(got, want) if fits else ((g, g) for g in got):
            out.add(w)
    return out


def code_counts(source=None, params: str = "conservative", model: str = "seed", modulus_bits: int = 0, k: int = 0,
                k_prime: int = 128, rho_bits: int = 256, crt: str = "no") -> dict:
    """{label of each step's price call: the exponentiations running the code tallies}, each named by
    its nominal length (``_nominal``).  The spec model only (the seed's counts are the seed's, not this
    code's), at a modulus of the committed fixture keys."""
    from . import fixtures
    from .proof import Parameters as ProofParameters
    p = Parameters(params, model, modulus_bits, k, k_prime, rho_bits, crt)
    if p.model != "spec":
        raise ValueError("the code is the spec model's: its counts are compared at --model spec")
    counts, _ = run_steps(p.n_bits, ProofParameters(p.challenge_bits, p.k_prime), crt=p.use_crt)
    formula = model_counts("spec", p.n_bits, p.challenge_bits, p.k_prime, p.rho_bits, p.use_crt)
    return {s: _nominal(counts[s], formula[s]) for s in STEPS}
