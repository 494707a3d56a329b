"""zkalc's benchmark format, both ways [@zkalc].

zkalc publishes one JSON file per curve, library and machine (``frontend/data/<curve>/<library>/
<machine>.json`` in its repository): an object of operations, each with the sizes it was timed at
(``range``), the times (``results``, nanoseconds: criterion's mean over its samples) and, in its
newer files, their standard deviation (``stddev``)::

    {"mul_G1": {"range": [1], "results": [90626.7], "stddev": [118.4]},
     "msm_G1": {"range": [2, 4, ...], "results": [...], "stddev": [...]}, ...}

``ZKALC_NAMES`` is the one table between zkalc's operation names and the book's primitive keys.
``to_measurements`` reads a zkalc file into a measurement file of kind ``public`` (every price with the
line of the file that states it); ``from_measurements`` writes the keys that have a zkalc name back.

zkalc states a mean and a standard deviation, the book a median and quartiles: the import takes
the quartiles of a normal law of that mean and deviation (``_quartiles``: an assumption, since zkalc
keeps no samples) and says so in every file's ``provenance.spread``.  What the book cannot price
from a zkalc file is kept aside in ``provenance.aside`` with its reason, never dropped silently.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from ..prices import measurement_schema, measurements
from ..prices.keys import UnknownPrimitiveKey, family_of, sizes as key_sizes, sort_key

#: zkalc's curve folder names -> the book's curve in keys (the only curves both price)
CURVES = {"bls12_381": "bls12_381", "bls12-381": "bls12_381", "bn254": "bn254"}

#: zkalc operation -> book key, "{curve}" and, for an operation timed at several sizes, "{n}" filled
#: in.  One table, read both ways: the first name of a key is the one the export writes.  mul_ec and
#: add_ec are the names of G1's operations in zkalc's older files (its parser maps them so);
#: msm_Gt is zkalc's multi-pairing, a product of n pairings (one final exponentiation).
ZKALC_NAMES = {
    "mul_G1": "{curve}/g1_mul",
    "mul_ec": "{curve}/g1_mul",
    "mul_G2": "{curve}/g2_mul",
    "mul_Gt": "{curve}/gt_exp",
    "pairing": "{curve}/pairing",
    "add_G1": "{curve}/g1_add",
    "add_ec": "{curve}/g1_add",
    "add_G2": "{curve}/g2_add",
    "msm_G1": "{curve}/g1_msm/{n}",
    "msm_G2": "{curve}/g2_msm/{n}",
    "msm_Gt": "{curve}/pairing_product/{n}",
    "pairing_product": "{curve}/pairing_product/{n}",
}

#: operations zkalc times on all the machine's cores in a library's build, set aside: the book prices
#: one thread.  A single multiplication, addition or pairing stays on one thread in every library here.
#: arkworks: zkalc builds ark-ec and ark-ff with their "parallel" feature (backend/arkworks/Cargo.toml of
#: github.com/mmaker/zkalc), under which MSMs and multi-pairings run on rayon's thread pool.
#: gnark_crypto: zkalc runs gnark-crypto's BenchmarkMultiExpG1/G2 (backend/gnark/zkalc.sh), whose
#: MultiExp with a default ecc.MultiExpConfig spreads its work over go routines on every CPU.
#: blstrs: its multi_exp is blst's Rust p1_affines/p2_affines mult, which tiles the Pippenger sum over
#: blst's thread pool unless built with "no-threads" (zkalc's build is not).  Other libraries' MSMs
#: are set aside where their own figures show more than one thread (``threads_shown``).
MULTI_THREADED = {"arkworks": frozenset({"msm_G1", "msm_G2", "msm_Gt", "pairing_product"}),
                  "gnark_crypto": frozenset({"msm_G1", "msm_G2"}),
                  "blstrs": frozenset({"msm_G1", "msm_G2"})}

#: the bits of each curve's scalars (its group order's), the work of one MSM term
SCALAR_BITS = {"bls12_381": 255, "bn254": 254}
#: the MSMs whose figures ``threads_shown`` reads, each with the addition of its group
MSM_ADDITIONS = {"msm_G1": "add_G1", "msm_G2": "add_G2"}
#: the least a bucket addition costs, as a share of the file's full addition: a mixed or batched-affine
#: addition costs about half of a projective one; a quarter leaves room for any library's tricks
CHEAPEST_ADDITION = 0.25
#: a normal law's quartiles lie 0.6745 standard deviations from its median
NORMAL_QUARTILE = 0.6744897501960817
#: where mean - 0.6745 sd would reach zero, q1 is clipped to this share of the mean
CLIP_SHARE = 0.01
#: zkalc's library folders (frontend/data/<curve>/<library>/ of github.com/mmaker/zkalc): a file's
#: library is read from its folder only where the folder is one of these
LIBRARIES = frozenset({"arkworks", "blstrs", "curve25519-dalek", "ffjavascript", "gnark_crypto", "halo2_curves",
                       "icicle-cpu", "icicle-cuda", "pairing_ce", "pasta_curves", "zkcrypto"})
#: the unit zkalc's results are in, kept as is in the imported file
UNIT = "ns"
KIND = "public"
SPREAD = ("zkalc states each operation's mean time (criterion's mean over its samples) and, where the file "
          "has 'stddev', their standard deviation; here median = that mean, q1/q3 = mean -/+ 0.6745 sd "
          f"(the quartiles of a normal law of that mean and deviation, q1 clipped at {CLIP_SHARE:.0%} of the "
          "mean), an assumption since zkalc keeps no samples; an operation without a stddev has no spread "
          "and says so (no_spread)")
_OPERATION_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
#: the most timings (an operation at one size) a file may hold: zkalc's files hold about 100, so a
#: file of more is no benchmark, and the import of one that size stays within seconds
MAX_TIMINGS = 10_000


class ZkalcFileError(ValueError):
    """A zkalc file that cannot be read or is not in zkalc's format; one line naming file and field."""


