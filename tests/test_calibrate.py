"""``python -m costbook.calibration.calibrate``: a collection adds to the evidence and records itself; --replace drops
the collected schemes' earlier results under the same conditions only (after a change to their model)."""
import contextlib
import datetime
import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from costbook.calibration import calibrate, uncertainty

MACHINE = "Test CPU, 2 cores"
#: seconds for a command to import Sage and start its workers: polled, so a generous bound costs nothing
START_TIMEOUT = 300


def _result(scheme: str, conditions: str, tag: str, measured: float = 1.0) -> dict:
    return {"scheme": scheme, "conditions": conditions, "tag": tag,
            "runs": [{"n": 1, "checks": [{"step": tag, "predicted_s": 1.0, "measured_s": measured,
                                          "price_low_s": 0.9, "price_high_s": 1.1}]}]}


def _evidence(*results, machine: str = MACHINE) -> dict:
    return {"format": uncertainty.FORMAT, "machine": machine, "collections": [{"command": "earlier"}],
            "results": list(results)}


def _collected(monkeypatch, tmp_path, argv, before) -> dict:
    out = tmp_path / "runs.json"
    out.write_text(json.dumps(before))
    monkeypatch.setattr(calibrate, "machine_label", lambda: MACHINE)
    seen = {}

    def fake_collect(cases, out, processes, machine, command, keep, progress, conditions, collections, sitting):
        seen.update(cases=cases, keep=list(keep), conditions=conditions, collections=list(collections), sitting=sitting)
        return {"results": list(keep)}
    monkeypatch.setattr(calibrate, "collect", fake_collect)
    assert calibrate.main([*argv, "--out", str(out)]) == 0
    return seen


def test_a_collection_keeps_the_earlier_results_and_replace_drops_only_its_own(monkeypatch, tmp_path):
    before = _evidence(_result("cs03", calibrate.QUIET, "a"), _result("cs03", calibrate.BUSY, "b"),
                       _result("veccom", calibrate.QUIET, "c"))
    added = _collected(monkeypatch, tmp_path, ["cs03"], before)
    assert [r["tag"] for r in added["keep"]] == ["a", "b", "c"]
    assert added["collections"] == [{"command": "earlier"}] and added["conditions"] == calibrate.QUIET
    assert {s for s, _ in added["cases"]} == {"cs03"}
    replaced = _collected(monkeypatch, tmp_path, ["--replace", "cs03"], before)
    assert [r["tag"] for r in replaced["keep"]] == ["b", "c"]          # cs03 quiet goes; its busy runs stay
    busy = _collected(monkeypatch, tmp_path, ["--replace", "--beside-busy", "--processes", "1", "cs03"], before)
    assert [r["tag"] for r in busy["keep"]] == ["a", "c"] and busy["conditions"] == calibrate.BUSY


def test_collect_records_the_collection_after_the_earlier_ones(monkeypatch, tmp_path):
    """collect() writes the kept results, then its own, and appends one entry to "collections"."""
    measured = iter([1.01, 1.02])          # each process's own run
    monkeypatch.setattr(calibrate, "validate_in_processes", lambda scheme, options, processes: {
        "scheme": scheme, "runs": _result(scheme, calibrate.QUIET, "x", next(measured))["runs"], "processes": 1})
    out = tmp_path / "runs.json"
    data = calibrate.collect([("cs03", {"params": "aggressive"})], out, processes=2, machine=MACHINE, command="c",
                             keep=[_result("veccom", calibrate.QUIET, "old")], collections=[{"command": "earlier"}])
    assert json.loads(out.read_text()) == data
    assert [r.get("tag") for r in data["results"]] == ["old", None, None]
    assert [c["command"] for c in data["collections"]] == ["earlier", "c"]
    assert data["collections"][-1]["results"] == 2 and data["collections"][-1]["conditions"] == calibrate.QUIET


