"""The offline book as one PDF, without TeX: its HTML pages -> pandoc -> Typst -> the typst compiler.

    python -m costbook.book pdf [--project .] [--book build/book] [--out build/book/costbook.pdf]

The PDF is made from the pages the offline renderer wrote (render.py), not from the notebooks a
second time: chapter, section, figure and table numbers, captions, cross-references, citation
labels and the reference list are the offline book's own, so the two cannot disagree.  What this
module adds is only what paper needs:

  * the pages in _quarto.yml's order (parts and the appendices as the book lists them) as one
    document, every element id prefixed by its page (`02-punch-cards--fig-x`) and every link
    between pages turned into a link inside the PDF; a citation links to its entry in the one
    reference list (the per-page lists of the HTML book are left out);
  * the TeX that MathJax typesets in the browser (`$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`,
    as the pages' MathJax configuration reads it: `\\$` is a dollar, `tex2jax_ignore` and code
    are not mathematics) handed to pandoc as math, which pandoc writes as Typst math;
  * figures (data: URIs in the pages) written out as files for Typst; the live estimates, which
    need a browser, replaced by a sentence saying where they run; folded code left out;
  * the Typst preamble (templates/book.typ): page layout, a title page, the contents, chapters on
    new pages, figure and table captions as the HTML book numbers them (Typst's own numbering is
    off), and tables narrowed to the text width: a smaller type for many columns, and a table
    still wider than the page scaled down to it, never cut.

pandoc is the pinned pypandoc-binary's, Typst the pinned `typst` wheel's (fonts embedded): no TeX,
no network.  A PDF newer than every page it is made from is not made again.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import html
import posixpath
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup, NavigableString, Tag

from ..system import children
from . import interrupt
from .project import BookConfigError, load_config, toc
from .render import pdf_name

HERE = Path(__file__).resolve().parent
PREAMBLE = HERE / "templates" / "book.typ"
LIVE_NOTE = ("The live estimate of this section re-prices the steps in the page as the reader changes "
             "the machine or the parameters; it runs in the HTML book.")

__all__ = ["build_pdf", "book_typst", "PdfError", "main"]


class PdfError(RuntimeError):
    """The PDF cannot be made; the message names the page or the tool."""


# --------------------------------------------------------------------------------------
# Mathematics as MathJax reads it
# --------------------------------------------------------------------------------------

# $$...$$ and \[...\] (display), $...$ and \(...\) (inline), \$ (a dollar sign), in that order of
# preference at each position, as MathJax's TeX input with processEscapes scans a text node.
# Inside $...$ and $$...$$ an escaped character (`\$` in `\xleftarrow{\$}`, `\{`) is part of the TeX,
# never a delimiter: MathJax skips escapes while it looks for the closing dollar.
_MATH = re.compile(r"\\\$|\$\$(?P<dd>(?:\\.|[^\\])+?)\$\$|\\\[(?P<bd>.+?)\\\]|\$(?P<di>(?:\\.|[^$\\])+?)\$"
                   r"|\\\((?P<bi>.+?)\\\)", re.S)
_SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.S | re.I)
_NO_MATH = {"code", "pre", "script", "style", "textarea", "kbd", "samp"}
_NO_MATH_CLASS = {"tex2jax_ignore", "nomath", "math"}


def _skips_math(node) -> bool:
    for parent in node.parents:
        if not isinstance(parent, Tag):
            continue
        if parent.name in _NO_MATH or _NO_MATH_CLASS & set(parent.get("class") or []):
            return True
    return False


def mark_math(soup: BeautifulSoup) -> None:
    """Wrap each TeX formula of the text in the span pandoc's HTML reader takes for math."""
    for text in list(soup.find_all(string=True)):
        if type(text) is not NavigableString or ("$" not in text and "\\" not in text) or _skips_math(text):
            continue
        pieces, last = [], 0
        for m in _MATH.finditer(text):
            pieces.append(str(text[last:m.start()]))
            last = m.end()
            if m.group(0) == "\\$":
                pieces.append("$")
                continue
            display = m.group("dd") is not None or m.group("bd") is not None
            tex = next(g for g in (m.group("dd"), m.group("bd"), m.group("di"), m.group("bi")) if g is not None)
            # the TeX in an attribute, as it is (pandoc's HTML reader would re-space the text)
            pieces.append(soup.new_tag("span", attrs={"class": f"math {'display' if display else 'inline'}",
                                                      "data-tex": tex.strip()}))
            continue
        if last == 0:
            continue
        pieces.append(str(text[last:]))
        for piece in pieces:
            if isinstance(piece, str) and not piece:
                continue
            text.insert_before(piece if isinstance(piece, Tag) else NavigableString(piece))
        text.extract()


