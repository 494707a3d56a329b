"""Fuzzing the `costbook` command's contract (issue 19, item 6): for any command line and any
measurement or counts file, exit 0 with finite output (JSON parsed strictly: every number finite,
every time >= 0), or exit 2 with exactly one line on stderr.  Never exit 1, never a traceback.

Hypothesis (pinned), derandomized, no deadline, a bounded number of small examples: the whole file
runs in well under a minute.  The command runs in-process (``costbook.cli.commands.main``) with stdout and
stderr captured; two smoke checks run the installed entry point.  `measure` and `validate` are
fuzzed only where they must refuse before any work (both are stubbed so that work would show).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from costbook.cli import commands as cli
from costbook.prices import measurements
from costbook import schemes

REFERENCE = str(measurements.reference_path())
MOD = "modexp/2048/256"
# importing Sage raises the recursion limit inside the first example; hypothesis only warns about it
pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")
FUZZ = settings(derandomize=True, deadline=None, database=None, max_examples=200,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: characters that have broken one-line output before: control characters, a lone surrogate, quotes
NASTY = ["", " ", "\n", "\x1b[2J", "\x00", "\udcff", "'", '"', "$(touch x)", "a" * 300, "-1", "--json"]


def run(argv) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as e:          # main never raises it; if it did, the contract is broken
            code = ("SystemExit", e.code)
    return code, out.getvalue(), err.getvalue()


def _strict_json(text: str):
    def no_constant(name):
        raise AssertionError(f"JSON output holds {name}")
    return json.loads(text, parse_constant=no_constant)


def _numbers(x, time_like=False, path="$"):
    if isinstance(x, dict):
        for k, v in x.items():
            t = k in ("seconds", "ms", "s") or k.endswith(("_s", "_ms", "_seconds"))
            yield from _numbers(v, t or time_like, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _numbers(v, time_like, f"{path}[{i}]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, x, time_like


def assert_contract(argv, code, out, err, all_non_negative=False):
    event(f"exit {code}")                 # --hypothesis-show-statistics: how many examples ran through
    assert code in (0, 2), f"{argv!r}: exit {code}, stderr {err!r}"
    assert "Traceback" not in out + err
    if code == 2:
        assert out == "", f"{argv!r}: output with a refusal: {out[:200]!r}"
        assert err.startswith("costbook: error: ") and err.endswith("\n") and err.count("\n") == 1, \
            f"{argv!r}: not one line: {err!r}"
        assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f or 0xd800 <= ord(c) <= 0xdfff for c in err[:-1]), \
            f"{argv!r}: control character in {err!r}"
        return
    assert err == "", f"{argv!r}: exit 0 with stderr {err!r}"
    if "--json" in argv:
        for path, x, time_like in _numbers(_strict_json(out)):
            assert math.isfinite(x), f"{argv!r}: {path} = {x}"
            if time_like or all_non_negative:
                assert x >= 0, f"{argv!r}: {path} = {x}"


# --- command lines ------------------------------------------------------------------------------------

#: each scheme option with cheap valid values (the estimate runs) and values at and past its bounds
def option_values(opt, default, allowed):
    if isinstance(allowed, schemes.Bounds):
        cheap = {"punches": ["2", "10"], "db_size": ["0", "1000"], "n": ["2", "16", "1000"], "m": ["2", "3"],
                 "modulus_bits": ["0", "2048", "3072"], "k": ["0", "1", "64", "256"],
                 "k_prime": ["1", "128"], "rho_bits": ["128", "256"]}.get(opt, [str(default)])
        edges = [str(allowed.low - 1), str(allowed.high + 1), "9" * 31, "1e3", "nan", "2.5", "0x10", "+3"]
        return st.one_of(st.sampled_from(cheap), st.sampled_from(edges + NASTY))     # half of them valid
    return st.one_of(st.sampled_from([str(a) for a in allowed]), st.sampled_from([*NASTY, "nope"]))


def scheme_argv(name):
    module = schemes.get(name)
    opts = [st.tuples(st.just(f"--{o.replace('_', '-')}"), option_values(o, d, a))
            for o, (d, a) in module.OPTIONS.items()]
    good = st.sampled_from([("--source", "published"), ("--source", "reference"), ("--json",)])
    bad = st.sampled_from([("--source", "nosuch.json"), ("--backend", "gmp"), ("--backend", ""), ("--nope", "1"),
                           ("--counts", "{}"), ("stray",), ("--source", "\x1b]0;x\x07"), ("--json", "--json")])
    parts = st.lists(st.one_of(st.one_of(*opts), good, good, bad), max_size=3)
    return parts.map(lambda ps: ["estimate", name, *[t for p in ps for t in p]])


COUNT_VALUES = st.one_of(st.integers(-3, 10**16), st.floats(allow_nan=True, allow_infinity=True),
                         st.sampled_from(['"5"', "null", "true", "[1]", "1e999", "-0.0", "1" + "0" * 400]))
KEYS = [MOD, "modexp/2048/512", "modexp/6144/256", "sha256/64B", "ristretto255/mul", "pairing", "",
        "modexp/0/1", "bls12_381/g1_msm/16", "a\x1bb", "step/x/y"]


@st.composite
def counts_text(draw):
    items = draw(st.lists(st.tuples(st.sampled_from(KEYS), COUNT_VALUES), max_size=4))
    body = ", ".join(f"{json.dumps(k)}: {v if isinstance(v, str) else json.dumps(v) if math.isfinite(v) else repr(v)}"
                     for k, v in items)
    return draw(st.sampled_from(["{%s}", "[%s]", "{%s", "%s"])) % body


def counts_argv():
    return st.tuples(counts_text(), st.lists(st.sampled_from(
        [("--json",), ("--source", REFERENCE), ("--source", "published"), ("--backend", "gmp"),
         ("--backend", "gmp,sage"), ("--backend", ",")], ), max_size=3)).map(
        lambda t: ["estimate", "--counts", t[0], *[x for p in t[1] for x in p]])


@FUZZ
@given(argv=st.one_of(*[scheme_argv(n) for n in sorted(schemes.REGISTRY)], counts_argv()))
def test_estimate_command_lines_keep_the_contract(argv):
    code, out, err = run(argv)
    assert_contract(argv, code, out, err, all_non_negative="--counts" in argv)


class Ran(BaseException):
    """Raised by a stubbed validate or benchmark run: not an Exception, so main() lets it through."""


def _stubbed(module_name, attr):
    """A stand-in for a function (with its signature) that raises Ran instead of doing the work."""
    import importlib
    module = importlib.import_module(module_name)
    real = getattr(module, attr)

    @functools.wraps(real)
    def called(*a, **k):
        raise Ran(f"{module_name}.{attr} ran")
    return module, attr, real, called


@FUZZ
@given(name=st.sampled_from(sorted(schemes.REGISTRY) + ["nosuch", ""]),
       parts=st.lists(st.sampled_from([("--params", "x"), ("--params", "aggressive"), ("--model", "seed"),
                                       ("--k", "3"), ("--crt", "yes"), ("--security", "hbc"), ("--msm", "yes"),
                                       ("--curve", "bn254"), ("--n", "0"), ("--n", "999999999"),
                                       ("--m", "1"), ("--punches", "1000"), ("--json", "x"), ("--nope",),
                                       ("--source", "reference"), ("--\x1b",)]), min_size=1, max_size=3))
def test_validate_refuses_bad_or_unused_options_before_any_work(name, parts):
    """Only refusals are fuzzed: a command line that would start a validation fails here (stubbed)."""
    # --processes 1: a validation that starts, starts here, where the stub is
    argv = ["validate", name, *[t for p in parts for t in p], "--processes", "1"]
    stubs = [_stubbed(schemes.REGISTRY[n], "validate") for n in schemes.REGISTRY]
    for module, attr, real, called in stubs:
        setattr(module, attr, called)
    try:
        code, out, err = run(argv)
    except Ran:
        # it would have validated: then every option was given once and is one the scheme's
        # validate takes (an option it drops must have been refused)
        import inspect
        real = next(r for m, a, r, c in stubs if m.__name__ == schemes.REGISTRY[name])
        takes = set(inspect.signature(real).parameters)
        given = [p[0][2:].replace("-", "_") for p in parts if p[0] != "--json"]
        assert len(given) == len(set(given)) and set(given) <= takes, f"{argv!r}: ran with options it does not use"
        return
    finally:
        for module, attr, real, called in stubs:
            setattr(module, attr, real)
    assert_contract(argv, code, out, err)


@FUZZ
@given(parts=st.lists(st.sampled_from([("--profile", "huge"), ("--profile", "quick"), ("--repeat", "0"),
                                       ("--repeat", "x"), ("--out", ""), ("--out", "d/"), ("--out", "a" * 300),
                                       ("--out", "link"), ("--out", "/proc/x.json"), ("--only", "zz"),
                                       ("--backend", "nosuch"), ("--backend", ""), ("--name", " "),
                                       ("--out", "x.json"), ("--no-progress",), ("--nope",)]),
                      min_size=1, max_size=3))
def test_measure_refuses_bad_options_before_any_work(parts):
    argv = ["measure", *[t for p in parts for t in p]]
    if not any(p[0] in ("--profile", "--repeat", "--out", "--only", "--backend", "--name", "--nope") and
               p not in (("--profile", "quick"), ("--out", "x.json")) for p in parts):
        return                              # nothing wrong with it: it would measure
    folder = tempfile.mkdtemp()
    here = os.getcwd()
    module, attr, real, called = _stubbed("costbook.timing.measure", "run_benchmarks")
    try:
        os.chdir(folder)
        Path("link").symlink_to("target.json")
        setattr(module, attr, called)
        try:
            code, out, err = run(argv)
        except Ran:
            raise AssertionError(f"{argv!r}: measured; a bad option should have been refused first") from None
    finally:
        setattr(module, attr, real)
        os.chdir(here)
        shutil.rmtree(folder)
    assert_contract(argv, code, out, err)


# --- measurement files ----------------------------------------------------------------------------------

BASE = {
    "schema": "costbook-measurements/1", "name": "fuzz", "kind": "measured",
    "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}},
    "results": {"gmp": {
        "modexp/2048/256": {"median": 1.0, "q1": 0.9, "q3": 1.1, "mad": 0.05, "samples": 5, "batch": 2, "unit": "ms"},
        "modexp/2048/512": {"median": 2.0, "q1": 1.9, "q3": 2.1, "mad": 0.05, "samples": 5, "batch": 2, "unit": "ms"},
        "modexp/4096/256": {"median": 5.0, "q1": 4.9, "q3": 5.1, "mad": 0.05, "samples": 5, "batch": 2, "unit": "ms"},
        "modexp/4096/512": {"median": 9.0, "q1": 8.9, "q3": 9.1, "mad": 0.05, "samples": 5, "batch": 2, "unit": "ms"},
    }},
}
FIELDS = ["median", "q1", "q3", "mad", "samples", "batch", "unit", "low", "high", "min"]
VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2, 10**400),
                   st.sampled_from([0, 0.0, -0.0, 1e-300, 1e300, 1.7e308, "ms", "s", "parsecs", None, True, [], {}]))


@st.composite
def measurement_text(draw):
    d = copy.deepcopy(BASE)
    entries = d["results"]["gmp"]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2, 4]))):
        key = draw(st.sampled_from(sorted(entries)))
        entries[key][draw(st.sampled_from(FIELDS))] = draw(VALUES)
    if draw(st.integers(0, 3)) == 0:
        entries[draw(st.sampled_from(KEYS[:5] + ["modexp/8192/256", "modexp/4096/64"]))] = copy.deepcopy(
            entries[draw(st.sampled_from(sorted(entries)))])
    if draw(st.integers(0, 5)) == 0:
        d[draw(st.sampled_from(["schema", "kind", "name", "provenance", "results"]))] = draw(VALUES)
    text = json.dumps(d, allow_nan=True, default=str)
    cut = draw(st.integers(0, 20))
    if cut == 1:
        text = text[: draw(st.integers(0, len(text)))]
    elif cut == 2:
        text = text.replace('"median"', '"median": 3, "median"', 1)
    elif cut == 3:
        text = "\ufeff" + text
    return text


@FUZZ
@given(text=measurement_text(), how=st.sampled_from(["check", "counts", "cs03", "cs03-spec", "veccom"]))
def test_malformed_measurement_files_keep_the_contract(text, how):
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "m.json")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        argv = {"check": ["check", path],
                "counts": ["estimate", "--counts", json.dumps({MOD: 3, "modexp/2048/512": 1.5}), "--source", path,
                           "--json"],
                "cs03": ["estimate", "cs03", "--modulus-bits", "2048", "--source", path, "--json"],
                "cs03-spec": ["estimate", "cs03", "--model", "spec", "--modulus-bits", "2048", "--k", "64",
                              "--k-prime", "64", "--rho-bits", "128", "--backend", "gmp", "--source", path, "--json"],
                "veccom": ["estimate", "veccom", "--n", "16", "--source", path, "--json"]}[how]
        code, out, err = run(argv)
        if how == "check" and code == 0:
            assert out.startswith("ok  ") and err == ""
            return
        assert_contract(argv, code, out, err, all_non_negative=how == "counts")
    finally:
        shutil.rmtree(folder)


# --- the installed command ------------------------------------------------------------------------------

def test_smoke_the_entry_point_keeps_the_contract(tmp_path):
    exe = Path(sys.executable).with_name("costbook")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "costbook.cli.commands"]
    ok = subprocess.run([*cmd, "estimate", "--counts", json.dumps({MOD: 2}), "--source", REFERENCE, "--backend",
                         "gmp", "--json"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert all(math.isfinite(x) and x >= 0 for _, x, _ in _numbers(_strict_json(ok.stdout)))
    bad = tmp_path / "m\x1b.json"
    bad.write_text(json.dumps({**BASE, "results": {"gmp": {MOD: {**BASE["results"]["gmp"][MOD], "q1": 0}}}}))
    r = subprocess.run([*cmd, "check", str(bad)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "\x1b" not in r.stderr
    assert "q1: expected a positive number" in r.stderr
