"""The punch cards' cost model: the counts (counts.py, by running the code) priced, estimates, validation.

Counts.  ``count_steps`` (counts.py) runs one card from setup to redemption and returns one count
vector per step: per run of the step, so a punch step is one punch.

Prices (``prices``).  A measured file's native libraries (``native_prices``), or for a published
source the seed's laptop (``seed_machine_prices``: the stated prices, the rest scaled); "implied"
adds the factors the seed's own step times imply (``implied_factors``, fitted here because it needs
the counts); ``validate`` prices with Sage, measured in the same run.
"""
from __future__ import annotations

import copy

from ...prices.cost import price
from ...prices.derived import loo_pivot, nnls_relative, ratio_source, spread_of
from ...calibration.intervals import fmt_interval, fmt_of, spreadless
from ...prices.timed import interval
from ...prices.measurements import MeasurementSet
from .. import StepGroup, check_validation_options, option_words, options, value_words
from . import curves, mergeable, ristretto
from .counts import (CARD_LABELS, LOOKUP_LABEL, _rng, count_steps, encoding_sizes,  # noqa: F401 - also model's names
    message_sizes, per_redemption, size_formulas, spent_set_lookup)
from .prices import (NATIVE, SEED_BACKEND, SEED_FILE, _single, anchor_for, anchors, kind_of, native_prices,
    seed_machine_prices)
from .seed import (LABELS, PRICE_FILE, Parameters, STEPS, VARIANTS, published_prices, published_steps,
    step_key)

#: what `costbook estimate punchcard --source published` prices with (the seed's stated prices)
PUBLISHED = PRICE_FILE

OPTIONS = options(Parameters)
#: a validation runs the Sage code at every size the estimate admits (a card of up to 100 punches, a
#: spent set of up to a million)
VALIDATION_BOUNDS = {name: OPTIONS[name][1] for name in ("punches", "db_size")}
#: backend -> the keys the quick profile measures for it (costbook.timing.priced): what its estimates read
#: (native libraries) at every point of its page, and its chapter's Sage redemption against the spent-set size
PRICED_KEYS = {
    "libsodium": tuple(f"ristretto255/{op}" for op in ("decode", "from_hash", "mul", "mul_base", "scalar_inv")),
    "arkworks": tuple(f"bls12_381/{op}" for op in ("g1_decode", "g1_encode", "g1_mul", "g2_decode", "g2_encode",
                                                   "g2_mul", "hash_to_g1", "hash_to_g2", "pairing", "scalar_inv")),
    "python": tuple(f"hashset/lookup/{n}" for n in (1000, 10000, 100000, 1000000)),
    "sage": tuple(f"ristretto255/{op}" for op in ("decode", "encode", "from_hash", "mul", "mul_base", "scalar_inv")),
}
OPTION_WORDS = option_words(Parameters)
VALUE_WORDS = value_words(Parameters)

#: options used only in some estimates, refused by the CLI elsewhere instead of dropped: the
#: redemption check is the BLS12-381 merge's, and the model completes the seed's laptop (a
#: published source); a measured source is priced as it is
OPTION_APPLIES = {"redeem_check": {"curve": ("bls12_381",)}, "model": {"source": ("published",)}}

CLIENT_STEPS = ("client_setup", "client_punch", "client_redeem")
SERVER_STEPS = ("server_setup", "server_punch", "server_redeem")

#: the steps `estimate` prices, as the chapter's live estimate groups them
STEP_GROUPS = (
    StepGroup("Each step of the card, counted by running the Sage code (a punch step is one punch)",
              tuple(LABELS[s] for s in STEPS)),
    StepGroup("One card's whole life: setup, n punches, redemption (on BLS12-381, two cards of n/2 punches merged)",
              tuple(CARD_LABELS.values()),
              "Sums of the steps above: the shop's setup is once per shop and left out; what grows with the punches."),
    StepGroup("The spent-card check", (LOOKUP_LABEL,),
              "The hash-set probe inside the server's redemption: the only cost that grows with the set of spent cards."),
)


