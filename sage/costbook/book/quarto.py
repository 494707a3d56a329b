"""A copy of the book's Quarto project with the executed chapters in place of the committed ones.

    python -m costbook.book quarto [--project .] [--notebooks build/chapters] [--out build/quarto-project]

`quarto render` renders the notebooks named in _quarto.yml from the project folder.  `make book`
executes the chapters into build/chapters (the committed ones stay as they are); to render those
with Quarto, this module writes a project folder holding _quarto.yml, every page it lists (a
`.ipynb` chapter from --notebooks when it is there, else the committed one) and every file that
_quarto.yml names (bibliography, stylesheets, theme, resources such as the local MathJax), at
the same relative paths.  `make render` then runs `quarto render` inside it; the book is written
to <out>/_book.  Nothing is taken from the command line but these three folders.
"""
from __future__ import annotations

import glob
import os
import shutil
import sys
import tempfile
from pathlib import Path, PurePosixPath

from .project import BookConfigError, chapter_arguments, chapter_paths, load_config, toc

__all__ = ["prepare_project", "post_render", "main"]

_KEEP = {"_book", ".quarto"}     # Quarto's output and cache from an earlier render of the copy


def _named_files(root: Path, config) -> set[Path]:
    """Files of the project that _quarto.yml names anywhere (as Quarto finds a config's resources:
    any string that is the path of a file), and the globs of project.resources."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value and "\n" not in value and not value.startswith(("/", "http:", "https:")):
            path = root / value
            if path.is_file():
                found.add(path)

    walk(config)
    for pattern in resource_globs(config):
        found |= {Path(p) for p in glob.glob(str(root / pattern), recursive=True) if Path(p).is_file()}
    return found


def resource_globs(config) -> list[str]:
    """project.resources as globs relative to the project root.  Quarto anchors a glob that starts
    with "/" at the root and reads any other as "**/<glob>" (at any depth); the book anchors all of
    them (tests/test_quarto_conformance.py), so here they are read from the root either way."""
    return [str(g).lstrip("/") for g in (config.get("project") or {}).get("resources") or []]


def prepare_project(project_root: Path, notebook_dir: Path | None, out_dir: Path) -> list[Path]:
    """Write the copy into out_dir (its earlier files replaced, Quarto's _book and .quarto kept);
    return the files written."""
    root = Path(project_root).resolve()
    out = Path(out_dir).resolve()
    if out == root or root.is_relative_to(out):
        raise BookConfigError(f"{out}: the copy cannot replace the project itself")
    config = load_config(root)
    files = {}
    for _, chapters in toc(root):
        for rel in chapters:
            rel = PurePosixPath(str(rel))
            executed = Path(notebook_dir).resolve() / rel if notebook_dir is not None else None
            source = executed if rel.suffix == ".ipynb" and executed is not None and executed.is_file() else root / rel
            if not source.is_file():
                raise BookConfigError(f"{root / '_quarto.yml'}: chapter {rel} does not exist")
            files[rel] = source
    for path in _named_files(root, config) | {root / "_quarto.yml"}:
        rel = PurePosixPath(path.relative_to(root).as_posix())
        if ".." not in rel.parts:           # as Quarto, nothing from outside the project
            files.setdefault(rel, path)
    out.mkdir(parents=True, exist_ok=True)
    for child in out.iterdir():
        if child.name not in _KEEP:
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    written = []
    for rel, source in sorted(files.items()):
        dest = out / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        written.append(dest)
    return written


def post_render(root: Path, environ=os.environ) -> int:
    """Quarto's project.post-render step: the book's own PDF as <output-dir>/<output-file>.pdf, the
    file the sidebar's "Download PDF" links.

    After a full render (Quarto sets QUARTO_PROJECT_RENDER_ALL) it copies $COSTBOOK_PDF when that is
    set (make book made the PDF already), else renders the offline book of the project's notebooks
    into a temporary folder and makes its PDF (python -m costbook.book pdf: no Sage, no TeX).  After
    a render of some pages only, the PDF from the last full render stays.  Quarto runs it with
    QUARTO_PYTHON, in the project folder; it prints one line and returns an exit status."""
    from . import interrupt, pdf, render
    from ..system import atomic
    output_dir = environ.get("QUARTO_PROJECT_OUTPUT_DIR")
    if not output_dir:
        print("post-render: error: QUARTO_PROJECT_OUTPUT_DIR is not set (quarto render runs this step)", file=sys.stderr)
        return 2
    root = Path(root).resolve()
    out = root / output_dir
    try:
        dest = out / render.pdf_name(load_config(root))
        if environ.get("QUARTO_PROJECT_RENDER_ALL") != "1":
            print(f"post-render: some pages only; {dest.name} is the last full render's")
            return 0
        made = environ.get("COSTBOOK_PDF")
        with interrupt.raised_as_exception():
            if made:
                if not Path(made).is_file():
                    raise BookConfigError(f"COSTBOOK_PDF={made}: no such file")
                atomic.copy_file(Path(made), dest)
            else:
                with tempfile.TemporaryDirectory(prefix="costbook-pdf-") as tmp:
                    render.render_book(root, Path(tmp) / "book", root)
                    atomic.copy_file(pdf.build_pdf(root, Path(tmp) / "book", Path(tmp) / dest.name), dest)
    except (BookConfigError, render.RenderError, pdf.PdfError, OSError) as e:
        print(f"post-render: error: {e}", file=sys.stderr)
        return 2
    except interrupt.Interrupted as e:
        interrupt.say(f"{e.name} while writing {dest}; the PDF there is whole, from this render or the one before")
        interrupt.exit_by(e.signum)
    print(f"post-render: {dest.relative_to(root) if dest.is_relative_to(root) else dest} "
          f"({'copied from ' + made if made else 'the offline book made into a PDF'})")
    return 0


def main(argv=None) -> int:
    ap = chapter_arguments(__doc__.split("\n\n")[0], "quarto-project", "the copy")
    root, notebooks, out = chapter_paths(ap.parse_args(argv))
    try:
        written = prepare_project(root, notebooks, out)
    except (BookConfigError, OSError) as e:
        print(f"quarto project: error: {e}", file=sys.stderr)
        return 2
    print(f"Quarto project ({len(written)} files): {out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
