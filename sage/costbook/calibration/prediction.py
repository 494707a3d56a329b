"""Every estimate with its prediction interval: what `costbook estimate`, the chapters and the page show.

A scheme's ``estimate`` prices its steps and reports each with its *price* interval (every price at
its low, then its high bound: ``costbook.calibration.intervals``).  ``estimate`` here runs it, records the steps it
prices (its labelled ``cost.price`` calls, the steps the page re-prices), and gives every estimated time
of the result its prediction interval from the one function that makes them,
``uncertainty.prediction_interval``: the price interval widened by the model-error margin of the scheme
on that machine (``uncertainty.estimate_margin``: the validation evidence less the scheme's own at that
size for the Sage code on the evidence's machine, the other schemes' cross-machine errors for native
libraries and other machines).

In the result, ``low_s``/``high_s`` (and ``<name>_low_s``/``<name>_high_s``, ``<name>_low_ms``/...) become
the prediction interval; ``price_low_s``/``price_high_s`` (``<name>_price_low_s``, ...) keep the price
interval; ``prediction`` says what the interval is (level, margin, its evidence) and lists every priced
step with both.  A scheme names in ``model.NOT_PREDICTIONS`` the parts of its result that are not
estimates of this machine's time (a fit's in-sample values, figures it echoes); ``prices`` (primitive
prices) and ``breakdown`` (per-primitive lines) are never widened.
"""
from __future__ import annotations

from ..prices import cost
from .. import registry
from . import uncertainty

#: the parts of every estimate's result that hold prices or per-primitive lines, not estimated times
NOT_PREDICTIONS = ("prices", "breakdown")


def steps(calls) -> list:
    """The steps among recorded price calls: the labelled ones (an unlabelled call prices a part
    used inside a step), one per label, the last call of a label winning (a scheme that prices a
    step twice reports the later one), in the order the labels first appear."""
    last = {}
    for c in calls:
        if c.estimate.label:
            last[c.estimate.label] = c
    return list(last.values())


def with_defaults(module, options: dict) -> dict:
    """`options` over the scheme's defaults: the size an estimate is at."""
    return {**{k: v[0] for k, v in getattr(module, "OPTIONS", {}).items()}, **options}


def backends_of(calls) -> frozenset:
    """The backends whose prices the steps among recorded price calls used."""
    return frozenset(line.backend for c in steps(calls) for line in c.estimate.lines)


def margin(scheme: str, mset, options: dict, calls) -> uncertainty.Margin:
    """The model-error margin of an estimate of `scheme` at `options` priced with `mset`, during which
    `calls` were recorded (their backends say whether validation runs judge its kind)."""
    return uncertainty.estimate_margin(scheme, uncertainty.machine_of(mset), with_defaults(registry.model(scheme), options),
                                       backends=backends_of(calls))


def _triples(d: dict):
    """(value key, low key, high key, price-low key, price-high key) of every estimated time in `d`."""
    for k in list(d):
        for unit in ("_s", "_ms"):
            name = k[: -len(unit)]
            if k.endswith(unit) and not k.endswith((f"_low{unit}", f"_high{unit}")) and f"{name}_low{unit}" in d \
                    and f"{name}_high{unit}" in d:
                yield k, f"{name}_low{unit}", f"{name}_high{unit}", f"{name}_price_low{unit}", f"{name}_price_high{unit}"
                break
        else:
            if k in ("seconds", "total_s") and "low_s" in d and "high_s" in d:
                yield k, "low_s", "high_s", "price_low_s", "price_high_s"


def widen(result, scheme: str, machine: str, m: uncertainty.Margin, skip=(), count=None):
    """A copy of `result` with every estimated time's interval the prediction interval (see the module);
    `count` (a list) gets one item per interval widened."""
    count = [] if count is None else count
    if isinstance(result, list):
        return [widen(x, scheme, machine, m, skip, count) for x in result]
    if not isinstance(result, dict):
        return result
    out = {k: (v if k in NOT_PREDICTIONS or k in skip else widen(v, scheme, machine, m, skip, count))
           for k, v in result.items()}
    for value, low, high, price_low, price_high in list(_triples(out)):
        if price_low in out:        # already a prediction
            continue
        if not all(isinstance(out[k], (int, float)) and not isinstance(out[k], bool) for k in (value, low, high)):
            continue
        p = uncertainty.prediction_interval(scheme, machine, out[value], out[low], out[high], margin=m)
        out.update({low: p.low, high: p.high, price_low: p.price_low, price_high: p.price_high})
        count.append(value)
    return out


def predicted(scheme: str, mset, options: dict, result: dict, calls) -> dict:
    """`result` (the scheme's estimate at `options` priced with `mset`, during which `calls` were
    recorded) with its prediction intervals and the ``prediction`` block."""
    module = registry.model(scheme)
    m = margin(scheme, mset, options, calls)
    widened: list = []
    out = widen(result, scheme, mset.name, m, getattr(module, "NOT_PREDICTIONS", ()), widened)
    out["prediction"] = {"intervals": len(widened),
        "level": uncertainty.NOMINAL, "machine": mset.name, "margin": uncertainty.margin_export(m), "margin_percent": m.percent,
        "margin_evidence": m.evidence, "margin_group": m.group, "margin_from": uncertainty.margin_source(m),
        "priced_in": sorted(backends_of(calls)), "left_out": m.left_out,
        "words": uncertainty.margin_words(m),
        "steps": [{"label": c.estimate.label, **uncertainty.prediction_interval(
            scheme, mset.name, c.estimate.total, c.estimate.low, c.estimate.high, margin=m).to_dict()}
            for c in steps(calls)]}
    return out


def outside(result, path: str = "result") -> list:
    """(path, low, value, high) of every estimated time of `result` (a ``predicted`` one: its intervals
    and its ``prediction`` steps) that does not lie in its own interval: none, if the core is right."""
    out = []
    if isinstance(result, list):
        for i, x in enumerate(result):
            out += outside(x, f"{path}[{i}]")
    elif isinstance(result, dict):
        for k, v in result.items():
            if k not in NOT_PREDICTIONS:
                out += outside(v, f"{path}.{k}")
        for value, low, high, *_ in _triples(result):
            v, lo, hi = (result[k] for k in (value, low, high))
            if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (v, lo, hi)) and not lo <= v <= hi:
                out.append((f"{path}.{value}", lo, v, hi))
        if path == "result" and isinstance(result.get("prediction"), dict):
            for step in result["prediction"].get("steps", []):
                if not step["low_s"] <= step["seconds"] <= step["high_s"]:
                    out.append((f"step {step['label']!r}", step["low_s"], step["seconds"], step["high_s"]))
    return out


def estimate(scheme: str, mset, backends=None, **options) -> dict:
    """The scheme's estimate at `options` priced with `mset`, with its prediction intervals: what
    `costbook estimate SCHEME --json` prints."""
    with cost.recording() as calls:
        result = registry.model(scheme).estimate(mset, backends=backends, **options)
    return predicted(scheme, mset, options, result, calls)


def words(result: dict) -> str:
    """The line a table of the estimate says of its intervals, once ("" where it shows none)."""
    p = result["prediction"]
    return p["words"] if p["intervals"] or p["steps"] else ""
