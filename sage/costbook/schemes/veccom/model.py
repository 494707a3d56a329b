"""Vector commitments' cost model: the seed reproduced, the formula priced, validation.

Counts per operation are formulas in n (counts.py: ``pointproofs_counts``, ``merkle_counts``) that the
tests and the chapter check against the counts tallied by running the code (``run_ops``).  Prices:

* the seed's Mac, *implied* by the seed's own benchmarks: one G1 multiplication from the commit
  benchmark (n of them), the 2-pair pairing product from verify (minus its three G1
  multiplications), one SHA-256 compression from the Merkle commit; every other seed number is
  then a prediction;
* any measurement file (reference, local): ``sage`` for the book's code, ``arkworks`` native.
"""
from __future__ import annotations

import random
from typing import NamedTuple

from ...prices.cost import Counts, price
from ...prices.counting import counting
from ...prices import defaults, measurements
from ...prices.derived import entry, price_set, ratio_source
from ...calibration.intervals import fmt_of, spreadless
from ...prices.timed import interval
from .. import Bounds, StepGroup, check_validation_options, option_words, options
from . import merkle, pointproofs as PP
from .counts import (_ceil_log2, mean_update_height, merkle_counts, op_words,  # noqa: F401 - also model's names
    pointproofs_counts, sizes)
from .seed import (PUBLISHED, SEED_CLAIMS, SEED_FILE, SEED_MAC_G1_ADD_S, SEED_SIZE_LINES, VALUE_BYTES, Claim,
    Parameters, published)

SEED_BACKEND = "seed-mac"
POINTPROOFS_OPS = ("commit", "prove", "verify", "commit_update", "proof_update")
MERKLE_OPS = ("commit", "prove", "verify", "commit_update", "proof_update_no_helper", "proof_update_with_helper")

OPTIONS = options(Parameters)
OPTION_WORDS = option_words(Parameters)


def op_key(scheme: str, op: str) -> str:
    """An operation's key in `estimate`'s JSON and the validation's records ("pointproofs/commit")."""
    return f"{scheme}/{op}"


#: the operations `estimate` prices, as the chapter's live estimate groups them
STEP_GROUPS = (
    StepGroup("Pointproofs, counted by running the Sage code (BLS12-381)",
              tuple(op_words("pointproofs", op) for op in POINTPROOFS_OPS)),
    StepGroup("The Merkle tree, counted by running the Sage code (SHA-256)",
              tuple(op_words("merkle", op) for op in MERKLE_OPS),
              "A Merkle proof, and a proof update with the helper, are copied from stored data: they cost no hashing."),
)


def _bench_key(scheme: str, op: str) -> tuple:
    """(backend, key) of the seed's benchmark of one operation."""
    backend = "veccom-pairings-criterion" if scheme == "pointproofs" else "veccom-merkle-bench"
    for key in published().keys(backend):
        if key.split("/")[2] == scheme and key.split("/")[3] == op:
            return backend, key
    raise KeyError(f"no seed benchmark of {scheme} {op}")


def bench(scheme: str, op: str):
    """(seconds, n) of the seed's benchmark of one operation."""
    backend, key = _bench_key(scheme, op)
    return published().seconds(backend, key), int(key.rsplit("/n", 1)[1])


def bench_printed(scheme: str, op: str) -> str:
    """The seed's benchmark of one operation as it prints it ("26.945 ms", "7829 ns")."""
    from ...writing.report import fmt_printed
    return fmt_printed(published().entry(*_bench_key(scheme, op)))


def bench_bounds(scheme: str, op: str) -> tuple:
    """(low, high) seconds of the seed's benchmark: criterion's confidence interval where it prints
    one, else the single number twice (the Merkle benchmarks' "+/-", libtest's range between its
    slowest and fastest samples, is not in the published file)."""
    return published().bounds(*_bench_key(scheme, op))


def reproduce_claims() -> list:
    """Each summary claim next to what the benchmark output gives (per element where the claim is n-linear).

    Per element means per multiplication for Pointproofs (commit does n, prove n - 1) and per
    element for Merkle's commit."""
    rows = []
    for c in SEED_CLAIMS:
        t, n = bench(c.scheme, c.op)
        units = 1
        if c.per == "n":
            units = n - 1 if (c.scheme, c.op) == ("pointproofs", "prove") else n
        rows.append((c, t / units * 1e6, n, units))
    return rows


