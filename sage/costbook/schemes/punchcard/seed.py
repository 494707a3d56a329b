"""What seed 000 publishes, as data, and the arithmetic that reproduces it.

The per-step times are in ``published/seed-000-punchcard-steps.json`` (one
backend per machine, curve and database variant; the cumulative totals with their seed
lines, the iteration counts, and the averages the seed states where it states them).  The
two primitive prices the seed states (one ristretto255 exponentiation, one lookup in a
hash set of a million entries) are in ``seed-000-punchcard-laptop.json``.  This module
holds the rest of what the seed says (message sizes) and what the PunchCard repository
says beyond the seed (the BLS12-381 microbenchmarks of ``data.txt`` and the two-pairing
run before commit 30f66ed), each with where it comes from, and the functions that
reproduce the seed's derived numbers from them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...prices.measurements import MeasurementSet, load_source
from .. import Bounds, check_parameters, option
from .mergeable import REDEEM_CHECKS

STEPS = ("server_setup", "client_setup", "server_punch", "client_punch", "client_redeem", "server_redeem")
LABELS = {s: s.replace("_", " ").capitalize() for s in STEPS}
CURVES = ("ristretto255", "bls12_381")

STEP_FILE = "seed-000-punchcard-steps"
PRICE_FILE = "seed-000-punchcard-laptop"

#: the variants of the step file: backend -> (machine, curve, database size)
VARIANTS = {
    "laptop-ristretto255": ("laptop", "ristretto255", 0),
    "laptop-ristretto255-db1m": ("laptop", "ristretto255", 1_000_000),
    "phone-ristretto255": ("phone", "ristretto255", 0),
    "laptop-bls12_381": ("laptop", "bls12_381", 0),
    "phone-bls12_381": ("phone", "bls12_381", 0),
}


def step_key(curve: str, step: str) -> str:
    return f"step/punchcard/{curve}/{step}"


def published_steps() -> MeasurementSet:
    return load_source(f"published/{STEP_FILE}")


def published_prices() -> MeasurementSet:
    return load_source(f"published/{PRICE_FILE}")


@dataclass(frozen=True)
class Average:
    variant: str
    step: str
    cumulative_us: int
    iterations: int
    line: int
    stated: float | None          # the average the seed states, in stated_unit
    stated_unit: str | None
    stated_line: int | None

    @property
    def average_us(self) -> float:
        """The reproduction: cumulative total / iterations."""
        return self.cumulative_us / self.iterations

    @property
    def stated_us(self) -> float | None:
        if self.stated is None:
            return None
        return self.stated * {"us": 1, "ms": 1000}[self.stated_unit]

    @property
    def decimals(self) -> int | None:
        """How many decimals the seed gives for the stated average."""
        if self.stated is None:
            return None
        text = repr(self.stated)
        stored = len(text.split(".")[1]) if "." in text else 0
        # the file stores numbers, which drop trailing zeros (18.590 -> 18.59, 4.00 -> 4.0); the note
        # prints its µs averages to 1/iterations (18.590, 134.3669) and its ms averages to 2 decimals
        printed = len(str(self.iterations)) - 1 if self.stated_unit == "us" else 2
        return max(stored, printed)

    @property
    def printed(self) -> str | None:
        """The stated average as the note prints it, number and unit: "18.590 µs", "4.00 ms"."""
        if self.stated is None:
            return None
        return f"{self.stated:.{self.decimals}f}\u00a0{'µs' if self.stated_unit == 'us' else self.stated_unit}"

    @property
    def rounded(self) -> float | None:
        """The reproduced average in the seed's unit, rounded to the seed's decimals."""
        if self.stated is None:
            return None
        scale = {"us": 1, "ms": 1000}[self.stated_unit]
        return round(self.average_us / scale, self.decimals)

    @property
    def agrees(self) -> bool | None:
        """Does the seed's stated average equal the reproduced one at the seed's precision?"""
        return None if self.stated is None else math.isclose(self.rounded, self.stated, abs_tol=1e-12)


def averages(steps: MeasurementSet | None = None) -> list:
    """Every (variant, step) of the step file, with the reproduced average."""
    steps = steps or published_steps()
    out = []
    for variant in steps.backends:
        curve = VARIANTS[variant][1]
        for step in STEPS:
            e = steps.entry(variant, step_key(curve, step))
            out.append(Average(variant, step, e["cumulative"], e["iterations"], e["line"],
                               e.get("stated_average"), e.get("stated_unit"), e.get("stated_line")))
    return out


# ---------------------------------------------------------------------------
# Message sizes: what the seed states (lines 53-58 and 106-111)

@dataclass(frozen=True)
class StatedSize:
    curve: str
    step: str
    bytes: int            # 0 where the seed says "none"
    line: int
    text: str             # the seed's explanation, quoted


STATED_SIZES = (
    StatedSize("ristretto255", "server_setup", 32, 53, "32 bytes (g^secret)"),
    StatedSize("ristretto255", "client_setup", 0, 54, "none"),
    StatedSize("ristretto255", "client_punch", 32, 55, "32 bytes (the punchcard group element)"),
    StatedSize("ristretto255", "server_punch", 128, 56, "128 bytes (new group element and proof which has "
               "2 group elements and a scalar, 32 bytes each)"),
    StatedSize("ristretto255", "client_redeem", 64, 57, "64 bytes (the final card and the secret used to make "
               "the card, 32 bytes each)"),
    StatedSize("ristretto255", "server_redeem", 0, 58, "none"),
    StatedSize("bls12_381", "server_setup", 144, 106, "144 bytes (g^secret for both groups == 48 + 96)"),
    StatedSize("bls12_381", "client_setup", 0, 107, "none"),
    StatedSize("bls12_381", "client_punch", 144, 108, "144 bytes (the 2 punchcard group elements)"),
    StatedSize("bls12_381", "server_punch", 496, 109, "496 bytes (2 new group elements and 2 proofs which have "
               "2 group elements and a scalar = 144 + (96 + 32) + (192 + 32) = 496)"),
    StatedSize("bls12_381", "client_redeem", 640, 110, "640 bytes (the final card and the secrets used to make "
               "the cards, 32 bytes each secret, 576 bytes for final card)"),
    StatedSize("bls12_381", "server_redeem", 0, 111, "none"),
)


def message_size_formulas(e: int, s: int, e1: int = 0, e2: int = 0, gt: int = 0) -> dict:
    """Bytes on the wire per step, from the encodings: e = element, s = scalar (ristretto255);
    e1, e2, gt = G_1, G_2, G_T elements, s = scalar or card secret (BLS12-381)."""
    return {
        "ristretto255": {"server_setup": e, "client_setup": 0, "client_punch": e,
                         "server_punch": 3 * e + s, "client_redeem": s + e, "server_redeem": 0},
        "bls12_381": {"server_setup": e1 + e2, "client_setup": 0, "client_punch": e1 + e2,
                      "server_punch": (e1 + e2) + (2 * e1 + s) + (2 * e2 + s),
                      "client_redeem": 2 * s + gt, "server_redeem": 0},
    }


# ---------------------------------------------------------------------------
# What the PunchCard repository states beyond the seed excerpt

REPOSITORY = "SabaEskandarian/PunchCard"

#: data.txt at 0dbad68, lines 113-116: "On server, Time for exponentiation in G1 is about 250
#: microseconds / ... in G2 is aobut 800 microseconds / Time for pairing is about 2 milliseconds"
#: (pairing-plus 0.18 on the laptop; added in a361e1e, after the seed's excerpt ends).
REPOSITORY_PRICES_US = {
    "bls12_381/g1_mul": (250, "data.txt@0dbad68:114"),
    "bls12_381/g2_mul": (800, "data.txt@0dbad68:115"),
    "bls12_381/pairing": (2000, "data.txt@0dbad68:116"),
}

#: The two-pairing redemption, measured by the author before commit 30f66ed removed the second
#: pairing: cumulative microseconds over 100 iterations (data.txt at 7994e39, lines 72-76 and 91-95).
TWO_PAIRING_RUN_US = {
    "laptop-bls12_381": {"client_redeem": 610790, "server_redeem": 796773, "iterations": 100,
                         "where": "data.txt@7994e39:75-76"},
    "phone-bls12_381": {"client_redeem": 7240516, "server_redeem": 9593094, "iterations": 100,
                        "where": "data.txt@7994e39:94-95"},
}


# ---------------------------------------------------------------------------
# "8 orders of magnitude" (seed lines 61-63)

@dataclass(frozen=True)
class Speedup:
    set_size: int
    mul_s: float                  # one variable-base exponentiation
    lookup_s: float               # one probe of a set of set_size secrets
    redeem_s: float | None = None # a whole server redeem with the hash set (if known)

    @property
    def scan_s(self) -> float:
        """One exponentiation per previously used card: the linear scan the set replaces."""
        return self.set_size * self.mul_s

    @property
    def check_speedup(self) -> float:
        """The seed's comparison: the scan against one lookup."""
        return self.scan_s / self.lookup_s

    @property
    def orders(self) -> float:
        return math.log10(self.check_speedup)

    @property
    def redeem_speedup(self) -> float | None:
        """What a reader gets end to end: a redeem with the scan against a redeem with the set.

        The redeem's other work (hash to the group, one exponentiation, encoding) stays."""
        if self.redeem_s is None:
            return None
        return (self.redeem_s - self.lookup_s + self.scan_s) / self.redeem_s

    @property
    def redeem_orders(self) -> float | None:
        r = self.redeem_speedup
        return None if r is None else math.log10(r)