def implied_factors(curve: str, native: MeasurementSet, backends=None, punches: int = 10,
                    fit_steps=STEPS) -> dict:
    """What the seed's own step times imply about its unstated primitive prices.

    One multiplier per kind of unstated operation (e.g. all decodings), applied to its
    scaled price, fitted by non-negative least squares in relative terms to the laptop steps
    `fit_steps` (all six by default).  Kinds too small to matter (hash-set lookups), and kinds
    no fitted step performs, keep factor 1.  Returns the factors, the fitted prices, and the
    predicted time and relative residual of every step (in-sample for the fitted steps).
    """
    counts = count_steps(curve, punches, 0)
    keys = {k for c in counts.values() for k in c}
    base = seed_machine_prices(keys, curve, native, backends)
    stated = anchors(curve)
    kinds = sorted({kind_of(k) for k in keys if k not in stated and kind_of(k) != "lookup"})
    measured = {s: t for s, (t, _) in seed_measured(curve).items()}
    unknown = set(fit_steps) - set(STEPS)
    if unknown or not fit_steps:
        raise ValueError(f"fit_steps must be a non-empty subset of {STEPS}, got {fit_steps!r}")
    # a kind that none of the fitted steps performs cannot be fitted: it keeps its scaled price
    kinds = [kind for kind in kinds if any(kind_of(k) == kind and k not in stated
                                           for s in fit_steps for k in counts[s])]
    rows, fixed = {}, {}
    for s in STEPS:
        fixed[s] = sum(n * base.seconds(SEED_BACKEND, k) for k, n in counts[s].items()
                       if k in stated or kind_of(k) == "lookup")
        rows[s] = [sum(n * base.seconds(SEED_BACKEND, k) for k, n in counts[s].items()
                       if k not in stated and kind_of(k) == kind) for kind in kinds]
    # relative residuals: every step weighs the same, whatever its length
    x = nnls_relative([rows[s] for s in fit_steps], [measured[s] for s in fit_steps],
                      [fixed[s] for s in fit_steps], scale_columns=False)
    factors = dict(zip(kinds, x))
    # a fit to fewer steps may drive a kind to 0, which no price file admits: no fitted set then
    fitted = seed_machine_prices(keys, curve, native, backends, factors) if all(x) else None
    predicted = {s: fixed[s] + sum(a * f for a, f in zip(rows[s], x)) for s in STEPS}
    residuals = {s: measured[s] / predicted[s] - 1 for s in STEPS}
    return {"factors": factors, "prices": fitted, "predicted": predicted, "residuals": residuals,
            "kinds": kinds, "rows": rows, "fixed": fixed}


def implied_leave_one_out(curve: str, native: MeasurementSet, backends=None, punches: int = 10) -> dict:
    """Each laptop step predicted by the implied model fitted to the other five steps only:
    {step: {"seconds": predicted, "error": measured / predicted - 1, "factors": ..., "low_s", "high_s"}}.

    With 4-5 factors fitted to 6 steps the in-sample residuals are near zero by construction;
    these out-of-sample errors are what the implied model is worth as a predictor.  The interval
    prices the step's counts at the low and high bound of each scaled price times the smallest and
    largest factor of its kind over all seven fits (``implied_factor_bounds``); the refit's own
    factors are among them, so the prediction lies inside."""
    fits = {s: implied_factors(curve, native, backends, punches, fit_steps=tuple(t for t in STEPS if t != s))
            for s in STEPS}
    full = implied_factors(curve, native, backends, punches)
    kinds = full["kinds"]
    rows = {s: full["rows"][s] for s in STEPS}
    bounds = implied_factor_bounds(curve, native, backends, loo_fits=[f["factors"] for f in fits.values()])
    counts = count_steps(curve, punches, 0)
    base = seed_machine_prices({k for c in counts.values() for k in c}, curve, native, backends)
    out = {}
    for s, fit in fits.items():
        ends = [sum(n * base.bounds(SEED_BACKEND, k)[end] * bounds.get(kind_of(k), (1.0, 1.0))[end]
                    for k, n in counts[s].items()) for end in (0, 1)]
        # a kind the refit cannot fit keeps factor 1, as in its predictions
        pivot = loo_pivot(rows, s, [full["factors"][k] for k in kinds],
                          [fit["factors"].get(k, 1.0) for k in kinds], kinds, full["fixed"])
        out[s] = {"seconds": fit["predicted"][s], "error": fit["residuals"][s], "factors": fit["factors"],
                  "low_s": min(ends[0], fit["predicted"][s]), "high_s": max(ends[1], fit["predicted"][s]),
                  "pivot": pivot}
    return out


