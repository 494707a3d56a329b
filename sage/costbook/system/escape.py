"""Words from a file or a parameter, escaped for the place they land on a page.

A measurement file is checked for its numbers, not its words: its name, machine, libraries and
command may hold anything, `<img src=x onerror=...>` included, and a reader must see those
characters, never markup.  One function per place:

* ``markdown_text``: a phrase inside a sentence of Markdown (pandoc reads it for Quarto, mistune
  for the offline book);
* ``html_text``: text between HTML tags;
* ``html_attribute``: the value of an HTML attribute, in double quotes;
* ``script_json``: JSON text inside a ``<script>`` element;
* ``plot_text``: a label matplotlib draws (a figure's legend).

Both books load MathJax, which reads ``$...$``, ``\\(...\\)`` and ``\\begin{...}`` in any text as
TeX, and TeX's ``\\href`` makes a link of any URL: text holding a dollar or a backslash is put in a
``<span class="tex2jax_ignore">``, which MathJax skips.  Ordinary words (letters, digits, spaces
and ``,.-()/'"``, "Intel(R) Xeon(R) CPU @ 2.20GHz") come out as they went in.
"""
from __future__ import annotations

import html
import re

_MATH = re.compile(r"[$\\]")
# every character that starts inline markup in CommonMark or pandoc's Markdown: code, emphasis,
# links, HTML and entities, attributes, citations (an "@" before a key: "CPU @ 2.20GHz" stays),
# sub/superscript, tables, autolinks ("https:"), math.  Some go as entities: "<" and ">" (so the
# Markdown holds no tag at all), a backslash and a dollar (nbconvert's Markdown reads "\\(" as
# math, and the offline renderer keeps an escaped dollar, "\$", for MathJax to read), and brackets
# (nbconvert's Markdown reads "\[" as display math, where an "@" would be left for the citation pass)
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_{}\[\]<>#|~^:&$]|@(?=[\w{])")
_MARKDOWN_ENTITIES = {"<": "&lt;", ">": "&gt;", "\\": "&#92;", "$": "&#36;", "[": "&#91;", "]": "&#93;"}
# line breaks and other control characters: a phrase stays on its line (no heading, list or
# HTML block of its own); a tab is left as it is
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]+")
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")


def _no_math(escaped: str, text: str) -> str:
    return f'<span class="tex2jax_ignore">{escaped}</span>' if _MATH.search(text) else escaped


def markdown_text(text) -> str:
    """`text` as a Markdown phrase that reads as its characters: each markup character escaped,
    line breaks as spaces."""
    text = _CONTROL.sub(" ", str(text))
    return _no_math(_MARKDOWN_SPECIAL.sub(lambda m: _MARKDOWN_ENTITIES.get(m[0], "\\" + m[0]), text), text)


def html_text(text) -> str:
    """`text` as HTML text (its quotes escaped too, as the book's tables have always written them)."""
    text = str(text)
    return _no_math(html.escape(text), text)


def html_attribute(text) -> str:
    """`text` as the value of an attribute written in double quotes."""
    return html.escape(str(text), quote=True)


def script_json(text: str) -> str:
    """JSON text that a ``<script>`` element holds as it is: with no "<" no "</script>" can end it
    early and no "<!--" can make it swallow the page's next scripts; ">" and "&" go too, and
    U+2028/U+2029, which end a line in older JavaScript.  A JSON text has these characters only
    inside strings, where their \\u escapes read back as the same characters."""
    return _SCRIPT_UNSAFE.sub(lambda m: _SCRIPT_ESCAPES[m[0]], text)


def plot_text(text) -> str:
    """`text` as a label matplotlib draws as its characters: a dollar escaped, since text between two
    dollars is read as mathtext (an unknown command there stops the drawing, a known one typesets)."""
    return str(text).replace("$", "\\$")
