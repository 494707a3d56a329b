"""What the book keeps for the toy Schnorr scheme (``costbook.schemes.MANIFEST_API``)."""

CHAPTER = "chapters/91-schnorr.ipynb"          # this folder's chapter.ipynb, installed there
TITLE = "Schnorr signatures (toy)"
SECTION = "sec-schnorr"
PUBLISHED_FILES = ("toy-schnorr-laptop",)       # published/toy-schnorr-laptop.json
BIBLIOGRAPHY = ("toy-schnorr-note", "schnorr-1991", "rfc9496")   # this folder's references.bib
SEED_NOTES = {"900": "toy-schnorr-note"}        # 900_toy_schnorr.md
SEED_ERRATA = {}
#: the small validation runs tests/test_validation_bounds.py makes
VALIDATION_CASES = ({"messages": 1},)
#: the runs make calibrate commits to evidence/validation/ (the gate's case and another size, so that
#: each judges the other)
CALIBRATION_CASES = ({"messages": 1}, {"messages": 4})
