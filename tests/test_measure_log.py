"""`costbook measure` without a terminal (CI, `make book > log`) logs one line per stage, never a
progress bar's carriage returns."""
from __future__ import annotations

import io

from costbook.timing import measure


def test_stage_log_writes_a_line_per_stage():
    out = io.StringIO()
    log = measure.StageLog(total=7, stream=out)
    for what in ("set up python sha256/41B", "set up python sha256/73B", "warm-up python sha256/41B",
                 "warm-up python sha256/73B", "round 1 of 3", "round 2 of 3", "round 3 of 3"):
        log.set_description(what)
        log.update()
    log.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert [line.split(" (")[0] for line in lines[:-1]] == [
        "measure: setting up the benchmarks", "measure: warming up the benchmarks",
        "measure: round 1 of 3", "measure: round 2 of 3", "measure: round 3 of 3"]
    assert lines[-1].startswith("measure: 7 steps in ")


def test_a_measurement_into_a_file_logs_lines_when_stderr_is_no_terminal(tmp_path, capsys):
    measure.measure("quick", out=tmp_path / "m.json", only=["sha256/41B"], report=lambda *_: None)
    err = capsys.readouterr().err
    rounds = measure.PROFILES["quick"].rounds
    assert "\r" not in err and f"measure: round {rounds} of {rounds}" in err
