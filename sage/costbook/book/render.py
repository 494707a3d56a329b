"""Render the book offline: _quarto.yml's chapters to a browsable HTML book.

    python -m costbook.book render [--project .] [--notebooks build/chapters] [--out build/book]

Quarto cannot be assumed on a reader's machine, so this module builds the same book from the
same table of contents with what the Python environment already has.  Nothing on a page loads
from the network: the CSS and a local copy of MathJax 3 (the PyPI package django-static-mathjax,
MathJax's own es5 distribution) are copied to <out>/_static/, images are data: URIs.

nbconvert renders a chapter's cells and outputs (cells.py); markdown.py adds the pandoc/Quarto
prose syntax, citations.py pandoc's citations.  This module follows Quarto for the rest: chapter
order, parts and appendices, titles and numbering (``load_book``), cross-references
(``resolve_xrefs``), the References sections (``_resolve_citations``), and the page template,
stylesheets, MathJax and PDF link (``render_book``).

Not followed: part files (`- part: intro.qmd`), Quarto shortcodes,
theme options (one stylesheet, costbook.css, stands in for `theme:`).
"""
from __future__ import annotations

import json
import os
import posixpath
import re
import sys
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path, PurePosixPath

import jinja2
import nbformat
import yaml
from markupsafe import Markup
from pygments.formatters import HtmlFormatter

from .. import registry
from ..system.escape import html_text
from ..prices.measurements import machine_text
from ..system import atomic
from . import interrupt, live_page
from .cells import render_cells
from .citations import TAGS_AND_CODE, Bibliography, CitationError, find_citations, table_citations_as_markers
from .markdown import ChapterMarkdown, Section, first_h1, inline_markdown, split_heading_attrs, strip_tags, unlink
from .project import BookConfigError, appendices, chapter_arguments, chapter_paths, load_config, toc, warn

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
ASSETS = HERE / "assets"
STATIC = "_static"
CSS_NAME = "costbook.css"
MATHJAX_FILE = "tex-svg-full.js"   # MathJax 3: TeX input (all packages) + SVG output, one file
MATHJAX_PACKAGE = "django-static-mathjax==3.2.2.1"
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)

__all__ = ["render_book", "RenderError", "BookConfigError", "main"]


class RenderError(ValueError):
    """A chapter cannot be read or rendered; the message names the file."""


# --------------------------------------------------------------------------------------
# Chapters
# --------------------------------------------------------------------------------------

@dataclass
class Chapter:
    rel: PurePosixPath           # as listed in _quarto.yml
    source: Path                 # the file actually read
    part: str | None
    root: Path                   # the project: local images are embedded from inside it only
    notebook: nbformat.NotebookNode = None   # a .qmd/.md chapter is one Markdown cell
    meta: dict = field(default_factory=dict)
    title_md: str = ""
    unnumbered: bool = False
    drop_first_h1: bool = False
    number: int | str | None = None   # appendices are lettered
    title_id: str | None = None  # `# Title {#sec-x}`
    labels: dict = field(default_factory=dict)   # cross-reference label -> (anchor, link text)
    counts: dict = field(default_factory=dict)   # "Figure"/"Table" -> how many so far (N.k numbering)
    title_html: str = ""
    title_text: str = ""

    @property
    def href(self) -> str:       # output page, relative to out_dir
        return str(self.rel.with_suffix(".html"))


def split_front_matter(text: str, path: Path) -> tuple[dict, str]:
    m = _FRONT_MATTER.match(text)
    if not m:
        return {}, text
    try:
        meta = yaml.safe_load(m.group(1) or "") or {}
    except yaml.YAMLError as e:
        raise RenderError(f"{path}: front matter is not valid YAML ({e})") from None
    if not isinstance(meta, dict):
        raise RenderError(f"{path}: front matter is not a YAML mapping")
    return meta, text[m.end():]


