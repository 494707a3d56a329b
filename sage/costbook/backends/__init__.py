"""Benchmarks of each primitive in each backend.

Every module here exposes ``benchmarks() -> list[costbook.harness.Benchmark]``.
A module whose library is missing raises ``BackendUnavailable`` with the reason,
so `costbook measure` can report it and carry on with the others.

Backend names are stable identifiers used in measurement files:

    sage, pari          passagemath (Sage objects; cypari2 directly)
    gmp, gmp-sec        gmpy2.powmod and the constant-time gmpy2.powmod_sec
    libsodium           libsodium through ctypes
    py_ecc              the Ethereum Foundation's pure-Python pairing library
    arkworks            py-arkworks-bls12381 (Rust arkworks through PyO3)
    mcl                 herumi/mcl: pymcl for BLS12-381, mclbn256 for BN254 (Nogami's curve)
    python              CPython's hashlib and built-in set
"""


class BackendUnavailable(RuntimeError):
    """The library behind a backend is not installed or not usable here."""


# Modules scanned by `costbook measure`, in the order their benchmarks run.
MODULES = [
    "costbook.backends.hashing",
    "costbook.backends.modexp",
    "costbook.backends.ristretto255",
    "costbook.backends.pairing_curves",
    "costbook.backends.hash_to_curve",
    "costbook.backends.mcl_bn254",
    "costbook.backends.punchcard",
    "costbook.backends.vectorcommit",
]
