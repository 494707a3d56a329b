"""Pandoc citations (`[@key]`, `[@key, line 12]`, `[@a; @b]`, author-in-text `@key`) in rendered pages.

Quarto formats citations with pandoc's citeproc; so does this module, through the pandoc
binary shipped in the pinned `pypandoc-binary` wheel (no network, no hand-made formatting).
It works on a page's rendered HTML (prose, index.qmd and HTML table outputs alike), outside
<pre>, <code>, <script> and <style>.  A table cell's citation is a `<span data-qmd="[@key, ...]">`
(costbook.writing.report.Table writes it; Quarto parses the attribute's Markdown): the span is read
here as the citation in its attribute.  `@fig-`, `@tbl-` and `@sec-` are cross-references,
resolved earlier by the renderer, and are left alone here.

One label per source on every page: citeproc adds a year suffix (2021a, 2021b) to works of the
same authors and year that are cited *together*.  Every citation of the book is formatted in one
pandoc run with the whole bibliography as `nocite`, so a suffix never depends on which page a
citation is on; each page then lists the entries it cites.  (Quarto formats each page alone; its
labels are the same when every group of works that share authors and year is in the project's
`nocite`, which `ambiguous_keys` names and the conformance tests check.)
"""
from __future__ import annotations

import html
import re
from ..writing.bibliography import Bibliography as _Bibliography, CitationError

__all__ = ["Bibliography", "CitationError", "find_citations", "qmd_span_citations", "table_citations_as_markers"]


_KEY = r"[A-Za-z0-9_][\w:.#$%&+?<>~/-]*[A-Za-z0-9_]|[A-Za-z0-9_]"
_XREF_PREFIXES = ("fig-", "tbl-", "sec-", "eq-")
# [see @a, line 12; @b] -- a bracketed group with at least one @key
_BRACKETED = re.compile(rf"\[([^\[\]]*?(?<![\w.])-?@(?:{_KEY})[^\[\]]*)\]")
_IN_TEXT = re.compile(rf"(?<![\w@.\[/?-])@({_KEY})")
_ITEM_KEY = re.compile(rf"(?<![\w.])-?@({_KEY})")
# tags, and elements whose text is not prose (render.py skips them too for cross-references)
TAGS_AND_CODE = re.compile(r"(<pre\b.*?</pre>|<code\b.*?</code>|<script\b.*?</script>|<style\b.*?</style>|<[^>]*>)",
                           re.S | re.I)
_REFS_DIV = re.compile(r'<div\b[^>]*\bid="refs"[^>]*>\s*</div>', re.I)


# An "@" written as a character reference is a file's word shown as its character
# (costbook.system.escape, costbook.writing.report.Table), never a citation: it is kept as this private-use
# character while the text is searched, and written back as "&#64;".
_AT_ENTITY = re.compile(r"&#0*64;|&#x0*40;|&commat;", re.I)
_KEPT_AT = "\ue040"


def _unescape(text: str) -> str:
    return html.unescape(_AT_ENTITY.sub(_KEPT_AT, text))


def _is_xref(key: str) -> bool:
    return key.startswith(_XREF_PREFIXES)


def find_citations(body: str) -> list[tuple[str, list[str]]]:
    """[(citation markdown, [keys])] in page order, for the text outside tags and code."""
    found = []
    for piece in TAGS_AND_CODE.split(body):
        if piece.startswith("<") or "@" not in piece:
            continue
        text = _unescape(piece)
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


