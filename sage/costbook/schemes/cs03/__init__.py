"""Camenisch–Shoup 2003 verifiable encryption (CS03): the scheme, its proof, and its cost models.

    seed       what seed 002 publishes, the named parameter sets, Parameters (the CLI's options)
    scheme     key generation, encryption with a label, decryption with every check (and CRT)
    proof      the verifiable encryption of a discrete logarithm (Section 5), Fiat–Shamir form
    fixtures   committed key pairs (n of 3072 and 4096 bits) so the chapter runs in seconds
    counts     the cost formula: the seed's counts and the scheme's own, per step, and the sizes
    model      the formula priced: estimate(), the seed reproduced, validate()
"""
