"""The quick profile: it times the keys the book prices, calibrates each batch once (from its warm-up),
and gives a fast operation many short samples; the estimates priced from such a file are those priced
from a file of every key.  No timing is asserted: the clocks here are synthetic."""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest

from costbook.prices import cost, measurements
from costbook.timing import harness, priced
from costbook.book import live
from costbook import registry
from costbook.timing.harness import (EXACT_MARGIN, PROFILES, in_round, samples_for, summarize, time_interleaved,
    warm_up)

ROOT = Path(__file__).resolve().parent.parent


class Machine:
    """A synthetic CPU clock that advances only when an operation runs (and a little per read)."""

    def __init__(self, read_cost: float = 0.0):
        self.now, self.reads, self.read_cost = 0.0, 0, read_cost

    def __call__(self):
        self.reads += 1
        self.now += self.read_cost
        return self.now

    def op(self, cost_s: float, log: list | None = None):
        def run():
            self.now += cost_s
            if log is not None:
                log.append(self.now)
        return run


def test_the_quick_profile_is_priced_keys_calibrated_in_warm_up_with_short_samples():
    q, f = PROFILES["quick"], PROFILES["full"]
    assert q.priced_only and q.calibrate_in_warmup and q.max_samples >= q.samples and q.sample_seconds > 0
    # the full profile is unchanged: every key, its own calibration, the same samples for every key
    assert (f.samples, f.min_batch_seconds, f.warmup_seconds) == (21, 0.02, 0.2)
    assert not f.priced_only and not f.calibrate_in_warmup and f.max_samples is None and f.rounds == 21
    assert q.fastest and not f.fastest


def test_warm_up_times_calls_in_chunks_and_reports_the_time_per_call():
    m = Machine(read_cost=1e-6)          # a clock read costs as much as the operation
    first, per = warm_up(m.op(1e-6), 0.01, clock=m)
    assert first == pytest.approx(2e-6)
    # chunked: the reads are few, so the time per call is the operation's, not twice it
    assert per == pytest.approx(1e-6, rel=0.01) and m.reads < 100
    m = Machine()
    first, per = warm_up(m.op(0.05), 0.01, clock=m)       # one call outlasts the warm-up
    assert first == pytest.approx(0.05) and per is None


def test_each_batch_is_calibrated_once_from_the_warm_up():
    """No calibration pass after the warm-up: the calls before the first timed batch are the warm-up's
    (one cold call and the ones that fill the warm-up), and the batch fills min_batch_seconds."""
    m = Machine()
    calls = []
    op = m.op(1e-4, calls)
    timed = time_interleaved({"a": op}, samples=3, min_batch_seconds=0.002, warmup_seconds=0.01, clock=m,
                             calibrate_in_warmup=True)
    batch = timed["a"].batch
    assert batch == math.ceil(EXACT_MARGIN * 0.002 / 1e-4)
    warm = len(calls) - timed["a"].samples * (batch + harness.REWARM_CALLS)
    assert warm <= 0.01 / 1e-4 + 1
    assert timed["a"].median == pytest.approx(1e-4)


def test_a_fast_key_takes_many_short_samples_a_slow_one_the_fewest():
    assert samples_for(1e-3, 5, 0.025, 15) == 15
    assert samples_for(4e-3, 5, 0.025, 15) == 7
    assert samples_for(0.2, 5, 0.025, 15) == 5
    assert samples_for(1e-3, 5, None, None) == 5
    for rounds, n in itertools.product((5, 15), range(1, 16)):
        if n <= rounds:
            assert sum(in_round(r, rounds, n) for r in range(rounds)) == n
    m = Machine()
    timed = time_interleaved({"fast": m.op(1e-4), "slow": m.op(0.05)}, samples=5, min_batch_seconds=0.001,
                             warmup_seconds=0.005, clock=m, calibrate_in_warmup=True, sample_seconds=0.025,
                             max_samples=15)
    assert timed["fast"].samples == 15 and timed["slow"].samples == 5 and timed["slow"].batch == 1
    assert timed["fast"].median == pytest.approx(1e-4) and timed["slow"].median == pytest.approx(0.05)