class Bibliography(_Bibliography):
    """A .bib file and the pandoc that formats citations against it (``costbook.writing.bibliography``),
    and the pages it resolves."""

    def resolve(self, body: str, where: str, *, all_keys: list[str] | None = None) -> tuple[str, list[str]]:
        """One page alone: see resolve_pages."""
        return self.resolve_pages([(body, where)], all_keys=all_keys)[0]

    def resolve_pages(self, pages: list[tuple[str, str]], *, all_keys: list[str] | None = None) -> list:
        """[(body, where)] -> [(body with pandoc's citations, keys it cites in order)].

        Every citation of every page is formatted in one pandoc run against the whole bibliography,
        so a work has the same label on every page.  A `<div id="refs">` placeholder (Quarto's
        `::: {#refs}`) receives the entries of `all_keys` and of the keys the page cites (the book's
        references page); otherwise a page that cites gets its own "References" section at the end,
        with the entries it cites.
        """
        bodies, found = [], []
        for body, where in pages:
            body = table_citations_as_markers(body)
            citations = find_citations(body)
            self.check(citations, where)
            bodies.append(body)
            found.append(citations)
        distinct = list(dict.fromkeys(c for citations in found for c, _ in citations))
        refs_pages = [_REFS_DIV.search(body) is not None for body in bodies]
        if not distinct and not any(refs_pages):
            return [(body, []) for body in bodies]
        doc = "\n\n".join(f"CITE{i}: {c}" for i, c in enumerate(distinct))
        doc += "\n\n---\nnocite: |\n  " + ", ".join(f"@{k}" for k in sorted(self.keys)) + "\n---\n"
        out = self._pandoc(doc)
        formatted = dict(re.findall(r"<p>CITE(\d+): (.*?)</p>", out, re.S))
        missing = [c for i, c in enumerate(distinct) if str(i) not in formatted]
        if missing:
            raise CitationError(f"{pages[0][1]}: pandoc did not format the citation {missing[0]}")
        by_source = {c: formatted[str(i)] for i, c in enumerate(distinct)}
        refs = _REFS_OPEN.search(out)
        entries = {m[1]: m[0] for m in _ENTRY.finditer(out)}      # in the style's order

        def refs_html(keys) -> str:
            wanted = set(keys)
            chosen = [e for k, e in entries.items() if k in wanted]
            return (refs.group(0) + "\n" + "\n".join(chosen) + "\n</div>") if refs and chosen else ""

        def sub_piece(text: str) -> str:
            # `text` is HTML-escaped text; citations are found in its unescaped form.
            plain = _unescape(text)
            if plain == text:
                return _replace(text, by_source)
            return _replace(plain, by_source, escape=True).replace(_KEPT_AT, "&#64;")

        results = []
        for body, citations, refs_page in zip(bodies, found, refs_pages):
            cited = list(dict.fromkeys(k for _, keys in citations for k in keys))
            pieces = TAGS_AND_CODE.split(body)
            body = "".join(p if p.startswith("<") or "@" not in p else sub_piece(p) for p in pieces)
            if refs_page:
                listed = list(dict.fromkeys([*(all_keys or []), *cited]))
                body = _REFS_DIV.sub(lambda m: refs_html(listed), body, count=1)
            elif cited:
                body += ('\n<section class="references" id="references">\n'
                         '<h2 class="unnumbered">References</h2>\n' + refs_html(cited) + "\n</section>")
            results.append((body, cited))
        return results


_REFS_OPEN = re.compile(r'<div id="refs"[^>]*>')
_ENTRY = re.compile(r'<div id="ref-([^"]+)" class="csl-entry"[^>]*>.*?</div>', re.S)

# A table cell's citation as costbook.writing.report.Table writes it (and as Quarto reads it): the Markdown
# of its data-qmd attribute; the span's text is the readable label shown where nothing formats it.
_QMD_SPAN = re.compile(r'<span\b[^>]*?\bdata-qmd="([^"]*)"[^>]*>.*?</span>', re.S)


def table_citations_as_markers(body: str) -> str:
    """Each `<span data-qmd="[@key, ...]">...</span>` whose Markdown is a citation as that citation."""
    def marker(m):
        markdown = html.unescape(m[1])
        return html.escape(markdown, quote=False) if find_citations(html.escape(markdown, quote=False)) else m[0]
    return _QMD_SPAN.sub(marker, body)


def qmd_span_citations(fragment: str) -> list[tuple[str, list[str]]]:
    """[(citation markdown, [keys])] of the data-qmd spans in an HTML fragment."""
    return [c for m in _QMD_SPAN.finditer(fragment) for c in find_citations(html.escape(html.unescape(m[1]), quote=False))]


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
