"""Every machine the book knows, and each scheme's headline steps priced on each of them.

The machines: the reference machine (measured here), the public machines (zkalc's transcriptions, the
rest completed from the reference machine's ratios: ``costbook.views.public``), the contributed machines
(readers' ``costbook measure --profile full`` files in measurements/contributed/), and each scheme's
seed machine (its published prices, completed as the scheme's model completes them).

``side_by_side`` prices every scheme's headline steps (the rows of its ``comparison.py``, what the
closing chapter compares) on each machine, through the scheme registry, never by a scheme's name.
Each ``Cell`` has the price, its price interval (every price at its low, then its high bound), its
prediction interval on that machine (``compare.predict``: the one every estimate takes) and its
*measured share*: the part of the price that comes from prices measured or stated on that machine,
the rest completed from another machine's ratios or derived by a stated rule (an unmeasured size, a
fit) from prices completed there.  On the seed's machine a price counts as stated where the seed's
published file has its key (the rest the scheme's model completed, solved or fitted).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import compare, public, zkalc
from ..prices import measurements
from .. import registry
from ..calibration.intervals import fmt_interval, unit_of
from ..prices.keys import family_of, sizes as key_sizes
from ..writing.report import FileWords, Phrase, Table, bibliography_keys, cite, fmt_time, geometric_mean

#: the kinds of machine, in the order a table shows them ("this": the machine the book was executed on,
#: where it is not the reference machine: the file ``make book`` measured, $COSTBOOK_MEASUREMENTS)
KINDS = ("reference", "this", "public", "contributed", "seed")
#: the id of this machine, as ``--source`` takes it
THIS = "book"


@dataclass(frozen=True)
class Machine:
    id: str                     # reference, public/<stem>, contributed/<stem>
    kind: str                   # one of KINDS
    words: str                  # the machine for a reader
    mset: measurements.MeasurementSet


@dataclass(frozen=True)
class Cell:
    scheme: str
    operation: str
    size: str
    machine: str                # Machine.id, or "seed" (the scheme's own seed machine)
    seconds: float | None       # None where the machine cannot price it (see missing)
    low: float | None = None
    high: float | None = None
    measured_share: float | None = None     # 0..1
    missing: str | None = None              # why there is no price
    # its prediction interval (``compare.predict``: ``uncertainty.prediction_interval`` of [low, high] on this
    # machine); None on a seed's machine where the figure is fitted in-sample
    predicted_low: float | None = None
    predicted_high: float | None = None


def folder(name: str) -> Path:
    return measurements.project_root() / "measurements" / name


#: the kind of measurement file each machines folder holds
FOLDER_KINDS = {"public": "public", "contributed": "measured"}


def misplaced(folder_name: str, mset: measurements.MeasurementSet) -> str | None:
    """Why a file in measurements/<folder_name>/ is not a machine of that folder (None: it is).
    `costbook check` refuses such a file with these words, and the book leaves it out."""
    wanted = FOLDER_KINDS.get(folder_name)
    if wanted is None or mset.kind == wanted:
        return None
    what = {"public": "a public benchmark's transcription (costbook import zkalc)",
            "measured": "a measurement of a machine (costbook measure)"}[wanted]
    return (f"kind is {mset.kind!r}, but measurements/{folder_name}/ holds {what}, kind {wanted!r}"
            + ("; a seed's published figures belong in its scheme's folder (published/)" if mset.kind == "published" else ""))


def check_in_folder(path, mset: measurements.MeasurementSet) -> None:
    """`costbook check`'s rule for a file in measurements/public/ or measurements/contributed/: the
    book lists it as a machine only if it is of that folder's kind (MeasurementFileError otherwise)."""
    here = Path(path).resolve().parent
    if here.parent == (measurements.project_root() / "measurements").resolve():
        problem = misplaced(here.name, mset)
        if problem:
            raise measurements.MeasurementFileError(f"{path}: {problem}")


