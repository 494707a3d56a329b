"""The toy Schnorr scheme's cost model: its formula (counts.py) priced by estimate(), validate(), and
its ledger rows.  Every name of ``costbook.schemes.MODEL_API`` is here; nothing else in costbook names
this scheme."""
from __future__ import annotations

from costbook.views import ledger as L
from costbook.prices import measurements
from costbook.prices.cost import Counts, price
from costbook.prices.counting import counting
from costbook.prices.timed import TOTAL, Timed
from costbook.timing.harness import Profile
from costbook.writing.report import Table, fmt_time
from costbook.schemes import Bounds, check_validation_options, options
from costbook.calibration.validation import format_runs, runs_result, validate_steps

from . import schnorr, seed
from .counts import STEPS, count_steps, formula, times  # noqa: F401 - also model's names
from .seed import Parameters

NAME = "schnorr"
OPTIONS = options(Parameters)
#: the sizes validate runs the code at (checked by the CLI before it runs, and by validate): every
#: numeric option validate takes needs its Bounds here
VALIDATION_BOUNDS = {"messages": Bounds(1, 16)}
#: backend -> the keys its estimates read at any point of its page: what the quick profile measures for it
#: (tests/test_quick_profile.py fails, naming them, on a key read and not declared)
PRICED_KEYS = {"sage": tuple(f"ristretto255/{op}" for op in ("decode", "encode", "mul", "mul_base")),
               "python": ("sha512/64B",)}
PUBLISHED = seed.PUBLISHED
#: a validation run small enough for the tests (three samples of 20 ms batches per operation)
PROFILE = Profile("toy", samples=3, min_batch_seconds=0.02, warmup_seconds=0.0)


def estimate(source, backends=None, messages: int = 4, wire: str = "bytes") -> dict:
    """Seconds of key generation and of `messages` signatures and verifications, priced with
    `source` only (a hash of a length it did not measure priced by its blocks, ``cost.hash_by_blocks``)."""
    Parameters(messages, wire)
    counts = formula(wire)
    steps = {}
    for name in STEPS:
        est = price(counts[name] * times(name, messages), source, backends, label=f"{NAME} {name}", derive=True)
        steps[name] = est.to_dict() | {"seconds": est.total}
    # Timed: the estimated times, which get their prediction intervals (costbook.prices.timed)
    return Timed({"scheme": NAME, "source": source.name, "messages": messages, "wire": wire, "steps": steps,
                  "total_s": sum(s["seconds"] for s in steps.values()),
                  "low_s": sum(s["low_s"] for s in steps.values()), "high_s": sum(s["high_s"] for s in steps.values())},
                 [TOTAL])


# ---------------------------------------------------------------------------
# The scheme contract (tests/test_scheme_contract.py): the counts estimate prices against the code's

#: the option points at which the code runs and its tallies are compared with what estimate prices
COUNT_POINTS = ({"messages": 1, "wire": "bytes"}, {"messages": 3, "wire": "points"})


def code_counts(source=None, messages: int = 4, wire: str = "bytes") -> dict:
    """{label of each price call estimate makes at these options: the counts running the code tallies
    for it}: the key made once, `messages` digests signed and verified."""
    Parameters(messages, wire)
    steps = schnorr.run(1, wire)
    out = {}
    for name in STEPS:
        with counting() as c:
            for _ in range(times(name, messages)):
                steps[name]()
        out[f"{NAME} {name}"] = c
    return out


def format_estimate(result: dict) -> str:
    t = Table(["step", "seconds", "interval"])
    for name, s in result["steps"].items():
        t.add(name, fmt_time(s["seconds"]), f"[{fmt_time(s['low_s'])}, {fmt_time(s['high_s'])}]")
    return (f"Schnorr on ristretto255, {result['messages']} signatures (wire: {result['wire']}), "
            f"priced with {result['source']}\n" + t.to_text())


def validate(messages: int = 2, wire: str = "bytes") -> dict:
    """Time each step of the Sage code against its counts priced with primitives timed in the same
    rounds (backend sage)."""
    Parameters(messages, wire)
    check_validation_options(NAME, VALIDATION_BOUNDS, {"messages": messages})
    steps = schnorr.run(messages, wire)
    counts = count_steps(wire)
    checks = validate_steps(steps, counts, "sage", profile=PROFILE)
    return runs_result([{"messages": messages, "wire": wire, "checks": [c.to_dict() for c in checks]}],
                       scheme="schnorr")


def format_validation(result: dict) -> str:
    return format_runs(result, ["messages", "wire"])


# ---------------------------------------------------------------------------
# The ledger: every figure of the note, next to the book's value

def published():
    return measurements.load_source(f"published/{PUBLISHED}")


def ledger_claims() -> dict:
    return {f"claim:{NAME}:signature-bytes": (L.seed_key("900"), seed.SIGNATURE[2])}


def ledger_rows() -> list:
    mset = published()
    note = mset.provenance["seed"]
    rows = L.echoed_rows(NAME, mset, ["toy-laptop"])
    est = estimate(mset, ["toy-laptop"], messages=1)
    for step, (value, unit, line) in seed.STATED.items():
        key = f"step/{NAME}/{step}"
        book = est["steps"][step]["seconds"] / measurements.UNITS[unit]
        rows.append(L.row(NAME, note, line, f"{step}, one signature", f"{value} {unit}", book, "predicted",
                          "the note's prices times the counts of this folder's code",
                          L.entry_figure(mset, "toy-laptop-steps", key)))
    value, unit, line = seed.SIGNATURE
    rows.append(L.row(NAME, note, line, "signature size", f"{value} {unit}", schnorr.SIGNATURE_BYTES, "computed",
                      "encode(R) and s", f"claim:{NAME}:signature-bytes"))
    return rows
