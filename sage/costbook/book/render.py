"""Render the book offline: _quarto.yml's chapters to a browsable HTML book.

    python -m costbook.book.render [--project .] [--notebooks build/chapters] [--out build/book]

Quarto cannot be assumed on a reader's machine, so this module builds the same book
from the same table of contents with what the Python environment already has:
nbconvert's math-aware Markdown (mistune) for prose, Pygments for code, and a local
copy of MathJax 3 (the PyPI package django-static-mathjax, which is MathJax's own
es5 distribution and has no dependencies) for mathematics.  Nothing on a page loads
from the network: the CSS and MathJax are copied to <out>/_static/, images are
embedded as data: URIs, and external <script>/<link> tags in cell outputs are dropped.

What it follows from Quarto:
  * chapter order, parts (`- part: "..."` with nested `chapters:`), book title/subtitle/author;
  * chapter titles from front-matter `title:` or the first `# ` heading; chapters
    numbered 1, 2, ... except the index page and headings marked `{.unnumbered}` / `{-}`;
    `##`/`###` sections numbered N.k / N.k.j (`format.html.number-sections: false` turns all
    numbering off); pandoc-style heading ids, `{#id}` honoured;
  * cell options in leading `#|` lines (stripped from the shown code): `echo: false` hides the
    code, `include: false` hides the whole cell, `output: false` hides outputs, `warning: false`
    hides stderr, `code-fold`, `code-summary`, `fig-cap` with `label`, `fig-alt` (alt text;
    default: the caption, never matplotlib's repr); the tags `remove-cell`,
    `remove-input`, `remove-output` (and `hide-input`, shown folded) mean the same;
  * `tbl-cap` on a cell with an HTML table output; cross-references `@sec-x`, `@fig-x`,
    `@tbl-x` (also `[@fig-x]`, `-@fig-x`) across the book, `?@x` with a warning if unknown;
  * `format.html.code-fold`, `toc` and `code-overflow: wrap`;
  * fenced divs `::: {.callout-note}` ... `:::` in prose; local images embedded as data: URIs;
  * `book.appendices` (lettered A, B, ...); `bibliography:` with pandoc citations `[@key]`,
    `[@key, line 12]`, `@key` (see citations.py), a References section per citing page and
    the `::: {#refs}` page.

Not followed: part files (`- part: intro.qmd`), Quarto shortcodes,
theme options (one stylesheet, costbook.css, stands in for `theme:`).
"""
from __future__ import annotations

import argparse
import base64
import html
import json
import mimetypes
import os
import posixpath
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import jinja2
import nbformat
import yaml
from nbconvert.filters.ansi import ansi2html
from nbconvert.filters.markdown_mistune import (IPythonRenderer, MarkdownWithMath, MathInlineParser,
                                                import_plugin)
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer, TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from .citations import Bibliography, CitationError, find_citations
from .project import BookConfigError, appendices, load_config, toc

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
ASSETS = HERE / "assets"
STATIC = "_static"
CSS_NAME = "costbook.css"
MATHJAX_FILE = "tex-svg-full.js"   # MathJax 3: TeX input (all packages) + SVG output, one file
MATHJAX_PACKAGE = "django-static-mathjax==3.2.2.1"

__all__ = ["render_book", "RenderError", "BookConfigError", "main"]


class RenderError(ValueError):
    """A chapter cannot be read or rendered; the message names the file."""


def _warn(msg: str) -> None:
    print(f"render: warning: {msg}", file=sys.stderr)


# --------------------------------------------------------------------------------------
# Small Markdown helpers (Quarto/pandoc syntax that mistune does not know)
# --------------------------------------------------------------------------------------

_ATTR_TOKEN = r'(?:[.#][\w:.-]+|-|[\w-]+=(?:"[^"]*"|\S+))'
_ATTR_BLOCK = re.compile(r"^(?P<text>.*?)\s*\{(?P<attrs>\s*" + _ATTR_TOKEN + r"(?:\s+" + _ATTR_TOKEN
                         + r")*\s*)\}\s*$", re.S)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_H1 = re.compile(r"^ {0,3}#(?!#)[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_DIV_FENCE = re.compile(r"^ {0,3}(:{3,})[ \t]*(?P<attrs>\{[^}]*\}|[\w-]+)?[ \t]*$")


def parse_attrs(spec: str) -> tuple[str | None, list[str], dict[str, str]]:
    """Pandoc attributes `{#id .class key=value}` -> (id, classes, key-values)."""
    ident, classes, kv = None, [], {}
    for tok in re.findall(_ATTR_TOKEN, spec):
        if tok == "-":
            classes.append("unnumbered")
        elif tok.startswith("#"):
            ident = tok[1:]
        elif tok.startswith("."):
            classes.append(tok[1:])
        else:
            k, v = tok.split("=", 1)
            kv[k] = v[1:-1] if v.startswith('"') else v
    return ident, classes, kv


