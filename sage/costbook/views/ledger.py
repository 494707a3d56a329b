"""The reproduction ledger: every figure the seed notes print, next to the book's value.

Each scheme contributes its rows through one function of its own package (``ledger_rows()`` in
``schemes/<scheme>/model.py``), built on the functions the chapters and the CLI use.  A row says
what the figure is, the figure exactly as printed, the book's value at the printed precision, and
how the book got it (``STATUSES``).  ``printed_figures()`` lists what must be covered: every entry
of the published measurement files, plus the figures the seeds print that are not prices (ratios,
sizes, stated costs); ``missing()`` names the ones without a row.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, replace

from ..prices import measurements
from .. import registry
from ..calibration import uncertainty
from ..writing.report import cite, fmt_printed, fmt_unit, printed_number

#: how the book got its value, strongest first
STATUSES = {
    "computed": "the seed's own arithmetic redone from its inputs; must match at printed precision",
    "predicted": "priced from counts with prices not fitted to this figure",
    "leave-one-out": "predicted by a fit that leaves this figure out",
    "fitted": "fitted in-sample: the figure is one of the fit's targets",
    "echoed": "taken from the seed (an input, or a figure the book does not model)",
}
# SCHEMES: the schemes of the book in book order, a tuple (module __getattr__ below: read at each use,
# so a scheme folder added to costbook.schemes.__path__ counts at once)
#: a leave-one-out row further than this from the printed figure names, in its note, the fitted unknown
#: its refit moved most (derived.Pivot): what the left-out figure alone determined
EXPLAIN_BEYOND = 0.10

# SEED_ERRATA: computed figures whose printed value disagrees with the seed's own inputs, with the
# reason: (scheme, seed line) -> why, from each scheme's manifest.SEED_ERRATA.  test_ledger checks
# these are exactly the computed rows that differ.


def __getattr__(name):
    if name == "SCHEMES":
        return registry.in_book_order()
    if name == "SEED_ERRATA":
        return {(s, line): why for s in registry.in_book_order()
                for line, why in registry.manifest(s).SEED_ERRATA.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Row:
    scheme: str
    seed: str              # bib key of the source note (references.bib), e.g. "seed-cs03"
    lines: str             # line(s) in that note: "101" or "15, 7"
    quantity: str          # what the figure is, in words
    printed: str           # as the seed prints it (unit spelled µs)
    book: str              # the book's value at the printed precision
    difference: str        # book / printed - 1, or absolute where relative means nothing
    status: str            # one of STATUSES
    note: str = ""
    figure: str = ""       # the figure's identity for coverage: "<file>:<backend>:<key>" or "claim:..."
    book_value: float | None = None     # in the printed unit
    document: str = ""     # the file inside `seed` the line refers to, when not the note itself
    # an out-of-sample row's prediction interval (``with_intervals``), in the printed unit
    book_low: float | None = None
    book_high: float | None = None
    printed_value: float | None = None  # the printed figure, in the unit of book_value
    margin: float | None = None         # the model-error margin that widened it (a log ratio)

    def citation(self) -> str:
        """The marker the book renders as a citation: [@seed-cs03, line 12]."""
        where = f"{self.document}, " if self.document else ""
        return cite(self.seed, where + self.line_text())

    def line_text(self) -> str:
        """Where in its source the figure is printed: "line 12", "lines 12, 14"."""
        return f"line{'s' if ',' in self.lines else ''} {self.lines}"

    def source(self) -> str:
        """The source without the line: [@seed-cs03], [@repo-traceable-mixnets, sample report]."""
        return cite(self.seed, self.document)

    def to_json(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------
# Formatting at the printed precision

_NUMBER = re.compile(r"^[<>~]?([+-]?(?:\d+\.?\d*|\.\d+))\s*(.*)$")      # "<0.03": a bound


def parse_printed(printed: str) -> tuple:
    """(value, decimals or None, significant figures or None, unit) of a printed figure: "26.945 ms"
    has 3 decimals; "2400 s" has 2 significant figures (trailing zeros of an integer are not
    significant); "none" is zero."""
    if printed == "none":
        return 0.0, 0, None, "none"
    m = _NUMBER.match(printed.strip())
    if not m:
        raise ValueError(f"cannot read the printed figure {printed!r} as a number and a unit")
    text, unit = m.groups()
    if "." in text:
        return float(text), len(text.split(".")[1]), None, unit
    digits = text.lstrip("+-").lstrip("0")
    if digits.endswith("0"):
        return float(text), None, len(digits.rstrip("0")), unit
    return float(text), 0, None, unit


def format_like(printed: str, value: float, significant: int | None = None) -> str:
    """`value` (in the printed unit) formatted at the precision and in the unit of `printed`;
    `significant` overrides the precision where the source states it (the mixnet report: 2 figures)."""
    _, decimals, sig, unit = parse_printed(printed)
    if unit == "none":
        return "none" if value == 0 else f"{value:g} B"
    sig = significant or sig
    if sig is not None and value != 0:
        e = math.floor(math.log10(abs(value))) - sig + 1
        text = f"{round(value / 10 ** e) * 10 ** e:.{max(0, -e)}f}"
    elif sig is not None:
        text = "0"
    else:
        text = f"{value:.{decimals}f}"
    unit = fmt_unit(unit)
    if not unit:
        return text
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}"


def normalise(printed: str) -> str:
    """The printed figure with the unit spelled the book's way (µs)."""
    _, _, _, unit = parse_printed(printed)
    return printed if unit in ("", "none") else printed[: len(printed) - len(unit)] + fmt_unit(unit)


