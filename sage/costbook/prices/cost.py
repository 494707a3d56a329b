"""The cost core: count vectors priced against measurement files.

A cost formula is a ``Counts`` (primitive key -> how many times) per protocol
step.  ``price(counts, measurements, backends)`` turns it into an ``Estimate``:
a total in seconds plus a per-key breakdown saying which backend priced each
key.  A key with no price is an error naming the key, the file and the backends
that were tried; nothing is ever priced as zero by default.
"""
from __future__ import annotations

import math
import re
import statistics
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence, Union

from .keys import check_key, sizes
from .timed import TOTAL, Timed


class MissingPrice(LookupError):
    """A count vector needs a key that the chosen measurement file does not price."""


class PriceError(ValueError):
    """A price or an estimate that is not a finite, non-negative number of seconds: an extrapolation
    below zero, or a product or sum past the float range.  Refused, never printed as a time."""


class CountsError(ValueError, TypeError):
    """A count that is not a finite number >= 0.  Also a TypeError, which is what a count that is
    not a number at all (a string, None, a list) raised before this class existed."""


class Counts(dict):
    """Primitive key -> count.  Keys are checked against costbook.prices.keys on entry; a count is a
    finite number >= 0 (fractional counts are fine: an average per item often is one)."""

    def __init__(self, items: Union[Mapping[str, float], Iterable, None] = None, **kw):
        super().__init__()
        for key, n in dict(items or {}, **kw).items():
            self.add(key, n)

    def add(self, key: str, n: float = 1) -> "Counts":
        check_key(key)
        if not isinstance(n, (int, float)) or isinstance(n, bool):
            n = _as_number(n, f"count of {key!r}")
        if n != n or n in (math.inf, -math.inf):    # no float(): a huge int is finite, and float() overflows
            raise CountsError(f"count of {key!r} must be a finite number, got {n}")
        if n < 0:
            raise CountsError(f"count of {key!r} must be >= 0, got {n}")
        self[key] = self.get(key, 0) + n
        return self

    def __add__(self, other: Mapping[str, float]) -> "Counts":
        out = Counts(self)
        for k, v in other.items():
            out.add(k, v)
        return out

    __radd__ = __add__  # so that sum([...], Counts()) and sum([...]) both work

    def __mul__(self, factor: float) -> "Counts":
        factor = _as_number(factor, "scaling factor")
        return Counts({k: v * factor for k, v in self.items()})

    __rmul__ = __mul__

    def __repr__(self):
        return f"Counts({dict.__repr__(self)})"


def _as_number(x, what: str) -> float:
    """A number from a numeric type that is not int or float (a Sage Integer or Rational, a numpy
    scalar); never from text or a truth value, which float() would accept."""
    if isinstance(x, (str, bytes, bool)):
        raise CountsError(f"{what} must be a number, got {x!r}")
    try:
        y = float(x)
    except (TypeError, ValueError, OverflowError):
        raise CountsError(f"{what} must be a number, got {x!r}") from None
    if not math.isfinite(y):
        raise CountsError(f"{what} must be a finite number, got {x!r}")
    return int(y) if y.is_integer() else y


@dataclass(frozen=True)
class Line:
    key: str
    count: float
    unit_price: float        # seconds
    backend: str
    note: str = ""           # how the price was derived, when it was not measured as such
    unit_low: float | None = None    # the price's low and high bound (quartiles, or a stated range);
    unit_high: float | None = None   # None: the price carries no spread

    @property
    def seconds(self) -> float:
        return self.count * self.unit_price

    @property
    def low(self) -> float:
        return self.count * (self.unit_price if self.unit_low is None else self.unit_low)

    @property
    def high(self) -> float:
        return self.count * (self.unit_price if self.unit_high is None else self.unit_high)