def split_heading_attrs(text: str) -> tuple[str, str | None, list[str], dict[str, str]]:
    m = _ATTR_BLOCK.match(text)
    if not m:
        return text, None, [], {}
    return (m.group("text"), *parse_attrs(m.group("attrs")))


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


def first_h1(markdown: str) -> str | None:
    """The text of the first ATX `# ` heading outside fenced code, or None."""
    fence = None
    for line in markdown.splitlines():
        f = _FENCE.match(line)
        if f:
            if fence is None:
                fence = f.group(1)[0] * len(f.group(1))
            elif f.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            m = _ATX_H1.match(line)
            if m:
                return m.group(1)
    return None


def fenced_divs(markdown: str) -> str:
    """Pandoc fenced divs (`::: {.callout-note}` ... `:::`) to HTML blocks around Markdown."""
    if ":::" not in markdown:
        return markdown
    out, stack, fence = [], [], None
    for line in markdown.split("\n"):
        f = _FENCE.match(line)
        if f:
            if fence is None:
                fence = f.group(1)[0] * len(f.group(1))
            elif f.group(1).startswith(fence):
                fence = None
        m = _DIV_FENCE.match(line) if fence is None else None
        if m and m.group("attrs"):
            spec = m.group("attrs")
            ident, classes, kv = parse_attrs(spec[1:-1]) if spec.startswith("{") else (None, [spec], {})
            callout = next((c for c in classes if c.startswith("callout-")), None)
            cls = " ".join((["callout"] if callout else []) + classes)
            id_attr = f' id="{html.escape(ident)}"' if ident else ""
            out.append(f'<div class="{html.escape(cls)}"{id_attr}>')
            if callout:
                title = kv.get("title") or callout.split("-", 1)[1].capitalize()
                out.append(f'<div class="callout-title">{html.escape(title)}</div>')
            out.append("")
            stack.append(line)
        elif m and stack:
            stack.pop()
            out.extend(["", "</div>", ""])
        else:
            out.append(line)
    out.extend(["", "</div>"] * len(stack))
    return "\n".join(out)


def slugify(text_html: str) -> str:
    """Pandoc's auto identifiers, from a heading's rendered HTML."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text_html))
    text = re.sub(r"[^\w\s.-]", "", text, flags=re.UNICODE).strip().lower()
    text = re.sub(r"\s+", "-", text)
    text = re.sub(r"^[^a-z\u00c0-\uffff]+", "", text)
    return text or "section"


def strip_tags(s: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", s)).strip()


# --------------------------------------------------------------------------------------
# Markdown rendering: nbconvert's math-protecting mistune parser, our headings and code
# --------------------------------------------------------------------------------------

_FORMATTER = HtmlFormatter(cssclass="highlight")


def _lexer(lang: str | None):
    lang = (lang or "").strip().strip("{}").lstrip(".").lower()
    if lang in ("", "sage", "sagemath", "python", "python3", "ipython", "ipython3", "py"):
        return PythonLexer() if lang else TextLexer()
    try:
        return get_lexer_by_name(lang)
    except ClassNotFound:
        return TextLexer()


def highlight_code(code: str, lang: str | None = "python") -> str:
    return highlight(code, _lexer(lang), _FORMATTER)


class _InlineParser(MathInlineParser):
    """Keep `\\$` as `\\$` so that MathJax (processEscapes) shows a dollar, not math."""

    def parse_escape(self, m, state):
        if m.group(0) == "\\$":
            state.append_token({"type": "inline_html", "raw": "\\$"})
            return m.end()
        return super().parse_escape(m, state)


@dataclass
class Section:
    level: int
    ident: str
    html: str          # heading content with its number, no anchor


class _Renderer(IPythonRenderer):
    """Headings with pandoc ids, Quarto numbering and an anchor; code with our highlighter."""

    def __init__(self, chapter: "Chapter", ids: set[str], path: str):
        super().__init__(escape=False, embed_images=True, exclude_anchor_links=True, path=path)
        self.chapter = chapter
        self.ids = ids
        self.sections: list[Section] = []
        self.counters = [0, 0, 0, 0, 0, 0, 0]
        self.drop_h1 = chapter.drop_first_h1

    def unique_id(self, ident: str) -> str:
        base, n = ident, 0
        while ident in self.ids:
            n += 1
            ident = f"{base}-{n}"
        self.ids.add(ident)
        return ident

    def heading(self, text: str, level: int, **attrs) -> str:
        text, ident, classes, _ = split_heading_attrs(text)
        if level == 1 and self.drop_h1:
            self.drop_h1 = False
            return ""
        ident = self.unique_id(ident or slugify(text))
        number = ""
        if self.chapter.number is not None and 2 <= level <= 4 and "unnumbered" not in classes:
            self.counters[level] += 1
            for deeper in range(level + 1, len(self.counters)):
                self.counters[deeper] = 0
            parts = [str(self.chapter.number)] + [str(self.counters[k]) for k in range(2, level + 1)]
            number = f'<span class="header-section-number">{".".join(parts)}</span> '
        if level in (2, 3):
            self.sections.append(Section(level, ident, _unlink(number + text)))
        if ident.startswith("sec-"):
            plain = number.replace('<span class="header-section-number">', "").replace("</span> ", "")
            self.chapter.labels[ident] = (ident, f"Section\u00a0{plain}" if plain else _unlink(text))
        cls = f' class="{" ".join(classes)}"' if classes else ""
        return (f'<h{level} id="{ident}"{cls}>{number}{text}'
                f'<a class="anchor" href="#{ident}" aria-label="link to this section">#</a></h{level}>\n')

    _IMG_SRC = re.compile(r"""(<img\b[^>]*?\bsrc\s*=\s*)(["'])(.*?)\2""", re.I | re.S)

    def _src_to_base64(self, src: str) -> str | None:
        """A local image (inside the project) as a data: URI; None for URLs and missing files."""
        if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I) or src.startswith(("/", "#")) or not src:
            return None
        path = (Path(self.path) / src.split("#")[0].split("?")[0]).resolve()
        root = self.chapter.root.resolve() if self.chapter.root is not None else Path(self.path).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            _warn(f"{self.chapter.source}: image {src} not found inside the project; left as a link")
            return None
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"

    def _html_embed_images(self, fragment: str) -> str:
        # nbconvert re-serialises the fragment with BeautifulSoup, which closes a <div> that a
        # fenced div opened in an earlier block; only rewrite the src attributes instead.
        def embed(m):
            data = self._src_to_base64(html.unescape(m.group(3)))
            return f"{m.group(1)}{m.group(2)}{data}{m.group(2)}" if data else m.group(0)
        return self._IMG_SRC.sub(embed, fragment)

    def block_code(self, code: str, info: str | None = None) -> str:
        lang = (info or "").strip().split(None, 1)[0] if (info or "").strip() else ""
        if lang.startswith("mermaid"):
            return super().block_code(code, info)
        code_html = highlight_code(code.rstrip("\n"), lang or None)
        return f'<div class="sourceCode">{code_html}</div>\n'


