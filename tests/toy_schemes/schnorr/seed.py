"""What the toy seed note (900_toy_schnorr.md, in this folder) publishes, and the CLI's options."""
from __future__ import annotations

from dataclasses import dataclass

from costbook.schemes import Bounds, check_parameters, option

#: its file in published/
PUBLISHED = "toy-schnorr-laptop"
#: the note's stated step times and the signature size: (value, unit, line)
STATED = {"sign": (25, "us", 11), "verify": (81, "us", 11)}
SIGNATURE = (64, "B", 12)


@dataclass(frozen=True)
class Parameters:
    messages: int = option(4, Bounds(1, 64), "signatures made and verified; counts are per signature "
                                             "and scale, so 64 is ample and keeps a count run quick")
    wire: str = option("bytes", ("bytes", "points"), "bytes: the verifier decodes the public key too")

    def __post_init__(self):
        check_parameters(self)