def _read_chapter(path: Path) -> tuple[nbformat.NotebookNode, dict]:
    """A chapter as a notebook and its front matter (a .qmd/.md file becomes one Markdown cell)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RenderError(f"{path}: cannot read chapter ({e})") from None
    if path.suffix != ".ipynb":
        meta, body = split_front_matter(text, path)
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(body)]), meta
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as e:   # NotJSONError, validation of the nbformat version, ...
        first = (str(e).splitlines() or [type(e).__name__])[0]
        first = first[:200] + "..." if len(first) > 200 else first
        raise RenderError(f"{path}: not a valid Jupyter notebook (not JSON or not nbformat 4: {first})") from None
    if not isinstance(nb.get("cells"), list):
        raise RenderError(f"{path}: not a valid Jupyter notebook (no cells list)")
    first = nb.cells[0] if nb.cells else None
    if first is not None and first.cell_type == "raw" and first.source.lstrip().startswith("---"):
        first.metadata["costbook_front_matter"] = True    # cells.py leaves it out of the page
        return nb, split_front_matter(first.source.lstrip(), path)[0]
    return nb, {}


def _load_chapter(root: Path, rel: PurePosixPath, part: str | None, notebook_dir: Path | None) -> Chapter:
    """One chapter, its title from front-matter `title:` or the first `# ` heading, and whether it is
    unnumbered as Quarto decides it: a front-matter `title:` wins over the heading, and then only
    `{.unnumbered}` in the title itself unnumbers the page; otherwise the heading's `{.unnumbered}` /
    `{-}` does."""
    if rel.suffix not in (".ipynb", ".qmd", ".md", ".markdown"):
        raise RenderError(f"{root / '_quarto.yml'}: chapter {rel}: cannot render {rel.suffix or 'extensionless'} files "
                          "(expected .ipynb, .qmd or .md)")
    candidates = [notebook_dir / rel] if rel.suffix == ".ipynb" and notebook_dir is not None else []
    candidates.append(root / rel)
    source = next((c for c in candidates if c.is_file()), None)
    if source is None:
        looked = " or ".join(str(c) for c in candidates)
        raise RenderError(f"{root / '_quarto.yml'}: chapter {rel} does not exist (looked for {looked})")
    ch = Chapter(rel, source, part, root)
    ch.notebook, ch.meta = _read_chapter(source)
    h1 = first_h1("\n\n".join(c.source for c in ch.notebook.cells if c.cell_type == "markdown"))
    h1_text, h1_id, h1_classes, _ = split_heading_attrs(h1) if h1 is not None else ("", None, [], {})
    title = ch.meta.get("title")
    if title is not None:
        # Quarto: a front-matter title is the chapter's title, numbered unless the title itself
        # says {.unnumbered}; the heading's own attributes no longer count.
        title_text, _, title_classes, _ = split_heading_attrs(str(title))
        ch.title_md = title_text.strip()
        ch.drop_first_h1 = h1 is not None and h1_text.strip() == ch.title_md
        ch.unnumbered = "unnumbered" in title_classes
    elif h1 is not None:
        ch.title_md, ch.drop_first_h1 = h1_text.strip(), True
        ch.unnumbered = "unnumbered" in h1_classes
    else:
        ch.title_md = rel.stem.replace("-", " ").replace("_", " ")
    if ch.meta.get("number-sections") is False or ch.meta.get("unnumbered") is True:
        ch.unnumbered = True
    if ch.drop_first_h1 and h1_id:
        ch.title_id = h1_id
    return ch


def load_book(project_root: Path, notebook_dir: Path | None = None) -> tuple[dict, list[Chapter]]:
    """(_quarto.yml, its chapters in order): parts (`- part: "..."` with nested `chapters:`),
    `book.appendices` (lettered A, B, ...), the rest numbered 1, 2, ... unless unnumbered
    (``_load_chapter``; the index page is numbered like any other; `format.html.number-sections:
    false` turns numbering off).  project.py reads the book's title, subtitle and author."""
    root = Path(project_root).resolve()
    config = load_config(root)                    # BookConfigError names _quarto.yml
    lettered = {PurePosixPath(str(f)) for f in appendices(root)}
    chapters = [_load_chapter(root, PurePosixPath(str(f)), part, notebook_dir)
                for part, files in toc(root) for f in files]
    if not chapters:
        raise BookConfigError(f"{root / '_quarto.yml'}: book.chapters lists no chapter files")
    # a scheme's chapter written into this book but left out of its chapter list would be missing
    # from the book without a word (the registry's check; a book without the chapter is another book)
    unlisted = [problem for name, problem in registry.book_problems(root).items()
                if (root / str(registry.manifest(name).CHAPTER)).is_file()]
    if unlisted:
        raise RenderError("\n".join(unlisted))
    number_sections = _html_format(config).get("number-sections", True) is not False
    n = letters = 0
    for ch in chapters:
        if number_sections and not ch.unnumbered:
            if ch.rel in lettered:      # appendices: A, B, ... (Quarto's numbering)
                ch.number = chr(ord("A") + letters)
                letters += 1
            else:
                n += 1
                ch.number = n
        ch.title_html = inline_markdown(ch.title_md, ch)
        ch.title_text = strip_tags(ch.title_html)
        kind = "Appendix" if ch.rel in lettered else "Chapter"
        if ch.title_id:
            ch.labels[ch.title_id] = ("", f"{kind}\u00a0{ch.number}" if ch.number else unlink(ch.title_html))
    return config, chapters


