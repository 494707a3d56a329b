"""A notebook chapter's cells to HTML, through nbconvert's own exporter, templates and preprocessors.

nbconvert does the work: its `TemplateExporter` walks the cells and outputs with the block
structure of its `display_priority.j2` template (one representation per output, in the order of
`display_data_priority`), highlights code with its `highlight_code` filter (Pygments), colours
streams and tracebacks with `ansi2html`, merges consecutive stream outputs and `\\r` progress
bars (`CoalesceStreamsPreprocessor`) and drops cells, inputs and outputs tagged `remove-cell`,
`remove-input`, `remove-output` (`TagRemovePreprocessor`).  templates/chapter.html.j2
only says which HTML each block becomes (the class names costbook.css styles).

The book's own part is one small preprocessor, `QuartoCellOptions`: Quarto's leading `#|` lines
(`include`/`echo`/`output: false` become the three tags above, `warning: false` drops stderr,
`code-fold`/`code-summary`, `label`, `fig-cap`/`fig-alt`/`tbl-cap`), and three filters: the
chapter's Markdown (markdown.py), captions (numbered by markdown.ChapterMarkdown.caption as the page
is written, so figures and tables count in page order) and dropping external <script>/<link> tags
from HTML outputs (the book must work offline).
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml
from jinja2 import pass_context
from nbconvert.exporters import TemplateExporter
from nbconvert.filters import Highlight2HTML
from nbconvert.preprocessors import CoalesceStreamsPreprocessor, Preprocessor, TagRemovePreprocessor
from nbconvert.utils.base import NbConvertBase
from traitlets import Any, Dict
from traitlets.config import Config

from .project import warn

TEMPLATES = Path(__file__).resolve().parent / "templates"
OUTPUT_PRIORITY = ["text/html", "image/svg+xml", "image/png", "image/jpeg",
                   "text/markdown", "text/latex", "text/plain"]
_OPTION_LINE = re.compile(r"^\s*#\|\s?(.*)$")
_EXTERNAL_TAG = re.compile(r"<(script|link)\b[^>]*\b(?:src|href)\s*=\s*['\"]?\s*(?:https?:)?//[^>]*>"
                           r"(?:\s*</script\s*>)?", re.I)
_MPL_REPR = re.compile(r"\s*<(Figure size|matplotlib\.|Graphics object)")   # reprs, not descriptions


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
        warn(f"{where}: cannot read the cell's #| options ({e}); ignoring them")
        parsed = {}
    return (parsed if isinstance(parsed, dict) else {}), "\n".join(lines).strip("\n")


def shown_mime(output) -> str | None:
    """The representation nbconvert's display_priority.j2 picks for an output."""
    return next((m for m in OUTPUT_PRIORITY if m in output.get("data", {})), None)


class QuartoCellOptions(Preprocessor):
    """`#|` options to nbconvert's remove-* tags and to `cell.metadata.costbook` for the template."""

    source_name = Any("")        # the chapter file, for warnings
    book_html = Dict()           # _quarto.yml format.html (book-wide code-fold, code-summary)
    plain_alt = Any(None)        # caption Markdown -> plain text (ChapterMarkdown.plain)

    def preprocess_cell(self, cell, resources, index):
        where = f"{self.source_name} cell {index + 1}"     # numbered before any cell is removed
        cell.metadata.costbook = {"where": where}
        if cell.cell_type == "raw" and cell.metadata.get("costbook_front_matter"):
            cell.metadata.setdefault("tags", []).append("remove-cell")
        if cell.cell_type != "code":
            return cell, resources
        opts, cell.source = cell_options(cell.source, where)
        tags = cell.metadata.setdefault("tags", [])
        for option, tag in (("include", "remove-cell"), ("echo", "remove-input"), ("output", "remove-output")):
            if opts.get(option, True) is False:
                tags.append(tag)
        if opts.get("warning", True) is False:
            cell.outputs = [o for o in cell.get("outputs", []) if o.get("name") != "stderr"]
        label = str(opts.get("label", "")) or None
        fold = opts.get("code-fold", "hide-input" in tags or self.book_html.get("code-fold", False))
        cell.metadata.costbook.update({
            "fold": "show" if fold == "show" else bool(fold in (True, "true")),
            "summary": str(opts.get("code-summary", self.book_html.get("code-summary", "Code"))),
            "id": label if label and not label.startswith(("fig-", "tbl-")) else None,
        })
        fig_cap, tbl_cap = opts.get("fig-cap"), opts.get("tbl-cap")
        alt = opts.get("fig-alt") or fig_cap
        for o in cell.get("outputs", []):
            mime = shown_mime(o)
            if mime is None:
                continue
            if mime.startswith("image/") and mime != "image/svg+xml":
                plain = "".join(o.data.get("text/plain", ""))
                o.metadata["alt"] = (self.plain_alt(str(alt)) if alt else
                                     "figure" if not plain or _MPL_REPR.match(plain) else plain[:200])
            if fig_cap and mime.startswith("image/"):
                o.metadata["costbook_caption"] = ("Figure", fig_cap, label, "fig-")
                fig_cap = None
            elif tbl_cap and mime == "text/html" and "<table" in "".join(o.data[mime]):
                o.metadata["costbook_caption"] = ("Table", tbl_cap, label, "tbl-")
                tbl_cap = None
        return cell, resources


def strip_external(fragment: str, where: str) -> str:
    def drop(m):
        warn(f"{where}: dropped an output's external <{m.group(1).lower()}> tag (the book must work offline)")
        return ""
    return _EXTERNAL_TAG.sub(drop, fragment)


def render_cells(notebook, source_name: str, book_html: dict, markdown) -> str:
    """The notebook's cells as HTML; `markdown` is the chapter's markdown.ChapterMarkdown (it renders
    prose, numbers captions and gives a caption as plain text)."""
    exporter = TemplateExporter(template_name="base", extra_template_paths=[str(TEMPLATES)],
                                template_file="chapter.html.j2", exclude_input_prompt=True,
                                exclude_output_prompt=True,
                                config=Config(NbConvertBase={"display_data_priority": OUTPUT_PRIORITY}))
    exporter.output_mimetype = "text/html"
    language = notebook.metadata.get("language_info", {})   # as nbconvert's HTMLExporter picks the lexer
    exporter.register_filter("highlight_code", Highlight2HTML(
        pygments_lexer=language.get("pygments_lexer", language.get("name")), parent=exporter))
    exporter.register_preprocessor(QuartoCellOptions(source_name=source_name, book_html=book_html,
                                                     plain_alt=markdown.plain), enabled=True)
    exporter.register_preprocessor(TagRemovePreprocessor(
        remove_cell_tags={"remove-cell"}, remove_input_tags={"remove-input"},
        remove_all_outputs_tags={"remove-output"}), enabled=True)
    exporter.register_preprocessor(CoalesceStreamsPreprocessor(), enabled=True)

    @pass_context
    def markdown_filter(context, source):
        return markdown(source, context.get("cell", {}).get("attachments"))

    def caption_filter(rendered, output):
        spec = output.get("metadata", {}).get("costbook_caption")
        return markdown.caption(rendered, *spec) if spec else rendered

    exporter.register_filter("markdown2html", markdown_filter)
    exporter.register_filter("caption", caption_filter)
    exporter.register_filter("strip_external", pass_context(
        lambda context, fragment: strip_external(fragment, context["cell"].metadata.costbook.where)))
    body, _ = exporter.from_notebook_node(notebook)
    return body
