"""Vector commitments' cost formula: the operation counts of each operation, and the sizes, in n.

``pointproofs_counts`` and ``merkle_counts`` are formulas in n, read off pointproofs.py and
merkle.py; the tests and the chapter check them against the counts tallied by running the code
(``model.run_ops``).  ``step_counts(**options)`` is the entry every scheme's counts.py has: {label of
each price call ``model.estimate`` makes (``op_words``): the Counts it prices}.  model.py prices
these counts; nothing here prices.
"""
from __future__ import annotations

import functools

from ...prices.cost import Counts
from . import merkle
from .seed import VALUE_BYTES, Parameters

SCHEME_NAMES = {"pointproofs": "Pointproofs", "merkle": "Merkle"}


def op_words(scheme: str, op: str | None = None) -> str:
    """An operation's name in the chapter's tables and the live estimate ("Merkle proof update, no
    helper"); `scheme` may also be a key ("merkle/proof_update_no_helper")."""
    if op is None:
        scheme, op = scheme.split("/", 1)
    words = op.replace("_", " ").replace(" no helper", ", no helper").replace(" with helper", ", with helper")
    return f"{SCHEME_NAMES[scheme]} {words}"



def _ceil_log2(n: int) -> int:
    return (n - 1).bit_length()


def pointproofs_counts(n: int, msm: bool = False, value_bytes: int = VALUE_BYTES) -> dict:
    """Per operation; hash_to_fr hashes 10 + 4 + value_bytes bytes with SHA-512."""
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    h = f"sha512/{14 + value_bytes}B"
    g1, add, pp2 = "bls12_381/g1_mul", "bls12_381/g1_add", "bls12_381/pairing_product/2"
    # term by term (the seed's code): one multiplication and one addition per nonzero term
    commit = Counts({h: n, f"bls12_381/g1_msm/{n}": 1}) if msm else Counts({h: n, g1: n, add: n})
    prove = Counts({h: n, f"bls12_381/g1_msm/{n - 1}": 1}) if msm else Counts({h: n, g1: n - 1, add: n - 1})
    return {
        "commit": commit,
        "prove": prove,
        # decode the proof (with its subgroup check), hash, 2 G1 mults, 1 two-pair product
        "verify": Counts({"bls12_381/g1_decode": 1, h: 1, g1: 2, pp2: 1}),
        "commit_update": Counts({h: 2, g1: 1, add: 1}),
        "proof_update": Counts({h: 2, g1: 1, add: 1}),
    }


@functools.lru_cache(maxsize=None)        # a pass over all n positions, asked by every estimate at n
def mean_update_height(n: int, c: int | None = None) -> float:
    """The height floor(log2(p XOR c)) at which a proof of p changes when c changes, averaged over
    all p != c (c defaults to n // 2): h = D - 1 for half of the positions, D - 2 for a quarter, ..."""
    c = n // 2 if c is None else c
    hs = [(p ^ c).bit_length() - 1 for p in range(n) if p != c]
    return sum(hs) / len(hs)


def merkle_counts(n: int, value_bytes: int = VALUE_BYTES, update_height: float | None = None) -> dict:
    """Per operation; a leaf hashes 9 + value_bytes bytes, an inner node 73 bytes.

    commit hashes n leaves and sum_{h=1}^{D} ceil(n / 2^h) inner nodes; a path is 1 leaf and D nodes;
    a proof update without helper hashes 1 leaf and h nodes for the height h where the two paths
    meet (default: its mean over the other positions, ``mean_update_height``).

    The hashes are the scheme's cost (the seed's Rust pays little else).  What the book's Python code
    (``merkle.py``) pays around them is measured by the validation, not counted (``run_ops``)."""
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    D = _ceil_log2(n)
    leaf, node = f"sha256/{9 + value_bytes}B", "sha256/73B"
    inner = sum(-(-n // 2**h) for h in range(1, D + 1))
    h = mean_update_height(n) if update_height is None else update_height
    path = Counts({leaf: 1, node: D})
    return {
        "commit": Counts({leaf: n, node: inner}),
        "prove": Counts(),
        "verify": path,
        "commit_update": path,
        "proof_update_no_helper": Counts({leaf: 1}) + (Counts({node: h}) if h else Counts()),
        "proof_update_with_helper": Counts(),
    }


def sizes(n: int) -> dict:
    return {"pointproofs": {"commitment": 48, "proof": 48, "aggregate": 48},
            "merkle": {"commitment": 32, "proof": merkle.proof_bytes(n)}}



def step_counts(n: int = 1000, msm: str = "no") -> dict:
    """{label: Counts} of every operation of both schemes that ``model.estimate`` prices at size n
    (both options change counts; `msm` "yes": Pointproofs' commit and prove as one multi-scalar
    multiplication)."""
    use_msm = msm in ("yes", True)
    n = Parameters(int(n), "yes" if use_msm else "no").n
    return {op_words(scheme, op): c for scheme, counts in (("pointproofs", pointproofs_counts(n, use_msm)),
                                                           ("merkle", merkle_counts(n)))
            for op, c in counts.items()}
