"""Prose: nbconvert's Markdown-with-math renderer, plus the pandoc/Quarto syntax it does not know.

From nbconvert: `MarkdownWithMath` (mistune with `$...$`/`$$...$$` kept intact for MathJax) and
its `IPythonRenderer` (Pygments for fenced code, attachments and local images as data: URIs).

The book's own, on top: heading attributes `{#id .unnumbered}`, pandoc's auto identifiers and
Quarto's section numbers N.k / N.k.j (collected for "On this page"), `\\$` kept for MathJax,
fenced divs `::: {.callout-note}`, pipe-table captions `: Caption {#tbl-x}`, figure and table
numbers N.k with their cross-reference labels, local images only from inside the project, and
footnote ids kept unique when a page is rendered cell by cell.
"""
from __future__ import annotations

import base64
import html
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from nbconvert.filters.markdown_mistune import (IPythonRenderer, MarkdownWithMath, MathInlineParser,
                                                import_plugin)

from .project import warn

_ATTR_TOKEN = r'(?:[.#][\w:.-]+|-|[\w-]+=(?:"[^"]*"|\S+))'
_ATTR_BLOCK = re.compile(r"^(?P<text>.*?)\s*\{(?P<attrs>\s*" + _ATTR_TOKEN + r"(?:\s+" + _ATTR_TOKEN
                         + r")*\s*)\}\s*$", re.S)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX_H1 = re.compile(r"^ {0,3}#(?!#)[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_DIV_FENCE = re.compile(r"^ {0,3}(:{3,})[ \t]*(?P<attrs>\{[^}]*\}|[\w-]+)?[ \t]*$")
_CAPTIONED_TABLE = re.compile(r"^((?:[ \t]*\|.*\n)+)(?:[ \t]*\n)?:[ \t]+(.*?)(?:[ \t]*\{#(tbl-[\w-]+)\})?[ \t]*$",
                              re.M)
_TABLE_MARK = re.compile(r"<!--costbook-table:(\d+)-->\s*(<table\b.*?</table>)", re.S)
_IMG_SRC = re.compile(r"""(<img\b[^>]*?\bsrc\s*=\s*)(["'])(.*?)\2""", re.I | re.S)


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


def _outside_code(lines):
    """(line, True if it is outside fenced code) for each line; fence lines count as inside."""
    fence = None
    for line in lines:
        f = _FENCE.match(line)
        if f and fence is None:
            fence = f.group(1)[0] * len(f.group(1))
        elif f and f.group(1).startswith(fence):
            fence = None
        yield line, fence is None and not f


def first_h1(markdown: str) -> str | None:
    """The text of the first ATX `# ` heading outside fenced code, or None."""
    for line, prose in _outside_code(markdown.splitlines()):
        m = _ATX_H1.match(line) if prose else None
        if m:
            return m.group(1)
    return None


def fenced_divs(markdown: str) -> str:
    """Pandoc fenced divs (`::: {.callout-note}` ... `:::`) to HTML blocks around Markdown."""
    if ":::" not in markdown:
        return markdown
    out, depth = [], 0
    for line, prose in _outside_code(markdown.split("\n")):
        m = _DIV_FENCE.match(line) if prose else None
        if m and m.group("attrs"):
            spec = m.group("attrs")
            ident, classes, kv = parse_attrs(spec[1:-1]) if spec.startswith("{") else (None, [spec], {})
            callout = next((c for c in classes if c.startswith("callout-")), None)
            cls = " ".join((["callout"] if callout else []) + classes)
            out.append(f'<div class="{html.escape(cls)}"' + (f' id="{html.escape(ident)}">' if ident else ">"))
            if callout:
                title = kv.get("title") or callout.split("-", 1)[1].capitalize()
                out.append(f'<div class="callout-title">{html.escape(title)}</div>')
            out.append("")
            depth += 1
        elif m and depth:
            depth -= 1
            out.extend(["", "</div>", ""])
        else:
            out.append(line)
    return "\n".join(out + ["", "</div>"] * depth)


def slugify(text_html: str) -> str:
    """Pandoc's auto identifiers, from a heading's rendered HTML."""
    text = re.sub(r"[^\w\s.-]", "", strip_tags(text_html), flags=re.UNICODE).lower()
    text = re.sub(r"^[^a-z\u00c0-\uffff]+", "", re.sub(r"\s+", "-", text))
    return text or "section"


