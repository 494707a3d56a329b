"""costbook: primitive prices, cost formulas and executable specifications.

The library behind the book, in layers; each imports only those listed before it:

- ``system/``       files written whole, child processes, signals, outside words, the chapter list
- ``prices/``       primitive keys, measurement files, count vectors and their pricing
- ``registry``      the schemes as the rest knows them: found by discovery, never named
- ``writing/``      times, numbers, tables and citations as the book writes them
- ``groups/``       the groups written out in Sage (ristretto255, BLS12-381, BN254, hash-to-curve)
- ``timing/``       the timing harness, each backend's benchmarks, ``costbook measure``
- ``calibration/``  validation runs, their evidence, and the intervals beside every estimate
- ``views/``        the schemes side by side, the ledger, other machines and zkalc
- ``cli/``          the ``costbook`` command
- ``book/``         the book's build: chapters run, rendered offline, the PDF, the live page's data
- ``schemes/``      one folder per protocol: its code, counts, cost model and seed

Nothing is imported here: ``costbook.cli.launch`` is in charge before any slow import.
"""
