"""The sentence a table says of its prediction intervals is written once (uncertainty.margin_words):
the CLI's and the chapters' of one margin, the closing chapter's of its rows' margins
(compare.interval_words), with the values of the margins it was given."""
from types import SimpleNamespace

import pytest

from costbook.views import compare
from costbook.calibration import uncertainty
from costbook.calibration.uncertainty import Margin

VALIDATED = [Margin(0.0700, 384, "pooled", 'punchcard at {"punches": 10}', centre=0.0442, spread_floor=0.2),
             Margin(0.0682, 402, "pooled", 'veccom at {"n": 1000}', centre=0.0457, spread_floor=0.2)]
PUBLISHED = [Margin(0.1005, 55, "across machines", "every punchcard row"),
             Margin(0.0937, 30, "across machines", "every mixnet row")]


def test_one_margin_is_said_with_its_values_and_what_it_left_out():
    said = uncertainty.margin_words(VALIDATED[0])
    assert said.startswith("90% prediction intervals, made as a validated step's")
    assert "+4.5% (the model's steady offset) ±7.3% where" in said
    assert 'the margin of 384 validation checks on this machine, leaving out punchcard at {"punches": 10}' in said
    said = uncertainty.margin_words(PUBLISHED[1], level=0.8)
    assert said.startswith("80% prediction intervals: the prices' spread widened")
    assert "×e^±0.094 (±9.8%), the margin of 30 predictions" in said and said.endswith("leaving out every mixnet row")


def test_several_margins_are_said_as_ranges_and_equal_ones_once():
    said = uncertainty.margin_words(VALIDATED)
    assert "+4.5% to +4.7% (the model's steady offset) ±7.1% to ±7.3% where" in said
    assert "the margin of 384 to 402 validation checks" in said and "leaving out each row's own scheme at its size" in said
    # the estimate is not moved by the offset: the words say how its interval still holds it
    assert said.endswith("the estimate itself is not moved by the offset, and its interval is stretched to hold it "
                         "where the offset would leave it outside")
    said = uncertainty.margin_words(PUBLISHED)
    assert "×e^±0.094 to ×e^±0.101 (±9.8% to ±10.6%), the margin of 30 to 55 predictions" in said
    assert uncertainty.margin_words([PUBLISHED[0], PUBLISHED[0]]) == uncertainty.margin_words(PUBLISHED[0])


def test_margins_of_two_kinds_or_none_are_refused():
    with pytest.raises(ValueError, match="one kind"):
        uncertainty.margin_words([VALIDATED[0], PUBLISHED[0]])
    with pytest.raises(ValueError, match="at least one"):
        uncertainty.margin_words([])


def test_the_closing_chapters_sentence_is_margin_words_of_its_rows():
    rows = [SimpleNamespace(reference_margin=VALIDATED[0], seed_margin=PUBLISHED[0]),
            SimpleNamespace(reference_margin=VALIDATED[1], seed_margin=None),
            SimpleNamespace(reference_margin=VALIDATED[1], seed_margin=PUBLISHED[1])]
    assert compare.interval_words(rows) == (f"On the reference machine, {uncertainty.margin_words(VALIDATED)}. "
                                            f"On the seeds' machines, {uncertainty.margin_words(PUBLISHED)}.")
    assert compare.interval_words(rows[1:2]) == f"On the reference machine, {uncertainty.margin_words(VALIDATED[1])}."