def agrees(printed: str, value: float) -> bool:
    """Does `value` equal the printed figure at the printed precision (string equality)?"""
    return format_like(printed, value) == normalise(printed)


def difference(printed: str, value: float | None) -> str:
    if value is None:
        return "—"
    p = parse_printed(printed)[0]
    if p == 0:
        return "0" if value == p else f"{value - p:+g}"
    d = value / p - 1
    return "0" if abs(d) < 5e-5 else f"{d:+.1%}".replace("-", "−")


def loo_note(how: str, printed: str, value: float, pivot) -> str:
    """A leave-one-out row's note: `how`, and the refit's pivot when the row misses by more than
    ``EXPLAIN_BEYOND``."""
    off = abs(value / parse_printed(printed)[0] - 1) if parse_printed(printed)[0] else 0.0
    return f"{how}; {pivot.words()}" if pivot is not None and off > EXPLAIN_BEYOND else how


def row(scheme: str, seed_file: str, lines, quantity: str, printed: str, value: float | None, status: str,
        note: str = "", figure: str = "", document: str = "", significant: int | None = None) -> Row:
    """A ledger row; `value` is the book's number in the printed unit (None: the book has none)."""
    if status not in STATUSES:
        raise ValueError(f"unknown ledger status {status!r}: choose one of {', '.join(STATUSES)}")
    lines = ", ".join(map(str, lines)) if isinstance(lines, (list, tuple)) else str(lines)
    book = format_like(printed, value, significant) if value is not None else "—"
    return Row(scheme, seed_key(seed_file), lines, quantity, normalise(printed), book, difference(printed, value),
               status, note, figure, value, document)


def seed_key(seed_file: str) -> str:
    """The bib key of a seed note from its file name ("002_....txt" -> "seed-cs03"); keys pass through."""
    return registry.seed_notes().get(str(seed_file)[:3], seed_file)


def entry_printed(entry: dict) -> str:
    """What the seed prints for a published entry: its "printed" text (a range) or its median's digits."""
    return fmt_printed(entry).replace("\u00a0", " ")


def entry_figure(mset, backend: str, key: str) -> str:
    return f"{mset.name}:{backend}:{key}"


def echoed_rows(scheme: str, mset, backends=None, quantity=None) -> list:
    """Every entry of a published file's `backends` as an echoed row (the seed's inputs)."""
    out = []
    for b in backends or mset.backends:
        for k in mset.keys(b):
            e = mset.entry(b, k)
            # a printed range is echoed as printed; the book's price, its midpoint, goes in the note
            value, note = ((None, f"priced at its midpoint, {printed_number(e['median'])} {fmt_unit(e['unit'])}; "
                            + e.get("note", "")) if "printed" in e else (e["median"], e.get("note", "")))
            out.append(row(scheme, mset.provenance["seed"], e["line"], quantity(b, k, e) if quantity else f"{b}: {k}",
                           entry_printed(e), value, "echoed", note, entry_figure(mset, b, k)))
    return out


# ---------------------------------------------------------------------------
# Coverage and the ledger