# --------------------------------------------------------------------------------------
# Pages -> one document
# --------------------------------------------------------------------------------------

def book_pages(root: Path) -> list[tuple[str | None, str]]:
    """(part title, page path relative to the book) in the order _quarto.yml lists them."""
    return [(part, PurePosixPath(str(rel)).with_suffix(".html").as_posix()) for part, files in toc(root) for rel in files]


def page_key(href: str) -> str:
    """A page's prefix for the ids it holds: chapters/02-punch-cards.html -> 02-punch-cards."""
    return PurePosixPath(href).with_suffix("").name


def _target(href: str, page: str, pages: set[str]) -> str | None:
    """A link's anchor inside the PDF, or None for a link that leaves the book."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
        return None
    path, _, frag = href.partition("#")
    dest = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
    if dest not in pages:
        return None
    if frag.startswith("ref-"):
        return f"references--{frag}"        # the one reference list
    return f"{page_key(dest)}--{frag}" if frag else f"{page_key(dest)}--page"


class _Media:
    """Images of the pages (data: URIs) as files beside the Typst source, one per distinct image."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.count = 0

    def __call__(self, src: str) -> str | None:
        m = re.match(r"data:image/(png|jpeg|svg\+xml);base64,(.*)", src, re.S)
        if not m:
            return None
        data = base64.b64decode(re.sub(r"\s+", "", m.group(2)))
        ext = {"png": "png", "jpeg": "jpg", "svg+xml": "svg"}[m.group(1)]
        name = f"img-{hashlib.sha256(data).hexdigest()[:16]}.{ext}"
        path = self.folder / name
        if not path.exists():
            path.write_bytes(data)
            self.count += 1
        return name


def page_fragment(text: str, href: str, part: str | None, pages: set[str], media: _Media, *,
                  keep_references: bool) -> str:
    """One page of the offline book as the HTML fragment it contributes to the PDF."""
    # the pages' scripts (MathJax's configuration, the live estimates' data) are not for paper; their
    # JSON has <, > and & as \u escapes, so no "</script" ends one early
    soup = BeautifulSoup(_SCRIPT.sub("", text), "html.parser")
    main = soup.find("main")
    if main is None:
        raise PdfError(f"{href}: no <main> element (not a page of the offline book)")
    title = main.find("h1", class_="title")
    body = main.find("article", class_="chapter-body")
    if title is None or body is None:
        raise PdfError(f"{href}: no chapter title or body")
    key = page_key(href)

    for live in body.select("div.costbook-live"):
        note = soup.new_tag("p", attrs={"class": "live-note"})
        em = soup.new_tag("em")
        em.string = LIVE_NOTE
        note.append(em)
        live.replace_with(note)
    for tag in body.find_all(["script", "style", "input", "select", "button"]):
        tag.decompose()
    for folded in body.select("details.code-fold"):   # code the HTML folds away (tables, plots): not printed
        folded.decompose()
    for summary in body.find_all("summary"):
        summary.decompose()
    for details in body.find_all("details"):
        details.unwrap()
    for anchor in body.select("a.anchor"):          # the "#" after each heading
        anchor.decompose()
    if not keep_references:                         # the PDF has one reference list
        for refs in body.select("section#references"):
            refs.decompose()
    for img in body.find_all("img"):
        name = media(img.get("src", ""))
        if name is None:
            img.decompose()
            continue
        img["src"] = name
        for attr in ("width", "height", "style"):
            img.attrs.pop(attr, None)
    for tag in body.find_all(id=True):
        tag["id"] = f"{key}--{tag['id']}"
    for a in body.find_all("a", href=True):
        target = _target(a["href"], href, pages)
        if target is not None:
            a["href"] = f"#{target}"
    mark_math(body)

    head = soup.new_tag("h1", id=f"{key}--page")
    number = title.find(class_="chapter-number")
    classes = ["unnumbered"]
    if number is not None:
        head["data-number"] = number.get_text(strip=True)
        number.decompose()
        classes.append("numbered-chapter")
    head["class"] = classes
    for child in list((title.find(class_="chapter-title") or title).contents):
        head.append(child)
    mark_math(head)
    out = []
    if part:
        out.append(f'<div class="part" data-part="{html.escape(part)}"></div>')
    out.append(str(head))
    out.append(body.decode_contents())
    return "\n".join(out)


