"""What the book keeps for the traceable mixnet (``costbook.schemes.MANIFEST_API``): read by the
ledger, the comparison chapter and the contract tests, so that no core module names this scheme."""

CHAPTER = "chapters/05-traceable-mixnets.ipynb"
TITLE = "traceable mixnet"
SECTION = "sec-mixnets"
PUBLISHED_FILES = ("seed-003-mixnet-baselines", "seed-003-mixnet-traceable")
BIBLIOGRAPHY = ("seed-mixnet", "traceable-mixnets-2024", "repo-traceable-mixnets", "ozdemir-boneh-2022",
                "cpsnark-set-2019", "repo-cpsnarks-set", "terelius-wikstrom-2010", "wikstrom-2009",
                "charm", "gmp", "mcl", "pbc")
#: its seed note, by the number its file name starts with -> bib key; the note ships in this folder
#: (003_408d339122fdb1f8.txt: the benchmark note the book started from, copied unchanged from the project's seed notes)
SEED_NOTES = {"003": "seed-mixnet"}
SEED_ERRATA = {143: "the seed truncates 43400/500 = 86.8 to 86x"}
#: the small validation runs the test gate makes: both protocols at n = m = 2 (model.VALIDATION_SIZES),
#: each step's prediction with its measured cold start (model._cold_start_probe)
VALIDATION_CASES = ({"n": 2, "m": 2},)
#: the validation runs committed as evidence of the model's error (python -m costbook.calibration.calibrate): the
#: gate's size and two larger ones, each judged by the others
CALIBRATION_CASES = ({"n": 2, "m": 2}, {"n": 3, "m": 2}, {"n": 2, "m": 3})
#: the values the book's page offers (python -m costbook.book.live): items by powers of ten up to the
#: bound, mix-servers by powers of two
LIVE_GRID = {"n": (1, 10, 100, 1000, 10_000, 100_000, 1_000_000), "m": (2, 4, 8, 16, 32, 64)}
#: the what-if plot's default axis: the mix-servers, as the chapter's first what-if figure (fig-mixnet-whatif-m-times)
LIVE_AXIS = "m"