def captioned(chapter: "Chapter", rendered: str, kind: str, caption, label: str | None, prefix: str) -> str:
    """A figure or table numbered N.k within its chapter, with its caption and cross-reference label."""
    chapter.counts[kind] = chapter.counts.get(kind, 0) + 1
    n = chapter.counts[kind]
    num = f"{chapter.number}.{n}" if chapter.number is not None else str(n)
    id_attr = ""
    if label and label.startswith(prefix):
        id_attr = f' id="{html.escape(label)}"'
        chapter.labels[label] = (label, f"{kind}\u00a0{num}")
    cap = f'<figcaption>{kind} {num}: {inline_markdown(str(caption), chapter)}</figcaption>'
    if kind == "Table":
        return f'<figure class="table"{id_attr}>{cap}{rendered}</figure>'
    return f'<figure class="figure"{id_attr}>{rendered}{cap}</figure>'


_TABLE_CAPTION = re.compile(r"^:\s+(?P<cap>.*?)(?:\s*\{#(?P<label>tbl-[\w-]+)\})?\s*$")
_TABLE_MARK = re.compile(r"<!--costbook-table:(\d+)-->\s*(<table\b.*?</table>)", re.S)


def table_captions(markdown: str) -> tuple[str, list[tuple[str, str | None]]]:
    """Pandoc's pipe-table captions (`: Caption {#tbl-x}` after the table) -> a marker before it."""
    if "\n:" not in markdown and not markdown.startswith(":"):
        return markdown, []
    lines, caps = markdown.split("\n"), []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and (i == 0 or not lines[i - 1].lstrip().startswith("|")):
            end = i
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            j = end + 1 if end < len(lines) and not lines[end].strip() else end
            m = _TABLE_CAPTION.match(lines[j]) if j < len(lines) else None
            if m:
                caps.append((m.group("cap"), m.group("label")))
                del lines[end:j + 1]
                lines[i:i] = [f"<!--costbook-table:{len(caps) - 1}-->", ""]
                i = end + 2
                continue
            i = end
        i += 1
    return "\n".join(lines), caps