# ---------------------------------------------------------------------------
# Reading a zkalc file

def _fail(path, field: str, problem: str):
    raise ZkalcFileError(f"{path}: {field}: {problem}")


def _number(v) -> bool:
    return measurement_schema.finite_number(v)


def parse(text: str, path) -> dict:
    """{operation: {"range": [...], "results": [...], "stddev": [...] or None}} of a zkalc file's text,
    or ZkalcFileError naming the file and the field at fault."""
    data = measurements.parse_json(text, str(path), error=ZkalcFileError)
    if not isinstance(data, dict):
        _fail(path, "(top level)", f"expected a JSON object of operations, got {type(data).__name__}")
    if not data:
        _fail(path, "(top level)", "no operations (an empty zkalc file)")
    timings = sum(len(b["range"]) if isinstance(b, dict) and isinstance(b.get("range"), list) else 1 for b in data.values())
    if timings > MAX_TIMINGS:
        _fail(path, "(top level)", f"{timings} timings (operation x size): more than any zkalc file holds "
                                   f"(at most {MAX_TIMINGS}; zkalc's own files hold about 100)")
    out = {}
    for op, body in data.items():
        if not _OPERATION_NAME.fullmatch(op):
            _fail(path, repr(op)[:80], "not a zkalc operation name (a letter, then letters, digits or _)")
        if not isinstance(body, dict):
            _fail(path, op, f"expected an object with range and results, got {type(body).__name__}")
        extra = sorted(set(body) - {"range", "results", "stddev"})
        if extra:
            _fail(path, op, f"unexpected field {extra[0]!r} (a zkalc operation has range, results, stddev)")
        for field in ("range", "results"):
            if field not in body:
                _fail(path, f"{op}.{field}", "missing")
        rng, res, sd = body["range"], body["results"], body.get("stddev")
        if not isinstance(rng, list) or not rng:
            _fail(path, f"{op}.range", "expected a non-empty list of sizes")
        for i, n in enumerate(rng):
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 2**40:
                _fail(path, f"{op}.range[{i}]", f"expected a size, an integer from 1 to 2^40, got "
                                                f"{measurement_schema.quote(n)}")
        for field, values, positive in (("results", res, True), ("stddev", sd, False)):
            if values is None and field == "stddev":          # a file without spreads: said so per price
                continue
            if not isinstance(values, list) or len(values) != len(rng):
                _fail(path, f"{op}.{field}", f"expected a list of {len(rng)} numbers, one per size of range")
            for i, v in enumerate(values):
                if not _number(v) or v < 0 or (positive and v == 0):
                    want = "a positive number of nanoseconds" if positive else "a number >= 0"
                    _fail(path, f"{op}.{field}[{i}]", f"expected {want}, got {measurement_schema.quote(v)}")
        out[op] = {"range": list(rng), "results": list(res), "stddev": list(sd) if sd is not None else None}
    return out


