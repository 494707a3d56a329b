"""One schema, one checker, two languages: `costbook check` and the book page's checker of a reader's
measurement file give the same verdict and the same one-line message for every file.

Both interpret sage/costbook/measurement.schema.json (Python: costbook/measurement_schema.py; the
page: pricing.js, with the document from the export, costbook/live.py).  The page's side runs under
node (tests/js/check_files.js), many files in one process (one for the whole module): a corpus of malformed files
(tests/fixtures/measurements/malformed, the expected words of each message in
malformed.expected.json), files the page cannot read (a symbolic link loop, a directory, one too
large), the committed measurement files, and Hypothesis' random JSON, mutated files, random text and
random bytes.
"""
from __future__ import annotations

import base64
import contextlib
import copy
import io
import json
import os
import select
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from costbook.cli import commands as cli
from costbook.book import live
from costbook.prices import measurements

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "measurements" / "malformed"
EXPECTED = json.loads((CORPUS.parent / "malformed.expected.json").read_text(encoding="utf-8"))
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")


class PageChecker:
    """The page's checker under node, started once for the module (--serve): one JSON line per batch
    of cases in, one JSON line of outcomes out.  Starting node for each Hypothesis example took most of
    this module's time; the checker keeps no state between batches (each brings its rules)."""

    def __init__(self):
        self.proc = subprocess.Popen([NODE, str(ROOT / "tests/js/check_files.js"), "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")

    def __call__(self, cases: list) -> list:
        self.proc.stdin.write(json.dumps({"rules": live.schema_rules(), "cases": cases}, allow_nan=False) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], 300)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            pytest.fail(f"the page's checker gave no answer (exit {self.proc.returncode}): {self.proc.stderr.read()}")
        return json.loads(line)

    def close(self):
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_checker = None


@pytest.fixture(scope="module", autouse=True)
def _the_page_checker_ends_with_the_module():
    yield
    global _checker
    if _checker is not None:
        _checker.close()
        _checker = None


def page(cases: list) -> list:
    """The page checker's outcome for each case ({name, path} | {name, base64} | {name, text}):
    "OK <kind> <name> <backends> <entries>", or its message.  One node process for all."""
    global _checker
    if _checker is None:
        _checker = PageChecker()
    out = []
    for case, got in zip(cases, _checker(cases), strict=True):
        assert "crash" not in got, f"{case['name']}: the page's checker threw {got['crash']}"
        ok = got.get("ok")
        out.append(f"OK {ok['kind']} {ok['name']!r} {ok['backends']} {ok['entries']}" if ok else got["error"])
    return out


def described(m) -> str:
    return f"OK {m.kind} {m.name!r} {len(m.results)} {sum(len(v) for v in m.results.values())}"


