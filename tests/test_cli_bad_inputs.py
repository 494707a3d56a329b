"""Every bad input to the `costbook` command is refused with exit code 2 and one line on stderr.

One table of cases (issue 11): each gives the command line, environment, files to create in a
temporary folder, the exit code and a phrase the single stderr line must contain.  No case may
show a traceback or an exception class name.  Cases whose id starts with `scheme-` exercise the
scheme options (their bounds live in `cli.scheme_options` and the schemes' OPTIONS).  A few good
inputs close the table, so that the refusals are not broader than they should be.

Most cases run in-process through `costbook.cli.commands.main` (fast); signals and inputs that could block
(a FIFO) run in a subprocess with a timeout.
"""
from __future__ import annotations

import copy
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from costbook.prices import measurements
from costbook import schemes
from costbook.cli.commands import main

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = str(measurements.reference_path())
MOD = "modexp/6144/256"
DIR, LOOP, FIFO = object(), object(), object()       # special files to create

# Class names of exceptions, or a traceback: none may reach the user.
LEAK = re.compile(r"Traceback|\b[A-Z]\w*(Error|Exception)\b|KeyboardInterrupt|\bErrno\b")


def counts(text: str, *more: str) -> list:
    return ["estimate", "--counts", text, "--source", REFERENCE, *more]


# --- measurement files, good and spoiled -----------------------------------------------------------

MEASURED = {
    "schema": "costbook-measurements/1", "name": "t", "kind": "measured",
    "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}},
    "results": {"gmp": {MOD: {"median": 1.0, "q1": 0.9, "q3": 1.2, "mad": 0.1,
                              "samples": 5, "batch": 4, "unit": "ms"}}},
}
PUBLISHED = {
    "schema": "costbook-measurements/1", "name": "p", "kind": "published",
    "provenance": {"seed": "s.md", "title": "t", "machine": "m"},
    "results": {"seed": {MOD: {"median": 2.0, "low": 1.5, "high": 2.5, "unit": "ms", "line": 3}}},
}


def spoil(base: dict, path: str, value) -> str:
    """`base` as JSON text with the field at dotted `path` set to `value` (or deleted if DELETE);
    entry fields are named by their last part only: `entry.median`."""
    d = copy.deepcopy(base)
    node = next(iter(next(iter(d["results"].values())).values())) if path.startswith("entry.") else d
    parts = path.split(".")[1:] if path.startswith("entry.") else path.split(".")
    for p in parts[:-1]:
        node = node[p]
    if value is DELETE:
        del node[parts[-1]]
    else:
        node[parts[-1]] = value
    return json.dumps(d)


DELETE = object()


def raw(base: dict, old: str, new: str) -> str:
    """JSON text of `base` with a textual replacement (for what json.dumps cannot write:
    NaN literals spelt differently, repeated keys)."""
    text = json.dumps(base)
    assert old in text
    return text.replace(old, new, 1)


def project(**files) -> dict:
    """A costbook project folder (COSTBOOK_ROOT) holding `files` under measurements/."""
    return {f"proj/measurements/{k}": v for k, v in files.items()} | {"proj/measurements": DIR}


# --- the table ---------------------------------------------------------------------------------------

@dataclass
class Case:
    id: str
    argv: list
    expect: str                       # a phrase the one stderr line must contain
    code: int = 2
    env: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    subprocess: bool = False          # could block if the refusal regressed: run with a timeout


def C(id, argv, expect, **kw):
    return Case(id, argv, expect, **kw)


def Chk(id, text, expect, **kw):
    return Case(id, ["check", "m.json"], expect, files={"m.json": text}, **kw)


