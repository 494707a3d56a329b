"""The book's bibliography (references.bib) and the labels pandoc's citeproc gives its works.

Low in the layering: the tables of every chapter (``costbook.writing.report``) label a citation as the
rendered book does, and the book's renderer (``costbook.book.citations``) formats the pages with the
same labels.  Every entry is cited together in one citeproc run, so a work that shares authors and
year with another gets the one suffix (2021a, 2021b) it has on every page.
"""
from __future__ import annotations

import re
from pathlib import Path


class CitationError(ValueError):
    """A citation names a key the bibliography does not have, or pandoc is missing."""


_BIB_KEY = re.compile(r"^\s*@(\w+)\s*\{\s*([^,\s]+)\s*,", re.M)
_YEAR_SUFFIX = re.compile(r"(\d{4}|n\.d\.)-?[a-z]\b")


class Bibliography:
    """A .bib file and the pandoc that formats citations against it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError as e:
            raise CitationError(f"{self.path}: cannot read the bibliography ({e})") from None
        self.keys = {key for kind, key in _BIB_KEY.findall(text) if kind.lower() not in ("comment", "string", "preamble")}
        if not self.keys:
            raise CitationError(f"{self.path}: no BibTeX entries")

    def _pandoc(self, markdown: str, to: str = "html") -> str:
        try:
            import pypandoc
        except ImportError:
            raise CitationError("pandoc not found: install pypandoc-binary (it is in requirements.txt); "
                                "citations are formatted by pandoc's citeproc") from None
        return pypandoc.convert_text(markdown, to, format="markdown",
                                     extra_args=["--citeproc", f"--bibliography={self.path}",
                                                 "--metadata=link-citations=true",
                                                 "--metadata=reference-section-title=", "--wrap=none"])

    def check(self, citations, where: str) -> None:
        unknown = sorted({k for _, keys in citations for k in keys if k not in self.keys})
        if unknown:
            raise CitationError(f"{where}: unknown citation key{'s' if len(unknown) > 1 else ''} "
                                f"{', '.join(unknown)} (not in {self.path.name})")

    def labels(self) -> dict[str, str]:
        """key -> its label ("Eskandarian 2021a"), every entry cited together in one citeproc run."""
        if getattr(self, "_labels", None) is None:
            keys = sorted(self.keys)
            doc = "\n\n".join(f"CITE{i}: [@{k}]" for i, k in enumerate(keys))
            out = self._pandoc(doc, to="plain")
            found = dict(re.findall(r"^CITE(\d+): \((.*?)\)\s*$", out, re.M))
            self._labels = {k: found[str(i)] for i, k in enumerate(keys) if str(i) in found}
        return dict(self._labels)

    def ambiguous_keys(self) -> list[str]:
        """Entries whose label needs a year suffix (same authors and year as another entry).  Each page
        that Quarto formats alone must count all of them as cited (the project's `nocite`) for its
        suffixes to be the book's."""
        return sorted(k for k, label in self.labels().items() if _YEAR_SUFFIX.search(label))