def check_cli(path) -> tuple:
    """(exit code, the one line `costbook check PATH` prints on stderr without its prefix, or OK ...)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(["check", str(path)])
    lines = err.getvalue().splitlines()
    if rc == 0:
        return rc, described(measurements.load(path))
    assert len(lines) == 1, lines                      # one line, whatever the file holds
    return rc, lines[0].removeprefix("costbook: error: ")


def python_text(text: str, name: str) -> str:
    """What `costbook check` says of a file holding `text` (parsed and checked as load() does)."""
    try:
        return described(measurements.validate(measurements.parse_json(text, name), name, on_disk=True))
    except measurements.MeasurementFileError as e:
        return str(e)


def python_bytes(data: bytes, path: Path) -> str:
    path.write_bytes(data)
    try:
        return described(measurements.load(path))
    except measurements.MeasurementFileError as e:
        return str(e)


# ---------------------------------------------------------------- the corpus

CORPUS_FILES = sorted(CORPUS.glob("*.json"))


def test_the_corpus_is_described():
    """Every file of the corpus has its expected message, and every expected message a file."""
    assert sorted(EXPECTED) == [p.name for p in CORPUS_FILES]


def test_corpus_same_verdict_and_message():
    """Each malformed file: `costbook check` exits 2 with one line, the page refuses it with that line
    word for word, and the line is the expected one; each ok-* file is accepted by both alike."""
    said = page([{"name": str(p), "path": str(p)} for p in CORPUS_FILES])
    for path, by_page in zip(CORPUS_FILES, said):
        rc, by_cli = check_cli(path)
        if path.name.startswith("ok-"):
            assert rc == 0 and by_cli == by_page == f"OK {EXPECTED[path.name]}", (path.name, by_cli, by_page)
            continue
        assert rc == 2, (path.name, by_cli)
        assert by_page == by_cli, f"{path.name}:\n  page: {by_page}\n  cli:  {by_cli}"
        assert by_cli == f"{path}: {EXPECTED[path.name]}", f"{path.name}: {by_cli}"


def test_files_the_page_cannot_read(tmp_path):
    """A symbolic link loop, a missing file, a directory and a file larger than any measurement file:
    one line each, the same in both (the page is told the errno or the size a browser gives it)."""
    (tmp_path / "loop.json").symlink_to("loop.json")
    (tmp_path / "folder.json").mkdir()
    with open(tmp_path / "huge.json", "wb") as f:                    # sparse: no disk used
        f.truncate(measurements.MAX_INPUT_BYTES + 1)
    names = ["loop.json", "absent.json", "folder.json", "huge.json"]
    paths = [str(tmp_path / n) for n in names]
    said = page([{"name": p, "path": p} for p in paths])
    for p, by_page in zip(paths, said):
        rc, by_cli = check_cli(p)
        assert rc == 2 and by_page == by_cli, (p, by_cli, by_page)
    assert "symbolic link loop" in said[0] and "no such measurement file" in said[1]
    assert "is a directory" in said[2] and "larger than any measurement file" in said[3]


def test_committed_files_are_accepted_by_both():
    paths = sorted((ROOT / "measurements").glob("*/*.json"))
    said = page([{"name": str(p), "path": str(p)} for p in paths])
    for p, by_page in zip(paths, said):
        assert by_page == described(measurements.load(p)), p


def test_the_schema_is_json_schema_and_no_looser_than_it_says():
    """The document is a valid JSON Schema (2020-12), and what its keywords say holds: every corpus
    file the checkers accept, a standard validator accepts too, and every file it refuses, they refuse
    (the interpreters are stricter only where the document says so: finite numbers, integers without
    a fraction, the x- checks)."""
    from costbook.prices import measurement_schema
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(measurement_schema.DOCUMENT)
    standard = jsonschema.Draft202012Validator(measurement_schema.DOCUMENT)
    accepted = refused_by_standard = 0
    for path in CORPUS_FILES + sorted((ROOT / "measurements").glob("*/*.json")):
        try:
            data = json.loads(path.read_bytes())
        except ValueError:
            continue
        try:
            measurements.validate(data, path, on_disk=True)
            accepted += 1
            assert standard.is_valid(data), f"{path.name}: accepted here, refused by the schema read as JSON Schema"
        except measurements.MeasurementFileError:
            refused_by_standard += not standard.is_valid(data)
    assert accepted >= 10 and refused_by_standard >= 30, (accepted, refused_by_standard)
    # a kind that exists only in memory is accepted in memory (costbook.prices.derived builds them)
    calibrated = json.loads((CORPUS / "calibrated-from-disk.json").read_text())
    assert measurements.validate(calibrated).kind == "calibrated"
    with pytest.raises(measurements.MeasurementFileError, match="never read from a file"):
        measurements.load(CORPUS / "calibrated-from-disk.json")
    with pytest.raises(measurements.MeasurementFileError, match="never read from a file"):
        measurements.write_atomic(calibrated, Path("/nonexistent/never-written.json"))


def test_source_refuses_a_calibrated_file_from_disk(capsys):
    """`--source FILE` reads through the same check: a calibrated file from disk is refused in one line."""
    path = CORPUS / "calibrated-from-disk.json"
    assert cli.main(["estimate", "cs03", "--source", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "kind: expected one of ('measured', 'published', 'public'), got 'calibrated'" in err[0], err


# ---------------------------------------------------------------- random files (Hypothesis)

FUZZ = settings(derandomize=True, deadline=None, database=None, max_examples=25,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

GOOD = json.loads((CORPUS / "ok-measured.json").read_text())
PUBLISHED = json.loads((CORPUS / "ok-published.json").read_text())

numbers = st.one_of(st.integers(), st.integers(min_value=-10**400, max_value=10**400),
                    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0, 1, 2, -1, 0.0, -0.0, 1e308, 5e-324]))
texts = st.one_of(st.text(max_size=20), st.sampled_from(["", "s", "ms", "us", "ns", "measured", "published",
                                                         "calibrated", "constructor", "__proto__", "toString",
                                                         "modexp/2048/256", "costbook-measurements/1", "\ud800"]))
json_values = st.recursive(st.none() | st.booleans() | numbers | texts,
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
                           max_leaves=12)


def paths_of(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths_of(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths_of(v, prefix + (i,))


@st.composite
def mutated(draw):
    """A valid measured or published file with one to three changes: a value replaced by random JSON,
    a member removed, or one added."""
    doc = copy.deepcopy(draw(st.sampled_from([GOOD, PUBLISHED])))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(list(paths_of(doc))))
        if not where:
            continue
        parent = doc
        for k in where[:-1]:
            parent = parent[k]
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if action == "replace":
            parent[where[-1]] = draw(json_values)
        elif action == "remove" and isinstance(parent, dict):
            del parent[where[-1]]
        elif isinstance(parent, dict):
            parent[draw(texts)] = draw(json_values)
    return doc


def as_text(doc, ensure_ascii: bool) -> str:
    return json.dumps(doc, ensure_ascii=ensure_ascii)      # Infinity/NaN for a float out of range


JSONISH = st.text(alphabet=st.sampled_from(list('{}[]":,0123456789-+.eE \n\t\\u/tfnrlsaNIy') + ["\U0001F600", "\x01", "é"]),
                  max_size=40)


def same(cases):
    """Both checkers on every case: the same outcome, word for word."""
    by_page = page(cases)
    for case, got in zip(cases, by_page):
        if "text" in case:
            expected = python_text(case["text"], case["name"])
        else:
            expected = python_bytes(base64.b64decode(case["base64"]), Path(case["name"]))
        assert got == expected, f"{case!r}:\n  page: {got}\n  cli:  {expected}"


@FUZZ
@given(docs=st.lists(st.tuples(json_values, st.booleans()), min_size=1, max_size=40))
def test_random_json_same_verdict(docs):
    same([{"name": f"r{i}.json", "text": as_text(d, a)} for i, (d, a) in enumerate(docs)])


@FUZZ
@given(docs=st.lists(st.tuples(mutated(), st.booleans()), min_size=1, max_size=40))
def test_mutated_files_same_verdict(docs):
    same([{"name": f"m{i}.json", "text": as_text(d, a)} for i, (d, a) in enumerate(docs)])


@FUZZ
@given(texts_=st.lists(st.one_of(JSONISH, st.text(max_size=40)), min_size=1, max_size=60))
def test_random_strings_same_verdict(texts_):
    same([{"name": f"s{i}.json", "text": t} for i, t in enumerate(texts_)])


@st.composite
def damaged_bytes(draw):
    """A valid file's bytes with a few bytes changed, inserted or cut, or random bytes."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=60))
    data = bytearray(json.dumps(draw(st.sampled_from([GOOD, PUBLISHED])), ensure_ascii=False).encode())
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(data) - 1))
        what = draw(st.sampled_from(["set", "insert", "cut"]))
        if what == "set":
            data[i] = draw(st.integers(0, 255))
        elif what == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=4))
        else:
            del data[i:]
            break
    return bytes(data)


