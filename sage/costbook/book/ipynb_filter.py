"""Quarto's notebook filter for the book (`ipynb-filters` in _quarto.yml): HTML outputs as raw HTML blocks.

Quarto (1.11) puts require.js and jQuery, loaded from a CDN, into the head of every page whose
notebook has an HTML display output (`text/html` or `application/javascript` in a display_data or
execute_result: it takes them for JavaScript widgets).  The book's HTML outputs are tables and
need no script.  This filter, which Quarto runs on each chapter notebook before converting it
(notebook JSON on stdin, the filtered notebook on stdout; Python's standard library only), gives
each `text/html` output as `text/markdown` holding the same HTML in a raw ```` ```{=html} ````
block -- the block Quarto itself makes of a `text/html` output, so its HTML table processing and
`data-qmd` citations apply as before -- and the widget heuristic finds nothing.  The committed
notebooks keep their `text/html` outputs for Jupyter and the offline renderer.  An output that
carries a <script> is left alone (it would need the scripts).
"""
from __future__ import annotations

import json
import re
import sys

__all__ = ["raw_html_block", "filter_notebook", "main"]

_DISPLAY = ("display_data", "execute_result")
_SCRIPT = re.compile(r"<script\b", re.I)


def raw_html_block(html: str) -> str:
    """`html` as a pandoc raw HTML block, fenced with more backticks than any run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", html)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{{=html}}\n{html.rstrip(chr(10))}\n{fence}\n"


def filter_notebook(nb: dict) -> dict:
    """The notebook with each script-free `text/html` display output as a raw HTML Markdown block."""
    for cell in nb.get("cells") or []:
        for output in cell.get("outputs") or []:
            data = output.get("data")
            if output.get("output_type") not in _DISPLAY or not isinstance(data, dict) or "text/html" not in data:
                continue
            html = data["text/html"]
            html = "".join(html) if isinstance(html, list) else str(html)
            if _SCRIPT.search(html):
                continue
            del data["text/html"]
            data["text/markdown"] = raw_html_block(html)
    return nb


def main() -> int:
    nb = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    sys.stdout.write(json.dumps(filter_notebook(nb)))        # ASCII: whatever the console's encoding
    return 0


if __name__ == "__main__":
    sys.exit(main())