def known_machines(this_machine: bool = True) -> list:
    """The reference machine, this machine (``this_machine``, and only where the book is executed on a
    file other than the reference: ``make book``'s measurement of the machine it runs on), then the public
    and contributed machines (their files, sorted by name); a file of the wrong kind for its folder
    (``misplaced``) is left out."""
    ref = measurements.load_source("reference")
    out = [Machine("reference", "reference", measurements.machine_words(ref), ref)]
    book = measurements.resolve(THIS)
    if this_machine and book.resolve() != measurements.reference_path().resolve():
        mine = measurements.load(book)
        out.append(Machine(THIS, "this", measurements.machine_words(mine), mine))
    for kind in ("public", "contributed"):
        for path in sorted(folder(kind).glob("*.json")):
            m = measurements.load(path)
            if misplaced(kind, m) is None:
                out.append(Machine(f"{kind}/{path.stem}", kind, measurements.machine_words(m), m))
    return out


def completion_margin(machine: Machine) -> float | None:
    """A public machine's cross-machine margin (log ratio) from its completion; None where its file was
    not completed (it prices only what zkalc states)."""
    completion = machine.mset.provenance.get("completion")
    margin = completion.get("margin") if isinstance(completion, dict) else None
    return float(margin) if isinstance(margin, (int, float)) and not isinstance(margin, bool) else None


def measured_share(mset: measurements.MeasurementSet, shares, backends, stated=None) -> float:
    """The part of a priced total (``compare.Share`` lines) whose prices `mset` states as measured: the
    first of `backends` that prices a key decides (as the pricing does).  A key no backend has was
    derived from the same family's prices (an unmeasured size): it counts as measured where every price
    of its family in the first backend that has the family is (where none has, as the rule that priced
    it from another family: measured where every price of `backends` is).  `stated(backend, key)` overrides what
    counts as stated (default: not marked ``completed``)."""
    stated = stated or (lambda b, k: public.is_stated(mset, b, k))
    total = sum(s.seconds for s in shares)
    if total <= 0:
        return 1.0
    part = 0.0
    every_stated = all(stated(b, k) for b in backends for k in mset.keys(b))
    for s in shares:
        b = next((b for b in backends if mset.has(b, s.key)), None)
        if b is not None:
            part += s.seconds if stated(b, s.key) else 0.0
            continue
        fam, which = family_of(s.key), _named_sizes(s.key)
        for b in backends:
            kin = [k for k in mset.keys(b) if family_of(k) is fam and _named_sizes(k) == which]
            if kin:
                part += s.seconds if all(stated(b, k) for k in kin) else 0.0
                break
        else:       # priced by a stated rule from another family (an encoding as its decoding): as the file
            part += s.seconds if every_stated else 0.0
    return part / total


def _named_sizes(key: str) -> dict:
    """A key's size fields that are names, not numbers (its curve and group): the same operation."""
    return {k: v for k, v in key_sizes(key).items() if not isinstance(v, int)}


def _seed_stated(scheme: str):
    """stated(backend, key) on a scheme's seed machine: the key is in its published file."""
    pub = compare.published_source(scheme)
    return lambda b, k: any(pub.has(x, k) for x in pub.backends)


def interval(row: compare.OperationCost, side: str) -> tuple:
    """(low, high) of a cell: the interval of the row's price on `side` ("reference": the machine the
    row was priced with; "seed": the seed's machine), every price at its low, then its high bound.
    Every cell's interval comes from here."""
    return getattr(row, f"{side}_low_s"), getattr(row, f"{side}_high_s")


def side_by_side(machines=None) -> list:
    """A Cell for every (scheme, headline step) on every machine of `machines` (default
    ``known_machines()``), then on each scheme's seed machine ("seed")."""
    machines = known_machines() if machines is None else machines
    cells = []
    seed_rows = None
    for m in machines:
        try:
            rows = compare.operation_costs(m.mset)
        except (LookupError, ValueError) as e:    # a file lacking a primitive (MissingPrice): say which
            cells.append(Cell("*", "*", "", m.id, None, missing=str(e.args[0] if e.args else e)))
            continue
        seed_rows = seed_rows or rows
        for r in rows:
            cells.append(Cell(r.scheme, r.operation, r.size, m.id, r.reference_s, *interval(r, "reference"),
                              measured_share(m.mset, r.reference_shares, r.reference_backends),
                              predicted_low=r.reference_predicted_low_s, predicted_high=r.reference_predicted_high_s))
    for r in seed_rows or ():
        stated = _seed_stated(r.scheme)
        share = sum(s.seconds for s in r.seed_shares if stated(None, s.key)) / sum(s.seconds for s in r.seed_shares)
        cells.append(Cell(r.scheme, r.operation, r.size, "seed", r.seed_s, *interval(r, "seed"), share,
                          predicted_low=r.seed_predicted_low_s, predicted_high=r.seed_predicted_high_s))
    return cells


