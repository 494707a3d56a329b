"""What the book keeps for CS03 (``costbook.schemes.MANIFEST_API``): read by the ledger, the
comparison chapter and the contract tests, so that no core module names this scheme."""

CHAPTER = "chapters/04-verifiable-encryption.ipynb"
TITLE = "CS03 verifiable encryption"
SECTION = "sec-cs03"
PUBLISHED_FILES = ("seed-002-crypto-bigint", "seed-002-cs03-estimates")
BIBLIOGRAPHY = ("seed-cs03", "camenisch-shoup-2003", "takahashi-zaverucha-2024", "repo-verenc-mpcith",
                "crypto-bigint", "emmy", "gmp", "pari-gp", "libsodium", "rfc9496")
SEED_NOTES = {"002": "seed-cs03"}
SEED_ERRATA = {}
#: the small validation runs tests/test_validation_bounds.py makes (each within the bounds its model states)
VALIDATION_CASES = ({"params": "aggressive"},)
