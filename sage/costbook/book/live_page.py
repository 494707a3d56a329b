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
(a page opened from file:// may not fetch() a file; "<", ">" and "&" as \\u escapes,
``escape.script_json``, so that no string in it ends the element or hides the scripts after it)
and loads the same two scripts, pricing.js and live.js, as classic scripts from ``_static/live/``
(Chromium refuses ES module imports from file://).  The data is the committed export (a scheme
without one is exported here, ``costbook.live``, and kept in build/cache/live/ under the digest of
its inputs).  When the book was made with this machine's measurement, the file itself is embedded
too (``machine_script``): the page checks it with ``costbook check``'s rules and offers it as a
machine, priced the way a reader's own file is, so offering it costs no export (the node test
holds that way of pricing to the CLI).
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from .. import live
from ..escape import html_attribute, script_json
from . import atomic, cache

ASSETS = Path(__file__).resolve().parent / "assets" / "live"
SCRIPTS = ("pricing.js", "live.js")
KEEP = 4                             # exports kept in build/cache/live (other code)
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


def exports(root: Path, names) -> dict:
    """{scheme: the JSON text of its live data}: the committed export beside the chapters
    (chapters/live/<scheme>.json, the copy Quarto attaches, which tests/test_live_pricing.py holds to
    the CLI); a scheme without one is exported here and kept in build/cache/live/ while nothing it
    depends on changed (the costbook package, the committed measurements)."""
    committed = Path(root) / COMMITTED
    out = {n: (committed / f"{n}.json").read_text(encoding="utf-8")
           for n in names if (committed / f"{n}.json").is_file()}
    missing = [n for n in names if n not in out]
    if not missing:
        return out
    folder = Path(root) / "build" / "cache" / "live" / hashlib.sha256(cache.shared_digest(root).encode()).hexdigest()[:20]
    for name in missing:
        path = folder / f"{name}.json"
        if not path.is_file():
            live.write(folder, [name])
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
        atomic.copy_file(ASSETS / name, static / "live" / name)


def _json_script(element_id: str, text: str, **attrs) -> str:
    extra = "".join(f' data-{k}="{html_attribute(v)}"' for k, v in attrs.items())
    return f'<script type="application/json" id="{element_id}"{extra}>{script_json(text)}</script>'


def machine_script(measured: Path | None) -> str:
    """This machine's measurement file, embedded as it is (but for ``script_json``'s escapes, which
    read back as the same characters; its name in data-file): live.js checks it as a reader's file
    and offers it as "this machine"; nothing when the book had none."""
    if measured is None:
        return ""
    return _json_script("costbook-live-machine", measured.read_text(encoding="utf-8"), file=measured.name)


def page_scripts(data: dict, static_href: str, machine: str = "") -> str:
    """The HTML that ends a page with live estimates: each scheme's data once, this machine's file
    (``machine_script``) if any, then the scripts."""
    blocks = [_json_script(f"costbook-live-data-{name}", text) for name, text in data.items()]
    if machine:
        blocks.append(machine)
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