def table(cells) -> dict:
    """{(scheme, operation, size): {machine: Cell}} in the order of the cells; a machine that prices
    nothing (``unpriced``) has no cell in it."""
    out: dict = {}
    for c in cells:
        if c.scheme != "*":
            out.setdefault((c.scheme, c.operation, c.size), {})[c.machine] = c
    return out


def unpriced(cells) -> dict:
    """{machine id: why} of the machines whose file prices no headline step (a primitive it lacks)."""
    return {c.machine: c.missing for c in cells if c.scheme == "*"}


def priced(row: dict, ident: str) -> bool:
    """Whether a row of ``table`` has a price on machine `ident` and on the reference machine."""
    return all(row.get(i) is not None and row[i].seconds for i in (ident, "reference"))


# ---------------------------------------------------------------------------
# For a reader: the machines' names, one unit per row, a cell as text, the two tables

SEED = "seed"
SEED_WORDS = "seed's machine"


def short_name(machine: Machine) -> str:
    """A machine in a column head: "reference machine", "AWS m6g.8xlarge" (its words up to the
    first parenthesis), a contributed file's name."""
    if machine.kind == "reference":
        return "reference machine"
    if machine.kind == "this":
        return "this machine"
    if machine.kind == "contributed":
        return machine.id.split("/", 1)[1]
    return machine.words.split(" (", 1)[0]


def row_unit(cells) -> str:
    """The unit a row of cells is shown in: the unit of the geometric mean of its prices, so that
    every machine's price of one step reads in one unit."""
    priced = [c.seconds for c in cells if c.seconds]
    return unit_of(geometric_mean(priced)) if priced else "s"


def cell_text(cell: Cell, unit: str) -> str:
    """'1.23 ms [1.10–1.38] · 34%': the price and its interval in `unit`, then the share of the price
    measured (or stated) on that machine; a dash where the machine cannot price the step."""
    if cell is None or cell.seconds is None:
        return "—"
    return f"{fmt_interval(cell.seconds, *shown_interval(cell), unit)} · {cell.measured_share:.0%}"


def shown_interval(cell: Cell) -> tuple:
    """The interval a reader is shown: the 90% prediction interval, or, on a seed's machine whose prices
    were fitted to the seed's own figures (no prediction there), the fit's price interval."""
    if cell.predicted_low is not None:
        return cell.predicted_low, cell.predicted_high
    return cell.low, cell.high


def columns(machines, seed: bool = True) -> list:
    """(column id, head) of the price table: every machine, then, with `seed`, the seeds' machines."""
    return [(m.id, short_name(m)) for m in machines] + ([(SEED, SEED_WORDS)] if seed else [])


def price_table(cells, machines, seed: bool = True) -> Table:
    """Each scheme's headline steps (rows, in the book's order) on each of `machines` (columns), then,
    with `seed`, on the seeds' machines; each cell with its interval and measured share.  A row's unit
    is that of the step on every machine the book knows, so that the step reads in one unit in every
    table that shows it (appendix B splits its machines over two, each fitting a page's column)."""
    cols = columns(machines, seed)
    t = Table(["step (size)"] + [head for _, head in cols])
    for (scheme, operation, size), row in table(cells).items():
        if scheme == "*":
            continue
        unit = row_unit(row.values())
        t.add(f"{registry.manifest(scheme).TITLE}: {operation} ({size})",
              *(cell_text(row.get(ident), unit) for ident, _ in cols))
    return t