def read(path) -> tuple:
    """(operations, text) of the zkalc file at `path` (see ``parse``)."""
    text = measurements.read_text(path, error=ZkalcFileError, what="zkalc file")
    return parse(text, path), text


def curve_of(path, curve: str | None = None) -> str:
    """The book's curve of a zkalc file: `curve` if given, else its folder in zkalc's layout
    (data/<curve>/<library>/<machine>.json)."""
    name = curve if curve is not None else Path(path).resolve().parent.parent.name
    if name not in CURVES:
        given = f"--curve {name!r}" if curve is not None else f"its folder {name!r}"
        raise ZkalcFileError(f"{path}: curve: {given} is not a curve the book prices (have: "
                             f"{', '.join(sorted(CURVES))}); give --curve")
    return CURVES[name]


def library_of(path, library: str | None = None) -> str:
    """The library a zkalc file times: `library` if given, else its folder in zkalc's layout
    (data/<curve>/<library>/<machine>.json), which must be one of zkalc's (``LIBRARIES``)."""
    if library is not None:
        return library
    folder = Path(path).resolve().parent.name
    if folder in LIBRARIES:
        return folder
    raise ZkalcFileError(f"{path}: library: its folder {folder!r} is not one of zkalc's library folders "
                         f"(data/<curve>/<library>/<machine>.json: {', '.join(sorted(LIBRARIES))}); give --library")


def _lines_of(text: str) -> dict:
    """{name: the 1-based line where `"name":` first stands in the file}, in one pass over the text
    (an operation's line for its prices' provenance)."""
    lines, line, at = {}, 1, 0
    for m in re.finditer(r'"([A-Za-z][A-Za-z0-9_]{0,63})"\s*:', text):
        line += text.count("\n", at, m.start())
        at = m.start()
        lines.setdefault(m.group(1), line)
    return lines


def book_key(op: str, size: int, curve: str) -> str | None:
    """The book's key of zkalc operation `op` at `size` on `curve`, or None (not priced by the book,
    or a size the book's key has no room for)."""
    template = ZKALC_NAMES.get(op)
    if template is None:
        return None
    if "{n}" not in template and size != 1:
        return None
    key = template.format(curve=curve, n=size)
    try:
        family_of(key)
    except UnknownPrimitiveKey:
        return None
    return key


# ---------------------------------------------------------------------------
# zkalc -> measurement file

def one_thread_floor(n: int, bits: int, addition_ns: float) -> float:
    """The least time (ns) one thread can take for an n-term MSM of `bits`-bit scalars by Pippenger's
    bucket method at its best window c: ceil(bits / c) windows, each adding the n points into buckets
    and summing 2^c buckets, every addition at ``CHEAPEST_ADDITION`` of `addition_ns`."""
    return min(math.ceil(bits / c) * (n + 2 ** c) for c in range(1, 33)) * CHEAPEST_ADDITION * addition_ns


