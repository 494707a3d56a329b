"""What a real `quarto render` of the book needs from its sources, checked without Quarto.

Quarto (1.11) renders the same _quarto.yml, index.qmd and committed notebooks as the offline
renderer.  Where the two would differ, Quarto's behaviour is the reference; these checks pin the
sources so that they do not:

  * numbering: Quarto takes a front-matter `title:` over the first heading and then ignores the
    heading's `{.unnumbered}` (the index page is not exempt); each chapter's first heading is the
    title the offline renderer numbers, unnumbered exactly where Quarto leaves it unnumbered;
  * citations in table outputs: Quarto formats only the Markdown of a `<span data-qmd="...">`; a
    `<cite>` element or a bare `[@key]` in HTML is shown as text;
  * one label per work: Quarto runs citeproc page by page, and citeproc adds a/b year suffixes only
    among the works a page cites; the project's `nocite` must hold every group of works that share
    authors and year, so that each page's labels are the book's (simulated here with pandoc);
  * every entry of references.bib is cited somewhere;
  * options that need another option (`repo-actions` needs `repo-url`);
  * nothing from the network: MathJax from a local `url` shipped as a resource, the `mathjax`
    template variable off (Quarto's template loads a polyfill from a CDN when it is on), no
    output loading a script, no HTML output left for Quarto to take for a JavaScript widget
    (require.js and jQuery from a CDN) once the project's ipynb-filters ran, no run timestamps or
    widget state in the notebooks;
  * one stylesheet for both renderers (`format.html.css`), with the table and output rules;
  * math as pandoc reads it: an inline formula with a space after its opening `$` or before its
    closing one is text to pandoc (and so to Quarto), though the offline renderer's Markdown takes it;
  * a render leaves the tree as it found it: .gitignore holds the lines Quarto adds when they are
    missing, and every project.resources glob is anchored at the root (Quarto matches an unanchored
    one at any depth, build/ included).

    python tests/test_quarto_conformance.py [ROOT]   runs every check on a checkout (default: this
                                                     one) and prints the violations per check
"""
from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

