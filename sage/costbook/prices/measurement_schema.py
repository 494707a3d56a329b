"""The checker of a measurement file, read from its one declaration: measurement.schema.json.

``costbook check`` (through ``measurements.validate``) and the book page's checker
(``check`` in book/assets/live/pricing.js, which receives the same document in the page's data)
both interpret that JSON Schema document; the rules are written there once.  This module is the
Python interpreter: the subset of JSON Schema the document uses (see its description) and the
three checks a schema cannot state (``CHECKS``: a key of a known primitive family, a median within
its quartiles or stated interval, no price falling as its size grows).  Its messages are the
page's word for word: both name the field and the problem in one line, and quote a value from the
file as Python's ``ascii()`` does (so a hostile string prints as escapes, never as markup or
terminal control), shortened when long.  tests/test_measurement_schema.py holds the two
interpreters to the same verdict and message on a corpus of malformed files and on random ones.
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

from . import keys

#: the declaration both checkers read
PATH = Path(__file__).with_name("measurement.schema.json")
DOCUMENT: dict = json.loads(PATH.read_text(encoding="utf-8"))
#: limits on a file's bytes (x-file): its size, nesting depth and longest integer
FILE = DOCUMENT["x-file"]
#: how far below a smaller size's interval a larger size's may lie before the file is refused
GROWTH_SLACK = 0.10
#: a string from a file is quoted whole up to this many characters, then cut
QUOTE_CHARS = 60


class Invalid(ValueError):
    """The first problem found: the field (as a path, "(top level)" for the document) and what is wrong."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field or '(top level)'}: {problem}")
        self.field, self.problem = field or "(top level)", problem


# ---------------------------------------------------------------- how values are said in messages

def quote(v) -> str:
    """A value from a file as a message shows it: ascii() of a string (cut after QUOTE_CHARS
    characters), an integer of many digits by its length, a float as Python prints it."""
    if isinstance(v, str):
        return ascii(v) if len(v) <= QUOTE_CHARS else f"{ascii(v[:QUOTE_CHARS])}... ({len(v)} characters)"
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int):
        return f"an integer of {len(str(abs(v)))} digits" if abs(v) > 10**30 else str(v)
    if isinstance(v, float):
        return repr(v)
    return "an array" if isinstance(v, list) else "an object"


def member(field: str, name: str) -> str:
    """The path of a member: field.name for a plain name, field['na/me'] otherwise."""
    if len(name) <= QUOTE_CHARS and re.fullmatch(r"[A-Za-z0-9_-]+", name):
        return f"{field}.{name}" if field else name
    return f"{field}[{quote(name)}]"