def test_a_collection_just_after_another_joins_its_sitting_and_a_later_one_begins_its_own(monkeypatch, tmp_path):
    """make calibrate's collection beside a busy process is of its quiet collection's sitting; a collection
    hours later is a sitting of its own, and every result names its sitting."""
    t0 = datetime.datetime(2026, 11, 30, 3, 5, 58, tzinfo=datetime.timezone.utc)
    quiet = {"started": t0.isoformat(), "sitting": "2026-11-30T03:05Z"}
    assert calibrate.sitting_of([quiet], t0 + datetime.timedelta(minutes=12)) == "2026-11-30T03:05Z"
    assert calibrate.sitting_of([quiet], t0 + datetime.timedelta(hours=1)) == "2026-11-30T04:05Z"
    # a long collection: the pause is counted from its end
    long = {**quiet, "ended": (t0 + datetime.timedelta(minutes=50)).isoformat()}
    assert calibrate.sitting_of([long], t0 + datetime.timedelta(minutes=55)) == "2026-11-30T03:05Z"
    assert calibrate.sitting_of([{"command": "earlier"}], t0) == "2026-11-30T03:05Z"      # an undated collection
    assert calibrate.sitting_of([{**quiet, "sitting": ""}], t0) == "2026-11-30T03:05Z"    # one of no sitting
    monkeypatch.setattr(calibrate, "validate_in_processes", lambda scheme, options, processes: {
        "scheme": scheme, "runs": _result(scheme, calibrate.QUIET, "x")["runs"], "processes": 1})
    data = calibrate.collect([("cs03", {})], tmp_path / "runs.json", processes=1, machine=MACHINE, sitting="2026-11-30T03:05Z")
    assert [r["sitting"] for r in data["results"]] == ["2026-11-30T03:05Z"] == [data["collections"][-1]["sitting"]]
    records = uncertainty.load_evidence([tmp_path / "runs.json"])
    assert {r.sitting for r in records} == {f"{MACHINE} 2026-11-30T03:05Z"}
    # the command joins the sitting of the quiet collection it follows
    just_before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=12)
    before = {**_evidence(_result("cs03", calibrate.QUIET, "a")),
              "collections": [{"started": just_before.isoformat(), "sitting": "2026-11-30T03:05Z"}]}
    assert _collected(monkeypatch, tmp_path, ["--beside-busy", "cs03"], before)["sitting"] == "2026-11-30T03:05Z"


def test_collect_writes_no_evidence_the_margins_would_refuse(monkeypatch, tmp_path):
    """A scheme's validate whose result does not name its scheme: refused in one line, nothing written."""
    monkeypatch.setattr(calibrate, "validate_in_processes", lambda scheme, options, processes: {
        "runs": _result(scheme, calibrate.QUIET, "x")["runs"], "processes": 1})
    out = tmp_path / "runs.json"
    with pytest.raises(uncertainty.EvidenceError, match=r"results\[0\]: expected a validation result with its scheme"):
        calibrate.collect([("cs03", {})], out, processes=1, machine=MACHINE)
    assert not out.exists()


# ---------------------------------------------------------------------------
# Evidence from disk is checked before a margin is made of it

@pytest.mark.parametrize("damage, words", [
    (lambda d: d["results"][0]["runs"][0]["checks"][0].update(measured_s=1000.0), "times its prediction"),
    (lambda d: d["results"][0]["runs"][0]["checks"][0].update(measured_s=-1.0), "finite positive"),
    (lambda d: d["results"][0]["runs"][0]["checks"][0].update(predicted_s=0), "finite positive"),
    (lambda d: d["results"][0]["runs"][0]["checks"][0].update(price_low_s=2.0), "out of order"),
    (lambda d: d["results"].append(json.loads(json.dumps(d["results"][0]))), "the same check twice"),
    (lambda d: d["results"][0].update(conditions="in the sun"), "conditions"),
    (lambda d: d["results"][0].update(sitting="2026-11-30 03:05"), "when its sitting began"),
    (lambda d: d.pop("machine"), "machine"),
    (lambda d: d["results"][0].update(runs=[{"checks": "x"}]), "checks"),
    (lambda d: d.update(results=[]), "non-empty list"),
])
def test_damaged_evidence_is_refused_in_one_line(tmp_path, damage, words):
    data = _evidence(_result("cs03", calibrate.QUIET, "a"), _result("veccom", calibrate.QUIET, "b"))
    damage(data)
    path = tmp_path / "validation-runs.json"
    path.write_text(json.dumps(data))
    with pytest.raises(uncertainty.EvidenceError) as e:
        uncertainty.load_evidence([path])
    assert words in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value)


def test_evidence_with_nan_or_from_a_fifo_is_refused(tmp_path):
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(_evidence(_result("cs03", calibrate.QUIET, "a"))).replace("1.0,", "NaN,", 1))
    with pytest.raises(uncertainty.EvidenceError):
        uncertainty.load_evidence([path])
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(uncertainty.EvidenceError, match="FIFO|not a regular"):
        uncertainty.load_evidence([fifo])


@pytest.mark.parametrize("score, words", [(-0.1, "finite positive"), (0.0, "finite positive"), (1e3, "below")])
def test_damaged_cross_machine_scores_are_refused(tmp_path, score, words):
    rows = [{"scheme": "cs03", "quantity": "q", "score": 0.1}, {"scheme": "veccom", "quantity": "r", "score": score}]
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"format": uncertainty.CROSS_MACHINE_FORMAT, "scores": rows}))
    with pytest.raises(uncertainty.EvidenceError, match=words):
        uncertainty.cross_machine_scores(path)
    path.write_text(json.dumps({"format": uncertainty.CROSS_MACHINE_FORMAT, "scores": [rows[0], rows[0]]}))
    uncertainty._CROSS.pop(path, None)
    with pytest.raises(uncertainty.EvidenceError, match="twice"):
        uncertainty.cross_machine_scores(path)


