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
#: the small validation run the test gate makes (tests/test_validation_bounds.py).  Its steps' errors move
#: between processes (the G1 multiplications cost 2-6% more inside a protocol than in their own loop, by
#: an amount that varies with the process), so it is held, as every scheme is, to its prediction
#: interval, whose model error comes from the committed runs at the other sizes and the other schemes
VALIDATION_CASES = ({"n": 2, "m": 2},)
#: the validation runs committed as evidence of the model's error (python -m costbook.calibrate): the
#: gate's size and two larger ones, each judged by the others
CALIBRATION_CASES = ({"n": 2, "m": 2}, {"n": 3, "m": 2}, {"n": 2, "m": 3})
#: the values the book's page offers (python -m costbook.live): items by powers of ten up to the
#: bound, mix-servers by powers of two
LIVE_GRID = {"n": (1, 10, 100, 1000, 10_000, 100_000, 1_000_000), "m": (2, 4, 8, 16, 32, 64)}
