"""The scheme contract: what every registered scheme (the toy included) must hold, and the mistakes of
a newcomer it catches, each shown on a mutated copy of the toy scheme.

1. ``costbook estimate SCHEME`` at each option's bounds and a few points between gives a finite,
   non-negative result, every time inside its own prediction interval, or a one-line refusal (exit 2):
   never an internal error.  A scheme's estimate that fails there (a division by zero at a bound, a
   NaN) fails the contract, naming the scheme, the option and the cause; the CLI refuses it in one line
   (``cli.EstimateFailed``, ``cli._check_result``).  No step at an admitted value is estimated past
   ``ESTIMATE_CEILING_S`` (a year of one machine): bounds that admit more price sizes nobody runs.
   Every numeric option validate takes has its VALIDATION_BOUNDS (the registry refuses the scheme
   without), and ``costbook validate`` refuses a size outside them in one line.
2. The counts each labelled price call of ``estimate`` prices equal the counts running the scheme's
   code tallies for it (the model's ``code_counts``), at its ``COUNT_POINTS``: a formula that forgets
   an operation, or code that forgets a tally, names the scheme, the step, the operation and both counts.
3. Every primitive the code tallies has a price in the reference machine's file, or a stated derivation
   (``cost.DERIVATIONS``), hashes of any length included (``cost.hash_by_blocks``).
4. The cost formula has one address: the scheme's ``counts.py``, whose ``step_counts(**options)`` gives,
   at the default options and at each of ``COUNT_POINTS``, the counts of every labelled price call of
   ``estimate`` with the reference file (where the estimate adapts them to a file's prices, as the
   model's ``priced_as`` says), and no step it does not price.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import math
import shutil
import sys
from pathlib import Path

import pytest

from conftest import install_toy_book
from costbook.calibration import prediction
from costbook.cli import commands as cli
from costbook.prices import cost, measurements
from costbook.prices.counting import count_differences, describe_differences
from costbook.prices.cost import Counts, MissingPrice
from costbook.schemes import Bounds

TOY_DIR = Path(__file__).resolve().parent / "toy_schemes"
TOYS = sorted(d.name for d in TOY_DIR.iterdir() if (d / "model.py").is_file())


# ---------------------------------------------------------------------------------------------
# The one place this file asks the scheme registry (costbook.schemes) for anything

def registry():
    """(names of the registered schemes, the model of a scheme by name, the folders schemes are found in)."""
    from costbook import schemes
    return sorted(schemes.REGISTRY), schemes.get, schemes.__path__


SCHEMES = registry()[0]


def model_of(name):
    return registry()[1](name)


@pytest.fixture(params=SCHEMES + TOYS)
def scheme(request):
    """A registered scheme's name, the toy schemes discovered (in their temporary book) for theirs."""
    if request.param in TOYS:
        request.getfixturevalue("toy_scheme")
    return request.param


# ---------------------------------------------------------------------------------------------
# 1. estimate at every option's bounds

#: no step of an estimate at an admitted option value may take longer than this (a year of one machine):
#: an option whose Bounds admit more prices sizes nobody runs (the largest the schemes admit take days)
ESTIMATE_CEILING_S = 365 * 86400