def pdf_name(config: dict) -> str:
    """The book's PDF, as Quarto names a book's single-file outputs: `book.output-file`, else the title."""
    book = config.get("book") or {}
    stem = str(book.get("output-file") or book.get("title") or "book")
    return stem if stem.endswith(".pdf") else f"{stem}.pdf"


def _html_format(config: dict) -> dict:
    fmt = config.get("format") or {}
    h = fmt.get("html") if isinstance(fmt, dict) else None
    return h if isinstance(h, dict) else {}


# --------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------

_XREF = re.compile(r"(?<![\w@.])(\[?)(-?)@((?:sec|fig|tbl)-[\w-]*\w)(\]?)")


def resolve_xrefs(body: str, page_href: str, labels: dict, where: str) -> str:
    """Quarto cross-references `@sec-x`, `@fig-x`, `@tbl-x` (also `[@fig-x]`, `-@fig-x`) to links
    across the book; an unknown label becomes `?@x` with a warning."""
    if "@" not in body:
        return body

    def link(m):
        open_b, minus, label, close_b = m.groups()
        own = bool(open_b and close_b)              # [@fig-x]: the brackets belong to the reference
        lead, tail = ("", "") if own else (open_b, close_b)
        target = labels.get(label)
        if target is None:
            warn(f"{where}: unresolved cross-reference @{label}")
            return f'{lead}<strong class="xref-missing">?@{label}</strong>{tail}'
        href, anchor, text = target
        if minus:                                   # -@fig-x: the number alone
            text = text.split("\u00a0", 1)[-1]
        url = _rel(page_href, href) if href != page_href else ""
        url += f"#{anchor}" if anchor else ("" if url else "#")
        return f'{lead}<a class="xref" href="{url}">{text}</a>{tail}'

    return "".join(piece if piece.startswith("<") or "@" not in piece else _XREF.sub(link, piece)
                   for piece in TAGS_AND_CODE.split(body))


