"""What a chapter's page needs to re-price its scheme in the reader's browser, as JSON.

The page multiplies, adds and propagates intervals; it never counts.  So for every point of the
scheme's parameter grid (``grid``) this module runs the scheme's ``estimate`` -- the function
``costbook estimate SCHEME`` calls -- once per machine the book knows, and records every ``price``
call it makes (``cost.recording``); the page replays those calls with the same price sets, or with
a reader's measurement file in place of the reference file (``export``).  Each step's interval on
the page is its prediction interval (``uncertainty.prediction_interval``).

Also exported, as data: the measurement file's schema and the key families (``schema_rules``), so
the page refuses a malformed file with the same message.

    python -m costbook.book.live --out DIR [SCHEME ...]   # DIR/<scheme>.json

Any other measured file (this machine's, a reader's) is priced in the page from the reference
machine's recorded calls, so it needs no export of its own.

Nothing here names a scheme: the schemes come from ``costbook.registry``.
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
from pathlib import Path

from ..system import atomic
from ..prices import cost, keys, measurement_schema, measurements
from ..views import machines
from ..calibration import prediction, uncertainty
from .. import registry

#: the version of the exported shape, checked by the page
FORMAT = "costbook-live/3"
#: what the page calls a reader's file when it asks for its margin: never the validation evidence's machine
READER_MACHINE = "a reader's measurement file"
#: the most lines one what-if plot draws (each in its own colour): a group of steps holds no more
MAX_LINES = 6


def grid(model, manifest) -> dict:
    """{option: [values the page offers]}: the scheme's LIVE_GRID where it gives one, else every
    choice of a choice option and the default alone of a numeric one.  Every value is checked
    against the option's bounds, so the page offers nothing the CLI refuses."""
    chosen = getattr(manifest, "LIVE_GRID", {})
    scheme = model.__name__.split(".")[2]
    unknown = sorted(set(chosen) - set(model.OPTIONS))
    if unknown:
        raise registry.SchemeError(f"scheme {scheme!r}, LIVE_GRID: no option {', '.join(map(repr, unknown))}")
    out = {}
    for name, (default, allowed) in model.OPTIONS.items():
        if name in chosen:
            values = list(chosen[name])
        elif isinstance(allowed, tuple):
            values = list(allowed)
        else:
            values = [default]
        bad = [v for v in values if v not in allowed]
        if bad or default not in values:
            problem = f"values {bad!r} outside {allowed}" if bad else f"must hold the default {default!r}"
            raise registry.SchemeError(f"scheme {scheme!r}, LIVE_GRID {name!r}: {problem}")
        out[name] = values
    return out


def axis(model, manifest, offered: dict) -> str | None:
    """The option the what-if plot runs along by default: the scheme's LIVE_AXIS (the parameter of
    its chapter's what-if figure), which must be a numeric option offered at two values or more; else
    the first such option, or None."""
    scheme = model.__name__.split(".")[2]
    numeric = [o for o, values in offered.items()
               if isinstance(model.OPTIONS[o][1], registry.Bounds) and len([v for v in values if v > 0]) > 1]
    chosen = getattr(manifest, "LIVE_AXIS", None)
    if chosen is None:
        return numeric[0] if numeric else None
    if chosen not in numeric:
        raise registry.SchemeError(f"scheme {scheme!r}, LIVE_AXIS {chosen!r}: not a numeric option the page offers "
                                  f"at two positive values or more ({', '.join(numeric) or 'none is'})")
    return chosen


def groups(model, title: str, labels: list) -> list:
    """The step groups of the export: the model's STEP_GROUPS, each holding at most MAX_LINES steps and
    together every label of `labels` (the steps recorded at some point) exactly once; a model without
    them has one group of all its steps under its title."""
    scheme = model.__name__.split(".")[2]
    declared = getattr(model, "STEP_GROUPS", None)
    if not declared:
        return [{"heading": title, "note": "", "steps": list(labels)}]
    out, seen = [], {}
    for g in declared:
        if len(g.steps) > MAX_LINES:
            raise registry.SchemeError(f"scheme {scheme!r}, STEP_GROUPS {g.heading!r}: {len(g.steps)} steps, "
                                      f"more than a plot draws ({MAX_LINES})")
        for label in g.steps:
            if label in seen:
                raise registry.SchemeError(f"scheme {scheme!r}, STEP_GROUPS: {label!r} in {seen[label]!r} and {g.heading!r}")
            seen[label] = g.heading
        out.append({"heading": g.heading, "note": g.note, "steps": list(g.steps)})
    stray = [label for label in labels if label not in seen]
    if stray:
        raise registry.SchemeError(f"scheme {scheme!r}, STEP_GROUPS: no group holds {', '.join(map(repr, stray))}")
    return out