# ---------------------------------------------------------------------------
# Estimates

def price_steps(counts: dict, mset: MeasurementSet, backends=None) -> dict:
    return {s: price(c, mset, backends, label=LABELS[s]) for s, c in counts.items()}


def priced_set(curve: str, source: MeasurementSet, keys, backends=None, model: str = "scaled",
               native: MeasurementSet | None = None) -> MeasurementSet:
    """The prices an estimate uses: the seed's machine for a published source (its ratios from
    `native`, by default the committed reference machine), else `source`."""
    if source.kind == "published":
        nat = ratio_source(native)
        if model != "implied":
            return seed_machine_prices(keys, curve, nat, backends)
        factors = implied_factors(curve, nat, backends)["factors"]
        return seed_machine_prices(keys, curve, nat, backends, factors, implied_factor_bounds(curve, nat, backends))
    return native_prices(keys, curve, source, backends)


def implied_factor_bounds(curve: str, native: MeasurementSet, backends=None, loo_fits=None) -> dict:
    """{kind: (low, high)}: each implied factor's spread, its smallest and largest value over the fit to
    all six steps and the six leave-one-out refits (a kind a refit cannot fit keeps factor 1 there,
    as its price does in that refit's predictions); `loo_fits`, the refits' factors if already made."""
    fits = [implied_factors(curve, native, backends)["factors"]]
    if loo_fits is None:
        loo_fits = [implied_factors(curve, native, backends, fit_steps=tuple(t for t in STEPS if t != s))["factors"]
                    for s in STEPS]
    fits += list(loo_fits)
    kinds = sorted(fits[0])
    low, high = spread_of([[f.get(kind, 1.0) for kind in kinds] for f in fits])
    return {kind: (lo, hi) for kind, lo, hi in zip(kinds, low, high)}


def estimate(source: MeasurementSet, backends=None, curve: str = "ristretto255", punches: int = 10,
             db_size: int = 0, redeem_check: str = "single", model: str = "scaled",
             native: MeasurementSet | None = None, **_ignored) -> dict:
    """Per-step times of the punch cards priced with `source` (JSON-ready).

    A published `source` (the seed's prices) is completed to the seed's machine
    (``seed_machine_prices``; `model` "implied" adds the factors its steps imply), scaling
    the ratios of `native` (a measured set; by default the committed reference machine, so the
    result does not depend on where it runs); a measured one is used with `backends` (default: the native
    libraries) as the preference list.
    """
    Parameters(curve, punches, db_size, redeem_check, model)          # checked: bounds and choices
    counts = count_steps(curve, punches, db_size, redeem_check)
    keys = {k for c in counts.values() for k in c}
    prices = priced_set(curve, source, keys, backends, model, native)
    est = price_steps(counts, prices)
    per_card = {side: price(c, prices, label=CARD_LABELS[side])
                for side, c in per_redemption(counts, curve, punches).items()}
    lookup = price(spent_set_lookup(counts), prices, label=LOOKUP_LABEL)
    out = {
        "scheme": "punchcard", "curve": curve, "punches": punches, "db_size": db_size,
        "redeem_check": redeem_check if curve == "bls12_381" else None,
        "model": model if source.kind == "published" else None,
        "source": source.name, "priced_with": prices.name,
        "prices": {k: _price_row(prices, k) for k in sorted(keys)},
        "steps": {s: interval(est[s], counts=dict(counts[s]), breakdown=est[s].to_dict()["breakdown"])
                  for s in STEPS},
        "per_redemption": {side: e.total for side, e in per_card.items()},
        "per_redemption_interval": {side: interval(e) for side, e in per_card.items()},
        "spent_set_lookup": interval(lookup),
        "prices_without_spread": spreadless(prices, [*est.values(), *per_card.values(), lookup]),
        "message_bytes": message_sizes(curve, redeem_check),
    }
    if source.kind == "published" and (curve, redeem_check) != ("bls12_381", "two"):
        published = seed_measured(curve, db_size)
        if published and punches == 10:
            out["seed_measured"] = {s: {"seconds": t, "variant": v} for s, (t, v) in published.items()}
    return out


