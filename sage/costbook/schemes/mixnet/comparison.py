"""The traceable mixnet in the comparison chapter: its rows (``rows``; its seed-machine prices are
calibrated, each with its spread over the refits, so none is without one) and where the baselines
win; ``EXPORTS`` are also reachable as ``costbook.views.compare.<name>``."""
from __future__ import annotations

from costbook.views.compare import LEAVE_ONE_OUT, OperationCost, first_crossing, lines_of, shares, backends_of
from costbook.writing.report import fmt_printed
from costbook.schemes import get

NAME = "mixnet"
#: how far the mixnet's m is followed beyond the model's bound to find where the baselines win
M_EXTRAPOLATE = 4096
MIXNET_COMPARISONS = {"dbsm_vs_zksnark": ("DB-SM", "collaborative zkSNARK"),
                      "dbrsm_vs_zksnark": ("DB-RSM", "collaborative zkSNARK"),
                      "dbsm_vs_cpsnark": ("DB-SM", "cpSNARK-Set")}

EXPORTS = ("M_EXTRAPOLATE", "MIXNET_COMPARISONS", "mixnet_leave_one_out_totals", "mixnet_sweep",
           "mixnet_crossovers")


def mixnet_leave_one_out_totals(cal=None) -> dict:
    """{(section, party): artifact.LooTotal}: each report total as the sum of its lines' leave-one-out
    predictions, with its interval (the artifact model's own `loo_totals`, keyed the way the rows are)."""
    from . import artifact
    by_label = {t.label: t for t in artifact.loo_totals(cal)}
    return {sp: by_label[label] for sp, label in artifact.TOTALS.items()}


def rows(reference) -> list:
    from . import artifact
    model = get(NAME)
    cal = artifact.calibrate()
    loo = mixnet_leave_one_out_totals(cal)
    fitted = artifact.party_times(cal.source)
    printed = {label: pub_s for label, pub_s, _line, _mod in artifact.reproduce(cal)}
    sample_report = model.published_sources()[0]   # as it prints its totals
    out = []
    for r in artifact.this_machine(reference):
        sp = (r["section"], r["party"])
        lines = lines_of(r["estimate"])
        out.append(OperationCost(NAME, r["label"], f"n = {model.N_SEED:,}, m = {model.M_SEED}", r["bn254_s"],
                                 shares(lines), backends_of(lines), loo[sp].loo_s, LEAVE_ONE_OUT,
                                 shares(lines_of(fitted[sp])), "the artifact's Xeon W-1270", printed[r["label"]],
                                 reference_low_s=r["bn254_low_s"], reference_high_s=r["bn254_high_s"],
                                 seed_low_s=loo[sp].low_s, seed_high_s=loo[sp].high_s,
                                 printed=fmt_printed(sample_report.entry(artifact.BACKEND, artifact.total_key(*sp))),
                                 options={"n": model.N_SEED, "m": model.M_SEED}))
    return out


def prices_without_spread() -> dict:
    """None: the seed-machine prices are calibrated, each with its spread over the refits."""
    return {}


def mixnet_sweep(ns=(10**4,), ms=(4,), security: str = "malicious", cal=None) -> list:
    """``artifact.whatif`` rows (per-mix-server seconds and speedups over the baselines) on the
    artifact's machine with its inferred prices."""
    from . import artifact
    return artifact.whatif(cal or artifact.calibrate(loo=False), ns=tuple(ns), ms=tuple(ms), security=security)


def mixnet_crossovers(security: str = "malicious") -> dict:
    """Per comparison: the smallest m (at the seed's n) and the smallest n (at the seed's m) at which
    the baseline is faster than one mix-server of the traceable mixnet, or None.  m is followed up
    to M_EXTRAPOLATE (beyond the model's bound, which the result names); n within the model's range."""
    from . import artifact
    model = get(NAME)
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
