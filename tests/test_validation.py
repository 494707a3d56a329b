"""The validation machinery on a step whose cost is known: it must explain it."""
import gmpy2
import pytest

from costbook import Counts
from costbook.backends.modexp import operands
from costbook.harness import Profile
from costbook.validation import find_benchmark, validate_steps, validation_table

FAST = Profile("test", samples=3, min_batch_seconds=0.005, warmup_seconds=0.0)


def test_a_step_of_three_exponentiations_is_predicted_by_its_counts():
    b, e, n = (gmpy2.mpz(x) for x in operands(2048, 700))

    def step():                         # exactly three 2048-bit exponentiations with 700-bit exponents
        for _ in range(3):
            gmpy2.powmod(b, e, n)
    (check,) = validate_steps({"three": step}, {"three": Counts({"modexp/2048/700": 3})}, "gmp", FAST)
    # a ratio in one run, not an absolute time; the loop and call overhead are tiny next to the powmods
    assert abs(check.error) < 0.25
    # and a model that forgets two of the three is caught
    (wrong,) = validate_steps({"three": step}, {"three": Counts({"modexp/2048/700": 1})}, "gmp", FAST)
    assert wrong.error > 1.5
    assert "three" in str(validation_table([check]))


def test_errors():
    with pytest.raises(ValueError, match="same steps"):
        validate_steps({"a": lambda: None}, {"b": Counts()}, "gmp", FAST)
    with pytest.raises(LookupError):
        find_benchmark("modexp/2048/256", "no-such-backend")
