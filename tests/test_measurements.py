"""Measurement files: the schema check, atomic writes, named sources, published provenance."""
import copy
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from costbook.prices import measurements as M

GOOD = {
    "schema": "costbook-measurements/1", "name": "t", "kind": "measured",
    "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}},
    "results": {"gmp": {"modexp/2048/256": {"median": 1.0, "q1": 0.9, "q3": 1.2, "mad": 0.1,
                                            "samples": 5, "batch": 4, "unit": "ms"}}},
}


def with_change(path, value):
    d = copy.deepcopy(GOOD)
    *parents, last = path
    node = d
    for p in parents:
        node = node[p]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return d


ENTRY = ["results", "gmp", "modexp/2048/256"]


@pytest.mark.parametrize("path,value,message", [
    (["schema"], "v0", "schema: expected 'costbook-measurements/1'"),
    (["kind"], "guessed", "kind: expected one of"),
    (["provenance", "date"], KeyError, r"provenance.date: missing \(required for a measured file\)"),
    (["results"], {}, "results: expected a non-empty object"),
    (["results", "gmp"], {"modexp/2048": {}}, "unknown primitive key 'modexp/2048'"),
    (ENTRY + ["median"], KeyError, r"results.gmp\['modexp/2048/256'\].median: missing"),
    (ENTRY + ["median"], "fast", "median: expected a finite number, got 'fast'"),
    (ENTRY + ["median"], 0, "median: expected a positive number"),
    (ENTRY + ["unit"], "minutes", "unit: expected one of"),
    (ENTRY + ["samples"], 2.5, "samples: expected a positive integer"),
    (ENTRY + ["q1"], 1.1, "quartiles out of order"),
])
def test_schema_rejects_bad_files_naming_file_and_field(tmp_path, path, value, message):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(with_change(path, value)))
    with pytest.raises(M.MeasurementFileError, match=message) as err:
        M.load(f)
    assert str(f) in str(err.value)


def test_not_json_and_missing_file(tmp_path):
    f = tmp_path / "x.json"
    f.write_text("{not json")
    with pytest.raises(M.MeasurementFileError, match="not valid JSON"):
        M.load(f)
    with pytest.raises(M.MeasurementFileError, match="no such measurement file"):
        M.load(tmp_path / "absent.json")


def test_units_are_normalised_to_seconds():
    m = M.validate(GOOD)
    assert m.seconds("gmp", "modexp/2048/256") == pytest.approx(1e-3)


def test_atomic_write_keeps_the_old_file_when_interrupted(tmp_path, monkeypatch):
    out = tmp_path / "m.json"
    M.write_atomic(GOOD, out)
    before = out.read_text()

    def boom(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(M.json, "dump", boom)
    with pytest.raises(KeyboardInterrupt):
        M.write_atomic(with_change(ENTRY + ["median"], 1.1), out)
    assert out.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]   # no temporary left behind


def test_invalid_data_is_never_written(tmp_path):
    out = tmp_path / "m.json"
    with pytest.raises(M.MeasurementFileError):
        M.write_atomic(with_change(ENTRY + ["unit"], "parsecs"), out)
    assert not out.exists()


def test_named_sources_resolve():
    assert M.resolve("reference") == M.reference_path()
    assert M.resolve("published/seed-002-crypto-bigint").name == "seed-002-crypto-bigint.json"
    with pytest.raises(M.MeasurementFileError, match="no published file 'published/nope'"):
        M.resolve("published/nope")
    with pytest.raises(M.MeasurementFileError, match="no such measurement file"):
        M.resolve("no/such/file.json")


def test_committed_files_are_valid():
    for path in sorted((M.project_root() / "measurements").glob("*/*.json")):
        M.load(path)
    M.load(M.reference_path())


def _numbers(text):
    return {float(x) for x in re.findall(r"(?<![\d.])\d*\.?\d+", text.replace(",", ""))}


MIRRORS = Path(__file__).resolve().parents[2] / ".mirror"


