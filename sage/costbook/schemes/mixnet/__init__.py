"""Traceable mixnets (Agrawal et al., PETS 2024; seed 003).

    model   the published comparisons (86x, 18x, 20x) recomputed, the zkSNARK and cpSNARK-Set
            baselines as cost models in n, the RSA-accumulator witness, the BN254/BLS12-381 switch
"""