CASES = [
    # --counts: values
    C("counts-nan", counts(f'{{"{MOD}": NaN}}'), "not valid JSON (NaN is not a JSON number)"),
    C("counts-infinity", counts(f'{{"{MOD}": Infinity}}'), "not valid JSON (Infinity is not a JSON number)"),
    C("counts-minus-infinity", counts(f'{{"{MOD}": -Infinity}}'), "not valid JSON (-Infinity is not a JSON number)"),
    C("counts-1e400", counts(f'{{"{MOD}": 1e400}}'), "must be a finite number, got inf"),
    C("counts-overflow-1e999", counts(f'{{"{MOD}": 1e999}}'), "must be a finite number, got inf"),
    C("counts-overflow-minus-1e999", counts(f'{{"{MOD}": -1e999}}'), "must be a finite number"),
    C("counts-negative", counts(f'{{"{MOD}": -1}}'), "must be >= 0, got -1"),
    C("counts-negative-fraction", counts(f'{{"{MOD}": -0.5}}'), "must be >= 0"),
    C("counts-true", counts(f'{{"{MOD}": true}}'), "must be a number, got True"),
    C("counts-false", counts(f'{{"{MOD}": false}}'), "must be a number, got False"),
    C("counts-string", counts(f'{{"{MOD}": "5"}}'), "must be a number, got '5'"),
    C("counts-null", counts(f'{{"{MOD}": null}}'), "must be a number, got None"),
    C("counts-nested-object", counts(f'{{"{MOD}": {{"n": 1}}}}'), "must be a number"),
    C("counts-list-value", counts(f'{{"{MOD}": [1]}}'), "must be a number, got [1]"),
    C("counts-above-bound", counts(f'{{"{MOD}": 1e16}}'), "must be at most 1e+15"),
    C("counts-above-bound-int", counts(f'{{"{MOD}": {10**16}}}'), "must be at most 1e+15"),
    C("counts-400-digit-int", counts(f'{{"{MOD}": 1{"0" * 400}}}'), "must be at most 1e+15"),
    C("counts-5000-digit-int", counts(f'{{"{MOD}": 1{"0" * 5000}}}'), "--counts: not valid JSON"),
    # --counts: shape
    C("counts-top-level-list", counts(f'[["{MOD}", 1]]'), "expected a JSON object of primitive key -> count"),
    C("counts-top-level-number", counts("5"), "expected a JSON object"),
    C("counts-top-level-string", counts('"modexp"'), "expected a JSON object"),
    C("counts-top-level-null", counts("null"), "expected a JSON object"),
    C("counts-empty-object", counts("{}"), "--counts: no primitive keys"),
    C("counts-unknown-key", counts('{"pairing": 1}'), "unknown primitive key 'pairing'"),
    C("counts-key-without-sizes", counts('{"modexp/6144": 1}'), "unknown primitive key 'modexp/6144'"),
    C("counts-empty-key", counts('{"": 1}'), "unknown primitive key ''"),
    C("counts-key-size-unpriced", counts('{"modexp/99999999999999999999/256": 1}'),
      "no price for 'modexp/99999999999999999999/256'"),
    C("counts-duplicate-key", counts(f'{{"{MOD}": 1, "{MOD}": 2}}'), f"duplicate key '{MOD}'"),
    C("counts-duplicate-key-same-value", counts(f'{{"{MOD}": 1, "sha256/64B": 1, "{MOD}": 1}}'),
      "duplicate key"),
    C("counts-not-json", counts("{modexp: 1}"), "--counts: not valid JSON"),
    C("counts-trailing-garbage", counts(f'{{"{MOD}": 1}} x'), "--counts: not valid JSON"),
    C("counts-empty-text", counts(""), "--counts: empty"),
    C("counts-blank-text", counts("   \n"), "--counts: empty"),
    C("counts-nested-too-deep", counts("[" * 100_000), "nested more than 64 levels deep"),
    C("counts-nested-object-too-deep", counts('{"a": ' * 65 + "1" + "}" * 65), "nested more than 64 levels"),
    C("counts-python-dict-syntax", counts(f"{{'{MOD}': 1}}"), "--counts: not valid JSON"),
    # --counts @file
    C("counts-at-alone", counts("@"), "give a file name after @"),
    C("counts-at-missing", counts("@missing.json"), "missing.json: no such counts file"),
    C("counts-at-directory", counts("@d"), "d: is a directory", files={"d": DIR}),
    C("counts-at-symlink-loop", counts("@loop"), "loop: symbolic link loop", files={"loop": LOOP}),
    C("counts-at-dangling-symlink", counts("@dangling"), "dangling: no such counts file",
      files={"dangling": Path("nowhere.json")}),
    C("counts-at-latin1", counts("@c.json"), "c.json: not UTF-8 text",
      files={"c.json": f'{{"{MOD}": 1, "caf\xe9": 2}}'.encode("latin-1")}),
    C("counts-at-binary", counts("@c.bin"), "c.bin: not UTF-8 text", files={"c.bin": b"\x00\xff\xfe\x80"}),
    C("counts-at-utf16", counts("@c.json"), "not UTF-8 text",
      files={"c.json": f'{{"{MOD}": 1}}'.encode("utf-16")}),
    C("counts-at-utf8-bom", counts("@c.json"), "starts with a byte order mark (U+FEFF)",
      files={"c.json": f'\ufeff{{"{MOD}": 1}}'.encode("utf-8")}),
    C("counts-at-empty-file", counts("@c.json"), "--counts @c.json: empty", files={"c.json": ""}),
    C("counts-at-nan", counts("@c.json"), "--counts @c.json: not valid JSON (NaN is not a JSON number)", files={"c.json": f'{{"{MOD}": NaN}}'}),
    C("counts-at-duplicate", counts("@c.json"), "--counts @c.json: duplicate key",
      files={"c.json": f'{{"{MOD}": 1,\n "{MOD}": 2}}'}),
    C("counts-at-fifo", counts("@pipe"), "pipe: not a regular file", files={"pipe": FIFO}, subprocess=True),
    C("counts-at-dev-zero", counts("@/dev/zero"), "/dev/zero: not a regular file", subprocess=True),
    # estimate: --backend, --source, the command line
    C("backend-empty", counts(f'{{"{MOD}": 1}}', "--backend", ""), "--backend: empty backend name"),
    C("backend-comma", counts(f'{{"{MOD}": 1}}', "--backend", ","), "--backend: empty backend name"),
    C("backend-double-comma", counts(f'{{"{MOD}": 1}}', "--backend", "gmp,,sage"), "empty backend name"),
    C("backend-unknown", counts(f'{{"{MOD}": 1}}', "--backend", "nosuch"), "no backend 'nosuch' (the file has:"),
    C("backend-unknown-second", counts(f'{{"{MOD}": 1}}', "--backend", "gmp,nosuch"), "no backend 'nosuch'"),
    C("source-missing-file", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "nosuch.json"],
      "nosuch.json: no such measurement file (or use reference"),
    C("source-empty", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", ""], "empty source name"),
    C("source-directory", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "d"], "d: is a directory",
      files={"d": DIR}),
    C("source-symlink-loop", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "loop"],
      "loop: symbolic link loop", files={"loop": LOOP}),
    C("source-published-unknown", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "published/nope"],
      "no published file 'published/nope' (have:"),
    C("source-published-empty-name", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "published/"],
      "no published file"),
    C("source-published-escapes", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source",
                                   "published/../reference/" + Path(REFERENCE).stem], "no published file"),
    C("source-latin1", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "m.json"],
      "m.json: not UTF-8 text", files={"m.json": json.dumps(MEASURED).replace('"t"', '"caf\xe9"', 1).encode("latin-1")}),
    C("source-unit-list", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "m.json"],
      "unit: expected one of", files={"m.json": spoil(MEASURED, "entry.unit", ["ms"])}),
    C("source-book-missing", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "book"],
      "gone.json: no such measurement file", env={"COSTBOOK_MEASUREMENTS": "gone.json"}),
    C("source-book-directory", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "book"],
      "is a directory", env={"COSTBOOK_MEASUREMENTS": "d"}, files={"d": DIR}),
    C("source-local-unmeasured", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "local"],
      "local: this machine has not been measured yet", env={"COSTBOOK_ROOT": "proj"},
      files=project(**{"reference/r.json": json.dumps(MEASURED)})),
    C("source-reference-root-missing", ["estimate", "--counts", f'{{"{MOD}": 1}}'],
      "COSTBOOK_ROOT=/nonexistent: not a costbook project", env={"COSTBOOK_ROOT": "/nonexistent"}),
    C("source-reference-none", ["estimate", "--counts", f'{{"{MOD}": 1}}'],
      "measurements/reference/ must hold exactly one file, found 0", env={"COSTBOOK_ROOT": "proj"},
      files=project()),
    C("estimate-nothing", ["estimate"], f"estimate needs a SCHEME ({', '.join(sorted(schemes.REGISTRY))}) or --counts"),
    C("estimate-empty-scheme", ["estimate", ""], "estimate needs a SCHEME"),
    C("estimate-unknown-scheme", ["estimate", "nosuch"], f"unknown scheme 'nosuch' (registered: {min(schemes.REGISTRY)}"),
    C("estimate-unknown-option", ["estimate", "--frobnicate", "--counts", "{}"], "unrecognized arguments: --frobnicate"),
    C("estimate-json-with-value", ["estimate", "--json=3"], "--json: ignored explicit argument '3'"),
    C("estimate-counts-needs-value", ["estimate", "--counts"], "--counts needs a value"),
    C("no-command", [], "the following arguments are required: command"),
    C("unknown-command", ["frobnicate"], "invalid choice: 'frobnicate'"),
    C("validate-no-scheme", ["validate"], "the following arguments are required: scheme"),
    C("validate-unknown-scheme", ["validate", "nosuch"], "unknown scheme 'nosuch'"),
    C("sources-extra-argument", ["sources", "x"], "unrecognized arguments: x"),
    C("ledger-unknown-scheme", ["ledger", "--scheme", "nope"], "unknown scheme 'nope' for the ledger: choose one of"),
    C("ledger-unknown-status", ["ledger", "--status", "nope"], "argument --status: invalid choice: 'nope'"),
    # the scheme options and --counts with a scheme (bounds: cli.scheme_options and each scheme's OPTIONS)
    C("scheme-punchcard-punches-huge", ["estimate", "punchcard", "--punches", "9" * 30], "--punches"),
    C("scheme-veccom-n-huge", ["estimate", "veccom", "--n", "99999999999999999999"], "--n"),
    C("scheme-cs03-k-huge", ["estimate", "cs03", "--k", "999999999"], "--k"),
    C("scheme-cs03-modulus-bits-3", ["estimate", "cs03", "--modulus-bits", "3"], "--modulus-bits"),
    C("scheme-cs03-rho-bits-1", ["estimate", "cs03", "--rho-bits", "1"], "--rho-bits"),
    C("scheme-cs03-k-prime-100000", ["estimate", "cs03", "--k-prime", "100000"], "--k-prime"),
    C("scheme-punchcard-db-size-huge", ["estimate", "punchcard", "--db-size", "99999999999"], "--db-size"),
    C("scheme-veccom-n-nan", ["estimate", "veccom", "--n", "nan"], "--n"),
    C("scheme-veccom-n-1e3", ["estimate", "veccom", "--n", "1e3"], "--n"),
    C("scheme-veccom-n-empty", ["estimate", "veccom", "--n", ""], "--n"),
    C("scheme-veccom-n-negative", ["estimate", "veccom", "--n", "-5"], "--n"),
    C("scheme-veccom-n-fraction", ["estimate", "veccom", "--n", "2.5"], "--n"),
    C("scheme-veccom-n-missing-value", ["estimate", "veccom", "--n"], "--n needs a value"),
    C("scheme-mixnet-m-0", ["estimate", "mixnet", "--m", "0"], "--m"),
    C("scheme-cs03-with-counts", ["estimate", "cs03", "--counts", f'{{"{MOD}": 1}}'], "--counts"),
    C("scheme-counts-with-params", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--params", "x"], "--params"),
    C("scheme-cs03-params-unknown", ["estimate", "cs03", "--params", "reckless"], "--params"),
    C("scheme-cs03-model-unknown", ["estimate", "cs03", "--model", "nope"], "--model"),
    C("scheme-punchcard-curve-unknown", ["estimate", "punchcard", "--curve", "nope"], "--curve"),
    C("scheme-cs03-unknown-option", ["estimate", "cs03", "--nope", "1"], "--nope"),
    C("scheme-cs03-stray-argument", ["estimate", "cs03", "stray"], "unexpected argument 'stray'"),
    C("scheme-validate-unknown-option", ["validate", "cs03", "--nope", "1"], "--nope"),
    C("validate-even-processes", ["validate", "cs03", "--processes", "2"], "--processes must be an odd integer from 1 to 9"),
    C("validate-zero-processes", ["validate", "cs03", "--processes", "0"], "--processes must be an odd integer"),
    C("validate-too-many-processes", ["validate", "cs03", "--processes", "11"], "--processes must be an odd integer"),
    C("validate-processes-not-a-number", ["validate", "cs03", "--processes", "three"], "got 'three'"),
    C("scheme-estimate-backend-empty", ["estimate", "cs03", "--backend", ""], "--backend: empty backend name"),
    C("scheme-veccom-published-backend", ["estimate", "veccom", "--backend", "gmp"],
      "--backend does not apply to the published source"),
    C("scheme-mixnet-published-backend", ["estimate", "mixnet", "--backend", "mcl"],
      "--backend does not apply to the published source"),
    C("scheme-cs03-published-unknown-backend", ["estimate", "cs03", "--backend", "nosuch"], "no backend 'nosuch'"),
    C("scheme-veccom-reference-unknown-backend", ["estimate", "veccom", "--source", "reference", "--backend",
                                                  "nosuch"], "no backend 'nosuch'"),
    C("scheme-estimate-source-missing", ["estimate", "cs03", "--source", "nosuch.json"],
      "nosuch.json: no such measurement file"),
    # measure: refused before anything is timed
    C("measure-repeat-zero", ["measure", "--repeat", "0", "--no-progress"], "--repeat must be an integer in [1, 20]"),
    C("measure-repeat-too-many", ["measure", "--repeat", "21", "--no-progress"], "--repeat must be an integer in [1, 20]"),
    C("measure-repeat-not-integer", ["measure", "--repeat", "2.5", "--no-progress"], "argument --repeat: invalid int value"),
    C("measure-out-directory", ["measure", "--out", "d", "--no-progress"], "--out d: is a directory",
      files={"d": DIR}),
    C("measure-out-empty", ["measure", "--out", "", "--no-progress"], "is a directory"),
    C("measure-out-under-a-file", ["measure", "--out", "f/x.json", "--no-progress"], "f is not a directory",
      files={"f": "text"}),
    C("measure-out-unwritable", ["measure", "--out", "/proc/costbook-x.json", "--no-progress"],
      "--out /proc/costbook-x.json: cannot write in /proc"),
    C("measure-only-nothing", ["measure", "--only", "no-such-key/*", "--out", "x.json", "--no-progress"],
      "--only: nothing matches 'no-such-key/*'"),
    C("measure-only-one-of-two", ["measure", "--only", "modexp/*", "--only", "zz", "--out", "x.json",
                                  "--no-progress"], "--only: nothing matches 'zz'"),
    C("measure-only-wrong-backend", ["measure", "--only", "sha256/*", "--backend", "gmp", "--out", "x.json",
                                     "--no-progress"], "nothing matches 'sha256/*' among the benchmarks of gmp"),
    C("measure-backend-unknown", ["measure", "--backend", "nosuch", "--out", "x.json", "--no-progress"],
      "--backend: unknown backend(s) 'nosuch' (available here:"),
    C("measure-backend-empty", ["measure", "--backend", "", "--out", "x.json", "--no-progress"],
      "--backend: empty backend name"),
    C("measure-backend-trailing-comma", ["measure", "--backend", "gmp,", "--out", "x.json", "--no-progress"],
      "--backend: empty backend name"),
    C("measure-name-empty", ["measure", "--name", " ", "--out", "x.json", "--no-progress"], "--name: empty"),
    C("measure-profile-unknown", ["measure", "--profile", "huge"], "argument --profile: invalid choice"),
    C("measure-merge-into-invalid-file", ["measure", "--only", "sha256/64B", "--out", "x.json", "--no-progress"],
      "x.json: not valid JSON", files={"x.json": "{"}),
    C("measure-merge-into-latin1-file", ["measure", "--only", "sha256/64B", "--out", "x.json", "--no-progress"],
      "x.json: not UTF-8 text", files={"x.json": b"\xe9t\xe9"}),
    C("measure-default-out-bad-root", ["measure", "--only", "sha256/64B", "--no-progress"],
      "COSTBOOK_ROOT=/nonexistent: not a costbook project", env={"COSTBOOK_ROOT": "/nonexistent"}),
    # check: reading the file
    C("check-no-files", ["check"], "the following arguments are required: files"),
    C("check-empty-name", ["check", ""], ".: is a directory, not a measurement file"),
    C("check-missing", ["check", "missing.json"], "missing.json: no such measurement file"),
    C("check-directory", ["check", "d"], "d: is a directory, not a measurement file", files={"d": DIR}),
    C("check-symlink-loop", ["check", "loop"], "loop: symbolic link loop", files={"loop": LOOP}),
    C("check-dev-null", ["check", "/dev/null"], "/dev/null: not a regular file"),
    C("check-fifo", ["check", "pipe"], "pipe: not a regular file", files={"pipe": FIFO}, subprocess=True),
    Chk("check-latin1", json.dumps(MEASURED).replace('"t"', '"caf\xe9"', 1).encode("latin-1"),
        "m.json: not UTF-8 text (byte 0xe9"),
    Chk("check-binary", bytes(range(256)), "m.json: not UTF-8 text"),
    Chk("check-empty", "", "m.json: empty"),
    Chk("check-blank", "\n\n  ", "m.json: empty"),
    Chk("check-not-json", "{not json", "m.json: not valid JSON"),
    Chk("check-nested-too-deep", "[" * 100_000, "m.json: not valid JSON here (nested more than 64 levels"),
    Chk("check-top-level-list", "[]", "(top level): expected a JSON object, got an array"),
    # check: repeated keys, anywhere
    Chk("check-duplicate-top-level", raw(MEASURED, '"name": "t"', '"name": "t", "name": "u"'),
        "m.json: duplicate key 'name'"),
    Chk("check-duplicate-backend", raw(MEASURED, '"results": {', '"results": {"gmp": {}, '),
        "duplicate key 'gmp'"),
    Chk("check-duplicate-primitive", raw(MEASURED, f'"{MOD}": {{', f'"{MOD}": {{}}, "{MOD}": {{'),
        f"duplicate key '{MOD}'"),
    Chk("check-duplicate-median", raw(MEASURED, '"median": 1.0', '"median": 1.0, "median": 9.0'),
        "duplicate key 'median'"),
    Chk("check-duplicate-in-provenance", raw(MEASURED, '"date": "d"', '"date": "d", "date": "e"'),
        "duplicate key 'date'"),
    # check: the schema
    Chk("check-schema-wrong", spoil(MEASURED, "schema", "v0"), "schema: expected 'costbook-measurements/1'"),
    Chk("check-kind-list", spoil(MEASURED, "kind", ["measured"]), "kind: expected one of"),
    Chk("check-name-list", spoil(MEASURED, "name", ["t"]), "name: expected a non-empty string"),
    Chk("check-name-missing", spoil(MEASURED, "name", DELETE), "name: missing"),
    Chk("check-provenance-list", spoil(MEASURED, "provenance", []), "provenance: expected an object"),
    Chk("check-results-list", spoil(MEASURED, "results", []), "results: expected a non-empty object"),
    Chk("check-results-empty", spoil(MEASURED, "results", {}), "results: expected a non-empty object"),
    Chk("check-backend-list", spoil(MEASURED, "results.gmp", []), "results.gmp: expected a non-empty object"),
    Chk("check-entry-list", spoil(MEASURED, f"results.gmp.{MOD}", [1.0]), "expected an object"),
    Chk("check-unknown-key", raw(MEASURED, f'"{MOD}"', '"pairing"'), "unknown primitive key 'pairing'"),
    Chk("check-unit-list", spoil(MEASURED, "entry.unit", ["ms"]), "unit: expected one of ('s', 'ms', 'us', 'ns'), got an array"),
    Chk("check-unit-number", spoil(MEASURED, "entry.unit", 1), "unit: expected one of"),
    Chk("check-unit-null", spoil(MEASURED, "entry.unit", None), "unit: expected one of"),
    Chk("check-unit-object", spoil(MEASURED, "entry.unit", {"ms": 1}), "unit: expected one of"),
    Chk("check-median-infinity", raw(MEASURED, '"median": 1.0', '"median": Infinity'), "not valid JSON (Infinity is not a JSON number)"),
    Chk("check-median-1e400", raw(MEASURED, '"median": 1.0', '"median": 1e400'), "median: expected a finite number, got inf"),
    Chk("check-median-nan", raw(MEASURED, '"median": 1.0', '"median": NaN'), "not valid JSON (NaN is not a JSON number)"),
    Chk("check-median-minus-infinity", raw(MEASURED, '"median": 1.0', '"median": -Infinity'), "not valid JSON (-Infinity is not"),
    Chk("check-median-1e999", raw(MEASURED, '"median": 1.0', '"median": 1e999'), "median: expected a finite number"),
    Chk("check-median-negative", spoil(MEASURED, "entry.median", -1.0), "median: expected a positive number"),
    Chk("check-median-zero", spoil(MEASURED, "entry.median", 0), "median: expected a positive number"),
    Chk("check-median-string", spoil(MEASURED, "entry.median", "1.0"), "median: expected a finite number, got '1.0'"),
    Chk("check-median-true", spoil(MEASURED, "entry.median", True), "median: expected a finite number, got True"),
    Chk("check-mad-infinity", raw(MEASURED, '"mad": 0.1', '"mad": 1e999'), "mad: expected a finite number, got inf"),
    Chk("check-mad-negative", spoil(MEASURED, "entry.mad", -0.1), "mad: expected a finite number >= 0, got -0.1"),
    Chk("check-q1-nan", raw(MEASURED, '"q1": 0.9', '"q1": NaN'), "not valid JSON (NaN is not a JSON number)"),
    Chk("check-q3-infinity", raw(MEASURED, '"q3": 1.2', '"q3": -1e999'), "q3: expected a finite number, got -inf"),
    Chk("check-min-nan", raw(MEASURED, '"mad": 0.1', '"mad": 0.1, "min": NaN'), "not valid JSON (NaN is not a JSON number)"),
    Chk("check-q1-above-median", spoil(MEASURED, "entry.q1", 1.1), "quartiles out of order"),
    Chk("check-q3-below-median", spoil(MEASURED, "entry.q3", 0.95), "quartiles out of order"),
    Chk("check-samples-string", spoil(MEASURED, "entry.samples", "5"), "samples: expected a positive integer"),
    Chk("check-samples-zero", spoil(MEASURED, "entry.samples", 0), "samples: expected a positive integer"),
    Chk("check-samples-fraction", spoil(MEASURED, "entry.samples", 2.5), "samples: expected a positive integer"),
    Chk("check-samples-true", spoil(MEASURED, "entry.samples", True), "samples: expected a positive integer"),
    Chk("check-batch-null", spoil(MEASURED, "entry.batch", None), "batch: expected a positive integer"),
    Chk("check-batch-list", spoil(MEASURED, "entry.batch", [4]), "batch: expected a positive integer"),
    Chk("check-batch-missing", spoil(MEASURED, "entry.batch", DELETE), "batch: missing"),
    Chk("check-published-low-above-high", spoil(PUBLISHED, "entry.low", 3.0), "interval out of order"),
    Chk("check-published-median-above-interval", spoil(PUBLISHED, "entry.median", 2.6), "need low <= median <= high"),
    Chk("check-published-median-below-interval", spoil(PUBLISHED, "entry.median", 1.0), "interval out of order"),
    Chk("check-published-low-alone", spoil(PUBLISHED, "entry.high", DELETE), "low and high go together"),
    Chk("check-published-high-nan", raw(PUBLISHED, '"high": 2.5', '"high": 1e309'), "high: expected a finite number, got inf"),
    Chk("check-published-quartile-alone", spoil(PUBLISHED, "entry.q1", 1.8), "q1 and q3 go together"),
    Chk("check-published-line-zero", spoil(PUBLISHED, "entry.line", 0), "line: expected a positive integer"),
    Chk("check-published-title-missing", spoil(PUBLISHED, "provenance.title", DELETE), "provenance.title: missing"),
    # sources
    C("sources-root-missing", ["sources"],
      "COSTBOOK_ROOT=/nonexistent: not a costbook project (no measurements/ folder)",
      env={"COSTBOOK_ROOT": "/nonexistent"}),
    C("sources-root-is-a-file", ["sources"], "not a costbook project", env={"COSTBOOK_ROOT": "f"},
      files={"f": "text"}),
    C("sources-none-found", ["sources"], "no measurement files in", env={"COSTBOOK_ROOT": "proj"},
      files=project()),
    C("sources-invalid-file", ["sources"], "local/bad.json: results.gmp['modexp/6144/256'].unit: expected one of", env={"COSTBOOK_ROOT": "proj"},
      files=project(**{"local/bad.json": spoil(MEASURED, "entry.unit", "parsecs")})),
]