def _price_row(prices: MeasurementSet, key: str) -> dict:
    seconds, backend, e = _single(prices, key)
    note = e.get("basis") or e.get("note")
    low, high = prices.bounds(backend, key)
    return {"seconds": seconds, "low_s": low, "high_s": high, "backend": backend,
            **({"note": note} if note else {}), **({"no_spread": e["no_spread"]} if e.get("no_spread") else {})}


def seed_measured(curve: str, db_size: int = 0, machine: str = "laptop") -> dict:
    """The seed's measured per-step times for a machine/curve/database (empty if not published)."""
    steps = published_steps()
    for variant, (m, c, db) in VARIANTS.items():
        if (m, c, db) == (machine, curve, db_size) and variant in steps.backends:
            return {s: (steps.seconds(variant, step_key(curve, s)), variant) for s in STEPS}
    return {}


def seed_printed(curve: str, step: str, machine: str = "laptop") -> str | None:
    """The seed's measured time of one step as it prints it ("64.278 µs", "4.00 ms": ``seed.Average``),
    or None where it did not measure the step or states no average for it."""
    from .seed import averages
    measured = seed_measured(curve, machine=machine)
    if step not in measured:
        return None
    return next(a.printed for a in averages() if (a.variant, a.step) == (measured[step][1], step))


def format_estimate(result: dict) -> str:
    from ...writing.report import Table, fmt_time
    head = (f"punch card on {result['curve']}, {result['punches']} punches, "
            f"database of {result['db_size']:,} spent cards"
            + (f", {result['redeem_check']}-pairing redemption check" if result.get("redeem_check") else "")
            + f"\npriced with: {result['priced_with']}")
    measured = result.get("seed_measured", {})
    cols = ["step", "predicted [interval]", "bytes sent"] + (
        ["seed measured", "measured/predicted - 1", "in interval"] if measured else [])
    t = Table(cols)
    for s in STEPS:
        step = result["steps"][s]
        p = step["seconds"]
        row = [LABELS[s], fmt_of(step), result["message_bytes"][s]]
        if measured:
            m = measured[s]["seconds"]
            row += [fmt_time(m), f"{m / p - 1:+.1%}", "yes" if step["low_s"] <= m <= step["high_s"] else "no"]
        t.add(*row)
    pc = result["per_redemption_interval"]
    tail = (f"one redemption of {result['punches']} punches, setup to redeem: client {fmt_of(pc['client'])}, "
            f"server {fmt_of(pc['server'])}")
    lines = [head, t.to_text(), tail]
    if result.get("prices_without_spread"):
        lines.append("prices without a spread (their bounds are their value): "
                     + ", ".join(result["prices_without_spread"]))
    return "\n".join(lines)


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
# What a validation's error is made of (its prediction interval's margin comes from the committed
# runs, costbook.calibration.uncertainty): every step is scalar multiplications, encodings and hashes the counts
# price, but inside a step they alternate: the Chaum–Pedersen proof's fixed-base multiplication reads a
# table of 1024 points that PARI's variable-base multiplication has just evicted, and the proof ran 5%
# over the same two multiplications timed each in its own loop (879 against 837 µs for ristretto255).
# The BLS12-381 card's setup hashes to G2 once, and PARI's square root in F_p^2 draws random elements:
# one hash of the same message takes 5.4 to 10.8 ms, so a sample of a few setups scatters by several
# percent.


