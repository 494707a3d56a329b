"""Schnorr signatures on ristretto255: the toy scheme that walks through docs/adding-a-scheme.md.

    seed        what its (toy) seed note publishes, Parameters (the CLI's options)
    schnorr     key generation, signing and verification, tallying their primitives
    model       counts by running the code, estimate() and validate(), ledger rows
    manifest    its chapter, published file, bibliography keys and seed note
    comparison  its row in the comparison chapter
"""
