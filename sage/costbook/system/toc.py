"""The book's chapter list, read from _quarto.yml (the one table of contents).

Low in the layering: the registry checks each scheme's chapter against it, and the book's
renderer, runner and Quarto checks read the same list."""
from __future__ import annotations

from pathlib import Path

import yaml


class BookConfigError(ValueError):
    """_quarto.yml is missing or does not describe a book."""


def load_config(root: Path) -> dict:
    path = Path(root) / "_quarto.yml"
    try:
        config = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise BookConfigError(f"{path}: not found") from None
    except yaml.YAMLError as e:
        raise BookConfigError(f"{path}: not valid YAML ({e})") from None
    chapters = (config or {}).get("book", {}).get("chapters") if isinstance(config, dict) else None
    if not chapters:
        raise BookConfigError(f"{path}: no book.chapters list")
    return config


APPENDICES = "Appendices"


def appendices(root: Path) -> list:
    """The chapter paths listed under book.appendices (Quarto letters them A, B, ...)."""
    items = load_config(root)["book"].get("appendices") or []
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise BookConfigError(f"{Path(root) / '_quarto.yml'}: book.appendices must be a list of chapter files")
    return [Path(i) for i in items]


def toc(root: Path) -> list:
    """[(part title or None, [chapter paths])] in book order; appendices last, as the part "Appendices"."""
    out, loose = [], []
    for item in load_config(root)["book"]["chapters"]:
        if isinstance(item, str):
            loose.append(Path(item))
        elif isinstance(item, dict) and "part" in item:
            if loose:
                out.append((None, loose))
                loose = []
            out.append((item["part"], [Path(c) for c in item.get("chapters") or []]))
        else:
            raise BookConfigError(f"{Path(root) / '_quarto.yml'}: cannot read chapter entry {item!r}")
    if loose:
        out.append((None, loose))
    extra = appendices(root)
    if extra:
        out.append((APPENDICES, extra))
    return out


def chapter_files(root: Path) -> list:
    """Every chapter path, in order, checked to exist."""
    files = [c for _, chapters in toc(root) for c in chapters]
    for f in files:
        if not (Path(root) / f).exists():
            raise BookConfigError(f"{Path(root) / '_quarto.yml'}: chapter {f} does not exist")
    return files
