"""A copy of the book's Quarto project with the executed chapters in place of the committed ones.

    python -m costbook.book.quarto [--project .] [--notebooks build/chapters] [--out build/quarto-project]

`quarto render` renders the notebooks named in _quarto.yml from the project folder.  `make book`
executes the chapters into build/chapters (the committed ones stay as they are); to render those
with Quarto, this module writes a project folder holding _quarto.yml, every page it lists (a
`.ipynb` chapter from --notebooks when it is there, else the committed one) and every file that
_quarto.yml names (bibliography, stylesheets, theme, resources such as the local MathJax), at
the same relative paths.  `make render` then runs `quarto render` inside it; the book is written
to <out>/_book.  Nothing is taken from the command line but these three folders.
"""
from __future__ import annotations

import argparse
import glob
import shutil
import sys
from pathlib import Path, PurePosixPath

from .project import BookConfigError, load_config, toc

__all__ = ["prepare_project", "main"]

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
    for pattern in (config.get("project") or {}).get("resources") or []:
        found |= {Path(p) for p in glob.glob(str(root / str(pattern)), recursive=True) if Path(p).is_file()}
    return found


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, default=Path("."), help="folder holding _quarto.yml (default: .)")
    ap.add_argument("--notebooks", type=Path, default=None,
                    help="folder of executed chapter copies mirroring the chapter paths (default: <project>/build/chapters)")
    ap.add_argument("--out", type=Path, default=None, help="the copy (default: <project>/build/quarto-project)")
    args = ap.parse_args(argv)
    root = args.project.resolve()
    notebooks = args.notebooks if args.notebooks is not None else root / "build" / "chapters"
    out = args.out if args.out is not None else root / "build" / "quarto-project"
    try:
        written = prepare_project(root, notebooks, out)
    except (BookConfigError, OSError) as e:
        print(f"quarto project: error: {e}", file=sys.stderr)
        return 2
    print(f"Quarto project ({len(written)} files): {out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
