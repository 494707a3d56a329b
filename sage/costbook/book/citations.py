"""Pandoc citations (`[@key]`, `[@key, line 12]`, `[@a; @b]`, author-in-text `@key`) in rendered pages.

Quarto formats citations with pandoc's citeproc; so does this module, through the pandoc
binary shipped in the pinned `pypandoc-binary` wheel (no network, no hand-made formatting).
It works on a page's rendered HTML (prose, index.qmd and HTML table outputs alike), outside
<pre>, <code>, <script> and <style>.  One pandoc run per page formats every citation of the
page and the page's own reference list.  `@fig-`, `@tbl-` and `@sec-` are cross-references,
resolved earlier by the renderer, and are left alone here.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

__all__ = ["Bibliography", "CitationError", "find_citations"]


class CitationError(ValueError):
    """A citation names a key the bibliography does not have, or pandoc is missing."""


_KEY = r"[A-Za-z0-9_][\w:.#$%&+?<>~/-]*[A-Za-z0-9_]|[A-Za-z0-9_]"
_XREF_PREFIXES = ("fig-", "tbl-", "sec-", "eq-")
# [see @a, line 12; @b] -- a bracketed group with at least one @key
_BRACKETED = re.compile(rf"\[([^\[\]]*?(?<![\w.])-?@(?:{_KEY})[^\[\]]*)\]")
_IN_TEXT = re.compile(rf"(?<![\w@.\[/?-])@({_KEY})")
_ITEM_KEY = re.compile(rf"(?<![\w.])-?@({_KEY})")
# tags, and elements whose text is not prose (render.py skips them too for cross-references)
TAGS_AND_CODE = re.compile(r"(<pre\b.*?</pre>|<code\b.*?</code>|<script\b.*?</script>|<style\b.*?</style>|<[^>]*>)",
                           re.S | re.I)
_BIB_KEY = re.compile(r"^\s*@(\w+)\s*\{\s*([^,\s]+)\s*,", re.M)
_REFS_DIV = re.compile(r'<div\b[^>]*\bid="refs"[^>]*>\s*</div>', re.I)


def _is_xref(key: str) -> bool:
    return key.startswith(_XREF_PREFIXES)


def find_citations(body: str) -> list[tuple[str, list[str]]]:
    """[(citation markdown, [keys])] in page order, for the text outside tags and code."""
    found = []
    for piece in TAGS_AND_CODE.split(body):
        if piece.startswith("<") or "@" not in piece:
            continue
        text = html.unescape(piece)
        for m in _BRACKETED.finditer(text):
            keys = [k for k in _ITEM_KEY.findall(m.group(1)) if not _is_xref(k)]
            if keys:
                found.append((m.group(0), keys))
        rest = _BRACKETED.sub(" ", text)
        for m in _IN_TEXT.finditer(rest):
            key = m.group(1).rstrip(".:")
            if not _is_xref(key):
                found.append(("@" + key, [key]))
    return found


class Bibliography:
    """A .bib file and the pandoc that formats citations against it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError as e:
            raise CitationError(f"{self.path}: cannot read the bibliography ({e})") from None
        self.keys = {key for kind, key in _BIB_KEY.findall(text) if kind.lower() not in ("comment", "string", "preamble")}
        if not self.keys:
            raise CitationError(f"{self.path}: no BibTeX entries")

    def _pandoc(self, markdown: str) -> str:
        try:
            import pypandoc
        except ImportError:
            raise CitationError("pandoc not found: install pypandoc-binary (it is in requirements.txt); "
                                "citations are formatted by pandoc's citeproc") from None
        return pypandoc.convert_text(markdown, "html", format="markdown",
                                     extra_args=["--citeproc", f"--bibliography={self.path}",
                                                 "--metadata=link-citations=true",
                                                 "--metadata=reference-section-title=", "--wrap=none"])

    def check(self, citations, where: str) -> None:
        unknown = sorted({k for _, keys in citations for k in keys if k not in self.keys})
        if unknown:
            raise CitationError(f"{where}: unknown citation key{'s' if len(unknown) > 1 else ''} "
                                f"{', '.join(unknown)} (not in {self.path.name})")

    def resolve(self, body: str, where: str, *, all_keys: list[str] | None = None) -> tuple[str, list[str]]:
        """Replace the page's citations with pandoc's; return (body, keys cited in order).

        A `<div id="refs">` placeholder (Quarto's `::: {#refs}`) receives the reference list of
        `all_keys` (the book's references page); otherwise a page that cites gets its own
        "References" section at the end.
        """
        body = table_citations_as_markers(body)
        citations = find_citations(body)
        self.check(citations, where)
        refs_page = _REFS_DIV.search(body) is not None
        if not citations and not refs_page:
            return body, []
        cited = list(dict.fromkeys(k for _, keys in citations for k in keys))
        listed = cited if all_keys is None or not refs_page else list(dict.fromkeys([*all_keys, *cited]))
        distinct = list(dict.fromkeys(c for c, _ in citations))
        doc = "\n\n".join(f"CITE{i}: {c}" for i, c in enumerate(distinct))
        if listed:
            doc += "\n\n---\nnocite: |\n  " + ", ".join(f"@{k}" for k in listed) + "\n---\n"
        out = self._pandoc(doc)
        formatted = dict(re.findall(r"<p>CITE(\d+): (.*?)</p>", out, re.S))
        missing = [c for i, c in enumerate(distinct) if str(i) not in formatted]
        if missing:
            raise CitationError(f"{where}: pandoc did not format the citation {missing[0]}")
        by_source = {c: formatted[str(i)] for i, c in enumerate(distinct)}
        refs = re.search(r'<div id="refs".*</div>', out, re.S)
        refs_html = refs.group(0) if refs else ""

        def sub_piece(text: str) -> str:
            # `text` is HTML-escaped text; citations are found in its unescaped form.
            plain = html.unescape(text)
            if plain == text:
                return _replace(text, by_source)
            return _replace(plain, by_source, escape=True)

        pieces = TAGS_AND_CODE.split(body)
        body = "".join(p if p.startswith("<") or "@" not in p else sub_piece(p) for p in pieces)
        if refs_page:
            body = _REFS_DIV.sub(lambda m: refs_html, body, count=1)
        elif refs_html:
            body += ('\n<section class="references" id="references">\n'
                     '<h2 class="unnumbered">References</h2>\n' + refs_html + "\n</section>")
        return body, cited


