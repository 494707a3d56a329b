"""Every estimate with its prediction interval: what `costbook estimate`, the chapters and the page show.

A scheme's ``estimate`` prices its steps and reports each estimated time with its *price* interval
(every price at its low, then its high bound) as a ``Timed`` part of its result
(``costbook.prices.timed``).  ``estimate`` here runs it, records the steps it prices (its labelled
``cost.price`` calls, the steps the page re-prices), and gives every estimated time its prediction
interval from the one function that makes them, ``uncertainty.prediction_interval``: the price
interval widened by the model-error margin of the scheme on that machine
(``uncertainty.estimate_margin``: the validation evidence less the scheme's own at that size for the
Sage code on the evidence's machine, the other schemes' cross-machine errors for native libraries
and other machines).

In the result, each estimated time's low and high keys become the prediction interval and its
price-low and price-high keys keep the price interval (``TimeKeys``); ``prediction`` says what the
interval is (level, margin, its evidence) and lists every priced step with both.  Only what a scheme
made ``Timed`` is widened: a fit's in-sample values, figures it echoes and prices are plain JSON.
"""
from __future__ import annotations

from ..prices import cost
from ..prices.timed import Timed
from .. import registry
from . import uncertainty

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


def _numbers(d: dict, keys) -> bool:
    return all(isinstance(d.get(k), (int, float)) and not isinstance(d.get(k), bool) for k in keys)


def widen(result, scheme: str, machine: str, m: uncertainty.Margin, count=None):
    """A copy of `result` with every estimated time (each ``Timed`` part's ``times``) given its
    prediction interval (see the module); `count` (a list) gets one item per interval widened."""
    count = [] if count is None else count
    if isinstance(result, list):
        return [widen(x, scheme, machine, m, count) for x in result]
    if not isinstance(result, dict):
        return result
    items = {k: widen(v, scheme, machine, m, count) for k, v in result.items()}
    if not isinstance(result, Timed):
        return items
    out = Timed(items, result.times)
    for keys in out.times:
        if keys.price_low in out or not _numbers(out, keys[:3]):       # already a prediction, or no time here
            continue
        p = uncertainty.prediction_interval(scheme, machine, out[keys.value], out[keys.low], out[keys.high], margin=m)
        out.update({keys.low: p.low, keys.high: p.high, keys.price_low: p.price_low, keys.price_high: p.price_high})
        count.append(keys.value)
    return out


def predicted(scheme: str, mset, options: dict, result: dict, calls) -> dict:
    """`result` (the scheme's estimate at `options` priced with `mset`, during which `calls` were
    recorded) with its prediction intervals and the ``prediction`` block."""
    m = margin(scheme, mset, options, calls)
    widened: list = []
    out = widen(result, scheme, mset.name, m, widened)
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
    """(path, low, value, high) of every estimated time of `result` (a ``predicted`` one: its ``Timed``
    parts and its ``prediction`` steps) that does not lie in its own interval: none, if the core is right."""
    out = []
    if isinstance(result, list):
        for i, x in enumerate(result):
            out += outside(x, f"{path}[{i}]")
    elif isinstance(result, dict):
        for k, v in result.items():
            out += outside(v, f"{path}.{k}")
        for keys in getattr(result, "times", ()):
            if _numbers(result, keys[:3]) and not result[keys.low] <= result[keys.value] <= result[keys.high]:
                out.append((f"{path}.{keys.value}", result[keys.low], result[keys.value], result[keys.high]))
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
