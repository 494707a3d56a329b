"""The live estimate in the offline book: a chapter's OJS cells become the same widget, offline.

A chapter holds its live estimate as Quarto OJS cells in a markdown cell::

    ```{ojs}
    //| echo: false
    costbookPricing = require("../sage/costbook/book/assets/live/pricing.js")
    costbookLive = require("../sage/costbook/book/assets/live/live.js")
    costbookLive.mount(document.createElement("div"), [await FileAttachment("live/veccom.json").json()], costbookPricing)
    ```

Quarto runs them (the JSON beside the chapter, ``chapters/live/<scheme>.json``, is committed).  This
renderer has no OJS runtime: it replaces each such block by ``<div class="costbook-live"
data-live="veccom">``, embeds the schemes' data in the page as ``<script type="application/json">``
(a page opened from file:// may not fetch() a file) and loads the same two scripts, pricing.js and
live.js, as classic scripts from ``_static/live/`` (Chromium refuses ES module imports from
file://).  The data is the committed export, or, when the book was made with this machine's
measurement, exported afresh with that machine too (``costbook.live``) and kept in build/cache/live/
under the digest of its inputs.
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from .. import live
from . import cache

ASSETS = Path(__file__).resolve().parent / "assets" / "live"
SCRIPTS = ("pricing.js", "live.js")
KEEP = 4                             # exports kept in build/cache/live (other measurement files, code)
COMMITTED = "chapters/live"          # the exports Quarto's OJS cells attach (FileAttachment("live/..."))
OJS_BLOCK = re.compile(r"^```\{ojs\}[^\n]*\n(.*?)^```[ \t]*$\n?", re.S | re.M)
ATTACHMENT = re.compile(r"""FileAttachment\(\s*["']live/([a-z0-9_]+)\.json["']\s*\)""")


def replace_blocks(source: str) -> tuple[str, list]:
    """A markdown cell's text with its OJS blocks replaced (a block that attaches live data becomes
    the widget's container, a block that only loads the scripts nothing), and the schemes named."""
    names = []

    def swap(m):
        found = ATTACHMENT.findall(m.group(1))
        if not found:
            return ""
        names.extend(n for n in found if n not in names)
        return f'<div class="costbook-live" data-live="{" ".join(found)}"></div>\n'

    return OJS_BLOCK.sub(swap, source), names


def prepare(notebook) -> list:
    """Replace the OJS blocks of a chapter's markdown cells in place; returns the schemes it shows."""
    names = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and "```{ojs}" in cell.source:
            cell.source, found = replace_blocks(cell.source)
            names.extend(n for n in found if n not in names)
    return names


def exports(root: Path, names, measured: Path | None) -> dict:
    """{scheme: the JSON text of its live data}.  Without this machine's file it is the committed
    export beside the chapters (chapters/live/<scheme>.json, the copy Quarto attaches, which
    tests/test_live_pricing.py holds to the CLI); with one, exported afresh with that machine added
    and kept in build/cache/live/ while nothing it depends on changed (the costbook package, the
    committed measurements, this machine's file)."""
    if not names:
        return {}
    committed = Path(root) / COMMITTED
    if measured is None and all((committed / f"{n}.json").is_file() for n in names):
        return {n: (committed / f"{n}.json").read_text(encoding="utf-8") for n in names}
    h = hashlib.sha256(cache.shared_digest(root).encode())
    if measured is not None:
        h.update(measured.read_bytes())
    folder = Path(root) / "build" / "cache" / "live" / h.hexdigest()[:20]
    out = {}
    for name in names:
        path = folder / f"{name}.json"
        if not path.is_file():
            live.write(folder, [name], [measured] if measured is not None else ())
        out[name] = path.read_text(encoding="utf-8")
    folder.touch()
    _prune(folder.parent, keep=KEEP)
    return out


def _prune(top: Path, keep: int) -> None:
    """The `keep` exports used last stay in build/cache/live; older ones (other inputs) go."""
    folders = sorted((p for p in top.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in folders[keep:]:
        shutil.rmtree(old, ignore_errors=True)


def copy_scripts(static: Path) -> None:
    (static / "live").mkdir(parents=True, exist_ok=True)
    for name in SCRIPTS:
        shutil.copyfile(ASSETS / name, static / "live" / name)


def page_scripts(data: dict, static_href: str) -> str:
    """The HTML that ends a page with live estimates: each scheme's data once, then the scripts."""
    # "</" cannot occur inside a script element; JSON reads "<\/" as "</"
    blocks = [f'<script type="application/json" id="costbook-live-data-{name}">' + text.replace("</", "<\\/")
              + "</script>" for name, text in data.items()]
    blocks += [f'<script src="{static_href}/live/{name}"></script>' for name in SCRIPTS]
    blocks.append("<script>costbookLive.mountAll(costbookPricing);</script>")
    return "\n".join(blocks)


def measured_file(env_value: str | None, root: Path) -> Path | None:
    """This machine's measurement file when the book was given one that is not the reference."""
    if not env_value:
        return None
    path = Path(env_value)
    refs = {p.resolve() for p in (Path(root) / "measurements").glob("*/*.json")}
    if not path.is_file() or path.resolve() in refs:
        return None
    return path
