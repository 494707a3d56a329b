"""Privacy-preserving punch cards (Eskandarian, "Fast Privacy-Preserving Punch Cards", seed 000).

    dleq        the prime-order group interface and the Chaum–Pedersen proof on it
    ristretto   the punch card on ristretto255: blind exponentiation iterated n times
    mergeable   the mergeable card on BLS12-381, the pairing merge, and the mix-and-match forgery
    curves      adapters from costbook.groups to the group interface (ristretto255, G1, G2, GT)
    seed        what seed 000 publishes, as data, the arithmetic that reproduces it, Parameters
    prices      this machine's native prices and the seed's laptop (stated, the rest scaled)
    counts      the cost formula: each step's counts, tallied by running the code, and message sizes
    model       the counts priced: implied factors, estimate() and validate()
"""