# --- issue 19: hostile input (each of these was accepted, crashed, leaked or hung on a5737fc) --------

def measured(**entries) -> str:
    """A measured file of backend gmp: key -> (median, q1, q3) in ms."""
    d = copy.deepcopy(MEASURED)
    d["results"]["gmp"] = {k: {"median": m, "q1": a, "q3": b, "mad": 0.0, "samples": 5, "batch": 1, "unit": "ms"}
                           for k, (m, a, b) in entries.items()}
    return json.dumps(d)


#: a modexp price at 512 and 1024-bit exponents whose line falls below zero at 256 bits
STEEP = measured(**{"modexp/4096/512": (1.0, 0.9, 1.1), "modexp/4096/1024": (10.0, 9.0, 11.0)})
#: a price a 10^15 count takes past the float range
HUGE = measured(**{MOD: (1e300, 1e300, 1e300)})
ESC = "\x1b[2J\x07"          # clear the screen, ring the bell
LONG = "a" * 300

CASES += [
    # impossible or infinite estimates with exit 0
    Chk("h19-check-q1-zero", spoil(MEASURED, "entry.q1", 0), "q1: expected a positive number, got 0"),
    Chk("h19-check-q3-zero", measured(**{MOD: (1e-9, 1e-9, 1e-9)}).replace('"q3": 1e-09', '"q3": 0'),
        "expected a positive number"),
    Chk("h19-check-price-falls-with-exponent", measured(**{"modexp/2048/256": (5.0, 4.9, 5.1),
                                                          "modexp/2048/512": (1.0, 0.9, 1.1)}),
        "price falls as exp grows"),
    Chk("h19-check-price-falls-with-modulus", measured(**{"modexp/2048/256": (5.0, 4.9, 5.1),
                                                         "modexp/4096/256": (1.0, 0.9, 1.1)}),
        "price falls as mod grows"),
    Chk("h19-check-price-falls-with-hash-input", measured(**{"sha256/64B": (5.0, 4.9, 5.1), "sha256/4096B": (1.0, 0.9, 1.1)}),
        "price falls as bytes grows"),
    C("h19-estimate-zero-quartile", ["estimate", "cs03", "--modulus-bits", "2048", "--source", "m.json"],
      "q1: expected a positive number", files={"m.json": measured(**{"modexp/4096/256": (1.0, 0.0, 1.1),
                                                                    "modexp/4096/512": (2.0, 1.9, 2.1)})}),
    C("h19-estimate-infinite-total", ["estimate", "--counts", f'{{"{MOD}": 1e15}}', "--source", "m.json", "--json"],
      "outside the float range", files={"m.json": HUGE}),
    C("h19-estimate-negative-extrapolation", ["estimate", "cs03", "--modulus-bits", "2048", "--source", "m.json",
                                             "--json"], "gives no positive finite price", files={"m.json": STEEP}),
    C("h19-estimate-negative-extrapolation-spec", ["estimate", "cs03", "--model", "spec", "--modulus-bits", "2048",
                                                  "--k", "64", "--k-prime", "64", "--rho-bits", "128",
                                                  "--source", "m.json"], "no positive finite price",
      files={"m.json": STEEP}),
    C("h19-cs03-modulus-below-the-schemes-minimum", ["estimate", "cs03", "--modulus-bits", "512"],
      "--modulus-bits must be an integer in [2048, 16384]"),
    C("h19-cs03-modulus-past-what-verify-accepts", ["estimate", "cs03", "--model", "spec", "--modulus-bits", "65536"],
      "--modulus-bits must be an integer in [2048, 16384]"),
    C("h19-cs03-seed-k-prime", ["estimate", "cs03", "--k-prime", "64"], "--k-prime does not apply with --model seed"),
    C("h19-cs03-seed-k-prime-default-value", ["estimate", "cs03", "--model", "seed", "--k-prime", "128"],
      "--k-prime does not apply"),
    C("h19-cs03-seed-rho-bits", ["estimate", "cs03", "--rho-bits", "300"], "--rho-bits does not apply with --model seed"),
    C("h19-cs03-seed-crt", ["estimate", "cs03", "--crt", "yes"], "--crt"),
    C("h19-punchcard-redeem-check-ristretto", ["estimate", "punchcard", "--redeem-check", "two"],
      "--redeem-check does not apply with --curve ristretto255"),
    C("h19-punchcard-model-measured-source", ["estimate", "punchcard", "--source", "reference", "--model", "implied"],
      "--model does not apply with a measured source"),
    # CLI robustness
    C("h19-repeated-source", ["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", REFERENCE, "--source", "x.json"],
      "--source given twice"),
    C("h19-repeated-json", counts(f'{{"{MOD}": 1}}', "--json", "--json"), "--json given twice"),
    C("h19-repeated-abbreviated", ["measure", "--out", "a.json", "--ou", "b.json"], "given twice"),
    C("h19-repeated-scheme-option", ["estimate", "veccom", "--n", "8", "--n", "16"], "--n given twice"),
    C("h19-repeated-params", ["estimate", "cs03", "--params", "aggressive", "--params", "conservative"],
      "--params given twice"),
    C("h19-repeated-scheme-option-equals", ["estimate", "mixnet", "--m=3", "--m", "4"], "--m given twice"),
    C("h19-out-trailing-slash", ["measure", "--out", "new/", "--only", "sha256/64B", "--backend", "python",
                                 "--no-progress"], "--out new/: names a directory"),
    C("h19-out-symlink", ["measure", "--out", "link.json", "--only", "sha256/64B", "--backend", "python",
                          "--no-progress"], "--out link.json: is a symbolic link",
      files={"link.json": Path("target.json")}),
    C("h19-out-too-long-component", ["measure", "--out", f"{LONG}.json", "--only", "sha256/64B", "--no-progress"],
      "a path component of 305 bytes, longer than a file name may be (255 bytes)"),
    C("h19-out-too-long-in-a-folder", ["measure", "--out", f"d/{LONG}/x.json", "--only", "sha256/64B",
                                       "--no-progress"], "longer than a file name may be", files={"d": DIR}),
    C("h19-out-device", ["measure", "--out", "/dev/null", "--only", "sha256/64B", "--backend", "python",
                         "--no-progress"], "--out /dev/null: not a regular file"),
    C("h19-out-fifo", ["measure", "--out", "pipe", "--only", "sha256/64B", "--backend", "python", "--no-progress"],
      "--out pipe: not a regular file", files={"pipe": FIFO}, subprocess=True),
    C("h19-dalek-out-directory", ["measure-dalek", "--out", "d"], "--out d: is a directory", files={"d": DIR}),
    C("h19-control-characters-in-a-file-name", ["check", f"m{ESC}.json"], "m\\x1b[2J\\x07.json: no such"),
    C("h19-control-characters-in-an-option", ["estimate", "cs03", f"--x{ESC}", "1"], "--x\\x1b[2J\\x07"),
    C("h19-control-characters-in-an-argument", ["sources", f"x{ESC}"], "unrecognized arguments: x\\x1b[2J"),
    C("h19-control-characters-in-a-counts-key", counts(f'{{"a\\u001b[2J": 1}}'), "\\x1b[2J"),
    C("h19-proc-kmsg", ["check", "/proc/kmsg"], "/proc/kmsg: empty", subprocess=True),
]

