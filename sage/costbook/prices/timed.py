"""The estimated times in an estimate's result, as a type: the JSON a scheme prints, and which of its
entries are estimated times with their intervals.

A scheme's result is JSON (the CLI prints it, the chapters and the page read it).  Its estimated
times are ``Timed`` parts, each naming the keys of its times (``TimeKeys``) in one of three shapes:

* ``{"seconds": x, "low_s": lo, "high_s": hi}`` (``interval``);
* ``"<name>_s": x, "<name>_low_s": lo, "<name>_high_s": hi`` (``named``; ``_ms`` in milliseconds),
  where a flat key was there first and chapters read it;
* ``{"total_s": x, "low_s": lo, "high_s": hi}`` (``Estimate.to_dict``).

``costbook.calibration.prediction`` gives each of them its prediction interval by this type, so a
figure that is not an estimate of this machine's time (a fit's in-sample value, a published figure,
a price) is never widened, whatever its key, and no module guesses estimates from key names.
"""
from __future__ import annotations

from typing import NamedTuple

#: an estimated time's unit, per second
PER_SECOND = {"s": 1, "ms": 1000}


class TimeKeys(NamedTuple):
    """The keys of one estimated time: its value, its interval, and the price interval it keeps once
    it is a prediction; the unit they are in."""
    value: str
    low: str
    high: str
    price_low: str
    price_high: str
    unit: str = "s"


#: the unnamed shape, and an Estimate's own
SECONDS = TimeKeys("seconds", "low_s", "high_s", "price_low_s", "price_high_s")
TOTAL = TimeKeys("total_s", "low_s", "high_s", "price_low_s", "price_high_s")


def time_keys(name: str, unit: str = "s") -> TimeKeys:
    """The keys ``<name>_<unit>``, ``<name>_low_<unit>``, ... of a named estimated time."""
    if unit not in PER_SECOND:
        raise ValueError(f"an estimated time is in one of {', '.join(PER_SECOND)}, got {unit!r}")
    return TimeKeys(*(f"{name}{part}_{unit}" for part in ("", "_low", "_high", "_price_low", "_price_high")), unit)


class Timed(dict):
    """A part of a result holding estimated times: its JSON, and ``times``, the keys of each estimated
    time among its entries.  Joined with ``|`` (or ``timed``), both parts' times are kept."""

    def __init__(self, data=(), times=()):
        super().__init__(data)
        self.times = tuple(dict.fromkeys(times))

    def __or__(self, other):
        return Timed({**self, **other}, self.times + getattr(other, "times", ()))

    def __ror__(self, other):
        return Timed({**other, **self}, getattr(other, "times", ()) + self.times)

    def __ior__(self, other):
        self.update(other)
        self.times = tuple(dict.fromkeys(self.times + getattr(other, "times", ())))
        return self

    def copy(self):
        return Timed(self, self.times)


def timed(*parts, **fields) -> Timed:
    """One Timed of several parts (Timed or plain dicts, later keys winning) and `fields`."""
    out = Timed()
    for part in (*parts, fields):
        out |= part
    return out


def interval(est, **fields) -> Timed:
    """{"seconds", "low_s", "high_s"} of an Estimate, with `fields` beside them."""
    return Timed({SECONDS.value: est.total, SECONDS.low: est.low, SECONDS.high: est.high, **fields}, [SECONDS])


def named(name: str, est, unit: str = "s") -> Timed:
    """{"<name>_s", "<name>_low_s", "<name>_high_s"} of an Estimate (``_ms``: in milliseconds)."""
    keys = time_keys(name, unit)
    scale = PER_SECOND[unit]
    return Timed({keys.value: est.total * scale, keys.low: est.low * scale, keys.high: est.high * scale}, [keys])
