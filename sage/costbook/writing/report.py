"""Tables and small statistics the chapters print.

Tables render as HTML in the book and as aligned text elsewhere; both forms are
deterministic for a given measurement file, so nbval can compare them.
"""
from __future__ import annotations

import functools
import html
import math
import re
from dataclasses import dataclass, field
from typing import Sequence

from .. import registry
from .bibliography import Bibliography
from ..system.escape import html_attribute, html_text, markdown_text


def fmt_time(seconds: float | None, digits: int = 3) -> str:
    """Seconds in the unit that keeps 1-3 digits before the point: 6.51 ms, 48.2 us."""
    if seconds is None:
        return "—"
    # the unit is chosen after rounding: 999.6 µs is "1 ms", not "1e+03 µs"
    rounded = float(f"{seconds:.{digits}g}")
    if abs(rounded) >= 1000:                                  # 43,400 s, not 4.34e+04 s
        return f"{seconds:,.0f}\u00a0s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(rounded) >= scale or unit == "ns":
            return f"{seconds / scale:.{digits}g}\u00a0{unit}"   # non-breaking: "493 µs" stays whole
    return f"{seconds:g} s"


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:,.0f}×"
    return f"{x:.3g}×"


def fmt_number(x: float, digits: int = 3) -> str:
    """A number for a reader: 3 significant digits, powers of ten written out (2.0 × 10⁸, not 2.00e+08),
    and values that are zero up to rounding noise (|x| < 1e-9 of nothing) shown as 0."""
    if x is None:
        return "—"
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    if x == 0 or abs(x) < 1e-12:
        return "0"
    exponent = math.floor(math.log10(abs(x)))
    if -3 <= exponent < 6:
        return f"{x:,.{max(digits - 1 - exponent, 0)}f}" if exponent >= digits - 1 else f"{x:.{digits}g}"
    mantissa = x / 10 ** exponent
    sup = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{mantissa:.{digits - 1}f} × 10{sup}"