def threads_shown(ops: dict, curve: str) -> dict:
    """{msm operation: words} for each MSM of a parsed zkalc file whose own figures show more than one
    thread: at some size it took less than one thread's floor (``one_thread_floor``, from the file's
    addition of that group).  An MSM within one thread's reach is not proven single-threaded (two
    threads rarely fall below the floor): its library's build decides (``MULTI_THREADED``)."""
    shown = {}
    for op, addition in MSM_ADDITIONS.items():
        if op not in ops or addition not in ops:
            continue
        add = ops[addition]["results"][0]
        share, n, took = min((t / one_thread_floor(n, SCALAR_BITS[curve], add), n, t)
                             for n, t in zip(ops[op]["range"], ops[op]["results"]))
        if share < 1:
            shown[op] = (f"its figures show more than one thread: {n} terms in {took:.4g} ns, {share:.2f} of the "
                         f"least one thread could take (costbook.views.zkalc.one_thread_floor, from {addition})")
    return shown


def _quartiles(mean: float, sd) -> tuple:
    """(q1, q3) of a normal law of that mean and deviation, mean -/+ 0.6745 sd, q1 clipped above zero
    (``CLIP_SHARE``); (mean, mean) without sd."""
    if sd is None:
        return mean, mean
    return max(mean - NORMAL_QUARTILE * sd, CLIP_SHARE * mean), mean + NORMAL_QUARTILE * sd


def _entry(mean: float, sd, op: str, size: int, line: int, where: str, also=()) -> dict:
    """The price of one zkalc timing; `also`, the (mean, sd) of further timings of `op` at `size` in the
    file (two benchmarks under one name), widen its quartiles to cover theirs, while its median stays
    the first timing: the one zkalc's own estimates use (``results[0]`` in its frontend)."""
    out = {"median": mean, "unit": UNIT}
    spans = [_quartiles(mean, sd)] + [_quartiles(m, s) for m, s in also]
    if sd is not None or also:
        out["q1"], out["q3"] = min(lo for lo, _ in spans), max(hi for _, hi in spans)
    out["basis"] = f"zkalc {op} at size {size}: {mean:.6g} ns" + (f" +/- {sd:.3g} (sd)" if sd is not None else "") \
                   + f", line {line} of {where}"
    if also:
        out["basis"] += (f"; the first of {1 + len(also)} timings of {op} at size {size}, as zkalc's own estimates "
                         f"take it, its spread widened to cover the other{'s' if len(also) > 1 else ''} ("
                         + ", ".join(f"{m:.6g} ns" for m, _ in also) + ")")
    out["line"] = line
    out["zkalc"] = {"op": op, "size": size, "mean_ns": mean, **({"sd_ns": sd} if sd is not None else {}),
                    **({"also_ns": [m for m, _ in also]} if also else {})}
    if sd is None and not also:
        out["no_spread"] = "the zkalc file states no standard deviation"
    return out


def _span(e: dict) -> tuple:
    return (e["q1"], e["q3"]) if "q1" in e else (e["median"], e["median"])


def _falling_sizes(entries: dict) -> dict:
    """{key: why} of the sized keys to set aside so that no price falls as its size grows by more than
    the schema's slack (``measurements.GROWTH_SLACK``): walking each family from its largest size down,
    a size whose interval lies wholly above a larger kept size's is set aside."""
    groups: dict = {}
    for key in entries:
        fam = family_of(key)
        for g in fam.grows:
            rest = tuple(sorted((k, v) for k, v in key_sizes(key).items() if k != g))
            groups.setdefault((fam.pattern, g, rest), []).append((key_sizes(key)[g], key))
    aside = {}
    for (_, g, _), items in groups.items():
        least = None                   # (high, size, key): the least upper bound of the larger sizes kept
        for size, key in sorted(items, reverse=True):
            low, high = _span(entries[key])
            if least is not None and least[0] < (1 - measurements.GROWTH_SLACK) * low:
                aside[key] = (f"costs more than {g} = {least[1]} ({least[2]}): the library switches algorithm "
                              f"between sizes, and the book's prices grow with {g}")
            elif least is None or high < least[0]:
                least = (high, size, key)
    return aside