MODELS = ("scaled", "implied")


def check_merged_punches(curve: str, punches: int) -> None:
    """The BLS12-381 benchmark merges two cards of punches/2 punches: there, punches must be even."""
    if curve == "bls12_381" and punches % 2:
        raise ValueError(f"the BLS12-381 benchmark merges two cards of punches/2 punches: "
                         f"punches must be even, got {punches}")


@dataclass(frozen=True)
class Parameters:
    """One estimate of the punch cards; the defaults are the CLI's and the seed's runs (10 punches,
    an empty database: seed 000's benchmark table)."""
    curve: str = option("ristretto255", CURVES, words="curve")
    # the code runs once per estimate: 100 punches take seconds on BLS12-381 (the seed's runs: 10)
    punches: int = option(10, Bounds(1, 100), words="punches per card")
    # the spent-card set is built in memory: 10^6 entries (the seed's largest database, about 100 MB)
    db_size: int = option(0, Bounds(0, 1_000_000), words="spent cards in the server's set")
    redeem_check: str = option("single", REDEEM_CHECKS, words="redemption check of the merged card",
                               values={"single": "one pairing", "two": "two pairings"})
    model: str = option("scaled", MODELS, words="the seed's laptop's unstated prices",
                        values={"scaled": "scaled from its stated ones", "implied": "with the implied factors"})

    def __post_init__(self):
        check_parameters(self)
        check_merged_punches(self.curve, self.punches)