# ---------------------------------------------------------------------------
# The seed's Mac, implied by its own benchmarks

def seed_machine_prices(native: measurements.MeasurementSet | None = None) -> measurements.MeasurementSet:
    """E1 from commit (n mults), the 2-pair product from verify - 3 E1, a SHA-256 compression from
    the Merkle commit (leaves 1 block, inner nodes 2 blocks); SHA-512 of a short input at the price
    of `native` (by default the committed reference machine; negligible, the seed gives none).

    Bounds: each price is solved from the benchmarks exactly, so its bounds are the same solve on
    the benchmarks' bounds (criterion's interval), by interval arithmetic: E1 from the commit's low
    and high, the pairing product from verify's low minus 3 E1 at its high (and the reverse).  The
    Merkle benchmark and the addition price are single numbers: those prices have no spread and
    their entries say so; SHA-512 takes `native`'s quartiles."""
    source = ratio_source(native)
    t_commit, n = bench("pointproofs", "commit")
    # The commit benchmark pays one multiplication and one addition per term; pairing-plus records
    # the projective G1 addition's price on the same author's Mac (SEED_MAC_G1_ADD_S; ec/mod.rs,
    # find_pippinger_window_via_estimate), which splits the per-term price.
    a1 = SEED_MAC_G1_ADD_S
    e1 = t_commit / n - a1
    c_low, c_high = bench_bounds("pointproofs", "commit")
    e1_low, e1_high = c_low / n - a1, c_high / n - a1
    t_verify, _ = bench("pointproofs", "verify")
    pp2 = t_verify - 3 * e1                    # 2 mults by h and the subgroup check of the proof
    v_low, v_high = bench_bounds("pointproofs", "verify")
    pp2_low, pp2_high = v_low - 3 * e1_high, v_high - 3 * e1_low
    # (so verify is fitted, not predicted; commit too: the other seven are predictions)
    t_mcommit, nm = bench("merkle", "commit")
    c = merkle_counts(nm)["commit"]
    blocks = sum(cnt * (2 if key == "sha256/73B" else 1) for key, cnt in c.items())
    comp = t_mcommit / blocks
    sha_key = f"sha512/{14 + VALUE_BYTES}B"
    if source.has("python", sha_key):
        sha512 = entry(source.seconds("python", sha_key), f"not in the seed: {source.name}'s price (negligible)",
                       low=source.bounds("python", sha_key)[0], high=source.bounds("python", sha_key)[1])
    else:
        sha512 = entry(1e-6, f"not in the seed nor in {source.name}: 1 us (negligible)",
                       no_spread="a placeholder price, not measured")
    merkle_single = "the Merkle benchmark prints one number, no spread"

    results = {
        "bls12_381/g1_mul": entry(e1, f"commit benchmark / n = {n}, minus one addition", low=e1_low, high=e1_high),
        "bls12_381/g1_decode": entry(e1, "one subgroup check = one G1 multiplication (pairing-fork)",
                                     low=e1_low, high=e1_high),
        "bls12_381/g1_add": entry(a1, "pairing-plus ec/mod.rs: projective G1 addition on the author's Mac",
                                  no_spread="one number in the pairing-plus source, no spread"),
        "bls12_381/pairing_product/2": entry(pp2, "verify benchmark minus 3 G1 multiplications",
                                             low=pp2_low, high=pp2_high),
        f"sha256/{9 + VALUE_BYTES}B": entry(comp, f"Merkle commit / {blocks} compressions (1 per leaf)",
                                            no_spread=merkle_single),
        "sha256/73B": entry(2 * comp, "2 compressions per inner node", no_spread=merkle_single),
        sha_key: sha512,
    }
    return price_set("the seed's Mac (implied by its benchmarks)", {SEED_BACKEND: results}, derivation="implied",
                     seed=SEED_FILE,
                     title="the seed's Mac: primitive prices solved from the seed's own benchmark times",
                     machine=published().provenance["machine"],
                     method="one G1 multiplication from the commit benchmark, the 2-pair product from verify, "
                            "one SHA-256 compression from the Merkle commit (costbook.schemes.veccom.model."
                            "seed_machine_prices)",
                     derived_from=[f"published/{PUBLISHED}", source.name])