def _applies(applies: dict, point: dict, defaults: dict, kind: str) -> bool:
    """Whether every option of `point` away from its default applies (OPTION_APPLIES), as the CLI
    requires of an option given on its command line."""
    for opt, conds in applies.items():
        if point.get(opt) == defaults.get(opt):
            continue
        for cond, allowed in conds.items():
            actual = kind if cond == "source" else point.get(cond)
            if actual not in allowed:
                return False
    return True


def _allowed(allowed) -> dict:
    if isinstance(allowed, registry.Bounds):
        return {"low": allowed.low, "high": allowed.high, "zero": allowed.zero}
    return {"choices": list(allowed)}


#: how the chooser words a machine of each kind (costbook.views.machines.KINDS): what it is, where its prices come from
MACHINE_WORDS = {"public": ("the public machine", "zkalc's published prices, the rest completed from the reference "
                                                  "machine's ratios"),
                 "contributed": ("the contributed machine", "a reader's full measurement")}


def machine_label(m) -> str:
    """"the public machine AWS m6g.8xlarge (Graviton2 Neoverse-N1, 32 cores; zkalc's published prices, ...)":
    a machine of ``costbook.views.machines`` as the chooser offers it."""
    noun, source = MACHINE_WORDS[m.kind]
    name = machines.short_name(m)
    rest = m.words[len(name):].strip() if m.words.startswith(name) else m.words
    rest = rest[1:-1] if rest.startswith("(") and rest.endswith(")") else rest
    return f"{noun} {name} ({rest}; {source})" if rest else f"{noun} {name} ({source})"


def known_machines(model) -> list:
    """(id, words for a reader, MeasurementSet) of every machine the book prices this scheme with:
    the reference file, the scheme's published (seed) machine, then the public and contributed
    machines (``costbook.views.machines.known_machines``).  Each id is what ``costbook estimate SCHEME
    --source`` takes for that machine."""
    # the export is committed: it never holds the machine a build runs on (the page embeds that one)
    ref, *others = machines.known_machines(this_machine=False)
    pub = measurements.load_source(f"published/{model.PUBLISHED}")
    out = [("reference", f"the reference machine ({measurements.machine_words(ref.mset)})", ref.mset),
           ("published", f"the seed's machine ({measurements.machine_words(pub)}; its published prices, completed as "
                         f"the scheme's model does)", pub)]
    out += [(m.id, machine_label(m), m.mset) for m in others]
    return out


#: the fields of a price the page reads (its median, unit and bounds: PriceSet in pricing.js); the
#: rest of an entry (where it comes from, how it was measured) stays in the measurement file
PRICE_FIELDS = ("median", "unit", "q1", "q3", "low", "high")


class _Tables:
    """Count vectors, backend orders and price sets, each stored once and referred to by index."""

    def __init__(self):
        self.counts, self.orders, self.sources = [], [], []
        self._ids: dict = {}
        self._source_of: dict = {}        # id(measurement set) -> (the set, its entry): a set is read once

    def _id(self, table: list, value, ident):
        key = (id(table), ident)
        if key not in self._ids:
            self._ids[key] = len(table)
            table.append(value)
        return self._ids[key]

    def call(self, c: cost.PriceCall) -> list:
        counts = {k: c.counts[k] for k in c.counts}
        ci = self._id(self.counts, counts, json.dumps(counts, sort_keys=True))
        oi = self._id(self.orders, list(c.order), tuple(c.order))
        return [c.estimate.label, ci, self._source(c.measurements), oi, bool(c.derive)]

    def _source(self, ms) -> int:
        """The index of a measurement set's prices: equal sets share one (keyed by their content), and the
        set a scheme prices hundreds of steps with is written out once (the set itself is kept, so that
        its id names no other set meanwhile)."""
        hit = self._source_of.get(id(ms))
        if hit is None or hit[0] is not ms:
            results = {b: {k: {f: e[f] for f in PRICE_FIELDS if f in e} for k, e in entries.items()}
                       for b, entries in ms.results.items()}
            hit = self._source_of[id(ms)] = (ms, self._id(self.sources, {"name": ms.name, "kind": ms.kind, "results": results},
                                                          json.dumps([ms.name, results], sort_keys=True, default=str)))
        return hit[1]


