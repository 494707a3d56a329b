"""What the book keeps for the punch cards (``costbook.schemes.MANIFEST_API``): read by the ledger,
the comparison chapter and the contract tests, so that no core module names this scheme."""

#: its chapter (the chapter files' names order the schemes in the ledger and the comparison)
CHAPTER = "chapters/02-punch-cards.ipynb"
#: its name for a reader, and its chapter's section id (the comparison chapter links to it)
TITLE = "punch cards"
SECTION = "sec-punch-cards"
#: its files in published/ (model.PUBLISHED is one of them)
PUBLISHED_FILES = ("seed-000-punchcard-laptop", "seed-000-punchcard-steps")
#: the references.bib keys its chapter cites
BIBLIOGRAPHY = ("seed-punchcard", "eskandarian-2020", "repo-punchcard", "rfc9496", "rfc9380",
                "curve25519-dalek", "libsodium", "arkworks")
#: its seed note, by the number its file name starts with -> bib key; the note ships in this folder
#: (000_f6c47c9ac3110709.txt: the benchmark note the book started from, copied unchanged from the project's seed notes)
SEED_NOTES = {"000": "seed-punchcard"}
#: computed ledger figures whose printed value disagrees with the seed's own inputs: line -> why
SEED_ERRATA = {79: "the seed truncates 1098.39 µs to 1.09 ms (its other averages are rounded)"}
#: the small validation runs tests/test_validation_bounds.py makes (each within the bounds its model states)
VALIDATION_CASES = ({"curve": "ristretto255", "punches": 2}, {"curve": "bls12_381", "punches": 2})
#: the validation runs committed as evidence of the model's error (python -m costbook.calibration.calibrate): the
#: gate's, and each curve at the chapter's ten punches (a larger card, with a spent-card set on
#: ristretto255 and the two-pairing redemption on BLS12-381)
CALIBRATION_CASES = (*VALIDATION_CASES, {"curve": "ristretto255", "punches": 10, "db_size": 1000},
                     {"curve": "bls12_381", "punches": 10, "redeem_check": "two"})
#: the values the book's page offers (python -m costbook.book.live): punches and database sizes spread
#: over their bounds (0: no database scan).  Each BLS12-381 value runs the Sage protocol once (about
#: 0.08 s a punch), so the page stops at 50 punches; the CLI takes up to 100.
LIVE_GRID = {"punches": (1, 2, 4, 10, 20, 50), "db_size": (0, 1000, 100_000, 1_000_000)}
#: the what-if plot's default axis: the spent-card set, as the chapter's what-if figure (fig-punch-dbsize)
LIVE_AXIS = "db_size"