@dataclass(frozen=True)
class Estimate:
    """Total seconds of a count vector, with the per-key breakdown behind it."""
    lines: tuple
    source: str                       # name of the measurement file that priced it
    label: str = ""

    @property
    def total(self) -> float:
        return sum(line.seconds for line in self.lines)

    @property
    def low(self) -> float:
        """The total with every price at its low bound: the interval propagates each price's spread
        (quartiles of a measurement, a published range) to the total, assuming nothing cancels."""
        return sum(line.low for line in self.lines)

    @property
    def high(self) -> float:
        return sum(line.high for line in self.lines)

    @property
    def ms(self) -> float:
        return self.total * 1e3

    def breakdown(self) -> dict:
        return {line.key: line.seconds for line in self.lines}

    def to_dict(self) -> Timed:
        """Its JSON: the total with its price interval (an estimated time, ``timed.TOTAL``) and the
        breakdown, whose lines are prices times counts, not estimates."""
        return Timed({
            "label": self.label,
            "source": self.source,
            "total_s": self.total,
            "low_s": self.low,
            "high_s": self.high,
            "breakdown": [
                {"key": l.key, "count": l.count, "unit_price_s": l.unit_price,
                 "backend": l.backend, "seconds": l.seconds, "low_s": l.low, "high_s": l.high,
                 **({"note": l.note} if l.note else {})}
                for l in self.lines],
        }, [TOTAL])

    def __str__(self):
        head = f"{self.label or 'estimate'}: {_fmt_seconds(self.total)}  (priced with {self.source})"
        rows = [f"  {l.count:>10g} x {l.key:<28} @ {_fmt_seconds(l.unit_price):>10} [{l.backend}]"
                f" = {_fmt_seconds(l.seconds)}" for l in self.lines]
        return "\n".join([head] + rows)