def _published_files() -> list:
    """Every published file some scheme declares (manifest.PUBLISHED_FILES), in file-name order."""
    names = {f for s in registry.in_book_order() for f in registry.manifest(s).PUBLISHED_FILES}
    return [measurements.load_source(f"published/{name}") for name in sorted(names)]


def printed_figures() -> dict:
    """{figure id: (seed key, line)} of everything the seeds print that the ledger must cover: every
    published entry (each has its seed line; a stated average is a figure of its own), and each
    scheme's claims that are not prices (``claims()`` in its ledger module)."""
    out = {}
    for mset in _published_files():
        for b in mset.backends:
            for k in mset.keys(b):
                e = mset.entry(b, k)
                out[entry_figure(mset, b, k)] = (seed_key(mset.provenance["seed"]), e["line"])
                if "stated_line" in e:
                    out[entry_figure(mset, b, k) + ":stated"] = (seed_key(mset.provenance["seed"]), e["stated_line"])
    for scheme in registry.in_book_order():
        out.update(_module(scheme).ledger_claims())
    return out


def _module(scheme: str):
    return registry.model(scheme)        # its code runs here: its rows


#: the rows that predict a figure from prices not fitted to it, and so carry a prediction interval
OUT_OF_SAMPLE = ("predicted", "leave-one-out")


def _scored(r: Row) -> bool:
    return (r.status in OUT_OF_SAMPLE and r.book_value is not None and r.book_value > 0
            and parse_printed(r.printed)[0] > 0)


def out_of_sample_scores(rows: list) -> list:
    """(scheme, score) of every out-of-sample row: the log error of its value against the printed figure,
    the evidence of ``uncertainty.cross_machine_margin``."""
    return [(r.scheme, uncertainty.score(parse_printed(r.printed)[0], r.book_value)) for r in rows if _scored(r)]


def seed_machine(scheme: str) -> str:
    """What a ledger row's figure was measured on, as ``uncertainty.prediction_interval`` names a machine:
    the seed's, never the machine of the validation evidence."""
    return f"the seed machine of {scheme}"


def with_intervals(rows: list) -> list:
    """`rows` with every out-of-sample row's prediction interval (``uncertainty.prediction_interval``, the
    one every estimate takes): its value widened by the margin of the *other* schemes' out-of-sample rows
    (``uncertainty.cross_machine_margin``: their log errors against their printed figures), never by its
    own scheme's; a row carries no price spread."""
    scored = out_of_sample_scores(rows)
    margins = {s: uncertainty.cross_machine_margin(s, scored) for s in {r.scheme for r in rows}}
    out = []
    for r in rows:
        if _scored(r) and math.isfinite(margins[r.scheme].value):
            p = uncertainty.prediction_interval(r.scheme, seed_machine(r.scheme), r.book_value,
                                                margin=margins[r.scheme])
            r = replace(r, book_low=p.low, book_high=p.high, printed_value=parse_printed(r.printed)[0],
                        margin=p.margin.value)
        out.append(r)
    return out


def cross_machine_data(scheme: str, rows: list | None = None) -> dict:
    """The committed form of `scheme`'s cross-machine scores (its ``uncertainty.CROSS_MACHINE_FILE``)."""
    rows = ledger() if rows is None else rows
    return {"format": uncertainty.CROSS_MACHINE_FORMAT,
            "about": f"each out-of-sample ledger row of {scheme}: |ln(printed / book)|, written by python -m "
                     f"costbook.views.ledger --write-scores; every estimate on a machine other than the validation "
                     f"evidence's takes its model-error margin from the other schemes' scores",
            "scores": [{"scheme": r.scheme, "lines": r.lines, "quantity": r.quantity, "score": s}
                       for r, (_, s) in zip([r for r in rows if _scored(r)], out_of_sample_scores(rows))
                       if r.scheme == scheme]}


def write_cross_machine_scores(schemes=None) -> list:
    """Write each scheme's scores (every scheme of the book's, or `schemes`') into its evidence folder; the
    paths written.  A scheme's file changes only when its own rows do."""
    from ..system import atomic
    rows = ledger()
    written = []
    for scheme in (schemes or registry.in_book_order()):
        path = uncertainty.cross_machine_path(scheme)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps(cross_machine_data(scheme, rows), indent=1, ensure_ascii=False) + "\n")
        written.append(str(path))
    return written


