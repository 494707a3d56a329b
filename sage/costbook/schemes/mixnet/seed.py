"""What seed 003 publishes about traceable mixnets, as data: the measured files, the seed's
(n, m), and the baselines' published unit prices with the formulas the seed applies to them.

Imported by ``artifact`` (the artifact's report as a cost model) and ``model`` (the comparisons,
the CLI's estimate); neither imports the other at module level.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...prices import measurements
from .. import Bounds, check_parameters, option

#: seed 003's DB-SM / DB-RSM and sample-report times (n = 10^4, m = 4; seed lines in the file)
PUBLISHED = "seed-003-mixnet-traceable"
#: the baselines' unit prices the seed compares with (Groth16 via ZoKrates, cpSNARK-Set)
BASELINES = "seed-003-mixnet-baselines"
#: n items, m mix-servers: the one size the seed publishes (seed 003, the sample report's header)
N_SEED, M_SEED = 10_000, 4
#: a collaborative prover costs about twice a single prover (Ozdemir-Boneh, seed 003 reference [1], line 281)
COLLAB_FACTOR = 2


def positive(x, name: str) -> int:
    """x as a positive int, or a ValueError naming it."""
    if int(x) <= 0:
        raise ValueError(f"{name} must be positive, got {x}")
    return int(x)


def published_sources() -> tuple:
    """(the seed's own times, the baselines' prices) as measurement sets."""
    return measurements.load_source(f"published/{PUBLISHED}"), measurements.load_source(f"published/{BASELINES}")


def published_times(n: int = N_SEED, m: int = M_SEED) -> dict:
    """The seed's DB-SM / DB-RSM times (seconds) and the baselines' unit prices."""
    if (n, m) != (N_SEED, M_SEED):
        raise ValueError(f"the seed publishes n = {N_SEED}, m = {M_SEED} only, not n = {n}, m = {m}")
    ours, base = published_sources()
    b = "traceable-mixnets-bn254"
    tag = f"n{n}_m{m}"
    return {
        "dbsm_mixer_s": ours.seconds(b, f"step/mixnet/dbsm/mixer/{tag}"),
        "dbrsm_mixer_s": ours.seconds(b, f"step/mixnet/dbrsm/mixer/{tag}"),
        "dbsm_verifier_s": ours.seconds(b, f"step/mixnet/dbsm/verifier/{tag}"),
        "mix_mixer_s": ours.seconds("sample-report-bn254", f"step/mixnet/mix/mixer/{tag}"),
        "dbrsm_verifier_s": ours.seconds("sample-report-bn254", f"step/mixnet/dbrsm/verifier/{tag}"),
        "zksnark_sm_prove_s": base.seconds("zokrates-groth16", f"snark/groth16_merkle_sm/prove/{N_SEED}"),
        "zksnark_rsm_prove_s": base.seconds("zokrates-groth16", f"snark/groth16_merkle_rsm/prove/{N_SEED}"),
        "zksnark_verify_s": base.seconds("zokrates-groth16", f"snark/groth16_merkle_sm/verify/{N_SEED}"),
        "cpsnark_prove_s": base.seconds("cpsnarks-set", "snark/cpsnark_set/prove"),
        "cpsnark_verify_s": base.seconds("cpsnarks-set", "snark/cpsnark_set/verify"),
        "cpsnark_witness_s": base.seconds("cpsnarks-set", f"rsa_accumulator/witness/{N_SEED}"),
    }


# ---------------------------------------------------------------------------
# The baselines, as cost models in n

def collab_zksnark_s(n: int, prove_single_s: float, tree_build_s: float = 0.0) -> float:
    """Per-prover time of n collaborative zkSNARK proofs: twice n single-prover proofs (Ozdemir-Boneh),
    plus the one-off Merkle tree build (the seed leaves it out: 'conservative')."""
    positive(n, "n")
    return COLLAB_FACTOR * n * prove_single_s + tree_build_s


def cpsnark_set_s(n: int, prove_s: float, witness_s: float) -> float:
    """Single-prover cpSNARK-Set time for n membership proofs: each needs a proof and a witness,
    and a witness of an RSA accumulator over n elements costs O(n) (``model.RSAAccumulator.witness``)."""
    positive(n, "n")
    return n * (prove_s + witness_s)


@dataclass(frozen=True)
class Parameters:
    """One estimate of the traceable mixnets; the defaults are the CLI's and the seed's (n, m)."""
    n: int = option(N_SEED, Bounds(1, 10**6), "items: the seed's 10^4, and what-if up to 10^6",
                    words="items n")
    m: int = option(M_SEED, Bounds(2, 64), "mix-servers: at least two, each checks the others",
                    words="mix-servers m")
    curve: str = option("bn254", ("bn254", "bls12_381"), words="curve")
    security: str = option("malicious", ("malicious", "hbc"),
                           words="adversary", values={"malicious": "malicious mix-servers", "hbc": "honest-but-curious mix-servers"})

    def __post_init__(self):
        check_parameters(self)
