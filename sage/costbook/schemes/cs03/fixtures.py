"""Committed CS03 key pairs and auxiliary moduli, so the chapter runs in seconds.

Generating a 4096-bit n takes two 2048-bit safe primes, minutes of work; the
fixtures are made once by

    python -m costbook.schemes.cs03.fixtures --bits 3072 4096

and committed as JSON next to this file.  Each records how long its safe primes
took.  The auxiliary modulus N keeps no factors: in the protocol the prover must
not know them.  Fixture keys are for reproducible reading and testing only: their
secret keys are public.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from ...groups.rsa import random_safe_prime
from .proof import AuxParams
from .scheme import SecretKey, keygen_from_primes

FIXTURE_DIR = Path(__file__).with_name("fixtures")


def fixture_path(bits: int) -> Path:
    return FIXTURE_DIR / f"cs03-{bits}.json"


def load(bits: int) -> tuple[SecretKey, AuxParams]:
    """The committed (secret key, auxiliary parameters) with an n of `bits` bits."""
    path = fixture_path(bits)
    if not path.exists():
        have = sorted(int(p.stem.split("-")[1]) for p in FIXTURE_DIR.glob("cs03-*.json"))
        raise FileNotFoundError(f"no CS03 fixture for n of {bits} bits (have {have}); "
                                f"generate one with python -m costbook.schemes.cs03.fixtures --bits {bits}")
    d = json.loads(path.read_text())
    return SecretKey.from_json(d["secret_key"]), AuxParams.from_json(d["aux"])


def generate(bits: int, seed: int | None = None) -> dict:
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    times = []

    def timed_safe_prime():
        t0 = time.perf_counter()
        p = random_safe_prime(bits // 2, rng)
        times.append(time.perf_counter() - t0)
        return p

    p = timed_safe_prime()
    while (q := timed_safe_prime()) == p:
        pass
    sk = keygen_from_primes(p, q, rng)
    P = timed_safe_prime()
    while (Q := timed_safe_prime()) == P:
        pass
    N = P * Q
    g_, h_ = (pow(rng.randrange(2, N), 2, N) for _ in range(2))
    return {"bits": bits, "secret_key": sk.to_json(), "aux": AuxParams(N, g_, h_).to_json(),
            "generation": {"safe_prime_bits": bits // 2, "seconds_per_safe_prime": times,
                           "seed": seed, "note": "P and Q of N were discarded"}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=int, nargs="+", required=True)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args(argv)
    FIXTURE_DIR.mkdir(exist_ok=True)
    for bits in args.bits:
        d = generate(bits, args.seed)
        fixture_path(bits).write_text(json.dumps(d, indent=1) + "\n")
        print(bits, [round(t, 1) for t in d["generation"]["seconds_per_safe_prime"]])


if __name__ == "__main__":
    main()