def predict_seed(native: measurements.MeasurementSet | None = None) -> list:
    """Every seed benchmark next to its counts priced with the implied prices: (scheme, op, n, predicted, measured)."""
    prices = seed_machine_prices(native)
    rows = []
    for scheme, ops, counts_of in (("pointproofs", POINTPROOFS_OPS, pointproofs_counts),
                                   ("merkle", ("commit", "verify", "commit_update", "proof_update_no_helper"), merkle_counts)):
        for op in ops:
            t, n = bench(scheme, op)
            c = counts_of(max(n, 2))[op]
            pred = price(c, prices, SEED_BACKEND).total
            rows.append((scheme, op, n, pred, t))
    return rows


# ---------------------------------------------------------------------------
# Estimates on any measurement file

def estimate(source, backends=None, n: int = 1000, msm="no", native=None) -> dict:
    """Every operation of both schemes at size n priced with `source`; a published source means the
    seed's Mac (``seed_machine_prices``, its one unpublished price from `native`)."""
    use_msm = msm in ("yes", True)
    n = Parameters(int(n), "yes" if use_msm else "no").n
    if source.kind == "published":          # the seed's Mac, from its own benchmarks
        if backends:
            raise ValueError("--backend does not apply to the published source: the seed's prices come "
                             "from its own benchmarks (choose backends with --source reference or a file)")
        source, order = seed_machine_prices(native), [SEED_BACKEND]
    else:
        order = list(backends) if backends else defaults.order(["bls12_381", "sha512", "sha256"], source=source)
    pc, mc = pointproofs_counts(n, use_msm), merkle_counts(n)
    out = {"scheme": "veccom", "n": n, "msm": use_msm, "source": source.name, "sizes": sizes(n), "ops": {}}
    priced = []
    for scheme, counts in (("pointproofs", pc), ("merkle", mc)):
        for op, c in counts.items():
            est = price(c, source, order, label=op_words(scheme, op), derive=True)
            priced.append(est)
            out["ops"][op_key(scheme, op)] = interval(est, breakdown=est.to_dict()["breakdown"])
    out["prices_without_spread"] = spreadless(source, priced)
    out["left_out"] = INTERPRETER_LEFT_OUT
    return out


#: what ``estimate`` does not price, and why (``costbook validate veccom`` measures it)
INTERPRETER_LEFT_OUT = ("the Python interpreter's work around the hashes of the book's Merkle code: a price of that "
                        "code, not of the scheme (the seed's Rust pays the hashes); `costbook validate veccom` "
                        "measures it by running each operation with its hashes answered from a record")


def format_estimate(result: dict) -> str:
    lines = [f"vector commitments, n = {result['n']}, {'MSM' if result['msm'] else 'one multiplication per term'},"
             f" priced with {result['source']}"]
    for k, v in result["ops"].items():
        lines.append(f"  {k:<40} {fmt_of(v)}")
    if result.get("prices_without_spread"):
        lines.append("  prices without a spread (their bounds are their value): "
                     + ", ".join(result["prices_without_spread"]))
    lines.append(f"  left out: {result['left_out']}")
    s = result["sizes"]
    lines.append(f"  sizes: Pointproofs commitment/proof {s['pointproofs']['proof']} B; Merkle proof {s['merkle']['proof']} B")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Running the code: tallied counts and validation

def _values(n: int, tag: str = "values") -> list:
    rng = random.Random(f"costbook vector commitments/{tag}/{n}")
    return [rng.randbytes(VALUE_BYTES) for _ in range(n)]


def positions(n: int) -> tuple:
    """(i, j): the position ``run_ops`` opens and the one it changes (their paths meet at height
    floor(log2(i XOR j)), the proof update's)."""
    return n // 3, n - 1 - n // 5


def update_height(n: int) -> int:
    """The height at which the proof update of ``run_ops`` meets: floor(log2(i XOR j))."""
    i, j = positions(n)
    return (i ^ j).bit_length() - 1