class MarkdownConverter:
    """One per chapter: ids and section numbers run on across the chapter's cells."""

    def __init__(self, chapter: "Chapter"):
        self.renderer = _Renderer(chapter, set(), _asset_dir(chapter))
        self.chapter = chapter
        self.calls = 0
        self.md = MarkdownWithMath(
            renderer=self.renderer,
            inline=_InlineParser(hard_wrap=False),
            plugins=[import_plugin(p) for p in (*MarkdownWithMath.DEFAULT_PLUGINS, "footnotes")],
        )

    def __call__(self, source: str, attachments: dict | None = None) -> str:
        self.renderer.attachments = attachments or {}
        source, caps = table_captions(source)
        out = self.md.render(fenced_divs(source))
        if caps:
            out = _TABLE_MARK.sub(lambda m: captioned(self.chapter, m.group(2), "Table", *caps[int(m.group(1))],
                                                      "tbl-"), out)
        self.calls += 1
        if self.calls > 1 and "#fn" in out:    # footnote ids are per call: keep them unique per page
            out = re.sub(r'((?:id|href)="#?)(fn(?:ref)?-)', rf"\g<1>c{self.calls}-\g<2>", out)
        return out

    @property
    def sections(self) -> list[Section]:
        return self.renderer.sections


def _asset_dir(chapter: "Chapter") -> str:
    if chapter.root is not None:
        return str((chapter.root / chapter.rel).parent)
    return str(chapter.source.parent)


def _unlink(fragment: str) -> str:
    """Drop <a> tags (a heading or title shown inside a link of the navigation)."""
    return re.sub(r"</?a\b[^>]*>", "", fragment)


def inline_markdown(source: str, chapter: "Chapter") -> str:
    """A title's Markdown to inline HTML (no paragraph)."""
    renderer = _Renderer(chapter, set(), _asset_dir(chapter))
    out = MarkdownWithMath(renderer=renderer, inline=_InlineParser(hard_wrap=False)).render(source).strip()
    m = re.fullmatch(r"<p>(.*)</p>", out, re.S)
    return m.group(1) if m else out


# --------------------------------------------------------------------------------------
# Chapters
# --------------------------------------------------------------------------------------

@dataclass
class Chapter:
    rel: PurePosixPath           # as listed in _quarto.yml
    source: Path                 # the file actually read
    part: str | None
    href: str                    # output page, relative to out_dir
    kind: str                    # "notebook" or "markdown"
    meta: dict = field(default_factory=dict)
    title_md: str = ""
    unnumbered: bool = False
    drop_first_h1: bool = False
    number: int | str | None = None   # appendices are lettered
    notebook: nbformat.NotebookNode | None = None
    body_md: str = ""            # markdown chapters: text after the front matter
    title_id: str | None = None  # `# Title {#sec-x}`
    labels: dict = field(default_factory=dict)   # cross-reference label -> (anchor, link text)
    counts: dict = field(default_factory=dict)   # "Figure"/"Table" -> how many so far (N.k numbering)
    root: Path | None = None     # the project: local images are embedded from inside it only
    title_html: str = ""
    title_text: str = ""


def _page_href(rel: PurePosixPath) -> str:
    return str(rel.with_suffix(".html"))


def _read_notebook(path: Path) -> nbformat.NotebookNode:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RenderError(f"{path}: cannot read notebook ({e})") from None
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as e:   # NotJSONError, validation of the nbformat version, ...
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        if len(first) > 200:
            first = first[:200] + "..."
        raise RenderError(f"{path}: not a valid Jupyter notebook (not JSON or not nbformat 4: {first})") from None
    if not isinstance(nb.get("cells"), list):
        raise RenderError(f"{path}: not a valid Jupyter notebook (no cells list)")
    return nb


def _notebook_front_matter(nb, path: Path) -> dict:
    cells = nb.cells
    if cells and cells[0].cell_type == "raw" and cells[0].source.lstrip().startswith("---"):
        meta, _ = split_front_matter(cells[0].source.lstrip(), path)
        cells[0].metadata["costbook_front_matter"] = True
        return meta
    return {}


