"""``python -m costbook.calibrate``: a collection adds to the evidence and records itself; --replace drops
the collected schemes' earlier results under the same conditions only (after a change to their model)."""
import json

from costbook import calibrate, uncertainty


def _result(scheme: str, conditions: str, tag: str) -> dict:
    return {"scheme": scheme, "conditions": conditions, "tag": tag, "runs": []}


def _collected(monkeypatch, tmp_path, argv, before) -> dict:
    out = tmp_path / "runs.json"
    out.write_text(json.dumps(before))
    seen = {}

    def fake_collect(cases, out, processes, machine, command, keep, progress, conditions, collections):
        seen.update(cases=cases, keep=list(keep), conditions=conditions, collections=list(collections))
        return {"results": list(keep)}
    monkeypatch.setattr(calibrate, "collect", fake_collect)
    assert calibrate.main([*argv, "--out", str(out)]) == 0
    return seen


def test_a_collection_keeps_the_earlier_results_and_replace_drops_only_its_own(monkeypatch, tmp_path):
    before = {"format": uncertainty.FORMAT, "collections": [{"command": "earlier"}],
              "results": [_result("cs03", calibrate.QUIET, "a"), _result("cs03", calibrate.BUSY, "b"),
                          _result("veccom", calibrate.QUIET, "c")]}
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
    monkeypatch.setattr(calibrate, "validate_in_processes",
                        lambda scheme, options, processes: {"scheme": scheme, "runs": [], "processes": 1})
    out = tmp_path / "runs.json"
    data = calibrate.collect([("cs03", {"params": "aggressive"})], out, processes=2, command="c",
                             keep=[_result("veccom", calibrate.QUIET, "old")], collections=[{"command": "earlier"}])
    assert json.loads(out.read_text()) == data
    assert [r.get("tag") for r in data["results"]] == ["old", None, None]
    assert [c["command"] for c in data["collections"]] == ["earlier", "c"]
    assert data["collections"][-1]["results"] == 2 and data["collections"][-1]["conditions"] == calibrate.QUIET