def book_html(root: Path, book_dir: Path, media: _Media) -> str:
    """The whole book as one HTML document for pandoc."""
    order = book_pages(root)
    pages = {href for _, href in order}
    seen_parts, fragments = set(), []
    for part, href in order:
        path = book_dir / href
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise PdfError(f"{path}: cannot read the offline book's page ({e}); run the offline renderer first") from None
        new_part = part if part and part not in seen_parts else None
        seen_parts.add(part)
        fragments.append(page_fragment(text, href, new_part, pages, media,
                                       keep_references=page_key(href) == "references"))
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>book</title></head><body>\n" + \
        "\n".join(fragments) + "\n</body></html>\n"


# --------------------------------------------------------------------------------------
# pandoc and Typst
# --------------------------------------------------------------------------------------

def _pandoc() -> str:
    try:
        import pypandoc
        return pypandoc.get_pandoc_path()
    except (ImportError, OSError) as e:
        raise PdfError(f"pandoc not found: install pypandoc-binary (it is in requirements.txt) ({e})") from None


LUA_FILTER = HERE / "templates" / "book-typst.lua"


def book_typst(root: Path, book_dir: Path, work: Path) -> Path:
    """Write the book's Typst source (and its images) into `work`; return the .typ file."""
    config = load_config(root)
    book = config.get("book") or {}
    media = _Media(work)
    source = work / "book.html"
    source.write_text(book_html(root, book_dir, media), encoding="utf-8")
    body = work / "body.typ"
    done = subprocess.run([_pandoc(), str(source), "--from", "html", "--to", "typst",
                           "--lua-filter", str(LUA_FILTER), "--wrap", "none", "--output", str(body)],
                          capture_output=True, text=True, timeout=300, preexec_fn=children.die_with_parent)
    if done.returncode != 0:
        raise PdfError(f"pandoc: {done.stderr.strip()[-2000:]}")
    authors = book.get("author")
    if isinstance(authors, list):
        authors = ", ".join(str(a.get("name", a)) if isinstance(a, dict) else str(a) for a in authors)
    main = work / "book.typ"

    def typst_string(value) -> str:
        return '"' + str(value or "").replace("\\", "\\\\").replace('"', '\\"') + '"'

    main.write_text(PREAMBLE.read_text(encoding="utf-8")
                    + f"\n#show: book.with(title: {typst_string(book.get('title'))}, "
                      f"subtitle: {typst_string(book.get('subtitle'))}, author: {typst_string(authors)})\n\n"
                    + body.read_text(encoding="utf-8"), encoding="utf-8")   # one file: the body calls the preamble's functions
    return main


def compile_typst(main: Path, out: Path) -> None:
    try:
        import typst
    except ImportError as e:
        raise PdfError(f"typst not found: install the typst package (it is in requirements.txt) ({e})") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    try:
        typst.compile(str(main), output=str(tmp), root=str(main.parent))
    except BaseException as e:      # typst.TypstError and friends: the compiler's own message
        tmp.unlink(missing_ok=True)
        if not isinstance(e, Exception):          # an interrupt: no half PDF left behind
            raise
        raise PdfError(f"typst: {str(e).strip()[-3000:]}") from None
    tmp.replace(out)


