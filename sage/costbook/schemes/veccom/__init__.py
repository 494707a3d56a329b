"""Vector commitments (seed 001): Pointproofs over BLS12-381 and Merkle trees.

    pointproofs   commit, prove, verify, updates, same- and cross-commitment aggregation
    merkle        the SHA-256 Merkle vector commitment of veccom-rust
    seed          what seed 001 publishes (claims, size lines), Parameters
    counts        the cost formula: each operation's counts as formulas in n, and the sizes
    model         the seed reproduced, the formula priced: estimate() and validate()
"""