# A table cell's citation as costbook.report.Table writes it: readable without the renderer, and
# turned back into its pandoc marker here so that it is formatted and linked like any other.
_TABLE_CITE = re.compile(r'<cite class="citation" data-cite="([^"]+)" data-locator="([^"]*)">.*?</cite>', re.S)


def table_citations_as_markers(body: str) -> str:
    return _TABLE_CITE.sub(lambda m: f"[@{m[1]}, {html.unescape(m[2])}]" if m[2] else f"[@{m[1]}]", body)


def _replace(text: str, by_source: dict, escape: bool = False) -> str:
    """Citations in `text` to their formatted HTML; the rest escaped again when it was escaped."""
    def esc(s):
        return html.escape(s, quote=False) if escape else s

    out, pos = [], 0
    spans = []
    for m in _BRACKETED.finditer(text):
        if m.group(0) in by_source:
            spans.append((m.start(), m.end(), by_source[m.group(0)]))
    taken = [(a, b) for a, b, _ in spans]
    for m in _IN_TEXT.finditer(text):
        key = m.group(1).rstrip(".:")
        src = "@" + key
        end = m.start() + len(src)
        if src in by_source and not any(a <= m.start() < b for a, b in taken):
            spans.append((m.start(), end, by_source[src]))
    for a, b, rep in sorted(spans):
        out.append(esc(text[pos:a]))
        out.append(rep)
        pos = b
    out.append(esc(text[pos:]))
    return "".join(out)
