"""Benchmarks of each primitive in each backend.

Every module here exposes ``benchmarks() -> list[costbook.timing.harness.Benchmark]``.
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


import re
from dataclasses import dataclass


class BackendUnavailable(RuntimeError):
    """The library behind a backend is not installed or not usable here."""


def require(module: str, package: str):
    """Import an optional library's module, or raise BackendUnavailable naming its package."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise BackendUnavailable(f"{package} is not installed ({e})") from None


# Modules scanned by `costbook measure`, in the order their benchmarks run.
MODULES = [
    "costbook.timing.backends.hashing",
    "costbook.timing.backends.modexp",
    "costbook.timing.backends.ristretto255",
    "costbook.timing.backends.pairing_curves",
    "costbook.timing.backends.hash_to_curve",
    "costbook.timing.backends.mcl_bn254",
    "costbook.timing.backends.group_extras",
    "costbook.timing.backends.vectorcommit",
]


@dataclass(frozen=True)
class SizedBenchmarks:
    """A backend module that benchmarks every key of a family, at any size (``benchmarks()`` lists
    only the sizes `costbook measure` runs; validation needs the sizes a step uses).

    pattern: the keys (a regular expression, matched at the start); function(key, backend) makes
    the Benchmark; same_as: backends whose benchmark of these keys is another backend's (the same
    library call whoever calls it)."""
    pattern: str
    module: str
    function: str = "benchmark"
    same_as: tuple = ()

    def matches(self, key: str) -> bool:
        return re.match(self.pattern, key) is not None


#: Consulted in order by ``costbook.calibration.validation.find_benchmark`` before the fixed-size benchmarks.
SIZED = (
    SizedBenchmarks(r"modexp/", "costbook.timing.backends.modexp"),
    SizedBenchmarks(r"modmul/", "costbook.timing.backends.modexp", "modmul_benchmark"),
    SizedBenchmarks(r"modexp_fixed/", "costbook.timing.backends.modexp", "modexp_fixed_benchmark"),
    SizedBenchmarks(r"intdiv/", "costbook.timing.backends.modexp", "intdiv_benchmark"),
    # the traceable mixnets' light and short operations on the pairing curves, Sage only (mcl's short
    # scalars are fixed-size benchmarks; BLS12-381 additions stay with the vector commitments' module)
    SizedBenchmarks(r"(bn254/g[12]_add$|(bls12_381|bn254)/(g[12t]_to_bytes$|(g1_mul|gt_exp)/[0-9]+$))",
                    "costbook.timing.backends.pairing_curves", same_as=(("sage", "sage"),)),
    SizedBenchmarks(r"[a-z0-9_]+/(g[12]_msm/|pairing_product/|g[12]_add$|g1_mul_fixed$)",
                    "costbook.timing.backends.vectorcommit"),
    # hashlib is the same call from Sage code as from Python
    SizedBenchmarks(r"sha(256|512)/", "costbook.timing.backends.hashing", same_as=(("sage", "python"), ("python", "python"))),
)