@FUZZ
@given(blobs=st.lists(damaged_bytes(), min_size=1, max_size=40))
def test_random_bytes_same_verdict(tmp_path_factory, blobs):
    tmp = tmp_path_factory.mktemp("b")
    same([{"name": str(tmp / f"b{i}.json"), "base64": base64.b64encode(b).decode()} for i, b in enumerate(blobs)])


def test_float_words_agree_with_python():
    """The page prints a float from a file as Python's repr does, and a price as format(x, '.4g') does,
    ties rounded half to even on the exact binary value (12345 -> 1.234e+04)."""
    xs = [0.1, 1e16, 1e-5, 1.5e-7, 123456789012345.0, 12345.0, 1.0625, 2.5, 9.9995e-5, 5e-324, 1.7976931348623157e308,
          -0.0, 0.0001, 1e22, 100.0]
    doc = {"schema": "costbook-measurements/1", "name": "n", "kind": "measured", "provenance": {},
           "results": {}}
    cases = [{"name": "f.json", "text": json.dumps({**doc, "name": x})} for x in xs]
    same(cases)
    script = ("const P = require(process.argv[1]); const xs = JSON.parse(process.argv[2]);"
              "console.log(JSON.stringify(xs.map((x) => P.pyG(x, 4))));")
    run = subprocess.run([NODE, "-e", script, str(ROOT / "sage/costbook/book/assets/live/pricing.js"),
                          json.dumps([x for x in xs if x != 0])], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == [f"{x:.4g}" for x in xs if x != 0]
