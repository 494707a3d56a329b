"""Primitive keys: one name means one mathematical operation everywhere.

A key is a slash-separated name with its sizes in it, e.g. ``modexp/6144/256``
(modulus bits / exponent bits) or ``hashset/lookup/1000000``.  Counts (from the
schemes) and prices (from measurement files) meet only through these keys, so
every key must match one of the families registered here; an unknown key is an
error, never a silent zero.

Each family is a regular expression with named size fields and a sentence that
says what one unit of the operation is.  Chapters that need a new operation
register it here, next to the others, so the vocabulary stays in one place.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass


class UnknownPrimitiveKey(KeyError):
    """A key that matches no registered primitive family."""

    def __str__(self):  # KeyError quotes its argument; say something readable instead
        return self.args[0]


@dataclass(frozen=True)
class Family:
    pattern: str       # regular expression over the whole key, with named groups for sizes
    meaning: str       # what one unit is; may use the named groups, e.g. "{mod}-bit modulus"
    group: str         # heading under which the book lists it
    # size fields in which the operation does more work as the size grows: a measurement file whose
    # price for a larger size lies wholly below the price for a smaller one (other sizes equal) is
    # refused (measurements.validate), since no estimate from it could be right
    grows: tuple = ()
    # the least time any machine takes for one operation: (seconds, per-unit seconds, ((size, power), ...)),
    # the larger of the first and the second times the product of the sizes' powers (``floor_s``)
    floor: tuple = (1e-9, 0.0, ())

    def match(self, key: str):
        return _compiled(self.pattern).fullmatch(key)

    def floor_s(self, key: str) -> float:
        """The least plausible price of `key` in seconds: a file below it has its unit wrong (a time in
        ms read as ns), not a faster machine (``measurement_schema``'s plausible-price check)."""
        at_least, per, powers = self.floor
        work = per
        for name, power in powers:
            work *= sizes(key)[name] ** power
        return max(at_least, work)


_compiled = functools.lru_cache(maxsize=None)(re.compile)


def _floor(at_least: float, per: float = 0.0, **powers) -> tuple:
    return (at_least, per, tuple(sorted(powers.items())))


# Floors: about a fiftieth of the fastest time published for the operation on any CPU (zkalc's
# machines, the libraries' own benchmarks; multi-threaded MSMs and multi-pairings on many cores
# included), and 1 ns for everything else.  A modular product of N-bit numbers is counted as
# (N/64)^2 word products of at least 0.05 ns each.
_WORD = 0.05e-9 / 64 ** 2


_N = r"(?P<{}>[1-9][0-9]*)"

FAMILIES: list[Family] = [
    Family(rf"modexp/{_N.format('mod')}/{_N.format('exp')}",
           "b^e mod N for an odd {mod}-bit modulus N and an exponent of exactly {exp} bits",
           "modular arithmetic", grows=("mod", "exp"),
           floor=_floor(1e-9, _WORD, exp=1, mod=2)),
    Family(r"ristretto255/mul",
           "variable-base scalar multiplication k*P in ristretto255 (256-bit scalar)", "ristretto255",
           floor=_floor(0.5e-6)),
    Family(r"ristretto255/mul_base",
           "fixed-base scalar multiplication k*B by the ristretto255 generator", "ristretto255",
           floor=_floor(0.2e-6)),
    Family(r"ristretto255/from_hash",
           "the RFC 9496 one-way map from 64 uniform bytes to a ristretto255 element", "ristretto255",
           floor=_floor(20e-9)),
    Family(r"ristretto255/encode", "encoding a ristretto255 element to 32 bytes", "ristretto255",
           floor=_floor(10e-9)),
    Family(r"ristretto255/decode", "decoding (and validating) 32 bytes to a ristretto255 element",
           "ristretto255",
           floor=_floor(10e-9)),
    Family(r"(?P<group>ristretto255|bls12_381|bn254)/scalar_inv",
           "inverting a nonzero scalar modulo the prime order of {group}'s group (its scalar field)",
           "scalar fields"),
    Family(r"(?P<curve>bls12_381|bn254)/g1_mul",
           "variable-base scalar multiplication in G1 of {curve} (full-size scalar)", "pairing groups",
           floor=_floor(0.5e-6)),
    Family(r"(?P<curve>bls12_381|bn254)/g2_mul",
           "variable-base scalar multiplication in G2 of {curve} (full-size scalar)", "pairing groups",
           floor=_floor(1e-6)),
    Family(r"(?P<curve>bls12_381|bn254)/gt_exp",
           "exponentiation in the target group GT of {curve} (full-size exponent)", "pairing groups",
           floor=_floor(2e-6)),
    Family(r"(?P<curve>bls12_381|bn254)/pairing",
           "one full pairing e(P, Q) on {curve}: Miller loop and final exponentiation", "pairing groups",
           floor=_floor(5e-6)),
    Family(r"(?P<curve>bls12_381|bn254)/g1_mul_fixed",
           "full-size scalar multiplication of a fixed G1 point of {curve} from a precomputed table "
           "(8-bit windows: one addition per window, no doublings)", "pairing groups",
           floor=_floor(0.1e-6)),
    Family(rf"(?P<curve>bls12_381|bn254)/g1_mul/{_N.format('bits')}",
           "variable-base scalar multiplication in G1 of {curve} by a short scalar of {bits} bits "
           "(the random weights of batch checks and shuffle challenges)", "pairing groups", grows=("bits",),
           floor=_floor(10e-9, 2e-9, bits=1)),
    Family(rf"(?P<curve>bls12_381|bn254)/gt_exp/{_N.format('bits')}",
           "exponentiation in the target group GT of {curve} by a short exponent of {bits} bits "
           "(a sum of batch-check weights)", "pairing groups", grows=("bits",),
           floor=_floor(10e-9, 8e-9, bits=1)),
    Family(r"(?P<curve>bls12_381|bn254)/(?P<group>g1|g2|gt)_to_bytes",
           "serialising an element of {group} of {curve} for a Fiat–Shamir hash: its affine coordinates "
           "(for GT its 12 coefficients over F_p) as 48-byte big-endian integers", "pairing groups"),
    Family(r"(?P<curve>bls12_381|bn254)/(?P<op>g2_mul|gt_exp)_fixed",
           "{op} of {curve} with a full-size exponent and a fixed base, from a table precomputed "
           "for that base", "pairing groups",
           floor=_floor(0.2e-6)),
    Family(r"(?P<curve>bls12_381|bn254)/(?P<group>g1|g2)_add",
           "one addition of two points of {group} of {curve} (the group law)", "pairing groups",
           floor=_floor(5e-9)),
    Family(rf"(?P<curve>bls12_381|bn254)/(?P<group>g1|g2)_msm/{_N.format('terms')}",
           "one multi-scalar multiplication sum k_i P_i of {terms} full-size terms in {group} of {curve}",
           "pairing groups", grows=("terms",),
           floor=_floor(10e-9, 1e-9, terms=1)),
    Family(rf"(?P<curve>bls12_381|bn254)/pairing_product/{_N.format('pairs')}",
           "a product of {pairs} pairings of {curve}: one Miller loop per pair, one final exponentiation",
           "pairing groups", grows=("pairs",),
           floor=_floor(5e-6)),
    Family(r"(?P<curve>bls12_381)/(?P<group>g1|g2)_encode",
           "compressing a point of {group} of {curve} to its ZCash encoding (48 or 96 bytes): "
           "conversion to affine coordinates and the sign flag", "pairing groups"),
    Family(r"(?P<curve>bls12_381)/(?P<group>g1|g2)_decode",
           "decoding a compressed {group} point of {curve} with every check: canonical x, a square "
           "root for y, and the subgroup check (membership in the order-r subgroup)", "pairing groups"),
    Family(r"(?P<curve>bls12_381)/hash_to_g1",
           "RFC 9380 hash_to_curve to G1 of {curve} (suite XMD:SHA-256_SSWU_RO_), short message",
           "pairing groups",
           floor=_floor(0.5e-6)),
    Family(r"(?P<curve>bls12_381)/hash_to_g2",
           "RFC 9380 hash_to_curve to G2 of {curve} (suite XMD:SHA-256_SSWU_RO_), short message",
           "pairing groups",
           floor=_floor(1e-6)),
    Family(r"(?P<curve>bls12_381)/encode_to_(?P<group>g1|g2)",
           "RFC 9380 encode_to_curve to {group} of {curve} (suite XMD:SHA-256_SSWU_NU_, nonuniform), short "
           "message; no benchmark measures it yet", "pairing groups"),
    Family(rf"modmul/{_N.format('mod')}",
           "one product a*b mod N of two residues modulo an odd {mod}-bit modulus N", "modular arithmetic",
           grows=("mod",),
           floor=_floor(1e-9, _WORD, mod=2)),
    Family(rf"modexp_fixed/{_N.format('mod')}/{_N.format('exp')}/{_N.format('block')}",
           "b^e mod N for a fixed base b, an odd {mod}-bit modulus N and an exponent of {exp} bits, from "
           "tables precomputed for b: one product mod N per {block}-bit block of the exponent with that "
           "block's entry (2^{block} entries per block, all of them kept in memory)", "modular arithmetic",
           grows=("mod", "exp"),
           floor=_floor(1e-9, _WORD, exp=1, mod=2, block=-1)),
    Family(rf"intdiv/{_N.format('num')}/{_N.format('den')}",
           "floor division of a {num}-bit integer by a {den}-bit one (Paillier's L(u) = (u - 1) / N)",
           "modular arithmetic", grows=("num",)),
    Family(rf"rsa/{_N.format('bits')}/sign",
           "one RSA private-key operation with a {bits}-bit modulus, CRT included (openssl speed)",
           "modular arithmetic", grows=("bits",),
           floor=_floor(1e-9, _WORD / 8, bits=3)),
    Family(rf"(?P<hash>sha256|sha512)/{_N.format('bytes')}B",
           "one {hash} digest of a {bytes}-byte input", "hashing", grows=("bytes",),
           floor=_floor(5e-9, 0.02e-9, bytes=1)),
    Family(rf"hashset/lookup/{_N.format('size')}",
           "membership test of a 32-byte key in a hash set holding {size} keys", "hashing"),
    Family(r"bytes/copy",
           "one byte copied into a new Python bytes object (a byte string built by repeated "
           "concatenation, res += piece, is copied whole at every step)", "hashing", floor=_floor(1e-12)),
    # Protocol-level times (a whole step of a scheme), for published step timings and
    # validation runs; they are never mixed into primitive count vectors.
    Family(r"step/(?P<scheme>[a-z0-9_]+)/(?P<step>[a-z0-9_]+(?:/[a-z0-9_]+)*)",
           "one run of the step {step} of {scheme} (a protocol-level time, not a primitive)",
           "protocol steps"),
    # Published black-box costs used by the traceable-mixnet baselines (seed 003).  They stay here,
    # not in the mixnet package: measurement files are checked (costbook check, every load)
    # without importing any scheme, so every key a file may hold is known to this module.
    Family(rf"snark/(?P<system>groth16_merkle_sm|groth16_merkle_rsm)/(?P<phase>prove|verify)/{_N.format('set')}",
           "one {system} {phase} for a set of {set} elements (ZoKrates, Groth16, Poseidon Merkle tree)",
           "published baselines"),
    Family(r"snark/(?P<system>cpsnark_set)/(?P<phase>prove|verify)",
           "one {system} membership {phase} given the witness (Benarroch et al.)", "published baselines"),
    Family(rf"rsa_accumulator/witness/{_N.format('set')}",
           "computing one RSA-accumulator membership witness in a set of {set} elements",
           "published baselines", grows=("set",)),
]


def family_of(key: str) -> Family:
    """Return the family a key belongs to, or raise UnknownPrimitiveKey naming it."""
    if not isinstance(key, str):
        raise UnknownPrimitiveKey(f"primitive key must be a string, got {key!r}")
    return _family_of(key)


# Every load and every price asks for the family of the same few hundred keys; matching all the
# patterns each time was a fifth of an estimate's time.  FAMILIES is fixed once this module loads.
@functools.lru_cache(maxsize=1 << 16)
def _family_of(key: str) -> Family:
    for fam in FAMILIES:
        if fam.match(key):
            return fam
    raise UnknownPrimitiveKey(
        f"unknown primitive key {key!r}: it matches no family in costbook.prices.keys "
        f"(known families: {', '.join(f.pattern for f in FAMILIES)})")


def readable_pattern(fam: Family) -> str:
    """A family's pattern as a reader writes it: modexp/<mod>/<exp>, {bls12_381|bn254}/g1_mul."""
    out, i, p = [], 0, fam.pattern
    while i < len(p):
        m = re.match(r"\(\?P<(\w+)>", p[i:])
        if not m:
            out.append(p[i])
            i += 1
            continue
        depth, j = 1, i + m.end()           # find the group's closing parenthesis
        while depth:
            depth += {"(": 1, ")": -1}.get(p[j], 0)
            j += 1
        body = p[i + m.end():j - 1]
        out.append("{" + body + "}" if re.fullmatch(r"[\w|]+", body) and "|" in body
                   else body if re.fullmatch(r"\w+", body) else f"<{m.group(1)}>")
        i = j
    return "".join(out).replace("\\", "")


# Families whose keys are whole protocol steps or black-box published systems: they can be
# priced and compared, but they are not primitives and chapter 1 does not list them.
PROTOCOL_LEVEL_GROUPS = frozenset({"protocol steps", "published baselines"})


def is_primitive(key: str) -> bool:
    """True for a primitive operation, False for a protocol-level key (a step, a published system)."""
    return family_of(key).group not in PROTOCOL_LEVEL_GROUPS


def check_key(key: str) -> str:
    family_of(key)
    return key


def describe(key: str) -> str:
    """One sentence saying what one unit of `key` is."""
    fam = family_of(key)
    return fam.meaning.format(**fam.match(key).groupdict())


def sizes(key: str) -> dict:
    """The size fields of a key as a dict, numbers converted to int."""
    return dict(_size_fields(key))


@functools.lru_cache(maxsize=65536)
def _size_fields(key: str) -> tuple:
    # a derivation rule reads the sizes of every key of a backend, for every price it derives
    m = family_of(key).match(key)
    return tuple((k, int(v) if v.isdigit() else v) for k, v in m.groupdict().items())


def modexp_key(modulus_bits: int, exponent_bits: int) -> str:
    if modulus_bits <= 0 or exponent_bits <= 0:
        raise ValueError(f"modexp sizes must be positive, got {modulus_bits}/{exponent_bits}")
    return f"modexp/{int(modulus_bits)}/{int(exponent_bits)}"


def exponent_bits_for(modulus_bits: int) -> tuple:
    """256, 512, half and full: the exponent lengths the cost models use (and the modexp benchmarks time)."""
    return tuple(sorted({256, 512, modulus_bits // 2, modulus_bits}))


def modexp_keys(moduli) -> tuple:
    """modexp/<m>/<e> for each modulus length in `moduli`, at each of its ``exponent_bits_for``."""
    return tuple(modexp_key(m, e) for m in moduli for e in exponent_bits_for(m))


def sort_key(key: str) -> list:
    """Order keys as a reader expects: sizes numerically (msm/16 before msm/1024), names alphabetically."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in key.split("/")]