def coverage(rows: list) -> dict:
    """How many out-of-sample rows' intervals hold their printed figure, and their median half-width
    (``uncertainty.coverage``)."""
    judged = [{"step": f"{r.scheme} line {r.lines}", **uncertainty.assess(r.book_value, r.book_low, r.book_high,
                                                                             r.printed_value)}
              for r in rows if r.book_low is not None]
    return uncertainty.coverage(judged)


def coverage_by_scheme(rows: list) -> dict:
    """{scheme: ``coverage`` of its out-of-sample rows, with its "margin"}, for the schemes that have any,
    in the order of `rows`."""
    out = {}
    for scheme in dict.fromkeys(r.scheme for r in rows if r.book_low is not None):
        mine = [r for r in rows if r.scheme == scheme]
        out[scheme] = {**coverage(mine), "margin": next(r.margin for r in mine if r.margin is not None)}
    return out


def ledger(scheme: str | None = None, status: str | None = None) -> list:
    """All rows, scheme by scheme (each from its model's ``ledger_rows()``), optionally filtered."""
    order_ = registry.in_book_order()
    if scheme is not None and scheme not in order_:
        problem = registry.problems().get(scheme)
        raise ValueError(problem or f"unknown scheme {scheme!r} for the ledger: choose one of {', '.join(order_)}")
    if status is not None and status not in STATUSES:
        raise ValueError(f"unknown ledger status {status!r}: choose one of {', '.join(STATUSES)}")
    # by source document, then line; the sort is stable, so a figure's out-of-sample row stays first
    order = lambda r: (r.document, int(r.lines.split(",")[0]))
    rows = with_intervals([r for s in order_ for r in sorted(_module(s).ledger_rows(), key=order)])
    return [r for r in rows if scheme in (None, r.scheme) and status in (None, r.status)]


def summary(rows: list) -> dict:
    """{status: number of rows} in vocabulary order, plus the number of figures covered."""
    out = {s: sum(r.status == s for r in rows) for s in STATUSES}
    out["rows"] = len(rows)
    out["figures"] = len({r.figure for r in rows})
    return out


def missing(rows: list | None = None) -> list:
    """Printed figures with no ledger row: (figure id, seed key, line)."""
    have = {r.figure for r in (rows if rows is not None else ledger())}
    return [(f, *where) for f, where in printed_figures().items() if f not in have]


def mismatches(rows: list) -> list:
    """Computed rows whose book value differs from the printed figure at printed precision."""
    return [r for r in rows if r.status == "computed" and not agrees(r.printed, r.book_value)]


def to_json(rows: list) -> dict:
    return {"summary": summary(rows), "coverage": coverage(rows), "rows": [r.to_json() for r in rows]}


def to_text(rows: list) -> str:
    from ..writing.report import Table
    s = summary(rows)
    head = "  ".join(f"{k}: {v}" for k, v in s.items())
    cov = coverage(rows)
    if cov["checked"]:
        head += "\nout-of-sample rows: " + uncertainty.coverage_words(cov).replace("intervals", "intervals hold the printed figure", 1)
    t = Table(["scheme", "seed", "line", "quantity", "printed", "book", "interval", "difference", "status", "note"])
    for r in rows:
        t.add(r.scheme, r.seed, r.lines, r.quantity, r.printed, r.book, interval_text(r), r.difference, r.status, r.note)
    return head + "\n\n" + t.to_text()


def interval_text(r: Row, unit: bool = True) -> str:
    """An out-of-sample row's prediction interval at the printed unit ("[25.1–28.4 µs]"; without
    `unit`, "[25.1–28.4]", beside a value that names it), else a dash."""
    if r.book_low is None:
        return "–"
    high = format_like(r.printed, r.book_high, 3)
    return f"[{format_like(r.printed, r.book_low, 3).split(' ')[0]}–{high if unit else high.split(' ')[0]}]"


def dumps(rows: list) -> str:
    return json.dumps(to_json(rows), indent=1, ensure_ascii=False)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m costbook.views.ledger", description="the reproduction ledger")
    ap.add_argument("--write-scores", action="store_true",
                    help=f"write each scheme's <its folder>/{uncertainty.EVIDENCE_FOLDER}/{uncertainty.CROSS_MACHINE_FILE} "
                         f"from the ledger")
    args = ap.parse_args(argv)
    if args.write_scores:
        print("\n".join(write_cross_machine_scores()))
    else:
        print(to_text(ledger()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