_FRONT_MATTER = re.compile(r"\A\s*---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
_ATTRS = re.compile(r"^(?P<text>.*?)\s*\{(?P<attrs>[^{}]*)\}\s*$")
_QMD_SPAN = re.compile(r'<span\b[^>]*?\bdata-qmd="([^"]*)"[^>]*>.*?</span>', re.S)
_CITE_KEY = re.compile(r"(?<![\w.])-?@([A-Za-z0-9_][\w:.#$%&+?<>~/-]*[A-Za-z0-9_]|[A-Za-z0-9_])")
_XREF = ("fig-", "tbl-", "sec-", "eq-")
_NETWORK_SCRIPT = re.compile(r"<(script|link)\b[^>]*\b(src|href)\s*=\s*[\"']?\s*(https?:)?//", re.I)
_YEAR_TOKEN = re.compile(r"\b(\d{4}[a-z]?|n\.d\.(?:-[a-z])?)")


# ------------------------------------------------------------------------------- the sources

def config(root: Path) -> dict:
    return yaml.safe_load((root / "_quarto.yml").read_text(encoding="utf-8")) or {}


def resources(root: Path) -> list[str]:
    """project.resources as globs from the root (Quarto reads "/x" from the root, "x" as "**/x")."""
    return [str(r) for r in (config(root).get("project") or {}).get("resources") or []]


def html_format(root: Path) -> dict:
    fmt = (config(root).get("format") or {}).get("html")
    return fmt if isinstance(fmt, dict) else {}


def pages(root: Path) -> list[str]:
    """Every page of the book in order, as _quarto.yml lists it."""
    book = config(root).get("book") or {}
    out = []
    for item in [*(book.get("chapters") or []), *(book.get("appendices") or [])]:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out += [c for c in item.get("chapters") or [] if isinstance(c, str)]
    return out


def notebooks(root: Path) -> dict[str, dict]:
    return {p: json.loads((root / p).read_text(encoding="utf-8")) for p in pages(root) if p.endswith(".ipynb")}


def source_text(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def outputs(nb: dict):
    """(mime, text) of every rich output of a notebook."""
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            for mime, data in (out.get("data") or {}).items():
                if mime in ("text/html", "text/markdown"):
                    yield mime, "".join(data) if isinstance(data, list) else data


def front_matter_and_markdown(root: Path, page: str) -> tuple[dict, str]:
    """A page's front matter (a .qmd's YAML header, a notebook's first raw cell) and its Markdown."""
    if page.endswith(".ipynb"):
        nb = json.loads((root / page).read_text(encoding="utf-8"))
        cells = nb.get("cells", [])
        meta = {}
        if cells and cells[0].get("cell_type") == "raw":
            m = _FRONT_MATTER.match(source_text(cells[0]))
            meta = (yaml.safe_load(m.group(1) or "") or {}) if m else {}
        return meta, "\n\n".join(source_text(c) for c in cells if c.get("cell_type") == "markdown")
    text = (root / page).read_text(encoding="utf-8")
    m = _FRONT_MATTER.match(text)
    return ((yaml.safe_load(m.group(1) or "") or {}) if m else {}), text[m.end():] if m else text


def first_heading(markdown: str) -> tuple[str, list[str]] | None:
    """The first `# ` heading outside fenced code: (text, classes)."""
    fence = None
    for line in markdown.splitlines():
        f = re.match(r"^\s*(`{3,}|~{3,})", line)
        if f:
            fence = None if fence and f.group(1).startswith(fence) else (fence or f.group(1))
            continue
        if fence is None and (m := _H1.match(line)):
            return split_attrs(m.group(1))
    return None


def split_attrs(text: str) -> tuple[str, list[str]]:
    m = _ATTRS.match(text)
    if not m:
        return text.strip(), []
    classes = [a[1:] for a in m.group("attrs").split() if a.startswith(".")]
    if "-" in m.group("attrs").split():
        classes.append("unnumbered")
    return m.group("text").strip(), classes


def quarto_numbers(meta: dict, heading) -> bool:
    """Quarto's rule for a book chapter: a front-matter title string decides by its own
    {.unnumbered}; else the first heading's classes."""
    if isinstance(meta.get("title"), str):
        return "unnumbered" not in split_attrs(meta["title"])[1]
    return heading is None or "unnumbered" not in heading[1]


def citation_keys(markdown: str) -> list[str]:
    return [k.rstrip(".:") for k in _CITE_KEY.findall(markdown) if not k.startswith(_XREF)]


def bib_keys(root: Path) -> set[str]:
    from costbook.book.citations import Bibliography
    return set(Bibliography(root / str(config(root)["bibliography"])).keys)


def nocite(root: Path) -> list[str]:
    """The project's `nocite` keys; `@*` (pandoc: every entry of the bibliography) as every key."""
    value = config(root).get("nocite") or ""
    text = ", ".join(value) if isinstance(value, list) else str(value)
    if re.search(r"(?<![\w@])@\*", text):
        return sorted(bib_keys(root))
    return citation_keys(text)


def page_citations(root: Path, page: str) -> list[str]:
    """The keys a page cites as Quarto sees them: its Markdown and its outputs' data-qmd spans (and the
    Markdown of text/markdown outputs)."""
    _, markdown = front_matter_and_markdown(root, page)
    keys = citation_keys(markdown)
    if page.endswith(".ipynb"):
        for mime, text in outputs(json.loads((root / page).read_text(encoding="utf-8"))):
            if mime == "text/markdown":
                keys += citation_keys(text)
            keys += [k for m in _QMD_SPAN.finditer(text) for k in citation_keys(html.unescape(m[1]))]
    return list(dict.fromkeys(keys))


# ------------------------------------------------------------------------------- the checks

def front_matter_violations(root: Path) -> list[str]:
    out = []
    for page in pages(root):
        meta, markdown = front_matter_and_markdown(root, page)
        heading = first_heading(markdown)
        if "title" in meta and heading is not None and "unnumbered" in heading[1]:
            out.append(f"{page}: front-matter title {meta['title']!r} and a heading marked {{.unnumbered}}: "
                       "Quarto takes the title and numbers the page")
    return out


def numbering_violations(root: Path) -> list[str]:
    from costbook.book.render import load_book
    _, chapters = load_book(root)
    out = []
    for ch in chapters:
        meta, markdown = front_matter_and_markdown(root, str(ch.rel))
        heading = first_heading(markdown)
        if heading is None:
            out.append(f"{ch.rel}: no `# ` heading to be its title")
        elif heading[0] != ch.title_md:
            out.append(f"{ch.rel}: first heading {heading[0]!r}, but the offline renderer titles it {ch.title_md!r}")
        if quarto_numbers(meta, heading) == ch.unnumbered:
            out.append(f"{ch.rel}: Quarto {'numbers' if quarto_numbers(meta, heading) else 'does not number'} it, "
                       f"the offline renderer {'does not' if ch.unnumbered else 'does'}")
    return out


def table_citation_violations(root: Path) -> list[str]:
    keys = bib_keys(root)
    out = []
    for page, nb in notebooks(root).items():
        cites = outside = 0
        for mime, text in outputs(nb):
            cites += len(re.findall(r"<cite\b[^>]*\bclass=\"citation\"", text))
            for m in _QMD_SPAN.finditer(text):
                cited = citation_keys(html.unescape(m[1]))
                if not cited:
                    out.append(f"{page}: data-qmd span without a citation: {m[1][:60]!r}")
                out += [f"{page}: data-qmd cites {k}, not in references.bib" for k in cited if k not in keys]
            if mime == "text/html":
                rest = re.sub(r"<cite\b.*?</cite>", "", _QMD_SPAN.sub("", text), flags=re.S)
                outside += rest.count("[@")
        if cites:
            out.append(f"{page}: {cites} <cite class=\"citation\"> in its outputs (Quarto shows them as text)")
        if outside:
            out.append(f"{page}: {outside} citation(s) [@...] in HTML outputs outside a data-qmd span")
    return out


def report_table_violations(root: Path) -> list[str]:
    """What costbook.writing.report.Table writes now (the chapters are re-executed with it)."""
    from costbook.writing.report import Table, cite
    t = Table(["source", "time"])
    t.add(cite("seed-cs03", "line 60"), "6.17\u00a0ms")
    t.add(cite("rfc9496"), "—")
    page = t.to_html()
    out = []
    if "<cite" in page or page.count("data-qmd=") != 2:
        out.append("Table.to_html does not write each citation as a data-qmd span")
    if 'data-qmd="[@seed-cs03, line 60]"' not in page:
        out.append("Table.to_html: the data-qmd span does not hold the citation's Markdown")
    if not re.search(r'<td style="text-align: right">6\.17', page) or not re.search(r'<td style="text-align: left">', page):
        out.append("Table.to_html does not state each column's alignment (numbers right, text left)")
    return out


def uncited_violations(root: Path) -> list[str]:
    cited = set()
    for page in pages(root):
        cited |= set(page_citations(root, page))
    return [f"references.bib: {k} is cited nowhere" for k in sorted(bib_keys(root) - cited)]


def option_violations(root: Path) -> list[str]:
    book = config(root).get("book") or {}
    out = []
    if book.get("repo-actions") and not book.get("repo-url"):
        out.append("_quarto.yml: book.repo-actions without book.repo-url (Quarto warns and drops the links)")
    if "repo-url" in book and not str(book.get("repo-url") or "").startswith(("https://", "http://")):
        out.append("_quarto.yml: book.repo-url is not a URL")
    for res in resources(root):
        if not res.startswith("/"):
            out.append(f"_quarto.yml: project.resources {res} does not start with / (Quarto matches it at any "
                       "depth: a render after make book copies build/quarto-project's files into the book)")
        elif not any(root.glob(res.lstrip("/"))):
            out.append(f"_quarto.yml: project.resources {res} matches no file")
    return out


#: what Quarto appends to .gitignore on every render when a line is missing (project-gitignore.ts)
QUARTO_GITIGNORE = ("/.quarto/", "**/*.quarto_ipynb")


def gitignore_violations(root: Path) -> list[str]:
    path = root / ".gitignore"
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()] if path.is_file() else []
    return [f".gitignore: no line {entry!r} (quarto render appends it, and the tree is no longer clean)"
            for entry in QUARTO_GITIGNORE if entry not in lines]


def _pandoc_strays(markdown: str) -> list[str]:
    """The text around each `$` that pandoc's Markdown reader leaves as text (not math, not code, not
    an escaped \\$)."""
    import pypandoc
    ast = json.loads(pypandoc.convert_text(markdown.replace("\\$", "\u00a4"), "json", format="markdown"))
    found = []

    def text(inlines):
        return "".join(i["c"] if i.get("t") == "Str" else " " if i.get("t") in ("Space", "SoftBreak") else
                       (i["c"][1] if i.get("t") in ("Math", "Code") else "") for i in inlines)

    def walk(node):
        if isinstance(node, list):
            at = [i for i, item in enumerate(node) if isinstance(item, dict) and item.get("t") == "Str" and "$" in item["c"]]
            if at:                      # one report per run of text, from its first stray $ to its last
                found.append(text(node[max(0, at[0] - 4):at[-1] + 4]))
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            walk(node.get("c"))

    walk(ast["blocks"])
    return found


def math_delimiter_violations(root: Path) -> list[str]:
    out = []
    for page in pages(root):
        _, markdown = front_matter_and_markdown(root, page)
        if page.endswith(".ipynb"):
            nb = json.loads((root / page).read_text(encoding="utf-8"))
            markdown += "".join("\n\n" + text for mime, text in outputs(nb) if mime == "text/markdown")
        out += [f"{page}: a $ that pandoc reads as text, not math (a space inside the $...$?): {near!r}"
                for near in _pandoc_strays(markdown)]
    return out


def mathjax_violations(root: Path) -> list[str]:
    from costbook.book import render
    method = html_format(root).get("html-math-method")
    if not isinstance(method, dict) or method.get("method") != "mathjax" or not method.get("url"):
        return ["_quarto.yml: html-math-method has no local MathJax url (Quarto loads MathJax from a CDN)"]
    url = str(method["url"])
    out = []
    path = root / url
    if re.match(r"\s*([a-z]+:)?//", url, re.I) or not path.is_file():
        out.append(f"_quarto.yml: html-math-method url {url} is not a local file")
    elif path.resolve() != (render.find_mathjax() / render.MATHJAX_FILE).resolve():
        out.append(f"_quarto.yml: html-math-method url {url} is not the pinned package's MathJax")
    if "/" + url.lstrip("/") not in resources(root):
        out.append(f"_quarto.yml: the MathJax file {url} is not in project.resources (Quarto would not copy it)")
    if config(root).get("mathjax") is not False:
        out.append("_quarto.yml: `mathjax: false` missing (Quarto's template then loads a polyfill script from a CDN)")
    return out


def network_violations(root: Path) -> list[str]:
    out = []
    for page, nb in notebooks(root).items():
        for mime, text in outputs(nb):
            if _NETWORK_SCRIPT.search(text) or re.search(r"\bsrc\s*=\s*[\"']?https?:", text, re.I):
                out.append(f"{page}: a {mime} output loads from the network")
        if "widgets" in (nb.get("metadata") or {}):
            out.append(f"{page}: saved widget state in the notebook metadata")
        stamped = sum("execution" in (c.get("metadata") or {}) for c in nb.get("cells", []))
        if stamped:
            out.append(f"{page}: run timestamps (metadata.execution) in {stamped} cells")
    return out


def widget_violations(root: Path) -> list[str]:
    """Quarto takes any text/html or application/javascript display output for a JavaScript widget
    and loads require.js and jQuery from a CDN for its page; after the project's ipynb-filters (run as
    Quarto runs them: the notebook on stdin, from the notebook's folder) no output may look like one."""
    import subprocess
    filters = config(root).get("ipynb-filters") or []
    filters = [filters] if isinstance(filters, str) else filters
    out = [f"_quarto.yml: ipynb-filters {f} does not exist" for f in filters if not (root / str(f)).is_file()]
    if out:
        return out
    for page in pages(root):
        if not page.endswith(".ipynb"):
            continue
        text = (root / page).read_text(encoding="utf-8")
        for f in filters:
            done = subprocess.run([sys.executable, str((root / str(f)).resolve())], input=text.encode("utf-8"),
                                  capture_output=True, cwd=(root / page).parent, timeout=120)
            if done.returncode != 0:
                return [f"{page}: ipynb filter {f} failed: {done.stderr.decode(errors='replace')[-300:]}"]
            text = done.stdout.decode("utf-8")
        nb = json.loads(text)
        n = sum(1 for c in nb.get("cells", []) for o in c.get("outputs", [])
                if o.get("output_type") in ("display_data", "execute_result")
                and {"text/html", "application/javascript"} & set(o.get("data") or {}))
        if n:
            out.append(f"{page}: {n} HTML output(s) that Quarto takes for widgets (require.js and jQuery from a CDN)")
    return out


# Quarto's start of a code cell (breakQuartoMd: ```{lang ...}) and end of a fenced block, and the
# start of an OJS chunk as its line-number annotation (annotateOjsLineNumbers) matches it
_CELL_START = re.compile(r"^\s*(`{3,})\s*\{([=A-Za-z][=A-Za-z0-9._]*)( *[ ,].*)?\}\s*$")
_FENCE_END = re.compile(r"^\s*(`{3,})\s*$")
_OJS_CHUNK = re.compile(r"^[\t ]*`{3,}\s*\{(ojs( *[ ,].*)?)\}\s*$")


def quarto_cells(markdown: str) -> list[str]:
    """The language of every code cell Quarto finds in a page's Markdown (its breakQuartoMd): a cell
    opens at ```{lang} outside any fence and closes at a fence of as many backticks; a plain fence
    (```) hides what it holds."""
    cells, cell, fence = [], None, 0
    for line in markdown.splitlines():
        start, end = _CELL_START.match(line), _FENCE_END.match(line)
        if start and not fence:
            cell, fence = start[2], len(start[1])
        elif end and fence and len(end[1]) == fence:
            if cell is not None:
                cells.append(cell)
            cell, fence = None, 0
        elif line.startswith("```") and not fence:
            fence = len(line) - len(line.lstrip("`"))
    return cells


def ojs_block_count_violations(root: Path) -> list[str]:
    """Quarto compiles every OJS cell of a page's Markdown and gives each the source line that
    annotateOjsLineNumbers found for it, by index; for a notebook (.ipynb) that annotation finds none
    (it reads only a .qmd's text), so each OJS cell of a chapter notebook is one "OJS block count
    mismatch. Line number reporting is likely to be wrong" warning of `quarto render`.  A page's OJS
    cells must be no more than the chunk starts its own text shows Quarto."""
    out = []
    for page in pages(root):
        _, markdown = front_matter_and_markdown(root, page)
        if page.endswith(".ipynb"):
            for mime, text in outputs(json.loads((root / page).read_text(encoding="utf-8"))):
                if mime == "text/markdown":
                    markdown += "\n\n" + text
        compiled = quarto_cells(markdown).count("ojs")
        annotated = 0 if page.endswith(".ipynb") else sum(
            bool(_OJS_CHUNK.match(line)) for line in (root / page).read_text(encoding="utf-8").splitlines())
        if compiled > annotated:
            out.append(f"{page}: {compiled} OJS cell(s), {annotated} annotated with a source line "
                       f"({'a notebook has none' if page.endswith('.ipynb') else 'chunk starts'}): quarto render warns "
                       f"\"OJS block count mismatch\" {compiled - annotated} time(s)")
    return out


_LIVE_BLOCK = re.compile(r"^```\{=html\}[ \t]*\n(.*?)^```", re.S | re.M)
_SCRIPT_SRC = re.compile(r"""<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']""", re.I)
_LIVE_DIV = re.compile(r"""<div\b[^>]*\bclass="costbook-live"[^>]*\bdata-live="([^"]*)\"""")


def every_scheme() -> list[str]:
    """What a widget of every scheme ("*") reads beside its page: the index, then each scheme's data."""
    from costbook import registry
    return ["index"] + list(registry.in_book_order())


def live_violations(root: Path) -> list[str]:
    """The live estimate's raw HTML blocks load nothing from the network and nothing Quarto would not
    copy: every script is a path relative to the page (chapters/*.html land in _book/chapters/), to a
    file in project.resources; every scheme a block shows has its data beside the chapter
    (live/<scheme>.json, which the page fetches), in project.resources too."""
    shipped = lambda path: any(p.resolve() == path for r in resources(root) for p in root.glob(r.lstrip("/")))
    out = []
    for page, nb in notebooks(root).items():
        folder = (root / page).parent
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "markdown":
                continue
            for block in _LIVE_BLOCK.findall(source_text(cell)):
                wanted = [(f"data of {name}", f"live/{name}.json") for m in _LIVE_DIV.findall(block)
                          for name in (every_scheme() if m.strip() == "*" else m.split())]
                wanted += [("script", src) for src in _SCRIPT_SRC.findall(block)]
                for what, target in wanted:
                    if re.match(r"\s*([a-z]+:)?//", target, re.I) or target.startswith("/"):
                        out.append(f"{page}: live {what} {target!r} is not a relative path (loaded from the network)")
                        continue
                    path = (folder / target).resolve()
                    if not path.is_file():
                        out.append(f"{page}: live {what} {target!r}: no such file")
                    elif not shipped(path):
                        out.append(f"{page}: live {what} {target!r} is not in project.resources (Quarto would not copy it)")
    return out


def css_violations(root: Path) -> list[str]:
    from costbook.book import render
    css = html_format(root).get("css")
    files = [css] if isinstance(css, str) else list(css or [])
    if not files:
        return ["_quarto.yml: no format.html.css: Quarto gets none of the book's table and output rules"]
    out = [f"_quarto.yml: format.html.css {f} does not exist" for f in files if not (root / str(f)).is_file()]
    if out:
        return out
    text = "\n".join((root / str(f)).read_text(encoding="utf-8") for f in files)
    if not re.search(r"\.cell-output-stdout pre[^{]*\{[^}]*white-space:\s*pre-wrap", text):
        out.append("format.html.css: printed output does not wrap (.cell-output-stdout pre)")
    if "costbook-table" not in text:
        out.append("format.html.css: no rules for the book's tables (table.costbook-table)")
    if [p.resolve() for p in render.project_css(root, html_format(root))] != [(root / str(f)).resolve() for f in files]:
        out.append("the offline renderer does not link format.html.css")
    return out


def nocite_violations(root: Path) -> list[str]:
    from costbook.book.citations import Bibliography
    bib = Bibliography(root / str(config(root)["bibliography"]))
    missing = sorted(set(bib.ambiguous_keys()) - set(nocite(root)))
    return [f"_quarto.yml: nocite lacks {k} ({bib.labels()[k]}): a page citing it alone would give another label"
            for k in missing]


def per_page_label_violations(root: Path) -> list[str]:
    """Each page formatted alone, as Quarto does (its citations plus the project's nocite, pandoc's
    citeproc): every label must be the one the whole book gives the work."""
    from costbook.book.citations import Bibliography
    bib = Bibliography(root / str(config(root)["bibliography"]))
    book = bib.labels()
    extra = nocite(root)
    out = []
    for page in pages(root):
        keys = [k for k in page_citations(root, page) if k in bib.keys]
        if not keys:
            continue
        doc = "\n\n".join(f"CITE{i}: [@{k}]" for i, k in enumerate(keys))
        if extra:
            doc += "\n\n---\nnocite: |\n  " + ", ".join(f"@{k}" for k in extra) + "\n---\n"
        text = bib._pandoc(doc, to="plain")
        found = dict(re.findall(r"^CITE(\d+): \((.*?)\)\s*$", text, re.M))
        for i, k in enumerate(keys):
            if found.get(str(i)) != book[k]:
                out.append(f"{page}: {k} is {found.get(str(i))!r} on this page, {book[k]!r} in the book")
    return out


def offline_label_violations(rendered: dict) -> list[str]:
    """In the offline book: one year (with its suffix) per work, on every page."""
    years: dict[str, set] = {}
    for name, text in rendered.items():
        for m in re.finditer(r'<a href="[^"]*#ref-([^"]+)"[^>]*>(.*?)</a>', text, re.S):
            years.setdefault(m[1], set()).update(_YEAR_TOKEN.findall(html.unescape(re.sub(r"<[^>]+>", "", m[2]))))
    return [f"{key}: labelled with {sorted(ys)} across the book" for key, ys in sorted(years.items()) if len(ys) > 1]


def offline_network_violations(rendered: dict) -> list[str]:
    out = []
    for name, text in rendered.items():
        out += [f"{name}: <{m[1]}> loads from the network" for m in _NETWORK_SCRIPT.finditer(text)]
    return out


def render_offline(root: Path, out: Path) -> dict[str, str]:
    from costbook.book.render import render_book
    return {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in render_book(root, out, root / "chapters")}


SOURCE_CHECKS = {
    "front matter": front_matter_violations,
    "numbering": numbering_violations,
    "table citations": table_citation_violations,
    "report tables": report_table_violations,
    "uncited entries": uncited_violations,
    "options": option_violations,
    "mathjax": mathjax_violations,
    "network": network_violations,
    "widget scripts": widget_violations,
    "live estimate": live_violations,
    "ojs block count": ojs_block_count_violations,
    "css": css_violations,
    "nocite": nocite_violations,
    "per-page labels": per_page_label_violations,
    "gitignore": gitignore_violations,
    "math delimiters": math_delimiter_violations,
}


def _report(found: list[str]) -> str:
    return f"{len(found)} violation(s)\n" + "\n".join(f"  - {v}" for v in found)


@pytest.mark.parametrize("check", SOURCE_CHECKS)
def test_sources(check):
    found = SOURCE_CHECKS[check](ROOT)
    assert not found, _report(found)


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    return render_offline(ROOT, tmp_path_factory.mktemp("book"))


def test_offline_book_gives_one_label_per_work(offline):
    found = offline_label_violations(offline)
    assert not found, _report(found)


def test_offline_book_loads_nothing_from_the_network(offline):
    found = offline_network_violations(offline)
    assert not found, _report(found)


def test_works_of_the_same_authors_and_year_need_no_nocite_edit(tmp_path):
    """A new scheme's two entries of the same authors and year (a newcomer's BLS chapter had to add
    them to a hand-kept list): with the project's nocite, `@*`, a page citing one of them alone gives
    it the book's label, and the nocite check holds, with _quarto.yml unchanged."""
    (tmp_path / "_quarto.yml").write_text((ROOT / "_quarto.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "references.bib").write_text(
        (ROOT / "references.bib").read_text(encoding="utf-8")
        + "\n@misc{newcomer-note,\n  author = {Newcomer, Ada},\n  title = {A note},\n  year = {2001}\n}\n"
        + "\n@misc{newcomer-paper,\n  author = {Newcomer, Ada},\n  title = {A paper},\n  year = {2001}\n}\n",
        encoding="utf-8")
    from costbook.book.citations import Bibliography
    bib = Bibliography(tmp_path / "references.bib")
    assert {"newcomer-note", "newcomer-paper"} <= set(bib.ambiguous_keys())
    assert nocite_violations(tmp_path) == []
    book = bib.labels()["newcomer-paper"]
    alone = "CITE0: [@newcomer-paper]\n\n---\nnocite: |\n  " + ", ".join(f"@{k}" for k in nocite(tmp_path)) + "\n---\n"
    assert re.search(r"^CITE0: \((.*?)\)\s*$", bib._pandoc(alone, to="plain"), re.M)[1] == book
    assert book.endswith(("2001a", "2001b"))


def test_checks_catch_what_they_look_for(tmp_path):
    """Each check on a small broken project finds its defect."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_quarto.yml").write_text(
        "project: {type: book}\nbook:\n  repo-actions: [source]\n  chapters: [index.qmd, chapters/01-a.ipynb]\n"
        "bibliography: refs.bib\nformat:\n  html:\n    html-math-method: mathjax\n")
    (tmp_path / "index.qmd").write_text('---\ntitle: "Preface"\n---\n\n# Preface {.unnumbered}\n\nText [@a].\n')
    (tmp_path / "refs.bib").write_text("@misc{a, author = {Doe, J.}, title = {A}, year = {2020}}\n"
                                       "@misc{b, author = {Doe, J.}, title = {B}, year = {2020}}\n"
                                       "@misc{c, author = {Roe, R.}, title = {C}, year = {2021}}\n")
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# A\n\nSee [@b]."]},
                    {"cell_type": "markdown", "metadata": {}, "source": [
                        '```{ojs}\np = 1\n```\n\n```{=html}\n<div class="costbook-live" data-live="none"></div>\n'
                        '<script src="https://cdn.example.org/d3.js"></script>\n<script src="../x.js"></script>\n```\n']},
                    {"cell_type": "code", "metadata": {"execution": {"iopub.status.idle": "2026-01-01T00:00:00Z"}},
                     "execution_count": 1, "source": "t", "outputs": [{
                         "output_type": "display_data", "metadata": {},
                         "data": {"text/html": '<script src="https://cdn.example.org/x.js"></script><table><tr><td>'
                                               '<cite class="citation" data-cite="a">(Doe 2020)</cite></td>'
                                               '<td><span data-qmd="[@nope]">x</span></td></tr></table>'}}]}],
          "metadata": {"widgets": {}}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "chapters" / "01-a.ipynb").write_text(json.dumps(nb))
    assert "front-matter title" in front_matter_violations(tmp_path)[0]
    found = table_citation_violations(tmp_path)
    assert any("<cite" in v for v in found) and any("nope, not in references.bib" in v for v in found)
    assert uncited_violations(tmp_path) == ["references.bib: c is cited nowhere"]
    assert "repo-actions without book.repo-url" in option_violations(tmp_path)[0]
    assert "no local MathJax url" in mathjax_violations(tmp_path)[0]
    found = network_violations(tmp_path)
    assert len(found) == 3 and "network" in found[0] and "widget" in found[1] and "timestamps" in found[2]
    assert "no format.html.css" in css_violations(tmp_path)[0]
    (tmp_path / "x.js").write_text("")
    found = live_violations(tmp_path)
    assert ["no such file" in found[0], "not a relative path" in found[1], "not in project.resources" in found[2]] == [True] * 3
    assert ojs_block_count_violations(tmp_path) == [
        'chapters/01-a.ipynb: 1 OJS cell(s), 0 annotated with a source line (a notebook has none): quarto render '
        'warns "OJS block count mismatch" 1 time(s)']
    # a .qmd's chunks are annotated, a fenced example is no cell, a notebook's raw HTML is no OJS
    preface = (tmp_path / "index.qmd").read_text()
    (tmp_path / "index.qmd").write_text(preface + "\n```{ojs}\n1\n```\n\n````markdown\n```{ojs}\n2\n```\n````\n")
    assert quarto_cells((tmp_path / "index.qmd").read_text()) == ["ojs"]
    assert ojs_block_count_violations(tmp_path)[0].startswith("chapters/01-a.ipynb: 1 OJS cell(s)")
    nb["cells"][1]["source"] = [nb["cells"][1]["source"][0].split("\n\n", 1)[1]]
    (tmp_path / "chapters" / "01-a.ipynb").write_text(json.dumps(nb))
    assert ojs_block_count_violations(tmp_path) == []
    (tmp_path / "index.qmd").write_text(preface)
    assert "1 HTML output(s) that Quarto takes for widgets" in widget_violations(tmp_path)[0]
    assert [v.split(" (")[0] for v in nocite_violations(tmp_path)] == ["_quarto.yml: nocite lacks a",
                                                                      "_quarto.yml: nocite lacks b"]
    found = per_page_label_violations(tmp_path)
    assert "index.qmd: a is 'Doe 2020' on this page, 'Doe 2020a' in the book" in found
    assert offline_label_violations({"x.html": '<a href="#ref-a">Doe 2020a</a>', "y.html": '<a href="../r.html#ref-a">2020</a>'})
    assert offline_network_violations({"x.html": '<script src="https://cdn.example.org/require.js"></script>'})
    # Table 4.10's formula as it was: a space before the closing $ (pandoc: text), and a clean one
    nb["cells"][0]["source"] = ["# A\n\n| a | b |\n|---|---|\n| $(L-2) + \\lvert \\rho\\rvert $ bits | $x$ and \\$5 |\n"]
    (tmp_path / "chapters" / "01-a.ipynb").write_text(json.dumps(nb))
    found = math_delimiter_violations(tmp_path)
    assert len(found) == 1 and found[0].startswith("chapters/01-a.ipynb: a $ that pandoc reads as text") and "(L-2)" in found[0]
    assert gitignore_violations(tmp_path) == [
        ".gitignore: no line '/.quarto/' (quarto render appends it, and the tree is no longer clean)",
        ".gitignore: no line '**/*.quarto_ipynb' (quarto render appends it, and the tree is no longer clean)"]
    (tmp_path / ".gitignore").write_text("build/\n/.quarto/\n**/*.quarto_ipynb\n")
    assert gitignore_violations(tmp_path) == []
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\n  resources: [x.js, /x.js, /none.js]\n")
    assert [v.split(" (")[0].split(" does")[0] for v in option_violations(tmp_path)] == [
        "_quarto.yml: project.resources x.js", "_quarto.yml: project.resources /none.js matches no file"]


def test_ipynb_filter_gives_html_outputs_as_raw_html_blocks():
    from costbook.book.ipynb_filter import filter_notebook, raw_html_block
    assert raw_html_block("<b>x</b>\n") == "```{=html}\n<b>x</b>\n```\n"
    assert raw_html_block("<code>```</code>").startswith("````{=html}\n")
    table = '<table><tr><td><span data-qmd="[@a]">(A 2020)</span></td></tr></table>'
    nb = {"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "execute_result", "data": {"text/html": [table], "text/plain": ["t"]}},
        {"output_type": "display_data", "data": {"text/html": "<script>x()</script>"}},
        {"output_type": "stream", "name": "stdout", "text": "<b>"}]}]}
    outs = filter_notebook(nb)["cells"][0]["outputs"]
    assert outs[0]["data"] == {"text/plain": ["t"], "text/markdown": "```{=html}\n" + table + "\n```\n"}
    assert outs[1]["data"] == {"text/html": "<script>x()</script>"} and outs[2]["text"] == "<b>"


def main(argv: list[str]) -> int:
    """Every check on a checkout (the violations per check); 1 if any."""
    import tempfile
    root = Path(argv[0]).resolve() if argv else ROOT
    failed = 0
    checks = dict(SOURCE_CHECKS)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            rendered = render_offline(root, Path(tmp))
            checks["offline labels"] = lambda _: offline_label_violations(rendered)
            checks["offline network"] = lambda _: offline_network_violations(rendered)
        except Exception as e:                      # an old renderer may not take these inputs
            print(f"offline render: {type(e).__name__}: {e}")
        for name, check in checks.items():
            try:
                found = check(root)
            except Exception as e:
                found = [f"the check could not run: {type(e).__name__}: {e}"]
            failed += bool(found)
            print(f"{name}: {'ok' if not found else _report(found)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
