"""What the book keeps for the traceable mixnet (``costbook.schemes.MANIFEST_API``): read by the
ledger, the comparison chapter and the contract tests, so that no core module names this scheme."""

CHAPTER = "chapters/05-traceable-mixnets.ipynb"
TITLE = "traceable mixnet"
SECTION = "sec-mixnets"
PUBLISHED_FILES = ("seed-003-mixnet-baselines", "seed-003-mixnet-traceable")
BIBLIOGRAPHY = ("seed-mixnet", "traceable-mixnets-2024", "repo-traceable-mixnets", "ozdemir-boneh-2022",
                "cpsnark-set-2019", "repo-cpsnarks-set", "terelius-wikstrom-2010", "wikstrom-2009",
                "charm", "gmp", "mcl", "pbc")
SEED_NOTES = {"003": "seed-mixnet"}
SEED_ERRATA = {143: "the seed truncates 43400/500 = 86.8 to 86x"}
#: the small validation runs tests/test_validation_bounds.py makes (each within the bounds its model states)
VALIDATION_CASES = ({"n": 2, "m": 2},)