def to_measurements(path, library: str, machine: str, curve: str | None = None, source: dict | None = None,
                    command: str | None = None, name: str | None = None) -> measurements.MeasurementSet:
    """The zkalc file at `path` as a validated measurement set of kind ``public``: one backend
    (`library`), the operations ``ZKALC_NAMES`` maps, in nanoseconds; every other operation and size in
    ``provenance.aside`` with its reason.  `source` (repository, commit, path) is recorded as given.

    An operation timed twice at one size (zkalc's parser maps two benchmarks to one name in some
    files) is priced as zkalc's own estimates price it, by its first timing (its frontend reads
    ``results[0]``), with a spread wide enough for the others (``_entry``).  Set aside: operations
    the book does not price (field arithmetic, FFTs, ...), operations zkalc times on all of the
    machine's cores where the book prices one thread (``MULTI_THREADED``, and any MSM whose figures
    show it: ``threads_shown``), and MSM or
    pairing-product sizes whose price falls as the size grows (a library switching algorithm; the
    book's schema refuses a price that falls as the work grows: ``_falling_sizes``).  A file
    without ``stddev`` gives prices without a spread, and each says so."""
    ops, text = read(path)
    book_curve = curve_of(path, curve)
    if not library or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}", library):
        raise ZkalcFileError(f"--library {library!r}: expected a library name (letters, digits, _ . + -)")
    if not machine or not machine.strip():
        raise ZkalcFileError("--machine: give the machine the file was measured on, in words")
    where = (source or {}).get("path") or Path(path).name
    entries, aside = {}, []
    lines = _lines_of(text)
    shown = threads_shown(ops, book_curve)
    for op, body in ops.items():
        line = lines.get(op, 1)
        sds = body["stddev"] or [None] * len(body["range"])
        timings: dict = {}                 # size -> [(mean, sd)] in the file's order
        for n, mean, sd in zip(body["range"], body["results"], sds):
            timings.setdefault(n, []).append((mean, sd))
        for n, timed in timings.items():
            key = book_key(op, n, book_curve)
            built = op in MULTI_THREADED.get(library, ())
            reason = ("the book prices no such operation" if key is None else
                      f"zkalc's {library} build times {op} on all the machine's cores (costbook.views.zkalc."
                      f"MULTI_THREADED)" + (f", and {shown[op]}" if op in shown else "") + "; the book prices one thread"
                      if built else f"{shown[op]}; the book prices one thread" if op in shown else None)
            if reason:
                aside += [{"op": op, "size": n, "mean_ns": mean, **({"sd_ns": sd} if sd is not None else {}),
                           "line": line, "reason": reason} for mean, sd in timed]
            else:
                entries[key] = _entry(*timed[0], op, n, line, where, also=timed[1:])
    for key, why in _falling_sizes(entries).items():
        e = entries.pop(key)
        aside.append({**e["zkalc"], "line": e["line"], "reason": why})
    if not entries:
        raise ZkalcFileError(f"{path}: no operation of this file has a key in the book "
                             f"(it maps: {', '.join(sorted(set(ZKALC_NAMES)))})")
    aside.sort(key=lambda a: (a["op"], a["size"]))
    prov = {"source": {"benchmark": "zkalc", "citation": "zkalc", "library": library, "curve": book_curve,
                       **(source or {"path": str(path)})},
            "machine": machine, "spread": SPREAD,
            "mapping": "costbook.views.zkalc.ZKALC_NAMES",
            "aside": aside}
    if command:
        prov["command"] = command
    data = {"schema": measurements.SCHEMA, "name": name or f"zkalc {library} {book_curve}, {machine}",
            "kind": KIND, "provenance": prov, "results": {library: dict(sorted(entries.items(), key=lambda kv: sort_key(kv[0])))}}
    return measurements.validate(data, str(path))


# ---------------------------------------------------------------------------
# measurement file -> zkalc

def machine_entry(mset: measurements.MeasurementSet) -> dict:
    """The machine of `mset` as an entry of zkalc's data/machines.json ({cpu, label, os, ram}), from the
    provenance the book's harness records."""
    m = mset.provenance.get("machine")
    m = m if isinstance(m, dict) else {"cpu": str(m or "unknown")}
    cores = m.get("cores")
    cpu = str(m.get("cpu", "unknown")) + (f", {cores} cores" if isinstance(cores, int) else "")
    return {"cpu": cpu, "label": measurements.machine_words(mset), "os": str(m.get("os", "unknown")),
            "ram": str(m.get("memory", "unknown"))}


