"""The page's pricing (sage/costbook/book/assets/live/pricing.js) against the CLI, under node.

For every scheme and every machine the page knows (the reference file, the scheme's seed machine, the
public and contributed machines, and a machine file the book does not ship, loaded as a reader
would), `costbook estimate SCHEME --json --source <the machine's id>` runs in-process at every grid
point the page offers (the public and contributed machines but one at the default point: each of
them is priced by the same recorded calls as the one checked everywhere); its steps (the labelled
price calls, recorded as it runs, with the prediction intervals it prints) are the expected values,
and the page's code must give each step's total, prediction interval and price interval to 1e-9
relative.  Malformed files must be refused by the page with costbook check's
message, and a file without a key a step needs must name that key.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from costbook.cli import commands as cli
from costbook.prices import cost, keys, measurements
from costbook.book import live
from costbook.views import machines
from costbook import schemes

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")


def reader_machine() -> dict:
    """The reference file as another machine would measure it: each key family's prices scaled by
    its own factor (so no price is any shipped file's), under a name the book does not ship."""
    data = json.loads(measurements.reference_path().read_text())
    data["name"] = "reader-laptop-test"
    data["provenance"] = {**data["provenance"], "machine": {"cpu": "a reader's laptop (a test file)", "cores": 4}}
    for entries in data["results"].values():
        for key, e in entries.items():
            factor = 0.55 + 0.13 * (keys.FAMILIES.index(keys.family_of(key)) % 11)
            for f in ("median", "q1", "q3", "mad", "low", "high", "min"):
                if f in e:
                    e[f] = e[f] * factor
    return data


def cli_steps(scheme: str, source: str, point: dict, defaults: dict):
    """(steps, None) from `costbook estimate SCHEME --json --source S --opt v ...` run in-process,
    or (None, its error line) when it refuses."""
    argv = ["estimate", scheme, "--json", "--source", source]
    for k, v in point.items():
        if v != defaults[k]:
            argv += [f"--{k.replace('_', '-')}", str(v)]
    out, err = io.StringIO(), io.StringIO()
    with cost.recording() as calls, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    if rc != 0:
        return None, err.getvalue().strip()
    printed = json.loads(out.getvalue())
    # each step's prediction interval as the CLI prints it (its "prediction" block), beside its price interval
    predicted = printed["prediction"]["steps"]
    recorded = live.steps(calls)
    assert [p["label"] for p in predicted] == [c.estimate.label for c in recorded]
    for p, c in zip(predicted, recorded):
        assert (p["seconds"], p["price_low_s"], p["price_high_s"]) == (c.estimate.total, c.estimate.low, c.estimate.high)
    return [{"label": p["label"], "total": p["seconds"], "low": p["low_s"], "high": p["high_s"],
             "priceLow": p["price_low_s"], "priceHigh": p["price_high_s"]} for p in predicted], printed


def _numbers(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from _numbers(v)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield x


MALFORMED = [
    ("top-level-list", lambda d: [d]),
    ("bad-schema", lambda d: {**d, "schema": "costbook-measurements/0"}),
    ("no-results", lambda d: {k: v for k, v in d.items() if k != "results"}),
    ("bad-kind", lambda d: {**d, "kind": "guessed"}),
    ("no-machine", lambda d: {**d, "provenance": {k: v for k, v in d["provenance"].items() if k != "machine"}}),
    ("empty-results", lambda d: {**d, "results": {}}),
]


def _entry_case(name, change):
    def make(d):
        d = copy.deepcopy(d)
        backend = next(iter(d["results"]))
        key = next(iter(d["results"][backend]))
        change(d["results"][backend], key)
        return d
    return name, make


MALFORMED += [
    _entry_case("no-q1", lambda entries, k: entries[k].pop("q1")),
    _entry_case("bad-unit", lambda entries, k: entries[k].update(unit="sec")),
    _entry_case("negative-median", lambda entries, k: entries[k].update(median=-1.5)),
    _entry_case("text-median", lambda entries, k: entries[k].update(median="fast")),
    _entry_case("quartiles-out-of-order", lambda entries, k: entries[k].update(q1=entries[k]["median"] * 2)),
    _entry_case("zero-samples", lambda entries, k: entries[k].update(samples=0)),
    _entry_case("unknown-key", lambda entries, k: entries.update({"modexp/abc": entries[k]})),
    _entry_case("falling-price", lambda entries, k: entries.update(
        {"modexp/2048/4096": {**entries[k], "median": 1e-9, "q1": 1e-9, "q3": 1e-9, "unit": "s"},
         "modexp/2048/8": {**entries[k], "median": 1.0, "q1": 1.0, "q3": 1.0, "unit": "s"}})),
]


# prices no machine can have: a denormal, and a pairing in milliseconds read as nanoseconds
MALFORMED += [
    _entry_case("denormal-price", lambda entries, k: entries[k].update(median=5e-324, q1=5e-324, q3=5e-324, unit="ns")),
    _entry_case("ms-read-as-ns", lambda entries, k: entries.update(
        {"bls12_381/pairing": {**entries[k], "median": 1.2, "q1": 1.1, "q3": 1.3, "unit": "ns"}})),
]


# a repeated key, which JSON.parse would keep silently (the last one wins)
MALFORMED.append(("duplicate-key", lambda d: json.dumps(d).replace('"median": ', '"median": 1.0, "median": ', 1)))


def malformed_cases(tmp: Path) -> list:
    """Each malformed file's text and the message `costbook check` prints for it (without its
    'costbook: error: ' prefix), from the same file."""
    good = json.loads(measurements.reference_path().read_text())
    out = []
    for name, make in MALFORMED:
        path = tmp / f"{name}.json"
        made = make(good)
        path.write_text(made if isinstance(made, str) else json.dumps(made))
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = cli.main(["check", str(path)])
        assert rc != 0, f"costbook check accepted {name}"
        line = err.getvalue().strip().splitlines()[-1]
        message = line.split("error: ", 1)[1] if "error: " in line else line
        out.append({"name": str(path), "text": path.read_text(), "message": message})
    return out


def missing_key_cases(tmp: Path, exports: dict, reader: dict) -> tuple:
    """Per scheme: the reader's file without one key a step of the default point needs (in every
    backend, with the other sizes of its family); the CLI refuses the estimate naming the key, and
    the page must name it for that step."""
    cases, files = [], {}
    for name, data in exports.items():
        model = schemes.get(name)
        defaults = {k: v[0] for k, v in model.OPTIONS.items()}
        point = data["points"].index(defaults)
        # the first key of a step, with every other size of its family (so that no rule of
        # cost.DERIVATIONS prices it from the sizes left), whose absence the CLI refuses: a scheme
        # may stand one price for another (punch cards price an encoding as a decoding)
        for label, ci in (call[:2] for call in data["machines"][0]["points"][str(point)]):
            key = next(iter(data["counts"][ci]), None)
            if key is None:
                continue
            family = keys.family_of(key)
            d = copy.deepcopy(reader)
            kept = {b: {k: e for k, e in entries.items() if keys.family_of(k) is not family}
                    for b, entries in d["results"].items()}
            d["results"] = {b: entries for b, entries in kept.items() if entries}   # no empty backend
            fname = f"without-{name}.json"
            (tmp / fname).write_text(json.dumps(d))
            _, said = cli_steps(name, str(tmp / fname), defaults, defaults)
            if isinstance(said, str):
                break
        assert isinstance(said, str) and said.startswith("costbook: error:") and repr(key) in said, said
        files[fname] = (tmp / fname).read_text()
        cases.append({"scheme": name, "file": fname, "point": point, "label": label, "key": key, "message": said})
    return cases, files


def test_export_is_deterministic():
    """The export of the scheme with the smallest grid, made now, is the committed one to the byte."""
    # the grid's points, not the file's size: the smallest file (the punch cards') runs the Sage code at
    # 192 points, a minute's work
    name = min(schemes.REGISTRY, key=lambda n: len(json.loads((ROOT / "chapters" / "live" / f"{n}.json").read_text())["points"]))
    made = json.dumps(live.export(name), separators=(",", ":"), allow_nan=False)
    assert made == (ROOT / "chapters" / "live" / f"{name}.json").read_text(), \
        f"chapters/live/{name}.json is not the current export: python -m costbook.book live --out chapters/live"


def bridged_machine(tmp: Path) -> Path:
    """A zkalc file of another library and curve than the reference's (gnark-crypto's BN254 on an AWS
    m5.large), imported with the file alone as a reader would: completed through arkworks BLS12-381."""
    from costbook.views import public
    f = tmp / "data" / "bn254" / "gnark_crypto" / "aws_m5.large.json"
    f.parent.mkdir(parents=True)
    f.write_bytes(public.held("gnark_crypto", "bn254")["aws_m5.large"].read_bytes())
    out = tmp / "gnark-bn254-m5-large.json"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["import", "zkalc", str(f), "--out", str(out)]) == 0
    return out


def test_page_prices_every_grid_point_like_the_cli(tmp_path):
    reader = reader_machine()
    reader_path = tmp_path / "reader-laptop.json"
    reader_path.write_text(json.dumps(reader))
    files = {reader_path.name: reader_path.read_text()}
    # and an imported zkalc file (kind public) at each scheme's default point
    bridged = bridged_machine(tmp_path)
    files[bridged.name] = bridged.read_text()
    exports, cases, found, total = {}, [], 0, 0
    for name in schemes.REGISTRY:
        # the export under test is the copy Quarto's OJS cells attach (the offline book exports the
        # same afresh): stale, it would price some step unlike the CLI below
        committed = ROOT / "chapters" / "live" / f"{name}.json"
        assert committed.is_file(), f"no {committed.relative_to(ROOT)}: python -m costbook.book live --out chapters/live"
        data = json.loads(committed.read_text())
        exports[name] = data
        model = schemes.get(name)
        defaults = {k: v[0] for k, v in model.OPTIONS.items()}
        expected = []
        ids = [m["id"] for m in data["machines"]]
        # the page offers every machine the book knows, each under the id `--source` takes
        assert ids == ["reference", "published"] + [m.id for m in machines.known_machines()[1:]]
        everywhere = {"reference", "published", next(i for i in ids if i.startswith("public/"))}
        for machine in data["machines"]:
            for i, point in enumerate(data["points"]):
                if str(i) not in machine["points"] or (machine["id"] not in everywhere and point != defaults):
                    continue
                steps, printed = cli_steps(name, machine["id"], point, defaults)
                if steps is None:
                    expected.append({"machine": machine["id"], "point": i, "refused": printed})
                    continue
                numbers = set(_numbers({k: v for k, v in printed.items() if k != "prediction"}))
                found += sum(s["total"] in numbers for s in steps)
                total += len(steps)
                expected.append({"machine": machine["id"], "point": i, "steps": steps})
        # the reader's file: every point the reference machine prices (the page's template)
        for i, point in enumerate(data["points"]):
            if str(i) not in data["machines"][0]["points"]:
                continue
            steps, printed = cli_steps(name, str(reader_path), point, defaults)
            entry = {"machine": "file", "file": reader_path.name, "point": i}
            expected.append({**entry, "refused": printed} if steps is None else {**entry, "steps": steps})
            if point == defaults:
                steps, printed = cli_steps(name, str(bridged), point, defaults)
                assert steps is not None, printed         # every scheme prices from an imported zkalc file
                expected.append({"machine": "file", "file": bridged.name, "point": i, "steps": steps})
        cases.append({"export": data, "expected": expected})
    missing, more = missing_key_cases(tmp_path, exports, reader)
    files.update(more)
    payload = {"schemes": cases, "files": files, "malformed": malformed_cases(tmp_path), "missing": missing}
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(payload))
    run = subprocess.run([NODE, str(ROOT / "tests/js/compare_live.js"), str(path)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr or run.stdout
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    print(summary, f"{found} of {total} step totals printed as such in the CLI's JSON")
    assert summary["points"] > 0 and summary["steps"] > 0
    # every machine of every export was priced by the page and compared (the reader's file included)
    assert summary["machines"] == sum(len(case["export"]["machines"]) + 2 for case in cases)
    assert summary["malformed"] == len(MALFORMED) and summary["missing"] == len(exports)
    # every step the page shows is a figure costbook estimate prints (not a price used inside one)
    assert found == total, f"only {found} of {total} step totals appear in the CLI's JSON"


def test_the_offline_book_embeds_this_machine_as_it_is_and_exports_nothing(tmp_path):
    """`make book` renders with this machine's file: the page carries the committed export and the
    file itself, which the page checks and prices as a reader's file (the node test holds that pricing
    to the CLI for a file the book does not ship); no export runs for it."""
    from costbook.book import live_page
    # the grid's points, not the file's size: the smallest file (the punch cards') runs the Sage code at
    # 192 points, a minute's work
    name = min(schemes.REGISTRY, key=lambda n: len(json.loads((ROOT / "chapters" / "live" / f"{n}.json").read_text())["points"]))
    committed = (ROOT / "chapters" / "live" / f"{name}.json").read_text()
    assert live_page.exports(ROOT, [name]) == {name: committed}
    machine = reader_machine()
    machine["provenance"]["machine"] = "a test machine </script><b>"        # what the page must not end early on
    path = tmp_path / "this-machine.json"
    path.write_text(json.dumps(machine))
    block = live_page.machine_script(path)
    assert block.startswith('<script type="application/json" id="costbook-live-machine" data-file="this-machine.json">')
    inner = block[block.index(">") + 1:-len("</script>")]
    assert "<" not in inner and json.loads(inner) == machine        # "\u003c" is "<" to JSON
    page = live_page.page_scripts({name: committed}, "_static", block)
    assert page.index("costbook-live-machine") < page.index("live/pricing.js")
    assert live_page.machine_script(None) == "" and "costbook-live-machine" not in live_page.page_scripts({name: committed}, "_static")


@pytest.mark.parametrize("grid, phrase", [({"no_such_option": (1,)}, "no option 'no_such_option'"),
                                          ("outside", "outside"), ("no default", "must hold the default")])
def test_a_grid_the_cli_would_refuse_is_refused(grid, phrase):
    """LIVE_GRID offers only what the CLI takes: an unknown option, a value outside its bounds or a
    grid without the default stops the export naming the scheme and the option."""
    import types
    name = next(iter(schemes.REGISTRY))
    model = schemes.get(name)
    opt, (default, allowed) = next((o, spec) for o, spec in model.OPTIONS.items() if isinstance(spec[1], schemes.Bounds))
    if grid == "outside":
        grid = {opt: (default, allowed.high + 1)}
    elif grid == "no default":
        grid = {opt: tuple(v for v in (allowed.low, allowed.high) if v != default)}
    with pytest.raises(schemes.SchemeError, match=phrase):
        live.grid(model, types.SimpleNamespace(LIVE_GRID=grid))


#: (rule of cost.DERIVATIONS, backend, key it prices) on the reader's machine file: every rule at least
#: once, the hash rule on each of its paths (a measured block count, a line through two, one scaled)
DERIVED = [("modexp_by_exponent_length", "gmp", "modexp/3072/700"),
           ("modexp_by_exponent_length", "gmp", "modexp/3072/4000"),
           ("modexp_by_modulus_size", "gmp-sec", "modexp/5000/256"),
           ("msm_by_terms", "sage", "bls12_381/g1_msm/100"),
           ("msm_by_terms", "arkworks", "bls12_381/g2_msm/40"),
           ("pairing_product_by_pairs", "sage", "bls12_381/pairing_product/5"),
           ("fixed_base_without_table", "sage", "bls12_381/g2_mul_fixed"),
           ("hash_by_blocks", "python", "sha256/100B"),
           ("hash_by_blocks", "python", "sha256/1000B"),
           ("hash_by_blocks", "python", "sha512/500B")]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def priced_by_the_page(tmp_path, path, cases) -> list:
    """Each case ({file, counts, order}) priced with the page's code under node (tests/js/price_counts.js),
    the file at `path`: {total, low, high, notes} or {error}."""
    schema = json.loads((ROOT / "chapters" / "live" / f"{min(schemes.REGISTRY)}.json").read_text())["schema"]
    (tmp_path / "cases.json").write_text(json.dumps({"schema": schema, "files": {path.name: path.read_text()},
                                                     "cases": cases}))
    run = subprocess.run([NODE, str(ROOT / "tests/js/price_counts.js"), str(tmp_path / "cases.json")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_every_derivation_rule_prices_alike_in_the_page_and_the_cli(tmp_path):
    """A reader's file holding only some sizes of a key family: each rule of cost.DERIVATIONS prices the
    missing size in the page as in the CLI (the same price, bounds and note), and the page has the same
    rules in the same order, so that a rule added on one side only fails here."""
    import re
    page = (ROOT / "sage/costbook/book/assets/live/pricing.js").read_text()
    listed = re.search(r"const DERIVATIONS = \[([^\]]*)\]", page).group(1)
    assert [n.strip() for n in listed.split(",")] == [_camel(r.__name__) for r in cost.DERIVATIONS]
    assert {rule for rule, _, _ in DERIVED} == {r.__name__ for r in cost.DERIVATIONS}

    path = tmp_path / "reader-laptop.json"
    path.write_text(json.dumps(reader_machine()))
    mset = measurements.load_source(str(path))
    too_long = f"sha256/{2**61}B"                    # beyond FIPS 180-4's limit: refused alike
    cases, expected = [], []
    for rule, backend, key in DERIVED + [("hash_by_blocks", "python", too_long)]:
        assert not mset.has(backend, key), (backend, key)
        if key != too_long:
            used = next(r.__name__ for r in cost.DERIVATIONS if r(mset, backend, key) is not None)
            assert used == rule, (key, used)
        cases.append({"file": path.name, "counts": {key: 3}, "order": [backend]})
        try:
            est = cost.price({key: 3}, mset, [backend], derive=True)
            expected.append({"total": est.total, "low": est.low, "high": est.high, "notes": [l.note for l in est.lines]})
        except cost.PriceError as e:
            expected.append({"error": f"PriceError: {e}"})
    got = priced_by_the_page(tmp_path, path, cases)
    assert expected[-1].get("error", "").startswith("PriceError: sha256/"), expected[-1]
    for case, want, have in zip(cases, expected, got):
        where = f"{case['order'][0]} {next(iter(case['counts']))}"
        if "error" in want:
            assert have.get("error") == want["error"], where
            continue
        assert "error" not in have, (where, have)
        assert have["notes"] == want["notes"], where
        for f in ("total", "low", "high"):
            assert math.isclose(have[f], want[f], rel_tol=1e-12), (where, f, have[f], want[f])


def test_a_missing_price_is_refused_in_the_same_words_by_the_page_and_the_cli(tmp_path):
    """A key no backend of the order has, and one for which the file has none of the scheme's backends
    (a zkalc import of another library: the refusal once read "in backend(s) ;")."""
    path = tmp_path / "reader-laptop.json"
    path.write_text(json.dumps(reader_machine()))
    mset = measurements.load_source(str(path))
    key = "bls12_381/pairing"
    cases = [{"file": path.name, "counts": {key: 1}, "order": order} for order in (["python"], [])]
    expected = []
    for case in cases:
        with pytest.raises(cost.MissingPrice) as refused:
            cost.price(case["counts"], mset, case["order"], derive=True)
        expected.append({"error": f"MissingPrice: {refused.value}"})
    assert "in backend(s) python;" in expected[0]["error"] and "(the file has: " in expected[1]["error"]
    assert priced_by_the_page(tmp_path, path, cases) == expected