class Run(NamedTuple):
    """Every operation run once at one size (``run_ops``)."""
    counts: dict        # op -> tallied Counts
    ops: dict           # op -> a callable repeating it
    height: int         # the height at which the proof update's two paths meet
    replays: dict       # Merkle op -> a callable repeating it with its hashes answered from a record


def run_ops(n: int, msm: bool = False) -> Run:
    """Run every operation once at size n: tallied counts, callables repeating each operation, and for
    each Merkle operation the same call with its hashes answered from a record (its interpreter work)."""
    vals = _values(n)
    new = _values(n, "new")
    i, j = positions(n)
    pp = PP.setup(n)
    counts, ops = {}, {}
    with counting() as c:
        C = PP.commit(pp, vals, msm)
    counts["pointproofs/commit"], ops["pointproofs/commit"] = c, lambda: PP.commit(pp, vals, msm)
    with counting() as c:
        pi = PP.prove(pp, vals, i, msm)
    counts["pointproofs/prove"], ops["pointproofs/prove"] = c, lambda: PP.prove(pp, vals, i, msm)
    pib = PP.PC.compress(pi, PP.C)
    with counting() as c:
        assert PP.verify_encoded(pp, C, i, vals[i], pib)
    counts["pointproofs/verify"], ops["pointproofs/verify"] = c, lambda: PP.verify_encoded(pp, C, i, vals[i], pib)
    with counting() as c:
        PP.commit_update(pp, C, j, vals[j], new[j])
    counts["pointproofs/commit_update"] = c
    ops["pointproofs/commit_update"] = lambda: PP.commit_update(pp, C, j, vals[j], new[j])
    with counting() as c:
        PP.proof_update(pp, pi, i, j, vals[j], new[j])
    counts["pointproofs/proof_update"] = c
    ops["pointproofs/proof_update"] = lambda: PP.proof_update(pp, pi, i, j, vals[j], new[j])

    T = merkle.Tree(vals)
    root, proof_i, proof_j = T.root, T.prove(i), T.prove(j)
    # each Merkle operation with the hashing helper it is given: merkle._sha256, or a stand-in;
    # verify through _verify, the verifier with its helper as an argument (verify passes _sha256)
    merkle_ops = {
        "merkle/commit": lambda h: (lambda: merkle.Tree(vals, h).root),
        "merkle/verify": lambda h: (lambda: merkle._verify(n, root, i, vals[i], proof_i, h)),
        "merkle/commit_update": lambda h: (lambda: merkle.commit_update(n, j, proof_j, new[j], sha256=h)),
        "merkle/proof_update_no_helper": lambda h: (lambda: merkle.proof_update(n, proof_i, i, j, proof_j, new[j],
                                                                               None, h)),
    }
    replays = {}
    for name, with_helper in merkle_ops.items():
        with counting() as c:
            result = with_helper(merkle._sha256)()
        assert result is not False, name          # the verification of a valid opening holds
        counts[name], ops[name] = c, with_helper(merkle._sha256)
        recorder, digests = merkle.recording()
        with_helper(recorder)()
        replays[name] = with_helper(merkle.answering(digests))
        # the stand-in answers the calls in the recorded order: a run that went another way would
        # time other work, so the answered run must give the same result (twice: it cycles)
        if not (replays[name]() == result == replays[name]()):
            raise RuntimeError(f"{name}: the run with recorded hashes diverged from the real one")
    return Run(counts, ops, update_height(n), replays)