def option_points(model) -> list:
    """(option, value, other options it needs) for each option: each choice, or a Bounds' ends, 0 where
    it means something, and three values between; the other options at their defaults, except where
    OPTION_APPLIES says the option is used only with another's value (that value then)."""
    points = []
    applies = getattr(model, "OPTION_APPLIES", {})
    for name, (default, allowed) in model.OPTIONS.items():
        needs = {cond: values[0] for cond, values in applies.get(name, {}).items() if cond != "source"}
        if isinstance(allowed, Bounds):
            lo, hi = allowed.low, allowed.high
            values = {lo, hi, lo + 1, (lo + hi) // 2, round((max(lo, 1) * hi) ** 0.5)} | ({0} if allowed.zero else set())
            values = sorted(v for v in values if v in allowed)
        else:
            values = list(allowed)
        points += [(name, v, needs) for v in values]
    return points


def sources(model, needs: dict, name: str) -> list:
    """The sources an option is estimated with: the reference machine and the scheme's published file,
    those OPTION_APPLIES allows for it."""
    kinds = getattr(model, "OPTION_APPLIES", {}).get(name, {}).get("source")
    out = ["reference", f"published/{model.PUBLISHED}"]
    return [s for s in out if kinds is None or measurements.load_source(s).kind in kinds]


def run_cli(argv) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def estimate_failures(name: str) -> list:
    """Every way `name`'s estimate breaks the contract at its option points, one line each."""
    model, failures = model_of(name), []
    for option, value, needs in option_points(model):
        for source in sources(model, needs, option):
            options = {**needs, option: value}
            where = (f"scheme {name!r}, option {option!r} = {value!r}"
                     + "".join(f", {k} = {v!r}" for k, v in needs.items()) + f" ({source})")
            try:
                result = prediction.estimate(name, measurements.load_source(source), **options)
            except (ValueError, KeyError, MissingPrice):
                result = None                     # a refusal: the CLI must say it in one line
            except Exception as e:                # noqa: BLE001 - any other failure is the scheme's mistake
                failures.append(f"{where}: the estimate fails with {type(e).__name__}: {e}")
                continue
            if result is not None:
                # what the CLI prints of it: JSON with every time finite and non-negative (cli._check_result)
                bad = next(cli._bad_numbers(result), None)
                if bad is not None:
                    failures.append(f"{where}: the estimate gives {bad[0]} = {bad[1]}, not a finite non-negative time "
                                    f"(the CLI refuses it; find what makes it, or bound the option in seed.py)")
                else:
                    json.dumps(result, allow_nan=False)
                    failures += [f"{where}: {at} = {v!r} lies outside its own interval [{lo!r}, {hi!r}] "
                                 f"(costbook.calibration.uncertainty.Margin.bounds must hold it)"
                                 for at, lo, v, hi in prediction.outside(result)]
                    failures += [f"{where}: step {s['label']!r} is estimated at {s['seconds']:.3g} s, past a year of "
                                 f"one machine: lower Bounds.high of {option!r} in the scheme's seed.py to the largest "
                                 f"size a reader runs" for s in result["prediction"]["steps"]
                                 if s["seconds"] > ESTIMATE_CEILING_S]
                continue
            argv = ["estimate", name, "--source", source, "--json",
                    *[a for k, v in options.items() for a in (cli._flag(k), str(v))]]
            code, out, err = run_cli(argv)
            if not (code == 2 and err.startswith("costbook: error: ") and err.count("\n") == 1
                      and "Traceback" not in err):
                failures.append(f"{where}: `costbook {' '.join(argv)}` exits {code}: {err.strip()!r}")
    return failures


def test_estimate_at_every_options_bounds_is_finite_or_refused(scheme):
    failures = estimate_failures(scheme)
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------------------
# 2. the counts estimate prices are the counts the code tallies

_TALLIES: dict = {}


def tallies(model, mset, point: dict) -> dict:
    """model.code_counts(mset, **point), run once per committed scheme, source and point (the mixnet's
    query takes seconds); a mutated toy's are run each time."""
    key = (model.__file__, mset.name, repr(sorted(point.items())))
    if not Path(model.__file__).is_relative_to(Path(__file__).resolve().parents[1]):
        return model.code_counts(mset, **point)
    if key not in _TALLIES:
        _TALLIES[key] = model.code_counts(mset, **point)
    return _TALLIES[key]


def count_failures(name: str, source: str = "reference") -> list:
    """Every difference between what `name`'s estimate prices and what its code tallies, at each of its
    COUNT_POINTS, one line each naming the scheme, the step, the operation and both counts."""
    model = model_of(name)
    points, code_counts = getattr(model, "COUNT_POINTS", ()), getattr(model, "code_counts", None)
    if not points or code_counts is None:
        return [f"scheme {name!r}: its model has no COUNT_POINTS and code_counts (the counts its code tallies "
                f"for each price call of estimate, tests/test_scheme_contract.py)"]
    mset, failures = measurements.load_source(source), []
    for point in points:
        where = ", ".join(f"{k} = {v!r}" for k, v in point.items())
        with cost.recording() as calls:
            model.estimate(mset, **point)
        priced = {}
        for call in calls:
            priced.setdefault(call.estimate.label, []).append(call.counts)
        tallied = tallies(model, mset, point)
        if not tallied:
            failures.append(f"scheme {name!r} at {where}: code_counts tallies no step")
        for label, counts in tallied.items():
            if label not in priced:
                failures.append(f"scheme {name!r}, step {label!r} at {where}: the code tallies "
                                f"{dict(counts)}, and estimate prices no step of that label")
                continue
            for got in priced[label]:
                differences = count_differences(got, counts)
                if differences:
                    failures.append(describe_differences(name, label, where, differences))
    return failures


def test_the_counts_estimate_prices_are_the_counts_the_code_tallies(scheme):
    failures = count_failures(scheme)
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------------------
# 3. every primitive the code tallies has a price or a stated derivation

def unpriced_failures(name: str, source: str = "reference") -> list:
    """Every key `name`'s code tallies at its COUNT_POINTS that `source` neither prices nor derives."""
    model, mset = model_of(name), measurements.load_source(source)
    keys = sorted({k for point in getattr(model, "COUNT_POINTS", ())
                   for c in tallies(model, mset, point).values() for k in c})
    failures = []
    for key in keys:
        try:
            cost.price(Counts({key: 1}), mset, derive=True)
        except (MissingPrice, ValueError) as e:
            failures.append(f"scheme {name!r} tallies {key}, which {source} neither prices nor derives "
                            f"(cost.DERIVATIONS): {e}")
    return failures


def test_every_primitive_the_code_tallies_has_a_price_or_a_derivation(scheme):
    assert model_of(scheme).COUNT_POINTS
    failures = unpriced_failures(scheme)
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------------------
# 4. the cost formula, at its address: counts.step_counts is what estimate prices

def counts_of(model):
    """The scheme's counts.py (beside its model.py), or None."""
    if not (Path(model.__file__).parent / "counts.py").is_file():
        return None
    return importlib.import_module(model.__name__.rpartition(".")[0] + ".counts")


def formula_failures(name: str, source: str = "reference") -> list:
    """Every difference between what `name`'s ``counts.step_counts`` states and what its estimate prices,
    at its default options and at each of its COUNT_POINTS, one line each naming the step and the key.
    Unlabelled price calls (a side comparison, not a step) are not steps."""
    model = model_of(name)
    counts = counts_of(model)
    if counts is None or not callable(getattr(counts, "step_counts", None)):
        return [f"scheme {name!r}: no counts.py with step_counts(**options), its cost formula ({{label of each "
                f"price call estimate makes: its Counts}}, docs/adding-a-scheme.md)"]
    mset, failures = measurements.load_source(source), []
    priced_as = getattr(model, "priced_as", lambda label, c, source, order: c)
    for point in ({}, *getattr(model, "COUNT_POINTS", ())):
        where = ", ".join(f"{k} = {v!r}" for k, v in point.items()) or "its default options"
        with cost.recording() as calls:
            model.estimate(mset, **point)
        stated = counts.step_counts(**point)
        labelled = [call for call in calls if call.estimate.label]
        for call in labelled:
            label = call.estimate.label
            if label not in stated:
                failures.append(f"scheme {name!r}, step {label!r} at {where}: estimate prices it, and "
                                f"counts.step_counts states no step of that label")
                continue
            want = priced_as(label, stated[label], call.measurements, call.order)
            differences = count_differences(call.counts, want)
            if differences:
                failures.append(f"scheme {name!r}, step {label!r} at {where}: " + "; ".join(
                    f"{k} priced {p:g} time(s) by estimate, {s:g} in counts.step_counts" for k, p, s in differences))
        failures += [f"scheme {name!r}, step {label!r} at {where}: counts.step_counts states it, and estimate "
                     f"prices no step of that label" for label in sorted(set(stated) - {c.estimate.label for c in labelled})]
    return failures


def test_the_counts_estimate_prices_are_the_formula_in_counts_py(scheme):
    failures = formula_failures(scheme)
    assert not failures, "\n".join(failures)


def test_step_counts_takes_every_option_at_its_default(scheme):
    """The options an estimate takes, each at its default, give the counts of no options: an option that
    only chooses prices is accepted (and changes nothing), not refused."""
    model = model_of(scheme)
    defaults = {name: default for name, (default, _) in model.OPTIONS.items()}
    assert counts_of(model).step_counts(**defaults) == counts_of(model).step_counts()


# ---------------------------------------------------------------------------------------------
# The mistakes of a newcomer, each made on a copy of the toy scheme, each caught

@contextlib.contextmanager
def mutated_toy(tmp_path, monkeypatch, edits: dict):
    """A copy of the toy scheme in a temporary folder, with `edits` {file: [(old, new), ...]} made (each
    old text must be there), discovered as a scheme inside the block, in a temporary book."""
    folder = tmp_path / "mutants" / "schnorr"
    shutil.copytree(TOY_DIR / "schnorr", folder)
    for file, replacements in edits.items():
        text = (folder / file).read_text()
        for old, new in replacements:
            assert old in text, (file, old)
            text = text.replace(old, new)
        (folder / file).write_text(text)
    monkeypatch.setenv("COSTBOOK_ROOT", str(install_toy_book(tmp_path / "book", [folder])))
    path = registry()[2]
    path.append(str(folder.parent))
    try:
        yield
    finally:
        path.remove(str(folder.parent))
        for m in [m for m in sys.modules if m.startswith("costbook.schemes.schnorr")]:
            del sys.modules[m]


MISTAKES = {
    "an option Bounds(0, ...) that divides by zero": {
        "seed.py": [("Bounds(1, 64)", "Bounds(0, 64)")],
        "model.py": [('steps[name] = est.to_dict() | {"seconds": est.total}',
                      'steps[name] = est.to_dict() | {"seconds": est.total, "per_message_s": est.total / messages}')]},
    "the formula forgets an operation": {
        "counts.py": [('"ristretto255/mul": 1, **challenge}', '**challenge}')]},
    "the code forgets a tally": {
        "schnorr.py": [('    tally("sha512/64B")\n', '')]},
    "the code tallies a primitive nothing prices": {
        "schnorr.py": [('    tally("sha512/64B")\n', '    tally("sha512/64B")\n    tally("bn254/g2_add")\n')]},
}


def test_a_bound_that_divides_by_zero_is_caught_and_refused_in_one_line(tmp_path, monkeypatch):
    with mutated_toy(tmp_path, monkeypatch, MISTAKES["an option Bounds(0, ...) that divides by zero"]):
        failures = estimate_failures("schnorr")
        code, out, err = run_cli(["estimate", "schnorr", "--messages", "0"])
    assert failures and all("scheme 'schnorr', option 'messages' = 0" in f for f in failures)
    assert "the estimate fails with ZeroDivisionError: float division by zero" in failures[0]
    assert (code, out) == (2, "") and err.count("\n") == 1 and "internal error" not in err
    assert err == ("costbook: error: estimate schnorr --messages 0: ZeroDivisionError in the scheme's estimate "
                   "(float division by zero): its options admit a value it cannot price\n")
    print("\n".join(failures), err, sep="\n")


def test_a_formula_that_forgets_an_operation_is_caught(tmp_path, monkeypatch):
    with mutated_toy(tmp_path, monkeypatch, MISTAKES["the formula forgets an operation"]):
        failures = count_failures("schnorr")
    assert failures == [
        "scheme 'schnorr', step 'schnorr verify' at messages = 1, wire = 'bytes': ristretto255/mul priced 0 "
        "time(s) by the formula, tallied 1 by running the code",
        "scheme 'schnorr', step 'schnorr verify' at messages = 3, wire = 'points': ristretto255/mul priced 0 "
        "time(s) by the formula, tallied 3 by running the code"]
    print("\n".join(failures))


def test_an_estimate_that_prices_other_counts_than_counts_py_is_caught(tmp_path, monkeypatch):
    edits = {"model.py": [("price(counts[name] * times(name, messages),", "price(counts[name] * (times(name, messages) + 1),")]}
    with mutated_toy(tmp_path, monkeypatch, edits):
        failures = formula_failures("schnorr")
    assert failures[0] == ("scheme 'schnorr', step 'schnorr keygen' at its default options: ristretto255/mul_base "
                           "priced 2 time(s) by estimate, 1 in counts.step_counts")
    assert len(failures) == 9 and all("in counts.step_counts" in f for f in failures)     # 3 steps, 3 points
    print("\n".join(failures))


def test_a_scheme_without_its_formula_in_counts_py_is_caught(tmp_path, monkeypatch):
    with mutated_toy(tmp_path, monkeypatch, {"counts.py": [("def step_counts(", "def counts_of_steps(")]}):
        failures = formula_failures("schnorr")
    assert failures == ["scheme 'schnorr': no counts.py with step_counts(**options), its cost formula ({label of "
                        "each price call estimate makes: its Counts}, docs/adding-a-scheme.md)"]


def test_code_that_forgets_a_tally_is_caught(tmp_path, monkeypatch):
    with mutated_toy(tmp_path, monkeypatch, MISTAKES["the code forgets a tally"]):
        failures = count_failures("schnorr")
    assert failures[0] == ("scheme 'schnorr', step 'schnorr sign' at messages = 1, wire = 'bytes': sha512/64B "
                           "priced 1 time(s) by the formula, tallied 0 by running the code")
    assert len(failures) == 4 and all("sha512/64B" in f for f in failures)       # sign and verify, both points
    print("\n".join(failures))


def test_a_tallied_primitive_without_a_price_is_caught(tmp_path, monkeypatch):
    with mutated_toy(tmp_path, monkeypatch, MISTAKES["the code tallies a primitive nothing prices"]):
        failures = unpriced_failures("schnorr")
    assert len(failures) == 1
    assert failures[0].startswith("scheme 'schnorr' tallies bn254/g2_add, which reference neither prices nor "
                                  "derives (cost.DERIVATIONS): reference-")
    assert "no price for 'bn254/g2_add'" in failures[0]
    print("\n".join(failures))


def test_a_hash_of_a_length_nobody_measured_is_priced_by_its_blocks(tmp_path, monkeypatch):
    """The toy hashing 200 bytes instead of 64 (sha512/200B: two blocks; its files measure 46 and 64 bytes,
    one block): priced by the blocks rule, in its estimate and in the contract, and said so."""
    edits = {"schnorr.py": [('tally("sha512/64B")', 'tally("sha512/200B")')],
             "counts.py": [('challenge = {"sha512/64B": 1}', 'challenge = {"sha512/200B": 1}')]}
    with mutated_toy(tmp_path, monkeypatch, edits):
        assert unpriced_failures("schnorr") == [] and count_failures("schnorr") == []
        assert estimate_failures("schnorr") == []
        code, out, err = run_cli(["estimate", "schnorr", "--source", "reference", "--json"])
    assert (code, err) == (0, "")
    (line,) = [l for l in json.loads(out)["steps"]["sign"]["breakdown"] if l["key"] == "sha512/200B"]
    assert "2 blocks of sha512 compression, scaled by blocks from the measured lengths of 1" in line["note"]
    assert line["low_s"] < line["seconds"] < line["high_s"]      # the measured price, the scaled one


def test_a_nan_estimate_is_caught_and_refused_in_one_line(tmp_path, monkeypatch):
    edits = {"model.py": [('steps[name] = est.to_dict() | {"seconds": est.total}',
                           'steps[name] = est.to_dict() | {"seconds": est.total if messages < 64 else float("nan")}')]}
    with mutated_toy(tmp_path, monkeypatch, edits):
        failures = estimate_failures("schnorr")
        code, out, err = run_cli(["estimate", "schnorr", "--messages", "64"])
    assert failures and all(f.startswith("scheme 'schnorr', option 'messages' = 64") for f in failures)
    assert "not a finite non-negative time (the CLI refuses it; find what makes it, or bound the option" in failures[0]
    assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("costbook: error: ")
    assert "is nan, not a finite non-negative time" in err and "Traceback" not in err
    print("\n".join(failures), err, sep="\n")


def test_an_estimate_far_above_its_prices_low_bound_lies_inside_its_interval(tmp_path, monkeypatch):
    """A step whose prices spread far below it (a price extrapolated to a size nobody measured): the
    validation margin, anchored at the low bound, would end below the estimate; the interval printed
    is stretched to hold it, at every option point (the contract's check).  The book's scale grows with
    the spread fast enough to reach such an estimate; a floor ten times larger does not, and makes the
    case."""
    from costbook.calibration import uncertainty
    monkeypatch.setattr(uncertainty, "SPREAD_FLOOR", 10 * uncertainty.SPREAD_FLOOR)
    edits = {"model.py": [('steps[name] = est.to_dict() | {"seconds": est.total}',
                           'steps[name] = est.to_dict() | {"seconds": est.total, "low_s": est.low / 3}')]}
    with mutated_toy(tmp_path, monkeypatch, edits):
        assert estimate_failures("schnorr") == []
        # priced in Sage, the kind of estimate the reference's validation evidence judges
        ref = measurements.load_source("reference")
        result = prediction.estimate("schnorr", ref, backends=("sage", "python"), messages=4)
        m = uncertainty.estimate_margin("schnorr", ref.name, {"messages": 4, "wire": "bytes"}, backends={"sage"})
    step = result["steps"]["verify"]
    assert m.spread_floor is not None                     # a validation margin, anchored at the low bound
    anchor, spread = uncertainty.anchor_and_spread(step["seconds"], step["price_low_s"], step["price_high_s"])
    unstretched_high = anchor * math.exp((m.centre + m.value) * uncertainty.scale(spread, m.spread_floor))
    assert unstretched_high < step["seconds"]             # the case is real: anchored, it ends below
    assert step["low_s"] <= step["seconds"] == step["high_s"]
    assert prediction.outside(result) == []
    assert uncertainty.NOMINAL == result["prediction"]["level"]


def test_a_bound_far_past_any_use_is_caught(tmp_path, monkeypatch):
    with mutated_toy(tmp_path, monkeypatch, {"seed.py": [("Bounds(1, 64)", "Bounds(1, 10**18)")]}):
        failures = estimate_failures("schnorr")
    assert failures and all(f.startswith("scheme 'schnorr', option 'messages' = ") for f in failures)
    assert any(f.startswith("scheme 'schnorr', option 'messages' = 1000000000000000000 (reference): step 'schnorr "
                            "verify' is estimated at ") for f in failures)
    assert all("past a year of one machine: lower Bounds.high of 'messages' in the scheme's seed.py" in f for f in failures)
    print("\n".join(failures))


def test_a_validation_without_bounds_is_refused_and_outside_them_in_one_line(tmp_path, monkeypatch):
    from costbook.schemes import SchemeError
    with mutated_toy(tmp_path, monkeypatch, {"model.py": [('VALIDATION_BOUNDS = {"messages": Bounds(1, 16)}',
                                                          'VALIDATION_BOUNDS = {}')]}):
        with pytest.raises(SchemeError) as refused:
            model_of("schnorr")
        code, out, err = run_cli(["validate", "schnorr", "--messages", "64"])
    assert str(refused.value) == (
        "scheme 'schnorr', option 'messages': validate runs the code at the size it is given, and VALIDATION_BOUNDS "
        "gives 'messages' no Bounds: add 'messages': Bounds(low, high) to costbook.schemes.schnorr.model."
        "VALIDATION_BOUNDS, high the largest size validate runs in minutes")
    assert code == 2 and out == "" and err.count("\n") == 1 and "VALIDATION_BOUNDS" in err
    # with its bounds, the CLI refuses a size the estimate admits but a validation does not, before running
    # anything, even where the scheme's validate forgot to check (its call removed)
    with mutated_toy(tmp_path / "2", monkeypatch, {"model.py": [(
            '    check_validation_options(NAME, VALIDATION_BOUNDS, {"messages": messages})\n', '')]}):
        code, out, err = run_cli(["validate", "schnorr", "--messages", "64"])
    assert (code, out) == (2, "")
    assert err == ("costbook: error: --messages must be an integer in [1, 16] for a validation run of schnorr (it runs "
                   "the scheme's code at that size), got 64\n")
