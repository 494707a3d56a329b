"""The prime group orders, written once: plain integers, importable without Sage (the benchmarks
reduce scalars with them before they call a native library)."""

#: ristretto255 (and the prime-order subgroup of edwards25519): RFC 9496, Section 4.1
RISTRETTO255 = 2**252 + 27742317777372353535851937790883648493
#: r of BLS12-381: the order of G1, G2 and GT (the pairing-friendly-curves draft, Section 4.2.1)
BLS12_381 = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
#: r of BN254 (Ethereum's alt_bn128; mcl's and PBC's BN254 curve)
BN254 = 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001

ORDERS = {"ristretto255": RISTRETTO255, "bls12_381": BLS12_381, "bn254": BN254}