#: the sizes a validation runs (its chapter's table; --n picks another): the smallest the tests run
#: and one 16 times larger, between which every count term varies (Pointproofs' n terms 16-fold, the
#: Merkle paths from 4 to 8 hashes).  A size costs the same few seconds of timing rounds however
#: small its operations (each batch fills VALIDATION_PROFILE's tenth of a second; a larger n takes
#: longer), and sizes in between or above show nothing these two do not: the errors have no trend in n.
VALIDATION_SIZES = (16, 256)
# What a validation's error is made of (its prediction interval's margin comes from the committed runs,
# costbook.calibration.uncertainty): Pointproofs' operations are their group operations and hashes.  A Merkle
# operation is its hashes, priced, plus the Python around them, measured by running it with its hashes
# answered from a record; what is left is the hashes' context: one SHA-256 call between the tree's
# Python steps costs more than in its own loop (the path operations most), and the margin carries that.
#: the share of a step its interpreter work may take (above validation.INTERPRETER_SHARE_LIMIT): the
#: Merkle code is pure Python around sub-microsecond hashes, and that Python is most of each
#: operation's time (the record answers hashlib's calls only, so nothing else priced can hide in it)
INTERPRETER_LIMITS = {"merkle/*": 0.70}
#: the sizes a validation (and the contract's count) runs the Sage code at: its setup alone is 3n
#: multiplications
VALIDATION_BOUNDS = {"n": Bounds(2, 4096)}
#: backend -> the keys the quick profile measures for it (costbook.timing.priced): what its estimates read at
#: every point of its page (an MSM's measured sizes around any n)
PRICED_KEYS = {
    "arkworks": ("bls12_381/g1_add", "bls12_381/g1_decode", "bls12_381/g1_mul", "bls12_381/pairing_product/2",
                 *(f"bls12_381/g1_msm/{k}" for k in (16, 64, 256, 1024))),
    "python": ("sha256/41B", "sha256/73B", "sha512/46B"),
}


def validate(n=None, **_ignored) -> dict:
    """Time each operation of the Sage code at n (default: each of VALIDATION_SIZES) against its
    tallied counts priced now (sage; hashes with python's hashlib, which the code calls), each Merkle
    operation's interpreter work measured by running it with its hashes answered from a record."""
    from ...calibration.validation import validation_runs
    check_validation_options("veccom", VALIDATION_BOUNDS, {"n": n})
    sizes_ = VALIDATION_SIZES if n is None else (int(n),)

    def cases():
        for size in sizes_:
            run = run_ops(int(size))
            yield {"n": int(size)}, run.ops, run.counts, run.replays
    return {"scheme": "veccom", "backend": "sage (hashes: python hashlib; Merkle's interpreter work: its own code, "
                                           "hashes answered from a record)",
            **validation_runs(cases(), interpreter_limits=INTERPRETER_LIMITS, scheme="veccom")}


def format_validation(result: dict) -> str:
    from ...calibration.validation import format_runs
    return format_runs(result, ["n"])


# ---------------------------------------------------------------------------
# The reproduction ledger (costbook.views.ledger): every figure seed 001 prints

#: the benchmarks `seed_machine_prices` solves its prices from: reproduced by construction
FITTED_BENCHMARKS = {("pointproofs", "commit"), ("pointproofs", "verify"), ("merkle", "commit")}
#: the seed's projections of what could be improved: (line, printed, what); the book does not test them
SEED_PROJECTIONS = (
    (14, "5x-10x", "Pointproofs commit and prove with multi-exponentiation and fixed-base tables"),
    (15, "2x-4x", "Pointproofs updates with fixed-base tables"),
    (16, "1.5x", "Pointproofs verify: 'surprised if' it improved by this much"),
    (19, "2x", "proving several values on one commitment: at most this times one proof"),
    (61, "2x", "Merkle proofs batched in one tree: length and verification time saved"),
)


def _size_claims() -> list:
    """(figure id, line, what, printed bytes, book bytes) for the size lines 11 and 57."""
    s, n = sizes(1000), 1000
    pp, mk = SEED_SIZE_LINES["pointproofs"], SEED_SIZE_LINES["merkle"]
    return [("claim:veccom:pointproofs commitment bytes", pp, "Pointproofs commitment", 48, s["pointproofs"]["commitment"]),
            ("claim:veccom:pointproofs proof bytes", pp, "Pointproofs proof", 48, s["pointproofs"]["proof"]),
            ("claim:veccom:merkle commitment bytes", mk, "Merkle commitment", 32, s["merkle"]["commitment"]),
            ("claim:veccom:merkle proof bytes per level", mk, "Merkle proof, bytes per level (32 * log_2 n)", 32,
             s["merkle"]["proof"] / _ceil_log2(n))]


