"""What seed 001 publishes about vector commitments, as data, each number with its line.

The benchmark outputs (criterion for Pointproofs, the Merkle bench) are in
``published/seed-001-veccom.json``; the summary claims and size lines are here.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...prices import measurements
from .. import Bounds, check_parameters, option

PUBLISHED = "seed-001-veccom"
SEED_FILE = "001_9e90762f00ccf010.txt"
#: algorand/pairing-plus, src/bls12_381/ec/mod.rs (find_pippinger_window_via_estimate): the measured
#: cost of a projective G1 addition on the author's machine, used to split the commit benchmark.
SEED_MAC_G1_ADD_S = 1.043e-6
VALUE_BYTES = 32                      # the chapter's and the tests' values: 32 random bytes


@dataclass(frozen=True)
class Claim:
    scheme: str
    op: str
    claim: str            # as the seed states it
    per: str              # "n" (per element) or "op"
    value_us: float
    line: int


#: The seed's summary lines (seed 001), compared with what its benchmark outputs give.
SEED_CLAIMS = (
    Claim("pointproofs", "commit", "270n microseconds", "n", 270, 5),
    Claim("pointproofs", "prove", "270n microseconds", "n", 270, 6),
    Claim("pointproofs", "verify", "3600 microseconds (regardless of n)", "op", 3600, 7),
    Claim("pointproofs", "proof_update", "270 microseconds (regardless of n)", "op", 270, 8),
    Claim("pointproofs", "commit_update", "270 microseconds (regardless of n)", "op", 270, 9),
    Claim("merkle", "commit", "1.2*n microseconds", "n", 1.2, 51),
    Claim("merkle", "verify", "8 microseconds (for n = 1000)", "op", 8, 53),
    Claim("merkle", "proof_update_no_helper", "6 microseconds (for n = 1000)", "op", 6, 54),
    Claim("merkle", "commit_update", "8 microseconds (for n = 1000)", "op", 8, 55),
)
#: The size lines: "commitments and proofs are 48 bytes" (11); "32 bytes long; ... 32 * log_2 n" (57)
SEED_SIZE_LINES = {"pointproofs": 11, "merkle": 57}


def _published():
    return measurements.load_source(f"published/{PUBLISHED}")


def published() -> measurements.MeasurementSet:
    return measurements.load_source(f"published/{PUBLISHED}")


@dataclass(frozen=True)
class Parameters:
    """One estimate of both vector commitments; the defaults are the CLI's (n = 1000: the seed's
    Merkle figures, line 53)."""
    # formulas in n; the mean Merkle update height walks n positions, so 2^20 takes a second
    n: int = option(1000, Bounds(2, 1 << 20), words="vector length n")
    msm: str = option("no", ("no", "yes"), words="commit and prove as one MSM")

    def __post_init__(self):
        check_parameters(self)