def _load_chapter(root: Path, rel: PurePosixPath, part: str | None, notebook_dir: Path | None) -> Chapter:
    candidates = []
    if rel.suffix == ".ipynb" and notebook_dir is not None:
        candidates.append(notebook_dir / rel)
    candidates.append(root / rel)
    source = next((c for c in candidates if c.is_file()), None)
    if source is None:
        looked = " or ".join(str(c) for c in candidates)
        raise RenderError(f"{root / '_quarto.yml'}: chapter {rel} does not exist (looked for {looked})")
    if rel.suffix == ".ipynb":
        ch = Chapter(rel, source, part, _page_href(rel), "notebook", root=root)
        ch.notebook = _read_notebook(source)
        ch.meta = _notebook_front_matter(ch.notebook, source)
        markdown = "\n\n".join(c.source for c in ch.notebook.cells if c.cell_type == "markdown")
    elif rel.suffix in (".qmd", ".md", ".markdown"):
        ch = Chapter(rel, source, part, _page_href(rel), "markdown", root=root)
        try:
            text = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise RenderError(f"{source}: cannot read chapter ({e})") from None
        ch.meta, ch.body_md = split_front_matter(text, source)
        markdown = ch.body_md
    else:
        raise RenderError(f"{root / '_quarto.yml'}: chapter {rel}: cannot render {rel.suffix or 'extensionless'} files "
                          "(expected .ipynb, .qmd or .md)")

    h1 = first_h1(markdown)
    h1_text, h1_id, h1_classes, _ = split_heading_attrs(h1) if h1 is not None else ("", None, [], {})
    title = ch.meta.get("title")
    if title is not None:
        ch.title_md = str(title)
        ch.drop_first_h1 = h1 is not None and h1_text.strip() == ch.title_md.strip()
        ch.unnumbered = ch.drop_first_h1 and "unnumbered" in h1_classes
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
    root = Path(project_root).resolve()
    config = load_config(root)                    # BookConfigError names _quarto.yml
    chapters = []
    lettered = {PurePosixPath(str(f)) for f in appendices(root)}
    for part, files in toc(root):
        for f in files:
            chapters.append(_load_chapter(root, PurePosixPath(str(f)), part, notebook_dir))
    if not chapters:
        raise BookConfigError(f"{root / '_quarto.yml'}: book.chapters lists no chapter files")
    html_fmt = _html_format(config)
    number_sections = html_fmt.get("number-sections", True) is not False
    n = letters = 0
    for i, ch in enumerate(chapters):
        is_index = i == 0 and ch.rel.stem == "index"
        if number_sections and not is_index and not ch.unnumbered:
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
            ch.labels[ch.title_id] = ("", f"{kind}\u00a0{ch.number}" if ch.number else _unlink(ch.title_html))
    return config, chapters


def _html_format(config: dict) -> dict:
    fmt = config.get("format") or {}
    h = fmt.get("html") if isinstance(fmt, dict) else None
    return h if isinstance(h, dict) else {}


# --------------------------------------------------------------------------------------
# Notebook cells
# --------------------------------------------------------------------------------------

_OPTION_LINE = re.compile(r"^\s*#\|\s?(.*)$")
_OUTPUT_PRIORITY = ("text/html", "image/svg+xml", "image/png", "image/jpeg", "image/gif",
                    "text/markdown", "text/latex", "text/plain")
_EXTERNAL_TAG = re.compile(r"<(script|link)\b[^>]*\b(?:src|href)\s*=\s*['\"]?\s*(?:https?:)?//[^>]*>"
                           r"(?:\s*</script\s*>)?", re.I)


def cell_options(source: str, where: str) -> tuple[dict, str]:
    """Quarto's leading `#| key: value` lines -> (options, code without them)."""
    lines = source.split("\n")
    opts = []
    while lines and _OPTION_LINE.match(lines[0]):
        opts.append(_OPTION_LINE.match(lines.pop(0)).group(1))
    if not opts:
        return {}, source
    try:
        parsed = yaml.safe_load("\n".join(opts)) or {}
    except yaml.YAMLError as e:
        _warn(f"{where}: cannot read the cell's #| options ({e}); ignoring them")
        parsed = {}
    if not isinstance(parsed, dict):
        parsed = {}
    return parsed, "\n".join(lines).strip("\n")


def _text(data) -> str:
    return "".join(data) if isinstance(data, list) else str(data)


def _strip_external(fragment: str, where: str) -> str:
    def drop(m):
        _warn(f"{where}: dropped an output's external <{m.group(1).lower()}> tag (the book must work offline)")
        return ""
    return _EXTERNAL_TAG.sub(drop, fragment)


_MPL_REPR = re.compile(r"\s*<(Figure size|matplotlib\.|Graphics object)")   # reprs, not descriptions


def figure_alt(opts: dict, fig_cap, chapter: "Chapter") -> str | None:
    """Quarto's `fig-alt`, else the caption as plain text (an image's repr is no description)."""
    alt = opts.get("fig-alt") or fig_cap
    return " ".join(strip_tags(inline_markdown(str(alt), chapter)).split()) if alt else None