def cell_text(value) -> str:
    """What a table cell shows: words for booleans and missing values, lists joined, numbers formatted,
    never a Python repr (True, None, ['a', 'b'], 2.00e+08)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return ", ".join(cell_text(v) for v in items)
    if isinstance(value, float):
        return fmt_number(value)
    return str(value)


def cite(key: str, locator: str = "") -> str:
    """A citation marker for a table cell: cite("seed-cs03", "line 12") -> "[@seed-cs03, line 12]".
    A Table's HTML wraps it in a `<span data-qmd="[@seed-cs03, line 12]">` (Quarto formats the
    attribute's Markdown as a linked citation; the offline renderer reads the same span) around the
    readable label "(Takahashi and Zaverucha 2023a, line 12)"; its text form shows the label alone."""
    return f"[@{key}, {locator}]" if locator else f"[@{key}]"


CITATION_MARKER = re.compile(r"\[@([A-Za-z0-9_][\w:.-]*)(?:,\s*([^\]]*))?\]")
_BIB_ENTRY = re.compile(r"@\w+\s*\{\s*([^,\s]+)\s*,(.*?)\n\}", re.S)
_TEX_ACCENTS = {'\\"o': "ö", '\\"u': "ü", '\\"a': "ä", "\\'e": "é", "\\`e": "è"}


def _bibliography_path():
    from ..prices.measurements import project_root
    return project_root() / "references.bib"


@functools.lru_cache(maxsize=None)
def _short_citations() -> dict:
    """key -> the label every page of the book gives it ("Eskandarian 2021a", "Agrawal et al. 2023b"):
    pandoc's citeproc over the whole of references.bib (costbook.writing.bibliography.Bibliography.labels),
    so a year suffix is the one the rendered book shows.  Without pandoc: "Author Year" read from the
    .bib file, with no suffix."""
    path = _bibliography_path()
    try:
        return Bibliography(path).labels()
    except Exception:         # no pandoc in this environment: the readable fallback below
        pass
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    out = {}
    for key, body in _BIB_ENTRY.findall(text):
        field = lambda name: (re.search(rf"\b{name}\s*=\s*\{{(.*)\}}\s*,?\s*$", body, re.M) or [None, ""])[1]
        names = []
        for person in filter(None, (p.strip() for p in field("author").split(" and "))):
            for tex, char in _TEX_ACCENTS.items():
                person = person.replace("{" + tex + "}", char).replace(tex, char)
            last = person.split(",")[0] if "," in person else person
            names.append(last.replace("{", "").replace("}", "").strip())
        who = (names[0] if len(names) == 1 else f"{names[0]} and {names[1]}" if len(names) == 2
               else f"{names[0]} et al." if names else field("title").replace("{", "").replace("}", ""))
        out[key] = f"{who} {field('year') or 'n.d.'}".strip()
    return out


def citation_text(key: str, locator: str | None = None) -> str:
    """A citation as a reader sees it without the renderer: "Takahashi and Zaverucha 2023a, line 12"."""
    who = _short_citations().get(key, key)
    return f"{who}, {locator}" if locator else who


def _citations_as_html(escaped: str) -> str:
    """Each marker in an escaped cell as `<span data-qmd="[@key, locator]">(label, locator)</span>`."""
    def span(m):
        marker = html.unescape(m[0])
        label = html.escape(citation_text(m[1], html.unescape(m[2]) if m[2] else None), quote=False)
        return f'<span data-qmd="{html_attribute(marker)}">({label})</span>'
    return CITATION_MARKER.sub(span, escaped)


def _citations_as_text(text: str) -> str:
    return CITATION_MARKER.sub(lambda m: f"({citation_text(m[1], m[2])})", text)


# A column of numbers is right-aligned, any other column left-aligned (explicitly: Quarto's table
# processing reads `text-align` of the cells as the column's alignment, and the offline book shows
# the style as it is).  A cell is a number when it starts with one ("6.51 ms", "+4.2%", "1.24×",
# "2.0 × 10⁸", "3 / 1 / 0 / 2"); empty cells and dashes count for either kind.
_NUMERIC_CELL = re.compile(r"^[+\-−±≈~]?\s?\d")
_NEUTRAL_CELLS = {"", "—", "–", "-", "n/a"}


def column_alignments(rows: Sequence[Sequence[str]], ncols: int) -> list[str]:
    """"right" for a column whose cells are all numbers (at least one), else "left"."""
    out = []
    for j in range(ncols):
        cells = [str(r[j]).strip() for r in rows if j < len(r)]
        kinds = {bool(_NUMERIC_CELL.match(c)) and CITATION_MARKER.search(c) is None
                 for c in cells if c not in _NEUTRAL_CELLS}
        out.append("right" if kinds == {True} else "left")
    return out


class FileWords(str):
    """A table cell of a file's words (a machine's name, what a measurement file says of it): shown as
    its characters, never read as a citation, in a table whose own cells may cite (``Table.citations``)."""


class Phrase(str):
    """A table cell of the book's words with a file's words inside ("zkalc [@zkalc], arkworks on ...
    (x.json)"): each ``FileWords`` part shown as its characters, the book's parts citing as usual.
    Its value as a string is the parts joined."""

    def __new__(cls, *parts):
        self = super().__new__(cls, "".join(str(p) for p in parts))
        self.parts = tuple(p if isinstance(p, FileWords) else str(p) for p in parts)
        return self


def bibliography_keys() -> set:
    """The keys of the book's references.bib (a file may name a source that is not one of them)."""
    from .bibliography import Bibliography
    try:
        return set(Bibliography(_bibliography_path()).keys)
    except Exception:       # no bibliography here: nothing a file names is a known key
        return set()


def _no_citation(escaped: str) -> str:
    """Escaped HTML text with "@" as a character reference, so that no renderer reads "[@key]" or
    "@key" in it as a citation or a cross-reference (Quarto reads raw HTML text as text: the same)."""
    return escaped.replace("@", "&#64;")


@dataclass
class Table:
    headers: Sequence[str]
    rows: list = field(default_factory=list)
    caption: str = ""
    #: whether a `[@key]` in a cell is a citation (the book's own words); False for a table of what a
    #: file says, whose words are shown as they are, never as a citation (an unknown key stops a render);
    #: in a table that cites, a cell of a file's words is a ``FileWords``
    citations: bool = True
    #: group headings, each before the row of its index: one line across the table (a long table read
    #: in groups says the group once, not in every row)
    sections: dict = field(default_factory=dict)

    def add(self, *cells):
        if len(cells) != len(self.headers):
            raise ValueError(f"row has {len(cells)} cells, table has {len(self.headers)} columns")
        self.rows.append([c if isinstance(c, (FileWords, Phrase)) else cell_text(c) for c in cells])
        return self

    def section(self, heading: str):
        """A heading for the rows added after it, until the next."""
        self.sections[len(self.rows)] = heading
        return self

    def to_text(self) -> str:
        text = lambda c: _citations_as_text(c) if self._cites(c) else c
        rows = [["".join(map(text, c.parts)) if isinstance(c, Phrase) else text(c) for c in r] for r in self.rows]
        cols = list(zip(self.headers, *rows)) if rows else [(h,) for h in self.headers]
        widths = [max(len(str(c)) for c in col) for col in cols]
        line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
        out = [self.caption] if self.caption else []
        out += [line(self.headers), line("-" * w for w in widths)]
        for i, r in enumerate(rows):
            if i in self.sections:
                out.append(text(self.sections[i]))
            out.append(line(r))
        return "\n".join(out)

    def to_html(self) -> str:
        align = [f' style="text-align: {a}"' for a in column_alignments(self.rows, len(self.headers))]
        # heads and the caption never cite (a machine's name or a file's name may stand there)
        head = "".join(f"<th{a}>{_no_citation(html_text(h))}</th>" for h, a in zip(self.headers, align))
        part = lambda c: (_citations_as_html if self._cites(c) else _no_citation)(html_text(c))
        cell = lambda c: "".join(map(part, c.parts)) if isinstance(c, Phrase) else part(c)
        heading = lambda i: (f'<tr class="costbook-section"><td colspan="{len(self.headers)}"><strong>'
                             f"{cell(self.sections[i])}</strong></td></tr>" if i in self.sections else "")
        body = "".join(heading(i) + "<tr>" + "".join(f"<td{a}>{cell(c)}</td>" for c, a in zip(r, align))
                       + "</tr>" for i, r in enumerate(self.rows))
        cap = f"<caption>{_no_citation(html_text(self.caption))}</caption>" if self.caption else ""
        return f'<table class="costbook-table">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'

    def _cites(self, cell: str) -> bool:
        """Whether a "[@key]" in `cell` is a citation: in a table of the book's words, and not a file's."""
        return self.citations and not isinstance(cell, FileWords)

    def _repr_html_(self):
        return self.to_html()

    def __repr__(self):
        return self.to_text()


def fit_power_law(xs: Sequence[float], ys: Sequence[float]) -> tuple:
    """Least squares fit of log y = a log x + log c; returns (a, c) with y ≈ c·x^a."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("need at least two (x, y) points of equal count")
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    if sxx == 0:
        raise ValueError("all x values are equal; no exponent to fit")
    a = sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx
    return a, math.exp(my - a * mx)


def fit_linear(xs: Sequence[float], ys: Sequence[float]) -> tuple:
    """Least squares y ≈ slope·x + intercept; returns (slope, intercept)."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("need at least two (x, y) points of equal count")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("all x values are equal; no slope to fit")
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


def _libraries(libs: dict) -> str:
    """name version, ...; a version that already starts with its name ("GMP 6.3.0") is not named twice."""
    return ", ".join(str(v) if str(v).startswith(k) else f"{k} {v}" for k, v in libs.items())


def provenance_table(mset) -> Table:
    """Who measured a file, on what, with which libraries."""
    p = mset.provenance
    t = Table(["field", "value"], caption=f"{mset.name} ({mset.kind})", citations=False)
    if mset.kind == "measured":
        m = p["machine"]
        t.add("machine", f"{m.get('cpu')}, {m.get('cores')} cores, {m.get('memory')}")
        t.add("system", f"{m.get('os')}, Linux {m.get('kernel')}, Python {m.get('python')}")
        t.add("libraries", _libraries(p["libraries"]))
        prof = p["profile"]
        t.add("profile", f"{prof['name']}: {prof['samples']} samples, batches >= "
                         f"{prof['min_batch_seconds'] * 1e3:g} ms, single-threaded")
        t.add("date", p["date"])
        t.add("command", p["command"])
        for h in p.get("history", []):       # earlier runs that a filtered run refined
            t.add("refines an earlier run", f"{h.get('date')}: {h.get('command')} ({h.get('profile')} profile)")
    elif mset.kind == "public":             # a public benchmark set (costbook.views.zkalc), transcribed
        src = p["source"]
        t.add("machine", p["machine"])
        t.add("source", ", ".join(f"{k} {v}" for k, v in src.items()) if isinstance(src, dict) else src)
        t.add("spread", p["spread"])
    else:
        t.add("seed", p["seed"])
        t.add("title", p["title"])
        t.add("machine", p["machine"])
        if "libraries" in p:
            t.add("libraries", _libraries(p["libraries"]))
    return t


def measured_machine(mset) -> str:
    """Markdown naming a chapter's **measured machine**: the machine whose measurement file its tables
    and figures are priced with, which captions name by that term.  In the book as published it is
    the reference machine; a book built with `make book` prices with the machine it was built on.
    The file's words are Markdown text (``escape.markdown_text``), never markup."""
    from ..prices.measurements import is_reference, load_source, machine_words
    said = (f"**The measured machine** of this chapter, whose prices its tables and figures use, is "
            f"{markdown_text(machine_words(mset))} (measurement file {markdown_text(mset.name)})")
    if is_reference(mset):
        return f"{said}: the book's reference machine."
    return (f"{said}. The book as published uses its reference machine, "
            f"{markdown_text(machine_words(load_source('reference')))}.")


def backend_table(mset, keys: Sequence[str], backends: Sequence[str], baseline: str,
                  extra: Sequence[tuple] = (), caption: str = "") -> Table:
    """Seconds per operation of `keys` in each backend, and each backend's ratio to `baseline`.

    `extra` adds columns from other files: (label, MeasurementSet, backend).
    """
    cols = [(b, mset, b) for b in backends] + list(extra)
    headers = ["primitive"] + [label for label, _, _ in cols]
    headers += [f"{label} / {baseline}" for label, _, _ in cols if label != baseline]
    t = Table(headers, caption=caption)
    for key in keys:
        times = [m.seconds(b, key) if m.has(b, key) else None for _, m, b in cols]
        base = mset.seconds(baseline, key) if mset.has(baseline, key) else None
        ratios = [fmt_ratio(x / base) if (x is not None and base) else "—"
                  for (label, _, _), x in zip(cols, times) if label != baseline]
        # a published file's figure as its source prints it (353.44 ms, not 353 ms)
        shown = [fmt_printed(m.entry(b, key)) if (x is not None and m.kind == "published") else fmt_time(x)
                 for (_, m, b), x in zip(cols, times)]
        t.add(key, *shown, *ratios)
    return t


def geometric_mean(xs: Sequence[float]) -> float:
    xs = list(xs)
    if not xs:
        raise ValueError("geometric mean of nothing")
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def source(obj):
    """The source code of a function or class, as a Markdown code block (Quarto and the offline
    renderer both show it highlighted): the chapters put the code next to its math this way,
    so what the reader sees is what runs."""
    import inspect
    from IPython.display import Markdown
    return Markdown("```python\n" + inspect.getsource(obj).rstrip() + "\n```")


def seed_cite(seed_file: str, line) -> str:
    """The citation marker for a line of a seed note, from the note's file name ("002_....txt"); the
    notes' bib keys come from the schemes' manifests (``registry.seed_notes``)."""
    notes, number = registry.seed_notes(), str(seed_file)[:3]
    if number not in notes:
        raise ValueError(f"unknown seed note {seed_file!r} (known: {', '.join(sorted(notes))})")
    return cite(notes[number], f"line {line}")


def fmt_unit(unit: str) -> str:
    """A unit as the book spells it (µs, never us)."""
    return {"us": "µs", "u": "µs"}.get(unit, unit)


def printed_number(x) -> str:
    """A transcribed number as the seed writes it (the file keeps the digits the seed prints)."""
    return str(int(x)) if float(x).is_integer() and not isinstance(x, float) else repr(x)


def fmt_printed(entry: dict) -> str:
    """A published entry's figure at the precision its source prints, in its unit: "353.44\u00a0ms"; an
    entry whose median the source does not print (a midpoint of a printed range) carries "printed"."""
    if "printed" in entry:
        return entry["printed"]
    return f"{printed_number(entry['median'])}\u00a0{fmt_unit(entry['unit'])}"


def printed_decimals(value: float) -> int:
    """How many decimals a figure stored as printed carries (26.945 -> 3, 1171284 -> 0)."""
    text = repr(float(value))
    if "e" in text:
        raise ValueError(f"cannot read the printed precision of {value!r}")
    whole, _, frac = text.partition(".")
    return 0 if frac == "0" else len(frac)


def fmt_as_printed(value: float, unit: str) -> str:
    """A source's figure exactly as it prints it, in its own unit (26.945 ms, 1,171,284 ns)."""
    d = printed_decimals(value)
    return f"{value:,.{d}f}\u00a0{fmt_unit(unit)}"


def fmt_bounds_like(low: float, high: float, printed: float, unit: str, decimals: int | None = None) -> str:
    """An interval's bounds in a printed figure's unit (as ``fmt_like``), "[1.07–1.12]": three significant
    digits, more where two bounds that differ would print alike, never more decimals than the figure's."""
    from ..prices.measurements import UNITS
    decimals = printed_decimals(printed) if decimals is None else decimals
    lo, hi = low / UNITS[unit], high / UNITS[unit]
    d = min(decimals, max(0, 2 - math.floor(math.log10(max(abs(lo), abs(hi))))) if max(abs(lo), abs(hi)) > 0 else 0)
    while f"{lo:.{d}f}" == f"{hi:.{d}f}" and lo != hi and d < decimals:
        d += 1
    return f"[{lo:.{d}f}–{hi:.{d}f}]"


def fmt_like(seconds: float, printed: float, unit: str, decimals: int | None = None,
             grouping: bool = True) -> str:
    """The book's value in the unit and at the precision of a printed figure, so the two can be
    compared digit by digit (26.904 ms next to the seed's 26.945 ms).  `decimals` overrides the
    precision read off the stored number when trailing zeros were printed (4.00 stored as 4.0)."""
    from ..prices.measurements import UNITS
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r} (known: {', '.join(UNITS)})")
    d = printed_decimals(printed) if decimals is None else decimals
    number = f"{seconds / UNITS[unit]:,.{d}f}" if grouping else f"{seconds / UNITS[unit]:.{d}f}"
    return f"{number}\u00a0{fmt_unit(unit)}"