GOOD = [
    C("good-fractional-count", counts(f'{{"{MOD}": 2.5}}', "--json"), "", code=0),
    C("good-zero-count", counts(f'{{"{MOD}": 0}}'), "", code=0),
    C("good-count-at-the-bound", counts(f'{{"{MOD}": 1e15}}'), "", code=0),
    C("good-pretty-json", counts(f'{{\n  "{MOD}": 1,\n  "sha256/64B": 3\n}}\n'), "", code=0),
    C("good-counts-file", counts("@c.json", "--backend", "gmp, python"), "", code=0,
      files={"c.json": f'{{"{MOD}": 1, "sha256/64B": 2}}\n'}),
    C("good-check-published-interval", ["check", "m.json"], "", code=0, files={"m.json": json.dumps(PUBLISHED)}),
    C("good-check-measured", ["check", "m.json"], "", code=0, files={"m.json": json.dumps(MEASURED)}),
    C("good-check-committed", ["check", *map(str, sorted((measurements.project_root() / "measurements")
                                                           .glob("*/*.json")))], "", code=0),
    C("good-sources", ["sources"], "", code=0),
    C("good-scheme-estimate", ["estimate", "cs03", "--json"], "", code=0),
    C("good-scheme-option-in-bounds", ["estimate", "veccom", "--n", "64", "--source", "reference"], "", code=0),
]