def _resolve_citations(root: Path, config: dict, chapters: list, bodies: list) -> list:
    """Pandoc citations on every page (`[@key]`, `[@key, line 12]`, `@key` and table cells' `<span
    data-qmd="[@key]">`, formatted by citations.py with pandoc's citeproc, one label per work on
    every page); each citing page gets its References section, and the `::: {#refs}` page
    (references.qmd) all the book's citations and the project's `nocite`."""
    bib = config.get("bibliography")
    if isinstance(bib, list):
        bib = bib[0] if len(bib) == 1 else None
        if bib is None:
            raise RenderError(f"{root / '_quarto.yml'}: only one bibliography file is supported")
    if not bib:
        for ch, (body, _) in zip(chapters, bodies):
            found = find_citations(table_citations_as_markers(body))
            if found:
                raise RenderError(f"{ch.source}: cites {found[0][0]} but _quarto.yml names no bibliography")
        return bodies
    try:
        bibliography = Bibliography(root / str(bib))
    except CitationError as e:
        raise RenderError(f"{root / '_quarto.yml'}: bibliography: {e}") from None
    every, unknown = [], []
    for ch, (body, _) in zip(chapters, bodies):
        found = find_citations(table_citations_as_markers(body))
        every += [k for _, keys in found for k in keys]
        try:
            bibliography.check(found, f"{ch.source} (page {ch.href})")
        except CitationError as e:
            unknown.append(str(e))
    nocite = nocite_keys(config, bibliography.keys)
    try:
        bibliography.check([("nocite", nocite)], f"{root / '_quarto.yml'}: nocite")
    except CitationError as e:
        unknown.append(str(e))
    if unknown:                        # every page's unknown keys at once
        raise RenderError("\n".join(unknown))
    try:           # the references page lists what the book cites and `nocite` adds, as Quarto's does
        resolved = bibliography.resolve_pages([(body, f"{ch.source} (page {ch.href})")
                                               for ch, (body, _) in zip(chapters, bodies)],
                                              all_keys=list(dict.fromkeys([*every, *nocite])))
    except CitationError as e:
        raise RenderError(str(e)) from None
    out = []
    for (body, cited), (_, sections) in zip(resolved, bodies):
        if '<section class="references" id="references">' in body:
            sections = [*sections, Section(2, "references", "References")]
        out.append((body, sections))
    return out


def nocite_keys(config: dict, every=()) -> list[str]:
    """The keys of the project's `nocite` ("@a, @b" as Quarto reads it); `@*` is every key of the
    bibliography (`every`), as pandoc reads it."""
    value = config.get("nocite")
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    keys = re.findall(r"@([\w*][\w:.#$%&+?<>~/-]*)", str(value or ""))
    return sorted(every) if "*" in keys else keys


def describe_measurements(root: Path, path: str | None) -> str:
    """The measurement file by name and machine (never an absolute path: pages get published)."""
    if path:
        file = Path(path)
    else:
        refs = sorted((root / "measurements" / "reference").glob("*.json"))
        if len(refs) != 1:
            return "the reference file"
        file = refs[0]
    try:
        desc = machine_text(json.loads(file.read_text(encoding="utf-8"))["provenance"]["machine"], arch=True)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        desc = ""
    return f"{file.name} ({desc})" if desc else file.name


def _rel(from_href: str, to_href: str) -> str:
    return posixpath.relpath(to_href, posixpath.dirname(from_href) or ".")


def _display_path(p: Path, root: Path) -> str:
    try:
        return str(p.resolve().relative_to(root))
    except ValueError:
        return str(p)


def _source_label(ch: Chapter, root: Path) -> str:
    """The chapter as the book lists it (pages never show where the build put its files)."""
    return str(ch.rel) if ch.source.resolve() == (root / ch.rel).resolve() else f"{ch.rel} (outputs of a fresh run)"


def find_mathjax() -> Path:
    """The MathJax 3 es5 folder shipped by the PyPI package django-static-mathjax."""
    try:
        import mathjax   # django-static-mathjax's top-level package
    except ImportError:
        mathjax = None
    if mathjax is not None and getattr(mathjax, "__file__", None):
        es5 = Path(mathjax.__file__).resolve().parent / "static" / "mathjax" / "es5"
        if (es5 / MATHJAX_FILE).is_file():
            return es5
    raise RenderError(f"MathJax not found: install {MATHJAX_PACKAGE} (it is in requirements.txt; "
                      "the book must typeset mathematics without a network)")


def mathjax_url(root: Path, html_fmt: dict) -> Path | None:
    """`format.html.html-math-method.url` when it names a file of the project (Quarto serves it
    from there too), else None."""
    method = html_fmt.get("html-math-method")
    url = method.get("url") if isinstance(method, dict) and method.get("method") == "mathjax" else None
    if not isinstance(url, str) or re.match(r"\s*([a-z]+:)?//", url, re.I):
        return None
    path = (root / url).resolve()
    return path if path.is_file() and path.is_relative_to(root) else None


