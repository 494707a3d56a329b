"""Vector commitments (seed 001): Pointproofs over BLS12-381 and Merkle trees.

    pointproofs   commit, prove, verify, updates, same- and cross-commitment aggregation
    merkle        the SHA-256 Merkle vector commitment of veccom-rust
    seed          what seed 001 publishes (claims, size lines), Parameters
    model         the seed reproduced, counts as formulas in n, prices, estimate() and validate()
"""