def test_calibrate_refuses_a_damaged_out_or_another_machines_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(calibrate, "machine_label", lambda: MACHINE)
    monkeypatch.setattr(calibrate, "collect", lambda *a, **k: pytest.fail("collected into a file it refused"))
    out = tmp_path / "runs.json"
    for text, words in [("{not json", "not valid JSON"), (json.dumps({"format": "x"}), "format"),
                        (json.dumps(_evidence(_result("cs03", calibrate.QUIET, "a"), machine="AMD EPYC, 2 cores")),
                         "timed on 'AMD EPYC, 2 cores'")]:
        out.write_text(text)
        assert calibrate.main(["cs03", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("calibrate: error:") and words in err and err.count("\n") == 1, err
    out.unlink()
    os.mkfifo(out)
    assert calibrate.main(["cs03", "--out", str(out)]) == 2 and "not a regular file" in capsys.readouterr().err


def test_each_schemes_evidence_of_this_machine_goes_to_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setattr(uncertainty, "evidence_dir", lambda scheme: tmp_path / scheme / "evidence")
    monkeypatch.setattr(uncertainty, "evidence_files", lambda: sorted(tmp_path.glob("*/evidence/validation/*.json")))
    assert (calibrate.default_out("cs03", "Intel(R) Xeon(R) Processor, 2 cores")
            == tmp_path / "cs03" / "evidence" / "validation" / "intel-xeon-processor-2-cores.json")
    mine = tmp_path / "veccom" / "evidence" / "validation" / "my-box.json"
    mine.parent.mkdir(parents=True)
    mine.write_text(json.dumps(_evidence(_result("veccom", calibrate.QUIET, "a"))))
    # another scheme's first evidence of a machine is filed under the name that machine already has
    assert calibrate.default_out("cs03", MACHINE) == tmp_path / "cs03" / "evidence" / "validation" / "my-box.json"


def test_a_result_of_another_scheme_in_a_schemes_evidence_is_refused(tmp_path):
    path = tmp_path / "cs03" / "evidence" / "validation" / "box.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_evidence(_result("cs03", calibrate.QUIET, "a"), _result("veccom", calibrate.QUIET, "b"))))
    with pytest.raises(uncertainty.EvidenceError, match=r"results\[1\]\.scheme: a result of 'veccom' in 'cs03'"):
        uncertainty.load_evidence([path])


def _workers(me) -> list:
    """`me`'s child processes but multiprocessing's resource tracker, as they are now (one that ends while
    it is looked at is left out)."""
    out = []
    for p in me.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "resource_tracker" not in " ".join(p.cmdline()):
                out.append(p)
    return out


@pytest.mark.parametrize("to_group", [False, True], ids=["to-the-process", "to-its-group"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_collection_its_worker_and_its_companion(tmp_path, sig, to_group):
    """SIGTERM left the CPU-bound companion of --beside-busy spinning for good, and the worker; SIGINT
    printed a traceback, and a Ctrl-C from a terminal (to the whole group) the companion's own.  Now
    every process ends, one line says so, and the file is as it was."""
    out = tmp_path / "runs.json"
    proc = subprocess.Popen([sys.executable, "-m", "costbook.calibration.calibrate", "--beside-busy", "--processes", "1",
                             "--out", str(out), "cs03"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=to_group)
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + START_TIMEOUT
    started = []
    while time.monotonic() < deadline and len(started) < 2:      # the companion and the worker
        time.sleep(0.2)
        started = _workers(me)        # kept as seen: a case's worker may end before a second look
    assert len(started) >= 2, "the companion and the worker never started"
    if to_group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig and err.strip().splitlines() == [
        f"calibrate: interrupted ({signal.Signals(sig).name}); {out} left as it was"], err
    gone, alive = psutil.wait_procs(started, timeout=10)
    assert not alive, alive
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sig, word", [(signal.SIGTERM, "terminated"), (signal.SIGINT, "interrupted")])
@pytest.mark.parametrize("to_group", [False, True], ids=["to-the-process", "to-its-group"])
def test_a_signal_ends_costbook_validate_and_its_worker(sig, word, to_group, tmp_path):
    """`costbook validate veccom --processes 3` left its worker running after SIGTERM (its pool waited for
    it); a Ctrl-C to the whole group while the worker's interpreter started printed the worker's
    traceback too; the killed worker left Sage's temporary folder in TMPDIR."""
    costbook = os.path.join(os.path.dirname(sys.executable), "costbook")
    proc = subprocess.Popen([costbook, "validate", "veccom", "--processes", "3"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=to_group,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + START_TIMEOUT
    started = []
    while time.monotonic() < deadline and not started:
        time.sleep(0.2)
        started = _workers(me)
    assert started, "the worker never started"
    time.sleep(1.5)                     # its Sage has made its temporary folder
    if to_group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig and err.strip().splitlines() == [f"costbook: {word}"], err
    _, alive = psutil.wait_procs(started, timeout=10)
    assert not alive, alive
    assert list(tmp_path.iterdir()) == []