def _source_lines(source: str):
    """Lines of a repository file cited as owner/name@commit:path, from a local mirror, or None."""
    repo, _, rest = source.partition("@")
    commit, _, path = rest.partition(":")
    git_dir = MIRRORS / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        return None
    out = subprocess.run(["git", "-C", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, text=True)
    return out.stdout.splitlines() if out.returncode == 0 else None


def note_lines(mset):
    """The lines of the note a published file transcribes, from the folder of the scheme that declares
    the file (manifest.PUBLISHED_FILES): a scheme ships its notes; None when none has it."""
    from costbook import registry
    name = mset.provenance["seed"]
    for s in registry.REGISTRY:
        if mset.name.split("/")[-1] in registry.manifest(s).PUBLISHED_FILES and (registry.folder(s) / name).is_file():
            return (registry.folder(s) / name).read_text().splitlines()
    return None


def transcription_errors(sets) -> tuple:
    """(number of entries checked, files whose note was not found)."""
    checked, unfound = 0, []
    for name, mset in sets.items():
        seed_lines = note_lines(mset)
        if seed_lines is None:
            unfound.append(name)
            continue
        for backend in mset.backends:
            for key in mset.keys(backend):
                e = mset.entry(backend, key)
                lines = _source_lines(e["source"]) if "source" in e else seed_lines
                if lines is None:
                    continue
                found = _numbers(lines[e["line"] - 1])
                if "cumulative" in e:
                    # a derived average: the seed's cumulative total over its stated iterations
                    assert e["median"] == pytest.approx(e["cumulative"] / e["iterations"])
                    stated = {e["cumulative"]}
                elif "low" not in e or e["median"] in found:
                    stated = {e["median"]}
                else:
                    stated = {e["low"], e["high"]}
                assert stated <= found, f"{name} {backend} {key}: {stated} not on line {e['line']}: {lines[e['line'] - 1]!r}"
                checked += 1
    return checked, unfound


def test_a_scheme_shipping_its_note_is_checked_against_it(toy_scheme):
    """The toy scheme's published file transcribes the note in its own folder; a published file is
    not assumed to be one of the four seed notes."""
    sets = {n: m for n, m in M.published_sets().items() if n.startswith("toy-")}
    assert transcription_errors(sets) == (5 + 2, [])


def test_every_published_price_is_on_its_seed_line():
    """A transcription check: each published number (or its stated range) is on the cited line.

    An entry with a `source` cites a repository file the seed points to (a sample report); it is
    checked against a local mirror of that repository where one exists, and skipped otherwise.
    """
    checked, unfound = transcription_errors(M.published_sets())
    assert unfound == []
    assert checked >= 15


@pytest.mark.parametrize("content,message", [
    (json.dumps(GOOD).replace('"name": "t"', '"name": "t", "name": "u"'), "duplicate key 'name'"),
    (json.dumps(GOOD).replace('"median": 1.0', '"median": 1.0, "median": 2.0'), "duplicate key 'median'"),
    (json.dumps(GOOD).replace('"median": 1.0', '"median": Infinity'), r"not valid JSON \(Infinity is not a JSON number\)"),
    (json.dumps(GOOD).replace('"mad": 0.1', '"mad": NaN'), r"not valid JSON \(NaN is not a JSON number\)"),
    (json.dumps(GOOD).replace('"median": 1.0', '"median": 1e400'), "median: expected a finite number, got inf"),
    (json.dumps(with_change(ENTRY + ["unit"], ["ms"])), r"unit: expected one of .*, got an array"),
    (json.dumps(with_change(ENTRY + ["low"], 0.5)), "low and high go together"),
    (json.dumps(GOOD).replace('"unit": "ms"', '"unit": "ms", "low": 2.0, "high": 3.0'),
     "interval out of order: low=2.0, median=1.0, high=3.0"),
    ("", "empty"),
    ("[" * 10_000, "nested more than 64 levels"),
    ("caf\xe9".encode("latin-1"), r"not UTF-8 text \(byte 0xe9 at offset 3\)"),
])
def test_load_rejects_what_json_alone_lets_through(tmp_path, content, message):
    f = tmp_path / "bad.json"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(M.MeasurementFileError, match=message) as err:
        M.load(f)
    assert str(err.value).startswith(f"{f}: ")


def test_load_names_a_directory_and_a_symlink_loop(tmp_path):
    with pytest.raises(M.MeasurementFileError, match="is a directory, not a measurement file"):
        M.load(tmp_path)
    (tmp_path / "loop.json").symlink_to("loop.json")
    with pytest.raises(M.MeasurementFileError, match="loop.json: symbolic link loop"):
        M.load(tmp_path / "loop.json")


def test_costbook_root_must_be_a_project(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTBOOK_ROOT", str(tmp_path))
    with pytest.raises(M.MeasurementFileError, match=f"COSTBOOK_ROOT={tmp_path}: not a costbook project"):
        M.project_root()
    (tmp_path / "measurements").mkdir()
    assert M.project_root() == tmp_path


def test_between_runs_is_checked():
    base = {"schema": "costbook-measurements/1", "name": "x", "kind": "measured",
            "provenance": {"machine": {}, "libraries": {}, "date": "d", "command": "c", "profile": {"name": "quick", "samples": 5, "min_batch_seconds": 0.005}},
            "results": {"gmp": {"modexp/6144/256": {"median": 3.0, "q1": 2.9, "q3": 3.1, "mad": 0.1, "samples": 10,
                                                    "batch": 1, "unit": "ms", "runs": 2, "between_runs": 0.02}}}}
    M.validate(base)
    for bad, match in (({"between_runs": -0.1}, "between_runs: expected a finite number >= 0"),
                       ({"runs": 1}, r"runs: expected an integer >= 2"),
                       ({"runs": None}, None)):
        data = copy.deepcopy(base)
        entry = data["results"]["gmp"]["modexp/6144/256"]
        entry.update(bad)
        if bad.get("runs", 0) is None:
            del entry["runs"]
            match = "between_runs needs runs"
        with pytest.raises(M.MeasurementFileError, match=match):
            M.validate(data)


def test_a_price_may_wobble_between_near_sizes_but_not_fall_with_its_size():
    """Exponents 3069 and 3072 bits cost the same within noise: a run whose quartiles put the larger a
    hair below the smaller is honest; a larger size more than GROWTH_SLACK below is refused."""
    import copy

    def with_prices(small, big):
        d = copy.deepcopy(GOOD)
        d["results"] = {"gmp": {k: {"median": m, "q1": m * 0.999, "q3": m * 1.001, "mad": 0.0, "samples": 5,
                                    "batch": 1, "unit": "ms"}
                                for k, m in (("modexp/6144/3069", small), ("modexp/6144/3072", big))}}
        return d

    M.validate(with_prices(28.3, 28.2))                       # 0.35% under: timing noise
    with pytest.raises(M.MeasurementFileError, match="price falls as exp grows"):
        M.validate(with_prices(28.3, 28.3 * (1 - M.GROWTH_SLACK) * 0.99))


def test_a_file_read_again_unchanged_is_not_checked_again_and_a_changed_one_is(tmp_path, monkeypatch):
    """measurements.load remembers the texts it found valid: the same bytes are parsed again into objects
    of their own but not checked again (at any path: validity is the text's); changed bytes (even of the
    same size and modification time) and an invalid file are checked every time."""
    from costbook.prices import measurement_schema
    monkeypatch.setattr(M, "_CHECKED", set())           # what other tests loaded is not known here
    checked = []
    real_check = measurement_schema.check
    monkeypatch.setattr(measurement_schema, "check", lambda data, on_disk, **kw: (checked.append(data), real_check(data, on_disk, **kw)))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(GOOD))
    first = M.load(path)
    first.results["gmp"]["modexp/2048/256"]["median"] = 99.0          # the caller's own objects
    again = M.load(path)
    assert len(checked) == 1 and again.path == path and again.name == "t"
    assert again.results == M.validate(copy.deepcopy(GOOD), path, on_disk=True).results
    assert again.results is not first.results and again.seconds("gmp", "modexp/2048/256") == 0.001
    # the same size and modification time, other bytes: an invalid median is refused all the same
    st = path.stat()
    path.write_text(json.dumps(GOOD).replace('"median": 1.0', '"median": 9.0'))
    assert path.stat().st_size == st.st_size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    checked.clear()
    for _ in range(2):
        with pytest.raises(M.MeasurementFileError, match="quartiles out of order"):
            M.load(path)
    assert len(checked) == 2
    other = tmp_path / "copy.json"
    other.write_text(json.dumps(GOOD))
    checked.clear()
    path.write_text(json.dumps(GOOD))
    assert M.load(path).name == "t" and checked == []                 # its bytes of before: known valid
    assert M.load(other).name == "t" and checked == []                # the same bytes elsewhere: the same text


def test_prices_timed_just_now_may_swap_near_sizes_a_file_may_not():
    """A validation's own timings (validation.measured_now) are noise-bearing measurements, not input: a
    run beside a busy process put modexp/3072/252 below 3072/248 and the plausibility check stopped
    chapter 4.  Such a set is taken in memory; the same prices in a file are refused."""
    from costbook.calibration import validation
    from costbook.timing.harness import PROFILES
    entry = lambda m: {"median": m, "q1": m * 0.99, "q3": m * 1.01, "mad": 0.0, "samples": 5, "batch": 1, "unit": "s"}
    swapped = {"modexp/3072/248": entry(0.00099), "modexp/3072/252": entry(0.00084)}
    now = validation.measured_now("sage", swapped, PROFILES["quick"], "test")
    assert now.seconds("sage", "modexp/3072/252") == 0.00084
    data = {**copy.deepcopy(GOOD), "results": {"sage": swapped}}
    with pytest.raises(M.MeasurementFileError, match="price falls as exp grows"):
        M.validate(data, "f.json", on_disk=True)
    with pytest.raises(ValueError):
        M.validate(data, "f.json", on_disk=True, across_keys=False)