class CellRenderer:
    def __init__(self, chapter: Chapter, md: MarkdownConverter, book_html: dict):
        self.chapter = chapter
        self.md = md
        lang = (chapter.notebook.metadata.get("kernelspec", {}).get("language")
                or chapter.notebook.metadata.get("language_info", {}).get("name") or "python")
        self.lang = lang
        self.code_fold = book_html.get("code-fold", False)
        self.code_summary = book_html.get("code-summary", "Code")

    def render(self) -> str:
        out = []
        for i, cell in enumerate(self.chapter.notebook.cells):
            where = f"{self.chapter.source} cell {i + 1}"
            if cell.cell_type == "markdown":
                out.append(f'<div class="cell-markdown">\n{self.md(cell.source, cell.get("attachments"))}</div>')
            elif cell.cell_type == "code":
                out.append(self.code_cell(cell, where))
            elif cell.cell_type == "raw" and not cell.metadata.get("costbook_front_matter"):
                fmt = (cell.metadata.get("format") or cell.metadata.get("raw_mimetype") or "").lower()
                if fmt in ("text/html", "html"):
                    out.append(_strip_external(cell.source, where))
                elif fmt in ("text/markdown", "markdown"):
                    out.append(self.md(cell.source))
        return "\n".join(o for o in out if o)

    def code_cell(self, cell, where: str) -> str:
        opts, code = cell_options(cell.source, where)
        tags = set(cell.metadata.get("tags", []))
        include = opts.get("include", True) is not False and "remove-cell" not in tags
        if not include:
            return ""
        echo = opts.get("echo", True) is not False and "remove-input" not in tags
        show_output = opts.get("output", True) is not False and "remove-output" not in tags
        fold = opts.get("code-fold", "hide-input" in tags or self.code_fold)
        parts = []
        if echo and code.strip():
            code_html = highlight_code(code, self.lang)
            if fold in (True, "true", "show"):
                summary = html.escape(str(opts.get("code-summary", self.code_summary)))
                opened = " open" if fold == "show" else ""
                code_html = f'<details class="code-fold"{opened}><summary>{summary}</summary>{code_html}</details>'
            parts.append(f'<div class="cell-code">{code_html}</div>')
        if show_output:
            parts.extend(self.outputs(cell, opts, where))
        if not parts:
            return ""
        label = opts.get("label")
        id_attr = (f' id="{html.escape(str(label))}"'
                   if label and not str(label).startswith(("fig-", "tbl-")) else "")
        return f'<div class="cell"{id_attr}>\n' + "\n".join(parts) + "\n</div>"

    def outputs(self, cell, opts: dict, where: str) -> list[str]:
        out, pending = [], None   # merge consecutive stream outputs of the same name
        show_warnings = opts.get("warning", True) is not False
        fig_cap = opts.get("fig-cap")
        tbl_cap = opts.get("tbl-cap")
        label = str(opts.get("label", "")) or None
        for o in cell.get("outputs", []):
            kind = o.get("output_type")
            if kind == "stream":
                name = o.get("name", "stdout")
                if name == "stderr" and not show_warnings:
                    continue
                if pending and pending[0] == name:
                    pending[1].append(_text(o.get("text", "")))
                    continue
                if pending:
                    out.append(self._stream(*pending))
                pending = (name, [_text(o.get("text", ""))])
                continue
            if pending:
                out.append(self._stream(*pending))
                pending = None
            if kind == "error":
                tb = "\n".join(o.get("traceback", [])) or f"{o.get('ename')}: {o.get('evalue')}"
                out.append(f'<div class="cell-output cell-output-error"><pre>{ansi2html(tb)}</pre></div>')
            elif kind in ("execute_result", "display_data"):
                rendered = self._rich(o, where, figure_alt(opts, fig_cap, self.chapter))
                if rendered is None:
                    continue
                is_image = rendered.startswith("<img") or rendered.lstrip().startswith("<svg")
                if is_image and fig_cap:
                    rendered = self._captioned(rendered, "Figure", fig_cap, label, "fig-")
                    fig_cap = None
                elif "<table" in rendered and tbl_cap:
                    rendered = self._captioned(rendered, "Table", tbl_cap, label, "tbl-")
                    tbl_cap = None
                out.append(f'<div class="cell-output cell-output-display">{rendered}</div>')
        if pending:
            out.append(self._stream(*pending))
        return [o for o in out if o]

    def _captioned(self, rendered: str, kind: str, caption, label: str | None, prefix: str) -> str:
        return captioned(self.chapter, rendered, kind, caption, label, prefix)

    @staticmethod
    def _stream(name: str, texts: list[str]) -> str:
        text = "".join(texts)
        text = re.sub(r"[^\n]*\r(?!\n)", "", text)   # progress bars: keep what the last \r left
        if not text.strip():
            return ""
        body = ansi2html(text.rstrip("\n"))
        return f'<div class="cell-output cell-output-{html.escape(name)}"><pre>{body}</pre></div>'

    def _rich(self, o, where: str, alt: str | None = None) -> str | None:
        data = o.get("data", {})
        meta = o.get("metadata", {})
        for mime in _OUTPUT_PRIORITY:
            if mime not in data:
                continue
            value = data[mime]
            if mime == "text/html":
                return _strip_external(_text(value), where)
            if mime == "image/svg+xml":
                return _text(value)
            if mime.startswith("image/"):
                b64 = _text(value).replace("\n", "")
                size = ""
                m = meta.get(mime, {}) if isinstance(meta, dict) else {}
                if isinstance(m, dict):
                    size = "".join(f' {k}="{int(m[k])}"' for k in ("width", "height")
                                   if isinstance(m.get(k), (int, float)))
                if alt is None:
                    plain = _text(data.get("text/plain", ""))
                    alt = "figure" if not plain or _MPL_REPR.match(plain) else plain[:200]
                alt = html.escape(alt)
                return f'<img src="data:{mime};base64,{b64}" alt="{alt}"{size}>'
            if mime == "text/markdown":
                return self.md(_text(value))
            if mime == "text/latex":
                return f'<div class="math-output">{html.escape(_text(value), quote=False)}</div>'
            if mime == "text/plain":
                return f"<pre>{ansi2html(_text(value))}</pre>"
        return None


