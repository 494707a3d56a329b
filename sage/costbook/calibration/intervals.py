"""Intervals of estimates: how the schemes report, print and check them.

An ``Estimate`` carries a low and a high total (every price at the low or high bound of its
spread: quartiles of a measurement, a published range, the spread of a fit).  The schemes' JSON
puts them beside every seconds value as ``Timed`` parts (``costbook.prices.timed``: ``interval``,
``named``, ``timed``), which this module prints (``fmt_interval``, ``fmt_named``, ``fmt_of``).

A price that carries no spread (a published single number, a derived price whose derivation has
none) makes its line's bounds equal its value; ``without_spread`` lists those keys so that the
output can say so instead of showing a zero-width interval as if it were exact.
"""
from __future__ import annotations

from ..prices.derived import no_spread
from ..writing.report import fmt_time

_SCALE = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def fmt_interval(seconds: float, low: float, high: float, unit: str | None = None) -> str:
    """'1.23 s [1.19–1.31]': the value, then its bounds in the value's unit; with `unit` ("s", "ms",
    "µs", "ns"), all three in that unit ('0.87 ms [0.85–0.9]'), as a table row that shows one unit."""
    if unit is not None and unit not in _SCALE:
        raise ValueError(f"unknown unit {unit!r} (one of {', '.join(_SCALE)})")
    text = fmt_time(seconds) if unit is None else None
    unit = unit or text.rsplit("\u00a0", 1)[-1]
    scale = 1.0 if text is not None and abs(seconds) >= 1000 else _SCALE.get(unit, 1.0)
    num = lambda x: f"{x / scale:,.0f}" if abs(x / scale) >= 100 else f"{x / scale:.3g}"   # never 1.01e+03
    return f"{text or num(seconds) + chr(0xA0) + unit} [{num(low)}–{num(high)}]"


def unit_of(seconds: float) -> str:
    """The unit fmt_time gives `seconds` ("s", "ms", "µs" or "ns")."""
    return fmt_time(seconds).rsplit("\u00a0", 1)[-1]


def fmt_named(result: dict, name: str) -> str:
    """fmt_interval of the "<name>_s" triple in `result`."""
    return fmt_interval(result[f"{name}_s"], result[f"{name}_low_s"], result[f"{name}_high_s"])


def fmt_of(d: dict) -> str:
    """fmt_interval of a {"seconds", "low_s", "high_s"} (or {"total_s", ...}) dict."""
    return fmt_interval(d["seconds"] if "seconds" in d else d["total_s"], d["low_s"], d["high_s"])


def inside(measured: float, low: float, high: float) -> bool:
    """Whether a measured time falls in a predicted interval (bounds included)."""
    return low <= measured <= high


def without_spread(estimates) -> list:
    """Sorted keys, over some Estimates, whose price has no spread (its bounds equal its value)."""
    return sorted({line.key for est in estimates for line in est.lines
                   if line.count and (line.unit_low is None or line.unit_low == line.unit_price == line.unit_high)})


def spreadless(mset, estimates) -> dict:
    """{key: why} for every price the Estimates use without a spread: the reason its derived entry
    gives, else that the source states one number for it."""
    keys = without_spread(estimates)
    why = no_spread(mset, keys)
    return {k: why.get(k, f"one number in {mset.name}, no range") for k in keys}