def validate(curve: str = "ristretto255", punches: int = 10, db_size: int = 0,
             redeem_check: str = "single", profile=None, **_ignored) -> dict:
    """Time each step of the Sage code and compare it with its counts priced in Sage, now."""
    from ...calibration.validation import runs_result, validate_steps
    check_validation_options("punchcard", VALIDATION_BOUNDS, {"punches": punches, "db_size": db_size})
    counts = count_steps(curve, punches, db_size, redeem_check)
    steps = sage_steps(curve, punches, db_size, redeem_check)
    checks = [c.to_dict() for c in validate_steps(steps, counts, "sage", profile)]
    # one run, labelled as validate's other results are (costbook validate takes the median of several)
    run = {"curve": curve, "punches": punches, "db_size": db_size,
           "redeem_check": redeem_check if curve == "bls12_381" else None, "checks": checks}
    return {"scheme": "punchcard", "backend": "sage", **runs_result([run], scheme="punchcard")}


def format_validation(result: dict) -> str:
    from ...writing.report import Table, fmt_time
    from ...calibration.validation import process_cell, summary_line, yes_no
    run = result["runs"][0]
    several = result.get("processes", 1) > 1
    t = Table(["step", "predicted [interval]", "measured (median)", "quartiles", "error", "in interval"]
              + (["error in each process"] if several else []),
              caption=f"punch card on {run['curve']}, Sage code, predicted from counts x Sage prices "
                      f"measured in the same run")
    for c in run["checks"]:
        t.add(LABELS[c["step"]], fmt_interval(c["predicted_s"], c["predicted_low_s"], c["predicted_high_s"]),
              fmt_time(c["measured_s"]), f"{fmt_time(c['measured_q1_s'])} – {fmt_time(c['measured_q3_s'])}",
              f"{c['error']:+.1%}", yes_no(c["inside"]), *([process_cell(c)] if several else []))
    return t.to_text() + "\n" + summary_line(result)


# ---------------------------------------------------------------------------
# The reproduction ledger (costbook.views.ledger): every figure seed 000 prints

#: seed 000 line 63: "1M exponentiations ... about 50 seconds. The speedup is about 8 orders of magnitude."
SPEEDUP_LINE = 63


def ledger_claims() -> dict:
    """The figures seed 000 prints that are not in a published file: message sizes and the speedup."""
    from . import seed
    out = {f"claim:punchcard:{s.curve}:{s.step} bytes": ("seed-punchcard", s.line) for s in seed.STATED_SIZES}
    out["claim:punchcard:scan seconds"] = ("seed-punchcard", SPEEDUP_LINE)
    out["claim:punchcard:orders"] = ("seed-punchcard", SPEEDUP_LINE)
    return out


def seed_step_models(curve: str, native: MeasurementSet | None = None) -> dict:
    """The laptop's step times by the two models, out of sample first: {step: [(status, seconds, how, pivot)]}:
    scaled (predicted: stated prices, the rest scaled from `native`), implied refit without the step
    (leave-one-out), implied fitted to all six (fitted)."""
    nat = ratio_source(native)
    counts = count_steps(curve, 10, 0)
    scaled = price_steps(counts, seed_machine_prices({k for c in counts.values() for k in c}, curve, nat))
    fitted, loo = implied_factors(curve, nat)["predicted"], implied_leave_one_out(curve, nat)
    return {s: [("predicted", scaled[s].total, f"scaled model (stated prices; ratios of {nat.name})", None),
                ("leave-one-out", loo[s]["seconds"], "implied factors fitted to the other five steps", loo[s]["pivot"]),
                ("fitted", fitted[s], "implied factors fitted to all six steps", None)] for s in STEPS}


