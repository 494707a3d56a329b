"""What the book keeps for the vector commitments (``costbook.schemes.MANIFEST_API``): read by the
ledger, the comparison chapter and the contract tests, so that no core module names this scheme."""

CHAPTER = "chapters/03-vector-commitments.ipynb"
TITLE = "vector commitments"
SECTION = "sec-vector-commitments"
PUBLISHED_FILES = ("seed-001-veccom",)
BIBLIOGRAPHY = ("seed-veccom", "pointproofs-2020", "repo-pointproofs", "arkworks")
#: its seed note, by the number its file name starts with -> bib key; the note ships in this folder
#: (001_9e90762f00ccf010.txt: the benchmark note the book started from, copied unchanged from the project's seed notes)
SEED_NOTES = {"001": "seed-veccom"}
SEED_ERRATA = {}
#: the small validation runs tests/test_validation_bounds.py makes (each within the bounds its model states)
VALIDATION_CASES = ({"n": 16},)
#: the validation runs committed as evidence of the model's error (python -m costbook.calibration.calibrate): the
#: sizes the chapter validates and two more, so that each size's interval is judged by the others
CALIBRATION_CASES = ({"n": 16}, {"n": 64}, {"n": 256}, {"n": 1024})
#: the values of n the book's page offers (python -m costbook.book.live): every power of two up to the
#: bound, and the powers of ten the chapter uses
LIVE_GRID = {"n": tuple(sorted({1 << e for e in range(1, 21)} | {10, 100, 1000, 10_000, 100_000, 1_000_000}))}
#: the what-if plot's default axis: the vector length, as the chapter's what-if figures
LIVE_AXIS = "n"
