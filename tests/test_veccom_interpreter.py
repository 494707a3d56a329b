"""The Merkle code's interpreter work (python/merkle/*): keys, benchmarks, counts, validation."""
from __future__ import annotations

import pytest

from costbook import keys, measurements
from costbook.counting import counting
from costbook.harness import Profile, run_benchmark
from costbook.schemes.veccom import merkle, model
from costbook.validation import find_benchmark

UNITS = [f"python/merkle/{u}" for u in merkle.INTERPRETER_UNITS]
CALLS = UNITS[:4]                      # one call of an operation at n = 2
MERKLE_STEPS = ("merkle/commit", "merkle/verify", "merkle/commit_update", "merkle/proof_update_no_helper")


def test_the_keys_parse_and_say_what_they_are():
    for key in UNITS:
        assert keys.is_primitive(key)
        assert "SHA-256 excluded" in keys.describe(key)
    for bad in ("python/merkle/prove", "python/merkle", "python/merkle/level/2", "python/pointproofs/verify"):
        with pytest.raises(keys.UnknownPrimitiveKey):
            keys.check_key(bad)


def test_every_unit_has_a_benchmark_that_runs_in_both_backends():
    quick = Profile("test", samples=2, min_batch_seconds=0.001, warmup_seconds=0.0)
    for key in UNITS:
        for backend in ("python", "sage"):        # Sage runs the same Python code
            assert find_benchmark(key, backend).key == key
        assert run_benchmark(find_benchmark(key, "python"), quick).min > 0
    with pytest.raises(LookupError, match="no benchmark"):
        find_benchmark("python/merkle/level", "arkworks")


def test_each_benchmark_runs_its_unit_and_no_hashing():
    for key in UNITS:
        op = find_benchmark(key, "python").prepare()      # the setup may hash (a tree to prove from)
        with counting() as c:
            op()
        assert not any(k.startswith("sha256/") for k in c), key    # the hashes are priced by sha256/*
        if key in CALLS:
            assert dict(c) == {key: 1}, key                          # exactly one call, as the code counts it


@pytest.mark.parametrize("n", [2, 3, 5, 16])
def test_tallied_interpreter_counts_equal_the_formula(n):
    counts, _, h = model.run_ops(n)
    formulas = model.merkle_counts(n, update_height=h, interpreter=True)
    for step in MERKLE_STEPS:
        assert dict(counts[step]) == dict(formulas[step.split("/")[1]]), (n, step)


def test_estimates_leave_the_interpreter_out_and_say_so():
    for name in ("reference", "published/seed-001-veccom"):
        est = model.estimate(measurements.load_source(name), n=64)
        assert all("python/" not in str(op["breakdown"]) for op in est["ops"].values()), name
        assert "python/merkle" in est["left_out"]
        assert "left out" in model.format_estimate(est)
    assert not any(k.startswith("python/") for c in model.merkle_counts(64).values() for k in c)


def test_validation_prices_the_merkle_steps_with_the_interpreter_term(monkeypatch):
    from costbook import validation
    seen = {}
    real = validation.validate_steps

    def spy(steps, counts, backend, *args, **kw):
        seen.update(counts)
        return real(steps, counts, backend, *args, **kw)
    monkeypatch.setattr(validation, "validate_steps", spy)
    result = model.validate(n=4)
    steps = {c["step"] for r in result["runs"] for c in r["checks"]}
    assert set(MERKLE_STEPS) <= steps
    for step in MERKLE_STEPS:
        assert any(k.startswith("python/merkle/") for k in seen[step]), step
        assert any(k.startswith("sha256/") for k in seen[step]), step      # the hashing stays visible
