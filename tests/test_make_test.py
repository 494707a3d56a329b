"""make test's second phase (the validation gate, alone on the machine) collects only the files the
Makefile lists in VALIDATION_TESTS: a validation test in any other file would run in neither phase
(the first deselects the marker).  Checked from the sources, with ``ast``."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def listed(makefile: str) -> set:
    m = re.search(r"^VALIDATION_TESTS\s*:=\s*(.+)$", makefile, re.M)
    assert m, "the Makefile sets no VALIDATION_TESTS"
    return set(m.group(1).split())


def marked(folder: Path, root: Path = ROOT) -> set:
    """The test files under `folder` that use the ``validation`` marker (pytest.mark.validation)."""
    out = set()
    for path in sorted(folder.glob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        if any(isinstance(n, ast.Attribute) and n.attr == "validation" and isinstance(n.value, ast.Attribute)
               and n.value.attr == "mark" for n in ast.walk(tree)):
            out.add(path.relative_to(root).as_posix())
    return out


def test_the_second_phase_collects_every_validation_test():
    makefile = (ROOT / "Makefile").read_text()
    assert "-m validation $(VALIDATION_TESTS)" in makefile
    assert listed(makefile) == marked(ROOT / "tests")


def test_a_validation_test_elsewhere_is_found(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_new.py").write_text("import pytest\npytestmark = pytest.mark.validation\n")
    (tmp_path / "tests" / "test_other.py").write_text("import pytest\n@pytest.mark.slow\ndef test_x(): pass\n")
    assert marked(tmp_path / "tests", tmp_path) == {"tests/test_new.py"}
    assert listed("VALIDATION_TESTS := tests/test_validation_bounds.py\n") != marked(tmp_path / "tests", tmp_path)


def test_bench_self_adds_each_run_to_its_machine_s_record(tmp_path):
    """make bench-self's figures go to docs/bench/<cpu>.json, one record per run, the earlier kept."""
    import json
    from costbook.book.bench import record
    first = record(tmp_path, "Intel(R) Xeon(R) Processor, 2 CPUs", {"date": "d1", "times": [{"what": "make test", "value": 700.0, "unit": "s", "ok": True}]})
    again = record(tmp_path, "Intel(R) Xeon(R) Processor, 2 CPUs", {"date": "d2", "times": []})
    assert first == again and first.name == "intel-r-xeon-r-processor-2-cpus.json"
    assert [r["date"] for r in json.loads(first.read_text())["runs"]] == ["d1", "d2"]
    (tmp_path / "broken.json").write_text("{")
    assert json.loads(record(tmp_path, "broken", {"date": "d3"}).read_text())["runs"] == [{"date": "d3"}]


def test_the_bench_table_shows_every_record_and_the_committed_one_is_up_to_date(tmp_path):
    """docs/bench/README.md, which the README links, is the table of the records beside it."""
    from costbook.book import bench
    run = {"date": "2026-01-02T03:04:05+00:00", "machine": "Some CPU, 2 CPUs", "load_before": "0.10 0.20 0.30",
           "times": [{"what": bench.BOOK_FRESH, "value": 201.4, "unit": "s", "ok": True},
                     {"what": bench.QUICK_APART, "value": 9.94, "unit": "%", "ok": True},
                     {"what": bench.TEST, "value": 702.0, "unit": "s", "ok": False}]}
    bench.record(tmp_path, "Some CPU, 2 CPUs", run)
    row = bench.table(tmp_path).splitlines()[-1]
    assert row == "| Some CPU, 2 CPUs | 2026-01-02 | 0.10 0.20 0.30 | 201 s |  |  |  | 9.9% | 702 s (failed) |  |  |"
    committed = ROOT / bench.BENCH_DIR
    assert (committed / bench.TABLE).read_text().endswith(bench.table(committed)), \
        "docs/bench/README.md is not the table of its records: run make bench-self, or bench.write_table"
    assert "docs/bench/" in (ROOT / "README.md").read_text()