def project_css(root: Path, html_fmt: dict) -> list[Path]:
    """The project's own stylesheets, `format.html.css` (one path or a list), each checked to exist."""
    css = html_fmt.get("css") or []
    out = []
    for item in [css] if isinstance(css, str) else css:
        path = (root / str(item)).resolve()
        if not path.is_file():
            raise RenderError(f"{root / '_quarto.yml'}: format.html.css: {item} does not exist")
        out.append(path)
    return out


def copy_static(out_dir: Path, mathjax: Path | None = None, css_files=()) -> list[str]:
    """MathJax, the book's stylesheet and the project's; returns the stylesheets' names in _static."""
    mathjax = mathjax or find_mathjax() / MATHJAX_FILE
    static = out_dir / STATIC
    mj = static / "mathjax"
    mj.mkdir(parents=True, exist_ok=True)
    atomic.copy_file(mathjax, mj / MATHJAX_FILE)
    lic = mathjax.parent.parent / "LICENSE"
    if lic.is_file():
        atomic.copy_file(lic, mj / "LICENSE")
    css = (ASSETS / CSS_NAME).read_text(encoding="utf-8")
    css += "\n/* Pygments (code highlighting) */\n" + HtmlFormatter().get_style_defs(".highlight") + "\n"
    atomic.write_text(static / CSS_NAME, css)
    names = [CSS_NAME]
    for path in css_files:
        if path.name in names:
            raise RenderError(f"two stylesheets named {path.name}")
        atomic.copy_file(path, static / path.name)
        names.append(path.name)
    return names