def make_files(root: Path, files: dict):
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is DIR:
            path.mkdir(exist_ok=True)
        elif content is LOOP:
            path.symlink_to(path.name)              # a link to itself
        elif content is FIFO:
            os.mkfifo(path)
        elif isinstance(content, Path):
            path.symlink_to(content)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def run_in_process(case, tmp_path, monkeypatch, capsys):
    make_files(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    for k, v in case.env.items():
        monkeypatch.setenv(k, v)

    def hung(signum, frame):
        raise AssertionError(f"{case.id}: still running after 60 s")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        code = main(case.argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    return code, out, err


def run_subprocess(argv, cwd, env=None, timeout=60):
    r = subprocess.run([sys.executable, "-m", "costbook.cli.commands", *argv], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout, env={**os.environ, **(env or {})})
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_in_one_line(case, tmp_path, monkeypatch, capsys):
    if case.subprocess:
        make_files(tmp_path, case.files)
        code, out, err = run_subprocess(case.argv, tmp_path, case.env, timeout=30)
    else:
        code, out, err = run_in_process(case, tmp_path, monkeypatch, capsys)
    assert not LEAK.search(out + err), f"leaked: {out + err!r}"
    assert code == case.code, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1 and err.strip(), f"not one line: {err!r}"
    assert err.startswith("costbook: error: ")
    assert case.expect in err


@pytest.mark.parametrize("case", GOOD, ids=[c.id for c in GOOD])
def test_good_input_still_succeeds(case, tmp_path, monkeypatch, capsys):
    code, out, err = run_in_process(case, tmp_path, monkeypatch, capsys)
    assert code == 0, err
    assert out and not LEAK.search(out + err)


def test_the_table_is_big_enough():
    assert len(CASES) >= 100 and len({c.id for c in CASES + GOOD}) == len(CASES + GOOD)


def test_deep_json_is_refused_under_a_raised_recursion_limit(tmp_path):
    """Sage raises the recursion limit to 10^5; json's C parser would then overflow the C stack
    (a segfault) on deep nesting instead of raising.  Run in a child so a crash cannot take pytest."""
    (tmp_path / "deep.json").write_text("[" * 200_000)
    r = subprocess.run([sys.executable, "-c", "import sys; sys.setrecursionlimit(10**6); import costbook.cli.commands; "
                        "sys.exit(costbook.cli.commands.main(sys.argv[1:]))", "check", "deep.json"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "costbook: error: deep.json: not valid JSON here (nested more than 64 levels deep)\n"


def test_a_reader_that_goes_away_is_not_an_error():
    """costbook sources | head -0: the pipe closes before costbook writes; no traceback, no
    'Exception ignored' message at exit."""
    proc = subprocess.Popen([sys.executable, "-m", "costbook.cli.commands", "sources"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()                 # before the child has imported anything
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 141 and err == ""


# A child that enters the command as the installed script does (costbook.cli.launch) and sends itself a
# signal while the command's modules are still being imported (when the module named is found: one the
# command imports, or one the entry point's own module imports, in which a Ctrl-C was a traceback).
SIGNAL_WHILE_IMPORTING = textwrap.dedent("""
    import importlib.abc, os, signal, sys
    sig = getattr(signal, sys.argv[1])
    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == sys.argv[2]:
                os.kill(os.getpid(), sig)
            return None
    sys.meta_path.insert(0, Finder())
    from costbook.cli import launch
    sys.exit(launch.main(["sources"]))
""")


@pytest.mark.parametrize("module", ["costbook.prices.measurements", "costbook.system.unwinding"])
@pytest.mark.parametrize("sig,code,word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_a_signal_while_the_command_is_still_importing_is_one_line(sig, code, word, module):
    r = subprocess.run([sys.executable, "-c", SIGNAL_WHILE_IMPORTING, sig, module], capture_output=True, text=True,
                       timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (code, "", f"costbook: {word}\n")


def test_the_installed_command_enters_through_launch():
    """pyproject's script is launch.main (cli.main would be reached only after the slow imports)."""
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"costbook": "costbook.cli.launch:main"}


def test_check_reports_every_file_even_after_a_crash(tmp_path, monkeypatch, capsys):
    """check A B C D: every file gets its line, the good ones on stdout, the bad ones on stderr,
    also when loading one of them fails in a way nobody planned for (a bug)."""
    make_files(tmp_path, {"good.json": json.dumps(MEASURED), "bad.json": spoil(MEASURED, "entry.unit", []),
                          "crash.json": json.dumps(PUBLISHED), "also-good.json": json.dumps(PUBLISHED)})
    monkeypatch.chdir(tmp_path)
    real_validate = measurements.validate

    def validate(data, path="<memory>", **how):
        if Path(path).name == "crash.json":
            raise ZeroDivisionError("division by zero")
        return real_validate(data, path, **how)
    monkeypatch.setattr(measurements, "validate", validate)
    code = main(["check", "good.json", "bad.json", "missing.json", "crash.json", "also-good.json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert [line.split()[1] for line in out.splitlines()] == ["good.json:", "also-good.json:"]
    lines = err.splitlines()
    assert len(lines) == 3 and not LEAK.search(out + err)
    assert lines[0].startswith("costbook: error: bad.json: results.gmp")
    assert lines[1] == "costbook: error: missing.json: no such measurement file"
    assert lines[2] == "costbook: internal error: crash.json: division by zero"


def test_an_unexpected_failure_is_one_line_with_exit_1(monkeypatch, capsys):
    import costbook.cli.commands as cli
    def boom(args):
        raise RuntimeError("something nobody foresaw")
    monkeypatch.setattr(cli, "cmd_sources", boom)
    code = main(["sources"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (1, "", "costbook: internal error: something nobody foresaw\n")


# --- measure: interrupted, terminated, killed ---------------------------------------------------------

def test_ctrl_c_while_measuring_exits_130_and_keeps_the_file(tmp_path, monkeypatch, capsys):
    import costbook.timing.measure as measure
    out = tmp_path / "m.json"
    measurements.write_atomic(MEASURED, out)
    before = out.read_bytes()

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(measure, "run_benchmarks", interrupted)
    code = main(["measure", "--only", "sha256/64B", "--out", str(out), "--no-progress"])
    _, err = capsys.readouterr()
    assert code == 130
    assert err == f"costbook: interrupted; {out} left unchanged\n"
    assert out.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_ctrl_c_before_a_first_file_says_it_was_not_written(tmp_path, monkeypatch, capsys):
    import costbook.timing.measure as measure
    monkeypatch.setattr(measure, "run_benchmarks", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    code = main(["measure", "--only", "sha256/64B", "--out", str(tmp_path / "new.json"), "--no-progress"])
    assert code == 130 and capsys.readouterr().err == f"costbook: interrupted; {tmp_path / 'new.json'} not written\n"


# A child process that runs `costbook measure` with one hook in place: `when` is "measuring" (the hook
# runs instead of the first benchmark) or "writing" (inside write_atomic, after part of the file is
# written to its temporary); the hook sends the process a real signal.
CHILD = textwrap.dedent("""
    import os, signal, sys
    import costbook.cli.commands, costbook.timing.measure, costbook.prices.measurements
    when, sig, argv = sys.argv[1], getattr(signal, sys.argv[2]), sys.argv[3:]
    if when == "measuring":
        costbook.timing.measure.run_benchmarks = lambda *a, **k: os.kill(os.getpid(), sig)
    else:
        real_dump = costbook.prices.measurements.json.dump
        def dump(data, f, **kw):
            f.write('{"schema": ')
            f.flush()
            os.kill(os.getpid(), sig)
            real_dump(data, f, **kw)
        costbook.prices.measurements.json.dump = dump
    sys.exit(costbook.cli.commands.main(argv))
""")


def run_child(tmp_path, when, sig, out):
    r = subprocess.run([sys.executable, "-c", CHILD, when, sig, "measure", "--only", "sha256/64B",
                        "--backend", "python", "--out", str(out), "--no-progress"],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize("when,sig,code,word", [("measuring", "SIGINT", 130, "interrupted"),
                                                ("writing", "SIGINT", 130, "interrupted"),
                                                ("writing", "SIGTERM", 143, "terminated")])
def test_a_signal_leaves_the_old_file_and_no_temporary(tmp_path, when, sig, code, word):
    out = tmp_path / "m.json"
    measurements.write_atomic(MEASURED, out)
    before = out.read_bytes()
    got, stdout, err = run_child(tmp_path, when, sig, out)
    assert (got, stdout, err) == (code, "", f"costbook: {word}; {out} left unchanged\n")
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_a_temporary_left_by_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    out = tmp_path / "m.json"
    measurements.write_atomic(MEASURED, out)
    got, _, _ = run_child(tmp_path, "writing", "SIGKILL", out)
    assert got == -signal.SIGKILL
    (stale,) = [p for p in tmp_path.iterdir() if p.name != "m.json"]   # SIGKILL runs no cleanup
    live = tmp_path / f".m.json.{os.getpid()}.abc.tmp"                  # a writer still running: kept
    live.write_text("")
    measurements.write_atomic(PUBLISHED, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["m.json", live.name])
    assert measurements.load(out).name == "p"


def test_ctrl_c_from_the_terminal_while_measuring(tmp_path):
    """A real SIGINT from outside, once the progress bar shows that measuring has begun."""
    out = tmp_path / "m.json"
    measurements.write_atomic(MEASURED, out)
    before = out.read_bytes()
    proc = subprocess.Popen([sys.executable, "-m", "costbook.cli.commands", "measure", "--profile", "full",
                             "--only", "modexp/*", "--backend", "sage", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = bytearray()
    started = threading.Event()

    def read_stderr():
        while chunk := proc.stderr.read1(4096):
            err.extend(chunk)
            if b"step" in err:                  # tqdm's first frame: measuring has begun
                started.set()
    reader = threading.Thread(target=read_stderr)
    reader.start()
    try:
        assert started.wait(60), bytes(err)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
        reader.join(10)
    text = err.decode()
    assert code == 130
    assert not LEAK.search(text + proc.stdout.read().decode())
    assert text.rstrip().splitlines()[-1].endswith(f"costbook: interrupted; {out} left unchanged")
    assert out.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["m.json"]


# --- issue 19: options accepted then ignored, concurrent runs, echoed names ----------------------------

VALIDATE_UNUSED = [("cs03", ["--model", "spec"]), ("cs03", ["--k", "128"]), ("cs03", ["--crt", "yes"]),
                   ("cs03", ["--modulus-bits", "2048"]), ("mixnet", ["--security", "hbc"]),
                   ("mixnet", ["--curve", "bls12_381"]), ("veccom", ["--msm", "yes"]),
                   ("punchcard", ["--model", "implied"])]


@pytest.mark.parametrize("scheme, extra", VALIDATE_UNUSED, ids=[f"{s}{' '.join(e)}" for s, e in VALIDATE_UNUSED])
def test_validate_refuses_options_it_would_drop_before_any_work(scheme, extra, monkeypatch, capsys):
    """validate takes only the options its scheme's validate uses; the others were accepted, checked
    and then dropped.  Refused before the (minutes long) validation starts: here it is a stub with
    the real signature that records being called."""
    import functools
    from costbook import schemes
    module = schemes.get(scheme)
    ran = []

    @functools.wraps(module.validate)
    def stub(**kw):
        ran.append(kw)
        return {}
    monkeypatch.setattr(module, "validate", stub)
    monkeypatch.setattr(module, "format_validation", lambda r: "ran")
    code = main(["validate", scheme, *extra])
    out, err = capsys.readouterr()
    assert (code, out, ran) == (2, "", [])
    assert err.count("\n") == 1 and f"validate {scheme} does not use {extra[0]}" in err


def test_validate_still_takes_the_options_it_uses(monkeypatch, capsys):
    import functools
    from costbook import schemes
    module = schemes.get("veccom")
    ran = []
    monkeypatch.setattr(module, "validate", functools.wraps(module.validate)(lambda **kw: ran.append(kw) or {}))
    monkeypatch.setattr(module, "format_validation", lambda r: "ran")
    assert main(["validate", "veccom", "--n", "16", "--processes", "1"]) == 0 and ran == [{"n": 16}]


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import costbook.cli.commands, costbook.timing.measure
    started, release = Path(sys.argv[1]), Path(sys.argv[2])
    real = costbook.timing.measure.run_benchmarks
    def slow(*a, **k):
        started.write_text("")
        while not release.exists():
            time.sleep(0.05)
        return real(*a, **k)
    costbook.timing.measure.run_benchmarks = slow
    sys.exit(costbook.cli.commands.main(sys.argv[3:]))
""")


def test_two_measure_runs_to_one_file_do_not_lose_keys(tmp_path, monkeypatch, capsys):
    """A second run writing the file that a first run is writing is refused at once (it would have
    read the file before the first run's write and then dropped that run's keys); after the first
    run ends, the file holds its keys and the lock is free again."""
    import costbook.timing.measure as measure
    out = tmp_path / "m.json"
    measurements.write_atomic(MEASURED, out)
    started, release = tmp_path / "started", tmp_path / "release"
    first = subprocess.Popen([sys.executable, "-c", HOLDER, str(started), str(release), "measure", "--only",
                              "sha256/64B", "--backend", "python", "--out", str(out), "--no-progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if started.exists() or first.poll() is not None:
                break
            threading.Event().wait(0.05)
        assert started.exists(), first.communicate(timeout=10)
        timed = []
        monkeypatch.setattr(measure, "run_benchmarks", lambda *a, **k: timed.append(1) or [])
        code = main(["measure", "--only", "sha256/128B", "--backend", "python", "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        assert (code, timed) == (2, [])
        assert err.count("\n") == 1 and "another costbook measure is writing this file" in err
    finally:
        release.write_text("")
        stdout, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert "sha256/64B" in measurements.load(out).results["python"]
    with measure.exclusive(out):          # released: the next run may start
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "release", "started"]


def test_check_escapes_control_characters_in_the_ok_line_too(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    name = f"m{ESC}.json"
    (tmp_path / name).write_text(json.dumps(MEASURED))
    assert main(["check", name]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "m\\x1b[2J\\x07.json" in out


def test_names_from_a_file_are_escaped_in_text_output(tmp_path, monkeypatch, capsys):
    """A measurement file's name is printed in every text estimate: its control characters escaped."""
    monkeypatch.chdir(tmp_path)
    Path("m.json").write_text(json.dumps({**MEASURED, "name": f"evil{ESC}"}))
    assert main(["estimate", "--counts", f'{{"{MOD}": 1}}', "--source", "m.json"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b[2J\\x07" in out


def test_estimate_json_is_finite_or_refused(tmp_path, monkeypatch, capsys):
    """No Infinity or NaN in JSON, and no negative time: a model that produced one is refused."""
    from costbook import schemes
    module = schemes.get("veccom")
    real = module.estimate
    monkeypatch.setattr(module, "estimate", lambda *a, **k: {**real(*a, **k), "extra_s": float("inf")})
    assert main(["estimate", "veccom", "--json"]) == 2
    assert "result.extra_s is inf, not a finite non-negative time" in capsys.readouterr().err
    monkeypatch.setattr(module, "estimate", lambda *a, **k: {**real(*a, **k), "ms": {"x": -1.0}})
    assert main(["estimate", "veccom", "--json"]) == 2
    assert "result.ms.x is -1.0" in capsys.readouterr().err


def test_cs03_prices_only_the_moduli_its_implementation_accepts():
    """The estimate's bounds on --modulus-bits are key generation's minimum and verify's maximum, and
    the seed model's range check (masks of 2k bits) is checked as well."""
    from costbook.schemes.cs03 import proof, scheme, seed
    bounds = seed.Parameters.__dataclass_fields__["modulus_bits"].metadata["allowed"]
    assert (bounds.low, bounds.high) == (scheme.MIN_MODULUS_BITS, proof.MAX_MODULUS_BITS)
    assert seed.seed_min_modulus_bits(256) == 515 and seed.seed_min_modulus_bits(1) == 260
    with pytest.raises(ValueError, match="--k-prime does not apply to the seed's model"):
        seed.Parameters(model="seed", k_prime=64)


# --- every discovered scheme, and the toy schemes: its options refused in one line ----------------

TOYS = sorted(d.name for d in (Path(__file__).resolve().parent / "toy_schemes").iterdir() if (d / "model.py").is_file())


def option_cases(model) -> list:
    """(argv tail, phrase) refusing each option of a scheme: outside its bounds, not one of its
    choices, given twice; then an unknown option and a stray argument."""
    out = []
    for opt, (default, allowed) in model.OPTIONS.items():
        flag = "--" + opt.replace("_", "-")
        if isinstance(allowed, schemes.Bounds):
            out += [([flag, str(allowed.high + 1)], f"{flag} must be an integer in [{allowed.low}, {allowed.high}]"),
                    ([flag, "-1"], f"{flag} must be an integer"), ([flag, "1e3"], f"{flag} must be an integer"),
                    ([flag, ""], f"{flag} must be an integer")]
        else:
            out.append(([flag, "no-such-choice"], flag))
        out.append(([flag, str(default), flag, str(default)], f"{flag} given twice"))
    return out + [(["--no-such-option", "1"], "--no-such-option"), (["stray"], "unexpected argument 'stray'")]


@pytest.mark.parametrize("scheme", sorted(schemes.REGISTRY) + TOYS)
def test_every_scheme_refuses_bad_options_in_one_line(scheme, request, capsys):
    if scheme in TOYS:
        request.getfixturevalue("toy_scheme")
    for tail, phrase in option_cases(schemes.get(scheme)):
        code = main(["estimate", scheme, *tail])
        out, err = capsys.readouterr()
        assert not LEAK.search(out + err), f"{tail}: leaked: {out + err!r}"
        assert (code, out) == (2, ""), tail
        assert err.startswith("costbook: error: ") and err.count("\n") == 1 and phrase in err, (tail, err)