# --------------------------------------------------------------------------------------
# Pages
# --------------------------------------------------------------------------------------

_XREF_SPLIT = re.compile(r"(<pre\b.*?</pre>|<code\b.*?</code>|<script\b.*?</script>|<style\b.*?</style>|<[^>]*>)",
                         re.S | re.I)
_XREF = re.compile(r"(?<![\w@.])(\[?)(-?)@((?:sec|fig|tbl)-[\w-]*\w)(\]?)")


def resolve_xrefs(body: str, page_href: str, labels: dict, where: str) -> str:
    """Quarto cross-references `@sec-x`, `@fig-x`, `@tbl-x` (also `[@fig-x]`, `-@fig-x`) to links."""
    if "@" not in body:
        return body

    def link(m):
        open_b, minus, label, close_b = m.groups()
        own = bool(open_b and close_b)              # [@fig-x]: the brackets belong to the reference
        lead, tail = ("", "") if own else (open_b, close_b)
        target = labels.get(label)
        if target is None:
            _warn(f"{where}: unresolved cross-reference @{label}")
            return f'{lead}<strong class="xref-missing">?@{label}</strong>{tail}'
        href, anchor, text = target
        if minus:                                   # -@fig-x: the number alone
            text = text.split("\u00a0", 1)[-1]
        url = _rel(page_href, href) if href != page_href else ""
        url += f"#{anchor}" if anchor else ("" if url else "#")
        return f'{lead}<a class="xref" href="{url}">{text}</a>{tail}'

    out = []
    for piece in _XREF_SPLIT.split(body):
        if piece.startswith("<") or "@" not in piece:
            out.append(piece)
            continue
        out.append(_XREF.sub(link, piece))
    return "".join(out)


def _resolve_citations(root: Path, config: dict, chapters: list, bodies: list) -> list:
    """Pandoc citations on every page; each citing page gets its references, references.qmd all."""
    bib = config.get("bibliography")
    if isinstance(bib, list):
        bib = bib[0] if len(bib) == 1 else None
        if bib is None:
            raise RenderError(f"{root / '_quarto.yml'}: only one bibliography file is supported")
    if not bib:
        for ch, (body, _) in zip(chapters, bodies):
            found = find_citations(body)
            if found:
                raise RenderError(f"{ch.source}: cites {found[0][0]} but _quarto.yml names no bibliography")
        return bodies
    try:
        bibliography = Bibliography(root / str(bib))
    except CitationError as e:
        raise RenderError(f"{root / '_quarto.yml'}: bibliography: {e}") from None
    every, unknown = [], []
    for ch, (body, _) in zip(chapters, bodies):
        found = find_citations(body)
        every += [k for _, keys in found for k in keys]
        try:
            bibliography.check(found, f"{ch.source} (page {ch.href})")
        except CitationError as e:
            unknown.append(str(e))
    if unknown:                        # every page's unknown keys at once
        raise RenderError("\n".join(unknown))
    out = []
    for ch, (body, sections) in zip(chapters, bodies):
        try:
            body, cited = bibliography.resolve(body, f"{ch.source} (page {ch.href})",
                                               all_keys=list(dict.fromkeys(every)))
        except CitationError as e:
            raise RenderError(str(e)) from None
        if '<section class="references" id="references">' in body:
            sections = [*sections, Section(2, "references", "References")]
        out.append((body, sections))
    return out


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
        machine = json.loads(file.read_text(encoding="utf-8"))["provenance"]["machine"]
        cores = machine.get("cores")
        desc = ", ".join(str(x) for x in (machine.get("cpu"), f"{cores} cores" if cores else None,
                                          machine.get("arch")) if x)
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
    return str(ch.rel) if ch.source.resolve() == (root / ch.rel).resolve() else f"{ch.rel} (executed copy)"


def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                              autoescape=jinja2.select_autoescape(["html", "j2"]),
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


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