steps = prediction.steps       # the steps among recorded price calls: what the page re-prices


def _priced(model, mset, point: dict) -> list:
    with cost.recording() as calls:
        model.estimate(mset, **point)
    return steps(calls)


def _probe(mset):
    """A copy of a measured set whose every entry has its own price (1 s, 2 s, ...): run through a
    scheme, a set the scheme builds by copying entries shows, by its prices, which entry each
    copy came from."""
    results, origin, i = {}, {}, 0
    for b, entries in mset.results.items():
        results[b] = {}
        for key in entries:
            i += 1
            results[b][key] = {"median": float(i), "unit": "s"}
            origin[float(i)] = [b, key]
    probe = measurements.MeasurementSet(mset.name, mset.kind, mset.provenance, results, mset.path)
    return probe, origin


class _Views(list):
    """The views of the export, each once (``index``: its JSON text -> its position)."""

    def __init__(self):
        super().__init__()
        self.index = {}


def _reader_recipes(model, mset, point: dict, calls: list, views: list) -> list:
    """How the page prices each step of `calls` (recorded with the template file `mset`) with a
    reader's file instead: "file" (the scheme priced with the file itself), {"view": i} (with a set
    the scheme copied from the file's entries; views[i] maps each of its entries to the file's
    (backend, key)), "keep" (a set not made from the file, e.g. a published file), or None (prices
    the scheme computed from the file's: not re-priced in the page)."""
    recipes = [("file" if c.measurements is mset else "keep" if c.measurements.name != mset.name else None)
               for c in calls]
    if None not in recipes:
        return recipes
    probe, origin = _probe(mset)
    try:
        probed = _priced(model, probe, point)
    except (ValueError, LookupError, ArithmeticError):
        return recipes
    if [c.estimate.label for c in probed] != [c.estimate.label for c in calls]:
        return recipes
    for i, (c, p) in enumerate(zip(calls, probed)):
        if recipes[i] is not None:
            continue
        view = {b: {k: origin.get(float(e["median"] * measurements.UNITS[e["unit"]]))
                    for k, e in entries.items()} for b, entries in p.measurements.results.items()}
        if all(o is not None for entries in view.values() for o in entries.values()):
            text = json.dumps(view)             # one copy of a view many steps and points share
            if text not in views.index:
                views.index[text] = len(views)
                views.append(view)
            recipes[i] = {"view": views.index[text]}
    return recipes


