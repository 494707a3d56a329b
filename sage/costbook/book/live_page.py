"""The live estimate in the offline book: a chapter's live block becomes the same widget, offline.

A chapter holds its live estimate as a raw HTML block in a markdown cell (no OJS: Quarto numbers the
OJS blocks of a .ipynb by no source line, and warns "OJS block count mismatch" for each)::

    ```{=html}
    <div class="costbook-live" data-live="veccom"></div>
    <script src="../sage/costbook/book/assets/live/pricing.js"></script>
    <script src="../sage/costbook/book/assets/live/live.js"></script>
    <script>costbookLive.mountAll(costbookPricing);</script>
    ```

Quarto passes it through as it is; the page then fetches ``live/<scheme>.json`` beside it (the
committed export, ``chapters/live/<scheme>.json``, a project resource), which needs the book served
over HTTP.  This renderer replaces the block by the ``<div>`` alone, embeds the schemes' data in the
page as ``<script type="application/json">`` (a page opened from file:// may not fetch() a file;
"<", ">" and "&" as \\u escapes, ``escape.script_json``, so that no string in it ends the element or
hides the scripts after it) and loads the same two scripts, pricing.js and live.js, as classic
scripts from ``_static/live/``, once per page.  The data is the committed export (a scheme without
one is exported here, ``costbook.book.live``, and kept in build/cache/live/ under the digest of its
inputs).  When the book was made with this machine's measurement, the file itself is embedded too
(``machine_script``): the page checks it with ``costbook check``'s rules and offers it as a machine,
priced the way a reader's own file is, so offering it costs no export (the node test holds that way
of pricing to the CLI).
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from ..system import atomic
from . import live
from .. import registry
from ..system.escape import html_attribute, script_json
from . import cache

ASSETS = Path(__file__).resolve().parent / "assets" / "live"
ASSETS_PATH = "sage/costbook/book/assets/live"   # the same folder from the project's root (a Quarto resource)
SCRIPTS = ("pricing.js", "live.js")
KEEP = 4                             # exports kept in build/cache/live (other code)
COMMITTED = "chapters/live"          # the exports Quarto's pages fetch (live/<scheme>.json beside the page)
RAW_HTML_BLOCK = re.compile(r"^```\{=html\}[ \t]*\n(.*?)^```[ \t]*$\n?", re.S | re.M)
WIDGET = re.compile(r"""<div\s+class="costbook-live"\s+data-live="([a-z0-9_ ]+|\*)"\s*>\s*</div>""")


def replace_blocks(source: str) -> tuple[str, list]:
    """A markdown cell's text with each raw HTML block that holds a live estimate replaced by the
    widget's container alone (this renderer loads the scripts once, at the end of the page), and the
    schemes named."""
    names = []

    def swap(m):
        # "*": every scheme of the book (the closing chapter's widget), as the registry finds them
        found = [n for w in WIDGET.findall(m.group(1))
                 for n in (registry.in_book_order() if w == live.EVERY_SCHEME else w.split())]
        if not found:
            return m.group(0)
        names.extend(n for n in found if n not in names)
        return f'<div class="costbook-live" data-live="{" ".join(found)}"></div>\n'

    return RAW_HTML_BLOCK.sub(swap, source), names


def prepare(notebook) -> list:
    """Replace the live blocks of a chapter's markdown cells in place; returns the schemes it shows."""
    names = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and "costbook-live" in cell.source:
            cell.source, found = replace_blocks(cell.source)
            names.extend(n for n in found if n not in names)
    return names


def block(names) -> str:
    """The live block of a chapter that shows `names` (what its markdown cell holds): the container,
    the two scripts by their path from the page (chapters/*.html, in both books), and the mount."""
    return ("```{=html}\n"
            f'<div class="costbook-live" data-live="{" ".join(names)}"></div>\n'
            + "".join(f'<script src="../{ASSETS_PATH}/{s}"></script>\n' for s in SCRIPTS)
            + "<script>costbookLive.mountAll(costbookPricing);</script>\n```\n")


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
