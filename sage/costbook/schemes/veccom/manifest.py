"""What the book keeps for the vector commitments (``costbook.schemes.MANIFEST_API``): read by the
ledger, the comparison chapter and the contract tests, so that no core module names this scheme."""

CHAPTER = "chapters/03-vector-commitments.ipynb"
TITLE = "vector commitments"
SECTION = "sec-vector-commitments"
PUBLISHED_FILES = ("seed-001-veccom",)
BIBLIOGRAPHY = ("seed-veccom", "pointproofs-2020", "repo-pointproofs", "arkworks")
SEED_NOTES = {"001": "seed-veccom"}
SEED_ERRATA = {}
#: the small validation runs tests/test_validation_bounds.py makes (each within the bounds its model states)
VALIDATION_CASES = ({"n": 16},)