def render_book(project_root: Path, out_dir: Path, notebook_dir: Path | None = None, *,
                log=None) -> list[Path]:
    """Render every chapter of project_root/_quarto.yml into out_dir; return the pages written.

    A `.ipynb` chapter is read from notebook_dir/<its path> when that file exists (freshly
    executed copies), else from project_root.  `log`, if given, is called with one line per page.

    Each page has the book's template (sidebar, "On this page", previous/next, `toc`,
    `code-overflow: wrap`), the stylesheets of `format.html.css` (after the book's own) and MathJax
    from `html-math-method`'s local `url` (else the pinned package's copy).  `book.downloads: [pdf]`
    adds a "Download PDF" link in the sidebar to the PDF that book/pdf.py makes of these pages
    (named as Quarto names it, ``pdf_name``).
    """
    root = Path(project_root).resolve()
    out_dir = Path(out_dir).resolve()
    nb_dir = Path(notebook_dir).resolve() if notebook_dir is not None else None
    config, chapters = load_book(root, nb_dir)
    book = config.get("book") or {}
    html_fmt = _html_format(config)
    mathjax = mathjax_url(root, html_fmt)
    if mathjax is None:
        find_mathjax()   # fail before writing anything
    css_files = project_css(root, html_fmt)
    # the file's words as HTML text that MathJax leaves alone (the template's escaping would not)
    measurements = Markup(html_text(describe_measurements(root, os.environ.get("COSTBOOK_MEASUREMENTS"))))
    template = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True, trim_blocks=True,
                                  lstrip_blocks=True, keep_trailing_newline=True).get_template("page.html.j2")
    title = str(book.get("title") or root.name)
    pdf = pdf_name(config) if "pdf" in (book.get("downloads") or []) else None   # written by book/pdf.py
    authors = book.get("author")
    if isinstance(authors, list):
        authors = ", ".join(str(a.get("name", a)) if isinstance(a, dict) else str(a) for a in authors)

    bodies, live_names = [], []
    for ch in chapters:
        live_names.append(live_page.prepare(ch.notebook))    # OJS cells -> the offline widget
        md = ChapterMarkdown(ch)
        bodies.append((render_cells(ch.notebook, str(ch.source), html_fmt, md), md.sections))

    labels = {}
    for ch in chapters:
        for label, (anchor, text) in ch.labels.items():
            if label in labels:
                warn(f"{ch.source}: cross-reference label {label} is defined twice")
            labels.setdefault(label, (ch.href, anchor, text))
    bodies = [(resolve_xrefs(body, ch.href, labels, str(ch.source)), sections)
              for ch, (body, sections) in zip(chapters, bodies)]
    bodies = _resolve_citations(root, config, chapters, bodies)

    out_dir.mkdir(parents=True, exist_ok=True)
    stylesheets = copy_static(out_dir, mathjax, css_files)
    live_data = live_page.exports(root, sorted({n for names in live_names for n in names}))
    machine = live_page.machine_script(live_page.measured_file(os.environ.get("COSTBOOK_MEASUREMENTS"), root))
    if live_data:
        live_page.copy_scripts(out_dir / STATIC)
    written = []
    for i, (ch, (body, sections)) in enumerate(zip(chapters, bodies)):
        href, static = ch.href, _rel(ch.href, STATIC)
        links = [{"href": _rel(href, c.href), "number": c.number, "title_html": unlink(c.title_html),
                  "current": c is ch, "part": c.part} for c in chapters]
        page = template.render(
            book_title=title,
            subtitle=book.get("subtitle"),
            author=authors,
            is_first=i == 0,
            home=links[0]["href"],
            stylesheets=[f"{static}/{name}" for name in stylesheets],
            mathjax=f"{static}/mathjax/{MATHJAX_FILE}",
            chapter=ch,
            page_title=(f"{ch.number}\u00a0 {ch.title_text}" if ch.number else ch.title_text),
            parts=[{"title": part, "chapters": list(group)} for part, group in groupby(links, lambda c: c["part"])],
            sections=sections,
            body=body + (live_page.page_scripts({n: live_data[n] for n in live_names[i]}, static, machine)
                         if live_names[i] else ""),
            nav={"prev": links[i - 1] if i > 0 else None, "next": links[i + 1] if i + 1 < len(links) else None},
            source=_source_label(ch, root),
            measurements=measurements,
            code_wrap=html_fmt.get("code-overflow") == "wrap",
            toc=html_fmt.get("toc", True) is not False,
            pdf=_rel(href, pdf) if pdf else None,
        )
        dest = out_dir / href
        atomic.write_text(dest, page)
        written.append(dest)
        if log is not None:
            log(f"{href}  <-  {_display_path(ch.source, root)}")
    _remove_stale_pages(out_dir, written, log)
    return written


_GENERATOR = '<meta name="generator" content="costbook.book.render">'


def _remove_stale_pages(out_dir: Path, written: list[Path], log) -> None:
    """Pages this renderer wrote earlier for chapters no longer in the book (only those)."""
    keep = {p.resolve() for p in written}
    for page in out_dir.rglob("*.html"):
        if page.resolve() in keep or STATIC in page.relative_to(out_dir).parts:
            continue
        try:
            head = page.read_text(encoding="utf-8", errors="replace")[:2000]
        except OSError:
            continue
        if _GENERATOR in head:
            page.unlink()
            if log is not None:
                log(f"removed {page.relative_to(out_dir).as_posix()} (no longer in _quarto.yml)")


def main(argv=None) -> int:
    ap = chapter_arguments(__doc__.split("\n\n")[0], "book", "output folder",
                           "; a chapter found there is rendered instead of the committed one")
    root, notebooks, out = chapter_paths(ap.parse_args(argv))
    try:
        with interrupt.raised_as_exception():
            pages = render_book(root, out, notebooks, log=lambda line: print(f"  {line}"))
    except (BookConfigError, RenderError) as e:
        print(f"render: error: {e}", file=sys.stderr)
        return 2
    except interrupt.Interrupted as e:     # every page is written whole (atomic): nothing to undo
        interrupt.say(f"{e.name} while rendering {out}; each page there is whole, from this render "
                      "or the one before")
        interrupt.exit_by(e.signum)
    out = out.resolve()
    print(f"Book ({len(pages)} pages): open file://{out / pages[0].relative_to(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
