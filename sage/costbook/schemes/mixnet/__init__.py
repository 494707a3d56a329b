"""Traceable mixnets (Agrawal et al., PETS 2024; seed 003).

    groups     BN254 (default) or BLS12-381, the generators with unknown logs, the Fiat-Shamir hash
    sigma      one proof of knowledge for linear relations, single-prover and distributed
    elgamal    ElGamal in G1 with m-of-m threshold keys, re-encryption, decryption shares and proofs
    bbsig      Boneh-Boyen signatures and their batch check
    bbsplus    BBS+ quasi-signatures on commitments and their batch check
    shuffle    permutation commitments and the Terelius-Wikstrom proof of shuffle
    dbsm       DB-SM (Figure 8): the query end to end, its step counts
    dbrsm      DB-RSM (Figure 9), its implemented parts (threshold Paillier: priced, not implemented)
    model      the published comparisons, the baselines, the RSA accumulator, the curve switch,
               the protocols' counts priced, validation
"""
