"""What the book keeps for CS03 (``costbook.schemes.MANIFEST_API``): read by the ledger, the
comparison chapter and the contract tests, so that no core module names this scheme."""

CHAPTER = "chapters/04-verifiable-encryption.ipynb"
TITLE = "CS03 verifiable encryption"
SECTION = "sec-cs03"
PUBLISHED_FILES = ("seed-002-crypto-bigint", "seed-002-cs03-estimates")
BIBLIOGRAPHY = ("seed-cs03", "camenisch-shoup-2003", "takahashi-zaverucha-2024", "repo-verenc-mpcith",
                "crypto-bigint", "emmy", "gmp", "pari-gp", "libsodium", "rfc9496")
#: its seed note, by the number its file name starts with -> bib key; the note ships in this folder
#: (002_2157a55422b8ccfc.txt: the benchmark note the book started from, copied unchanged from the project's seed notes)
SEED_NOTES = {"002": "seed-cs03"}
SEED_ERRATA = {}
#: the small validation runs the test gate makes (tests/test_validation_bounds.py)
VALIDATION_CASES = ({"params": "aggressive"},)
#: the validation runs committed as evidence of the model's error (python -m costbook.calibration.calibrate): the
#: gate's, and the conservative set, which judges the aggressive one's interval and is judged by it
CALIBRATION_CASES = ({"params": "aggressive"}, {"params": "conservative"})
#: the values the book's page offers (python -m costbook.book.live): moduli across their bounds (0: the
#: parameter set's), the challenge length (0: the model's), k' and |rho| at the CLI's defaults only
LIVE_GRID = {"modulus_bits": (0, 2048, 3072, 4096, 6144, 8192, 12288, 16384), "k": (0, 128, 256),
             "k_prime": (128,), "rho_bits": (256,)}
#: the what-if plot's default axis: the modulus size, as the chapter's what-if figures
LIVE_AXIS = "modulus_bits"