def zkalc_name(key: str) -> tuple | None:
    """(curve, zkalc operation, size) of a book key that has a zkalc name (the first in ZKALC_NAMES),
    else None."""
    for op, template in ZKALC_NAMES.items():
        pattern = re.escape(template).replace(r"\{curve\}", r"(?P<curve>bls12_381|bn254)").replace(
            r"\{n\}", r"(?P<n>[1-9][0-9]*)")
        m = re.fullmatch(pattern, key)
        if m:
            return m.group("curve"), op, int(m.groupdict().get("n") or 1)
    return None


def zkalc_statistic(e: dict) -> str:
    """How ``from_measurements`` writes an entry: "mean" (the samples' mean and sd, as criterion and so
    zkalc report them) where the harness recorded them, else "median" (the median as the mean, an sd
    from the quartiles or the stated range)."""
    return "mean" if "mean" in e and "sd" in e else "median"


def written(mset: measurements.MeasurementSet, backend: str, curve: str) -> list:
    """(key, zkalc operation, size) of each price ``from_measurements`` writes: the keys of `backend` on
    `curve` with a zkalc name, but a price completed from another machine or an operation zkalc
    names for that library's all-core run (``MULTI_THREADED``)."""
    out = []
    for key in mset.keys(backend):
        named = zkalc_name(key)
        if named is None or named[0] != curve:
            continue
        _, op, n = named
        if mset.entry(backend, key).get("completed") or op in MULTI_THREADED.get(backend, ()):
            continue        # another machine's price; or zkalc's name for that library's all-core operation
        out.append((key, op, n))
    return out


def from_measurements(mset: measurements.MeasurementSet, backend: str, curve: str = "bls12_381") -> dict:
    """zkalc's JSON of `backend`'s prices in `mset` for `curve`: every key with a zkalc name, in ns.
    An entry with the samples' mean and standard deviation (the harness records them) gives those, the
    statistics zkalc's own files hold; otherwise (a zkalc import, an older file) the median is the mean
    and sd = the wider of (q3 - median, median - q1) / 0.6745 (a normal law's; the upper side alone
    where the import clipped q1), from a stated range (low/high) the same way; an operation with a
    price given without any spread has no stddev.  A price completed from another
    machine's ratios (``costbook.views.public``) is no benchmark of this machine and is not written, nor an
    operation zkalc times on all cores in that library (``MULTI_THREADED``): the book's is one thread's."""
    if curve not in set(CURVES.values()):
        raise ZkalcFileError(f"--curve {curve!r}: zkalc and the book share only {', '.join(sorted(set(CURVES.values())))}")
    if backend not in mset.results:
        raise ZkalcFileError(f"{mset.name}: no backend {backend!r} (have: {', '.join(mset.backends)})")
    ops: dict = {}
    for key, op, n in written(mset, backend, curve):
        e = mset.entry(backend, key)
        if zkalc_statistic(e) == "mean":
            to_ns = measurements.UNITS[e["unit"]] * 1e9
            mean, sd = e["mean"] * to_ns, e["sd"] * to_ns
        else:
            mean = mset.seconds(backend, key) * 1e9
            low, high = (b * 1e9 for b in mset.bounds(backend, key))
            spread = "q1" in e or "low" in e
            clipped = "q1" in e and e["q1"] <= CLIP_SHARE * e["median"] * (1 + 1e-12)
            sd = (high - mean if clipped else max(high - mean, mean - low)) / NORMAL_QUARTILE if spread else None
        ops.setdefault(op, []).append((n, mean, sd))
    if not ops:
        raise ZkalcFileError(f"{mset.name}: backend {backend!r} has no {curve} key with a zkalc name")
    out = {}
    for op, rows in ops.items():
        rows.sort(key=lambda r: r[0])
        out[op] = {"range": [n for n, _, _ in rows], "results": [m for _, m, _ in rows]}
        if all(sd is not None for _, _, sd in rows):
            out[op]["stddev"] = [sd for _, _, sd in rows]
    return out