def ledger_rows() -> list:
    from ...views import ledger as L
    from . import seed
    prices, steps = published_prices(), published_steps()
    models = {v: seed_step_models(c) for v, (machine, c, db) in VARIANTS.items() if (machine, db) == ("laptop", 0)}
    rows = L.echoed_rows("punchcard", prices, quantity=lambda b, k, e: f"{b}: {k}, stated price")
    by_entry = {(a.variant, a.step): a for a in seed.averages(steps)}
    for variant in steps.backends:
        for step in STEPS:
            key = step_key(VARIANTS[variant][1], step)
            e, a = steps.entry(variant, key), by_entry[(variant, step)]
            what = f"{variant}: {LABELS[step].lower()}"
            figure = L.entry_figure(steps, variant, key)
            if a.stated is not None:       # the average the seed prints: cumulative / iterations
                scale = {"us": 1, "ms": 1000}[a.stated_unit]
                erratum = L.SEED_ERRATA.get(("punchcard", a.stated_line), "")
                rows.append(L.row("punchcard", SEED_FILE,
                                  a.stated_line, f"{what}, average", f"{a.stated:.{a.decimals}f} {a.stated_unit}",
                                  a.average_us / scale, "computed",
                                  erratum or f"{a.cumulative_us} µs / {a.iterations} (line {a.line})", figure + ":stated"))
                printed = rows[-1].printed
                for status, seconds, how, pivot in models.get(variant, {}).get(step, []):
                    rows.append(L.row("punchcard", SEED_FILE, a.stated_line, f"{what}, average", printed,
                                      seconds * 1e6 / scale, status, L.loo_note(how, printed, seconds * 1e6 / scale, pivot),
                                      figure + ":stated"))
            rows.append(L.row("punchcard", SEED_FILE, a.line, f"{what}, cumulative over {a.iterations} runs",
                              f"{a.cumulative_us} µs", e["cumulative"], "echoed", "", figure))
    for s in seed.STATED_SIZES:
        book = size_formulas(s.curve)[s.step]
        rows.append(L.row("punchcard", SEED_FILE, s.line, f"{s.curve}: {LABELS[s.step].lower()} message",
                          "none" if s.bytes == 0 else f"{s.bytes} B", book, "computed",
                          "from the encodings' sizes", f"claim:punchcard:{s.curve}:{s.step} bytes"))
    sp = seed.Speedup(10**6, prices.seconds("curve25519-dalek", "ristretto255/mul"),
                      prices.seconds("rust-hashset", "hashset/lookup/1000000"))
    rows.append(L.row("punchcard", SEED_FILE, SPEEDUP_LINE, "10^6 exponentiations (the scan a lookup replaces)",
                      "50 s", sp.scan_s, "computed", "'about 50 seconds'", "claim:punchcard:scan seconds"))
    rows.append(L.row("punchcard", SEED_FILE, SPEEDUP_LINE, "scan / lookup, orders of magnitude",
                      "8 orders", sp.orders, "computed", f"log10 {sp.check_speedup:.2e}; 'about 8 orders'",
                      "claim:punchcard:orders"))
    return rows


# ---------------------------------------------------------------------------
# The scheme contract (tests/test_scheme_contract.py): the counts estimate prices against the code's.
# The estimate prices the counts the code tallies (count_steps runs it), so this checks the estimate's
# plumbing (each step priced with its own counts, under its label); the smallest punches of each curve.

COUNT_POINTS = ({"curve": "ristretto255", "punches": 2}, {"curve": "bls12_381", "punches": 2, "redeem_check": "two"})


def code_counts(source=None, curve: str = "ristretto255", punches: int = 10, db_size: int = 0, redeem_check: str = "single",
                **_ignored) -> dict:
    """{label of each step's price call: the counts one run of the step tallies, running the code}."""
    Parameters(curve, punches, db_size, redeem_check)
    return {LABELS[s]: c for s, c in count_steps(curve, punches, db_size, redeem_check).items()}
