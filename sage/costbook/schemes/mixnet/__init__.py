"""Traceable mixnets (Agrawal et al., PETS 2024; seed 003).

    seed       what seed 003 publishes: (n, m), the published files, the baselines' formulas, Parameters
    curves     BN254 (default) or BLS12-381, the generators with unknown logs, the Fiat-Shamir hash
    sigma      one proof of knowledge for linear relations, single-prover and distributed
    elgamal    ElGamal in G1 with m-of-m threshold keys, re-encryption, decryption shares and proofs
    bbsig      Boneh-Boyen signatures and their batch check
    bbsplus    BBS+ quasi-signatures on commitments and their batch check
    shuffle    permutation commitments and the Terelius-Wikstrom proof of shuffle
    paillier   threshold Paillier (DJN, s = 1, m-of-m) with batched proofs of decryption shares
    mix        the Mix protocol: Paillier re-encryption mix, Wikstrom's proof of shuffle, decryption
    dbsm       DB-SM (Figure 8): the query end to end, its step counts
    dbrsm      DB-RSM (Figure 9), its curve parts (its Paillier-encrypted values travel in the clear)
    counts     the cost formula: the artifact's report lines counted, the protocols' parties (their
               steps' counts stated in dbsm and dbrsm), the accumulator witness, the DPKs
    artifact   the artifact's code as a cost model: the Xeon's prices inferred from its counts, the
               seed's totals reproduced, what-if in n, m and the security model
    model      the published comparisons, the baselines, the RSA accumulator, the curve switch,
               the protocols' counts priced, validation
"""
