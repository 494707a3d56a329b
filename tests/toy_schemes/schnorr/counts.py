"""The toy Schnorr scheme's cost formula: the operation counts of each step, as functions of its options.

``formula`` is read off schnorr.py (one signature); ``count_steps`` tallies the same steps by running
the code.  ``step_counts(**options)`` is the entry every scheme's counts.py has: {label of each price
call ``model.estimate`` makes: the Counts it prices}.  model.py prices these counts; nothing here
prices.
"""
from __future__ import annotations

from costbook.prices.cost import Counts
from costbook.prices.counting import counting

from . import schnorr
from .seed import Parameters

STEPS = ("keygen", "sign", "verify")


def formula(wire: str = "bytes") -> dict:
    """{step: Counts} of one signature, read off schnorr.py: the cost formula the estimate prices.
    The scheme contract (tests/test_scheme_contract.py) compares it with what running the code tallies
    (``code_counts``)."""
    challenge = {"sha512/64B": 1}                    # H(encode(R) || m), 64 bytes
    return {"keygen": Counts({"ristretto255/mul_base": 1}),
            # R = r B, encode(R), e, s = r + e x
            "sign": Counts({"ristretto255/mul_base": 1, "ristretto255/encode": 1, **challenge}),
            # decode(R) (and the public key when it comes as bytes), e, s B == R + e X
            "verify": Counts({"ristretto255/decode": 2 if wire == "bytes" else 1, "ristretto255/mul_base": 1,
                              "ristretto255/mul": 1, **challenge})}


def count_steps(wire: str = "bytes") -> dict:
    """{step: Counts} of one signature, by running the code (the counts do not depend on the data)."""
    steps = schnorr.run(1, wire)
    out = {}
    for name in STEPS:
        with counting() as c:
            steps[name]()
        out[name] = c
    return out


def times(name: str, messages: int) -> int:
    """How many times a step runs: one key, `messages` signatures and verifications."""
    return 1 if name == "keygen" else messages


def step_counts(messages: int = 4, wire: str = "bytes") -> dict:
    """{label: Counts} of each step ``model.estimate`` prices at these options (every option changes
    counts): the key made once, `messages` digests signed and verified."""
    Parameters(messages, wire)
    counts = formula(wire)
    return {f"schnorr {name}": counts[name] * times(name, messages) for name in STEPS}
