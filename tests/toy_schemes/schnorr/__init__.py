"""Schnorr signatures on ristretto255: the toy scheme that walks through docs/adding-a-scheme.md.

    seed        what its (toy) seed note publishes, Parameters (the CLI's options)
    schnorr     key generation, signing and verification, tallying their primitives
    counts      the cost formula: each step's counts (and count_steps, by running the code)
    model       estimate() and validate(), which price the counts, ledger rows
    manifest    its chapter, published file, bibliography keys and seed note
    comparison  its row in the comparison chapter
"""