def test_the_quick_figure_is_the_fastest_sample_its_spread_up_to_the_median():
    xs = [3.0, 1.0, 2.0, 5.0, 4.0, 9.0, 8.0, 7.0, 6.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    t = summarize(xs, batch=4, fastest=True)
    assert (t.median, t.q1, t.q3, t.min, t.samples, t.batch) == (1.0, 1.0, 8.0, 1.0, 15, 4)
    plain = summarize(xs, batch=4)
    assert plain.median == 8.0 and plain.q1 < plain.median < plain.q3 and plain.mad == t.mad
    for n in range(1, 16):
        s = summarize(xs[:n], batch=1, fastest=True)
        assert s.q1 == s.median == min(xs[:n]) <= s.q3 == summarize(xs[:n], batch=1).median


class SlowStretch(Machine):
    """A CPU clock that runs `factor` times slow in the rounds of `slow` (a neighbour sharing the
    caches, the memory bus or the core's frequency for seconds: the CPU clock counts that time)."""

    def __init__(self, slow, factor=1.3):
        super().__init__()
        self.slow, self.factor, self.round = set(slow), factor, 0

    def op(self, cost_s):
        def run():
            self.now += cost_s * (self.factor if self.round in self.slow else 1.0)
        return run

    def progress(self, stage, what):
        if stage == "round":
            self.round = what


def _run(slow, fastest):
    m = SlowStretch(slow)
    ops = {"fast": m.op(1e-4), "slow": m.op(0.05)}
    return time_interleaved(ops, samples=5, min_batch_seconds=0.001, warmup_seconds=0.005, clock=m,
                            calibrate_in_warmup=True, sample_seconds=0.025, max_samples=15,
                            progress=m.progress, fastest=fastest)


def test_a_slow_stretch_over_most_of_a_run_moves_the_plain_median_not_the_quick_figure():
    """Runs slowed 1.3x for 9 of their 15 rounds (60%), in different stretches: the plain medians are
    the slowed cost in all, the quick figures the operation's own cost in all."""
    for slow in (range(0, 9), range(6, 15), range(3, 12)):
        plain, quick = _run(slow, False), _run(slow, True)
        for name, cost_s in (("fast", 1e-4), ("slow", 0.05)):
            assert plain[name].median == pytest.approx(1.3 * cost_s)
            assert quick[name].median == pytest.approx(cost_s)
            assert quick[name].q1 == pytest.approx(cost_s) and quick[name].q3 == pytest.approx(1.3 * cost_s)
        assert quick["fast"].samples == 15 and quick["slow"].samples == 5


def test_every_priced_key_has_a_benchmark():
    from costbook.timing.measure import collect
    benches = collect(report=lambda _: None, priced_only=True)
    have = {(b.backend, b.key) for b in benches}
    available = {b.backend for b in benches}
    wanted = {(b, k) for b, keys in priced.priced_keys().items() if b in available for k in keys}
    assert have == wanted
    assert all(keys and all(keys) for keys in priced.priced_keys().values())


class Recording(measurements.MeasurementSet):
    """A measurement set that notes every price read from it (not the bounds ``at_bound`` copies)."""

    def __init__(self, mset, seen):
        super().__init__(mset.name, mset.kind, mset.provenance, mset.results, mset.path)
        self.seen = seen

    def seconds(self, b, k):
        self.seen.add((b, k))
        return super().seconds(b, k)

    def bounds(self, b, k):
        self.seen.add((b, k))
        return super().bounds(b, k)

    def entry(self, b, k):
        self.seen.add((b, k))
        return super().entry(b, k)

    def at_bound(self, which):
        plain = measurements.MeasurementSet(self.name, self.kind, self.provenance, self.results, self.path)
        return plain.at_bound(which)


def _points(name):
    """Each scheme's default point and every value its page offers for one option at a time."""
    model, manifest = registry.model(name), registry.manifest(name)
    offered = live.grid(model, manifest)
    default = {o: model.OPTIONS[o][0] for o in offered}
    yield dict(default)
    for o, values in offered.items():
        for v in values:
            if v != default[o]:
                yield {**default, o: v}


def _estimates(name, mset):
    model = registry.model(name)
    out = []
    for point in _points(name):
        try:
            out.append(model.estimate(mset, **point))
        except (ValueError, LookupError) as e:
            if isinstance(e, cost.MissingPrice):
                raise
            out.append(("refused", str(e)))
    return out


def undeclared(name: str) -> str:
    """What scheme `name`'s estimates read at any point of its page that its model's PRICED_KEYS does not
    declare, in one line with the remedy ("" if nothing)."""
    seen: set = set()
    _estimates(name, Recording(measurements.load_source("reference"), seen))
    assert seen, name
    declared = getattr(registry.model(name), "PRICED_KEYS", {})
    missing = sorted(p for p in seen if p[1] not in declared.get(p[0], ()))
    return (f"scheme {name!r}: its estimates read {', '.join(f'{b} {k}' for b, k in missing)}, which its model's "
            f"PRICED_KEYS does not declare: add them (the quick profile measures only declared keys, and an "
            f"estimate from a quick file would lack them)") if missing else ""


@pytest.mark.parametrize("name", registry.in_book_order())
def test_the_quick_profile_measures_every_key_an_estimate_prices(name):
    """Every (backend, key) a scheme's estimate reads at any point of its page is among its own PRICED_KEYS
    (and so measured by the quick profile)."""
    assert undeclared(name) == ""


def test_a_key_a_scheme_reads_and_does_not_declare_is_named_with_the_remedy(toy_scheme, monkeypatch):
    assert undeclared("schnorr") == ""
    assert {("python", "sha512/64B")} <= {(b, k) for b, ks in priced.priced_keys().items() for k in ks}
    monkeypatch.setattr(registry.model("schnorr"), "PRICED_KEYS", {"sage": registry.model("schnorr").PRICED_KEYS["sage"]})
    assert undeclared("schnorr") == (
        "scheme 'schnorr': its estimates read python sha512/64B, which its model's PRICED_KEYS does not declare: add "
        "them (the quick profile measures only declared keys, and an estimate from a quick file would lack them)")


def quick_file(ref):
    """`ref` with only the keys the book prices: what a quick profile of the same machine holds (the
    schemes' keys gathered once)."""
    keys = priced.priced_keys()
    return measurements.MeasurementSet(ref.name, ref.kind, ref.provenance,
                                       {b: {k: e for k, e in entries.items() if k in keys.get(b, ())}
                                        for b, entries in ref.results.items()}, ref.path)


@pytest.mark.parametrize("name", registry.in_book_order())
def test_an_estimate_from_a_quick_file_is_the_estimate_from_every_key(name):
    ref = measurements.load_source("reference")
    quick = quick_file(ref)
    assert sum(map(len, quick.results.values())) < sum(map(len, ref.results.values()))
    assert repr(_estimates(name, quick)) == repr(_estimates(name, ref))


def test_measure_quick_times_the_priced_keys_only_and_says_so(tmp_path, monkeypatch):
    from costbook.timing.measure import measure
    monkeypatch.setattr(priced, "priced_keys", lambda: {"python": frozenset({"sha256/64B"})})
    out = measure(profile="quick", out=tmp_path / "m.json", progress=False, report=lambda _: None)
    m = measurements.load(out)
    assert {b: m.keys(b) for b in m.backends} == {"python": ["sha256/64B"]}
    prof = m.provenance["profile"]
    assert "1 keys the book prices" in prof["keys"] and "batches" in prof and prof["max_samples"] == 15
    assert "fastest sample" in prof["statistic"] and "fastest sample" in m.provenance["unit"]
    assert m.entry("python", "sha256/64B")["samples"] >= prof["samples"]
    # an explicit selection is taken as given, and says nothing of the book's keys
    out = measure(profile="quick", out=tmp_path / "n.json", only=["sha512/64B"], progress=False, report=lambda _: None)
    assert "keys" not in measurements.load(out).provenance["profile"]


def test_chapter_twos_sage_redemption_is_priced_from_a_quick_file():
    """Chapter 2 prices the Sage code's redemption at every spent-set size with Sage's own ristretto255
    prices (fig-punch-dbsize, beside its live run): a quick file holds them (it lacked Sage's encode,
    and `make book` stopped at that chapter)."""
    from costbook.calibration import prediction
    ref = measurements.load_source("reference")
    quick = quick_file(ref)
    nb = json.loads((ROOT / "chapters" / "02-punch-cards.ipynb").read_text())
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert any('backends=["sage", "python"]' in s and "fig-punch-dbsize" in s for s in sources)
    for n in (0, 1000, 1_000_000):
        est = prediction.estimate("punchcard", quick, backends=["sage", "python"], curve="ristretto255",
                                  punches=10, db_size=n)["steps"]["server_redeem"]
        assert est["seconds"] > 0
