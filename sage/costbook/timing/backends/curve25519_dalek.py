"""curve25519-dalek 2.0.0, the library the punch-card seed's Rust code pins, timed by a Rust program.

The seed states one ristretto255 price (a variable-base multiplication, 50 µs); its laptop's other
prices are that figure times a ratio measured here, in the same library, so a ratio stands for the
operation the seed actually ran: dalek's compress and decompress, its Montgomery-chain scalar
inversion, its fixed-base table (``punchcard.prices.seed_machine_prices``).  No other library's
ratio is an exact stand-in: libsodium's multiplication takes and returns encodings, and it inverts a
scalar by a different method.

This backend is not one of ``costbook measure``'s Python modules: it needs a Rust toolchain, which a
reader of the book does not, so its file is measured once and committed
(``measurements/seed-libraries/``); ``costbook measure-dalek`` (``make measure-dalek``; ``costbook.timing.measure.measure_dalek``) builds
``bench/curve25519-dalek`` with its committed Cargo.lock and rewrites the file atomically.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

from ...prices import measurements
from ..harness import summarize

BACKEND = "curve25519-dalek"
LIBRARY = "curve25519-dalek 2.0.0"
#: the keys the Rust program times (the punch card's ristretto255 counts)
KEYS = ("ristretto255/mul", "ristretto255/mul_base", "ristretto255/encode", "ristretto255/decode",
        "ristretto255/from_hash", "ristretto255/scalar_inv")
FILE_NAME = "curve25519-dalek-2.0.0.json"


class DalekUnavailable(RuntimeError):
    """No Rust toolchain, or the benchmark did not build or run; the message says which."""


def crate_dir() -> Path:
    return measurements.project_root() / "bench" / "curve25519-dalek"


def committed_path() -> Path:
    """The committed measurement of the seed's library (``measurements/seed-libraries/``)."""
    return measurements.project_root() / "measurements" / "seed-libraries" / FILE_NAME


def load_committed() -> measurements.MeasurementSet:
    return measurements.load(committed_path())


def parse_output(text: str) -> dict:
    """{key: Timing entry} from the Rust program's JSON, every key of KEYS present, every sample a
    positive finite number; anything else is an error naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DalekUnavailable(f"the dalek benchmark printed no JSON ({e}): {text[:200]!r}") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict):
        raise DalekUnavailable("the dalek benchmark's output has no 'results' object")
    missing = [k for k in KEYS if k not in results]
    if missing:
        raise DalekUnavailable(f"the dalek benchmark's output lacks {', '.join(missing)}")
    out = {}
    for key in KEYS:
        r = results[key]
        xs, batch = r.get("per_op"), r.get("batch")
        if (not isinstance(xs, list) or not xs or not isinstance(batch, int) or batch < 1
                or not all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in xs)):
            raise DalekUnavailable(f"the dalek benchmark's {key}: samples must be positive numbers and "
                                   f"its batch a positive integer, got {r!r}")
        out[key] = summarize([float(x) for x in xs], batch).to_entry()
    return out


def build(target_dir: Path) -> Path:
    """Build the benchmark (release, --locked: the committed Cargo.lock) and return the binary."""
    cargo = shutil.which("cargo")
    if cargo is None:
        raise DalekUnavailable("cargo is not installed: the dalek benchmark is a Rust program "
                               "(https://rustup.rs); the committed file "
                               f"{committed_path().relative_to(measurements.project_root())} needs no toolchain")
    done = subprocess.run([cargo, "build", "--release", "--locked", "--quiet",
                           "--manifest-path", str(crate_dir() / "Cargo.toml"), "--target-dir", str(target_dir)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise DalekUnavailable(f"cargo build of {crate_dir()} failed:\n{done.stderr[-2000:]}")
    return target_dir / "release" / "costbook-dalek-bench"


def rust_version() -> str:
    try:
        return subprocess.run(["rustc", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