def export(name: str) -> dict:
    """The live data of one scheme.

    For every point of the grid (the values the page's controls offer: ``manifest.LIVE_GRID``, else
    every choice of a choice option and the default of a numeric one) and every machine the book
    knows, the recorded ``price`` calls: the count vector, the backends in preference order, whether
    unmeasured sizes may be derived, and the price set that priced it (for a published source, the
    set the scheme derived from it: the seed machine already scaled).  The page replays those calls
    with the same price set, or, for a measurement file the reader brings, with that file in place of
    the reference file in the calls recorded with it (a measured file too): where the scheme priced
    with the file itself, the reader's file; where it priced with a set it copied from the file's
    entries (one backend per key, say), the same copy of the reader's entries, found by running the
    scheme once more on a copy of the file whose every price is distinct (``_reader_recipes``,
    ``_probe``).

    For a reader, each option carries its chapter's words (``model.OPTION_WORDS``), the export names
    the option the chapter's own what-if figure runs along (``manifest.LIVE_AXIS``), and the steps
    come in the groups of the model that prices them (``model.STEP_GROUPS``: a heading, the labels,
    a note), each step labelled as the chapter's tables name it.

    The page widens the price interval it propagates by the model-error margin exported here per
    machine and grid point (``margins``, from ``prediction.margin``, as `costbook estimate` takes
    it), and for a reader's file by ``reader_margin`` (another machine than the validation
    evidence's)."""
    model, manifest = registry.model(name), registry.manifest(name)
    offered = grid(model, manifest)
    defaults = {k: v[0] for k, v in model.OPTIONS.items()}
    applies = getattr(model, "OPTION_APPLIES", {})
    names = list(offered)
    points = [dict(zip(names, values)) for values in itertools.product(*offered.values())]
    tables, views = _Tables(), _Views()
    machines = []
    for ident, words, mset in known_machines(model):
        priced, margins = {}, {}
        for i, point in enumerate(points):
            if not _applies(applies, point, defaults, mset.kind):
                continue
            try:
                calls = _priced(model, mset, point)
            except (ValueError, LookupError) as e:       # a combination the scheme refuses, in its words
                priced[str(i)] = {"refused": str(e)}
                continue
            rows = [tables.call(c) for c in calls]
            # the model-error margin the page widens each step's price interval by (prediction.margin)
            margins[str(i)] = uncertainty.margin_export(prediction.margin(name, mset, point, calls))
            if ident == "reference":                     # the template a reader's file replays
                for row, recipe in zip(rows, _reader_recipes(model, mset, point, calls, views)):
                    row.append(recipe)
            priced[str(i)] = rows
        machines.append({"id": ident, "label": words, "name": mset.name, "kind": mset.kind, "points": priced,
                         "margins": margins})
    labels = list(dict.fromkeys(row[0] for m in machines for rows in m["points"].values()
                                if isinstance(rows, list) for row in rows))
    option_words = getattr(model, "OPTION_WORDS", {})
    choice_words = getattr(model, "VALUE_WORDS", {})
    return {
        "format": FORMAT, "scheme": name, "title": manifest.TITLE,
        "chapter": Path(manifest.CHAPTER).with_suffix(".html").name, "section": manifest.SECTION,
        "options": [{"name": o, "words": option_words.get(o, o), "default": defaults[o],
                     "allowed": _allowed(model.OPTIONS[o][1]), "offered": offered[o],
                     **({"values": choice_words[o]} if o in choice_words else {})} for o in names],
        "axis": axis(model, manifest, offered), "groups": groups(model, manifest.TITLE, labels),
        "applies": applies, "points": points,
        "machines": machines, "template": "reference",
        "counts": tables.counts, "orders": tables.orders, "sources": tables.sources, "views": list(views),
        # a reader's file is another machine than the evidence's: the cross-machine margin, at any size
        "level": uncertainty.NOMINAL, "reader_margin": uncertainty.margin_export(uncertainty.estimate_margin(name, READER_MACHINE)),
        "schema": schema_rules(),
    }


def schema_rules() -> dict:
    """What the page's checker reads: measurement.schema.json itself (the page interprets it as
    ``measurement_schema`` does), and data of the checks a schema cannot state: the key families
    (``keys.FAMILIES``, each with its floor), the units in seconds and the growth slack."""
    return {
        "document": measurement_schema.DOCUMENT, "units": measurements.UNITS,
        "growth_slack": measurement_schema.GROWTH_SLACK,
        "families": [{"pattern": re.sub(r"\(\?P<", "(?<", f.pattern), "python": f.pattern,
                      "grows": list(f.grows), "floor": [f.floor[0], f.floor[1], [list(x) for x in f.floor[2]]]}
                     for f in keys.FAMILIES],
    }


#: what a page's widget names for "every scheme of the book" (the closing chapter's): the offline
#: renderer puts the book's schemes in its place, and a page served by Quarto reads them from INDEX
EVERY_SCHEME = "*"
INDEX = "index.json"


def index() -> dict:
    """The schemes of the book in the order of their chapters (``registry.in_book_order``), as the page
    reads them for a widget of every scheme."""
    return {"format": FORMAT, "schemes": list(registry.in_book_order())}


def write(out_dir, names=None) -> list:
    """Write <out_dir>/<scheme>.json for every scheme (or those named) and <out_dir>/index.json, the
    book's schemes; returns the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in [(n, None) for n in (names or list(registry.REGISTRY))] + [(INDEX, index())]:
        path = out_dir / (name if name == INDEX else f"{name}.json")
        text = json.dumps(export(name) if data is None else data, separators=(",", ":"), allow_nan=False)
        if not path.exists() or path.read_text() != text:
            atomic.write_text(path, text)     # a renderer sharing the cache never sees half a file
        written.append(path)
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m costbook.book live", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder for <scheme>.json")
    ap.add_argument("schemes", nargs="*")
    args = ap.parse_args(argv)
    for path in write(args.out, args.schemes):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