def _fmt_seconds(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(s) >= scale or unit == "ns":
            return f"{s / scale:.4g} {unit}"
    return f"{s} s"


BackendChoice = Union[str, Sequence[str], None]


@dataclass(frozen=True)
class PriceCall:
    """One call of ``price`` as it was made: what the book's live pages replay with another machine."""
    counts: Counts
    measurements: object      # the MeasurementSet that priced it (a derived set where the scheme made one)
    order: tuple              # the backends in preference order, as price() resolved them
    derive: bool
    estimate: "Estimate"


_RECORDERS: list = []


@contextmanager
def recording():
    """Every ``price`` call made inside the block, in order, as PriceCalls (the list it yields)."""
    calls: list = []
    _RECORDERS.append(calls)
    try:
        yield calls
    finally:
        _RECORDERS.remove(calls)


def _bracket(points, x) -> tuple:
    """The two consecutive points (sorted by size, at least two) around x, or the nearest two
    outside them."""
    for a, b in zip(points, points[1:]):
        if x <= b[0]:
            return a, b
    return points[-2], points[-1]


def _through_nearest(pts, x):
    """The line through the two measured points around x (or the nearest two outside them).

    pts: sorted (size, seconds).  Returns (seconds at x, lower size, upper size, "interpolated" or
    "extrapolated"), or None with fewer than two points."""
    if len(pts) < 2:
        return None
    lo, hi = _bracket(pts, x)
    t = lo[1] + (hi[1] - lo[1]) * (x - lo[0]) / (hi[0] - lo[0])
    return t, lo[0], hi[0], "interpolated" if lo[0] <= x <= hi[0] else "extrapolated"


def _along_sizes(measurements, backend: str, prefix: str, x: int):
    """Price <prefix>/<x> on the line through the measured <prefix>/<size> nearest to x.
    Returns (seconds, note) or None with fewer than two measured sizes."""
    pts = sorted((int(k.rsplit("/", 1)[1]), measurements.seconds(backend, k))
                 for k in measurements.keys(backend) if k.rsplit("/", 1)[0] == prefix)
    got = _through_nearest(pts, x)
    if got is None:
        return None
    t, lo, hi, verb = got
    return t, f"{verb} from {prefix}/{lo} and {prefix}/{hi}"


def modexp_by_exponent_length(measurements, backend: str, key: str):
    """Price modexp/M/E from the measured exponent lengths at the same modulus M.

    For a fixed modulus, square-and-multiply costs one squaring per exponent bit
    plus one multiplication per window, so time is affine in the exponent length
    (chapter 1 shows the fit).  Between two measured lengths the price is
    interpolated linearly; outside them it is extrapolated from the nearest two.
    Returns (seconds, note) or None when fewer than two lengths were measured.
    """
    if not key.startswith("modexp/"):
        return None
    m, e = sizes(key)["mod"], sizes(key)["exp"]
    return _along_sizes(measurements, backend, f"modexp/{m}", e)


def modexp_by_modulus_size(measurements, backend: str, key: str):
    """Price modexp/M/E at an unmeasured modulus M from the two nearest measured moduli.

    At a fixed exponent length the price grows as a power of the modulus size,
    t = c M^a (chapter 1 fits a); a is fitted on the two measured moduli nearest
    to M (in log scale), each priced at E bits directly or by the exponent rule.
    Returns (seconds, note), or None when M is measured or fewer than two moduli are.
    """
    if not key.startswith("modexp/"):
        return None
    m, e = sizes(key)["mod"], sizes(key)["exp"]
    moduli = sorted({sizes(k)["mod"] for k in measurements.keys(backend) if k.startswith("modexp/")})
    if m in moduli or len(moduli) < 2:
        return None
    m1, m2 = sorted(sorted(moduli, key=lambda x: abs(math.log(x / m)))[:2])

    def at(mod):
        k = f"modexp/{mod}/{e}"
        if measurements.has(backend, k):
            return measurements.seconds(backend, k)
        got = modexp_by_exponent_length(measurements, backend, k)
        return got[0] if got else None

    t1, t2 = at(m1), at(m2)
    if not t1 or not t2 or t1 < 0 or t2 < 0:        # no price, or an exponent line below zero there
        return None
    a = math.log(t2 / t1) / math.log(m2 / m1)
    try:
        t = t1 * (m / m1) ** a
    except OverflowError:                            # refused by price() as past the float range
        t = math.inf
    return t, f"scaled from moduli of {m1} and {m2} bits (t ~ M^{a:.2f} at {e}-bit exponents)"


def _envelope(points, x, grows: bool):
    """A price at size x from measured (size, median, low, high) points, sorted by size: the line
    through the two measured sizes nearest x (as ``_through_nearest``), and as its interval every
    line through the two measured intervals.  Between the two sizes that is the line through their
    low bounds and the line through their high bounds; beyond them the lowest and highest such
    lines cross at the measured sizes, so the interval widens with the distance from the nearest
    measured size, by (its spread + the other's spread) / (their distance) per unit of size: it
    never narrows to a point however far x is.  With `grows` (the family's work grows with the size)
    no line may fall: slopes below zero are taken as zero.

    Returns (seconds, low, high, size 1, size 2, "interpolated" or "extrapolated"), or None with
    fewer than two points."""
    if len(points) < 2:
        return None
    a, b = _bracket(points, x)
    (x1, m1, l1, h1), (x2, m2, l2, h2) = a, b
    d = x2 - x1
    if x1 <= x <= x2:
        t = (x - x1) / d
        return m1 + (m2 - m1) * t, l1 + (l2 - l1) * t, h1 + (h2 - h1) * t, x1, x2, "interpolated"
    s_mid, s_low, s_high = (m2 - m1) / d, (l2 - h1) / d, (h2 - l1) / d
    if grows:
        s_mid, s_low, s_high = max(s_mid, 0.0), max(s_low, 0.0), max(s_high, 0.0)
    if x > x2:
        dx = x - x2
        return m2 + s_mid * dx, l2 + s_low * dx, h2 + s_high * dx, x1, x2, "extrapolated"
    dx = x1 - x
    return m1 - s_mid * dx, l1 - s_high * dx, h1 - s_low * dx, x1, x2, "extrapolated"


def _point(measurements, backend: str, size: int, key: str) -> tuple:
    low, high = measurements.bounds(backend, key)
    return size, measurements.seconds(backend, key), low, high


def _sized_points(measurements, backend: str, prefix: str, one: str | None = None) -> list:
    """(size, median, low, high) of every measured <prefix>/<size> of `backend`, sorted; with `one`,
    the key that is the same operation at size 1 (a one-term MSM is a scalar multiplication, a
    product of one pairing a pairing) counts as size 1 when <prefix>/1 is not measured."""
    pts = {int(k.rsplit("/", 1)[1]): _point(measurements, backend, int(k.rsplit("/", 1)[1]), k)
           for k in measurements.keys(backend) if k.rsplit("/", 1)[0] == prefix}
    if one is not None and 1 not in pts and measurements.has(backend, one):
        pts[1] = _point(measurements, backend, 1, one)
    return [pts[k] for k in sorted(pts)]


def _fmt_law_price(seconds: float) -> str:
    return _fmt_seconds(seconds) if seconds >= 0 else "-" + _fmt_seconds(-seconds)


def msm_by_terms(measurements, backend: str, key: str):
    """Price <curve>/<g>_msm/<k> for any k from the measured term counts of the same group.

    Growth law: affine in k between and beyond the two nearest measured sizes (a bucket-method MSM
    costs about k / log k group additions, smooth and a little below linear, so beyond the largest
    measured size the line through the two largest is an upper estimate).  A one-term MSM is one
    scalar multiplication, so <curve>/<g>_mul counts as k = 1.  The interval is every line through
    the measured intervals (``_envelope``): it widens with the distance from the measured sizes.
    Returns (seconds, note, low, high) or None with fewer than two measured sizes."""
    if "_msm/" not in key:
        return None
    prefix, k = key.rsplit("/", 1)
    pts = _sized_points(measurements, backend, prefix, one=prefix.replace("_msm", "_mul"))
    got = _envelope(pts, int(k), grows=True)
    if got is None:
        return None
    t, low, high, x1, x2, verb = got
    name = lambda x: f"{prefix}/{x}" if x != 1 or measurements.has(backend, f"{prefix}/1") else prefix.replace("_msm", "_mul")
    return t, (f"{verb} from {name(x1)} and {name(x2)} (affine in the number of terms; interval: every "
               f"line through their measured intervals)"), low, high


def pairing_product_by_pairs(measurements, backend: str, key: str):
    """Price <curve>/pairing_product/<k> for any k from the measured products of the same curve.

    Growth law: a product of k pairings is k Miller loops and one final exponentiation,
    t(k) = k * miller + final_exp; the two unknowns are fitted on the two measured sizes nearest k
    (a single <curve>/pairing counts as k = 1), and the note states them.  The interval is every
    line through the two measured intervals (``_envelope``): it widens with the distance from the
    measured sizes and never collapses.  Returns (seconds, note, low, high) or None with fewer
    than two measured sizes."""
    if "/pairing_product/" not in key:
        return None
    curve, pairs = sizes(key)["curve"], sizes(key)["pairs"]
    prefix = f"{curve}/pairing_product"
    got = _envelope(_sized_points(measurements, backend, prefix, one=f"{curve}/pairing"), pairs, grows=True)
    if got is None:
        return None
    t, low, high, x1, x2, verb = got
    pts = {p[0]: p[1] for p in _sized_points(measurements, backend, prefix, one=f"{curve}/pairing")}
    miller = (pts[x2] - pts[x1]) / (x2 - x1)
    final = pts[x1] - miller * x1
    name = lambda x: f"{prefix}/{x}" if x != 1 or measurements.has(backend, f"{prefix}/1") else f"{curve}/pairing"
    return t, (f"{verb}: k Miller loops ({_fmt_law_price(miller)} each) + 1 final exponentiation "
               f"({_fmt_law_price(final)}), fitted on {name(x1)} and {name(x2)}; interval: every such "
               f"line through their measured intervals"), low, high


def fixed_base_without_table(measurements, backend: str, key: str):
    """Price <curve>/<op>_fixed at the variable-base <curve>/<op> price, an upper bound.

    A fixed-base table only saves time, and most bindings expose none, so where a backend has no
    table the honest price is that of the operation without one.  Returns (seconds, note) or None."""
    if not key.endswith("_fixed"):
        return None
    plain = key[: -len("_fixed")]
    if not measurements.has(backend, plain):
        return None
    return measurements.seconds(backend, plain), f"no fixed-base table measured: priced as {plain} (an upper bound)"


#: (block bytes, bytes of padding and length every message adds, the standard's largest input in bytes)
#: of each hash family priced by ``hash_by_blocks`` (FIPS 180-4: a 0x80 byte and a 64- or 128-bit length)
HASH_BLOCKS = {"sha256": (64, 9, (2**64 - 1) // 8), "sha512": (128, 17, (2**128 - 1) // 8)}


def hash_blocks(name: str, n_bytes: int) -> int:
    """Compression-function calls of one `name` digest of `n_bytes` bytes: ceil((n + padding) / block)."""
    block, pad, _ = HASH_BLOCKS[name]
    return -(-(int(n_bytes) + pad) // block)


def hash_by_blocks(measurements, backend: str, key: str):
    """Price sha256/<n>B or sha512/<n>B at any input length from the lengths measured in `backend`.

    A digest is one call plus one compression per block of the padded input (``hash_blocks``), so its
    time is affine in the number of blocks, t(b) = call + b * compression, with both terms >= 0.  A
    length of the same block count as a measured one costs what that one costs (the same
    compressions; each measured point is the median of the measured lengths of that count, its
    bounds their widest).  With two or more block counts measured, the price is the line through the
    two nearest (``_envelope``: its interval every line through their intervals, widening with the
    distance).  With one block count b1 measured at t1, the price at b blocks is t1 * b / b1, which
    counts the call's fixed cost once per block: an upper bound beyond b1 (a lower one below it),
    and the measured t1 is the other bound.  A length beyond the standard's largest input is refused.
    Returns (seconds, note, low, high), or None when no length of that hash is measured."""
    m = re.fullmatch(r"(sha256|sha512)/([1-9][0-9]*)B", key)
    if m is None:
        return None
    name, n = m[1], int(m[2])
    if n > HASH_BLOCKS[name][2]:
        raise PriceError(f"{key}: {name} takes at most {HASH_BLOCKS[name][2]} bytes (FIPS 180-4), got {n}")
    by_blocks: dict = {}
    for k in measurements.keys(backend):
        km = re.fullmatch(rf"{name}/([1-9][0-9]*)B", k)
        if km:
            by_blocks.setdefault(hash_blocks(name, int(km[1])), []).append(_point(measurements, backend, 0, k))
    if not by_blocks:
        return None
    points = [(b, statistics.median(p[1] for p in ps), min(p[2] for p in ps), max(p[3] for p in ps))
              for b, ps in sorted(by_blocks.items())]
    b = hash_blocks(name, n)
    unit = "block" if b == 1 else "blocks"
    same = next((p for p in points if p[0] == b), None)
    if same is not None:
        return same[1], (f"{b} {unit} of {name} compression, as the measured {name} lengths of {b} {unit}"), same[2], same[3]
    if len(points) >= 2:
        t, low, high, x1, x2, verb = _envelope(points, b, grows=True)
        return t, (f"{b} {unit} of {name} compression, {verb} (affine in the blocks) from the measured lengths "
                   f"of {x1} and {x2} blocks; interval: every such line through their measured intervals"), low, high
    (b1, t1, l1, h1), = points
    scaled = (t1 * b / b1, l1 * b / b1, h1 * b / b1)
    low, high = (l1, scaled[2]) if b > b1 else (scaled[1], h1)
    return scaled[0], (f"{b} {unit} of {name} compression, scaled by blocks from the measured lengths of {b1} "
                       f"(the call's fixed cost counted per block: an {'upper' if b > b1 else 'lower'} bound; "
                       f"interval: that and the measured price)"), low, high


#: each rule returns (seconds, note), its bounds then derived by the same rule on the prices' low
#: and high bounds, or (seconds, note, low, high) when it bounds the price itself
DERIVATIONS = [modexp_by_exponent_length, modexp_by_modulus_size, msm_by_terms, pairing_product_by_pairs,
               fixed_base_without_table, hash_by_blocks]


def price(counts: Mapping[str, float], measurements, backends: BackendChoice = None,
          label: str = "", derive: bool = False) -> Estimate:
    """Price `counts` with a MeasurementSet.

    `backends` is one backend name or a preference list: each key is priced by
    the first backend in the list that has it.  None means every backend in the
    file, in the file's order (useful for published files with one backend).

    With `derive=True`, a key that no backend measured may be priced by one of
    the DERIVATIONS (e.g. a modexp with an unmeasured exponent length); the
    Estimate line then says how.  Without it, every key must be measured.
    """
    if isinstance(backends, str):
        order = [backends]
    elif backends is None:
        order = list(measurements.backends)
    else:
        order = list(backends)
    unknown = [b for b in order if b not in measurements.backends]
    if unknown:
        raise MissingPrice(
            f"{measurements.name}: no backend {', '.join(map(repr, unknown))} "
            f"(the file has: {', '.join(measurements.backends) or 'none'})")
    lines = []
    for key, n in Counts(counts).items():
        for b in order:
            if measurements.has(b, key):
                lines.append(Line(key, n, measurements.seconds(b, key), b, "", *measurements.bounds(b, key)))
                break
        else:
            derived = None
            if derive:
                derived = next(((b, d, rule) for b in order for rule in DERIVATIONS
                                if (d := rule(measurements, b, key)) is not None), None)
            if derived is not None:
                b, got, rule = derived
                seconds, note = got[:2]
                if len(got) == 4:                  # the rule bounds the price itself
                    low, high = got[2:]
                else:
                    # the same rule on the prices' low and high bounds bounds the derived price
                    try:
                        low, high = ((rule(measurements.at_bound(w), b, key) or (None,))[0] for w in ("low", "high"))
                    except (ArithmeticError, ValueError):
                        low = high = None
                _check_derived(measurements.name, key, note, seconds, low, high)
                lines.append(Line(key, n, seconds, b, note, min(low, seconds), max(high, seconds)))
                continue
            where = (f"in backend(s) {', '.join(order)}" if order else      # the file has none the scheme asked for
                     f"in any backend the scheme prices it with (the file has: {', '.join(measurements.backends) or 'none'})")
            raise MissingPrice(f"{measurements.name}: no price for {key!r} {where}; "
                               f"measure it (costbook measure) or choose another source")
    est = Estimate(tuple(lines), measurements.name, label)
    _check_finite(est)
    for calls in _RECORDERS:
        calls.append(PriceCall(Counts(counts), measurements, tuple(order), derive, est))
    return est


def _check_derived(source: str, key: str, note: str, seconds, low, high) -> None:
    """A derived price must be a finite positive time, and so must its bounds: a line through two
    measured sizes can fall below zero (or a fitted power overflow) far from them."""
    def ok(x):
        return isinstance(x, (int, float)) and math.isfinite(x) and x > 0
    if not ok(seconds) or not ok(low) or not ok(high):
        got = ", ".join(f"{w} {x:.3g} s" if isinstance(x, (int, float)) else f"{w} undefined"
                        for w, x in (("price", seconds), ("low", low), ("high", high)))
        raise PriceError(f"{source}: {key} {note or 'derived'} gives no positive finite price ({got}): "
                         f"measure {key} itself, or sizes on both sides of it")


def _check_finite(est: "Estimate") -> None:
    """Every seconds figure of an Estimate finite and >= 0, or a PriceError naming the first one."""
    what = f"{est.label or 'the estimate'} priced with {est.source}"
    for line in est.lines:
        for name, x in (("seconds", line.seconds), ("low", line.low), ("high", line.high)):
            if not (math.isfinite(x) and x >= 0):
                raise PriceError(f"{what}: {line.count:g} x {line.key} at {line.unit_price:.3g} s is {x} s "
                                 f"({name}), outside the float range of a time")
    for name, x in (("total", est.total), ("low", est.low), ("high", est.high)):
        if not (math.isfinite(x) and x >= 0):
            raise PriceError(f"{what}: the {name} is {x} s, outside the float range of a time")
