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
#: the small validation runs the test gate makes: none, for the reason below
VALIDATION_CASES = ()
#: why the test gate leaves this scheme's steps out (they stay in chapter 5 and in `costbook validate
#: mixnet`, each with its 90% prediction interval, and its committed runs are evidence for the others)
NOT_GATED = ("beside a CPU-bound process the Sage protocol steps run 17-58% over their primitives in some fresh "
             "processes (2026-11-27, a fresh clone's make test beside `python3 -c 'while 1: pass'`: DB-RSM M6 "
             "+50.5%, +17.2%, +44.5%; DB-SM M3 +1.8%, +22.3%, +57.6%), far beyond the committed runs beside a busy "
             "process (-14% to +24%) and so beyond twice their intervals' half-width even as the median of three "
             "processes; quiet, the gate held them (47 and 49 of 50 steps inside).  A step's ratio to its "
             "primitives moves with the process and the load, which no count or price carries")
#: the validation runs committed as evidence of the model's error (python -m costbook.calibrate): the
#: gate's size and two larger ones, each judged by the others
CALIBRATION_CASES = ({"n": 2, "m": 2}, {"n": 3, "m": 2}, {"n": 2, "m": 3})
#: the values the book's page offers (python -m costbook.live): items by powers of ten up to the
#: bound, mix-servers by powers of two
LIVE_GRID = {"n": (1, 10, 100, 1000, 10_000, 100_000, 1_000_000), "m": (2, 4, 8, 16, 32, 64)}
#: the what-if plot's default axis: the mix-servers, as the chapter's first what-if figure (fig-mixnet-whatif-m-times)
LIVE_AXIS = "m"
