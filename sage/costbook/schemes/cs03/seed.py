"""What seed 002 publishes about CS03, as data, and the scheme's typed parameters.

Seed 002 (``002_2157a55422b8ccfc.txt``) counts the exponentiations of CS03 (lines 16-47), names two
parameter sets (line 65: conservative, |n| = 4096; line 77: aggressive, |n| = 3072), prices them with
crypto-bigint's modpow (lines 68-113, in ``published/seed-002-crypto-bigint.json``) and
prints the results (lines 91-144, in ``seed-002-cs03-estimates.json``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...prices import measurements
from .. import Bounds, check_parameters, option

PUBLISHED = "seed-002-crypto-bigint"
ESTIMATES = "seed-002-cs03-estimates"       # the seed's printed results, compared, never used as prices
SEED_FILE = "002_2157a55422b8ccfc.txt"

#: Seed 002 prices no group operation.  The spec model's operations in Gamma (two or three
#: ristretto255 multiplications and the verifier's decoding of delta, 0.01% of a step) take the one
#: published price of such an operation: seed 000's curve25519-dalek multiplication (line 62), from
#: its own published file; the decoding is that price times the same library's decode / mul ratio,
#: measured (``GAMMA_SCALED``).
GAMMA_PRICES = ("seed-000-punchcard-laptop", "curve25519-dalek")
#: the backend of the Gamma prices scaled from the published multiplication, and the keys it prices
GAMMA_SCALED = ("curve25519-dalek-scaled", ("ristretto255/decode",))


@dataclass(frozen=True)
class ParameterSet:
    name: str
    n_bits: int          # L = |n|; the seed's |N| = |n| too
    seed_line: int       # where seed 002 names the parameter set


PARAMETER_SETS = {
    "conservative": ParameterSet("conservative", 4096, 65),
    "aggressive": ParameterSet("aggressive", 3072, 77),
}

#: The seed's printed sizes in bytes, (value, line of seed 002): compared with ``model.seed_sizes``.
SEED_PRINTED_SIZES = {
    "conservative": {"ciphertext": (3072, 139), "proof": (1568, 143)},
    "aggressive": {"ciphertext": (2304, 140), "proof": (1184, 144)},
}

#: the moduli the implementation accepts (scheme.MIN_MODULUS_BITS, proof.MAX_MODULUS_BITS; equal by
#: tests/test_cli_bad_inputs.py, not imported: this file stays free of the protocol's imports)
MIN_MODULUS_BITS, MAX_MODULUS_BITS = 2048, 16384

#: the challenge length k of each model.  The seed assumes k = 256 (seed 002, line 28).  The scheme
#: needs 2^k <= rho (two challenges must differ modulo rho: the extractor divides by c - c'), so
#: the implementation, whose Gamma is ristretto255 (|rho| = 253 bits), takes the largest such k,
#: 252 (``proof.Parameters``); the seed's 256 is too large for any group of 256 bits or fewer.
MODELS = ("seed", "spec")
SEED_K = 256
SPEC_K = 252
MODEL_K = {"seed": SEED_K, "spec": SPEC_K}


def seed_min_modulus_bits(k: int) -> int:
    """The smallest |n| for which the seed's honest response m~ = m' - c m passes the range check
    |m~| < n/4: m' has 2k bits, c m at most k + 256 (the seed's m has 256 bits), so |m~| has at most
    max(2k, k + 256) + 1 bits, and n/4 must exceed it."""
    return max(2 * k, k + 256) + 3


@dataclass(frozen=True)
class Parameters:
    """One CS03 instance as the cost models see it; the defaults are the CLI's.

    params: a named parameter set (its |n| unless modulus_bits is given); k: the challenge length,
    0 meaning the model's (``MODEL_K``); k' = 128 the masks' statistical slack and |rho| = 256 the
    order of Gamma (P-256 in the seed's comparison with TZ), both for the spec model; crt: decrypt
    with the factors (spec model only)."""
    params: str = option("conservative", tuple(PARAMETER_SETS), words="parameter set")
    model: str = option("seed", MODELS, words="counts", values={"seed": "the seed's", "spec": "the Sage code's"})
    # the modulus: what the implementation accepts, no more: key generation needs at least
    # scheme.MIN_MODULUS_BITS (2048; 3072 for 128-bit security) and verify refuses a modulus past
    # proof.MAX_MODULUS_BITS (16384), so an estimate never prices an instance the scheme refuses
    # (each model also checks its range check's minimum below)
    modulus_bits: int = option(0, Bounds(MIN_MODULUS_BITS, MAX_MODULUS_BITS, zero="the parameter set's |n|"),
                               words="modulus size |n| in bits")
    k: int = option(0, Bounds(1, 256, zero="the model's: 256 seed, 252 spec"),
                    "the challenge is a truncated SHA-256 digest", words="challenge length k in bits")
    k_prime: int = option(128, Bounds(1, 1024), words="statistical slack k' in bits")
    rho_bits: int = option(256, Bounds(128, 4096), "the order of Gamma; P-256 and ristretto255 have 256 and 253 bits",
                           words="|ρ|, the bits of the order of Γ")
    crt: str = option("no", ("no", "yes"), words="decrypt with the factors (CRT)")

    def __post_init__(self):
        check_parameters(self)
        if self.model == "seed" and self.crt == "yes":
            raise ValueError("the seed's model has no CRT decryption; use --model spec")
        if self.model == "seed":
            # the seed's masks are 2k bits whatever k' and |rho| are (seed 002, line 28): it has none
            for name in ("k_prime", "rho_bits"):
                if getattr(self, name) != OPTION_DEFAULTS[name]:
                    raise ValueError(f"--{name.replace('_', '-')} does not apply to the seed's model (its masks "
                                     f"are 2k bits); use --model spec")
            # m~ = m' - c m with m' of 2k bits and c m of k + 256 bits must pass |m~| < n/4
            need = seed_min_modulus_bits(self.challenge_bits)
            if self.n_bits < need:
                raise ValueError(f"modulus of {self.n_bits} bits too small for the seed's model with k = "
                                 f"{self.challenge_bits}: its range check |m~| < n/4 on m~ = m' - c m (m' of 2k, "
                                 f"c m of k + 256 bits) needs at least {need} bits")
        if self.model == "spec":
            if self.challenge_bits > self.rho_bits - 1:
                raise ValueError(f"k = {self.challenge_bits} too large for |rho| = {self.rho_bits}: the scheme needs "
                                 f"2^k <= rho, so k <= {self.rho_bits - 1}")
            need = self.rho_bits + self.challenge_bits + self.k_prime + 4
            if self.n_bits < need:
                raise ValueError(f"modulus of {self.n_bits} bits too small for k = {self.challenge_bits}, k' = {self.k_prime}, "
                                 f"|rho| = {self.rho_bits}: the range check |m~| < n/4 needs at least {need} bits")

    @property
    def n_bits(self) -> int:
        return self.modulus_bits or PARAMETER_SETS[self.params].n_bits

    @property
    def challenge_bits(self) -> int:
        return self.k or MODEL_K[self.model]

    @property
    def use_crt(self) -> bool:
        return self.crt == "yes"




def published_source() -> measurements.MeasurementSet:
    return measurements.load_source(f"published/{PUBLISHED}")


def printed_estimates() -> measurements.MeasurementSet:
    return measurements.load_source(f"published/{ESTIMATES}")


def gamma_prices() -> measurements.MeasurementSet:
    """The published price of a ristretto255 multiplication (``GAMMA_PRICES``), and beside it, in
    ``GAMMA_SCALED``'s backend, the other Gamma keys the spec model counts, each scaled from it:
    published mul x dalek(key) / dalek(mul), the ratio measured in curve25519-dalek 2.0.0, the
    library seed 000 ran (the committed ``measurements/seed-libraries`` file), as the punch cards'
    seed-machine prices are.  Bounds: the published range of the multiplication (50-55 us) times the
    quartiles of dalek(key) over dalek(mul)."""
    from ...timing.backends import curve25519_dalek
    from ...prices.derived import entry, price_set
    name, backend = GAMMA_PRICES
    s = measurements.load_source(f"published/{name}")
    published = measurements.MeasurementSet(s.name, s.kind, s.provenance, {backend: s.results[backend]})
    lib = curve25519_dalek.load_committed()
    anchor = "ristretto255/mul"
    t_anchor, (a_low, a_high) = s.seconds(backend, anchor), s.bounds(backend, anchor)
    d_anchor = lib.seconds(curve25519_dalek.BACKEND, anchor)
    scaled_backend, keys = GAMMA_SCALED
    results = {}
    for key in keys:
        ratio = lib.seconds(curve25519_dalek.BACKEND, key) / d_anchor
        k_low, k_high = lib.bounds(curve25519_dalek.BACKEND, key)
        results[key] = entry(t_anchor * ratio, f"{anchor} as published (seed 000, line {s.entry(backend, anchor)['line']}) "
                             f"x {curve25519_dalek.LIBRARY} ratio {ratio:.3g} (measured)",
                             low=a_low * k_low / d_anchor, high=a_high * k_high / d_anchor)
    scaled = price_set(f"{name} scaled by {lib.name}", {scaled_backend: results}, derivation="scaled",
                       seed="000_f6c47c9ac3110709.txt", title="ristretto255 prices of seed 000's laptop scaled from its published "
                                             "multiplication", machine=str(s.provenance.get("machine", "")),
                       method="price(key) = published(ristretto255/mul) x dalek(key) / dalek(ristretto255/mul)",
                       derived_from=[f"published/{name}", lib.name])
    return measurements.combine(published, scaled, name=f"{s.name} (+ {scaled_backend})")


#: what the seed's model requires of the spec-only options (they stay at their defaults there)
OPTION_DEFAULTS = {"k_prime": 128, "rho_bits": 256}