def strip_tags(s: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", s)).strip()


def unlink(fragment: str) -> str:
    """Drop <a> tags (a heading or title shown inside a link of the navigation)."""
    return re.sub(r"</?a\b[^>]*>", "", fragment)


class _InlineParser(MathInlineParser):
    """Keep `\\$` as `\\$` so that MathJax (processEscapes) shows a dollar, not math; and read `\\@`
    as pandoc does, an "@" that is never a citation or a cross-reference: it is written as "&#64;",
    which the citation and cross-reference passes over the page's HTML leave alone."""

    def parse_escape(self, m, state):
        if m.group(0) in ("\\$", "\\@"):
            state.append_token({"type": "inline_html", "raw": "\\$" if m.group(0) == "\\$" else "&#64;"})
            return m.end()
        return super().parse_escape(m, state)


@dataclass
class Section:
    level: int
    ident: str
    html: str          # heading content with its number, no anchor


class _Renderer(IPythonRenderer):
    """nbconvert's renderer with pandoc heading ids, Quarto numbering and images from the project."""

    def __init__(self, chapter):
        super().__init__(escape=False, embed_images=True, exclude_anchor_links=True,
                         path=str((chapter.root / chapter.rel).parent))
        self.chapter = chapter
        self.ids: set[str] = set()
        self.sections: list[Section] = []
        self.counters = [0] * 7
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
            self.counters[level + 1:] = [0] * (len(self.counters) - level - 1)
            number = ".".join([str(self.chapter.number)] + [str(c) for c in self.counters[2:level + 1]])
        shown = f'<span class="header-section-number">{number}</span> ' if number else ""
        if level in (2, 3):
            self.sections.append(Section(level, ident, unlink(shown + text)))
        if ident.startswith("sec-"):
            self.chapter.labels[ident] = (ident, f"Section\u00a0{number}" if number else unlink(text))
        cls = f' class="{" ".join(classes)}"' if classes else ""
        return (f'<h{level} id="{ident}"{cls}>{shown}{text}'
                f'<a class="anchor" href="#{ident}" aria-label="link to this section">#</a></h{level}>\n')

    def _src_to_base64(self, src: str) -> str | None:
        """A local image (inside the project) as a data: URI; None for URLs and missing files."""
        if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I) or src.startswith(("/", "#")) or not src:
            return None
        path = (Path(self.path) / src.split("#")[0].split("?")[0]).resolve()
        if not path.is_relative_to(self.chapter.root.resolve()) or not path.is_file():
            warn(f"{self.chapter.source}: image {src} not found inside the project; left as a link")
            return None
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"

    def _html_embed_images(self, fragment: str) -> str:
        # nbconvert re-serialises the fragment with BeautifulSoup, which closes a <div> that a
        # fenced div opened in an earlier block; only rewrite the src attributes instead.
        def embed(m):
            data = self._src_to_base64(html.unescape(m.group(3)))
            return f"{m.group(1)}{m.group(2)}{data}{m.group(2)}" if data else m.group(0)
        return _IMG_SRC.sub(embed, fragment)


def inline_markdown(source: str, chapter) -> str:
    """A title's or caption's Markdown to inline HTML (no paragraph)."""
    out = MarkdownWithMath(renderer=_Renderer(chapter), inline=_InlineParser(hard_wrap=False)).render(source)
    m = re.fullmatch(r"<p>(.*)</p>", out.strip(), re.S)
    return m.group(1) if m else out.strip()


class ChapterMarkdown:
    """One per chapter: ids, section, figure and table numbers run on across its cells."""

    def __init__(self, chapter):
        self.chapter = chapter
        self.renderer = _Renderer(chapter)
        self.calls = 0
        self.md = MarkdownWithMath(renderer=self.renderer, inline=_InlineParser(hard_wrap=False),
                                   plugins=[import_plugin(p) for p in (*MarkdownWithMath.DEFAULT_PLUGINS,
                                                                       "footnotes")])

    @property
    def sections(self) -> list[Section]:
        return self.renderer.sections

    def __call__(self, source: str, attachments: dict | None = None) -> str:
        self.renderer.attachments = attachments or {}
        caps = []

        def mark(m):        # pandoc's caption after a pipe table -> a marker before it
            caps.append((m.group(2), m.group(3)))
            return f"<!--costbook-table:{len(caps) - 1}-->\n\n{m.group(1)}"
        out = self.md.render(fenced_divs(_CAPTIONED_TABLE.sub(mark, source)))
        out = _TABLE_MARK.sub(lambda m: self.caption(m.group(2), "Table", *caps[int(m.group(1))], "tbl-"), out)
        self.calls += 1
        if self.calls > 1 and "#fn" in out:    # footnote ids are per call: keep them unique per page
            out = re.sub(r'((?:id|href)="#?)(fn(?:ref)?-)', rf"\g<1>c{self.calls}-\g<2>", out)
        return out

    def caption(self, rendered: str, kind: str, caption, label: str | None, prefix: str) -> str:
        """A figure or table numbered N.k in page order, with its caption and cross-reference label."""
        ch = self.chapter
        ch.counts[kind] = n = ch.counts.get(kind, 0) + 1
        num = f"{ch.number}.{n}" if ch.number is not None else str(n)
        id_attr = ""
        if label and label.startswith(prefix):
            id_attr = f' id="{html.escape(label)}"'
            ch.labels[label] = (label, f"{kind}\u00a0{num}")
        cap = f'<figcaption>{kind} {num}: {inline_markdown(str(caption), ch)}</figcaption>'
        if kind == "Table":
            return f'<figure class="table"{id_attr}>{cap}{rendered}</figure>'
        return f'<figure class="figure"{id_attr}>{rendered}{cap}</figure>'

    def plain(self, source: str) -> str:
        """Markdown as one line of plain text (a caption as an image's alt text)."""
        return " ".join(strip_tags(inline_markdown(source, self.chapter)).split())
