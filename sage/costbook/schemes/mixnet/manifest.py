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
#: the small validation runs tests/test_validation_bounds.py makes: none, for the reason below
VALIDATION_CASES = ()
#: why the test gate leaves this scheme's steps out (they stay in chapter 5 and in `costbook validate
#: mixnet`, each with its bound)
NOT_GATED = ("the Sage protocol steps' errors move between processes on one quiet machine by more than their "
             "bound allows: DB-SM M2 at n = m = 2 came out +4.6% in one run and +9.7%, then +8.3% in another "
             "process's two runs (bound 8%), DB-SM M3 +4.8% against +8.9% twice; the scalar multiplications "
             "inside a protocol cost 5-7% more than in their own loop, by an amount that varies with the "
             "process, and no count or price in the model carries it yet (of eight quiet processes on 2026-11-25, "
            "seven held every step within its bound and one put DB-SM M2 at +8.0% and DB-RSM M3 and M5 at +8.9%; a "
            "G1 multiplication timed right after a G2 multiplication costs 4.4% more than in its own loop)")
#: the values the book's page offers (python -m costbook.live): items by powers of ten up to the
#: bound, mix-servers by powers of two
LIVE_GRID = {"n": (1, 10, 100, 1000, 10_000, 100_000, 1_000_000), "m": (2, 4, 8, 16, 32, 64)}