def build_pdf(root: Path, book_dir: Path, out: Path | None = None, *, keep: Path | None = None) -> Path:
    """The PDF of the offline book in book_dir (rendered from root's _quarto.yml); `keep` keeps the
    Typst source in that folder."""
    root, book_dir = Path(root).resolve(), Path(book_dir).resolve()
    out = Path(out).resolve() if out is not None else book_dir / pdf_name(load_config(root))
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        compile_typst(book_typst(root, book_dir, keep), out)
    else:
        with tempfile.TemporaryDirectory(prefix="costbook-pdf-") as work:
            try:
                compile_typst(book_typst(root, book_dir, Path(work)), out)
            except interrupt.Interrupted:
                # make passes a SIGTERM to the group on to its child again: a second signal must not
                # cut the folder's removal short, and pandoc must not write into it meanwhile
                interrupt.wind_down()
                raise
    return out


def inputs_digest(root: Path, book_dir: Path) -> str:
    """What the PDF is made from: the pages (their bytes: the offline renderer writes the same pages
    from the same chapters), this module, its preamble and filter, and the two tools' versions."""
    import importlib.metadata as md
    h = hashlib.sha256()
    for path in [*(book_dir / href for _, href in book_pages(root)), Path(__file__), PREAMBLE, LUA_FILTER]:
        h.update(str(path.name).encode() + b"\0" + path.read_bytes() + b"\0")
    for package in ("pypandoc-binary", "typst"):
        try:
            h.update(f"{package}=={md.version(package)}".encode())
        except md.PackageNotFoundError:
            pass
    return h.hexdigest()


def _stamp(out: Path) -> Path:
    return out.with_name(f".{out.name}.inputs")


def up_to_date(root: Path, book_dir: Path, out: Path) -> bool:
    """True when the PDF was made from exactly these inputs (make book re-renders the pages each time)."""
    try:
        return out.is_file() and _stamp(out).read_text(encoding="utf-8").strip() == inputs_digest(root, book_dir)
    except OSError:
        return False


def page_count(pdf: Path) -> int:
    from pypdf import PdfReader
    return len(PdfReader(pdf).pages)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, default=Path("."), help="folder holding _quarto.yml (default: .)")
    ap.add_argument("--book", type=Path, default=None, help="the offline book (default: <project>/build/book)")
    ap.add_argument("--out", type=Path, default=None, help="the PDF (default: <book>/<book.output-file>.pdf)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the Typst source and images in this folder")
    args = ap.parse_args(argv)
    root = args.project.resolve()
    book_dir = (args.book if args.book is not None else root / "build" / "book").resolve()
    try:
        out = (args.out if args.out is not None else book_dir / pdf_name(load_config(root))).resolve()
        if args.keep is None and up_to_date(root, book_dir, out):
            print(f"PDF (unchanged): {out}")
            return 0
        start = time.perf_counter()
        digest = inputs_digest(root, book_dir)
        _stamp(out).unlink(missing_ok=True)
        with interrupt.raised_as_exception():
            build_pdf(root, book_dir, out, keep=args.keep)
        _stamp(out).write_text(digest + "\n", encoding="utf-8")
    except interrupt.Interrupted as e:       # pandoc is ended with us; the work folder is removed
        interrupt.wind_down()
        interrupt.say(f"{e.name} while making the PDF; {out} is the earlier one, or none")
        interrupt.exit_by(e.signum)
    except (BookConfigError, PdfError) as e:
        print(f"pdf: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"pdf: error: {e.filename or ''}: {e.strerror or e} (render the offline book first)", file=sys.stderr)
        return 2
    print(f"PDF ({page_count(out)} pages, {out.stat().st_size / 1e6:.1f} MB, {time.perf_counter() - start:.0f} s): {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