def ledger_claims() -> dict:
    """The figures seed 001 prints that are not in a published file: summary lines, sizes, projections."""
    out = {f"claim:veccom:{c.scheme} {c.op} summary": ("seed-veccom", c.line) for c in SEED_CLAIMS}
    out.update({f: ("seed-veccom", line) for f, line, *_ in _size_claims()})
    out.update({f"claim:veccom:projection line {line}": ("seed-veccom", line) for line, *_ in SEED_PROJECTIONS})
    return out


def ledger_rows() -> list:
    from ...views import ledger as L
    pub = published()
    found = {}
    for b in pub.backends:
        for k in pub.keys(b):
            found[tuple(k.split("/")[2:4])] = (b, k)
    rows, modelled = [], set()
    for scheme, op, n, pred, _ in predict_seed():
        b, k = found[(scheme, op)]
        modelled.add((b, k))
        e = pub.entry(b, k)
        fitted = (scheme, op) in FITTED_BENCHMARKS
        rows.append(L.row("veccom", SEED_FILE, e["line"], f"{scheme} {op.replace('_', ' ')}, n = {n}", L.entry_printed(e),
                          pred / measurements.UNITS[e["unit"]], "fitted" if fitted else "predicted",
                          "an implied price is solved from this benchmark" if fitted else
                          "counts x prices implied by the commit, verify and Merkle commit benchmarks",
                          L.entry_figure(pub, b, k)))
    for b in pub.backends:
        rows += [r for r in L.echoed_rows("veccom", pub, [b], lambda b, k, e: f"{k.split('/')[2]} {k.split('/')[3].replace('_', ' ')}")
                 if not any(r.figure == L.entry_figure(pub, b, k) for b2, k in modelled if b2 == b)]
    for c, per_unit_us, n, units in reproduce_claims():
        rows.append(L.row("veccom", SEED_FILE, c.line, f"{c.scheme} {c.op.replace('_', ' ')}, summary line"
                          + (" (per element)" if c.per == "n" else ""), f"{c.value_us:g} µs", per_unit_us, "computed",
                          f"'{c.claim}'; benchmark at n = {n}" + (f" / {units}" if units > 1 else ""),
                          f"claim:veccom:{c.scheme} {c.op} summary"))
    for f, line, what, printed, book in _size_claims():
        rows.append(L.row("veccom", SEED_FILE, line, what, f"{printed} B", book, "computed", "", f))
    for line, printed, what in SEED_PROJECTIONS:
        rows.append(L.row("veccom", SEED_FILE, line, what, printed, None, "echoed",
                          "a projection the seed makes; not tested here", f"claim:veccom:projection line {line}"))
    return rows


# ---------------------------------------------------------------------------
# The scheme contract (tests/test_scheme_contract.py): the counts estimate prices against the code's

#: small sizes, a power of two and not, where every term of the formulas is non-zero
COUNT_POINTS = ({"n": 8}, {"n": 13, "msm": "yes"})


def code_counts(source=None, n: int = 1000, msm="no", **_ignored) -> dict:
    """{label of each operation's price call (its words): the counts running the code at n tallies}.
    The proof update without helper is tallied for every opened position p != c = n // 2 and averaged,
    as the formula's mean height is (``mean_update_height``)."""
    use_msm = msm in ("yes", True)
    n = Parameters(int(n), "yes" if use_msm else "no").n
    check_validation_options("veccom", VALIDATION_BOUNDS, {"n": n})
    run = run_ops(n, use_msm)
    out = {op_words(*k.split("/", 1)): c for k, c in run.counts.items()}
    vals, new = _values(n), _values(n, "new")
    T, c = merkle.Tree(vals), n // 2
    with counting() as tallied:
        T.prove(0)
    out[op_words("merkle", "prove")] = tallied
    updates = Counts()
    for p in range(n):
        if p != c:
            with counting() as tallied:
                merkle.proof_update(n, T.prove(p), p, c, T.prove(c), new[c])
            updates = updates + tallied
    out[op_words("merkle", "proof_update_no_helper")] = updates * (1 / (n - 1))
    _, helper = merkle.commit_update(n, c, T.prove(c), new[c])
    with counting() as tallied:
        merkle.proof_update(n, T.prove(0), 0, c, T.prove(c), new[c], helper)
    out[op_words("merkle", "proof_update_with_helper")] = tallied
    return out