def stated_count(machine: Machine) -> tuple:
    """(prices stated on the machine, prices completed there) over its whole file."""
    entries = [e for es in machine.mset.results.values() for e in es.values()]
    done = sum(1 for e in entries if e.get("completed"))
    return len(entries) - done, done


def machine_table(machines) -> Table:
    """Every machine of the price table: its name, what it is, where its prices come from, and how
    many of its prices are stated there and how many are completed."""
    kinds = {f"public/{s['id']}": s["kind"] for s in public.sources()}
    t = Table(["machine", "in full", "kind", "prices from", "stated", "completed"])
    bib_keys = bibliography_keys()
    for m in machines:
        stated, done = stated_count(m)
        src = m.mset.provenance.get("source")
        if m.kind == "public" and isinstance(src, dict):
            # every word of `src` is the file's: shown as its characters; a citation only of a key the
            # book's bibliography holds (any other would stop the render, or cite what the file chose)
            key = str(src.get("citation") or "zkalc")
            rest = ("the rest completed from the reference machine" if completion_margin(m) is not None
                    else "not completed: only the prices it states")
            where = Phrase(FileWords(src.get("benchmark", "zkalc")), " ",
                           cite(key) if key in bib_keys else FileWords(f"({key})"), ", ",
                           FileWords(f"{src.get('library')} on {src.get('curve')} (commit {str(src.get('commit'))[:7]}, "
                                     f"{Path(str(src.get('path'))).name})"),
                           "; " + rest)
        elif m.kind == "reference":
            where = "measured with the book's harness"
        else:                                 # as its file says (a quick profile is no full one)
            profile = m.mset.provenance.get("profile")
            name = profile.get("name") if isinstance(profile, dict) else None
            where = ("measured with the book's harness"
                     + (f" ({name} profile)" if name in ("quick", "full") else " (its profile not stated)"))
        kind = kinds.get(m.id) or {"reference": "the book's reference machine",
                                   "this": "the machine this book was executed on"}.get(m.kind, "a reader's machine")
        # a machine's name and words come from its file (a reader's, for a contributed one): never a citation
        t.add(FileWords(short_name(m)), FileWords(m.words), kind, where, str(stated), str(done))
    return t


def zkalc_figures(machines) -> list:
    """For every public machine transcribed from a zkalc file the book holds, each operation zkalc timed
    that the book prices as the same operation: {machine, op, key, figure, sd, price} (seconds), zkalc's
    figure the first timing at that size, as its estimates read it, and the book's price of it on that
    machine.  Operations zkalc times on all cores, or at sizes whose price falls, are aside."""
    held = {s["id"]: s for s in public.sources()}
    folder = public.sources_path().parent
    out = []
    for m in machines:
        source = held.get(m.id.split("/", 1)[1]) if m.kind == "public" else None
        if source is None:
            continue
        ops, _ = zkalc.read(folder / source["file"])
        aside = {(a["op"], a["size"]) for a in m.mset.provenance.get("aside", [])}
        for op, body in ops.items():
            sds = body["stddev"] or [None] * len(body["range"])
            for n in dict.fromkeys(body["range"]):
                key = zkalc.book_key(op, n, source["curve"])
                if key is None or (op, n) in aside or not m.mset.has(source["library"], key):
                    continue
                i = body["range"].index(n)
                out.append({"machine": m, "op": op, "key": key, "figure": body["results"][i] * 1e-9,
                            "sd": None if sds[i] is None else sds[i] * 1e-9,
                            "price": m.mset.seconds(source["library"], key)})
    return out


def zkalc_agreement(figures) -> Table:
    """``zkalc_figures`` as a table: zkalc's figure (with its deviation), the book's price, the difference."""
    t = Table(["machine", "operation", "zkalc's figure", "the book's price", "difference"])
    for f in figures:
        t.add(FileWords(short_name(f["machine"])), f"{f['op']} ({f['key']})",
              fmt_time(f["figure"], 4) + (f" ± {fmt_time(f['sd'], 2)}" if f["sd"] is not None else ""),
              fmt_time(f["price"], 4), f"{f['price'] / f['figure'] - 1:+.1%}")
    return t