def finite_number(v) -> bool:
    """A finite int or float (a bool is neither)."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):                       # also an int too large for a float
        return -sys.float_info.max <= v <= sys.float_info.max
    return isinstance(v, float) and v - v == 0   # neither inf nor nan


TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),   # written without . or e
    "number": finite_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def expected(s: dict, stage: str) -> str:
    """What a field must be, in words, for a failed `stage` ("type" or "bounds")."""
    if "x-expected" in s:
        return s["x-expected"]
    types = s.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    words = []
    for t in types:
        if t == "number":
            if stage == "type":
                words.append("a finite number")
            elif s.get("exclusiveMinimum") == 0:
                words.append("a positive number")
            elif "minimum" in s:
                words.append(f"a finite number >= {s['minimum']}")
            else:
                words.append("a finite number")
        elif t == "integer":
            low = s.get("minimum")
            words.append("a positive integer" if low == 1 else f"an integer >= {low}" if low is not None
                         else "an integer")
        elif t == "string":
            words.append("a non-empty string" if s.get("minLength") == 1 else "a string")
        elif t == "object":
            words.append("a non-empty object" if s.get("minProperties") == 1 else "an object")
        elif t == "array":
            words.append("an array")
        else:
            words.append({"boolean": "true or false", "null": "null"}[t])
    return " or ".join(words)


# ---------------------------------------------------------------- what the schema cannot state

def _primitive_key(name, field, ctx):
    try:
        keys.family_of(name)
    except keys.UnknownPrimitiveKey:
        raise Invalid(field, f"unknown primitive key {quote(name)}: it matches no family in costbook.prices.keys "
                             f"(known families: {', '.join(f.pattern for f in keys.FAMILIES)})") from None


def _median_within_bounds(entry, field, ctx):
    for low, high, what in (("q1", "q3", "quartiles"), ("low", "high", "interval")):
        if low in entry and not entry[low] <= entry["median"] <= entry[high]:
            raise Invalid(field, f"{what} out of order: {low}={quote(entry[low])}, median={quote(entry['median'])}, "
                                 f"{high}={quote(entry[high])} (need {low} <= median <= {high})")


def _price_grows_with_size(entries, field, ctx):
    """Refuse a price that falls as a size grows where the key's family says the work grows
    (``keys.Family.grows``): keys equal but for that size, the larger one's interval (quartiles or
    stated range, else its median) wholly below the smaller one's by more than ``GROWTH_SLACK``.
    The slack is for sizes a few bits apart (exponents of 3069 and 3072 bits cost the same to
    within their timing noise, and a quiet run can put one's quartiles just under the other's);
    a price that really falls with its size falls by more."""
    seconds = ctx["units"]

    def span(e):
        scale = seconds[e["unit"]]
        for lo, hi in (("q1", "q3"), ("low", "high")):
            if lo in e:
                return e[lo] * scale, e[hi] * scale
        return e["median"] * scale, e["median"] * scale

    groups: dict = {}
    for key, e in entries.items():
        fam = keys.family_of(key)
        if not fam.grows:
            continue
        sz = keys.sizes(key)
        for g in fam.grows:
            rest = tuple(sorted((k, v) for k, v in sz.items() if k != g))
            groups.setdefault((fam.pattern, g, rest), []).append((sz[g], key, span(e)))
    for (_, g, _), items in groups.items():
        items.sort()
        # least[i]: the least upper bound of items[i:], so that each size is compared with every larger
        # one at once (a file of thousands of sizes is checked in n log n, not n^2)
        least = [math.inf] * (len(items) + 1)
        for i in range(len(items) - 1, -1, -1):
            least[i] = min(least[i + 1], items[i][2][1])
        j = 0
        for small, k_small, (lo_small, _) in items:
            while j < len(items) and items[j][0] <= small:
                j += 1
            if least[j] < (1 - GROWTH_SLACK) * lo_small:
                big, k_big, (_, hi_big) = next(it for it in items[j:] if it[2][1] < (1 - GROWTH_SLACK) * lo_small)
                raise Invalid(member(field, k_big),
                              f"price falls as {g} grows: {k_big} costs at most {hi_big:.4g} s, below "
                              f"{k_small} at {lo_small:.4g} s or more (the work grows with {g})")


def _plausible_price(entries, field, ctx):
    """Refuse a price below the least time any machine takes for its operation (``keys.Family.floor_s``):
    its unit is wrong (a time in ms read as ns) or it is no time at all (5e-324 ns)."""
    seconds = ctx["units"]
    for key, e in entries.items():
        price, floor = e["median"] * seconds[e["unit"]], keys.family_of(key).floor_s(key)
        if price < floor:
            raise Invalid(member(field, key), f"{quote(e['median'])} {e['unit']} is {price:.3g} s, below the least "
                                              f"any machine takes for {key} ({floor:.3g} s): is the unit right?")


CHECKS = {"primitive-key": _primitive_key, "median-within-bounds": _median_within_bounds,
          "price-grows-with-size": _price_grows_with_size, "plausible-price": _plausible_price}


# ---------------------------------------------------------------- the interpreter

def _resolve(ref: str) -> dict:
    node = DOCUMENT
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def _run(v, s: dict, field: str, ctx: dict) -> None:
    """Check `v` against schema `s`; raise Invalid at the first problem.  The order of the keywords
    is the order of the checks, the same in pricing.js."""
    if "$ref" in s:
        _run(v, _resolve(s["$ref"]), field, ctx)
    types = s.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(TYPES[t](v) for t in types):
            raise Invalid(field, f"expected {expected(s, 'type')}, got {quote(v)}")
    if "const" in s and not (isinstance(v, str) and v == s["const"]):
        raise Invalid(field, f"expected {quote(s['const'])}, got {quote(v)}")
    if "enum" in s:
        never = s.get("x-never-on-disk", {}) if ctx["on_disk"] else {}
        allowed = [x for x in s["enum"] if x not in never]
        if not (isinstance(v, str) and v in allowed):
            why = f" ({never[v]})" if isinstance(v, str) and v in never else ""
            raise Invalid(field, f"expected one of ({', '.join(map(quote, allowed))}), got {quote(v)}{why}")
    if isinstance(v, str) and len(v) < s.get("minLength", 0):
        raise Invalid(field, f"expected {expected(s, 'bounds')}, got {quote(v)}")
    if TYPES["number"](v) and (("minimum" in s and v < s["minimum"])
                               or ("exclusiveMinimum" in s and v <= s["exclusiveMinimum"])):
        raise Invalid(field, f"expected {expected(s, 'bounds')}, got {quote(v)}")
    if isinstance(v, dict):
        if len(v) < s.get("minProperties", 0):
            raise Invalid(field, f"expected {expected(s, 'bounds')}, got an empty object")
        for name in s.get("required", ()):
            if name not in v:
                why = f" ({s['x-missing']})" if "x-missing" in s else ""
                raise Invalid(member(field, name), f"missing{why}")
        props = s.get("properties", {})
        for name, sub in props.items():
            if name in v:
                _run(v[name], sub, member(field, name), ctx)
        names, more = s.get("propertyNames"), s.get("additionalProperties")
        if names is not None or more is not None:
            for name, x in v.items():
                if names is not None:
                    _run(name, names, member(field, name), ctx)
                if more is not None and name not in props:
                    _run(x, more, member(field, name), ctx)
        for name, needs in s.get("dependentRequired", {}).items():
            for other in needs:
                if name in v and other not in v:
                    mutual = name in s["dependentRequired"].get(other, ())
                    raise Invalid(field, f"{name} and {other} go together, only {name} given" if mutual
                                  else f"{name} needs {other}")
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            _run(x, s["items"], f"{field}[{i}]", ctx)
    for sub in s.get("allOf", ()):
        if "if" in sub:
            try:
                _run(v, sub["if"], field, ctx)
            except Invalid:
                continue
            _run(v, sub["then"], field, ctx)
        else:
            _run(v, sub, field, ctx)
    for name in s.get("x-check", ()):
        if ctx.get("across_keys", True) or name not in ACROSS_KEYS:
            CHECKS[name](v, field, ctx)


def units() -> dict:
    """{unit: seconds} as the schema declares them."""
    return dict(DOCUMENT["$defs"]["entry"]["properties"]["unit"]["x-seconds"])


#: the x-checks that compare keys with each other (plausibility across a file's prices)
ACROSS_KEYS = frozenset({"price-grows-with-size"})


def check(data, on_disk: bool, across_keys: bool = True) -> None:
    """Raise Invalid at the first problem of parsed JSON `data` (None if there is none).
    `on_disk`: the data was read from a file (or is about to be written to one), so a kind that
    exists only in memory (x-never-on-disk) is refused.  `across_keys` False: prices timed just now
    in memory are not held to ``ACROSS_KEYS`` (a noisy run may swap near sizes; that is its noise)."""
    _run(data, DOCUMENT, "", {"on_disk": on_disk, "units": units(), "across_keys": across_keys})