def copy_static(out_dir: Path) -> None:
    es5 = find_mathjax()
    static = out_dir / STATIC
    mj = static / "mathjax"
    mj.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(es5 / MATHJAX_FILE, mj / MATHJAX_FILE)
    lic = es5.parent / "LICENSE"
    if lic.is_file():
        shutil.copyfile(lic, mj / "LICENSE")
    css = (ASSETS / CSS_NAME).read_text(encoding="utf-8")
    css += "\n/* Pygments (code highlighting) */\n" + _FORMATTER.get_style_defs(".highlight") + "\n"
    (static / CSS_NAME).write_text(css, encoding="utf-8")


def render_book(project_root: Path, out_dir: Path, notebook_dir: Path | None = None, *,
                log=None) -> list[Path]:
    """Render every chapter of project_root/_quarto.yml into out_dir; return the pages written.

    A `.ipynb` chapter is read from notebook_dir/<its path> when that file exists (freshly
    executed copies), else from project_root.  `log`, if given, is called with one line per page.
    """
    root = Path(project_root).resolve()
    out_dir = Path(out_dir).resolve()
    nb_dir = Path(notebook_dir).resolve() if notebook_dir is not None else None
    config, chapters = load_book(root, nb_dir)
    book = config.get("book") or {}
    html_fmt = _html_format(config)
    find_mathjax()   # fail before writing anything
    measurements = describe_measurements(root, os.environ.get("COSTBOOK_MEASUREMENTS"))
    template = _env().get_template("page.html.j2")
    title = str(book.get("title") or root.name)
    authors = book.get("author")
    if isinstance(authors, list):
        authors = ", ".join(str(a.get("name", a)) if isinstance(a, dict) else str(a) for a in authors)

    bodies = []
    for ch in chapters:
        md = MarkdownConverter(ch)
        if ch.kind == "notebook":
            body = CellRenderer(ch, md, html_fmt).render()
        else:
            body = md(ch.body_md)
        bodies.append((body, md.sections))

    labels = {}
    for ch in chapters:
        for label, (anchor, text) in ch.labels.items():
            if label in labels:
                _warn(f"{ch.source}: cross-reference label {label} is defined twice")
            labels.setdefault(label, (ch.href, anchor, text))
    bodies = [(resolve_xrefs(body, ch.href, labels, str(ch.source)), sections)
              for ch, (body, sections) in zip(chapters, bodies)]
    bodies = _resolve_citations(root, config, chapters, bodies)

    out_dir.mkdir(parents=True, exist_ok=True)
    copy_static(out_dir)
    written = []
    for i, (ch, (body, sections)) in enumerate(zip(chapters, bodies)):
        href = ch.href
        static = _rel(href, STATIC)
        parts, current = [], None
        for c in chapters:
            if not parts or c.part != current:
                parts.append({"title": c.part, "chapters": []})
                current = c.part
            parts[-1]["chapters"].append({"href": _rel(href, c.href), "number": c.number,
                                          "title_html": _unlink(c.title_html), "current": c is ch})
        nav = {}
        if i > 0:
            p = chapters[i - 1]
            nav["prev"] = {"href": _rel(href, p.href), "number": p.number, "title_html": _unlink(p.title_html)}
        if i + 1 < len(chapters):
            n = chapters[i + 1]
            nav["next"] = {"href": _rel(href, n.href), "number": n.number, "title_html": _unlink(n.title_html)}
        page = template.render(
            book_title=title,
            subtitle=book.get("subtitle"),
            author=authors,
            is_first=i == 0,
            home=_rel(href, chapters[0].href),
            css=f"{static}/{CSS_NAME}",
            mathjax=f"{static}/mathjax/{MATHJAX_FILE}",
            chapter=ch,
            page_title=(f"{ch.number}\u00a0 {ch.title_text}" if ch.number else ch.title_text),
            parts=parts,
            sections=sections,
            body=body,
            nav=nav,
            source=_source_label(ch, root),
            measurements=measurements,
            code_wrap=html_fmt.get("code-overflow") == "wrap",
            toc=html_fmt.get("toc", True) is not False,
        )
        dest = out_dir / href
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(page, encoding="utf-8")
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, default=Path("."), help="folder holding _quarto.yml (default: .)")
    ap.add_argument("--notebooks", type=Path, default=None,
                    help="folder of executed chapter copies mirroring the chapter paths; a chapter found "
                         "there is rendered instead of the committed one (default: <project>/build/chapters)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: <project>/build/book)")
    args = ap.parse_args(argv)
    root = args.project.resolve()
    notebooks = args.notebooks if args.notebooks is not None else root / "build" / "chapters"
    out = args.out if args.out is not None else root / "build" / "book"
    try:
        pages = render_book(root, out, notebooks, log=lambda line: print(f"  {line}"))
    except (BookConfigError, RenderError) as e:
        print(f"render: error: {e}", file=sys.stderr)
        return 2
    out = out.resolve()
    print(f"Book ({len(pages)} pages): open file://{out / pages[0].relative_to(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
